"""The game of two or three players under overcoming, and of three without it (agents.solver.multi):
the turn DP's followed value and resumed rows, the two-player game it must reproduce, its values
against games played by its own policy, its last turns, the rules it refuses, and optimal-win on it."""

from __future__ import annotations

import numpy as np
import pytest

from agents.solver import game_kernels as K
from agents.solver import multi_kernels as M
from agents.solver import multi as MS
from zilch_env import GameState, UnsupportedRulesError, load_ruleset, play_game

#: A loose final cap keeps the last turns' tables small: the solves here take seconds.
EPS = 1e-3
#: The tail where the tests compare with self-play (an interval of about 0.05) or with the table's own
#: turns: the last turns (most of a solve) take a third to a quarter of the time at 5e-2 that they take
#: at 1e-2 (two players: zonk to 1,000 under overcoming, 1.1 s against 3.2 s), and the start values
#: move by about 2e-4 (two players) and 5e-4 (three), a hundredth of that interval.
FAST_EPS = 5e-2


@pytest.fixture(scope="module")
def three_over(shared_solves):
    """Zilch to 1,000 with overcoming, three players (tests/train/test_teach.py labels games by the
    same table: solved once per run)."""
    rs = load_ruleset("zilch", {"target": 1000, "variants.overcoming": True})
    return MS.solve_multi(rs, 3, directory=shared_solves, progress=False, tail_eps=FAST_EPS)


def _turn(rs_name: str, **over):
    """(ip, rt tuple, p_allonly) of a ruleset, for the kernels."""
    from agents.solver.game_table import _params
    from agents.solver.roll_classes import game_unit, roll_tables

    rs = load_ruleset(rs_name, over)
    rt = roll_tables(rs, game_unit(rs))
    ip = _params(rs, rt, 60)
    return ip, rt.as_tuple(int(ip[K.IP_NP]), rs.dice), rt.p_allonly


@pytest.mark.parametrize("name", ["zilch", "zonk", "zilch15k"])
def test_the_followed_value_and_the_resumed_rows(name):
    """turn_dp follows a second value under the policy it chooses: following the value itself gives the
    value, and following 0 and [1, 0, ...] gives its derivative with respect to Zv[0] (the two-player
    solver's Newton step). Resumed below a bar, the DP equals a DP solved whole under that bar."""
    ip, rtt, pa = _turn(name)
    rng = np.random.default_rng(5)
    tcap, NP = 70, int(ip[K.IP_NP])
    B = np.sort(rng.random(tcap + 1))
    B[:3] = 0.0
    Zv = np.sort(rng.random(NP)) * 0.3
    empty = np.zeros(0)

    def run(thr, fB, fZ, t_top=-1, bufs=None):
        b = bufs if bufs is not None else M.buffers(tcap, ip, True)
        _, _, _, _, Q, C, dQ, dC = b
        return M.dp(tcap, thr, 40, ip, rtt, pa, B, Zv, fB, fZ, Q, C, dQ, dC, t_top, True), b

    (v, w), _ = run(1, B, Zv)
    assert w == pytest.approx(v, abs=1e-12) and 0 < v < 1
    (v0, d0), _ = run(1, empty, empty)
    e0 = np.zeros(NP)
    e0[0] = 1.0
    (v1, d1), _ = run(1, np.zeros(tcap + 1), e0)
    assert (v1, d1) == pytest.approx((v0, d0), abs=1e-12) and 0 < d0 < 1
    fB, fZ = rng.random(tcap + 1), rng.random(NP)
    (vb, wb), bufs = run(1, fB, fZ)
    for bar in (5, 12, 30):
        (vr, wr), bufs = run(bar + 1, fB, fZ, bar, bufs)  # resumed from the rows of the last DP
        (vf, wf), _ = run(bar + 1, fB, fZ)
        assert (vr, wr) == pytest.approx((vf, wf), abs=1e-12)
        assert vr <= vb + 1e-12  # a bar only forbids banks


