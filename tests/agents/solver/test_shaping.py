"""Reward shaping with the solved game: ``agents.solver.win_shaping.WinPotential`` and the batched VecEnv's
``potential`` (``train/ppo.py --shaping optimal-win``)."""

from __future__ import annotations

import numpy as np
import pytest

from zilch_env import load_ruleset
from zilch_env.engine.batched import BatchedGames
from zilch_env.envs.vec_env import BatchedZilchVecEnv

from agents.solver.game import GameTable
from agents.solver.win_shaping import WinPotential


@pytest.fixture(scope="module")
def small(solve_once) -> GameTable:
    return solve_once(load_ruleset("zonk", {"target": 1000}))


def test_potential_is_the_table_value_for_both_seats(small):
    rs = small.ruleset
    phi = WinPotential(rs, small, per="turn")
    dense = WinPotential(rs, small)
    games = BatchedGames(rs, 64, 2, seed=3)
    games.reset(first=np.arange(64) % 2)
    rows = np.arange(64)
    rng = np.random.default_rng(0)
    kinds = set()
    for _ in range(400):
        live = rows[~games.done]
        if not live.size:
            break
        p0, p1 = phi(games, live, np.zeros(live.size, int)), phi(games, live, np.ones(live.size, int))
        np.testing.assert_allclose(p0 + p1, 1.0, atol=1e-6)  # a draw counts half for each side
        for b, v in zip(live.tolist(), p0.tolist()):
            s = games.snapshot(b)
            me = s["current"]
            sit = small.situation_of(me, int(games.first[b]), s["scores"], s["on_board"], s["zilch_streak"],
                                     s["final_queue"], s["tiebreak_players"], int(games.tiebreak_round[b]))
            kinds.add(sit[0])
            # per decision: the best choice's value after this roll (the cut-free choices agree)
            roll = [f for f in games.rolls[b].tolist() if f]
            best = small.choices(sit, roll, s["turn_total"], s["permanent"])[0]["value"]
            d = dense(games, np.array([b]), np.array([me]))[0]
            assert abs(d - best) < 1e-6
            if sit[0] == "race":
                w = small.race_value((me - int(games.first[b])) % 2, s["scores"][me], s["on_board"][me],
                                     s["zilch_streak"][me], s["scores"][1 - me], s["on_board"][1 - me],
                                     s["zilch_streak"][1 - me])
                assert abs((w if me == 0 else 1 - w) - v) < 1e-6
        masks = games.legal_masks()
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        games.step(acts)
    assert kinds == {"race", "bar"}  # both the race and the last turn were met
    over = rows[games.done]
    assert over.size
    res = phi(games, over, np.zeros(over.size, int))
    win = games.winners[over]
    np.testing.assert_array_equal(res, np.where(win[:, 0], np.where(win.all(axis=1), 0.5, 1.0), 0.0))


def test_last_turn_start_value_is_the_last_turn_table(small):
    """A last turn's start value (a turn DP of its own) equals the solver's last-turn table F."""
    for d in (0, 3, 10, 25):
        for on in (True,):
            v = small.start_value(("bar", d, small.tie_value(1), on, False))
            assert abs(v - small.F[0, int(on), 0, d]) < 1e-6
    start = small.race_situation(0, 0, on_board=False, opp_on_board=False)  # zonk has an entry threshold
    assert small.start_value(start) == pytest.approx(small.first_player_win, abs=1e-7)


def _relative(games, rows, seats):
    """A test potential: the seat's lead in points / 10,000."""
    sc = games.scores
    return (sc[rows, seats] - sc[rows, 1 - seats]) / 10_000.0


def test_vec_env_pays_each_turn_its_change_read_before_the_opponent_moves():
    venv = BatchedZilchVecEnv("zonk", num_envs=16, num_players=2, seed=4, opponent="greedy", potential=_relative)
    venv.reset()
    rng = np.random.default_rng(1)
    paid = 0
    for _ in range(600):
        masks = venv.action_masks()
        obs, rew, done, infos = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        for i, info in enumerate(infos):
            # the agent's own banked points only: the opponent's turn, played in the same step,
            # comes after the value at the end of the agent's turn was read
            assert rew[i] == pytest.approx(2 * info.get("turn_points", 0) / 10_000.0, abs=1e-6)
            paid += rew[i] != 0
    assert paid > 50


