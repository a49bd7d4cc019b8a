"""The strategy card on the rules page (zilch_web.strategy_page), without a browser: every preset's
page shows the bank table, the rule of thumb with its costs and its games against the perfect
player, and the first player's edge with the compensation, in English, Portuguese and Swedish (the
numbers written each language's way); rules with the same turn show the turn part only; other
rules say the card is not stored. The English of the rule is the card's own (agents.evaluate.strategy
.RULE_TEXT) word for word. In Chromium at the three phone sizes: test_web_strategy_browser.py."""

from __future__ import annotations

import html
import re

import pytest

from agents.evaluate.strategy import RULE_TEXT, shipped_card
from zilch_env import PRESETS, load_ruleset
from zilch_web.strategy_page import decimal, percent
from zilch_web.words import Words

from .test_web_api import client, db  # noqa: F401
from .test_web_language import CAT, english_texts
from .test_web_words import english_words


def section(page: str) -> str:
    """The card's section of a rules page as it reads (no markup)."""
    m = re.search(r"<section class='strategy'.*?</section>", page, flags=re.DOTALL)
    assert m, "no strategy section"
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", m[0]))).strip()


def test_the_rules_english_is_the_catalogues_word_for_word():
    for key, en in RULE_TEXT.items():
        assert CAT["en"]["strategy.rule." + key] == en, key
    for lang in ("pt-BR", "sv"):
        for key in RULE_TEXT:
            assert CAT[lang]["strategy.rule." + key] != RULE_TEXT[key], (lang, key)


def test_numbers_the_languages_way():
    assert [decimal(1234.56, Words(x), 1) for x in ("en", "pt-BR", "sv")] == ["1,234.6", "1.234,6", "1\u00a0234,6"]
    assert [percent(0.53104, Words(x)) for x in ("en", "pt-BR", "sv")] == ["53.1%", "53,1%", "53,1\u00a0%"]
    assert decimal(-0.01, Words("en")) == "0.0"


@pytest.mark.parametrize("preset", PRESETS)
def test_every_presets_card_in_english(client, preset):  # noqa: F811
    card = shipped_card(preset)
    text = section(client.get(f"/rules/{preset}").text)
    w = Words("en")
    assert text.startswith("Strategy card When to bank")
    for n, total in card["turn"]["on_board"].items():
        assert (w.number(total) if total is not None else "never") in text
    assert card["rule"]["words"].split(". ")[0] in text  # the rule of thumb, said as the CLI says it
    assert f"It gives up {decimal(card['rule']['cost'], w)} points a turn" in text
    win = card["win"]
    assert f"wins {percent(win['share'], w)} of 10,000 games" in text
    assert f"With the luck of the dice taken out: {percent(win['luck_adjusted'], w)}" in text
    assert f"the first player wins {percent(card['game']['first_player_win'], w)}" in text
    assert "closest to even" in text or "No head start" in text


def test_the_compensation_of_zonk_and_farkle_as_the_page_says_them(client):  # noqa: F811
    zonk = section(client.get("/rules/zonk").text)
    assert "A head start of 250 points, on the board, for the second player brings it to 50.2%" in zonk
    farkle = section(client.get("/rules/farkle").text)
    assert "Letting the first player skip the entry threshold" in farkle and "wins 48.2%" in farkle


@pytest.mark.parametrize("lang", ["pt-BR", "sv"])
def test_the_card_in_portuguese_and_swedish(client, lang):  # noqa: F811
    w = Words(lang)
    for preset in PRESETS:
        text = section(client.get(f"/rules/{preset}?lang={lang}").text)
        assert text.startswith(CAT[lang]["strategy.title"])
        assert not english_texts(text, lang), (preset, english_texts(text, lang))
        assert not english_words(text), (preset, english_words(text))
        card = shipped_card(preset)
        for said in (percent(card["win"]["share"], w), decimal(card["rule"]["cost"], w)):
            assert re.sub(r"\s+", " ", said) in text, (preset, said)


def test_rules_with_the_same_turn_and_other_rules(client):  # noqa: F811
    # another target: the same turn (the table, the rule, its points), no games, no solved game stored
    text = section(client.get("/rules/zonk?set.target=2000").text)
    zonk = shipped_card("zonk")
    assert "When to bank" in text and decimal(zonk["rule"]["cost"], Words("en")) in text
    assert "Against the perfect player" not in text and "No solved game is stored for these rules" in text
    # a variant between players leaves the turn as it is: shown too
    assert "It gives up" in section(client.get("/rules/farkle?set.variants.piggyback=true").text)
    # other scoring: not stored here, and the page says which command computes it
    text = section(client.get("/rules/zonk?set.scoring.straight=1000").text)
    assert text == "Strategy card No strategy card is stored for these rules; the command zilch strategy computes it."
    assert load_ruleset("zonk", {"scoring.straight": 1000}) is not None
