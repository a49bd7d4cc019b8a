"""The web game's API through FastAPI's test client: games played to the end, every kind of bad
request answered with a 4xx and a clear message (never a 500), games kept apart, and a server
restart in the middle of a game.

The computer opponent is the engine's GreedyMover, registered here as ``test-greedy`` so these
tests do not depend on which agents the project ships.
"""

from __future__ import annotations

import json
import random
import re
import warnings

import pytest

from agents.base import register_agent
from zilch_env import PRESETS, GreedyMover, load_ruleset, replay
from zilch_env.engine.text import rules_summary
from zilch_web.table import Seat, Table

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from zilch_web.app import create_app

from .conftest import one_loop


register_agent("test-greedy", lambda rs, arg: GreedyMover(), "GreedyMover, for the web tests")
CPUS = ["test-greedy"]


@pytest.fixture
def db(tmp_path):
    return str(tmp_path / "games.sqlite3")


@pytest.fixture
def client(db):
    with one_loop(TestClient(create_app(db, cpu_specs=CPUS))) as c:
        yield c


def new(client, players=("Ann", None), ruleset="zonk", seed=None, **overrides):
    body = {"ruleset": ruleset, "set": overrides,
            "players": [{"name": p} if p else {"cpu": "test-greedy"} for p in players]}
    if seed is not None:
        body["seed"] = seed
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    TOKENS[r.json()["id"]] = r.json()["token"]
    return r.json()


#: The seat token of each game the tests made (the creating device holds every human seat).
TOKENS: dict[str, str] = {}


def post_move(client, gid, body):
    """A move from the device that created the game (its token added to a dict body)."""
    if isinstance(body, dict) and "token" not in body and gid in TOKENS:
        body = {**body, "token": TOKENS[gid]}
    return client.post(f"/api/games/{gid}/moves", json=body)


def greedy_move(game):
    """A simple human: the keep worth most, bank from 300 when allowed; turn-start: the first choice."""
    if game["phase"] != "keep":
        return game["choices"][0]["action"]
    k = max(game["keeps"], key=lambda k: (k["points"], k["n"]))
    return k["bank"] if k["bank"] is not None and k["total"] >= 300 else k["roll"]


def move(client, gid, game, action=None, **body):
    payload = {"version": game["version"], "seat": game["current"], **body}
    if action is not None:
        payload["action"] = action
    return post_move(client, gid, payload)


def play_out(client, gid, game, limit=2000):
    moves = 0
    while game["status"] != "over":
        r = move(client, gid, game, greedy_move(game))
        assert r.status_code == 200, r.text
        game = r.json()["game"]
        moves += 1
        assert moves < limit
    return game, moves


def error(r, status, code):
    assert r.status_code == status, r.text
    body = r.json()
    assert body["error"] == code, body
    assert isinstance(body["detail"], str) and len(body["detail"]) > 10
    return body["detail"]


# ------------------------------------------------------------------------------------- playing


def test_a_game_against_the_computer_to_the_end(client):
    created = new(client, target=1000)
    gid, game = created["id"], created["game"]
    assert game["status"] == "playing" and game["human_to_move"] and game["current"] == 0
    assert game["seed"] is None, "the seed decides the dice: it must stay secret during the game"
    assert game["keeps"] and all(k["roll"] == k["mask"] * 2 for k in game["keeps"])
    game, moves = play_out(client, gid, game)
    assert game["status"] == "over" and game["winners"] and game["seed"].isdigit()
    assert game["standings"][0]["score"] >= 1000 and game["standings"][0]["winner"]
    assert game["log"][-1]["kind"] == "game_over"
    # Every move accounted for: the record replays to the same end and holds the moves.
    rec = client.get(f"/api/games/{gid}/record").json()
    assert replay(rec).scores == [p["score"] for p in game["players"]]
    assert len(rec["actions"]) == game["version"] >= moves


def test_computer_moves_are_shown_as_events(client):
    created = new(client, target=2000, seed=11)
    gid, game = created["id"], created["game"]
    seen_cpu = False
    while game["status"] != "over" and not seen_cpu:
        r = move(client, gid, game, greedy_move(game))
        body = r.json()
        seen_cpu = any(e["seat"] == 1 for e in body["events"])
        for e in body["events"]:
            assert e["v"] == body["game"]["version"] or e["seat"] == 1 or e["seat"] == 0
            assert e["text"]
        game = body["game"]
    assert seen_cpu
    kinds = {e["kind"] for e in body["events"] if e["seat"] == 1}
    assert kinds & {"keep", "zilch"}, kinds


