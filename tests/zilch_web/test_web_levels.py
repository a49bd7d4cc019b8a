"""The computer players are offered as levels a person understands (Easy, Medium,
Hard = the trained agent of the rules, Perfect = the exact game table), each with a label and a
line of description, the trained agent by default; ``zilch play``'s bare ``cpu`` plays the same
default; each computer seat says its level."""

from __future__ import annotations

import collections
import warnings

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from zilch_env import PRESETS, load_ruleset
from zilch_web.app import create_app
from zilch_web.levels import cpu_levels, default_cpu, level_label, trained_agent_spec

from .conftest import one_loop



@pytest.fixture(autouse=True)
def empty_solver_cache(tmp_path, monkeypatch):
    """Only the tables shipped with the code count (not games someone solved on this machine)."""
    monkeypatch.setenv("ZILCH_SOLVER_CACHE", str(tmp_path / "solver-cache"))


@pytest.fixture
def client(tmp_path):
    with one_loop(TestClient(create_app(str(tmp_path / "g.sqlite3")), raise_server_exceptions=False)) as c:
        yield c


#: Presets without a shipped trained agent (checkpoints/<preset>) yet: Hard is not offered there.
UNTRAINED = {"cardgames"}


def test_setup_offers_levels_with_labels_and_descriptions(client):
    s = client.get("/api/setup").json()
    assert [c["label"] for c in s["cpus"]] == ["Easy", "Medium", "Hard", "Perfect"]
    assert [c["spec"] for c in s["cpus"]] == ["greedy", "heuristic", "ppo:checkpoints/zonk", "optimal-win"]
    assert s["default_cpu"] == "ppo:checkpoints/zonk"
    assert all(20 < len(c["description"]) < 120 for c in s["cpus"]), "one line each, shown on the phone"
    for p in s["presets"]:  # every preset has its game table shipped, and its own trained agent but
        if p["name"] in UNTRAINED:  # the presets added since the agents were trained: the agent for
            assert p["default_cpu"] == "ppo:checkpoints/any"  # any ruleset plays them
            assert [(c["label"], c["spec"]) for c in p["cpus"]][2:] == [("Hard", "ppo:checkpoints/any"),
                                                                      ("Perfect", "optimal-win")], p["name"]
            continue
        assert p["default_cpu"] == f"ppo:checkpoints/{p['name']}"
        assert [c["label"] for c in p["cpus"]] == ["Easy", "Medium", "Hard", "Perfect"], p["name"]


def test_changed_rules_offer_what_can_play_them(client):
    r = client.post("/api/cpus", json={"ruleset": "zonk", "set": {"target": 2000}})
    assert r.status_code == 200, r.text
    # no agent trained on these rules (the agent for any ruleset is offered), no stored table
    assert [(c["label"], c["spec"]) for c in r.json()["cpus"]][1:] == [("Medium", "heuristic"),
                                                                     ("Hard", "ppo:checkpoints/any")]
    assert r.json()["default_cpu"] == "ppo:checkpoints/any"
    varied = client.post("/api/cpus", json={"ruleset": "zonk", "set": {"variants.piggyback": True}}).json()
    assert [(c["label"], c["spec"]) for c in varied["cpus"]][2:] == [("Hard", "ppo:checkpoints/any")]
    three = client.post("/api/cpus", json={"ruleset": "farkle", "set": {}, "players": 3}).json()
    assert [c["label"] for c in three["cpus"]] == ["Easy", "Medium", "Hard"], "no game of three players stored"
    odd3 = client.post("/api/cpus", json={"ruleset": "zonk", "set": {"target": 2000}, "players": 3}).json()
    assert [(c["label"], c["spec"]) for c in odd3["cpus"]][2:] == [("Hard", "ppo:checkpoints/any")]
    # the name of a ruleset does not matter to the trained agent: only its rules
    renamed = client.post("/api/cpus", json={"ruleset": "zilch", "set": {"name": "mine"}}).json()
    assert renamed["default_cpu"] == "ppo:checkpoints/zilch"
    bad = client.post("/api/cpus", json={"ruleset": "zonk", "set": {"target": "lots"}})
    assert bad.status_code == 422 and "target" in bad.json()["detail"]


#: Presets whose game with the six-dice zilch bonus of the new-game form (500) ships solved.
BONUS_SHIPPED = ("zilch", "zilch5k", "zilch10k", "zilch15k", "zonk", "zonk20k", "cardgames", "farkle", "farkle-basic")


