"""End to end in a real browser: Debian's chromium driven by playwright at phone sizes (320 x 568 and
360 x 740 portrait, 740 x 360 landscape).

The app runs under uvicorn in a background thread on 127.0.0.1 and a free port, offering the
computer levels (the default opponent is the trained agent of the rules): one server and one
Chromium per test process, shared with the other browser tests' files (tests/zilch_web/conftest.py).
Games are short (target 1000 or less) and the computer's steps are shown at once (120 ms a step where the animation
itself is tested), so the whole file runs in well under a minute. Covered: a game against the computer to the end by tapping dice and Roll / Bank; a
hot-seat game with the pass-the-phone screen; the layout at the three sizes; the board kept current
during the computer's animated turn; the keyboard (focus, shortcuts); a reply cut off on the way;
the new-game form remembered across the rules page; the player limits; contrast; live play between
two browser contexts through an invite; tips; reduced motion.

Needs ``/usr/bin/chromium`` (``apt-get install chromium``); never ``playwright install``. With
``ZILCH_SCREENSHOTS=DIR`` set, the tests also save the screenshots of ``docs/screenshots/``
(``ZILCH_SCREENSHOTS=docs/screenshots pytest tests/zilch_web/test_web_browser.py``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import urllib.request

import pytest

from zilch_web.views import LOG_TAIL


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
SMALL = {"width": 320, "height": 568}
LANDSCAPE = {"width": 740, "height": 360}
SHOTS = os.environ.get("ZILCH_SCREENSHOTS")
NOT_LOCAL = re.compile(r"^(?!http://127\.0\.0\.1|data:)")  # a URL of another host than the test server
# Tests not about the dice's tumble (a CSS animation that playwright waits out before each tap on a
# die) ask for reduced motion, except when saving the screenshots of the docs.
CALM = {} if SHOTS else {"reduced_motion": "reduce"}
# Where reduced motion would change what is tested itself (test_web_feel.py: vibration follows it),
# the tumble is stopped by a style of the test's own instead (an init script: every page load).
NO_TUMBLE = "" if SHOTS else """document.addEventListener('DOMContentLoaded', () => {
  const s = document.createElement('style'); s.textContent = '.die.rolled { animation: none !important; }';
  document.head.append(s); });"""


@pytest.fixture(scope="module")
def browser(chromium):
    """The worker's one Chromium (tests/zilch_web/conftest.py); each test opens its own context."""
    return chromium


def make_page(browser, viewport=PHONE, delay=0, **ctx_args):
    # The page's service worker would answer the pages itself, out of reach of page.route: the tests
    # block it, except the one of the service worker (test_web_assets.py).
    ctx_args.setdefault("service_workers", "block")
    ctx = browser.new_context(viewport=viewport, device_scale_factor=2, is_mobile=True, has_touch=True, **ctx_args)
    ctx.add_init_script(f"localStorage.getItem('zilchDelay') || localStorage.setItem('zilchDelay', '{delay}')")
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    # Nothing may be fetched from another host: each such request is an error of the test. (Seen in
    # the page's request events, not by a route: a route holds every request of the page until this
    # process lets it go, and turns the browser's cache off.)
    pg.on("request", lambda r: errors.append("fetched " + r.url) if NOT_LOCAL.match(r.url) else None)
    pg.errors = errors  # type: ignore[attr-defined]
    return ctx, pg


@pytest.fixture
def page(browser):
    ctx, pg = make_page(browser, **CALM)
    yield pg
    ctx.close()
    assert not pg.errors, pg.errors


SETTLED = """() => {
  const z = window.zilch;
  if (!z || !z.game || z.animating || z.sending) return false;
  return ['#screen-play', '#screen-pass', '#screen-over'].some((s) => !document.querySelector(s).hidden);
}"""


#: settle in one round trip: the page checks SETTLED at each animation frame (as wait_for_function's
#: polling does) and answers the game once it holds, or fails after `ms`.
SETTLE = """async ([after, ms]) => {
  const settled = (""" + SETTLED + """), end = performance.now() + ms;
  for (;;) {
    const g = settled() && window.zilch.game;
    if (g && (after === null || g.version > after || g.status === 'over')) return g;
    if (performance.now() > end) throw new Error(`not settled within ${ms} ms (after version ${after})`);
    await new Promise((r) => requestAnimationFrame(r));
  }
}"""


