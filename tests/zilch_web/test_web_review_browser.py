"""The review of a game and this device's history in Chromium (issue 37): at 360 x 740, 320 x 568 and
740 x 360 (and dark at 360 x 740), in English, Portuguese and Swedish, checked by axe-core (0 serious or
critical).

The games are played to their end over HTTP before the browser opens them (a few dozen moves, the
greedy computer, Easy), so the screens are reached in seconds: a two-player zonk game (reviewed by
chance of winning, the shipped table) and a game to 1,000 (no table: reviewed in points, and the page
says why). The browser then opens each game's last screen, which adds it to this device's history,
and "Review this game". Covered: the decisions of both seats with the move, the best move and what
was given up; the luck of the rolls; each player's score, accuracy, luck against play and costliest
mistakes; the win-chance line (inline SVG); a decision opened by a tap, by Enter and by Space, showing
the dice, the scores and every choice with its values; a mistake that jumps to its decision; the
history's figures and list, each game opening its review; a record file that was changed, refused
with the reason in the page's language. ``ZILCH_SCREENSHOTS=docs/screenshots`` saves
phone-review.png, phone-review-move.png (a mistake opened), phone-history.png and landscape-review.png.
"""

from __future__ import annotations

import json
import urllib.request

import pytest

from .conftest import web_server
from .test_web_a11y import axe_violations
from .test_web_browser import (CHROMIUM, LANDSCAPE, PHONE, SMALL, browser, make_page, shot,  # noqa: F401
                               visible_boxes)
from .test_web_language import CAT, english_left

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (/usr/bin/chromium)")

DEVICE = "0123456789abcdef0123456789abcdef"
NO_TIPS = "localStorage.setItem('zilchTips', JSON.stringify({seen: [], off: true}))"


