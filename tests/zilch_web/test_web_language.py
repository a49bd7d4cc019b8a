"""The web game in the player's own language (issue 38, item 5), in Debian's chromium: English,
Portuguese (Brazil) and Swedish, chosen from the browser's language (``navigator.languages``) or the
switch on the page (remembered in localStorage ``zilchLang``).

Covered: the catalogues (the page's, and the rules' words of zilch_env/rules/words.toml) have the
same keys and placeholders; the first screen and a game at 360 x 740 (and spot checks at 320 x 568
and 740 x 360) show none of the English catalogue's texts in pt-BR and sv (a scan of the visible text for every English text that the language translates);
the switch changes the language and is remembered across reloads; the server's refusals are shown
by their code in the page's language. The rules notes under the scores come with keys
(``note_keys`` of the game view) and are written by the page. The texts the server writes (the rules
page, the variants, the hint's explanation): test_web_words.py and test_web_words_browser.py. ``ZILCH_SCREENSHOTS=docs/screenshots`` also saves the first screen and a game in pt-BR and sv.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from zilch_web.words import rule_texts

from .test_web_browser import CHROMIUM, LANDSCAPE, PHONE, SMALL, browser, make_page, settle, shot  # noqa: F401

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (/usr/bin/chromium)")

STATIC = Path(__file__).resolve().parents[2] / "zilch_web" / "static"
LANGS = ["en", "pt-BR", "sv"]
NO_TIPS = "localStorage.setItem('zilchTips', JSON.stringify({seen: [], off: true}))"


def catalogues() -> dict[str, dict[str, str]]:
    """The three catalogues as node reads them (the files are plain scripts setting ZILCH_TEXT)."""
    script = ("global.window = {};" + "".join(f"require({json.dumps(str(STATIC / f'text-{lang}.js'))});" for lang in LANGS)
              + "console.log(JSON.stringify(window.ZILCH_TEXT));")
    return json.loads(subprocess.run(["node", "-e", script], check=True, capture_output=True, text=True).stdout)


#: The page's catalogues as node reads them.
PAGE_CAT = catalogues()
#: Every text the player may see by key: the page's catalogues and the rules' words the server says
#: (zilch_env/rules/words.toml under the keys ``rules.line.KEY`` and ``variant.KEY.*``).
CAT = {lang: {**PAGE_CAT[lang], **rule_texts(lang)} for lang in LANGS}


def english_texts(text: str, lang: str) -> list[str]:
    """The English catalogue's texts (their parts between placeholders, of two words or more) found
    in ``text``, where ``lang`` has its own text for the key."""
    found = []
    for key, en in CAT["en"].items():
        if CAT[lang].get(key, en) == en:
            continue
        for part in re.split(r"\{\w+\}", en):
            part = part.strip(" .,:;()·")
            if " " in part and len(part) >= 8 and part in text:
                found.append(f"{key}: {part!r}")
    return found


def english_left(page, lang):
    """The English catalogue's texts (their parts between placeholders, of two words or more) that
    are on screen, where `lang` has its own text for the key."""
    return english_texts(page.evaluate("document.body.innerText"), lang)


def test_the_catalogues_have_the_same_keys_and_placeholders():
    for lang in ("pt-BR", "sv"):
        assert set(CAT[lang]) >= set(CAT["en"]), sorted(set(CAT["en"]) - set(CAT[lang]))
        for key, en in CAT["en"].items():
            assert set(re.findall(r"\{\w+\}", CAT[lang][key])) == set(re.findall(r"\{\w+\}", en)), (lang, key)


def test_the_rules_notes_of_the_server_are_in_the_catalogues():
    """The game view's notes (zilch_web.table.Table.NOTE_TEXT) have the same keys in the page's
    catalogues, the English one word for word."""
    from zilch_web.table import Table

    for key, en in Table.NOTE_TEXT.items():
        assert CAT["en"]["note." + key] == en
        for lang in ("pt-BR", "sv"):
            assert "note." + key in CAT[lang], (lang, key)


@pytest.mark.parametrize("script", ["app.js", "tell.js", "feel.js", "fair.js", "review.js", "history.js"])
def test_no_user_visible_string_in_app_js_outside_the_catalogues(script):
    """The page's scripts show words only through t(key): no English sentence in a string literal."""
    code = (STATIC / script).read_text()
    code = re.sub(r"(^|\s)//.*$", "", code, flags=re.M)
    literals = re.findall(r'"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`', code)
    sentences = []
    for a, b in literals:
        words = re.sub(r"\$\{[^}]*\}", "", a or b)
        # two words or more of prose: not a class list, a selector, an id or markup
        if re.search(r"[A-Za-z]{2,} [a-z]{2,}", words) and not re.fullmatch(r"[a-z0-9 _-]+", words) \
                and not re.search(r"[#=\[]", words):
            sentences.append(a or b)
    assert not sentences, sentences