def settle(page, after_version=None):
    """Wait until the page shows a game (no animation, no move on its way), later than
    `after_version` if given, and return the game as the page has it."""
    from playwright.sync_api import Error as PlaywrightError

    try:
        return page.evaluate(SETTLE, [after_version, 20000])
    except PlaywrightError as e:  # a navigation replaced the page meanwhile: wait on the new one
        if "context was destroyed" not in str(e) and "navigation" not in str(e):
            raise
    cond = SETTLED if after_version is None else (
        "() => (" + SETTLED + ")() && (window.zilch.game.version > %d || window.zilch.game.status === 'over')"
        % after_version)
    page.wait_for_function(cond, timeout=20000)
    return page.evaluate("window.zilch.game")


def visible(page, sel):
    return page.locator(sel).is_visible()


def shot(page, name):
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        page.wait_for_timeout(500)  # the dice have landed
        page.screenshot(path=os.path.join(SHOTS, name))


def start(page, base_url, target=1000, players=None, tips=False):
    """Open the new-game form, set the target (and players: list of (name, level label or None)), start."""
    if not tips:
        page.add_init_script("localStorage.setItem('zilchTips', JSON.stringify({seen: [], off: true}))")
    if not page.url.startswith(base_url + "/") or page.locator("#screen-new").is_hidden():
        page.goto(base_url + "/")
    page.wait_for_selector("#screen-new:not([hidden])")
    open_more_rules(page)
    page.fill("#target", str(target))
    page.dispatch_event("#target", "change")
    if players is not None:
        while page.locator("#players li").count() > 1:
            page.locator("#players li .remove").last.click()
        for i, (name, level) in enumerate(players):
            if i:
                page.click("#add-human" if level is None else "#add-cpu")
            li = f"#players li:nth-child({i + 1})"
            page.fill(f"{li} input", name)
            page.select_option(f"{li} select", label="Person" if level is None else f"CPU {level}")
    page.wait_for_function("window.zilch.cpus !== null")
    page.click("#start")
    return settle(page)


def open_more_rules(page):
    """The target and the variants are folded under "More rules" on the first screen."""
    if not page.evaluate("document.querySelector('#more-rules').open"):
        page.click("#more-rules summary")


VISIBLE_BOXES = """([sel, limit]) => [...document.querySelectorAll(sel)].slice(0, limit ?? undefined)
  .filter((e) => { const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'; })
  .map((e) => { const r = e.getBoundingClientRect(); return {x: r.x, y: r.y, width: r.width, height: r.height}; })"""


def visible_boxes(page, sel, limit=None):
    """The boxes (as Locator.bounding_box gives them) of the elements that `sel` matches, of its first
    `limit` matches at most, that are visible (as Locator.is_visible: a box that is not empty, and
    not visibility: hidden): one round trip to the page, not two for each element."""
    return page.evaluate(VISIBLE_BOXES, [sel, limit])


def check_layout(page, viewport):
    """Nothing wider than the phone; the header, the scores and the turn on screen at the top; every
    control a large tap target."""
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    assert page.evaluate("window.scrollY") == 0
    for sel in (".bar", "#scores", "#turn-total"):
        b = page.locator(sel).bounding_box()
        assert b["y"] >= 0 and b["y"] + b["height"] <= viewport["height"], (sel, b)
    for sel in ("#dice .roll .die", "#roll-btn", "#bank-btn", "#hint-btn", ".bar a"):
        for b in visible_boxes(page, sel):
            assert b["width"] >= 44 and b["height"] >= 44, (sel, b)
            assert b["x"] >= 0 and b["x"] + b["width"] <= viewport["width"], (sel, b)


def keep_is_fixed(g):
    """The screen chooses the keep itself: every scoring die kept, and only one way to keep them."""
    return g["ruleset"]["keep"] == "all_scoring" and len(g["keeps"]) == 1


def select_keep(page, g, k):
    """Tap the dice of keep `k`, after clearing whatever is selected (the hint selects its keep)."""
    if keep_is_fixed(g):
        return
    while page.locator("#dice .roll .die.kept").count():
        page.locator("#dice .roll .die.kept").first.click()
    for f in k["dice"]:
        page.click(f'#dice .roll .die[data-face="{f}"]:not(.kept)')