@pytest.mark.parametrize("name", ["zilch", "zonk"])
def test_two_players_without_overcoming_is_the_two_player_solvers_game(name, monkeypatch, tmp_path):
    """Solved as a game of two with bar 0 (the multi-player solver refuses this case only because
    agents.solver.game solves it), every race value is the two-player solver's, to the final cap's tail."""
    from agents.solver.game import solve_game

    rs = load_ruleset(name, {"target": 800})
    monkeypatch.setattr(MS, "check_multi_supported", lambda rs, players: None)
    multi = MS.solve_multi(rs, 2, cache=False, progress=False, tail_eps=EPS)
    two = solve_game(rs, cache=False, progress=False)
    scores = [0] + list(range(rs.entry_threshold, rs.target, 50))
    worst = max(abs(multi.start_values([a, b])[0] - two.race_value(0, a, a > 0, 0, b, b > 0, 0))
                for a in scores for b in scores)
    assert worst < 2 * EPS


def _self_play(table, games: int, seed: int) -> np.ndarray:
    class Solved:
        name = "solved"

        def act(self, st, legal, rng):
            return table.best_action(st, legal)

    total = np.zeros(table.players)
    for g in range(games):
        st = GameState(table.ruleset, num_players=table.players, seed=seed + g)
        play_game(st, [Solved()] * table.players)
        total += st.result()
    return total / games


def test_the_values_are_what_its_policy_wins(three_over):
    """Every seat's win chance at the game's start is what the table's own policy, played by every
    seat, wins in real games (the engine's rules: overcoming's bar, the last turns, draws shared)."""
    want = three_over.start_values([0, 0, 0], [False] * 3)
    assert want[0] > want[1] > want[2]  # the first to play has the edge
    games = 1500
    got = _self_play(three_over, games, 100)
    assert np.abs(got - want).max() < 4 * np.sqrt(0.25 / games)


def test_two_players_under_overcoming(tmp_path):
    """Two players under overcoming: the values are what the policy wins, and a bar forbids banks."""
    rs = load_ruleset("zonk", {"target": 1000, "variants.overcoming": True})
    t = MS.solve_multi(rs, 2, directory=tmp_path, progress=False, tail_eps=FAST_EPS)
    want = t.start_values([0, 0], [False, False])
    got = _self_play(t, 1500, 7)
    assert np.abs(got - want).max() < 4 * np.sqrt(0.25 / 1500)
    # a higher bar forbids more banks: never better for the mover, and worse once it binds
    for scores in ([0, 0], [500, 0], [0, 500]):
        on = [s > 0 for s in scores]
        v = [t.start_values(scores, on, bar=b)[0] for b in range(0, 1050, 50)]
        assert all(x >= y - 1e-7 for x, y in zip(v, v[1:])) and v[-1] < v[0] - 0.005
    again = MS.solve_multi(rs, 2, directory=tmp_path, progress=False, tail_eps=FAST_EPS)
    assert again.path == t.path and np.array_equal(again.W0, t.W0, equal_nan=True)  # from the cache


