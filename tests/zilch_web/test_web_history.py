"""Statistics and history per device through the API (issue 37; zilch_web.history): a finished game
joins the history of the device that played it (by its seat token), the figures (games, wins per
computer level, the streak, the best turn, the review score over time), the review of a game of the
history after the game itself expired, hot-seat and live games, the refusals, forgetting, expiry, the
most games kept, and a database made before the history existed."""

from __future__ import annotations

import sqlite3
import time

import pytest

from zilch_web import history as web_history
from zilch_web.history import stats
from zilch_web.limits import DAY, Limits

from .test_web_api import CPUS, TOKENS, TestClient, client, create_app, db, error, move, new, play_out  # noqa: F401

ANN = {"X-Zilch-Device": "a" * 32}
BOB = {"X-Zilch-Device": "b" * 32}


def finish(client, **kw):  # noqa: F811
    created = new(client, **kw)
    game, _ = play_out(client, created["id"], created["game"])
    return created["id"], game


def add(client, gid, headers=ANN, token=None):  # noqa: F811
    return client.post("/api/history", json={"game": gid, "token": token or TOKENS[gid]}, headers=headers)


def reviewed(client, headers=ANN, n=1):  # noqa: F811
    """The history once ``n`` games have their review's figures (the reviews run in threads)."""
    for _ in range(200):
        h = client.get("/api/history", headers=headers).json()
        if len(h["stats"]["accuracy"]) >= n:
            return h
        time.sleep(0.05)
    raise AssertionError(h)


def test_a_finished_game_joins_the_devices_history(client):  # noqa: F811
    gid, game = finish(client, seed=21)
    r = add(client, gid)
    assert r.status_code == 201 and r.json() == {"game": gid, "seats": [0], "added": True}
    again = add(client, gid)
    assert again.status_code == 200 and again.json()["added"] is False
    h = reviewed(client)
    s = h["stats"]
    won = game["winners"] == [0]
    assert s["played"] == 1 and s["won"] == int(won) and s["lost"] == int(not won) and s["hot_seat"] == 0
    assert s["levels"] == {"test-greedy": {"played": 1, "won": int(won)}} and s["people"] == {"played": 0, "won": 0}
    assert s["streak"] == int(won)
    best = max(t[2] for t in game["sheet"] if t[0] == 0 and t[1])
    assert s["best_turn"]["points"] == best and s["best_turn"]["game"] == gid
    review = client.get(f"/api/games/{gid}/review").json()
    assert s["accuracy"][0]["score"] == review["seats"][0]["score"] and s["accuracy"][0]["measure"] == "win"
    [g] = h["games"]
    assert g["game"] == gid and g["result"] == ("won" if won else "lost") and g["seats"] == [0]
    assert g["players"][1] == {"name": game["players"][1]["name"], "cpu": "test-greedy", "level": None}
    assert g["scores"] == [p["score"] for p in game["players"]] and g["reviewed"] is True
    assert g["mine"] == [{"seat": 0, "score": review["seats"][0]["score"]}]
    # another device has its own (empty) history
    assert client.get("/api/history", headers=BOB).json() == {"stats": stats([]), "games": []}


def test_the_history_and_its_reviews_outlive_the_game(client):  # noqa: F811
    gid, _ = finish(client, seed=22)
    add(client, gid)
    review = client.get(f"/api/games/{gid}/review").json()
    later = time.time() + 8 * DAY  # finished games are kept 7 days; the history a year
    assert gid in client.app.state.sweep(later)
    error(client.get(f"/api/games/{gid}/review"), 404, "unknown_game")
    assert client.get("/api/history", headers=ANN).json()["games"][0]["game"] == gid
    r = client.get(f"/api/history/{gid}/review", headers=ANN)
    assert r.status_code == 200 and r.json()["decisions"] == review["decisions"]
    error(client.get(f"/api/history/{gid}/review", headers=BOB), 404, "unknown_game")
    client.app.state.sweep(time.time() + 366 * DAY)
    assert client.get("/api/history", headers=ANN).json()["games"] == []