@pytest.mark.parametrize("preset", BONUS_SHIPPED)
def test_perfect_plays_the_six_dice_bonus_from_the_shipped_table(client, preset):
    """The new-game form's six-dice bonus keeps Perfect: its solved game ships, and optimal-win plays
    the bonus game from it without solving (the solver would refuse nothing here, but never runs)."""
    import numpy as np

    from agents.base import make_agent
    from agents.solver.game import load_game_table
    from zilch_env import GameState, play_game

    bonus = {"variants.six_dice_zilch_bonus": 500}
    r = client.post("/api/cpus", json={"ruleset": preset, "set": bonus})
    assert r.status_code == 200, r.text
    assert ("Perfect", "optimal-win") in [(c["label"], c["spec"]) for c in r.json()["cpus"]]
    rs = load_ruleset(preset, bonus)
    table = load_game_table(rs)
    assert table is not None and table.ruleset.variants.six_dice_zilch_bonus == 500
    agent = make_agent("optimal-win", rs)
    assert agent.table.W.size == table.W.size
    if preset == "zilch":  # one whole game (the shortest preset; the engine checks are the solver tests')
        game = play_game(GameState(rs, 2, seed=1), [agent, agent], np.random.default_rng(1))
        assert game.done


@pytest.mark.parametrize("preset", ["zilch", "zilch5k"])
def test_perfect_plays_challenges_from_the_shipped_table(client, preset):
    """The new-game form's challenge toggle keeps Perfect on zilch and zilch5k, whose solved games with
    challenges ship: a game against it gets to the challenge decision and the computer answers it
    (the hint values it by chance of winning); other presets' challenge games are not offered it."""
    challenge = {"variants.challenge": True}
    r = client.post("/api/cpus", json={"ruleset": preset, "set": challenge})
    assert ("Perfect", "optimal-win") in [(c["label"], c["spec"]) for c in r.json()["cpus"]]
    r = client.post("/api/cpus", json={"ruleset": "zonk", "set": challenge})
    assert "Perfect" not in [c["label"] for c in r.json()["cpus"]]
    from agents.solver.game import load_game_table

    table = load_game_table(load_ruleset(preset, challenge))
    assert table is not None and table.CH.size == table.W.size


def test_a_level_that_cannot_play_the_rules_is_refused_with_the_reason(client):
    r = client.post("/api/games", json={"ruleset": "zonk", "set": {"target": 2000, "variants.challenge": True},
                                        "players": [{"name": "A"}, {"cpu": "ppo:checkpoints/zonk"}]})
    assert r.status_code == 422 and "trained on" in r.json()["detail"] and "Medium (heuristic)" in r.json()["detail"]
    r = client.post("/api/games", json={"ruleset": "zonk", "players": [{"name": "A"}, {"name": "B"},
                                                                        {"cpu": "optimal-win"}]})
    assert r.status_code == 422 and "two-player" in r.json()["detail"]
    r = client.post("/api/games", json={"ruleset": "zonk", "players": [{"name": "A"}, {"cpu": "optimal-turn"}]})
    assert r.status_code == 422 and "not offered" in r.json()["detail"]


@pytest.mark.parametrize("spec, label", [("ppo:checkpoints/zonk", "Hard"), ("optimal-win", "Perfect"),
                                         ("greedy", "Easy")])
def test_each_computer_seat_shows_its_level_and_plays(client, spec, label):
    r = client.post("/api/games", json={"ruleset": "zonk", "seed": 4,
                                        "players": [{"name": "Ann"}, {"cpu": spec}]})
    assert r.status_code == 201, r.text
    gid, game, token = r.json()["id"], r.json()["game"], r.json()["token"]
    cpu = game["players"][1]
    assert cpu["level"] == label and cpu["cpu"] == spec
    assert cpu["name"] == ("CPU" if spec == "ppo:checkpoints/zonk" else f"CPU ({label})")
    cpu_moves = 0
    for _ in range(60):  # bank when allowed, else roll on: the computer plays its turns
        if game["status"] == "over" or cpu_moves >= 2:
            break
        k = max(game["keeps"], key=lambda k: k["points"])
        r = client.post(f"/api/games/{gid}/moves", json={"version": game["version"], "seat": 0, "token": token,
                                                         "action": k["bank"] if k["bank"] is not None else k["roll"]})
        assert r.status_code == 200, r.text
        game = r.json()["game"]
        cpu_moves += any(e["seat"] == 1 for e in r.json()["events"])
    assert cpu_moves >= 2