def _call(base, method, path, body=None):
    req = urllib.request.Request(base + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def play_out(base, target=None, seed=11):
    """A game of You against CPU Easy played to its end over HTTP (the keep worth most, bank from 300):
    its id and seat token."""
    body = {"ruleset": "zonk", "set": {"target": target} if target else {}, "seed": seed,
            "players": [{"name": "You"}, {"cpu": "greedy"}]}
    made = _call(base, "POST", "/api/games", body)
    g, token = made["game"], made["token"]
    for _ in range(600):
        if g["status"] == "over":
            break
        if g["phase"] != "keep":
            action = g["choices"][0]["action"]
        else:
            k = max(g["keeps"], key=lambda k: (k["points"], k["n"]))
            action = k["bank"] if k["bank"] is not None and k["total"] >= 300 else k["roll"]
        g = _call(base, "POST", f"/api/games/{made['id']}/moves",
                  {"version": g["version"], "seat": g["current"], "token": token, "action": action})["game"]
    assert g["status"] == "over"
    return {"id": made["id"], "token": token}


@pytest.fixture(scope="module")
def base_url(tmp_path_factory):
    """This file's own server (not the one the other browser tests share): a server works out one
    review at a time, and on the shared one the reviews of the games the other files finished (a
    finished game joins its device's history, which reviews it) would come before these."""
    with web_server(tmp_path_factory) as url:
        yield url


@pytest.fixture(scope="module")
def games(base_url):  # noqa: F811
    return {"win": play_out(base_url), "points": play_out(base_url, target=1000, seed=5), "win2": play_out(base_url, seed=12)}


def open_device(browser, games, viewport=PHONE, lang="en"):  # noqa: F811
    """A phone that played the games (their seat tokens, as the page keeps them) with its device id."""
    ctx, pg = make_page(browser, viewport, locale=lang, color_scheme="light")
    seats = {g["id"]: {"token": g["token"], "seats": [0]} for g in games.values()}
    pg.add_init_script(NO_TIPS + f";localStorage.setItem('zilchSeats', {json.dumps(json.dumps(seats))});"
                       f"localStorage.setItem('zilchDevice', {json.dumps(json.dumps(DEVICE))});"
                       f"localStorage.setItem('zilchLang', {json.dumps(json.dumps(lang))})")
    return ctx, pg


def open_review(pg, base_url, gid):  # noqa: F811
    """The game's last screen (it joins this device's history), then "Review this game"."""
    pg.goto(f"{base_url}/g/{gid}")
    pg.wait_for_selector("#screen-over:not([hidden])")
    pg.click("#review-link")
    pg.wait_for_selector("#review-body:not([hidden])", timeout=20000)
    assert pg.url == f"{base_url}/g/{gid}/review"


def check_fits(pg, viewport, selectors):
    """Nothing wider than the phone; every control a 44 px tap target."""
    assert pg.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    for sel in selectors:
        for b in visible_boxes(pg, sel, 20):
            assert b["height"] >= 44 and b["x"] >= 0 and b["x"] + b["width"] <= viewport["width"] + 0.5, (sel, b)


def test_the_review_of_a_game_by_chance_of_winning(browser, base_url, games):  # noqa: F811
    ctx, pg = open_device(browser, games)
    try:
        open_review(pg, base_url, games["win"]["id"])
        R = pg.evaluate("window.zilchReview.current")
        assert R["measure"] == "win" and R["dice"] == "verified"
        assert pg.locator("#review-why").is_hidden()
        # the line: an inline SVG, no chart library; its label says whose chance it is
        assert pg.locator("#review-line svg polyline").count() == 1
        assert "Chance of winning for You" in pg.get_attribute("#review-line svg", "aria-label")
        # both players: score, accuracy, luck against play
        cards = pg.locator(".rv-seat")
        assert cards.count() == 2
        for q in range(2):
            text = cards.nth(q).inner_text()
            assert "out of 100" in text and "per move on average" in text and "the dice" in text
        assert "(Easy)" in cards.nth(1).inner_text()
        # every decision of both seats, each with its verdict; the rolls with their luck
        decisions = pg.locator(".rv-move")
        assert decisions.count() == len(R["decisions"])
        assert {d["seat"] for d in R["decisions"]} == {0, 1}
        assert pg.locator(".rv-roll").count() == len(R["rolls"])
        assert pg.locator(".rv-luck").count() == sum(r["win_luck"] is not None for r in R["rolls"])
        slips = [d for d in R["decisions"] if d["win"] and d["win"]["loss"] > 0]
        assert slips and pg.locator(".rv-dec.slip").count() == len(slips)
        assert pg.locator(".rv-better").first.inner_text().startswith("Best: ")
        # a decision opens by a tap: the dice, the scores, every choice with its chance of winning
        first = pg.locator(".rv-move").first
        first.click()
        assert first.get_attribute("aria-expanded") == "true"
        detail = pg.locator(".rv-detail").first
        assert detail.is_visible() and "Scores: You 0" in detail.inner_text()
        assert detail.locator(".dice-pic .die").count() == len(R["decisions"][0]["roll"])
        rows = detail.locator("tbody tr")
        assert rows.count() == len(R["decisions"][0]["choices"])
        assert "played" in rows.first.inner_text() or pg.locator(".rv-detail tr.played").count() == 1
        first.click()
        assert first.get_attribute("aria-expanded") == "false" and detail.is_hidden()
        # by the keyboard: Enter opens, Space closes
        second = pg.locator(".rv-move").nth(1)
        second.focus()
        pg.keyboard.press("Enter")
        assert second.get_attribute("aria-expanded") == "true"
        pg.keyboard.press("Space")
        assert second.get_attribute("aria-expanded") == "false"
        # a costliest mistake jumps to its decision, opened, with the better move and what it was worth
        mistake = pg.locator(".rv-mistakes button").first
        assert "Better:" in mistake.inner_text() and "worth" in mistake.inner_text()
        mistake.click()
        index = R["seats"][0]["mistakes"][0]["index"] if R["seats"][0]["mistakes"] else R["seats"][1]["mistakes"][0]["index"]
        assert pg.get_attribute(f"#rv-d-{index}-btn", "aria-expanded") == "true"
        assert pg.evaluate("document.activeElement.id") == f"rv-d-{index}-btn"
        shot(pg, "phone-review-move.png")
        check_fits(pg, PHONE, [".rv-move", ".rv-mistakes button", "#review-back"])
        found = axe_violations(pg)
        assert not found, found
        pg.evaluate("window.scrollTo(0, 0)")
        shot(pg, "phone-review.png")
        # back to the game's last screen
        pg.click("#review-back")
        pg.wait_for_selector("#screen-over:not([hidden])")
        assert not pg.errors, pg.errors
    finally:
        ctx.close()


def test_rules_without_a_solved_game_are_reviewed_in_points_and_say_why(browser, base_url, games):  # noqa: F811
    ctx, pg = open_device(browser, games)
    try:
        open_review(pg, base_url, games["points"]["id"])
        assert pg.evaluate("window.zilchReview.current.measure") == "points"
        assert pg.inner_text("#review-why") == CAT["en"]["review.why.no_table"]
        assert pg.locator("#review-line").is_hidden()
        assert "Points given up" in pg.inner_text(".rv-seat")
        pg.locator(".rv-move").first.click()
        assert "Expected points" in pg.inner_text(".rv-detail >> nth=0")
        found = axe_violations(pg)
        assert not found, found
        assert not pg.errors, pg.errors
    finally:
        ctx.close()


def test_the_history_of_this_device(browser, base_url, games):  # noqa: F811
    ctx, pg = open_device(browser, games)
    try:
        for g in games.values():  # each game's last screen adds it to this device's history
            with pg.expect_response(lambda r: r.url == base_url + "/api/history" and r.request.method == "POST"):
                pg.goto(f"{base_url}/g/{g['id']}")
                pg.wait_for_selector("#screen-over:not([hidden])")
        pg.goto(base_url + "/")
        pg.click(".home-history a")
        pg.wait_for_selector("#history-body:not([hidden])")
        assert pg.url == base_url + "/history"
        for _ in range(20):  # the reviews started when the games were added; their scores follow
            if pg.locator("#history-line svg").count():
                break
            pg.wait_for_timeout(300)
            pg.reload()
            pg.wait_for_selector("#history-body:not([hidden])")
        stats = pg.inner_text("#history-stats")
        assert "Games played\n3" in stats.replace("\t", "\n") and "Longest winning streak" in stats and "Best turn" in stats
        assert pg.locator("#history-levels tbody tr").count() == 1
        assert pg.inner_text("#history-levels tbody th") == "Easy"
        assert pg.locator("#history-line svg polyline").count() == 1
        assert "(Games reviewed by chance of winning.)" in pg.inner_text("#history-line figcaption")
        items = pg.locator(".hist-game")
        assert items.count() == 3
        assert "score " in items.first.inner_text()
        check_fits(pg, PHONE, [".hist-game", "#history-forget", ".home-history a"])
        found = axe_violations(pg)
        assert not found, found
        shot(pg, "phone-history.png")
        items.last.click()  # the oldest game: its review
        pg.wait_for_selector("#review-body:not([hidden])")
        assert pg.url.endswith(f"/g/{games['win']['id']}/review")
        pg.go_back()
        pg.wait_for_selector("#history-body:not([hidden])")
        assert not pg.errors, pg.errors
    finally:
        ctx.close()


OTHER_LOOKS = [(SMALL, False), (LANDSCAPE, False), (PHONE, True)]  # 320 x 568, 740 x 360, 360 x 740 dark


def in_other_looks(pg):
    """The page at each of OTHER_LOOKS in turn (set_viewport_size and the prefers-color-scheme
    emulation), yielding (viewport, dark); back at 320 x 568, light, afterwards."""
    for viewport, dark in OTHER_LOOKS:
        pg.set_viewport_size(viewport)
        pg.emulate_media(color_scheme="dark" if dark else "light")
        yield viewport, dark
    pg.set_viewport_size(SMALL)
    pg.emulate_media(color_scheme="light")


def test_review_and_history_at_other_sizes(browser, base_url, games):  # noqa: F811
    """Each screen checked at each size and theme in turn, in one page (set_viewport_size and the
    prefers-color-scheme emulation: the review's and the history's layout and colours are CSS alone)."""
    ctx, pg = open_device(browser, games, SMALL)
    try:
        open_review(pg, base_url, games["win"]["id"])
        pg.locator(".rv-move").first.click()
        found = {}
        for viewport, dark in in_other_looks(pg):
            check_fits(pg, viewport, [".rv-move", ".rv-mistakes button"])
            found[f"review {viewport} dark={dark}"] = axe_violations(pg)
            if viewport == LANDSCAPE:
                pg.evaluate("window.scrollTo(0, 0)")
                shot(pg, "landscape-review.png")
        pg.goto(base_url + "/history")
        pg.wait_for_selector("#history-body:not([hidden])")
        for viewport, dark in in_other_looks(pg):
            check_fits(pg, viewport, [".hist-game"])
            found[f"history {viewport} dark={dark}"] = axe_violations(pg)
        assert not any(found.values()), found
        assert not pg.errors, pg.errors
    finally:
        ctx.close()


@pytest.mark.parametrize("lang", ["pt-BR", "sv"])
def test_review_and_history_in_the_players_language(browser, base_url, games, lang, tmp_path):  # noqa: F811
    ctx, pg = open_device(browser, games, lang=lang)
    try:
        open_review(pg, base_url, games["win"]["id"])
        pg.locator(".rv-move").first.click()
        left = english_left(pg, lang)
        assert not left, left
        assert CAT[lang]["review.moves"] in pg.inner_text("#screen-review")
        pg.goto(base_url + "/history")
        pg.wait_for_selector("#history-body:not([hidden])")
        assert not english_left(pg, lang)
        # a record changed by hand: refused, the reason in the page's language
        rec = _call(base_url, "GET", f"/api/games/{games['win']['id']}/record")
        rec["rolls"][2] = [6 if f != 6 else 5 for f in rec["rolls"][2]]
        path = tmp_path / "changed.json"
        path.write_text(json.dumps(rec))
        pg.click("#screen-history details summary")
        pg.set_input_files("#history-file", str(path))
        pg.wait_for_selector("#review-error:not([hidden])")
        assert pg.inner_text("#review-error").startswith(CAT[lang]["error.code.record_tampered"])
        assert not english_left(pg, lang)
        assert not [e for e in pg.errors if "status of 422" not in e], pg.errors  # (the refusal itself is logged)
    finally:
        ctx.close()


def test_a_long_review_shows_its_progress(browser, base_url, games):  # noqa: F811
    """While the server works the review out (202 with how far it got) the page shows a progress bar
    with the moves done, then the review. The progress stays up while the next ask is pending: the
    page's "working…" fallback (after 300 ms without an answer) never overwrites a progress it has."""
    ctx, pg = open_device(browser, games)
    try:
        asked, held, release = [], [], []

        def slow(route):  # the first ask: 202 at once; later asks wait until the test releases them
            asked.append(route.request.url)
            if len(asked) == 1:
                route.fulfill(status=202, content_type="application/json",
                              body=json.dumps({"status": "reviewing", "done": 5, "total": 57}))
            elif not release:
                held.append(route)
            else:
                route.continue_()

        pg.route("**/api/games/*/review*", slow)
        pg.clock.install()  # the page's timers run as usual; the 400 ms below are skipped, not waited out
        pg.goto(f"{base_url}/g/{games['win']['id']}/review")
        pg.wait_for_selector("#review-wait:not([hidden])")
        pg.wait_for_function("document.querySelector('#review-progress').max === 57")
        for _ in range(100):  # the page asks again after its first 202: wait for that second ask
            if len(asked) >= 2:
                break
            pg.wait_for_timeout(50)
        pg.clock.fast_forward(400)  # past the page's 300 ms "working…" timer, the second ask still pending
        assert pg.inner_text("#review-wait-text").startswith("Reviewing: move 5")
        assert pg.get_attribute("#review-wait", "role") == "status"
        assert asked[0].endswith("wait=1.5") and asked[1].endswith("wait=1")  # the first ask waits longest
        release.append(True)
        for route in held:
            route.continue_()
        pg.wait_for_selector("#review-body:not([hidden])", timeout=20000)
        assert pg.locator("#review-wait").is_hidden()
        assert not pg.errors, pg.errors
    finally:
        ctx.close()