def test_keep_by_faces_and_bank(client):
    created = new(client, seed=3, entry_threshold=0)
    gid, game = created["id"], created["game"]
    k = game["keeps"][0]
    r = move(client, gid, game, keep=k["dice"], bank=True)
    assert r.status_code == 200, r.text
    events = r.json()["events"]
    assert events[0]["kind"] == "keep" and events[0]["dice"] == k["dice"] and events[0]["then"] == "bank"
    assert events[1]["kind"] == "bank" and events[1]["points"] == k["points"]


def test_same_seed_and_moves_give_the_same_game(client):
    ends = []
    for _ in range(2):
        created = new(client, target=1500, seed=42)
        game, _ = play_out(client, created["id"], created["game"])
        ends.append(client.get(f"/api/games/{created['id']}/record").json())
    assert ends[0]["rolls"] == ends[1]["rolls"] and ends[0]["actions"] == ends[1]["actions"]


def test_games_are_separate_and_ids_unguessable(client):
    a = new(client, seed=1)
    b = new(client, seed=1)
    assert a["id"] != b["id"]
    for gid in (a["id"], b["id"]):
        assert re.fullmatch(r"[A-Za-z0-9_-]{22,}", gid), gid  # token_urlsafe(16): 128 random bits
    r = move(client, a["id"], a["game"], greedy_move(a["game"]))
    assert r.status_code == 200
    assert client.get(f"/api/games/{b['id']}").json()["version"] == b["game"]["version"]
    assert client.get(f"/api/games/{a['id']}").json()["version"] > a["game"]["version"]


def test_hot_seat_turns_and_out_of_turn_move(client):
    created = new(client, players=("Ann", "Bob"), seed=8, entry_threshold=0)
    gid, game = created["id"], created["game"]
    assert game["humans"] == [0, 1]
    r = post_move(client, gid, {"version": game["version"], "seat": 1,
                                                     "action": game["keeps"][0]["roll"]})
    detail = error(r, 409, "not_your_turn")
    assert "Ann" in detail and "Bob" in detail
    detail = error(post_move(client, gid, {"version": game["version"], "seat": 7,
                                                                 "action": 2}), 422, "bad_seat")
    assert "0 to 1" in detail
    # Ann banks: then it is Bob's move, and Ann cannot move for him.
    k = game["keeps"][0]
    game = move(client, gid, game, k["bank"]).json()["game"]
    assert game["current"] == 1 and game["human_to_move"]
    error(post_move(client, gid, {"version": game["version"], "seat": 0,
                                                       "action": game["keeps"][0]["roll"]}), 409, "not_your_turn")


def test_variants_turn_start_choices_and_hint(client):
    """Piggyback: after Ann banks, Bob chooses to piggyback or roll fresh; the hint values both."""
    created = new(client, players=("Ann", "Bob"), seed=2, **{"variants.piggyback": True, "entry_threshold": 0})
    gid, game = created["id"], created["game"]
    k = min(game["keeps"], key=lambda k: k["n"])  # keep few dice, leaving dice to piggyback on
    game = move(client, gid, game, k["bank"]).json()["game"]
    if game["phase"] == "piggyback":
        labels = {c["label"] for c in game["choices"]}
        assert "roll fresh dice" in labels and any(x.startswith("piggyback on") for x in labels)
        h = client.get(f"/api/games/{gid}/hint").json()
        assert {o["action"] for o in h["options"]} == {c["action"] for c in game["choices"]}
        r = move(client, gid, game, 129)
        assert r.status_code == 200
        assert r.json()["events"][0]["kind"] == "piggyback"
    else:  # pragma: no cover - the seed is chosen so that Bob has the offer
        pytest.fail(f"expected a piggyback decision, got {game['phase']}")


def test_challenge_choices_and_result(client):
    """Challenges: with both players on the board (no entry threshold: from the start) a turn starts
    with the choice; a challenge shows in the events, and a bank takes the points from the challenged."""
    created = new(client, players=("Ann", "Bob"), seed=3, **{"variants.challenge": True, "entry_threshold": 0})
    gid, game = created["id"], created["game"]
    assert game["phase"] == "challenge" and game["roll"] == [], game["phase"]
    assert created["events"][-1]["kind"] == "turn_start"
    labels = [c["label"] for c in game["choices"]]
    assert labels == ["no challenge", "challenge Bob"]
    h = client.get(f"/api/games/{gid}/hint").json()
    assert h["best"] == 130 and "challenge" in h["explain"]
    r = move(client, gid, game, 131)
    events = r.json()["events"]
    assert events[0]["kind"] == "challenge" and events[0]["text"] == "Ann challenges Bob"
    game = r.json()["game"]
    assert any("Challenge on Bob" in n for n in game["notes"])
    bob = game["players"][1]["score"]
    k = max(game["keeps"], key=lambda k: k["points"])
    if k["bank"] is not None:
        r = move(client, gid, game, k["bank"])
        kinds = [e["kind"] for e in r.json()["events"]]
        assert "challenge_result" in kinds
        assert r.json()["game"]["players"][1]["score"] == max(0, bob - k["total"])


