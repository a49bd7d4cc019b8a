"""``zilch serve`` moves what the server keeps for its lifetime out of the garbage collector's reach
once its startup chores are done (``create_app(freeze_when_warm=True)``): full collections then scan
only what games made since."""

from __future__ import annotations

import gc
import time
import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from zilch_web.app import create_app


def test_the_server_freezes_what_it_loaded_once_warm_and_still_plays(tmp_path):
    before = gc.get_freeze_count()
    app = create_app(str(tmp_path / "g.sqlite3"), cpu_specs=["heuristic"], freeze_when_warm=True)
    try:
        with TestClient(app) as client:
            deadline = time.monotonic() + 120
            while gc.get_freeze_count() <= before and time.monotonic() < deadline:
                time.sleep(0.05)
            assert gc.get_freeze_count() > before, "the startup chores did not freeze the loaded objects"
            r = client.post("/api/games", json={"ruleset": "zonk", "seed": 3,
                                                "players": [{"name": "Ann"}, {"cpu": "heuristic"}]})
            assert r.status_code == 201, r.text
            made = r.json()
            game = made["game"]
            for _ in range(3):  # a few moves, each answered and kept
                k = max(game["keeps"], key=lambda k: (k["points"], k["n"]))
                r = client.post(f"/api/games/{made['id']}/moves", json={
                    "version": game["version"], "seat": game["current"], "action": k["roll"], "token": made["token"]})
                assert r.status_code == 200, r.text
                game = r.json()["game"]
                if game["current"] != 0 or game["phase"] != "keep":
                    break
            assert client.get(f"/api/games/{made['id']}").json()["version"] == game["version"]
    finally:
        gc.unfreeze()  # the rest of this test process collects as before
