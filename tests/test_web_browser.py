"""End to end in a real browser: Debian's chromium driven by playwright at phone size (360 x 740).

The app runs under uvicorn in a background thread on 127.0.0.1 and a free port. One game against a
computer player is played to the end by tapping dice and the Roll / Bank buttons (target 1000, so it
ends fast), and one hot-seat game between two people with the pass-the-phone screen in between.

Needs ``/usr/bin/chromium`` (``apt-get install chromium``); never ``playwright install``. With
``ZILCH_SCREENSHOTS=DIR`` set, the test also saves ``DIR/phone-game.png``, a phone screenshot in
the middle of the game against the computer (how ``docs/screenshots/phone-game.png`` is made).
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time

import pytest


def _chromium() -> str | None:
    for path in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if path and os.path.exists(path):
            return path
    return None


CHROMIUM = _chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium is not installed (/usr/bin/chromium): "
    "apt-get update && apt-get install -y chromium")

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
PHONE = {"width": 360, "height": 740}
#: The computer opponent: the project's default CPU player.
CPU = "heuristic"


@pytest.fixture(scope="module")
def base_url(tmp_path_factory):
    import uvicorn

    from zilch_web.app import create_app

    app = create_app(str(tmp_path_factory.mktemp("web") / "games.sqlite3"), cpu_specs=[CPU])
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not server.started:
        assert time.time() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    ctx.add_init_script("localStorage.setItem('zilchDelay', '15')")  # computer steps shown, but quickly
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    # Nothing may be fetched from another host.
    pg.route("**/*", lambda route: route.continue_() if route.request.url.startswith("http://127.0.0.1")
             or route.request.url.startswith("data:") else (errors.append("fetched " + route.request.url),
                                                               route.abort()))
    pg.errors = errors  # type: ignore[attr-defined]
    yield pg
    ctx.close()
    assert not errors, errors


SETTLED = """() => {
  const z = window.zilch;
  if (!z || !z.game || z.animating) return false;
  return ['#screen-play', '#screen-pass', '#screen-over'].some((s) => !document.querySelector(s).hidden);
}"""


def settle(page, after_version=None):
    cond = SETTLED if after_version is None else (
        "() => (" + SETTLED + ")() && (window.zilch.game.version > %d || window.zilch.game.status === 'over')"
        % after_version)
    page.wait_for_function(cond, timeout=20000)
    return page.evaluate("window.zilch.game")


def visible(page, sel):
    return page.locator(sel).is_visible()


def check_phone_layout(page):
    """Nothing wider than the phone; every control a large tap target."""
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    for sel in ("#dice .roll .die", "#roll-btn", "#bank-btn", "#hint-btn", ".bar a"):
        for box in page.locator(sel).all():
            if box.is_visible():
                b = box.bounding_box()
                assert b["width"] >= 44 and b["height"] >= 44, (sel, b)


def take_turn(page, g, bank_from=300, try_bad_tap=False):
    """One decision through the screen: tap the dice of the keep worth most, then Bank or Roll."""
    if g["phase"] != "keep":
        page.locator("#choices button").first.click()
        return
    if try_bad_tap:
        scoring = {f for k in g["keeps"] for f in k["dice"]}
        dud = next((f for f in g["roll"] if f not in scoring), None)
        if dud is not None:
            page.click(f'#dice .roll .die[data-face="{dud}"]')
            assert "do not score" in page.inner_text("#selection")
            assert page.is_disabled("#roll-btn") and page.is_disabled("#bank-btn")
            page.click(f'#dice .roll .die[data-face="{dud}"].kept')
    k = max(g["keeps"], key=lambda k: (k["points"], k["n"]))
    fixed = g["ruleset"]["keep"] == "all_scoring" and len(g["keeps"]) == 1
    if not fixed:
        while page.locator("#dice .roll .die.kept").count():  # clear a selection (the hint makes one)
            page.locator("#dice .roll .die.kept").first.click()
        for f in k["dice"]:
            page.click(f'#dice .roll .die[data-face="{f}"]:not(.kept)')
    sel = page.inner_text("#selection")
    assert f"for {k['points']}" in sel and f"turn {k['total']}" in sel, sel
    assert page.is_enabled("#roll-btn")
    assert page.is_enabled("#bank-btn") == (k["bank"] is not None)
    if k["bank"] is not None and k["total"] >= bank_from:
        assert page.inner_text("#bank-btn") == f"Bank {k['total']}"
        page.click("#bank-btn")
    else:
        page.click("#roll-btn")


def test_game_against_the_computer_to_the_end(page, base_url):
    page.goto(base_url + "/")
    page.wait_for_selector("#screen-new:not([hidden])")
    assert page.input_value("#players li:nth-child(1) input") == "You"
    page.fill("#target", "1000")
    page.click("#start")
    g = settle(page)
    assert page.url.startswith(base_url + "/g/") and g["id"] in page.url
    assert not visible(page, "#screen-pass"), "one person against the computer: no pass-the-phone screen"
    check_phone_layout(page)
    # The hint: the solver's best move, its dice marked.
    page.click("#hint-btn")
    page.wait_for_selector("#hint strong")
    assert page.inner_text("#hint strong").startswith("Best: keep")
    assert page.locator("#dice .die.hinted").count() >= 1
    page.click("#hint-btn")  # and again: the selection it made is the player's to change
    shot = os.environ.get("ZILCH_SCREENSHOTS")
    decisions, shot_taken = 0, False
    while g["status"] != "over":
        assert visible(page, "#screen-play")
        assert page.inner_text("#turn-who").startswith("You")
        cpu_played = any(e["seat"] == 1 for e in g["log"])
        if shot and not shot_taken and cpu_played and g["phase"] == "keep" and len(g["roll"]) >= 3:
            k = max(g["keeps"], key=lambda k: (k["points"], k["n"]))
            for f in k["dice"]:
                page.click(f'#dice .roll .die[data-face="{f}"]:not(.kept)')
            os.makedirs(shot, exist_ok=True)
            page.screenshot(path=os.path.join(shot, "phone-game.png"))
            for f in k["dice"]:
                page.click(f'#dice .roll .die[data-face="{f}"].kept')
            shot_taken = True
        take_turn(page, g, try_bad_tap=decisions < 3)
        g = settle(page, g["version"])
        decisions += 1
        assert decisions < 300
    assert shot_taken or not shot, "no position fit for the screenshot"
    # Final standings.
    assert visible(page, "#screen-over")
    title = page.inner_text("#over-title")
    assert title.endswith("wins!") or title.startswith("Draw")
    rows = page.locator("#standings li")
    assert rows.count() == 2 and rows.first.inner_text().startswith("1.")
    assert max(p["score"] for p in g["players"]) >= 1000
    log = page.inner_text("#over-log")
    assert "CPU rolls" in log and "You keep" in log
    # The rules page of this game, written from its ruleset.
    page.goto(f"{base_url}/g/{g['id']}/rules")
    assert "first to 1000 points" in page.inner_text("main")
    page.go_back()
    settle(page)
    assert visible(page, "#screen-over")


def test_hot_seat_game_with_pass_the_phone(page, base_url):
    page.goto(base_url + "/")
    page.wait_for_selector("#screen-new:not([hidden])")
    page.fill("#players li:nth-child(1) input", "Ann")
    page.select_option("#players li:nth-child(2) select", "")
    page.fill("#players li:nth-child(2) input", "Bob")
    page.fill("#target", "1000")
    page.click("#start")
    g = settle(page)
    passes, decisions, seen = 0, 0, set()
    while g["status"] != "over":
        if visible(page, "#screen-pass"):
            who = g["players"][g["current"]]["name"]
            assert page.inner_text("#pass-name") == who
            assert page.locator("#dice .die").count() == 0 or not visible(page, "#dice")
            page.click("#pass-go")
            passes += 1
            seen.add(who)
            g = settle(page)
            assert visible(page, "#screen-play")
            assert page.inner_text("#turn-who").startswith(who)
            check_phone_layout(page)
        take_turn(page, g, bank_from=400)
        g = settle(page, g["version"])
        decisions += 1
        assert decisions < 400
    # everyone who had a move was handed the phone first (a player whose only turn zilched on its
    # first roll had no move: the dice are random, so that can happen to Bob's last turn)
    movers = {g["players"][e["seat"]]["name"] for e in g["log"] if e["kind"] == "keep"}  # the log's tail
    assert movers <= seen and "Ann" in seen and passes >= len(seen)
    assert visible(page, "#screen-over")
    assert page.locator("#standings li").count() == 2
    # Play again: the same players, the winner begins.
    page.click("#rematch")
    page.wait_for_function("(old) => window.zilch.game && window.zilch.game.id !== old", arg=g["id"])
    g2 = settle(page)
    assert g2["id"] != g["id"]
    assert visible(page, "#screen-pass")
    assert page.inner_text("#pass-name") == g["players"][g["winners"][0]]["name"] or g2["turns"] > 0


def test_unknown_game_link_says_so(page, base_url):
    page.goto(base_url + "/g/not-a-game")
    page.wait_for_selector("#loading a")
    assert "no game" in page.inner_text("#loading")
    assert page.errors == ["Failed to load resource: the server responded with a status of 404 (Not Found)"]
    page.errors.clear()