def test_the_solved_game_decides_the_challenge_hint(client):
    """Where the two-player game with challenges ships solved (zilch), the hint at a challenge
    decision gives both choices their chance of winning, names the better one best and says that the
    solved game weighed it (the points alone always advise against a challenge)."""
    from agents.solver.game import load_game_table
    from zilch_env import GameState, load_ruleset

    created = new(client, players=("Ann", "Bob"), ruleset="zilch", seed=5, **{"variants.challenge": True})
    gid, game = created["id"], created["game"]
    table = load_game_table(load_ruleset("zilch", {"variants.challenge": True}))
    assert table is not None
    hints = 0
    for _ in range(400):
        if game["status"] == "over" or hints >= 3:
            break
        if game["phase"] == "challenge":
            h = client.get(f"/api/games/{gid}/hint").json()
            chances = {o["action"]: o["win_chance"] for o in h["options"]}
            assert set(chances) == {130, 131} and all(0 < c < 1 for c in chances.values())
            assert h["best"] == max(chances, key=chances.get) and h["win_chance"] == max(chances.values())
            assert h["explain_keys"][0][0] == "challengeWin" and "solved game" in h["explain"]
            hints += 1
            game = move(client, gid, game, 130 + hints % 2).json()["game"]
            continue
        game = move(client, gid, game, greedy_move(game)).json()["game"]
    assert hints >= 1, "no challenge decision came up"


def test_hint_gives_the_solver_best_move(client):
    created = new(client, seed=9)
    gid, game = created["id"], created["game"]
    h = client.get(f"/api/games/{gid}/hint").json()
    assert h["version"] == game["version"] and h["phase"] == "keep"
    legal = {k["roll"] for k in game["keeps"]} | {k["bank"] for k in game["keeps"] if k["bank"] is not None}
    assert h["best"] in legal and h["best"] == h["options"][0]["action"]
    values = [o["value"] for o in h["options"]]
    assert values == sorted(values, reverse=True)
    assert {o["action"] for o in h["options"]} == legal
    assert "solver" in h["explain"]


def test_hint_refused_where_the_solver_does_not_apply(client):
    # the turn solver solves pyramiding, but not pyramiding with permanent straights
    created = new(client, ruleset="zilch", seed=9, **{"variants.pyramiding": True})
    error(client.get(f"/api/games/{created['id']}/hint"), 409, "no_hint")


def test_hints_under_pyramiding_value_the_frozen_dice(client):
    created = new(client, ("Ann", "Bob"), seed=9, **{"variants.pyramiding": True, "variants.piggyback": True})
    gid, game = created["id"], created["game"]
    hints = frozen = 0
    while game["status"] != "over" and hints < 80:
        r = client.get(f"/api/games/{gid}/hint")
        assert r.status_code == 200, r.text
        hints += 1
        # a keep phase with fewer dice than the ruleset's: dice frozen earlier in this pass
        frozen += game["phase"] == "keep" and len(game["roll"]) < 6
        r = move(client, gid, game, r.json()["best"])
        assert r.status_code == 200, r.text
        game = r.json()["game"]
    assert hints == 80 or game["status"] == "over"
    assert frozen > 0  # hints were given with dice frozen in the pass


def test_rematch_starts_with_the_winner(client):
    created = new(client, target=500, seed=4)
    game, _ = play_out(client, created["id"], created["game"])
    error(client.post(f"/api/games/{new(client)['id']}/rematch"), 409, "game_not_over")
    r = client.post(f"/api/games/{created['id']}/rematch")
    assert r.status_code == 201
    again = r.json()
    assert again["id"] != created["id"] and again["game"]["ruleset"]["target"] == 500
    winner = game["winners"][0]
    first_event = again["events"][0]
    assert first_event["seat"] == winner


# ------------------------------------------------------------------------------------- bad requests


def test_unknown_game_is_404(client):
    for r in (client.get("/api/games/nope"), client.get("/api/games/nope/hint"),
              client.get("/api/games/nope/record"), client.post("/api/games/nope/rematch"),
              client.post("/api/games/nope/moves", json={"version": 0, "seat": 0, "action": 2})):
        assert "nope" in error(r, 404, "unknown_game")
    assert client.get("/g/nope/rules").status_code == 404
    assert client.get("/rules/no-such-preset").status_code == 404
    assert client.get("/api/no/such/thing").status_code == 404


