"""The web tests make many games from one address (the test client's) within seconds: the per-client
limit on new games (``zilch_web.limits``, 20 a minute by default) is off here, as it is for
``bench/web_load.py``; tests/zilch_web/test_web_availability.py tests the limit itself. The browser tests
share one Chromium and one server per test process (:func:`chromium`, :func:`base_url`). The test
clients serve their requests on one event loop each (:func:`one_loop`)."""

import os
import socket
import threading
import time
from contextlib import contextmanager

import pytest

os.environ.setdefault("ZILCH_WEB_MAX_NEW_GAMES", "0")


@contextmanager
def one_loop(client):
    """Serve the requests of ``client`` (a Starlette ``TestClient``) on one event loop in one thread
    while the block lasts, as a server does (uvicorn runs one loop), instead of a loop and a thread
    made and stopped for each request (several ms each: most of a quick request's time). The app's
    lifespan is not run, as for a client used outside ``with``."""
    import anyio.from_thread

    try:
        with anyio.from_thread.start_blocking_portal(**client.async_backend) as client.portal:
            yield client
    finally:
        client.portal = None


@contextmanager
def web_server(tmp_path_factory):
    """The web game under uvicorn in a background thread on 127.0.0.1 and a free port, offering the
    computer levels, its games in a new SQLite file: its address while the block lasts."""
    import uvicorn

    from zilch_web.app import create_app

    app = create_app(str(tmp_path_factory.mktemp("web") / "games.sqlite3"))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.time() + 30
        while not server.started:
            assert time.time() < deadline, "uvicorn did not start"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture(scope="session")
def base_url(tmp_path_factory):
    """The browser tests' server (:func:`web_server`): one per test process, shared by their modules
    (the games they make are their own, each test's pages keep their own storage), so its start and
    its first answers (the levels it offers) are paid once. test_web_review_browser.py has its own."""
    with web_server(tmp_path_factory) as url:
        yield url


@pytest.fixture(scope="session")
def chromium():
    """One headless Debian Chromium per test process, shared by the browser tests' modules (each
    test opens its own context, so no page state is shared): launching it costs more than most tests."""
    from playwright.sync_api import sync_playwright

    from .test_web_browser import ARGS, CHROMIUM

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()