def test_refusals(client):  # noqa: F811
    gid, _ = finish(client, seed=23)
    for headers in ({}, {"X-Zilch-Device": "short"}, {"X-Zilch-Device": "x" * 65}, {"X-Zilch-Device": "a b" * 10}):
        error(add(client, gid, headers), 422, "bad_device")
        error(client.get("/api/history", headers=headers), 422, "bad_device")
    error(add(client, gid, token="not-a-seat-token"), 403, "not_a_player")
    playing = new(client, seed=24)
    error(add(client, playing["id"]), 409, "game_not_over")
    error(client.post("/api/history", json={"game": "nope", "token": "x"}, headers=ANN), 404, "unknown_game")
    error(client.post("/api/history", json={"game": gid, "extra": 1}, headers=ANN), 422, "malformed_request")
    error(client.get("/api/history/nope/review", headers=ANN), 404, "unknown_game")


def test_hot_seat_games_are_listed_but_not_counted_as_one_players(client):  # noqa: F811
    gid, game = finish(client, players=("Ann", "Bob"), seed=25, target=1000)
    assert add(client, gid).json()["seats"] == [0, 1]
    h = client.get("/api/history", headers=ANN).json()
    s = h["stats"]
    assert s["played"] == 1 and s["hot_seat"] == 1 and s["won"] + s["lost"] + s["draw"] == 0
    assert s["streak"] == 0 and s["best_turn"] is None and s["levels"] == {}
    assert h["games"][0]["result"] == "hot_seat" and len(h["games"][0]["mine"]) == 2


def test_a_live_game_counts_for_each_device_its_own_seat(client):  # noqa: F811
    created = new(client, players=("Ann", "Bob"), target=1000)  # live: no chosen seed
    gid = created["id"]
    inv = client.post(f"/api/games/{gid}/invite", json={"token": TOKENS[gid], "seat": 1})
    assert inv.status_code == 200, inv.text
    bob = client.post(f"/api/games/{gid}/claim", json={"seat": 1}).json()["token"]
    game = created["game"]
    tokens = {0: TOKENS[gid], 1: bob}
    while game["status"] != "over":
        from .test_web_api import greedy_move

        r = move(client, gid, game, greedy_move(game), token=tokens[game["current"]])
        assert r.status_code == 200, r.text
        game = r.json()["game"]
    assert add(client, gid, ANN).json()["seats"] == [0]
    assert add(client, gid, BOB, token=bob).json()["seats"] == [1]
    for headers, seat in ((ANN, 0), (BOB, 1)):
        s = client.get("/api/history", headers=headers).json()["stats"]
        assert s["people"] == {"played": 1, "won": int(game["winners"] == [seat])} and s["levels"] == {}


def test_the_figures_over_many_games():
    def row(game, winners, seats=(0,), cpus=("greedy",), best=(0, 0), figures=None):
        players = [{"name": "You", "cpu": None, "level": None}] + [
            {"name": f"C{i}", "cpu": c, "level": {"greedy": "Easy", "heuristic": "Medium"}.get(c)} for i, c in enumerate(cpus)]
        return {"game": game, "seats": list(seats), "ended": float(len(game)), "figures": figures,
                "summary": {"players": players, "winners": winners, "best_turn": list(best), "scores": [0] * len(players)}}

    rows = [row("a", [0], best=(500, 900)), row("bb", [0], best=(1200, 0)), row("ccc", [0, 1]),
            row("dddd", [0], cpus=("greedy", "heuristic")), row("eeeee", [0]), row("ffffff", [1]),
            row("g" * 7, [0], seats=(0, 1), best=(5000, 5000)),
            row("h" * 8, [0], cpus=("opt",), figures={"measure": "win", "seats": [{"accuracy": 0.01, "score": 50.0}, {}]})]
    s = stats(rows)
    assert (s["played"], s["won"], s["lost"], s["draw"], s["hot_seat"]) == (8, 5, 1, 1, 1)
    assert s["streak"] == 2  # a draw ends a run; the hot-seat game is not this device's player's
    assert s["levels"] == {"Easy": {"played": 6, "won": 4}, "Medium": {"played": 1, "won": 1},
                           "opt": {"played": 1, "won": 1}}
    assert s["best_turn"] == {"points": 1200, "game": "bb", "ended": 2.0}
    assert s["accuracy"] == [{"game": "h" * 8, "ended": 8.0, "measure": "win", "accuracy": 0.01, "score": 50.0}]