def test_illegal_keep_names_the_rule(client):
    created = new(client, seed=3)
    gid, game = created["id"], created["game"]
    roll = game["roll"]
    legal_masks = {k["mask"] for k in game["keeps"]}
    bad = next(m for m in range(1, 1 << len(roll)) if m not in legal_masks
               and m == _canonical(roll, m))
    detail = error(move(client, gid, game, bad * 2), 422, "illegal_action")
    assert "score" in detail  # "keep [...] does not score: every kept die must belong to a scoring combination"
    # Banking below the entry threshold.
    k = next(k for k in game["keeps"] if k["total"] < 500)
    detail = error(move(client, gid, game, k["roll"] + 1), 422, "illegal_action")
    assert "entry threshold" in detail
    # Faces the roll does not have; an action number out of range; an empty keep.
    missing = next(f for f in range(1, 7) if f not in roll)
    assert "lacks" in error(move(client, gid, game, keep=[missing]), 422, "illegal_action")
    assert "out of range" in error(move(client, gid, game, 999), 422, "illegal_action")
    assert "at least one" in error(move(client, gid, game, keep=[]), 422, "illegal_action")
    assert "turn-start" in error(move(client, gid, game, 128), 422, "illegal_action")
    assert client.get(f"/api/games/{gid}").json()["version"] == game["version"], "refused moves change nothing"


def _canonical(roll, mask):
    from zilch_env import mask_of

    return mask_of(roll, [roll[i] for i in range(len(roll)) if mask >> i & 1])


def test_replayed_and_stale_requests_are_409(client):
    created = new(client, seed=6)
    gid, game = created["id"], created["game"]
    body = {"version": game["version"], "seat": 0, "action": greedy_move(game)}
    first = post_move(client, gid, body)
    assert first.status_code == 200
    after = first.json()["game"]
    again = post_move(client, gid, body)
    detail = error(again, 409, "stale_version")
    assert again.json()["version"] == after["version"] and "version" in detail
    assert client.get(f"/api/games/{gid}").json()["version"] == after["version"]
    future = dict(body, version=after["version"] + 5)
    error(post_move(client, gid, future), 409, "stale_version")


def test_moves_after_the_end_are_409(client):
    created = new(client, target=500, seed=12)
    game, _ = play_out(client, created["id"], created["game"])
    r = post_move(client, created["id"], {"version": game["version"], "seat": 0, "action": 2})
    error(r, 409, "game_over")
    error(client.get(f"/api/games/{created['id']}/hint"), 409, "game_over")


@pytest.mark.parametrize("body", [
    {},
    {"seat": 0, "action": 2},                                   # no version
    {"version": "0", "seat": 0, "action": 2},                   # version as text
    {"version": 0, "seat": 0, "action": "2"},                   # action as text
    {"version": 0, "seat": 0, "action": 2.5},
    {"version": 0, "seat": 0, "action": True},
    {"version": 0, "seat": 0, "action": 2, "cheat": 1},          # unknown field
    {"version": 0, "seat": 0, "keep": "1 5"},
    {"version": 0, "seat": 0, "keep": [1, 2, 3, 4, 5, 6, 1]},
    [1, 2, 3],
    "move",
])
def test_malformed_move_bodies_are_422(client, body):
    gid = new(client, seed=1)["id"]
    error(post_move(client, gid, body), 422, "malformed_request")


def test_move_needs_action_or_keep(client):
    created = new(client, seed=1)
    gid, v = created["id"], created["game"]["version"]
    for body in ({"version": v, "seat": 0}, {"version": v, "seat": 0, "action": 2, "keep": [1]}):
        assert "either" in error(post_move(client, gid, body), 422, "malformed_request")


def test_not_json_is_422(client):
    gid = new(client, seed=1)["id"]
    r = client.post(f"/api/games/{gid}/moves", content=b"{not json", headers={"Content-Type": "application/json"})
    error(r, 422, "malformed_request")


@pytest.mark.parametrize("body, code, words", [
    ({"ruleset": "zonkk", "players": [{"name": "A"}]}, "bad_ruleset", "preset"),
    ({"ruleset": "../../etc/passwd", "players": [{"name": "A"}]}, "bad_ruleset", "preset"),
    ({"ruleset": "zonk", "set": {"targett": 5}, "players": [{"name": "A"}]}, "bad_ruleset", "targett"),
    ({"ruleset": "zonk", "set": {"target": "high"}, "players": [{"name": "A"}]}, "bad_ruleset", "target"),
    ({"ruleset": "zonk", "players": [{"name": "A"}, {"name": "a"}]}, "bad_player", "different name"),
    ({"ruleset": "zonk", "players": [{"name": "  "}]}, "bad_player", "name"),
    ({"ruleset": "zonk", "players": [{"name": "A" * 40}]}, "bad_player", "24"),
    ({"ruleset": "zonk", "players": [{"name": "A"}, {"cpu": "ppo:/etc/passwd"}]}, "bad_player", "not offered"),
    ({"ruleset": "zonk", "players": [{"cpu": "test-greedy"}]}, "bad_player", "human"),
    ({"ruleset": "zonk", "players": []}, "malformed_request", "players"),
    ({"ruleset": "zonk", "players": [{"name": str(i)} for i in range(7)]}, "malformed_request", "players"),
    ({"ruleset": "zonk", "players": [{"name": "A"}], "seed": -1}, "malformed_request", "seed"),
    ({"ruleset": "zonk"}, "malformed_request", "players"),
])
def test_bad_new_games_are_422(client, body, code, words):
    assert words in error(client.post("/api/games", json=body), 422, code)


