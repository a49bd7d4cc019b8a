"""The evaluation at three and four players: every seat permutation of a deal with the same dice,
shares of draws, the interval of the share, orders that repeat a game played once, and the agents
that only know two players."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from agents.evaluate import stats
from agents.evaluate import (_Context, _play_table_chunk, distinct_orders, evaluate, expand_orders, order_kind,
                             seat_orders)
from zilch_env import GreedyMover, load_ruleset, UnsupportedRulesError


class FirstRolls(GreedyMover):
    """Plays as ``GreedyMover(threshold)`` and notes the first roll it decides on in each of its turns,
    by (seat, that seat's turn number)."""

    def __init__(self, threshold: int, log: dict):
        super().__init__(threshold)
        self.log = log

    def act(self, state, legal, rng):
        seat = state.current
        turn = sum(t["player"] == seat for t in state.turns)
        self.log.setdefault((seat, turn), tuple(state.roll))
        return super().act(state, legal, rng)


def test_auto_orders_are_permutations_up_to_four_players():
    assert order_kind(2) == order_kind(3) == order_kind(4) == "permutations"
    assert order_kind(5) == order_kind(6) == "rotations"
    assert seat_orders(2, "auto") == seat_orders(2, "rotations") == [(0, 1), (1, 0)]
    assert len(seat_orders(4, "auto")) == 24 and len(seat_orders(5, "auto")) == 5
    with pytest.raises(ValueError, match="auto, rotations, permutations"):
        order_kind(3, "random")
    r = evaluate(agents=["greedy", "greedy:500", "random"], ruleset="zonk", players=3, games=12, workers=1,
                 solo_turns=0)
    assert r.data["config"]["orders"] == "permutations" and len(r.data["config"]["seat_orders"]) == 6
    assert r.data["config"]["fair_share"] == pytest.approx(1 / 3)


def test_rotations_keep_one_cyclic_order_permutations_do_not():
    """The bias of rotations: at three players position 0 always sits just before position 1."""
    def before(orders):
        return {(o.index(1) - o.index(0)) % 3 for o in orders}
    assert before(seat_orders(3, "rotations")) == {1}
    assert before(seat_orders(3, "permutations")) == {1, 2}


@pytest.mark.parametrize("players", [3, 4])
def test_every_permutation_of_a_deal_meets_the_same_dice(players):
    """Each deal in all N! orders, distinct agents in every seat: whoever sits in seat s, the first roll
    of that seat's t-th turn shows the same faces (common random numbers), while the games differ."""
    rs = load_ruleset("zonk")
    orders = seat_orders(players, "permutations")
    assert len(set(orders)) == math.factorial(players)
    for deal in range(2):
        seen: dict = {}
        finals = set()
        for order in orders:
            log: dict = {}
            agents = [FirstRolls(t, log) for t in (300, 500, 1000, 2000)[:players]]
            ctx = _Context(rs, [f"g{i}" for i in range(players)], seed=11, agents=agents)
            out = _play_table_chunk(ctx, tuple(range(players)), [order], deal, deal + 1)
            assert sorted(out["seat"][0]) == list(range(players))
            assert [out["seat"][0][order[s]] for s in range(players)] == list(range(players))
            finals.add(tuple(out["score"][0]))
            for key, roll in log.items():
                assert seen.setdefault(key, roll) == roll, (deal, order, key)
        assert len(seen) > 10 * players  # many turn slots compared
        assert len(finals) > 1  # the seating changed the games, not the dice


def test_three_copies_of_one_agent_share_exactly_a_third():
    """Three copies of a deterministic agent: every deal splits 1/3 each (the copies are one agent,
    so the deal is one game, played once), and Student's interval over the deals has no width."""
    r = evaluate(agents=["heuristic"] * 3, ruleset="zonk", players=3, games=60, workers=1, solo_turns=0,
                 orders="permutations")
    t = r.data["tables"][0]
    assert t["games"] == 60 and t["deals"] == 10 and t["games_played"] == 10
    for row in t["results"]:
        assert row["score_share"]["rate"] == pytest.approx(1 / 3, abs=1e-12)
        st = row["score_share_t"]
        assert st["rate"] == pytest.approx(1 / 3, abs=1e-12)
        assert st["low"] == pytest.approx(1 / 3, abs=1e-12) and st["high"] == pytest.approx(1 / 3, abs=1e-12)
    assert r.data["tables"][0]["seat_score_share"][0] != pytest.approx(1 / 3)  # seats differ, copies do not


def test_four_copies_on_the_batched_engine_share_a_quarter():
    r = evaluate(agents=["greedy"] * 4, ruleset="farkle", players=4, games=48, workers=1, solo_turns=0,
                 orders="permutations")
    t = r.data["tables"][0]
    assert t["engine"] == "batched" and t["games_played"] == 2
    assert [row["score_share"]["rate"] for row in t["results"]] == pytest.approx([0.25] * 4, abs=1e-12)


def test_draws_of_three_players_are_a_third_each():
    """Target 50, each player banks 50 at once: three-way ties happen, and the engine's result gives
    each tied player 1/3; the evaluation counts them as draws and adds 1/3 to the share."""
    rs = load_ruleset("zonk", {"target": 50, "entry_threshold": 0})
    orders = seat_orders(3, "permutations")
    ctx = _Context(rs, ["greedy:50", "greedy:50#", "greedy:50##"], seed=0,
                   agents=[GreedyMover(50), GreedyMover(50), GreedyMover(50)])
    out = _play_table_chunk(ctx, (0, 1, 2), orders, 0, 100)
    res = out["result"]
    assert np.allclose(res.sum(axis=1), 1.0)
    values = set(np.round(res.ravel(), 12))
    assert values <= {0.0, round(1 / 3, 12), 0.5, 1.0}
    assert (np.isclose(res, 1 / 3).all(axis=1)).sum() > 0  # some three-way draws
    r = evaluate(agents=[GreedyMover(50), GreedyMover(50), GreedyMover(50)], ruleset=rs, players=3, games=600,
                 workers=1, solo_turns=0, engine="single")
    row = r.data["tables"][0]["results"][0]
    assert row["draws"] == int(((res[:, 0] > 0) & (res[:, 0] < 1)).sum())
    assert row["score_share"]["rate"] == pytest.approx(res[:, 0].mean())


def test_orders_that_repeat_a_game_are_played_once_with_the_same_results(monkeypatch):
    """One agent against copies: N of the N! orders differ; the results rebuilt from them equal those
    of playing every order (single-game and batched engine, random players included: their decision
    streams are the seat's)."""
    import agents.evaluate.run as run

    distinct, source, position = distinct_orders(["a", "h", "h", "h"], seat_orders(4, "permutations"))
    assert len(distinct) == 4 and len(source) == 24
    for kw in (dict(agents=["ppo:checkpoints/zonk", "heuristic", "heuristic"], ruleset="zonk"),
               dict(agents=["greedy:500", "greedy", "greedy"], ruleset="farkle"),
               dict(agents=["greedy", "random", "random"], ruleset="zonk")):  # the kernels' random streams
        kw.update(players=3, games=60, seed=4, workers=1, solo_turns=0, orders="permutations")
        fast = evaluate(**kw)
        assert fast.data["tables"][0]["games_played"] == 30
        with monkeypatch.context() as m:
            m.setattr(run, "distinct_orders", lambda keys, orders: distinct_orders(list(range(len(keys))), orders))
            slow = evaluate(**kw)
        assert slow.data["tables"][0]["games_played"] == 60
        a, b = fast.results(), slow.results()
        for t in a["tables"] + b["tables"]:
            t.pop("games_played")
        assert json.dumps(a, default=float) == json.dumps(b, default=float)


def test_expand_orders_puts_each_position_in_its_seat():
    """Two copies (positions 1, 2) of one agent: the order (0, 2, 1) is the game of (0, 1, 2) with the
    copies' rows swapped."""
    orders = [(0, 1, 2), (0, 2, 1)]
    distinct, source, position = distinct_orders(["a", "h", "h"], orders)
    assert distinct == [(0, 1, 2)] and list(source) == [0, 0]
    played = {"score": np.array([[10, 20, 30]]), "seat": np.array([[0, 1, 2]]), "length": np.array([7])}
    out = expand_orders(played, 1, source, position)
    assert out["score"].tolist() == [[10, 20, 30], [10, 30, 20]]
    assert out["seat"].tolist() == [[0, 1, 2], [0, 2, 1]]  # position 1 sits in seat 2 in order (0, 2, 1)
    assert out["length"].tolist() == [7, 7]


def test_share_interval_covers_the_truth_and_matches_wilson():
    """Synthetic deals of three seat orders with a deal effect (the agent's chance varies by deal,
    mean 0.36): Student's t interval over the per-deal means covers the truth about 95% of the time,
    and the report's Wilson interval on the effective number of games (its variance that of the
    per-deal means) nearly coincides with it."""
    rng = np.random.default_rng(0)
    truth, hits_t, hits_w, widths = 0.36, 0, 0, []
    reps = 400
    for _ in range(reps):
        p = rng.beta(0.36 * 6, 0.64 * 6, size=(300, 1))  # mean 0.36
        x = (rng.random((300, 3)) < p).astype(float)
        cm = stats.cluster_mean(x)
        rate, lo, hi, _ = stats.clustered_wilson(x, min_deff=1 / x.size)
        hits_t += cm.low <= truth <= cm.high
        hits_w += lo <= truth <= hi
        widths.append(((cm.high - cm.low), (hi - lo)))
        assert cm.mean == pytest.approx(rate)
    assert 0.92 <= hits_t / reps <= 0.98
    assert 0.92 <= hits_w / reps <= 0.98
    w = np.array(widths)
    assert np.allclose(w[:, 0], w[:, 1], rtol=0.02)


def test_report_gives_student_interval_over_the_deals():
    r = evaluate(agents=["optimal-turn", "greedy", "greedy"], ruleset="zonk", players=3, games=600, workers=1,
                 solo_turns=0)
    row = r.data["tables"][0]["results"][0]
    st, sw = row["score_share_t"], row["score_share"]
    assert st["deals"] == 100 and st["low"] < st["rate"] < st["high"]
    assert st["rate"] == pytest.approx(sw["rate"])
    assert st["high"] - st["low"] == pytest.approx(sw["high"] - sw["low"], rel=0.05)
    assert "1/k each" in r.markdown() and "33.3% = a fair share at 3 players" in r.markdown()


@pytest.mark.parametrize("players", [3, 4])
def test_two_player_agents_play_bigger_tables(players):
    """The shipped win and score agents were trained for two and one players; their observation holds
    six player blocks, so they play 3- and 4-player tables."""
    r = evaluate(agents=["ppo:checkpoints/zonk", "ppo:checkpoints/zonk-score"] + ["heuristic"] * (players - 2),
                 ruleset="zonk", players=players, games=2 * math.factorial(players), workers=1, solo_turns=0)
    assert r.data["tables"][0]["games"] == 2 * math.factorial(players)
    assert sum(row["score_share"]["rate"] for row in r.data["tables"][0]["results"]) == pytest.approx(1.0)


def test_optimal_win_refuses_four_players_by_name():
    """optimal-win plays two and three players (agents.solver.multi); no solver solves four."""
    with pytest.raises(UnsupportedRulesError, match="'optimal-win' cannot play 4-player games"):
        evaluate(agents=["optimal-win", "heuristic", "heuristic", "heuristic"], ruleset="zonk", players=4, games=24,
                 workers=1, solo_turns=0)



def test_for_one_agent_against_copies_rotations_and_permutations_agree():
    """One agent against copies: the rotations are exactly the distinct games of the permutations, so
    the agent's per-deal shares, hence its results, are the same for the same deals (what lets
    train/report.py keep rotations there: ``games`` then buys (N-1)! times more deals). The copies'
    own rows differ: under rotations the first copy always moves just after the agent."""
    kw = dict(agents=["greedy:500", "greedy", "greedy"], ruleset="zonk", players=3, seed=2, workers=1,
              solo_turns=0)
    rot, perm = evaluate(games=300, orders="rotations", **kw), evaluate(games=600, orders="permutations", **kw)
    assert rot.data["tables"][0]["deals"] == perm.data["tables"][0]["deals"] == 100
    a, p = rot.data["tables"][0]["results"][0], perm.data["tables"][0]["results"][0]
    assert a["score_share_t"] == pytest.approx(p["score_share_t"])
    assert a["mean_score"] == pytest.approx(p["mean_score"]) and a["wins"] * 2 == p["wins"]
    c1, c2 = perm.data["tables"][0]["results"][1:]
    assert c1["score_share"]["rate"] == c2["score_share"]["rate"]  # permutations mirror the copies
