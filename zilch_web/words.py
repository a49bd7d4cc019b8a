"""The server's words in the player's language: the page's own catalogues (static/text-en.js,
text-pt-BR.js, text-sv.js), read here too, and the rules' words (zilch_env/rules/words.toml: the
rules' lines and the variant toggles of the new-game form, :func:`rule_texts`), so that the pages
the server writes (the rules page and its scoring table) and the texts it sends (a preset's summary,
the variants of the new-game form) speak the language the page speaks.

The language of a request (:func:`request_lang`): ``?lang=`` if it names one, else the cookie
``zilchLang`` (the page sets it when the player picks a language on it), else the browser's
``Accept-Language``, else English.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

from zilch_env.rules.words import rule_words

LANGS = ("en", "pt-BR", "sv")
STATIC = Path(__file__).with_name("static")
#: How each language writes a whole number: its thousands separator (a no-break space in Swedish).
THOUSANDS = {"en": ",", "pt-BR": ".", "sv": "\u00a0"}


@functools.cache
def catalogue(lang: str) -> dict[str, str]:
    """The catalogue of ``lang`` as the page has it: the object literal that static/text-LANG.js
    assigns to ``window.ZILCH_TEXT[LANG]`` (double-quoted strings, a comma after the last entry,
    whole-line ``//`` comments), read as JSON. ValueError names a file that cannot be read so."""
    if lang not in LANGS:
        raise ValueError(f"no catalogue for language {lang!r}; the languages are {', '.join(LANGS)}")
    path = STATIC / f"text-{lang}.js"
    text = path.read_text(encoding="utf-8")
    start, end = text.find("= {"), text.rfind("}")
    body = "\n".join(line for line in text[start + 2:end + 1].splitlines() if not line.strip().startswith("//"))
    try:
        return json.loads(re.sub(r",\s*}$", "}", body))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: the catalogue is not a plain object of double-quoted strings ({e})") from None


@functools.cache
def rule_texts(lang: str) -> dict[str, str]:
    """The rules' words of ``lang`` (zilch_env.rules.words) under the keys the server says them by:
    ``rules.line.KEY`` a line of the rules, ``variant.KEY.label``, ``variant.KEY.help`` and
    ``variant.KEY.choice.N`` a toggle of the new-game form (KEY its override key, N its choice)."""
    words = rule_words()
    out = {f"rules.line.{key}": text for key, text in words.lines[lang].items()}
    for tg in words.toggles:
        out[f"variant.{tg.key}.label"] = tg.label[lang]
        out[f"variant.{tg.key}.help"] = tg.help[lang]
        out.update({f"variant.{tg.key}.choice.{i}": x for i, x in enumerate(tg.choice_labels[lang])})
    return out


class Words:
    """The words of one language: :meth:`t` a text by key (English where the language has none),
    :meth:`number` a whole number as the language writes it. ``text`` is the page's catalogue of the
    language with the rules' words of the language (:func:`rule_texts`)."""

    def __init__(self, lang: str = "en") -> None:
        if lang not in LANGS:
            raise ValueError(f"language {lang!r} is not offered; the languages are {', '.join(LANGS)}")
        self.lang = lang
        self.text = {**catalogue("en"), **catalogue(lang), **rule_texts(lang)}

    def t(self, key: str, **values: Any) -> str:
        """The text of ``key`` with ``{name}`` replaced by ``values[name]`` (as the page's t() does);
        KeyError names a key that no catalogue has."""
        if key not in self.text:
            raise KeyError(f"no text {key!r} in the catalogues (zilch_web/static/text-en.js, "
                           f"zilch_env/rules/words.toml)")
        return re.sub(r"\{(\w+)\}", lambda m: str(values[m[1]]) if m[1] in values else m[0], self.text[key])

    def number(self, n: int) -> str:
        """``n`` with the language's thousands separator (10,000; 10.000; 10 000)."""
        return f"{n:,}".replace(",", THOUSANDS[self.lang])

    def prefixed(self, prefix: str) -> dict[str, str]:
        """Every text whose key starts with ``prefix``, by the rest of the key."""
        return {k[len(prefix):]: v for k, v in self.text.items() if k.startswith(prefix)}


def pick_lang(asked: str | None = None, cookie: str | None = None, accept: str | None = None) -> str:
    """The language for a request: ``asked`` (``?lang=``), else ``cookie``, else the first language of
    ``accept`` (an Accept-Language header, by its q-values) offered exactly or by its base
    (``pt`` -> ``pt-BR``, ``sv-FI`` -> ``sv``), else English."""
    for x in (asked, cookie):
        hit = _offered(x)
        if hit:
            return hit
    ranked = []
    for i, part in enumerate((accept or "").split(",")):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        m = re.search(r"q=([^;\s]*)", params)  # an unreadable weight counts as 0: not wanted
        if m:
            try:
                q = float(m[1])
            except ValueError:
                q = 0.0
        if tag and q > 0:
            ranked.append((-q, i, tag.strip()))
    for _, _, tag in sorted(ranked):
        hit = _offered(tag)
        if hit:
            return hit
    return "en"


def _offered(tag: str | None) -> str | None:
    if not tag:
        return None
    low = tag.strip().lower()
    return next((x for x in LANGS if x.lower() == low), None) or next(
        (x for x in LANGS if x.lower().split("-")[0] == low.split("-")[0]), None)


def request_lang(request: Any) -> str:
    """:func:`pick_lang` of a Starlette request (its ``lang`` query value, ``zilchLang`` cookie and
    ``Accept-Language`` header)."""
    return pick_lang(request.query_params.get("lang"), request.cookies.get("zilchLang"),
                     request.headers.get("accept-language"))