def test_a_computer_player_that_refuses_the_rules_is_422(db):
    client = TestClient(create_app(db, cpu_specs=["optimal-turn"]))
    # optimal-turn solves pyramiding, but not pyramiding with zilch's permanent straights
    body = {"ruleset": "zilch", "set": {"variants.pyramiding": True},
            "players": [{"name": "Ann"}, {"cpu": "optimal-turn"}]}
    assert "pyramiding" in error(client.post("/api/games", json=body), 422, "bad_player")


def test_random_junk_never_gives_a_500(client):
    created = new(client, players=("Ann", "Bob"), seed=1)
    gid = created["id"]
    rng = random.Random(0)
    values = [None, -1, 0, 1, 2, 129, 135, 136, 10**30, "x", [], {}, [1], True, 1.5, "", "0"]
    keys = ["version", "seat", "action", "keep", "bank", "extra"]
    for _ in range(300):
        body = {k: rng.choice(values) for k in rng.sample(keys, rng.randint(0, len(keys)))}
        r = post_move(client, gid, body)
        assert r.status_code < 500, (body, r.text)
        nb = {k: rng.choice(values) for k in rng.sample(["ruleset", "set", "players", "seed"], rng.randint(0, 4))}
        r = client.post("/api/games", json=nb)
        assert r.status_code < 500, (nb, r.text)
    for q in ("?log=everything", "?log=all"):
        assert client.get(f"/api/games/{gid}{q}").status_code < 500


# ------------------------------------------------------------------------------------- restart


def test_restart_in_the_middle_of_a_game(db):
    """A new server on the same SQLite file carries on where the old one stopped, and the game ends
    exactly as the same game played without a restart."""
    with one_loop(TestClient(create_app(db, cpu_specs=CPUS))) as first:
        created = new(first, target=3000, seed=77)
        gid, game = created["id"], created["game"]
        for _ in range(6):
            game = move(first, gid, game, greedy_move(game)).json()["game"]
        before = first.get(f"/api/games/{gid}?log=all").json()
        other = new(first, seed=78)

    # a new server: a new process would see only the file
    with one_loop(TestClient(create_app(db, cpu_specs=CPUS))) as second:
        after = second.get(f"/api/games/{gid}?log=all").json()
        assert after == before
        assert second.get(f"/api/games/{other['id']}").json()["version"] == other["game"]["version"]
        error(move(second, gid, dict(game, version=game["version"] - 1), greedy_move(game)), 409, "stale_version")
        end, _ = play_out(second, gid, after)

    with one_loop(TestClient(create_app(db.replace(".sqlite3", "-2.sqlite3"), cpu_specs=CPUS))) as straight:
        c2 = new(straight, target=3000, seed=77)
        end2, _ = play_out(straight, c2["id"], c2["game"])
    r1 = second.get(f"/api/games/{gid}/record").json()
    r2 = straight.get(f"/api/games/{c2['id']}/record").json()
    assert (r1["rolls"], r1["actions"], end["standings"]) == (r2["rolls"], r2["actions"], end2["standings"])


def test_concurrent_moves_on_one_game_only_one_wins(db):
    """Two requests made from the same position: the store's version check lets exactly one through."""
    from concurrent.futures import ThreadPoolExecutor

    client = TestClient(create_app(db, cpu_specs=CPUS))
    created = new(client, seed=21)
    gid, game = created["id"], created["game"]
    body = {"version": game["version"], "seat": 0, "action": greedy_move(game)}
    with ThreadPoolExecutor(8) as ex:
        codes = sorted(ex.map(lambda _: post_move(client, gid, body).status_code, range(8)))
    assert codes == [200] + [409] * 7


# ------------------------------------------------------------------------------------- zilch serve


