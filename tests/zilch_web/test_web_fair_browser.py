"""Dice nobody can know in advance, in Debian's chromium at 360 x 740 (issue 37, item 4;
zilch_web/static/fair.js): a short game against the computer shows the commitment to its dice from
the start (short, in full when tapped), and at its end the revealed seed with the page's own check
(SubtleCrypto SHA-256 and every roll rolled again from the seed), which says "does not match" for a
changed roll or commitment; a practice game says so, with its seed, on every screen. axe-core finds nothing serious on the end screen with the check shown."""

from __future__ import annotations

import hashlib

from .test_web_a11y import axe_violations
from .test_web_browser import CALM, PHONE, browser, make_page, open_new_game, settle, start, take_turn  # noqa: F401


def test_commitment_from_the_start_and_the_seed_verified_at_the_end(browser, base_url):  # noqa: F811
    ctx, page = make_page(browser, PHONE, **CALM)  # (the dice's tumble: nothing to check here)
    try:
        g = start(page, base_url, target=300, players=[("You", None), ("", "Easy")])
        promised = g["commitment"]
        assert g["seed"] is None and len(promised) == 64
        box = page.locator("#screen-play .fair")
        assert box.is_visible() and promised[:12] in box.inner_text() and promised not in box.inner_text()
        assert box.locator("details").get_attribute("title") == promised
        box.locator("summary").click()  # tapped: the commitment in full
        assert promised in box.inner_text()
        for _ in range(200):
            if g["status"] == "over":
                break
            take_turn(page, g, bank_from=300)
            g = settle(page, g["version"])
        assert g["status"] == "over" and g["seed"].isdigit()
        assert hashlib.sha256(f"zilch-rl/dice/1:splitmix64:{g['seed']}".encode()).hexdigest() == promised
        mark = page.locator("#screen-over .fair .mark")
        page.wait_for_function("document.querySelector('#screen-over .fair .mark').dataset.result !== undefined")
        assert mark.get_attribute("data-result") == "verified", mark.inner_text()
        rolls = len(page.evaluate(f"fetch('/api/games/{g['id']}/record').then((r) => r.json())")["rolls"])
        assert mark.inner_text() == (f"✓ Verified: the seed gives the commitment shown at the start and all "
                                     f"{rolls} rolls.")
        assert f"seed {g['seed']}" in page.inner_text("#over-info")
        assert promised[:12] in page.inner_text("#screen-over .fair")
        assert axe_violations(page) == []
        # A record whose roll was changed, then a commitment other than the one seen at the start:
        # the page says the seed does not match, and names the roll.
        def bad_record(route):
            rec = route.fetch().json()
            rec["rolls"][0] = [f % 6 + 1 for f in rec["rolls"][0]]
            route.fulfill(json=rec)

        page.route(f"**/api/games/{g['id']}/record", bad_record)
        page.reload()
        page.wait_for_function("(document.querySelector('#screen-over .fair .mark') || {dataset: {}}).dataset.result")
        assert mark.get_attribute("data-result") == "badRoll"
        assert mark.inner_text() == "✗ Does not match: roll 1 of the game is not the roll the seed gives."
        page.evaluate(f"localStorage.setItem('zilchCommit', JSON.stringify({{'{g['id']}': '{'0' * 64}'}}))")
        page.reload()
        page.wait_for_function("(document.querySelector('#screen-over .fair .mark') || {dataset: {}}).dataset.result")
        assert mark.get_attribute("data-result") == "badCommit"
        assert "Does not match" in mark.inner_text()
        page.unroute(f"**/api/games/{g['id']}/record")
        # The page's keyed dice are the server's (zilch_web/dice.py) for any seed, 63-bit ones too.
        from zilch_web.dice import keyed_roll

        for seed, k, n in ((0, 0, 6), (2**63 - 1, 5, 3), (8787142350809848730, 41, 1)):
            assert page.evaluate(f"zilchFair.keyedRoll({seed}n, {k}, {n})") == list(keyed_roll(seed, k, n))
        # A practice game (a seed chosen through the API): "Practice dice: seed N" on its screens.
        open_new_game(page, base_url, {"ruleset": "zonk", "seed": 77, "players": [{"name": "Ann"}, {"name": "Bob"}]})
        settle(page)
        assert page.locator("#screen-pass").is_visible()
        assert page.inner_text("#screen-pass .fair .practice") == "Practice dice: seed 77"
        page.click("#pass-go")
        settle(page)
        assert page.inner_text("#screen-play .fair .practice") == "Practice dice: seed 77"
        assert not page.errors, page.errors
    finally:
        ctx.close()
