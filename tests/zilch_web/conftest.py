"""The web tests make many games from one address (the test client's) within seconds: the per-client
limit on new games (``zilch_web.limits``, 20 a minute by default) is off here, as it is for
``bench/web_load.py``; tests/zilch_web/test_web_availability.py tests the limit itself. The browser tests
share one Chromium per test process (:func:`chromium`)."""

import os

import pytest

os.environ.setdefault("ZILCH_WEB_MAX_NEW_GAMES", "0")


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