def test_zilch_serve_command(tmp_path, monkeypatch, capsys):
    """The command serves the app on loopback with the SQLite file it is given; a computer player
    that does not exist is refused before serving (the command run in this process, its server
    replaced by one that records being started: the refusal needs no process of its own)."""
    import socket
    import subprocess
    import sys
    import time
    from pathlib import Path

    import httpx

    from zilch_cli import main

    with monkeypatch.context() as m:
        served = []
        m.setattr("uvicorn.run", lambda *a, **kw: served.append(a))
        assert main(["serve", "--cpu", "no-such-agent"]) == 2
        assert "--cpu no-such-agent" in capsys.readouterr().err and not served
    root = Path(__file__).resolve().parents[2]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    db = tmp_path / "served.sqlite3"
    proc = subprocess.Popen([sys.executable, "-m", "zilch_cli", "serve", "--port", str(port), "--db", str(db),
                             "--cpu", "greedy", "--log-level", "warning"], cwd=root,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(300):
            try:
                setup = httpx.get(base + "/api/setup", timeout=2).json()
                break
            except httpx.HTTPError:
                assert proc.poll() is None, proc.communicate()
                time.sleep(0.1)
        assert [c["spec"] for c in setup["cpus"]] == ["greedy"]
        r = httpx.post(base + "/api/games", json={"ruleset": "zonk", "players": [{"name": "A"}, {"cpu": "greedy"}]})
        assert r.status_code == 201
        assert db.exists()
        # an open event stream does not hold the server when it is stopped (Ctrl-C, SIGTERM)
        with httpx.stream("GET", f"{base}/api/games/{r.json()['id']}/events", timeout=10) as s:
            assert next(s.iter_lines()).startswith("event: game")
            t0 = time.time()
            proc.send_signal(2)  # SIGINT, as Ctrl-C
            proc.wait(15)
            assert time.time() - t0 < 12
            assert "Traceback" not in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(20)


# ------------------------------------------------------------------------------------- pages


def test_setup_lists_presets_toggles_and_offered_cpus(client):
    s = client.get("/api/setup").json()
    assert [p["name"] for p in s["presets"]] == list(PRESETS)
    assert [c["spec"] for c in s["cpus"]] == ["test-greedy"] and s["cpus"][0]["help"]
    farkle = next(p for p in s["presets"] if p["name"] == "farkle")
    assert farkle["variants"]["variants.zilch_penalty"] is True
    for t in s["toggles"]:  # every toggle, on or off, is a valid override of every preset
        for preset in PRESETS:
            load_ruleset(preset, {t["key"]: t["on"]})
            load_ruleset(preset, {t["key"]: t["off"]})


def test_rules_pages_are_written_from_the_ruleset(client):
    page = client.get("/rules/farkle").text
    for line in rules_summary(load_ruleset("farkle")).split("\n")[1:]:
        assert line.replace("'", "&#x27;") in page
    created = new(client, target=1234, seed=1)
    page = client.get(f"/g/{created['id']}/rules").text
    assert "First to 1,234" in page
    assert "First to 2,000" in client.get("/rules/zonk?set.target=2000").text
    assert client.get("/rules/zonk?set.target=nope").status_code == 422


def test_pages_are_served_and_fetch_nothing_from_other_hosts(client):
    assert "<script src=\"/static/app.js\">" in client.get("/").text
    assert client.get("/g/anything").status_code == 200  # the page itself; the game is fetched by the script
    for path in ("/static/app.js", "/static/style.css", "/", "/rules/zonk"):
        text = client.get(path).text
        assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}", text, re.I), path
        assert "@import" not in text and "@font-face" not in text


def test_events_tell_every_roll_and_turn():
    """The table's events account for every roll and every turn of games under every preset and variant."""
    register_agent("test-random", lambda rs, arg: __import__("zilch_env").RandomMover(), "random, for tests")
    variants = [{}, {"variants.piggyback": True}, {"variants.challenge": True},
                {"variants.six_dice_zilch_bonus": 500}, {"variants.pyramiding": True, "variants.overcoming": True},
                {"tie": "tiebreak", "target": 1000}]
    for preset in PRESETS:
        for i, ov in enumerate(variants):
            t = Table(load_ruleset(preset, ov), [Seat("a", "test-random"), Seat("b", "test-greedy"),
                                                 Seat("c", "test-random")][: 2 + i % 2], seed=i)
            t.play_cpu()
            kinds = [e["kind"] for e in t.events]
            assert sum(k in ("roll", "zilch", "bonus") for k in kinds) == len(t.state.rolls)
            assert sum(k in ("zilch", "bank") for k in kinds) == len(t.state.turns)
            assert kinds[-1] == "game_over"
            again = Table.from_saved(json.loads(json.dumps(t.to_saved())))
            assert again.events == t.events and again.state.scores == t.state.scores


# ------------------------------------------------------------------------------------- what the pages show


def test_the_seed_is_sent_as_a_string_so_javascript_keeps_every_digit(client):
    seed = 8293370793161345318  # 8293370793161345000 as a JavaScript number
    created = new(client, target=500, seed=seed)
    game, _ = play_out(client, created["id"], created["game"])
    assert game["seed"] == str(seed)
    assert json.loads(client.get(f"/api/games/{created['id']}").text)["seed"] == "8293370793161345318"