def test_levels_module():
    zonk = load_ruleset("zonk")
    assert trained_agent_spec(zonk) == "ppo:checkpoints/zonk" == default_cpu(zonk)
    assert default_cpu(load_ruleset("zonk", {"variants.piggyback": True})) == "ppo:checkpoints/any"
    assert [c["label"] for c in cpu_levels(zonk, 4)] == ["Easy", "Medium", "Hard"]
    assert level_label("ppo:checkpoints/farkle") == "Hard" and level_label("heuristic") == "Medium"
    assert level_label("greedy:500") is None
    for p in PRESETS:
        assert default_cpu(load_ruleset(p)) == f"ppo:checkpoints/{'any' if p in UNTRAINED else p}"


def test_the_agent_for_any_ruleset_plays_three_players_under_piggyback(client):
    """The default computer of rules no preset's agent knows, at three players with piggyback on: it
    is offered, seated and plays its turns, its offers included."""
    rules = {"ruleset": "zonk", "set": {"variants.piggyback": True, "target": 3000}}
    offered = client.post("/api/cpus", json={**rules, "players": 3}).json()
    spec = offered["default_cpu"]
    assert spec == "ppo:checkpoints/any"
    r = client.post("/api/games", json={**rules, "seed": 2, "players": [{"name": "Ann"}, {"cpu": spec},
                                                                      {"cpu": spec}]})
    assert r.status_code == 201, r.text
    gid, game, token = r.json()["id"], r.json()["game"], r.json()["token"]
    assert [p["level"] for p in game["players"][1:]] == ["Hard", "Hard"]
    seen = collections.Counter()
    for _ in range(300):  # Ann takes every offer and banks when allowed; the computers play the rest
        if game["status"] == "over":
            break
        if game["phase"] == "piggyback":
            seen["offers to Ann"] += 1
            action = max(c["action"] for c in game["choices"])  # 129: piggyback on the offer
        else:
            k = max(game["keeps"], key=lambda k: k["points"])
            action = k["bank"] if k["bank"] is not None else k["roll"]
        r = client.post(f"/api/games/{gid}/moves", json={"version": game["version"], "seat": 0, "token": token,
                                                         "action": action})
        assert r.status_code == 200, r.text
        game = r.json()["game"]
        for e in r.json()["events"]:
            seen[(e.get("seat"), e["kind"])] += 1
    assert game["status"] == "over", seen
    # the computers chose at offers (fresh dice or the offer) and banked, one bank an offer to Ann
    assert sum(seen[(q, k)] for q in (1, 2) for k in ("fresh", "piggyback")) >= 1, seen
    assert seen[(1, "bank")] + seen[(2, "bank")] >= 2 and seen["offers to Ann"] >= 1, seen


def test_zilch_play_bare_cpu_plays_the_same_default(monkeypatch):
    import zilch_cli.play as play
    from zilch_cli import main

    seen = {}

    class Stub:
        def __init__(self, table, delay=0.0):
            seen["table"] = table

        def play(self):
            return 0

    monkeypatch.setattr(play, "TerminalGame", Stub)
    assert main(["play", "--ruleset", "farkle", "--players", "you,cpu", "--seed", "1"]) == 0
    assert [s.cpu for s in seen["table"].seats] == [None, "ppo:checkpoints/farkle"]
    assert main(["play", "--ruleset", "farkle", "--set", "target=3000", "--players", "you,cpu"]) == 0
    assert seen["table"].seats[1].cpu == "ppo:checkpoints/any"  # no agent of its own: the agent for any ruleset


def test_a_shared_agent_plays_many_games_at_once_from_many_threads():
    """The web server plays every game of the same rules with one agent object from its request
    threads: calls are serialised per agent (the trained agent's shared mask buffer, written by two
    threads at once, once made it pick an illegal keep)."""
    from concurrent.futures import ThreadPoolExecutor

    from zilch_web.table import Seat, Table

    def game(seed):
        t = Table("zonk", [Seat("", "ppo:checkpoints/zonk"), Seat("", "ppo:checkpoints/zonk")], seed=seed)
        t.play_cpu()
        return t.state.done

    with ThreadPoolExecutor(8) as ex:
        assert all(ex.map(game, range(12)))