#: What the keep screen says, read in one round trip: the selection line (innerText, as
#: Page.inner_text), and Roll and Bank (enabled as Page.is_enabled has it: not :disabled, no
#: aria-disabled="true" above; and Bank's label).
KEEP_SCREEN = """() => {
  const on = (e) => !e.matches(':disabled') && !e.closest('[aria-disabled="true"]');
  const roll = document.querySelector('#roll-btn'), bank = document.querySelector('#bank-btn');
  return {selection: document.querySelector('#selection').innerText, roll: on(roll), bank: on(bank),
          bankLabel: bank.innerText};
}"""


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
            screen = page.evaluate(KEEP_SCREEN)
            assert f"The {dud} scores nothing in this roll" in screen["selection"], screen
            assert not screen["roll"] and not screen["bank"], screen
            page.click(f'#dice .roll .die[data-face="{dud}"].kept')
    k = max(g["keeps"], key=lambda k: (k["points"], k["n"]))
    select_keep(page, g, k)
    screen = page.evaluate(KEEP_SCREEN)
    sel = screen["selection"]
    assert f"for {k['points']}" in sel and f"turn {k['total']}" in sel, sel
    assert screen["roll"], screen
    assert screen["bank"] == (k["bank"] is not None), screen
    if k["bank"] is not None and k["total"] >= bank_from:
        assert screen["bankLabel"] == f"Bank {k['total']}", screen
        page.click("#bank-btn")
    else:
        page.click("#roll-btn")


# ------------------------------------------------------------------------------------ whole games