def test_score_sheet_has_a_row_per_turn(client):
    created = new(client, target=1000, seed=5)
    game, _ = play_out(client, created["id"], created["game"])
    rec = client.get(f"/api/games/{created['id']}/record").json()
    sheet = [dict(zip(game["sheet_columns"], row)) for row in game["sheet"]]
    assert len(sheet) == game["turns"]
    for seat in (0, 1):
        rows = [r for r in sheet if r["seat"] == seat]
        assert rows and rows[-1]["score"] == game["players"][seat]["score"]
        assert all(r["points"] == 0 for r in rows if not r["banked"])
    assert replay(rec).scores == [p["score"] for p in game["players"]]


def test_words_of_the_log_and_choices():
    """'piggyback on 550 with 1 die' (not '1 dice'); a zilch that loses nothing: 'zilch! Score 1400'."""
    from zilch_env import PIGGYBACK

    t = Table(load_ruleset("zonk", {"variants.piggyback": True, "entry_threshold": 0}),
              [Seat("Ann"), Seat("Bob")], seed=1)
    t.state.offer = (550, 1)
    assert t.label(PIGGYBACK) == "piggyback on 550 with 1 die"
    texts = []
    for seed in range(40):  # some first roll zilches at once: nothing is lost
        t = Table("zonk", [Seat("Ann", "test-greedy"), Seat("Bob", "test-greedy")], seed=seed)
        t.play_cpu()
        texts += [e["text"] for e in t.events if e["kind"] == "zilch"]
    assert texts and all("!;" not in x for x in texts)
    assert any(re.search(r"zilch! Score \d+$", x) for x in texts) and any(re.search(r"zilch! \d+ lost; score", x) for x in texts)


def test_favicon_is_served(client):
    r = client.get("/favicon.ico")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert client.get("/static/favicon.svg").status_code == 200


def test_rules_page_has_a_scoring_table_from_the_ruleset(client):
    """Every combination with dice pictures and its points (the engine's own), and what scores nothing."""
    from zilch_web.app import scoring_table_rows

    zilch = client.get("/rules/zilch").text
    assert "<table class='scoring'>" in zilch and "data-face='6'" in zilch
    assert "A single 2, 3, 4 or 5 scores nothing" in zilch  # in zilch the 6 scores, the 5 does not
    assert "Four or more of a kind score no bonus" in zilch
    farkle = scoring_table_rows(load_ruleset("farkle"))
    four = dict(farkle["kinds"])[4]
    assert four[1] == 400 and four[0] == 2000  # four 2s double the three; four 1s double 1000
    assert ("Three pairs", [2, 2, 3, 3, 4, 4], 1000) in farkle["specials"]
    custom = client.get("/rules/zonk?set.scoring.singles={1 = 100}&set.scoring.straight=0").text
    assert "A single 2, 3, 4, 5 or 6 scores nothing" in custom and "A straight 1-6 scores nothing special" in custom


def test_presets_are_told_apart_on_the_form(client):
    blurbs = [p["summary"] for p in client.get("/api/setup").json()["presets"]]
    assert len(set(blurbs)) == len(blurbs), blurbs
    zilch = next(p["summary"] for p in client.get("/api/setup").json()["presets"] if p["name"] == "zilch")
    assert "1s and 6s score alone" in zilch and "scoring dice kept for you" in zilch


# ------------------------------------------------------------------ the six-dice zilch bonus (issue 23)

#: Seed 530's first roll is 2 3 3 4 4 6 (no score in zonk), its second 1 1 2 2 3 3 (three pairs).
BONUS_SEED = 530
BONUS_RULES = {"variants.six_dice_zilch_bonus": 500, "entry_threshold": 0}


def test_six_dice_zilch_bonus_is_the_players_choice(client):
    """docs/rules.md, the six-dice zilch bonus: six dice and no score put the bonus in the turn total
    and the player banks it or rolls six fresh dice; the roll's one keep is the keep of nothing."""
    created = new(client, players=("Ann",), seed=BONUS_SEED, **BONUS_RULES)
    gid, game = created["id"], created["game"]
    assert game["phase"] == "keep" and game["roll"] == [2, 3, 3, 4, 4, 6] and game["turn_total"] == 500
    assert game["keeps"] == [{"dice": [], "mask": 0, "points": 0, "n": 0, "total": 500, "hot_dice": False,
                              "next_roll": 6, "roll": 0, "bank": 1}]
    bonus = created["events"][-1]
    assert bonus["kind"] == "bonus" and bonus["can_bank"] and bonus["turn_total"] == 500
    assert bonus["text"] == ("Ann rolls 2 3 3 4 4 6: no score, six-dice bonus +500 (turn 500). "
                             "Bank 500 or roll six fresh dice")
    hint = client.get(f"/api/games/{gid}/hint").json()  # the bonus is counted once
    options = {o["label"]: o["value"] for o in hint["options"]}
    assert set(options) == {"roll 6 fresh dice", "bank 500"} and options["bank 500"] == 500
    assert options["roll 6 fresh dice"] > 500 and hint["best"] == 0 and hint["best_keep"] == []
    r = move(client, gid, game, 0)  # roll six fresh dice
    assert r.status_code == 200, r.text
    events, game = r.json()["events"], r.json()["game"]
    assert [e["kind"] for e in events] == ["fresh", "roll"]
    assert events[0]["text"] == "Ann rolls six fresh dice (turn 500)"
    assert events[1]["dice"] == [1, 1, 2, 2, 3, 3] and game["turn_total"] == 500
    assert max(k["points"] for k in game["keeps"]) == 1500  # three pairs, on top of the bonus
    # the other choice: bank the bonus
    other = new(client, players=("Ann",), seed=BONUS_SEED, **BONUS_RULES)
    r = move(client, other["id"], other["game"], 1)
    assert r.status_code == 200, r.text
    events, game = r.json()["events"], r.json()["game"]
    assert events[0]["kind"] == "bank" and events[0]["text"] == "Ann banks 500: score 500"
    assert game["players"][0]["score"] == 500 and game["turn_total"] == 0


