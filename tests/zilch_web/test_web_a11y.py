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

from .test_web_browser import (CALM, CHROMIUM, LANDSCAPE, PHONE, SMALL, browser, make_page,  # noqa: F401
                               settle, start, take_turn)

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


def open_page(browser, viewport=PHONE, dark=False, **ctx_args):  # noqa: F811
    ctx, pg = make_page(browser, viewport, color_scheme="dark" if dark else "light", **ctx_args)
    pg.add_init_script(NO_TIPS)
    return ctx, pg


def in_both_themes(pg, found, name):
    """axe on the page as it is, in the light and in the dark theme (prefers-color-scheme emulated:
    the theme is CSS alone), the page left light."""
    for scheme in ("light", "dark"):
        pg.emulate_media(color_scheme=scheme)
        found[f"{name} ({scheme})"] = axe_violations(pg)
    pg.emulate_media(color_scheme="light")


def at_sizes(pg, found, name, sizes):
    """axe on the page as it is at each size in turn (set_viewport_size: the layout is CSS alone)."""
    for viewport in sizes:
        pg.set_viewport_size(viewport)
        found[f"{name} {viewport['width']}x{viewport['height']}"] = axe_violations(pg)


def test_axe_first_screen_game_and_rules(browser, base_url):  # noqa: F811
    """Each screen checked in the light and the dark theme, one after the other in one page."""
    ctx, pg = open_page(browser)
    try:
        pg.goto(base_url + "/")
        pg.wait_for_selector("#screen-new:not([hidden])")
        pg.wait_for_function("window.zilch.cpus !== null")
        found = {}
        in_both_themes(pg, found, "first screen")
        pg.click("#more-rules summary")
        in_both_themes(pg, found, "more rules")
        g = start(pg, base_url, target=1000)
        if g["phase"] == "keep":
            in_both_themes(pg, found, "game")
            if pg.locator("#hint-btn").is_visible() and pg.is_enabled("#hint-btn"):
                pg.click("#hint-btn")
                pg.wait_for_selector("#hint:not([hidden]) strong")  # the hint itself, not "thinking"
                in_both_themes(pg, found, "hint")
        pg.goto(base_url + "/rules/zonk")
        in_both_themes(pg, found, "rules page")
        assert not pg.errors, pg.errors
    finally:
        ctx.close()
    assert not any(found.values()), "\n".join(f"{k}: {v}" for k, v in found.items() if v)


def test_axe_pass_the_phone(browser, base_url):  # noqa: F811
    ctx, pg = open_page(browser, **CALM)  # (the dice's tumble: nothing to check here, the phone is passed)
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


def test_axe_at_other_sizes(browser, base_url):  # noqa: F811
    """320 x 568 and 740 x 360, each screen checked at both sizes in turn in one page."""
    ctx, pg = open_page(browser, SMALL)
    try:
        pg.goto(base_url + "/")
        pg.wait_for_selector("#screen-new:not([hidden])")
        found = {}
        at_sizes(pg, found, "first screen", [SMALL, LANDSCAPE])
        pg.set_viewport_size(SMALL)
        start(pg, base_url, target=1000)
        at_sizes(pg, found, "game", [SMALL, LANDSCAPE])
    finally:
        ctx.close()
    assert not any(found.values()), "\n".join(f"{k}: {v}" for k, v in found.items() if v)
