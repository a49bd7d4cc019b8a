"""The web game on the home screen (issue 38, item 6): responses compressed and labelled for caches
(zilch_web.assets), the web app manifest and its icons, and the dark theme that follows the system
(in Debian's chromium at 320 x 568, 360 x 740 and 740 x 360, every text at 4.5:1 or more)."""

from __future__ import annotations

import io
import json

import pytest
from fastapi.testclient import TestClient

from zilch_web.app import create_app
from zilch_web.assets import cache_control

from .test_web_browser import CHROMIUM, LANDSCAPE, PHONE, SMALL, browser, contrast, make_page, start  # noqa: F401


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    return TestClient(create_app(str(tmp_path_factory.mktemp("assets") / "games.sqlite3")))


@pytest.mark.parametrize("path", ["/", "/static/app.js", "/static/style.css", "/api/setup", "/rules/zonk"])
def test_responses_are_gzipped(client, path):
    r = client.get(path, headers={"Accept-Encoding": "gzip"})
    assert r.status_code == 200
    assert r.headers["content-encoding"] == "gzip"
    assert int(r.headers["content-length"]) < len(r.content)  # fewer bytes on the wire than the page
    plain = client.get(path, headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.content == r.content


def test_cache_control(client):
    assert client.get("/").headers["cache-control"] == "no-cache"
    assert client.get("/rules/zonk").headers["cache-control"] == "no-cache"
    assert client.get("/static/app.js").headers["cache-control"] == "public, max-age=3600"
    assert client.get("/static/app.js").headers.get("etag")  # checked again by its ETag
    assert client.get("/api/setup").headers["cache-control"] == "no-store"
    created = client.post("/api/games", json={"ruleset": "zonk", "players": [{"name": "You"}, {"name": "", "cpu": "greedy"}]})
    assert created.status_code == 201 and created.headers["cache-control"] == "no-store"
    gid = created.json()["id"]
    assert client.get(f"/api/games/{gid}").headers["cache-control"] == "no-store"
    assert client.get(f"/g/{gid}").headers["cache-control"] == "no-cache"
    assert client.get("/api/games/nope").headers["cache-control"] == "no-store"  # errors too
    assert cache_control("/api/games/x/events") == "no-store"  # (the stream sets its own no-cache)


def test_manifest_and_icons(client):
    page = client.get("/").text
    assert '<link rel="manifest" href="/static/manifest.webmanifest">' in page
    assert "<link rel='manifest'" in client.get("/rules/zonk").text
    r = client.get("/static/manifest.webmanifest")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/manifest+json")
    m = json.loads(r.text)
    assert m["name"] == "Zilch" and m["start_url"] == "/" and m["display"] == "standalone"
    from PIL import Image

    sizes = set()
    for icon in m["icons"]:
        got = client.get(icon["src"])
        assert got.status_code == 200 and got.headers["content-type"] == icon["type"], icon
        if icon["type"] == "image/png":
            w, h = Image.open(io.BytesIO(got.content)).size
            assert f"{w}x{h}" == icon["sizes"]
            sizes.add(w)
    assert {192, 512} <= sizes and any(i.get("purpose") == "maskable" for i in m["icons"])


# ------------------------------------------------------------------------------------ the dark theme

browser_only = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (/usr/bin/chromium)")


@browser_only
def test_dark_theme_follows_the_system(browser, base_url):  # noqa: F811
    """At 320 x 568, 360 x 740 and 740 x 360 in turn, in one page (set_viewport_size: the layout is
    CSS alone): the first screen at each size, then a game at each size."""
    sizes = (SMALL, PHONE, LANDSCAPE)
    ctx, page = make_page(browser, SMALL, color_scheme="dark")
    try:
        page.add_init_script("localStorage.setItem('zilchTips', JSON.stringify({seen: [], off: true}))")
        page.goto(base_url + "/")
        page.wait_for_selector("#screen-new:not([hidden])")
        for viewport in sizes:
            page.set_viewport_size(viewport)
            bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
            assert bg == "rgb(20, 23, 29)", (viewport, bg)
            for sel in (".howto li", "#mode-help", ".mode span", "#start", "#add-human", ".bar a", "#players .level-line"):
                assert contrast(page, sel) >= 4.5, (viewport, sel)
            if viewport == PHONE:
                from .test_web_browser import shot

                shot(page, "phone-dark.png")
        start(page, base_url, target=3000)
        for viewport in sizes:
            page.set_viewport_size(viewport)
            for sel in ("#turn-who", "#scores .who", "#scores .who small", "#roll-btn", "#bank-btn", "#hint-btn",
                        "#selection", "#notes li"):
                if page.locator(sel).count():
                    assert contrast(page, sel) >= 4.5, (viewport, sel, contrast(page, sel))
        assert not page.errors, page.errors
    finally:
        ctx.close()


@browser_only
def test_light_theme_by_default(browser, base_url):  # noqa: F811
    ctx, page = make_page(browser, PHONE, color_scheme="light")
    try:
        page.goto(base_url + "/")
        page.wait_for_selector("#screen-new:not([hidden])")
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(245, 243, 238)"
    finally:
        ctx.close()


# ------------------------------------------------------------------------------------ offline


def test_service_worker_url(client):
    r = client.get("/sw.js")
    assert r.status_code == 200 and "javascript" in r.headers["content-type"]
    assert r.headers["cache-control"] == "no-cache"
    assert "/api/" in r.text  # (the API is never answered from the cache)


@browser_only
def test_pages_and_rules_offline(browser, base_url):  # noqa: F811
    """Once the page has been seen, the first screen and the rules open offline (the service worker's
    copy); the page says that playing needs the server; the API is never answered from the cache."""
    ctx, page = make_page(browser, PHONE, service_workers="allow")
    try:
        page.add_init_script("localStorage.setItem('zilchTips', JSON.stringify({seen: [], off: true}))")
        page.goto(base_url + "/")
        page.wait_for_selector("#screen-new:not([hidden])")
        assert not page.locator("#offline").is_visible()
        page.wait_for_function("navigator.serviceWorker.ready.then(() => true)")
        page.reload()  # now under the service worker
        page.wait_for_function("!!navigator.serviceWorker.controller")
        page.wait_for_selector("#screen-new:not([hidden])")
        page.goto(base_url + "/rules/farkle")
        page.wait_for_selector("table.scoring")
        page.goto(base_url + "/")
        page.wait_for_selector("#screen-new:not([hidden])")
        ctx.set_offline(True)
        page.reload()
        page.wait_for_selector("#offline:not([hidden])")
        assert "playing needs the server" in page.inner_text("#offline")
        page.wait_for_selector("#loading:not([hidden])")
        assert "cannot be reached" in page.inner_text("#loading")  # /api/setup: not from the cache
        page.goto(base_url + "/rules/farkle")
        assert page.locator("table.scoring").count() == 1
        page.goto(base_url + "/rules/zonk")  # kept when the service worker was installed
        assert page.locator("table.scoring").count() == 1
        ctx.set_offline(False)
        page.goto(base_url + "/")
        page.wait_for_selector("#screen-new:not([hidden])")
        assert not page.locator("#offline").is_visible()
        page.errors[:] = [e for e in page.errors if "ERR_INTERNET_DISCONNECTED" not in e and "Failed to fetch" not in e]
        assert not page.errors, page.errors
    finally:
        ctx.close()


def test_every_script_of_the_page_is_kept_offline_and_loaded():
    """Each script of static/ (but the service worker) is loaded by the page and kept by the service
    worker for offline use; the scripts added beside app.js (the review, the history, ...) stay under
    600 lines, as the Python modules do (tests/test_layout.py)."""
    from pathlib import Path

    static = Path(__file__).resolve().parents[2] / "zilch_web" / "static"
    page, worker = (static / "index.html").read_text(), (static / "sw.js").read_text()
    for script in sorted(static.glob("*.js")):
        if script.name == "sw.js":
            continue
        assert f'src="/static/{script.name}"' in page, script.name
        assert f'"/static/{script.name}"' in worker, script.name
        if script.name != "app.js":
            assert len(script.read_text().splitlines()) <= 600, script.name
