"""The server's words in the player's language (issue 38, item 5): the rules page and its scoring
table, the presets' summaries and the variants of the new-game form, written from the page's own
catalogues (zilch_web.words); the hint's explanation sent as keys the page says.

Covered here without a browser: the server reads the catalogues as node does, and says the rules'
words (the rules' lines and the form's variants) from zilch_env/rules/words.toml alone, under the
keys it said them by from the page's catalogues; the English texts that the engine, the hint and the
form keep for themselves are the English catalogue's word for word;
the language of a request (?lang=, the cookie, Accept-Language); the rules page of every preset in
pt-BR and sv shows no English text of the catalogues and none of a list of common English words;
/api/setup?lang= answers the summaries and variants in that language; a hint's ``explain_keys`` say
its English ``explain``. The same screens in Chromium: test_web_words_browser.py.
"""

from __future__ import annotations

import html
import re

import pytest

from zilch_env import PRESETS, load_ruleset
from zilch_env.engine.text import RULES_TEXT, rules_lines, rules_summary, say_line
from zilch_env.rules import words as rules_words
from zilch_env.rules.words import rule_words
from zilch_web.hints import HINT_TEXT
from zilch_web.setup_form import TOGGLE_CHOICES, TOGGLES, toggle_texts
from zilch_web.words import LANGS, STATIC, Words, catalogue, pick_lang, rule_texts

from .test_web_api import client, db, new  # noqa: F401
from .test_web_language import CAT, PAGE_CAT, english_texts

#: Words of English prose that Portuguese and Swedish never use (the game's own terms such as zilch
#: and preset names aside): one of them on a translated screen is an English text left over.
ENGLISH_WORDS = ["the", "and", "of", "with", "score", "scores", "points", "dice", "die", "roll", "rolls",
                 "bank", "turn", "keep", "first", "three", "pairs", "kind", "nothing", "only", "every",
                 "straight", "rules", "back", "how", "goes", "once", "board", "instant", "win"]


def english_words(text: str) -> list[str]:
    return sorted({w for w in re.findall(r"[A-Za-z]+", text) if w.lower() in ENGLISH_WORDS})


def visible_text(page: str) -> str:
    """A rules page's text as it shows: without the markup, and without the ruleset file (a TOML
    file of keys, folded under its summary)."""
    page = re.sub(r"<pre>.*?</pre>", "", page, flags=re.DOTALL)
    return html.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"<head>.*?</head>", "", page, flags=re.DOTALL)))


def test_the_server_reads_the_catalogues_as_node_does():
    for lang in LANGS:
        assert catalogue(lang) == PAGE_CAT[lang]
    with pytest.raises(ValueError, match="'fr'.*en, pt-BR, sv"):
        catalogue("fr")
    with pytest.raises(KeyError, match="no.such"):
        Words("sv").t("no.such")


def test_the_english_the_server_keeps_is_the_catalogues_word_for_word():
    for key, en in RULES_TEXT.items():
        assert CAT["en"]["rules.line." + key] == en, key
    for key, en in HINT_TEXT.items():
        assert CAT["en"]["hint.explain." + key] == en, key
    for key, _, _, label, help_ in TOGGLES:
        assert CAT["en"][f"variant.{key}.label"] == label
        assert CAT["en"][f"variant.{key}.help"] == help_
        for i, (choice, _) in enumerate(TOGGLE_CHOICES.get(key, [])):
            assert CAT["en"][f"variant.{key}.choice.{i}"] == choice
    for lang in ("pt-BR", "sv"):  # every line of the rules said in the language, none in English
        for key in RULES_TEXT:
            assert CAT[lang]["rules.line." + key] != RULES_TEXT[key] or key == "partial.item", (lang, key)


def test_the_rules_words_live_only_in_the_rules_catalogue():
    """The rules' lines and the variant toggles are in zilch_env/rules/words.toml alone: no page
    catalogue holds their keys and no script of the page reads them (the server says them)."""
    assert LANGS == rules_words.LANGS  # the rules' words are in every language the page speaks
    for lang in LANGS:
        assert not [k for k in PAGE_CAT[lang] if k.startswith(("rules.line.", "variant."))], lang
        words = Words(lang)
        for key, text in rule_texts(lang).items():
            assert words.text[key] == text
        assert words.prefixed("rules.line.") == rule_words().lines[lang]
    for script in STATIC.glob("*.js"):
        code = script.read_text(encoding="utf-8")
        assert "rules.line" not in code and '"variant.' not in code and "`variant." not in code, script.name


def test_the_setup_forms_toggles_are_the_catalogues():
    toggles = rule_words().toggles
    assert TOGGLES == [(tg.key, tg.on, tg.off, tg.label["en"], tg.help["en"]) for tg in toggles]
    assert TOGGLE_CHOICES == {tg.key: list(zip(tg.choice_labels["en"], tg.choices)) for tg in toggles if tg.choices}
    assert TOGGLE_CHOICES["variants.zilch_penalty"][1] == ("halve the score", {"count": 3, "points": 500, "mode": "halve"})
    assert ("scoring.partial_straights", {"12345": 500, "23456": 750}, {}) in [t[:3] for t in TOGGLES]
    assert ("score_floor", -2500, 0) in [t[:3] for t in TOGGLES]
    for lang in LANGS:
        said = toggle_texts(Words(lang))
        assert [(t["key"], t["on"], t["off"]) for t in said] == [(tg.key, tg.on, tg.off) for tg in toggles]
        assert [t["label"] for t in said] == [tg.label[lang] for tg in toggles]
        assert [t["help"] for t in said] == [tg.help[lang] for tg in toggles]
        assert [[(c["label"], c["value"]) for c in t["choices"]] for t in said] == \
            [list(zip(tg.choice_labels[lang], tg.choices)) for tg in toggles]