def _with_turn_total(games, rows, seats):
    """A test potential: the seat's lead plus its turn total when it is to decide, / 10,000."""
    sc = games.scores
    mine = (games.current[rows] == seats) & (games.phase[rows] == 2)
    return (sc[rows, seats] - sc[rows, 1 - seats] + np.where(mine, games.turn_total[rows], 0)) / 10_000.0


def test_vec_env_pays_every_move_and_a_turn_adds_up_to_its_points():
    venv = BatchedZilchVecEnv("farkle", num_envs=16, num_players=2, seed=5, opponent="greedy",
                              potential=_with_turn_total)
    venv.reset()
    rng = np.random.default_rng(2)
    acc = np.zeros(16)
    turns = within = 0
    for _ in range(800):
        masks = venv.action_masks()
        total_before = venv.games.turn_total.copy()
        obs, rew, done, infos = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        acc += rew
        for i, info in enumerate(infos):
            if "turn_points" in info or done[i]:
                if "turn_points" in info and info["turn_points"] > 0:  # a banked turn: the moves' sum
                    assert acc[i] == pytest.approx(2 * info["turn_points"] / 10_000.0, abs=1e-5)
                    turns += 1
                acc[i] = 0.0
            elif rew[i] != 0:
                within += 1  # paid inside the turn: the turn total grew
                assert rew[i] == pytest.approx(2 * (venv.games.turn_total[i] - total_before[i]) / 10_000.0,
                                               abs=1e-5)
    assert turns > 30 and within > 30


def _optimal_actions(table, venv):
    g = venv.games
    acts = np.zeros(venv.num_envs, dtype=np.int64)
    for b in range(venv.num_envs):
        s = g.snapshot(b)
        sit = table.situation_of(s["current"], int(g.first[b]), s["scores"], s["on_board"], s["zilch_streak"],
                                 s["final_queue"], s["tiebreak_players"], int(g.tiebreak_round[b]))
        roll = [f for f in g.rolls[b].tolist() if f]
        acts[b] = table.choices(sit, roll, s["turn_total"], s["permanent"])[0]["action"]
    return acts


def test_regret_shaping_pays_optimal_moves_nothing_and_others_their_regret(small):
    """``luck=False``: a move is paid the expected change of the win chance it makes, read before any
    dice: exactly 0 for optimal-win's moves, below 0 for a move that banks where rolling on is better."""
    rs = small.ruleset
    pot = WinPotential(rs, small)
    asked = []

    def spy(situation, tmin=0, cut=True):
        asked.append(cut)
        return GameTable.turn_values(small, situation, tmin, cut)

    for policy in ("optimal", "bank-early", "roll-on"):
        asked.clear()
        venv = BatchedZilchVecEnv(rs, num_envs=16, num_players=2, seed=6, opponent="greedy", potential=pot,
                                  luck=False)
        venv.reset()
        paid, games = [], 0
        for _ in range(250):
            masks = venv.action_masks()
            a = _optimal_actions(small, venv)
            if policy == "bank-early":
                a = np.where(masks[np.arange(16), a | 1], a | 1, a)
            elif policy == "roll-on":  # never bank where rolling on is legal, even past the target
                a = np.where(masks[np.arange(16), a & ~1], a & ~1, a)
            small.turn_values = spy  # the cut flags the potential asks for, during the step only
            try:
                obs, rew, done, infos = venv.step(a)
            finally:
                del small.turn_values
            paid.extend(rew.tolist())
            games += sum("winners" in i for i in infos)
        paid = np.array(paid)
        assert games > 20
        if policy == "optimal":
            assert np.abs(paid).max() < 1e-6
        else:
            assert paid.max() < 1e-6 and paid.mean() < -0.01
        # the potential reads turns solved with the end-zone cut; rolling on where banking is
        # provably better (only "roll-on" does) falls back to the turn solved without it
        assert asked and (False in asked) == (policy == "roll-on")


def test_potential_needs_the_win_reward():
    with pytest.raises(ValueError, match="per = 'move'"):
        WinPotential("zonk", per="move")
    with pytest.raises(ValueError, match="reward='win' only"):
        BatchedZilchVecEnv("zonk", num_envs=2, reward="score", potential=_relative)
    with pytest.raises(ValueError, match="a callable"):
        BatchedZilchVecEnv("zonk", num_envs=2, potential=3)


