"""The ``optimal-turn`` agent on the batched engine: its solved values (``agents.solver.turn_value_table``,
a ``zilch_env.engine.batched.TurnValueTable``) played in the kernels make the moves of ``OptimalTurnAgent`` on
the single-game engine, move for move, under every preset; evaluation tables with it run on the batched
engine; ``BatchedZilchVecEnv`` takes it as an opponent."""

from __future__ import annotations

import numpy as np
import pytest

from agents.evaluate import _Context, _kernel_or_none, _play_batch_chunk, _play_table_chunk, evaluate, seat_orders
from agents.solver import OptimalTurnAgent, turn_value_table
from zilch_env import PRESETS, GameState, UnsupportedRulesError, load_ruleset
from agents.evaluate.tournament import play_games
from zilch_env.engine.batched import (BatchedGames, KernelAgent, KeyedDice, TurnValueTable, builtin_kernel_agent, stream_keys)

BATCHABLE = ["zonk", "farkle", "zilch", "zilch5k", "farkle-basic", "zilch10k", "zilch15k", "zonk20k", "cardgames"]


def paired_games(rs, games: int, seed: int):
    """The table and the agent of ``rs``, and ``games`` two-player games in the batched engine and as
    GameStates, game g of both rolling the same keyed dice."""
    keys = stream_keys(seed, games)
    return (turn_value_table(rs), OptimalTurnAgent(rs), BatchedGames(rs, games, 2, dice_keys=keys),
            [GameState(rs, 2, dice=KeyedDice(k)) for k in keys])


def test_the_batchable_presets_are_all_covered():
    assert sorted(BATCHABLE) == sorted(PRESETS)


#: Deals (each played in both seat orders) per preset: 250 under the zilch penalties (streaks), the
#: two variants and zilch/zilch5k (targets of 5,000: the shortest games); 100 for the other presets,
#: without a penalty and to 10,000 or more, whose long games are most of the single-game engine's time
#: and still hold thousands of turns in 200 games (permanent straights and forced hot dice: zilch10k,
#: zilch15k; no entry threshold: cardgames).
DEALS = {"farkle": 250, "farkle-basic": 250, "zilch": 250, "zilch5k": 250, "zonk+piggyback+challenge": 250}


@pytest.mark.parametrize("preset", [*BATCHABLE, "zonk+piggyback+challenge"])
def test_evaluation_games_are_the_same_on_both_engines(preset):
    """500 evaluation games (250 deals in both seat orders; 200 games under the long presets without a
    penalty: DEALS) of optimal-turn against greedy, played by agents.evaluate on the single-game engine
    and on the batched engine: every game's scores, result, turns, points and zilches per agent, and length, are equal
    (off and on the board, every zilch streak, permanent straights, hot dice; the piggyback offers and
    the challenges it declines)."""
    name, *variants = preset.split("+")
    rs = load_ruleset(name, {f"variants.{v}": True for v in variants})
    ctx = _Context(rs, ["optimal-turn", "greedy"], seed=5)
    kernels = [_kernel_or_none(a) for a in ctx.agents]
    assert kernels[0].kind == "values" and kernels[0].name == "optimal-turn"
    orders = seat_orders(2)
    deals = DEALS.get(preset, 100)
    single = _play_table_chunk(ctx, (0, 1), orders, 0, deals)
    batched = _play_batch_chunk(ctx, (0, 1), orders, 0, deals, kernels)
    assert len(single["length"]) == 2 * deals
    for k in single:
        np.testing.assert_array_equal(batched[k], single[k], err_msg=f"{preset}: {k}")


def test_streak_and_plain_tables_together_and_evaluate_routes_to_the_batched_engine():
    """Two tables in one batch (optimal-turn against optimal-turn:plain under a subtract zilch penalty,
    where they differ) play like the single-game agents; evaluate sends such tables to the batched engine."""
    rs = load_ruleset("farkle")
    streak, plain = turn_value_table(rs), turn_value_table(rs, streak=False)
    assert streak.select.shape == (2, 3) and plain.select.shape == (2, 1)
    ctx = _Context(rs, ["optimal-turn", "optimal-turn:plain"], seed=2)
    kernels = [_kernel_or_none(a) for a in ctx.agents]
    assert [k.table for k in kernels] == [streak, plain]
    orders = seat_orders(2)
    single = _play_table_chunk(ctx, (0, 1), orders, 0, 150)
    batched = _play_batch_chunk(ctx, (0, 1), orders, 0, 150, kernels)
    for k in single:
        np.testing.assert_array_equal(batched[k], single[k], err_msg=k)
    r = evaluate(agents=["optimal-turn", "greedy", "optimal-turn:plain"], ruleset="zonk", games=40, seed=1,
                 workers=1, solo_turns=0, luck="off")  # the luck adjustment plays on the single-game engine
    assert {t["engine"] for t in r.data["tables"]} == {"batched"}