def test_rules_summary_is_its_lines_said_in_english():
    for name in PRESETS:
        rs = load_ruleset(name)
        assert rules_summary(rs) == "\n".join(say_line(x) for x in rules_lines(rs))
    assert rules_summary(load_ruleset("zonk")).startswith("zonk: 6 dice, first to 10000 points.\n")


@pytest.mark.parametrize(("asked", "cookie", "accept", "lang"), [
    (None, None, None, "en"),
    ("sv", "pt-BR", "en", "sv"),
    ("xx", "pt-BR", "sv", "pt-BR"),
    (None, None, "pt-PT,pt;q=0.9,en;q=0.8", "pt-BR"),
    (None, None, "de-DE, sv;q=0.5, pt-BR;q=0.7", "pt-BR"),
    (None, None, "sv-FI", "sv"),
    (None, None, "fr, de", "en"),
    (None, None, "sv;q=0, pt;q=nope", "en"),
])
def test_the_language_of_a_request(asked, cookie, accept, lang):
    assert pick_lang(asked, cookie, accept) == lang


@pytest.mark.parametrize("lang", ["pt-BR", "sv"])
def test_every_rules_page_in_portuguese_and_swedish(client, lang):  # noqa: F811
    variants = [("&set.variants.piggyback=true&set.variants.challenge=true&set.variants.overcoming=true"
                "&set.variants.six_dice_zilch_bonus=500&set.score_floor=-2500&set.variants.pyramiding=true"),
                ("&set.scoring.partial_straights.12345=500&set.end=%22instant%22&set.scoring.straight=0"
                "&set.variants.zilch_penalty={count=3,points=500,mode=%22halve%22}&set.scoring.three_pairs=0")]
    for preset in PRESETS:
        for query in ["", *variants]:
            r = client.get(f"/rules/{preset}?lang={lang}{query}")
            assert r.status_code == 200, r.text
            assert f"<html lang='{lang}'>" in r.text
            text = visible_text(r.text)
            assert not english_texts(text, lang), (preset, query, english_texts(text, lang))
            assert not english_words(text), (preset, query, english_words(text))
            if not query:  # every line of how a turn goes, in the language (the first is the page's title)
                for line in rules_lines(load_ruleset(preset))[1:]:
                    said = say_line(line, Words(lang).prefixed("rules.line."))
                    assert said in text, said


def test_the_rules_page_follows_the_cookie_and_the_browser(client):  # noqa: F811
    client.cookies.set("zilchLang", "pt-BR")
    assert "Como é uma rodada" in client.get("/rules/zonk").text
    assert "Så går en omgång till" in client.get("/rules/zonk?lang=sv").text  # ?lang= first
    client.cookies.clear()
    assert "Så går en omgång till" in client.get("/rules/zonk", headers={"Accept-Language": "sv-SE,sv;q=0.9"}).text
    english = client.get("/rules/zonk", headers={"Accept-Language": "de"})
    assert "How a turn goes" in english.text and "Cookie" in english.headers["vary"]
    created = new(client, seed=1)
    page = client.get(f"/g/{created['id']}/rules?lang=sv").text
    assert "Regler: zonk" in page and "Först till 10\u00a0000" in page
    assert "Okänt parti" in client.get("/g/nope/rules?lang=sv").text
    assert "Regras desconhecidas" in client.get("/rules/nope?lang=pt-BR").text


@pytest.mark.parametrize("lang", ["pt-BR", "sv"])
def test_setup_says_the_summaries_and_variants_in_the_language(client, lang):  # noqa: F811
    s = client.get(f"/api/setup?lang={lang}").json()
    en = client.get("/api/setup").json()
    for p, q in zip(s["presets"], en["presets"]):
        assert p["summary"] != q["summary"] and not english_words(p["summary"]), p["summary"]
    texts = [t["label"] for t in s["toggles"]] + [t["help"] for t in s["toggles"]]
    texts += [c["label"] for t in s["toggles"] for c in t["choices"]]
    for text in texts:
        assert not english_words(text), text
    assert [t["label"] for t in s["toggles"]] == [CAT[lang][f"variant.{t[0]}.label"] for t in TOGGLES]
    assert [t["on"] for t in s["toggles"]] == [t["on"] for t in en["toggles"]]  # only the words change


def test_a_hints_explain_keys_say_its_explanation(client):  # noqa: F811
    created = new(client, seed=9)
    h = client.get(f"/api/games/{created['id']}/hint").json()
    assert h["explain_keys"][0] == ["keep", {"total": created["game"]["turn_total"]}]
    assert h["explain"] == " ".join(HINT_TEXT[k].format(**v) for k, v in h["explain_keys"])
    challenge = new(client, players=("Ann", "Bob"), seed=3, **{"variants.challenge": True, "entry_threshold": 0})
    h = client.get(f"/api/games/{challenge['id']}/hint").json()
    assert [k for k, _ in h["explain_keys"]] == ["challenge"]
    assert h["options"][1]["value_text"] == HINT_TEXT["challengeValue"]