@pytest.mark.parametrize("name, over, players, eps", [
    ("zilch", {"target": 800}, 3, 0.2),
    ("zilch", {"target": 800, "variants.overcoming": True}, 2, 0.2),
    ("zonk", {"target": 700, "variants.overcoming": True}, 3, 0.3),
])
def test_eight_tuples_side_by_side_are_the_tuples_alone(name, over, players, eps, monkeypatch):
    """The solve that runs the Gauss-Seidel passes of eight score tuples in step, their turns side by
    side (lanes), gives every value of the solve that takes the tuples one at a time, bit for bit.
    The last turns' tables, which the lanes do not touch (most of these solves' time), are solved by
    the first solve and copied in the second."""
    tables = {}
    for kernel in ("last_tables", "second_tables"):
        def once(ip, mp, rt, p_allonly, *arrays, kernel=kernel, solve=getattr(M, kernel)):
            *_, a, b = arrays  # the two tables it fills (LV, LW; F3a, F3b)
            if kernel not in tables:
                solve(ip, mp, rt, p_allonly, *arrays)
                tables[kernel] = (ip.copy(), mp.copy(), a.copy(), b.copy())
            ip0, mp0, a0, b0 = tables[kernel]
            assert np.array_equal(ip, ip0) and np.array_equal(mp, mp0)  # the same game
            a[...], b[...] = a0, b0

        monkeypatch.setattr(M, kernel, once)
    rs = load_ruleset(name, over)
    one = MS.solve_multi(rs, players, cache=False, progress=False, tail_eps=eps, lanes=False)
    eight = MS.solve_multi(rs, players, cache=False, progress=False, tail_eps=eps, lanes=True)
    assert np.array_equal(one.W0, eight.W0, equal_nan=True) and np.array_equal(one.W1, eight.W1, equal_nan=True)
    assert one.meta["turn_dps"] == eight.meta["turn_dps"]
    assert np.isfinite(eight.W0).sum() > 100  # tuples of both rotation counts solved


