"""Live play between devices through the API: the event stream (Server-Sent
Events: the game at once, then after every move), seat tokens (the creating device holds every
human seat; invite frees one; another device claims it) and 403 for a seat another device holds."""

from __future__ import annotations

import json
import warnings
from unittest import mock

import pytest

from agents.base import register_agent
from zilch_env import GreedyMover

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from zilch_web.app import create_app

from .conftest import one_loop



register_agent("test-greedy", lambda rs, arg: GreedyMover(), "GreedyMover, for the web tests")


@pytest.fixture
def client(tmp_path):
    with one_loop(TestClient(create_app(str(tmp_path / "g.sqlite3"), cpu_specs=["test-greedy"]))) as c:
        yield c


def new(client, players, **kw):
    # the server's secret seed is 5, so these games have the same dice every run (a seed sent by the
    # client would make a practice game, which cannot invite)
    with mock.patch("zilch_web.table.new_seed", lambda: 5):
        r = client.post("/api/games", json={"ruleset": "zonk", "set": {"entry_threshold": 0},
                                            "players": players, **kw})
    assert r.status_code == 201, r.text
    return r.json()


def first_move(game):
    k = max(game["keeps"], key=lambda k: k["points"])
    return k["bank"]


def read_event(lines):
    """The next SSE event's data (comment lines skipped)."""
    event, data = None, None
    for line in lines:
        if line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data = json.loads(line[5:])
        elif line == "" and data is not None:
            assert event == "game"
            return data
    raise AssertionError("the stream ended")


def test_event_stream_sends_the_game_at_once_then_after_every_move(client):
    c = new(client, [{"name": "Ann"}, {"cpu": "test-greedy"}])
    gid, token, game = c["id"], c["token"], c["game"]
    with client.stream("GET", f"/api/games/{gid}/events") as s:
        assert s.status_code == 200 and s.headers["content-type"].startswith("text/event-stream")
        assert s.headers["cache-control"] == "no-cache"
        lines = s.iter_lines()
        first = read_event(lines)
        assert first["game"]["version"] == game["version"] and first["events"] == []
        for _ in range(3):
            r = client.post(f"/api/games/{gid}/moves", json={"version": game["version"], "seat": 0, "token": token,
                                                             "action": first_move(game)})
            assert r.status_code == 200, r.text
            game = r.json()["game"]
            pushed = read_event(lines)
            assert pushed["game"] == game, "the stream tells what the mover was told"
            assert pushed["events"] == r.json()["events"], "with the same events (the computer's steps too)"
            if game["status"] == "over":
                break


def test_event_stream_since_a_version_sends_the_events_missed(client):
    c = new(client, [{"name": "Ann"}, {"cpu": "test-greedy"}])
    gid, token, game = c["id"], c["token"], c["game"]
    r = client.post(f"/api/games/{gid}/moves", json={"version": game["version"], "seat": 0, "token": token,
                                                     "action": first_move(game)})
    with client.stream("GET", f"/api/games/{gid}/events?since={game['version']}") as s:
        got = read_event(s.iter_lines())
    assert got["events"] == r.json()["events"]
    assert client.get("/api/games/nope/events").status_code == 404
    assert client.get(f"/api/games/{gid}/events?since=-1").status_code == 422


def test_invite_claim_and_403_for_a_seat_held_elsewhere(client):
    c = new(client, [{"name": "Ann"}, {"name": "Bob"}])
    gid, host, game = c["id"], c["token"], c["game"]
    assert c["seats"] == [0, 1] and game["free_seats"] == []
    # Hot seat by default: the creating device plays both seats; nobody else can.
    r = client.post(f"/api/games/{gid}/moves", json={"version": game["version"], "seat": 0, "action": first_move(game)})
    assert r.status_code == 403 and r.json()["error"] == "seat_held" and "no seat token" in r.json()["detail"]
    r = client.post(f"/api/games/{gid}/claim", json={})
    assert r.status_code == 409 and r.json()["error"] == "no_free_seat"
    # The host invites: Bob's seat becomes free; the stream tells it.
    with client.stream("GET", f"/api/games/{gid}/events") as s:
        lines = s.iter_lines()
        assert read_event(lines)["game"]["free_seats"] == []
        inv = client.post(f"/api/games/{gid}/invite", json={"token": host})
        assert inv.status_code == 200 and inv.json()["seat"] == 1 and inv.json()["url"] == f"/g/{gid}"
        assert read_event(lines)["game"]["free_seats"] == [1]
        # A free seat waits for its player: even the host cannot move for it now.
        # Another device claims it.
        cl = client.post(f"/api/games/{gid}/claim", json={})
        assert cl.status_code == 200 and cl.json()["seat"] == 1
        guest = cl.json()["token"]
        assert guest != host and read_event(lines)["game"]["free_seats"] == []
    # The host cannot give up its last seat, nor a seat it does not hold.
    assert client.post(f"/api/games/{gid}/invite", json={"token": host}).json()["error"] == "last_seat"
    assert client.post(f"/api/games/{gid}/invite", json={"token": "nope"}).status_code == 403
    # Ann (host) banks; now Bob is to move: the host's token is refused, the guest's accepted.
    r = client.post(f"/api/games/{gid}/moves", json={"version": game["version"], "seat": 0, "token": host,
                                                     "action": first_move(game)})
    assert r.status_code == 200, r.text
    game = r.json()["game"]
    assert game["current"] == 1
    bob = {"version": game["version"], "seat": 1, "action": first_move(game)}
    r = client.post(f"/api/games/{gid}/moves", json={**bob, "token": host})
    assert r.status_code == 403 and "Bob's seat is played from another device" in r.json()["detail"]
    r = client.post(f"/api/games/{gid}/moves", json={**bob, "token": guest})
    assert r.status_code == 200, r.text
    # And the guest cannot play Ann.
    game = r.json()["game"]
    r = client.post(f"/api/games/{gid}/moves", json={"version": game["version"], "seat": 0, "token": guest,
                                                     "action": first_move(game)})
    assert r.status_code == 403