def test_six_dice_zilch_bonus_below_the_bar_offers_only_the_roll(client):
    created = new(client, players=("Ann",), seed=BONUS_SEED, ruleset="farkle",
                  **{"variants.six_dice_zilch_bonus": 500})  # farkle's entry threshold is 1000
    game = created["game"]
    assert game["keeps"][0]["bank"] is None and game["turn_total"] == 500
    assert created["events"][-1]["text"].endswith("Roll six fresh dice (banking needs 1000)")
    r = move(client, created["id"], game, 1)
    assert r.status_code == 422 and "entry threshold 1000" in r.json()["detail"]


@pytest.mark.parametrize("cpu", ["greedy", "heuristic", "optimal-turn"])
def test_computer_players_play_the_six_dice_zilch_bonus(cpu):
    """A computer player to move on a bonus roll chooses bank or fresh dice, and the game goes on."""
    rs = load_ruleset("zonk", BONUS_RULES)
    t = Table(rs, [Seat("Ann", None), Seat("Bot", cpu)], seed=BONUS_SEED, first=1)
    assert t.state.current == 1 and t.state.keeps()[0].n == 0  # the computer faces the bonus
    events = t.play_cpu()
    kinds = [e["kind"] for e in t.events]
    assert kinds[0] == "bonus" and t.events[0]["seat"] == 1
    assert kinds[1] in ("fresh", "bank"), kinds
    assert t.state.current == 0 or t.state.done, events


def test_rules_page_and_form_know_the_issue_23_keys(client):
    """The rules page of a ruleset with partial straights, scores below zero and the instant ending
    says so; the new-game toggles set them."""
    page = client.get("/rules/cardgames").text
    assert "wins at once" in page and "Straight 1-6" in page
    page = client.get("/rules/zonk?set.scoring.partial_straights.12345=500&set.score_floor=-2500").text
    assert "Partial straight 12345".replace("12345", "1-2-3-4-5") in page and "down to -2500" in page
    toggles = {t["key"]: t for t in client.get("/api/setup").json()["toggles"]}
    assert {"end", "scoring.partial_straights", "score_floor"} <= set(toggles)
    created = new(client, players=("Ann",), seed=1, **{"end": "instant", "score_floor": -2500,
                                                      "scoring.partial_straights": toggles["scoring.partial_straights"]["on"]})
    rules = created["game"]["ruleset"]
    assert rules["end"] == "instant" and rules["score_floor"] == -2500
    assert rules["scoring"]["partial_straights"] == {"12345": 500, "23456": 750}


def test_the_hot_dice_bonus_is_offered_said_and_played(client):
    """A rule declared in the rules (schema, keeps) and its words (zilch_env/rules/words.toml) reaches
    the form, the rules page in each language and a game against the computer."""
    toggle = next(t for t in client.get("/api/setup").json()["toggles"] if t["key"] == "scoring.hot_dice_bonus")
    assert toggle["on"] == 500 and toggle["off"] == 0 and toggle["label"] == "Hot dice bonus"
    assert "Bonus för heta tärningar" in client.get("/api/setup?lang=sv").text
    page = client.get("/rules/zonk?set.scoring.hot_dice_bonus=500").text
    assert "Hot dice bonus: a keep that sets aside every die rolled adds 500 points." in page
    assert "Hot dice bonus" not in client.get("/rules/zonk").text
    assert "dados quentes" in client.get("/rules/zonk?set.scoring.hot_dice_bonus=500&lang=pt-BR").text
    created = new(client, seed=3, **{"scoring.hot_dice_bonus": 500})
    game = client.get(f"/api/games/{created['id']}").json()
    assert game["ruleset"]["scoring"]["hot_dice_bonus"] == 500
