"""One batch of many rulesets and player counts: every game of a mixed batch plays exactly as it
does in a batch of its rules alone (same dice keys, same actions): the same state, legal actions and
observations after every step. The batch of one ruleset is held to the single-game engine by
``test_batched.py``, so this holds the mixed batch to it too."""

from __future__ import annotations

import numpy as np
import pytest

from zilch_env.engine import kernels as K

from zilch_env.engine import layout as L
from zilch_env.players import agent_kernels as AK
from zilch_env import load_ruleset
from zilch_env.engine.batched import BatchedGames, stream_keys

#: (preset, overrides, players): variants alone and together, other targets, 1 to 4 players.
ENTRIES = [
    ("zonk", {}, 2),
    ("farkle", {"variants.piggyback": True, "variants.challenge": True, "variants.overcoming": True}, 3),
    ("zilch", {"variants.pyramiding": True, "target": 3000}, 4),
    ("farkle-basic", {"end": "instant", "score_floor": -1000, "variants.zilch_penalty.count": 2,
                      "variants.zilch_penalty.points": 500}, 2),
    ("zilch15k", {"scoring.partial_straights": {"12345": 500, "23456": 750}, "tie": "tiebreak",
                  "end": "finish_round", "target": 2000}, 3),
    ("zonk20k", {"variants.six_dice_zilch_bonus": 500, "hot_dice": "forced"}, 1),
]


def _rulesets():
    return [load_ruleset(name, overrides) for name, overrides, _ in ENTRIES], [n for *_, n in ENTRIES]


def test_mixed_batch_plays_each_game_as_its_own_rules_do():
    rulesets, players = _rulesets()
    R, G = len(rulesets), 36
    keys = stream_keys(7, G)
    ids = np.arange(G) % R
    mixed = BatchedGames(rulesets, G, players, dice_keys=keys)
    assert mixed.mixed and mixed.num_players == 4 and (mixed.rule_ids == ids).all()
    assert (mixed.players == np.array(players)[ids]).all()
    assert mixed._tabs.shape[0] < R  # rulesets that score alike (zonk, zonk20k) share one keep table
    alone = [BatchedGames(rulesets[r], int((ids == r).sum()), players[r], dice_keys=keys[ids == r])
             for r in range(R)]
    where = [np.flatnonzero(ids == r) for r in range(R)]
    rng = np.random.default_rng(3)
    steps = 0
    for step in range(3000):
        masks = mixed.legal_masks()
        obs = {}
        for r in range(R):
            rows, one = where[r], alone[r]
            n = players[r]
            a, b = mixed._st[rows][:, : L.RULES_ROW], one._st[:, : L.RULES_ROW]
            assert np.array_equal(a, b), f"step {step}: rules entry {r} ({ENTRIES[r][0]}) differs"
            assert np.array_equal(masks[rows], one.legal_masks()), f"step {step}: entry {r}'s legal actions"
            for seat in range(n):
                seats = np.full(rows.size, seat)
                obs[r, seat] = one.observe(seats)
                assert np.array_equal(mixed.observe(seats, rows=rows), obs[r, seat]), (
                    f"step {step}: entry {r}'s observation from seat {seat}")
        if mixed.done.all():
            break
        actions = np.zeros(G, dtype=np.int64)
        for b in range(G):
            legal = np.flatnonzero(masks[b])
            if legal.size:
                actions[b] = legal[rng.integers(legal.size)] if rng.random() < 0.7 else legal[-1]
        mixed.step(actions)
        for r in range(R):
            alone[r].step(actions[where[r]])
        steps += 1
    assert mixed.done.all() and steps > 50
    # new games under other rules: the rows' rules change at reset, and their dice streams go on
    mixed.reset(np.arange(6), rules=[5, 4, 3, 2, 1, 0])
    assert mixed.rule_ids[:6].tolist() == [5, 4, 3, 2, 1, 0] and not mixed.done[:6].any()


def test_mixed_batch_random_play_and_bad_input():
    rulesets, players = _rulesets()
    g = BatchedGames(rulesets, 64, players, seed=2)
    decisions, finished = g.play_random(400)
    assert decisions > 10000 and finished > 20
    with pytest.raises(ValueError, match="rules = 9: entries of this batch's rulesets, 0 to 5"):
        g.reset([0], rules=9)
    with pytest.raises(ValueError, match="2 counts for 6 rulesets"):
        BatchedGames(rulesets, 4, [2, 3])
    with pytest.raises(ValueError, match="first player is a seat"):
        g.reset([5], first=1)  # entry 5 has one player
    with pytest.raises(AttributeError, match="plays 6 rulesets"):
        g.ruleset
    before = g._st.copy()
    with pytest.raises(ValueError, match="first player is a seat"):
        g.reset([5, 0], first=1, rules=[5, 5])  # entry 5 has one player: nothing changes
    assert np.array_equal(g._st, before)
    with pytest.raises(ValueError, match="rules: 3 entries for 2 rows"):
        g.reset([0, 1], rules=[0, 1, 2])
    from agents.base import kernel_agent

    table = kernel_agent("optimal-turn", rulesets[0]).table
    with pytest.raises(ValueError, match="a turn-value table plays one ruleset"):
        g.value_actions(table)
    with pytest.raises(ValueError, match="a seat is 0 to the game's players - 1"):
        g.observe(3, rows=np.array([0]))  # entry 0 has two players