def test_a_seat_change_right_after_a_move_reaches_the_stream_at_once(client):
    """A stream woken by a move sends the move's answer as it is (without asking the database). A
    seat given away right after the move must still be told at once, not at the stream's next 15 s
    check, even when the stream wakes only after both: here the move's own wake-up is held back, so
    the stream is woken by the invitation while the move's answer is still the last one."""
    import time

    c = new(client, [{"name": "Ann"}, {"name": "Bob"}])
    gid, host, game = c["id"], c["token"], c["game"]
    hub = client.app.state.hub
    with client.stream("GET", f"/api/games/{gid}/events") as s:
        lines = s.iter_lines()
        assert read_event(lines)["game"]["version"] == game["version"]
        t0 = time.monotonic()
        with mock.patch.object(hub, "publish", lambda game_id: None):
            r = client.post(f"/api/games/{gid}/moves", json={"version": game["version"], "seat": 0,
                                                             "token": host, "action": first_move(game)})
        assert r.status_code == 200, r.text
        assert client.post(f"/api/games/{gid}/invite", json={"token": host}).status_code == 200
        told = read_event(lines)
        assert told["game"]["version"] == r.json()["game"]["version"] and told["game"]["free_seats"] == [1]
        assert told["events"] == r.json()["events"]
        assert time.monotonic() - t0 < 10


def test_a_free_seat_cannot_be_played_until_claimed(client):
    c = new(client, [{"name": "Ann"}, {"name": "Bob"}])
    gid, host, game = c["id"], c["token"], c["game"]
    client.post(f"/api/games/{gid}/invite", json={"token": host, "seat": 0})  # give Ann's seat away
    r = client.post(f"/api/games/{gid}/moves", json={"version": game["version"], "seat": 0, "token": host,
                                                     "action": first_move(game)})
    assert r.status_code == 403 and r.json()["error"] == "seat_free"
    assert client.post(f"/api/games/{gid}/claim", json={"seat": 1}).json()["error"] == "seat_taken"


def test_rematch_keeps_the_seats_and_is_told_to_the_stream(client):
    c = new(client, [{"name": "Ann"}, {"cpu": "test-greedy"}])
    gid, token, game = c["id"], c["token"], c["game"]
    assert client.post(f"/api/games/{gid}/rematch").status_code == 409  # not over yet
    for _ in range(400):
        if game["status"] == "over":
            break
        r = client.post(f"/api/games/{gid}/moves", json={"version": game["version"], "seat": 0, "token": token,
                                                         "action": first_move(game)})
        game = r.json()["game"]
    assert game["status"] == "over"
    with client.stream("GET", f"/api/games/{gid}/events") as s:
        lines = s.iter_lines()
        assert read_event(lines)["game"]["rematch"] is None
        again = client.post(f"/api/games/{gid}/rematch").json()
        assert read_event(lines)["game"]["rematch"] == again["id"]
        assert list(lines) == [], "the stream of a finished game ends once its rematch is told"
    assert client.post(f"/api/games/{gid}/rematch").json()["id"] == again["id"], "one rematch per game"
    g2 = again["game"]
    if g2["current"] == 0 and g2["status"] == "playing":
        r = client.post(f"/api/games/{again['id']}/moves", json={"version": g2["version"], "seat": 0,
                                                                 "token": token, "action": first_move(g2)})
        assert r.status_code == 200, "the same device plays the same seat in the rematch"


def test_a_game_saved_before_seat_tokens_is_still_playable(tmp_path):
    """A database written before seat tokens (no seats column) is upgraded on open; its games take
    moves without a token, as they did."""
    import sqlite3

    from zilch_web.store import SCHEMA
    from zilch_web.table import Seat, Table

    db = str(tmp_path / "old.sqlite3")
    t = Table("zonk", [Seat("Ann"), Seat("", "test-greedy")], seed=3)
    con = sqlite3.connect(db)
    con.executescript(SCHEMA)
    con.execute("INSERT INTO games (id, version, status, created, updated, saved) VALUES (?, ?, ?, 0, 0, ?)",
                ("oldgame", t.version, "playing", json.dumps(t.to_saved())))
    con.commit()
    con.close()
    client = TestClient(create_app(db, cpu_specs=["test-greedy"]))
    game = client.get("/api/games/oldgame").json()
    assert game["free_seats"] == [] and game["seat_tokens"] is False
    r = client.post("/api/games/oldgame/moves", json={"version": game["version"], "seat": 0,
                                                      "action": game["keeps"][0]["roll"]})
    assert r.status_code == 200, r.text