def test_every_stored_value_is_its_turn_solved_alone(three_over):
    """A race state's stored values (its bar's turn resumed from the bar-0 turn's rows, inside the solve)
    are its turn solved alone from the table; so are the next player's last turns under a result above
    the target (the turn that reached it: their bar)."""
    t = three_over
    rng = np.random.default_rng(8)
    ns, nb = int(t.ip[K.IP_NS]), int(t.mp[M.MP_NB])
    valid = [0] + list(range(1 + t.ruleset.entry_threshold // t.unit, ns))
    for _ in range(60):
        ia, ib, ic = rng.choice(valid, 3)
        bar = int(rng.integers(0, nb))
        sid = int(M.encode(ia, ib, ic, bar, t.ip, t.mp))
        tv = t._solve_turn(("race", int(ia), int(ib), int(ic), bar), 0, True)
        assert float(tv.C[t.ruleset.dice]) == pytest.approx(float(t.W0[sid]), abs=1e-6)
    rb = int(t.mp[M.MP_RB])
    assert rb > int(t.ip[K.IP_TU])  # results above the target are bars of their own
    for dB, dC, r in [(12, 20, 30), (3, 5, rb), (20, 2, 25)]:
        v = t.start_value(("second", dB, dC, r, True, 1))
        assert v == pytest.approx(float(t.F3b[1, 1, dB, dC, r]), abs=1e-6)


def test_the_last_turns_are_the_games_situations(three_over):
    """In the final round the situations are the next player's turn knowing who follows ("second")
    and the last turn ("last"), and their values are the tables' the race reads."""
    t = three_over
    u = t.unit
    # seat 0 reached 1,100 with a turn of 300; seat 1 (600) plays, then seat 2 (700)
    sit = t.situation_of(1, [1100, 600, 700], [True] * 3, [1, 2], 300)
    assert sit == ("second", 500 // u, 400 // u, 300 // u, True, 1)
    v = t.start_value(sit)
    df = int(t.mp[M.MP_DF])
    assert v == pytest.approx(float(t.F3b[1, 1, min(10, df), min(8, df), 6]), abs=1e-6)
    # seat 1 banked 550 to 1,150: seat 2 must end above 1,150 with a bank above 550
    sit = t.situation_of(2, [1100, 1150, 700], [True] * 3, [2], 550)
    assert sit == ("last", 450 // u, 550 // u, 0, True)
    one_tied = t.situation_of(2, [1150, 1150, 700], [True] * 3, [2], 0)
    assert one_tied[3] == 1  # a tie at the top of three is worth a third
    assert t.start_value(sit) == pytest.approx(float(t.LV[1, 0, 9, 11]), abs=1e-6)


def test_impossible_scores_are_named(three_over):
    with pytest.raises(ValueError, match="on the board: off the board a score is 0, on it at least"):
        three_over.start_values([100, 0, 0], [True, False, False])


@pytest.mark.parametrize("over, players, says", [
    ({"end": "finish_round"}, 3, "end = 'finish_round'"),
    ({"tie": "tiebreak"}, 3, "tie = 'tiebreak'"),
    ({"variants.piggyback": True}, 3, "piggyback"),
    ({"variants.zilch_penalty.count": 3, "variants.zilch_penalty.points": 500}, 3, "zilch streaks"),
    ({}, 4, "2 or 3 players"),
    ({}, 2, "agents.solver.game solves that game"),
    ({"target": 5000, "variants.overcoming": True}, 3, "turn-DP rows"),
    ({}, 3, "turn-DP rows"),  # zonk to 10,000 without overcoming
])
def test_rules_it_does_not_solve_are_named(over, players, says):
    with pytest.raises(UnsupportedRulesError, match=says):
        MS.solve_multi(load_ruleset("zonk", over), players, cache=False, progress=False)


def test_optimal_win_plays_games_of_three_and_overcoming(monkeypatch, three_over):
    """optimal-win plays a three-player game (and a two-player game under overcoming) from the multi-player
    solver's table; rules no solver solves are refused naming both solvers' reasons."""
    from agents.base import make_agent

    monkeypatch.setattr(MS, "solve_multi", lambda rs, players: three_over)
    agent = make_agent("optimal-win", three_over.ruleset)
    assert agent.table is None  # no two-player table under overcoming
    st = GameState(three_over.ruleset, num_players=3, seed=4)
    play_game(st, [agent] * 3)
    assert st.done
    with pytest.raises(UnsupportedRulesError, match="no solver solves these rules"):
        make_agent("optimal-win", load_ruleset("farkle", {"variants.overcoming": True}))


def test_cli_solves_three_players(tmp_path, monkeypatch, capsys):
    """zilch solve --objective win --players 3: each seat's chance at the start, from the cache the second time;
    --players without the win objective is refused."""
    import json

    from zilch_cli import main

    monkeypatch.setenv("ZILCH_SOLVER_CACHE", str(tmp_path))
    # three dice: the same commands in 0.2 s (six dice, to 600: 7 s, nearly all the last turns' tables)
    rules = ["--ruleset", "zilch", "--set", "target=600", "--set", "dice=3"]
    assert main(["solve", *rules, "--objective", "win", "--players", "3", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert not first["loaded_from_cache"] and first["table"].startswith(str(tmp_path))
    assert sum(first["start"]) == pytest.approx(1.0) and first["start"][0] > first["start"][2]
    assert main(["solve", *rules, "--objective", "win", "--players", "3"]) == 0
    text = capsys.readouterr().out
    assert "loaded from the cache" in text and f"{first['start'][0]:.5f}" in text
    assert main(["solve", *rules, "--players", "3"]) == 2
    assert "only with --objective win" in capsys.readouterr().err


def test_cli_rows_are_scores_a_player_can_have(tmp_path, monkeypatch, capsys):
    """A target below the entry threshold (zilch's 500): the only score a player can have at a turn's
    start is 0 (on the board means at least 500), so the printed table has that row alone, for three
    players, two under overcoming and the two-player game solver alike."""
    import json

    from zilch_cli import main

    monkeypatch.setenv("ZILCH_SOLVER_CACHE", str(tmp_path))
    rules = ["--ruleset", "zilch", "--set", "target=300", "--set", "dice=2", "--objective", "win", "--json"]
    for more, key, zero in ((["--players", "3"], "win_chances_at_turn_start", "0 0 0"),
                            (["--players", "2", "--set", "variants.overcoming=true"], "win_chances_at_turn_start", "0 0"),
                            ([], "win_chance_at_turn_start", "0")):
        assert main(["solve", *rules, *more]) == 0, more
        rows = json.loads(capsys.readouterr().out)[key]
        assert list(rows) == [zero], (more, rows)
