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
from .test_web_browser import CHROMIUM, LANDSCAPE, PHONE, SMALL, browser, make_page, shot  # noqa: F401

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (/usr/bin/chromium)")


def test_the_card_on_the_rules_page_fits_every_phone(browser, base_url):  # noqa: F811
    """At 320 x 568, 360 x 740 and 740 x 360 in turn, in one page (set_viewport_size: the rules page's
    layout is CSS alone)."""
    ctx, pg = make_page(browser, SMALL)
    try:
        pg.goto(base_url + "/rules/zonk")
        card = shipped_card("zonk")
        text = pg.inner_text("section.strategy")
        assert "Bank at 350 or more with 3 or fewer dice left." in text
        assert f"wins {percent(card['win']['share'], Words('en'))} of 10,000 games" in text
        assert "closest to even" in text
        table = pg.locator("table.bank-table")
        assert table.locator("tbody tr").count() == 2  # on the board, and before it
        for viewport in (SMALL, PHONE, LANDSCAPE):
            pg.set_viewport_size(viewport)
            pg.locator("#strategy").scroll_into_view_if_needed()
            assert pg.locator("#strategy").is_visible() and pg.inner_text("#strategy") == "Strategy card", viewport
            assert pg.evaluate("document.documentElement.scrollWidth") <= viewport["width"], viewport
            frame = pg.locator(".bank-wrap")
            box = frame.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], (viewport, box)
            # the whole table in its frame, no scrolling inside it either (as the scoring table)
            assert pg.evaluate("(e) => e.scrollWidth <= e.clientWidth", frame.element_handle()), viewport
            if viewport is PHONE:
                pg.evaluate("document.querySelector('#strategy').scrollIntoView()")
                shot(pg, "phone-strategy.png")
        assert not pg.errors, pg.errors
    finally:
        ctx.close()


def test_the_card_passes_axe_and_reads_in_swedish(browser, base_url):  # noqa: F811
    """In the light and the dark theme in turn, in one page (prefers-color-scheme emulated: the theme
    is CSS alone)."""
    ctx, pg = make_page(browser, PHONE, color_scheme="light", locale="sv")
    try:
        pg.goto(base_url + "/rules/farkle")
        assert pg.inner_text("#strategy") == "Strategikort"
        text = pg.inner_text("section.strategy")
        assert "Tumregel" in text and "Att låta den som börjar slippa ingångskravet" in text
        found = {}
        for scheme in ("light", "dark"):
            pg.emulate_media(color_scheme=scheme)
            found[scheme] = axe_violations(pg)
            if scheme == "light":
                pg.evaluate("document.querySelector('#strategy').scrollIntoView()")
                shot(pg, "phone-strategy-sv.png")
        assert not any(found.values()), found
        assert not pg.errors, pg.errors
    finally:
        ctx.close()