def open_new_game(page, base_url: str, body: dict) -> str:
    """Create a game with ``POST /api/games`` (sent from this process, so the page need not load one
    of the server's pages first) and open it by its link, its seats remembered as the page remembers
    them (localStorage ``zilchSeats``, written before the page's own scripts run); returns its id."""
    req = urllib.request.Request(base_url + "/api/games", data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        d = json.loads(r.read())
    seat = json.dumps({"token": d["token"], "seats": d["seats"]})
    page.add_init_script(f"""if (location.origin === {json.dumps(base_url)}) {{
      const all = JSON.parse(localStorage.getItem('zilchSeats') || '{{}}');
      all[{json.dumps(d["id"])}] = {seat};
      localStorage.setItem('zilchSeats', JSON.stringify(all));
    }}""")
    page.goto(f"{base_url}/g/{d['id']}")
    return d["id"]


def test_game_against_the_computer_to_the_end(page, base_url):
    page.goto(base_url + "/")
    page.wait_for_selector("#screen-new:not([hidden])")
    assert page.input_value("#players li:nth-child(1) input") == "You"
    # the default opponent is the trained agent, offered by level with its line of description
    assert page.locator("#players li:nth-child(2) select option:checked").inner_text() == "CPU Hard"
    assert page.inner_text("#players li:nth-child(2) .level-line").startswith("Hard: The trained agent")
    labels = page.locator("#players li:nth-child(2) select option").all_inner_texts()
    assert labels == ["Person", "CPU Easy", "CPU Medium", "CPU Hard", "CPU Perfect"]
    shot(page, "phone-new-game.png")
    # a game to 1000 has no agent trained on its rules: the form offers what can play it, Hard the
    # agent for any ruleset (Hard stays chosen), and the person picks Medium
    open_more_rules(page)
    page.fill("#target", "1000")
    page.dispatch_event("#target", "change")
    page.wait_for_function("document.querySelector('#players li:nth-child(2) .level-line').textContent"
                           ".startsWith('Hard: The agent trained on every ruleset')")
    labels = page.locator("#players li:nth-child(2) select option").all_inner_texts()
    assert labels == ["Person", "CPU Easy", "CPU Medium", "CPU Hard"]
    page.select_option("#players li:nth-child(2) select", label="CPU Medium")
    page.wait_for_function("document.querySelector('#players li:nth-child(2) .level-line').textContent.startsWith('Medium')")
    g = start(page, base_url)
    assert page.url.startswith(base_url + "/g/") and g["id"] in page.url
    assert g["players"][1]["cpu"] == "heuristic"
    assert page.inner_text("#scores li:nth-child(2)").startswith("CPU Medium")  # the name says the level
    assert not visible(page, "#screen-pass"), "one person against the computer: no pass-the-phone screen"
    check_layout(page, PHONE)
    # The hint: the solver's best move, its dice marked (no game table for these rules: no win chance).
    page.click("#hint-btn")
    page.wait_for_selector("#hint strong")
    assert page.inner_text("#hint strong").startswith("Best: keep")
    assert "chance of winning" not in page.inner_text("#hint")
    assert page.locator("#dice .die.hinted").count() >= 1
    decisions, shot_taken = 0, False
    while g["status"] != "over":
        assert visible(page, "#screen-play")
        assert page.inner_text("#turn-who").startswith("You")
        if not shot_taken and any(e["seat"] == 1 for e in g["log"]) and g["phase"] == "keep" and len(g["roll"]) >= 3:
            select_keep(page, g, max(g["keeps"], key=lambda k: (k["points"], k["n"])))
            shot(page, "phone-game.png")
            shot_taken = True
        take_turn(page, g, try_bad_tap=decisions < 4)
        g = settle(page, g["version"])
        decisions += 1
        assert decisions < 300
    # Final standings; the seed as the server has it, every digit (a string, not a JS number).
    assert visible(page, "#screen-over")
    title = page.inner_text("#over-title")
    assert title in ("You win!", "CPU Medium wins!") or title.startswith("Draw")
    assert page.locator("#standings li").count() == 2
    assert isinstance(g["seed"], str) and f"seed {g['seed']} " in page.inner_text("#over-info")
    assert page.locator("#over-sheet tbody tr").count() >= 1
    log = page.inner_text("#over-log")
    assert "CPU Medium rolls" in log and "You keep" in log  # named by its level, as the form offers it
    shot(page, "phone-game-over.png")
    # The rules page of this game, written from its ruleset, with the scoring table.
    page.goto(f"{base_url}/g/{g['id']}/rules")
    assert "First to 1,000" in page.inner_text("main")
    assert page.locator("table.scoring .die").count() >= 6
    shot(page, "phone-rules.png")
    page.go_back()
    settle(page)
    assert visible(page, "#screen-over")


def test_hot_seat_game_with_pass_the_phone(page, base_url):
    g = start(page, base_url, target=700, players=[("Ann", None), ("Bob", None)])
    passes, decisions, seen = 0, 0, set()
    while g["status"] != "over":
        if visible(page, "#screen-pass"):
            who = g["players"][g["current"]]["name"]
            assert page.inner_text("#pass-name") == who
            assert not visible(page, "#dice")
            # what happened since this player's last turn: the other's bank or zilch is there
            other = [e["text"] for e in page.evaluate("window.zilch.log")
                     if e["kind"] in ("bank", "zilch") and g["players"][e["seat"]]["name"] != who]
            if other and passes >= 2:
                assert other[-1] in page.inner_text("#pass-events")
            if passes == 2:
                shot(page, "phone-pass.png")
            page.click("#pass-go")
            passes += 1
            seen.add(who)
            g = settle(page)
            assert visible(page, "#screen-play")
            assert page.inner_text("#turn-who").startswith(who)
        take_turn(page, g, bank_from=300)
        g = settle(page, g["version"])
        decisions += 1
        assert decisions < 400
    assert "Ann" in seen and passes >= len(seen)
    assert page.locator("#standings li").count() == 2
    page.click("#rematch")
    page.wait_for_function("(old) => window.zilch.game && window.zilch.game.id !== old", arg=g["id"])
    g2 = settle(page)
    assert g2["id"] != g["id"] and visible(page, "#screen-pass")


# ------------------------------------------------------------------------------------ layout


def test_layout_opens_at_the_top(browser, base_url):
    """At 320 x 568, then at 740 x 360 (in one page, its size set before each load: the layout is
    CSS alone): the form is scrolled to its end; the game then opens at its top with the header,
    the scores and the turn total on screen, nothing wider than the phone."""
    ctx, page = make_page(browser, SMALL, **CALM)
    try:
        page.add_init_script("localStorage.setItem('zilchTips', JSON.stringify({seen: [], off: true}))")
        for viewport, name in ((SMALL, "small-game.png"), (LANDSCAPE, "landscape-game.png")):
            page.set_viewport_size(viewport)
            page.goto(base_url + "/")
            page.wait_for_selector("#screen-new:not([hidden])")
            page.wait_for_function("window.zilch.cpus !== null")
            page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")  # the form scrolled down
            assert page.evaluate("window.scrollY") > 0, viewport
            page.click("#start")
            settle(page)
            check_layout(page, viewport)
            shot(page, name)
            page.goto(base_url + "/rules/farkle")
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"], viewport
        assert not page.errors, page.errors
    finally:
        ctx.close()


def contrast(page, selector, background_selector=None):
    """WCAG contrast ratio of an element's text colour against its (or a given element's) background."""
    return page.evaluate("""([sel, bgSel]) => {
      const lum = (c) => { const v = c.match(/[0-9.]+/g).slice(0, 3).map(Number).map((x) => x / 255)
        .map((x) => x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4);
        return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
      const e = document.querySelector(sel);
      let b = bgSel ? document.querySelector(bgSel) : e;
      let bg = getComputedStyle(b).backgroundColor;
      while (bg === 'rgba(0, 0, 0, 0)' && b.parentElement) { b = b.parentElement; bg = getComputedStyle(b).backgroundColor; }
      const l1 = lum(getComputedStyle(e).color), l2 = lum(bg);
      return (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    }""", [selector, background_selector])


def test_contrast_of_disabled_buttons_and_notes(page, base_url):
    start(page, base_url)
    assert page.is_disabled("#roll-btn")
    assert contrast(page, "#roll-btn") >= 4.5
    page.evaluate("""() => { const li = document.createElement('li'); li.className = 'hot'; li.id = 'probe';
                     li.textContent = 'This is your last turn'; document.querySelector('#notes').append(li); }""")
    assert contrast(page, "#probe") >= 4.5
    assert contrast(page, "#notes li:first-child") >= 4.5


# ------------------------------------------------------------------------------------ the computer's turn


def test_the_board_is_current_during_the_computers_turn(browser, base_url):
    """While the computer's turn is animated, the scores, the ▶ marker and the notes follow the
    events shown, and Hint is disabled."""
    ctx, page = make_page(browser, delay=120, **CALM)
    try:
        g = start(page, base_url, target=800)
        page.evaluate("""() => { window.samples = []; const z = window.zilch;
          window.sampler = setInterval(() => {
            if (!z.animating) return;
            const shown = {};
            for (const e of z.log) if (['bank', 'zilch', 'penalty'].includes(e.kind)) shown[e.seat] = e.score;
            const rows = [...document.querySelectorAll('#scores li')];
            window.samples.push({
              pts: rows.map((li) => Number(li.querySelector('.pts').textContent)), shown,
              marker: rows.findIndex((li) => li.classList.contains('current')),
              last: [...z.log].reverse().find((e) => e.seat !== null && e.kind !== 'challenge_result')?.seat,
              hint: document.querySelector('#hint-btn').disabled,
              notes: document.querySelector('#notes').children.length });
          }, 20); }""")
        for _ in range(40):  # bank as soon as allowed: the computer plays often
            take_turn(page, g, bank_from=0)
            g = settle(page, g["version"])
            samples = page.evaluate("window.samples")
            if g["status"] == "over" or sum(1 for x in samples if "1" in x["shown"]) >= 5:
                break
        assert sum(1 for x in samples if "1" in x["shown"]) >= 5, "the computer's turns were animated"
        for s in samples:
            for seat, score in s["shown"].items():
                assert s["pts"][int(seat)] == score, s
            assert s["marker"] == s["last"], s
            assert s["hint"] is True and s["notes"] == 0, s
        assert not page.errors, page.errors
    finally:
        ctx.close()


# ------------------------------------------------------------------------------------ keyboard and errors


def test_keyboard_shortcuts_and_focus(page, base_url):
    g = start(page, base_url, target=10000)  # zonk itself: the trained agent, the game table
    assert g["players"][1]["cpu"] == "ppo:checkpoints/zonk"
    assert page.inner_text("#scores li:nth-child(2)").startswith("CPU Hard")
    k = max(g["keeps"], key=lambda k: (k["points"], k["n"]))
    for f in k["dice"]:  # 1-6 select the dice by position
        pos = next(i for i, x in enumerate(g["roll"]) if x == f and
                   page.locator(f'#dice .roll .die[data-pos="{i}"].kept').count() == 0)
        page.keyboard.press(str(pos + 1))
    assert f"for {k['points']}" in page.inner_text("#selection")
    # the focused die shows a focus ring
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert page.evaluate("document.activeElement.classList.contains('die')") and outline != "none"
    page.keyboard.press("h")
    page.wait_for_selector("#hint strong")
    assert "Your chance of winning if everyone plays perfectly from here" in page.inner_text("#hint")
    while page.locator("#dice .roll .die.kept").count():
        page.locator("#dice .roll .die.kept").first.click()
    for f in k["dice"]:
        page.click(f'#dice .roll .die[data-face="{f}"]:not(.kept)')
    page.keyboard.press("r")
    g = settle(page, g["version"])
    # after the move the keyboard is still in the game, not on the page
    assert page.evaluate("document.activeElement !== document.body"), "focus returned to the page"
    assert page.evaluate("!!document.activeElement.closest('#screen-play, #screen-over')")


def test_a_reply_cut_off_on_the_way_does_not_freeze_the_page(page, base_url):
    g = start(page, base_url, target=5000)

    def truncate(route):
        response = route.fetch()
        body = response.body()
        route.fulfill(status=200, headers={"content-type": "application/json"}, body=body[: len(body) // 2])

    page.route("**/moves", truncate)
    take_turn(page, g, bank_from=10**9)
    page.wait_for_selector("#play-error:not([hidden])")
    assert "could not be read" in page.inner_text("#play-error")
    page.unroute("**/moves", truncate)
    g2 = settle(page)
    assert g2["version"] > g["version"], "the game as the server has it was fetched again"
    take_turn(page, g2, bank_from=10**9)  # and the page plays on
    g3 = settle(page, g2["version"])
    assert g3["version"] > g2["version"]


# ------------------------------------------------------------------------------------ the new-game form


def test_the_form_is_remembered_and_limits_are_told(page, base_url):
    page.add_init_script("localStorage.setItem('zilchTips', JSON.stringify({seen: [], off: true}))")
    page.goto(base_url + "/")
    page.wait_for_selector("#screen-new:not([hidden])")
    page.select_option("#preset", "farkle")
    open_more_rules(page)
    page.check('#toggles input[data-key="variants.piggyback"]')
    page.select_option('#toggles select[data-key="variants.zilch_penalty"]', label="halve the score")
    page.click("#add-human")
    page.fill("#players li:nth-child(3) input", "Cy")
    page.select_option("#players li:nth-child(2) select", label="CPU Easy")
    page.wait_for_function("window.zilch.cpus !== null")
    # the link follows the form once the server has offered the levels of these rules (a request
    # that a loaded machine may answer after the levels of the preset alone were shown)
    page.wait_for_function("document.querySelector('#rules-link').getAttribute('href').includes('/rules/farkle?')")
    page.click("#rules-link")
    page.wait_for_selector("table.scoring")
    assert "halve the score" in page.inner_text("main")  # the rules page of the rules on the form
    page.go_back()
    page.wait_for_selector("#screen-new:not([hidden])")
    assert page.input_value("#preset") == "farkle"
    assert page.is_checked('#toggles input[data-key="variants.piggyback"]')
    assert page.locator("#players li").count() == 3 and page.input_value("#players li:nth-child(3) input") == "Cy"
    assert page.locator("#players li:nth-child(2) select option:checked").inner_text() == "CPU Easy"
    # another preset keeps the variants ticked by hand
    page.select_option("#preset", "zonk")
    assert page.is_checked('#toggles input[data-key="variants.piggyback"]')
    # limits: + stops at 6 and says so; x on the last player is disabled and says why
    while page.locator("#players li").count() < 6:
        page.click("#add-human")
    assert page.is_disabled("#add-human") and page.is_disabled("#add-cpu")
    assert "at most 6 players" in page.inner_text("#players-note")
    while page.locator("#players li").count() > 1:
        page.locator("#players li .remove").last.click()
    assert page.is_disabled("#players li .remove") and "at least one player" in page.inner_text("#players-note")
    page.fill("#players li input", "Di")
    page.click("#add-cpu")
    page.click("#start")
    g = settle(page)
    assert g["ruleset"]["variants"]["zilch_penalty"]["mode"] == "halve" and g["ruleset"]["variants"]["piggyback"]


def test_tips_once_then_remembered_and_reload_keeps_the_whole_log(browser, base_url):
    ctx, page = make_page(browser, reduced_motion="reduce")
    try:
        page.goto(base_url + "/")
        page.wait_for_selector("#screen-new:not([hidden])")
        page.wait_for_function("window.zilch.cpus !== null")
        page.click("#start")
        g = settle(page)
        page.wait_for_selector("#tip:not([hidden])")
        assert "Tap the dice that score" in page.inner_text("#tip")
        page.click("#tip-ok")
        assert page.evaluate("JSON.parse(localStorage.getItem('zilchTips')).seen").count("keep@you") == 1
        # the next tip: the entry threshold (not on the board yet), or the zilch if the first roll was
        # one (the dice are the server's secret); then no more tips at all
        nxt = page.inner_text("#tip")
        assert "500 points in one turn" in nxt or nxt.startswith("Zilch: a roll with nothing"), nxt
        page.click("#tip-off")
        assert not visible(page, "#tip") and page.evaluate("JSON.parse(localStorage.getItem('zilchTips')).off")
        # the computer's speed is the player's to choose, and remembered
        page.select_option("#speed", label="Slow")
        assert page.evaluate("localStorage.getItem('zilchDelay')") == "1400"
        page.select_option("#speed", label="Instant")
        # no dice animation under prefers-reduced-motion
        assert page.evaluate("getComputedStyle(document.querySelector('#dice .die')).animationName") == "none"
        # play on until the game's log is longer than the tail a game view carries (LOG_TAIL events:
        # what a reload would show without the whole log), then reload: the log and the score sheet
        # are whole
        for _ in range(25):
            if g["log_total"] > 2 * LOG_TAIL or g["status"] == "over":
                break
            take_turn(page, g, bank_from=0)
            g = settle(page, g["version"])
        assert g["log_total"] > 2 * LOG_TAIL or g["status"] == "over", g["log_total"]
        page.reload()
        g = settle(page)
        assert page.evaluate("window.zilch.log.length") == g["log_total"]
        assert not visible(page, "#tip"), "no more tips"
        assert page.input_value("#speed") == "0"
        assert not page.errors, page.errors
    finally:
        ctx.close()


# ------------------------------------------------------------------------------------ live play


def test_live_play_between_two_devices(browser, base_url):
    """Ann's phone creates a hot-seat game with Bob and invites him; Bob's phone opens the link,
    claims the seat; each phone then sees the other's moves without a reload."""
    ctx_a, ann = make_page(browser, **CALM)
    ctx_b, bob = make_page(browser, **CALM)
    try:
        ctx_a.grant_permissions(["clipboard-read", "clipboard-write"])
        g = start(ann, base_url, target=600, players=[("Ann", None), ("Bob", None)])
        if visible(ann, "#screen-pass"):
            ann.click("#pass-go")
            g = settle(ann)
        assert visible(ann, "#invite-btn")
        ann.evaluate("navigator.share = undefined")
        ann.click("#invite-btn")
        ann.wait_for_selector("#invite-info:not([hidden])")
        assert "Bob's seat is free" in ann.inner_text("#invite-info")
        bob.add_init_script("localStorage.setItem('zilchTips', JSON.stringify({seen: [], off: true}))")
        bob.goto(f"{base_url}/g/{g['id']}")
        bob.wait_for_selector("#screen-join:not([hidden])")
        bob.click("text=Play as Bob")
        settle(bob)
        ann.wait_for_function("window.zilch.game.free_seats.length === 0")
        assert not visible(ann, "#invite-btn")
        moves = 0
        while g["status"] != "over" and moves < 60:
            me, other = (ann, bob) if g["current"] == 0 else (bob, ann)
            assert not visible(other, "#screen-pass"), "no pass-the-phone screen between devices"
            if visible(me, "#screen-pass"):  # pragma: no cover - each phone holds one seat
                me.click("#pass-go")
            g = settle(me)
            assert "another phone" in other.inner_text("#turn-who") or other.evaluate("window.zilch.animating") \
                or g["current"] != (0 if other is ann else 1)
            take_turn(me, g, bank_from=0)
            g = settle(me, g["version"])
            # the other phone follows by the event stream
            other.wait_for_function("(v) => window.zilch.game.version >= v && !window.zilch.animating",
                                    arg=g["version"], timeout=10000)
            moves += 1
            if moves == 3:
                shot(bob, "phone-live-guest.png")
        assert ann.evaluate("window.zilch.game.version") == bob.evaluate("window.zilch.game.version")
        assert not ann.errors and not bob.errors, (ann.errors, bob.errors)
    finally:
        ctx_a.close()
        ctx_b.close()


def test_unknown_game_link_says_so(page, base_url):
    page.goto(base_url + "/g/not-a-game")
    page.wait_for_selector("#loading a")
    assert "no game" in page.inner_text("#loading")
    assert page.errors == ["Failed to load resource: the server responded with a status of 404 (Not Found)"]
    page.errors.clear()
    assert json.loads(page.evaluate("JSON.stringify(1)")) == 1


def test_the_scoring_table_fits_the_phone(browser, base_url):
    """At 320 x 568 and 360 x 740, checked in one page (the rules page's layout is CSS alone)."""
    ctx, page = make_page(browser, SMALL)
    try:
        for preset in ("zonk", "farkle", "zilch"):
            page.goto(f"{base_url}/rules/{preset}")
            wrap = page.locator(".score-wrap")
            for viewport in (SMALL, PHONE):
                page.set_viewport_size(viewport)
                assert page.evaluate("(e) => e.scrollWidth <= e.clientWidth", wrap.element_handle()), (preset, viewport)
    finally:
        ctx.close()


def test_turn_start_choices_piggyback_and_challenge(page, base_url):
    """Variants with a decision before rolling: the choices are buttons for the player to move only."""
    page.add_init_script("localStorage.setItem('zilchTips', JSON.stringify({seen: [], off: true}))")
    page.goto(base_url + "/")
    page.wait_for_selector("#screen-new:not([hidden])")
    # rules without an entry threshold (cardgames): a bank, which the next player may piggyback on,
    # and both players on the board, which a challenge needs, from the first turns
    page.select_option("#preset", "cardgames")
    open_more_rules(page)
    page.check('#toggles input[data-key="variants.piggyback"]')
    page.check('#toggles input[data-key="variants.challenge"]')
    g = start(page, base_url, target=1500, players=[("Ann", None), ("Bob", None)])
    assert g["ruleset"]["variants"]["piggyback"] and g["ruleset"]["variants"]["challenge"]
    assert g["ruleset"]["name"] == "cardgames" and g["ruleset"]["entry_threshold"] == 0
    # the same rules with seed 1 (a challenge offered on the first turn, a piggyback on the third
    # decision), so the decisions are on screen in every run
    open_new_game(page, base_url, {"ruleset": "cardgames", "seed": 1, "players": [{"name": "Ann"}, {"name": "Bob"}],
                                   "set": {"variants.piggyback": True, "variants.challenge": True, "target": 1500}})
    g = settle(page)
    seen = set()
    for _ in range(12):  # until both decisions have been on screen
        if {"piggyback", "challenge"} <= seen:
            break
        if visible(page, "#screen-pass"):
            page.click("#pass-go")
            g = settle(page)
        if g["phase"] != "keep":
            seen.add(g["phase"])
            labels = page.locator("#choices button").all_inner_texts()
            assert labels == [c["label"][0].upper() + c["label"][1:] for c in g["choices"]]
            assert not visible(page, "#actions")
        take_turn(page, g, bank_from=0)
        g = settle(page, g["version"])
    assert seen == {"piggyback", "challenge"}, seen


# ------------------------------------------------------------------------------- the six-dice bonus


def test_six_dice_zilch_bonus_choice(page, base_url):
    """Six dice and no score under the six-dice zilch bonus (docs/rules.md): the screen says so, no
    dice can be selected, and the two buttons bank the bonus or roll six fresh dice. The game is
    made with seed 530 (first roll 2 3 3 4 4 6, then 1 1 2 2 3 3) through the API, as the form's
    Start would, and opened by its link."""
    page.add_init_script("localStorage.setItem('zilchTips', JSON.stringify({seen: [], off: true}))")
    open_new_game(page, base_url, {"ruleset": "zonk", "seed": 530, "players": [{"name": "You"}],
                                   "set": {"variants.six_dice_zilch_bonus": 500, "entry_threshold": 0}})
    g = settle(page)
    assert g["roll"] == [2, 3, 3, 4, 4, 6] and g["turn_total"] == 500
    sel = page.inner_text("#selection")
    assert sel == "No score: six-dice bonus +500 (turn 500). Bank 500 or roll 6 fresh dice", sel
    assert page.inner_text("#turn-total") == "Turn: 500"
    assert page.is_enabled("#roll-btn") and page.inner_text("#roll-btn") == "Roll 6 fresh dice"
    assert page.is_enabled("#bank-btn") and page.inner_text("#bank-btn") == "Bank 500"
    dice = page.locator("#dice .roll .die")
    assert dice.count() == 6 and all(dice.nth(i).is_disabled() for i in range(6))  # no die to select
    check_layout(page, PHONE)
    page.click("#roll-btn")
    g = settle(page, g["version"])
    assert g["roll"] == [1, 1, 2, 2, 3, 3] and g["turn_total"] == 500
    assert "six fresh dice" in " ".join(e["text"] for e in g["log"])
    assert page.inner_text("#selection") == "Tap the dice you keep"
    for f in (1, 1, 2, 2, 3, 3):  # three pairs, on top of the bonus
        page.click(f'#dice .roll .die[data-face="{f}"]:not(.kept)')
    assert "for 1500" in page.inner_text("#selection") and "turn 2000" in page.inner_text("#selection")
    page.click("#bank-btn")
    g = settle(page, g["version"])
    assert g["players"][0]["score"] == 2000