def test_vec_env_optimal_turn_opponent_moves_like_the_agent():
    """BatchedZilchVecEnv with the table as opponent beside Zilch-v0 envs whose opponents are
    OptimalTurnAgent, rolling the same dice: the same game state (hence the same opponent moves) after
    every step, the same observations, rewards and ends."""
    from zilch_env.envs.gym_env import ZilchEnv
    from zilch_env.envs.vec_env import BatchedZilchVecEnv

    rs = load_ruleset("farkle")  # an entry threshold and zilch-streak policies
    n_envs, players, seed = 6, 3, 4
    venv = BatchedZilchVecEnv(rs, n_envs, players, seed=seed, opponent=turn_value_table(rs))
    agent = OptimalTurnAgent(rs)
    envs = [ZilchEnv(rs, players, opponents=agent) for _ in range(n_envs)]
    for env, key in zip(envs, stream_keys(seed, n_envs)):
        env._dice = KeyedDice(key)
    obs = venv.reset()

    def start(i):
        envs[i].fixed_seat = int(venv.seats[i])
        return envs[i].reset()[0]

    for i in range(n_envs):
        assert np.array_equal(start(i), obs[i])
    rng = np.random.default_rng(seed)
    episodes = opponent_moves = 0
    for t in range(400):
        masks = venv.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        before = venv.games.decisions.copy()
        obs, rewards, dones, infos = venv.step(actions)
        for i in range(n_envs):
            o, r, term, trunc, info = envs[i].step(int(actions[i]))
            assert np.isclose(rewards[i], r) and dones[i] == (term or trunc), f"step {t} env {i}"
            if dones[i]:
                episodes += 1
                assert np.array_equal(infos[i]["final_scores"], info["final_scores"]), f"step {t} env {i}"
                assert np.array_equal(start(i), obs[i]), f"step {t} env {i}: after the reset"
                continue
            want = envs[i].state.snapshot()
            got = venv.games.snapshot(i)
            assert got == {k: want[k] for k in got}, f"step {t} env {i}"
            assert venv.games.decisions[i] == envs[i].state.decisions
            assert np.array_equal(obs[i], o), f"step {t} env {i}: observation"
            opponent_moves += int(venv.games.decisions[i] - before[i]) - 1
    assert episodes > 5 and opponent_moves > 1000


def test_vec_env_mixed_opponents_run():
    from zilch_env.envs.vec_env import BatchedZilchVecEnv

    rs = load_ruleset("zilch")
    venv = BatchedZilchVecEnv(rs, 8, 2, seed=1, opponent=[turn_value_table(rs), "greedy",
                                                          KernelAgent("values", table=turn_value_table(rs, False))])
    venv.reset()
    for _ in range(50):
        venv.step(np.argmax(venv.action_masks(), axis=1))
    assert (venv._kinds[:, 1] == [3, 1, 3, 3, 1, 3, 3, 1]).all()
    assert venv._thr[0, 1] != venv._thr[2, 1]  # two tables packed side by side