def test_training_shaping_choices(tmp_path):
    from train import ppo

    zonk = load_ruleset("zonk")
    args = ppo.parse_args([])
    assert ppo.resolve_auto(args, zonk, ["optimal-turn", "self"]).shaping == "regret"  # shipped table
    assert ppo.resolve_auto(args, zonk, ["heuristic"]).shaping == "none"  # dummy envs
    assert ppo.resolve_auto(ppo.parse_args(["--objective", "score"]), zonk, []).shaping == "none"
    assert ppo.resolve_auto(args, load_ruleset("zonk", {"target": 1000}), ["self"]).shaping == "none"  # no table
    with pytest.raises(SystemExit, match="needs --vec batched"):
        ppo.resolve_auto(ppo.parse_args(["--shaping", "decisions", "--vec", "dummy"]), zonk, ["self"])
    with pytest.raises(SystemExit, match="2 players only"):
        ppo.resolve_auto(ppo.parse_args(["--shaping", "turns", "--players", "3"]), zonk, ["self"])


def _fresh(table: GameTable) -> GameTable:
    """The same solved game with an empty turn cache."""
    return GameTable(table.ruleset, table.unit, table.ip, table.W, table.F, table.G, table.TB0)


def test_prefetch_solves_what_is_missing_once_with_the_serial_values(small):
    tab = _fresh(small)
    sits = [("race", int(s)) for s in np.flatnonzero(small.W > 0)[:40:4]] + [("bar", 3, 0.5, True, False)]
    reqs = [(s, tab.stable_cap(s)) for s in sits]
    assert tab.prefetch(reqs + reqs[:3], threads=2) == len(sits)  # asked twice, solved once
    assert tab.prefetch(reqs, threads=2) == 0
    for s, tmin in reqs:
        a = tab.turn_values(s, tmin)
        b = small._solve_turn(s, tmin, True)
        assert (a.tcap, a.thr) == (b.tcap, b.thr)
        np.testing.assert_array_equal(a.B, b.B)
        np.testing.assert_array_equal(a.C, b.C)


def test_potential_threads_do_not_change_what_is_paid(small):
    rs = small.ruleset
    paid, solved = {}, {}
    for threads in (1, 2):
        tab = _fresh(small)
        venv = BatchedZilchVecEnv(rs, num_envs=16, num_players=2, seed=4, opponent="greedy",
                                  potential=WinPotential(rs, tab, threads=threads), luck=False)
        venv.reset()
        rng = np.random.default_rng(1)
        rews = []
        for _ in range(150):
            masks = venv.action_masks()
            _, rew, _, _ = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
            rews.append(rew)
        paid[threads], solved[threads] = np.concatenate(rews), list(tab._cache)
    assert len(solved[1]) > 10
    np.testing.assert_array_equal(paid[1], paid[2])
    assert solved[1] == solved[2]  # the same turns, cached in the same order
    with pytest.raises(ValueError, match="threads = 0"):
        WinPotential(rs, small, threads=0)


def test_training_shaping_cache_size(monkeypatch):
    """--shaping-cache-mb as asked, else $ZILCH_WIN_CACHE_MB, else a quarter of the available memory
    within [512, 4000] MB; a negative size is refused by name."""
    from train import ppo

    monkeypatch.delenv("ZILCH_WIN_CACHE_MB", raising=False)
    assert ppo.shaping_cache_mb(700) == 700.0
    pages = {"SC_PAGE_SIZE": 4096}
    monkeypatch.setattr(ppo.os, "sysconf", lambda name: pages.get(name, pages["avail"]))
    for avail_mb, want in ((1000, 512.0), (8000, 2000.0), (100_000, 4000.0)):
        pages["avail"] = int(avail_mb * 1e6 / 4096)
        assert ppo.shaping_cache_mb(0) == pytest.approx(want, rel=1e-3)
    monkeypatch.setenv("ZILCH_WIN_CACHE_MB", "1234")
    assert ppo.shaping_cache_mb(0) == 1234.0
    with pytest.raises(SystemExit):
        ppo.parse_args(["--shaping-cache-mb", "-1"])