def test_vec_env_of_many_rulesets_seats_each_games_own_table_and_shapes_only_where_it_can():
    from zilch_env.players.kernel_agents import TableSet
    from zilch_env.envs.vec_env import BatchedZilchVecEnv

    from zilch_env import UnsupportedRulesError

    from agents.base import kernel_agent
    from agents.solver.win_shaping import RulesPotential

    rulesets, players = _rulesets()
    tables = []
    for rs in rulesets:  # the kernels' optimal-turn, where they play it
        try:
            tables.append(kernel_agent("optimal-turn", rs).table)
        except UnsupportedRulesError:
            tables.append(None)
    assert any(t is None for t in tables) and sum(t is not None for t in tables) >= 3
    ts = TableSet(tables)
    env = BatchedZilchVecEnv(rulesets, num_envs=24, num_players=players, seed=4, opponent=["greedy:350", ts])
    env.reset()
    for _ in range(400):
        rid = env.games.rule_ids
        for i in range(1, 24, 2):  # the TableSet envs: the table of the game's rules, greedy where none
            if tables[rid[i]] is None:
                assert env._kinds[i, 0] == 1 and env._thr[i, 0] == 300
            else:
                t = tables[rid[i]]
                assert env._kinds[i, 0] == 3
                policy = env._values[3][env._thr[i, 0], 0, 0]  # the packed policy it plays off the board
                assert env._values[2][policy, AK.V_N] == t.sizes[t.select[0, 0]]
        assert (env._kinds[0::2] == 1).all() and (env._thr[0::2] == 350).all()
        masks = env.action_masks()
        env.step(masks.argmax(axis=1))
    assert len(set(env.games.rule_ids.tolist())) > 2
    with pytest.raises(ValueError, match="give a TableSet"):
        BatchedZilchVecEnv(rulesets, num_envs=4, num_players=players, opponent=tables[0])
    wrong = TableSet(list(reversed(tables)))
    with pytest.raises(ValueError, match="was solved for"):
        BatchedZilchVecEnv(rulesets, num_envs=4, num_players=players, opponent=wrong)
    one = BatchedZilchVecEnv(rulesets[0], num_envs=2, seed=1, opponent=TableSet([tables[0]]))
    one.reset()
    assert (one._kinds == 3).all()  # one ruleset: its table plays, not the greedy fallback
    with pytest.raises(ValueError, match="reward = 'score'"):
        BatchedZilchVecEnv(rulesets, num_envs=4, num_players=players, reward="score")

    # regret shaping (luck=False) pays each move the change of the potential it makes: nothing under
    # a potential of 1/2 (the dice's luck and the result are never paid); a potential of NaN (rules
    # without one) leaves the game unshaped: exactly the rewards of no shaping at all
    class Half:
        def __call__(self, games, rows, seats):
            return np.full(len(rows), 0.5)

    two = [rs for rs, n in zip(rulesets, players) if n == 2]
    plain = BatchedZilchVecEnv(two, num_envs=16, num_players=2, seed=9, opponent="greedy")
    shaped = BatchedZilchVecEnv(two, num_envs=16, num_players=2, seed=9, opponent="greedy",
                                potential=RulesPotential([Half(), None]), luck=False)
    plain.reset(), shaped.reset()
    paid = 0.0
    for _ in range(600):
        rid = shaped.games.rule_ids.copy()
        assert np.array_equal(rid, plain.games.rule_ids)
        a = plain.action_masks().argmax(axis=1)
        _, r1, d1, _ = plain.step(a)
        _, r2, d2, _ = shaped.step(a)
        assert np.array_equal(d1, d2)
        assert np.array_equal(r1[rid == 1], r2[rid == 1]) and (r2[rid == 0] == 0).all()
        paid += np.abs(r2[rid == 1]).sum()
    assert paid > 5


def test_value_actions_of_a_table_set_play_each_games_own_table():
    """A TableSet's actions in a mixed batch are those of each game's own rules' table (the greedy
    mover where the entry is None), as in a batch of those rules alone."""
    from agents.base import kernel_agent
    from zilch_env.players.kernel_agents import TableSet

    entries = [("zonk", {"variants.piggyback": True}, 2), ("farkle", {"target": 3000}, 3), ("zilch", {}, 2)]
    rulesets = [load_ruleset(name, o) for name, o, _ in entries]
    players = [n for *_, n in entries]
    tables = [kernel_agent("optimal-turn", rulesets[0]).table, kernel_agent("optimal-turn", rulesets[1]).table, None]
    ts = TableSet(tables)
    R, G = len(rulesets), 24
    keys = stream_keys(11, G)
    ids = np.arange(G) % R
    mixed = BatchedGames(rulesets, G, players, dice_keys=keys)
    where = [np.flatnonzero(ids == r) for r in range(R)]
    alone = [BatchedGames(rulesets[r], where[r].size, players[r], dice_keys=keys[where[r]]) for r in range(R)]
    seen = {r: set() for r in range(R)}
    offers = 0
    for step in range(400):
        if mixed.done.all():
            break
        acts = mixed.value_actions(ts)
        offers += int((mixed._st[where[0], L.PHASE] == L.PIGGYBACK).sum())
        for r in range(R):
            own = alone[r].value_actions(tables[r]) if tables[r] is not None else alone[r].greedy_actions(300, 2)
            assert np.array_equal(acts[where[r]], own), f"step {step}: entry {r}"
            seen[r].update(np.flatnonzero(own >= 0).tolist())
            alone[r].step(own)
        mixed.step(acts)
    assert all(len(s) == where[r].size for r, s in seen.items())  # every game decided
    assert offers > 0  # the piggyback entry's offers were decided by its table
    with pytest.raises(ValueError, match="has 2 entries; this batch plays 3"):
        mixed.value_actions(TableSet(tables[:2]))
    with pytest.raises(ValueError, match="entry 1's table was solved for"):
        mixed.value_actions(TableSet([tables[0], tables[0], None]))
