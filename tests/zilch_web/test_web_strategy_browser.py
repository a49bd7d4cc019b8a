"""The strategy card of the rules page in Debian's chromium at 320 x 568, 360 x 740 and 740 x 360:
the section is there under its heading, the bank table fits the phone (neither the page nor the
table's frame scrolls sideways), the rule of thumb and the
figures read on screen, in English and Swedish; axe-core finds no serious or critical violation in
the light and the dark theme. ``ZILCH_SCREENSHOTS=docs/screenshots`` saves the card at 360 x 740
(docs/screenshots/phone-strategy.png, and phone-strategy-sv.png)."""

from __future__ import annotations

import pytest

from agents.evaluate.strategy import shipped_card
from zilch_web.strategy_page import percent
from zilch_web.words import Words

from .test_web_a11y import axe_violations
from .test_web_browser import CHROMIUM, LANDSCAPE, PHONE, SMALL, base_url, browser, make_page, shot  # noqa: F401

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (/usr/bin/chromium)")


@pytest.mark.parametrize("viewport", [SMALL, PHONE, LANDSCAPE], ids=["320x568", "360x740", "740x360"])
def test_the_card_on_the_rules_page_fits_every_phone(browser, base_url, viewport):  # noqa: F811
    ctx, pg = make_page(browser, viewport)
    try:
        pg.goto(base_url + "/rules/zonk")
        pg.locator("#strategy").scroll_into_view_if_needed()
        assert pg.locator("#strategy").is_visible() and pg.inner_text("#strategy") == "Strategy card"
        assert pg.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        table = pg.locator("table.bank-table")
        assert table.locator("tbody tr").count() == 2  # on the board, and before it
        frame = pg.locator(".bank-wrap")
        box = frame.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"]
        # the whole table in its frame, no scrolling inside it either (as the scoring table)
        assert pg.evaluate("(e) => e.scrollWidth <= e.clientWidth", frame.element_handle())
        card = shipped_card("zonk")
        text = pg.inner_text("section.strategy")
        assert "Bank at 350 or more with 3 or fewer dice left." in text
        assert f"wins {percent(card['win']['share'], Words('en'))} of 10,000 games" in text
        assert "closest to even" in text
        if viewport is PHONE:
            pg.evaluate("document.querySelector('#strategy').scrollIntoView()")
            shot(pg, "phone-strategy.png")
        assert not pg.errors, pg.errors
    finally:
        ctx.close()


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_the_card_passes_axe_and_reads_in_swedish(browser, base_url, dark):  # noqa: F811
    ctx, pg = make_page(browser, PHONE, color_scheme="dark" if dark else "light", locale="sv")
    try:
        pg.goto(base_url + "/rules/farkle")
        assert pg.inner_text("#strategy") == "Strategikort"
        text = pg.inner_text("section.strategy")
        assert "Tumregel" in text and "Att låta den som börjar slippa ingångskravet" in text
        assert not axe_violations(pg)
        if not dark:
            pg.evaluate("document.querySelector('#strategy').scrollIntoView()")
            shot(pg, "phone-strategy-sv.png")
        assert not pg.errors, pg.errors
    finally:
        ctx.close()