def test_unsupported_rules_and_bad_input_are_named(opponent_providers):
    opponent_providers()  # none: the spec then names no opponent
    over = load_ruleset("zonk", {"variants.overcoming": True})
    with pytest.raises(UnsupportedRulesError, match="overcoming"):
        turn_value_table(over)
    assert _kernel_or_none(OptimalTurnAgent(over)) is None  # played on the single-game engine instead
    r = evaluate(agents=["optimal-turn", "greedy"], ruleset=over, games=4, seed=1, workers=1, solo_turns=0)
    assert r.data["tables"][0]["engine"] == "single"
    with pytest.raises(UnsupportedRulesError, match="pyramiding"):
        turn_value_table(load_ruleset("zonk", {"variants.pyramiding": True}))

    from zilch_env.envs.vec_env import BatchedZilchVecEnv

    with pytest.raises(ValueError, match="unknown opponent 'optimal-turn'"):  # no opponent provider installed
        BatchedZilchVecEnv("zonk", 2, 2, opponent="optimal-turn")
    with pytest.raises(ValueError, match="solved for ruleset 'farkle'.*'zonk'"):
        BatchedZilchVecEnv("zonk", 2, 2, opponent=turn_value_table("farkle"))
    with pytest.raises(ValueError, match="solved for ruleset 'farkle'"):
        play_games("zonk", [turn_value_table("farkle"), "greedy"], [[0, 1]])
    with pytest.raises(ValueError, match="TurnValueTable"):
        KernelAgent("values")
    with pytest.raises(ValueError, match="kind 'best'"):
        KernelAgent("best")
    t = turn_value_table("zonk")
    assert builtin_kernel_agent(t) == KernelAgent("values", table=t) and builtin_kernel_agent(t).name == "optimal-turn"
    with pytest.raises(ValueError, match="values: expected shape"):
        TurnValueTable(t.ruleset, "x", t.values[:, :, :3], t.beyond, t.sizes, t.tops, t.thresholds, t.select, 50)
    with pytest.raises(ValueError, match="select"):
        TurnValueTable(t.ruleset, "x", t.values, t.beyond, t.sizes, t.tops, t.thresholds, [[0], [5]], 50)


def test_table_is_built_once_and_cached():
    """The second ask gives the same table object (how fast it builds is bench/, not a timed test)."""
    rs = load_ruleset("zilch10k")
    a = turn_value_table(rs)
    assert turn_value_table(rs) is a
    assert a.values.dtype == np.float64 and not a.values.flags.writeable


@pytest.mark.parametrize("preset", ["zonk", "zilch", "zilch5k", "farkle"])
def test_totals_near_and_past_the_solvers_cap(preset):
    """Totals at risk around the last one the solver stores, where keeps lead past it (its bound beyond
    the cap), and far past it: set in both engines at real decisions, the same moves (zilch: permanent
    straights folded above the stored levels; zilch5k: forced hot dice, where a keep of every die cannot
    bank)."""
    from zilch_env.engine import kernels as K
    from zilch_env.engine import layout as L

    rs = load_ruleset(preset)
    table, agent, bg, singles = paired_games(rs, 20, seed=3)
    cap = int(table.sizes.max() - 1) * table.unit
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(30):
        if bg.done.all():
            break
        real = [s.turn_total for s in singles]
        for x in (cap - 300, cap - 50, cap, cap + 50, 3 * cap):
            for g, s in enumerate(singles):
                if not s.done:
                    s.turn_total = s.permanent + x
                    bg._st[g, L.TURN_TOTAL] = s.turn_total
            acts = bg.value_actions(table)
            for g, s in enumerate(singles):
                if not s.done:
                    assert acts[g] == agent.act(s, s.legal_actions(), rng), f"{preset} game {g} at risk {x}"
                    checked += 1
        for g, s in enumerate(singles):  # back to the real totals, and one real move
            s.turn_total = real[g]
            bg._st[g, L.TURN_TOTAL] = real[g]
        acts = bg.value_actions(table)
        for g, s in enumerate(singles):
            if not s.done:
                s.apply(int(acts[g]))
        bg.step(acts)
        assert bg.turn_total.tolist() == [s.turn_total for s in singles]
    assert checked > 1000


def test_one_answer_for_the_fast_engine_and_one_exception():
    """agents.base.kernel_agent answers for specs, agent objects and tables alike, and every part
    refuses with zilch_env.UnsupportedRulesError (the one name: the solvers re-export it)."""
    import agents.solver.game
    import agents.solver
    from agents import kernel_agent

    assert agents.solver.UnsupportedRulesError is UnsupportedRulesError
    assert agents.solver.game.UnsupportedRulesError is UnsupportedRulesError
    assert not hasattr(agents.solver, "UnsupportedRuleError") and not hasattr(agents.solver.game, "UnsupportedRules")
    rs = load_ruleset("zonk")
    assert kernel_agent("optimal-turn:plain", rs).table.name == "optimal-turn:plain"
    assert kernel_agent("greedy-bold", rs).kind == "greedy" and kernel_agent("random", rs).kind == "random"
    with pytest.raises(UnsupportedRulesError, match="heuristic.*single-game engine"):
        kernel_agent("heuristic", rs)
    with pytest.raises(UnsupportedRulesError, match="pyramiding"):
        kernel_agent("optimal-turn", load_ruleset("zonk", {"variants.pyramiding": True}))
    from train.envs import batched_opponent

    assert batched_opponent("optimal-turn:plain", rs) and batched_opponent("self", rs)
    assert not batched_opponent("heuristic", rs)