def open_home(browser, lang, viewport=PHONE):  # noqa: F811
    ctx, pg = make_page(browser, viewport, locale=lang)
    pg.add_init_script(NO_TIPS)
    return ctx, pg


def home(pg, base_url):  # noqa: F811
    pg.goto(base_url + "/")
    pg.wait_for_selector("#screen-new:not([hidden])")
    pg.wait_for_function("window.zilch.cpus !== null")


@pytest.mark.parametrize("lang", ["pt-BR", "sv"])
def test_first_screen_and_a_game_in_the_browsers_language(browser, base_url, lang):  # noqa: F811
    ctx, pg = open_home(browser, lang)
    try:
        home(pg, base_url)
        assert pg.evaluate("document.documentElement.lang") == lang
        assert pg.input_value("#lang") == lang
        assert pg.inner_text("#start") == CAT[lang]["form.start"]
        assert pg.inner_text("#rules-link") == CAT[lang]["bar.rules"]
        assert not english_left(pg, lang)
        shot(pg, f"phone-new-game-{lang}.png")
        for mode in ("cpu", "pass", "online"):
            pg.click(f'#modes label:has(input[value="{mode}"])')
            assert not english_left(pg, lang), mode
        pg.click('#modes label:has(input[value="cpu"])')
        pg.click("#more-rules summary")
        pg.fill("#target", "1000")
        pg.dispatch_event("#target", "change")
        pg.click("#start")
        g = settle(pg)
        left = english_left(pg, lang)
        assert not left, left
        shot(pg, f"phone-game-{lang}.png")
        if g["phase"] == "keep":
            assert pg.inner_text("#selection") in (CAT[lang]["sel.tap"], "") or "→" in pg.inner_text("#selection")
            pg.click("#hint-btn")
            pg.wait_for_selector("#hint:not([hidden]) strong", timeout=20000)
            assert pg.inner_text("#hint strong").startswith(CAT[lang]["hint.best"].split("{")[0].strip())
            assert not english_left(pg, lang)
        assert not pg.errors, pg.errors
    finally:
        ctx.close()


def test_the_switch_changes_the_language_and_is_remembered(browser, base_url):  # noqa: F811
    ctx, pg = open_home(browser, "en-US")
    try:
        home(pg, base_url)
        assert pg.inner_text("#start") == CAT["en"]["form.start"]
        with pg.expect_navigation():  # the switch reloads the page: wait for that load, not the one before it
            pg.select_option("#lang", "sv")
        home(pg, base_url)
        assert pg.inner_text("#start") == CAT["sv"]["form.start"]
        assert pg.evaluate("document.documentElement.lang") == "sv"
        pg.reload()
        home(pg, base_url)
        assert pg.inner_text("#start") == CAT["sv"]["form.start"]  # remembered
        with pg.expect_navigation():  # the switch reloads the page: wait for that load, not the one before it
            pg.select_option("#lang", "pt-BR")
        home(pg, base_url)
        assert pg.inner_text("#start") == CAT["pt-BR"]["form.start"]
        with pg.expect_navigation():  # the switch reloads the page: wait for that load, not the one before it
            pg.select_option("#lang", "en")
        home(pg, base_url)
        assert pg.inner_text("#start") == CAT["en"]["form.start"]
        assert not pg.errors, pg.errors
    finally:
        ctx.close()


@pytest.mark.parametrize("lang", ["pt-BR", "sv"])
def test_a_refusal_is_shown_by_its_code(browser, base_url, lang):  # noqa: F811
    ctx, pg = open_home(browser, lang)
    try:
        pg.goto(base_url + "/g/no-such-game")
        pg.wait_for_selector("#loading a")
        assert CAT[lang]["error.code.unknown_game"] in pg.inner_text("#loading")
        assert CAT[lang]["load.startNew"] in pg.inner_text("#loading")
    finally:
        ctx.close()


@pytest.mark.parametrize("lang", ["pt-BR", "sv"])
def test_spot_checks_at_other_sizes(browser, base_url, lang):  # noqa: F811
    """At 320 x 568 and 740 x 360 in turn, in one page (set_viewport_size: the layout is CSS alone,
    app.js reads no viewport size): the first screen at each size, then a game at each size."""
    ctx, pg = open_home(browser, lang, SMALL)
    try:
        home(pg, base_url)
        for viewport in (SMALL, LANDSCAPE):
            pg.set_viewport_size(viewport)
            assert not english_left(pg, lang), viewport
            assert pg.evaluate("document.documentElement.scrollWidth") <= viewport["width"], viewport
        pg.set_viewport_size(SMALL)
        pg.click("#start")
        settle(pg)
        for viewport in (SMALL, LANDSCAPE):
            pg.set_viewport_size(viewport)
            assert not english_left(pg, lang), viewport
            assert pg.evaluate("document.documentElement.scrollWidth") <= viewport["width"], viewport
        assert not pg.errors, pg.errors
    finally:
        ctx.close()
