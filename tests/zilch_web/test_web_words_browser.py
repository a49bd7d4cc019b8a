"""The screens whose words the server writes, in Portuguese (Brazil) and Swedish, in Debian's chromium
at 360 x 740 (issue 38, item 5): the variants of "More rules" and the preset's summary, the rules page
and its scoring table (reached by the page's Rules link: the page's language goes to the server in
the cookie ``zilchLang``), and the hint with its explanation and options.

Each screen is scanned for the English catalogue's texts that the language translates
(test_web_language.english_left) and for a list of common English words
(test_web_words.english_words); axe-core finds no serious or critical violation on "More rules",
the rules page and the game with the hint open, in either language. Every kind of game event is told by the page in the language (the log and the
computer's turn shown step by step). ``ZILCH_SCREENSHOTS=docs/screenshots`` also saves the rules page and the hint.
"""

from __future__ import annotations

import json

import pytest

from .test_web_a11y import axe_violations
from .test_web_browser import CHROMIUM, browser, settle, shot  # noqa: F401
from .test_web_language import CAT, english_left, home, open_home
from .test_web_words import english_words

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (/usr/bin/chromium)")

#: Seed 9: the first roll (1 2 3 3 4 5) scores, so the hint has keeps to weigh.
KEEP_FIRST = 9


def seeded(pg, seed):
    def add_seed(route, request):
        if request.method == "POST":
            route.continue_(post_data=json.dumps({**json.loads(request.post_data or "{}"), "seed": seed}))
        else:
            route.continue_()

    pg.route("**/api/games", add_seed)


@pytest.mark.parametrize("lang", ["pt-BR", "sv"])
def test_more_rules_the_rules_page_and_the_hint_in_the_language(browser, base_url, lang):  # noqa: F811
    ctx, pg = open_home(browser, lang)
    seeded(pg, KEEP_FIRST)
    try:
        home(pg, base_url)
        pg.click("#more-rules summary")
        for preset in ("zonk", "farkle", "zilch"):
            pg.select_option("#preset", preset)
            more = pg.inner_text("#more-rules")
            assert not english_left(pg, lang), (preset, english_left(pg, lang))
            assert not english_words(more), (preset, english_words(more))
        assert CAT[lang]["variant.variants.piggyback.label"] in more
        assert not axe_violations(pg)

        pg.click("#rules-link")  # the rules of the form's rules, in the page's language
        pg.wait_for_selector("table.scoring")
        assert pg.evaluate("document.documentElement.lang") == lang
        assert pg.inner_text("h1") == CAT[lang]["rules.title"].replace("{name}", "zilch")
        text = pg.evaluate("document.body.innerText")
        assert not english_left(pg, lang), english_left(pg, lang)
        assert not english_words(text), english_words(text)
        assert not axe_violations(pg)
        shot(pg, f"phone-rules-{lang}.png")

        pg.go_back()
        home(pg, base_url)
        pg.select_option("#preset", "zonk")
        pg.click("#start")
        g = settle(pg)
        assert g["phase"] == "keep" and g["roll"] == [1, 2, 3, 3, 4, 5], g["roll"]
        pg.click("#hint-btn")
        pg.wait_for_selector("#hint:not([hidden]) ol li", timeout=30000)
        hint = pg.inner_text("#hint")
        assert CAT[lang]["hint.explain.keep"].split("(")[0].strip() in hint, hint
        assert not english_left(pg, lang), english_left(pg, lang)
        assert not english_words(hint), (english_words(hint), hint)
        shot(pg, f"phone-hint-{lang}.png")
        assert not axe_violations(pg)  # the hint open, the sound and vibration switches below
        assert not pg.errors, pg.errors
    finally:
        ctx.close()


#: One event of every kind the server sends (zilch_web.table.Table.apply), with its fields.
EVENTS = [
    {"kind": "roll", "seat": 1, "dice": [1, 2, 3]},
    {"kind": "keep", "seat": 1, "dice": [1, 5], "points": 150, "turn_total": 150, "then": "roll", "hot_dice": False},
    {"kind": "keep", "seat": 1, "dice": [5], "points": 50, "turn_total": 600, "then": "roll", "hot_dice": True},
    {"kind": "bank", "seat": 1, "points": 600, "turn_total": 600, "score": 600},
    {"kind": "bank", "seat": 1, "points": 0, "turn_total": 300, "score": 0},
    {"kind": "zilch", "seat": 1, "dice": [2, 3], "lost": 300, "points": 0, "score": 0},
    {"kind": "zilch", "seat": 1, "dice": [2, 3], "lost": 300, "points": 1500, "score": 1500},
    {"kind": "fresh", "seat": 1},
    {"kind": "fresh", "seat": 1, "turn_total": 500},
    {"kind": "bonus", "seat": 1, "dice": [2, 3, 3, 4, 4, 6], "points": 500, "turn_total": 500, "can_bank": True},
    {"kind": "challenge", "seat": 1, "target": 0},
    {"kind": "challenge_result", "seat": 0, "challenger": 1, "points": -400},
    {"kind": "piggyback", "seat": 1, "turn_total": 400, "dice_left": 2},
    {"kind": "piggyback", "seat": 1, "turn_total": 400, "dice_left": 1},
    {"kind": "penalty", "seat": 1, "score": 100, "rule": "subtract"},
    {"kind": "final_round", "seat": 1},
    {"kind": "tiebreak", "seat": None, "players": [0, 1]},
    {"kind": "turn_start", "seat": 1, "decide": "challenge"},
    {"kind": "turn_start", "seat": 1, "decide": "piggyback"},
    {"kind": "game_over", "seat": None, "winners": [1], "scores": [100, 10000]},
    {"kind": "game_over", "seat": None, "winners": [0, 1], "scores": [10000, 10000]},
]


@pytest.mark.parametrize("lang", ["pt-BR", "sv"])
def test_every_kind_of_event_is_told_in_the_language(browser, base_url, lang):  # noqa: F811
    ctx, pg = open_home(browser, lang)
    try:
        home(pg, base_url)
        pg.click("#start")
        settle(pg)
        # each event as the page tells it (all of them in one round trip to the page)
        told = pg.evaluate("(events) => events.map((e) => evText({...e, text: 'ENGLISH'}))", EVENTS)
        assert len(told) == len(EVENTS)
        for e, said in zip(EVENTS, told):
            assert said != "ENGLISH" and "{" not in said, (e, said)
            assert not english_words(said), (e, said)
        assert not pg.errors, pg.errors
    finally:
        ctx.close()