def test_the_agent_for_any_ruleset_is_offered_where_no_trained_agent_knows_the_rules(monkeypatch, tmp_path):
    import shutil

    import zilch_web.levels as levels

    for p in PRESETS:  # the shipped agents, and an agent for any ruleset beside them
        if (levels.CHECKPOINTS / p / "policy.json").is_file():
            (tmp_path / p).mkdir()
            shutil.copy(levels.CHECKPOINTS / p / "policy.json", tmp_path / p / "policy.json")
    (tmp_path / "any").mkdir()
    (tmp_path / "any" / "policy.json").write_text('{"ruleset": {"name": "any", "distribution": "any"}}')
    monkeypatch.setattr(levels, "CHECKPOINTS", tmp_path)
    monkeypatch.setattr(levels, "_HARD", type(levels._HARD)())
    odd = load_ruleset("zonk", {"target": 7000, "scoring.straight": 1800})
    assert trained_agent_spec(odd) == "ppo:checkpoints/any" == default_cpu(odd)
    assert trained_agent_spec(load_ruleset("zonk", {"variants.piggyback": True})) == "ppo:checkpoints/any"
    assert [c["label"] for c in cpu_levels(odd, 3)] == ["Easy", "Medium", "Hard"]  # any player count
    (tmp_path / "any" / "policy.json").unlink()  # not shipped: the heuristic plays these rules
    monkeypatch.setattr(levels, "_HARD", type(levels._HARD)())
    assert trained_agent_spec(odd) is None and default_cpu(odd) == "heuristic"
    assert [c["label"] for c in cpu_levels(odd, 2)] == ["Easy", "Medium"]
    (tmp_path / "any" / "policy.json").write_text('{"ruleset": {"name": "any", "distribution": "any"}}')
    monkeypatch.setattr(levels, "_HARD", type(levels._HARD)())
    hard = [c for c in cpu_levels(odd, 2) if c["label"] == "Hard"]
    assert [c["spec"] for c in hard] == ["ppo:checkpoints/any"] and "every ruleset" in hard[0]["description"]
    zonk = load_ruleset("zonk")  # the rules' own agent first
    assert [c["spec"] for c in cpu_levels(zonk, 2) if c["label"] == "Hard"] == ["ppo:checkpoints/zonk"]
    assert level_label("ppo:checkpoints/any") == "Hard"


def test_perfect_where_the_solved_game_of_those_players_is_stored(client):
    """Perfect is offered for a game of three players, and of two under overcoming, once the solved game
    of those players is stored (with three players, also the two-player table that optimal-win loads
    when the rules have one), never for four; the level it offers then plays such a game, and the
    hint gives every choice's chance of winning from that game."""
    import numpy as np

    from agents.base import make_agent
    from agents.solver.game import solve_game
    from agents.solver.multi import solve_multi
    from zilch_env import GameState, play_game

    over = load_ruleset("zilch", {"target": 500, "dice": 3, "variants.overcoming": True})
    plain = load_ruleset("zilch", {"target": 500, "dice": 3})

    def perfect(rs, n):
        return [c["label"] for c in cpu_levels(rs, n)].count("Perfect") == 1

    assert not any(perfect(rs, n) for rs in (over, plain) for n in (None, 2, 3, 4))
    solve_multi(over, 2, progress=False)
    assert perfect(over, 2) and perfect(over, None) and not perfect(over, 3)
    solve_multi(plain, 3, progress=False)
    assert not perfect(plain, 3), "optimal-win also loads the two-player table of these rules"
    solve_game(plain, progress=False)
    assert perfect(plain, 3) and perfect(plain, 2) and not perfect(plain, 4)
    agent = make_agent("optimal-win", plain)
    game = play_game(GameState(plain, num_players=3, seed=4), [agent] * 3, np.random.default_rng(4))
    assert game.done and game.winners
    r = client.post("/api/games", json={"ruleset": "zilch", "set": {"target": 500, "dice": 3}, "seed": 3,
                                        "players": [{"name": "A"}, {"name": "B"}, {"cpu": "optimal-win"}]})
    assert r.status_code == 201, r.text
    h = client.get(f"/api/games/{r.json()['id']}/hint").json()
    chances = [o["win_chance"] for o in h["options"]]
    assert h["phase"] == "keep" and all(0 < c < 1 for c in chances) and "every player" in h["explain"]
    assert h["win_chance"] == max(chances)
    # The hint asked the Perfect seat's own shared agent (the seat has not moved yet, so only the
    # hint can have loaded its three-player table): the server holds one copy of the solved game.
    from zilch_web.table import cpu_agent

    assert 3 in cpu_agent("optimal-win", plain)._multi
