"""The web tests make many games from one address (the test client's) within seconds: the per-client
limit on new games (``zilch_web.limits``, 20 a minute by default) is off here, as it is for
``bench/web_load.py``; tests/zilch_web/test_web_availability.py tests the limit itself."""

import os

os.environ.setdefault("ZILCH_WEB_MAX_NEW_GAMES", "0")