def test_forgetting_and_the_most_games_kept(client, monkeypatch):  # noqa: F811
    monkeypatch.setattr(web_history, "MAX_GAMES", 2)
    ids = [finish(client, seed=30 + i, target=500)[0] for i in range(3)]
    for gid in ids:
        add(client, gid)
        time.sleep(0.01)
    add(client, ids[0], BOB)
    assert [g["game"] for g in client.get("/api/history", headers=ANN).json()["games"]] == ids[:0:-1]
    assert client.delete("/api/history", headers=ANN).json() == {"deleted": 2}
    assert client.get("/api/history", headers=ANN).json()["games"] == []
    assert len(client.get("/api/history", headers=BOB).json()["games"]) == 1


def test_the_history_is_kept_a_year_by_default(monkeypatch):
    monkeypatch.delenv("ZILCH_WEB_KEEP_HISTORY", raising=False)
    assert Limits.from_env().keep_history == 365 * DAY
    monkeypatch.setenv("ZILCH_WEB_KEEP_HISTORY", "0")
    assert Limits.from_env().keep_history is None
    monkeypatch.setenv("ZILCH_WEB_KEEP_HISTORY", "soon")
    with pytest.raises(ValueError, match="ZILCH_WEB_KEEP_HISTORY"):
        Limits.from_env()


def test_a_database_made_before_the_history_gains_it(tmp_path):
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as db:  # the first release's schema: games alone, no seats, no history
        db.execute("CREATE TABLE games (id TEXT PRIMARY KEY, version INTEGER NOT NULL, status TEXT NOT NULL, "
                   "created REAL NOT NULL, updated REAL NOT NULL, saved TEXT NOT NULL)")
    client = TestClient(create_app(str(path), cpu_specs=CPUS))  # noqa: F811
    gid, _ = finish(client, seed=40, target=500)
    with sqlite3.connect(path) as db:  # a game stored before seat tokens: any device played it
        db.execute("UPDATE games SET meta = '{}' WHERE id = ?", (gid,))
    client = TestClient(create_app(str(path), cpu_specs=CPUS))
    r = client.post("/api/history", json={"game": gid}, headers=ANN)
    assert r.status_code == 201 and r.json()["seats"] == [0]
    assert client.get("/api/history", headers=ANN).json()["stats"]["played"] == 1
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT COUNT(*) FROM device_games").fetchone() == (1,)
        assert db.execute("SELECT device FROM device_games").fetchone()[0] != "a" * 32  # only its hash


def test_zilch_serve_takes_keep_history(monkeypatch, tmp_path):
    """``zilch serve --keep-history DAYS`` sets the limit (0: for ever); a bad value is refused by name."""
    import argparse

    from zilch_cli import serve

    seen = {}
    monkeypatch.setattr("uvicorn.run", lambda app, **kw: seen.setdefault("limits", app.state.limits))
    base = dict(host="127.0.0.1", port=8000, db=str(tmp_path / "g.sqlite3"), cpu=None, log_level="info",
                max_new_games=None, keep_finished=None, keep_abandoned=None, hint_seconds=None, hint_workers=None)
    assert serve.run(argparse.Namespace(**base, keep_history="30")) == 0
    assert seen["limits"].keep_history == 30 * DAY
    assert serve.run(argparse.Namespace(**base, keep_history="never")) == 2


def test_a_game_without_a_review_says_so_once(client):  # noqa: F811
    from zilch_web.requests_in import ApiError

    calls = []

    def refused(record, game_id, progress):
        calls.append(game_id)
        raise ApiError(409, "no_review", "no review under these rules: too big")

    client.app.state.reviews.build = refused
    gid, _ = finish(client, seed=50, target=500)
    add(client, gid)
    for _ in range(100):
        g = client.get("/api/history", headers=ANN).json()["games"][0]
        if g["review_error"]:
            break
        time.sleep(0.05)
    assert g["review_error"] == "no_review" and g["reviewed"] is False and g["mine"] == [{"seat": 0, "score": None}]
    client.get("/api/history", headers=ANN)
    assert calls == [gid]  # the refusal is kept: not asked again
