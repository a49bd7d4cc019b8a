"""Accessibility checked by a tool (issue 38, item 7): axe-core, injected into the page by playwright,
finds no serious or critical violation on the first screen, in a game (the dice rolled, a keep chosen,
the hint open), on the pass-the-phone screen and the rules page, in the light
and the dark theme, at 360 x 740 (and the first screen and a game at 320 x 568 and 740 x 360).

axe-core is the npm package ``axe-core`` (4.x): ``make test`` installs it into ``.cache/npm`` when
missing (``npm install --no-save --prefix .cache/npm axe-core@4``); ``ZILCH_AXE`` names another
``axe.min.js``. Without the file these tests fail saying how to install it (never a silent skip).
The review of a game and the history are checked in test_web_review_browser.py (issue 37).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .test_web_browser import (CHROMIUM, LANDSCAPE, PHONE, SMALL, base_url, browser, make_page, settle,  # noqa: F401
                               start, take_turn)

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (/usr/bin/chromium)")

ROOT = Path(__file__).resolve().parents[2]
AXE = Path(os.environ.get("ZILCH_AXE") or ROOT / ".cache/npm/node_modules/axe-core/axe.min.js")
NO_TIPS = "localStorage.setItem('zilchTips', JSON.stringify({seen: [], off: true}))"


def axe_violations(page):
    """The serious and critical violations axe-core finds on the page as it is (WCAG 2.x A and AA and
    best practices), each as 'rule: target (summary)'."""
    if not AXE.is_file():
        pytest.fail(f"axe-core is missing ({AXE}): run `npm install --no-save --prefix .cache/npm axe-core@4` "
                    "in the project folder (`make test` does it), or set ZILCH_AXE to an axe.min.js")
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    result = page.evaluate("""async () => {
      const r = await axe.run(document, {resultTypes: ['violations']});
      return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .flatMap((v) => v.nodes.map((n) => v.id + ': ' + n.target.join(' ') + ' (' + n.failureSummary.split('\\n').slice(0, 2).join(' ') + ')'));
    }""")
    return result


def open_page(browser, viewport=PHONE, dark=False):  # noqa: F811
    ctx, pg = make_page(browser, viewport, color_scheme="dark" if dark else "light")
    pg.add_init_script(NO_TIPS)
    return ctx, pg


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_axe_first_screen_game_and_rules(browser, base_url, dark):  # noqa: F811
    ctx, pg = open_page(browser, dark=dark)
    try:
        pg.goto(base_url + "/")
        pg.wait_for_selector("#screen-new:not([hidden])")
        pg.wait_for_function("window.zilch.cpus !== null")
        found = {"first screen": axe_violations(pg)}
        pg.click("#more-rules summary")
        found["more rules"] = axe_violations(pg)
        g = start(pg, base_url, target=1000)
        if g["phase"] == "keep":
            found["game"] = axe_violations(pg)
            if pg.locator("#hint-btn").is_visible() and pg.is_enabled("#hint-btn"):
                pg.click("#hint-btn")
                pg.wait_for_timeout(300)
                found["hint"] = axe_violations(pg)
        pg.goto(base_url + "/rules/zonk")
        found["rules page"] = axe_violations(pg)
        assert not pg.errors, pg.errors
    finally:
        ctx.close()
    assert not any(found.values()), "\n".join(f"{k}: {v}" for k, v in found.items() if v)


def test_axe_pass_the_phone(browser, base_url):  # noqa: F811
    ctx, pg = open_page(browser)
    try:
        g = start(pg, base_url, target=300, players=[("Ann", None), ("Bo", None)])
        found = {}
        for _ in range(40):  # Ann's turns until the phone is passed
            if not pg.locator("#screen-pass").is_hidden():
                break
            version = g["version"]
            take_turn(pg, g, bank_from=50)
            g = settle(pg, version)
        assert not pg.locator("#screen-pass").is_hidden()
        found["pass the phone"] = axe_violations(pg)
        assert not pg.errors, pg.errors
    finally:
        ctx.close()
    assert not any(found.values()), "\n".join(f"{k}: {v}" for k, v in found.items() if v)


@pytest.mark.parametrize("viewport", [SMALL, LANDSCAPE], ids=["320x568", "740x360"])
def test_axe_at_other_sizes(browser, base_url, viewport):  # noqa: F811
    ctx, pg = open_page(browser, viewport)
    try:
        pg.goto(base_url + "/")
        pg.wait_for_selector("#screen-new:not([hidden])")
        found = {"first screen": axe_violations(pg)}
        start(pg, base_url, target=1000)
        found["game"] = axe_violations(pg)
    finally:
        ctx.close()
    assert not any(found.values()), "\n".join(f"{k}: {v}" for k, v in found.items() if v)
