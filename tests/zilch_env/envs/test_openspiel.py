"""The OpenSpiel game ``python_zilch`` (:mod:`zilch_env.envs.openspiel`)."""

from __future__ import annotations

import copy
import itertools
import math
from fractions import Fraction

import numpy as np
import pyspiel
import pytest

import zilch_env.envs.openspiel as zo
from zilch_env import GameState, observe
from zilch_env.engine.game import ScriptedDice

CONFIGS = [
    {"ruleset": "zonk", "players": 2},
    {"ruleset": "farkle", "players": 1, "overrides": "target:2000;variants.six_dice_zilch_bonus:500"},
    {"ruleset": "zilch15k", "players": 3,
     "overrides": "target:3000;variants.pyramiding:true;variants.challenge:true;variants.overcoming:true"},
    {"ruleset": "zonk", "players": 2, "overrides": "target:3000;variants.piggyback:true;variants.zilch_penalty.count:2"},
    {"ruleset": "zonk", "players": 1, "max_turns": 5},
]


@pytest.mark.parametrize("params", CONFIGS, ids=lambda p: "-".join(f"{v}" for v in p.values()))
def test_random_sim_test(params):
    game = pyspiel.load_game("python_zilch", params)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_game_type_and_info():
    game = pyspiel.load_game("python_zilch")
    t = game.get_type()
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert t.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert game.num_distinct_actions() == 136 and game.max_chance_outcomes() == 923 == len(zo.ROLLS)
    assert game.observation_tensor_shape() == [516] and game.num_players() == 2
    assert str(game) == "python_zilch(max_turns=1000,overrides=,players=2,ruleset=zonk)"


def test_chance_outcomes_are_sorted_rolls_with_exact_multinomial_probabilities():
    for n in range(1, 7):
        outcomes = zo._outcomes(n)
        rolls = [zo.ROLLS[i] for i, _ in outcomes]
        assert all(list(r) == sorted(r) and len(r) == n for r in rolls)
        assert len(rolls) == math.comb(n + 5, 5) == len(set(rolls))
        assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-12
        if n <= 4:  # against counting every ordered roll
            counts = {}
            for seq in itertools.product(range(1, 7), repeat=n):
                counts[tuple(sorted(seq))] = counts.get(tuple(sorted(seq)), 0) + 1
            for i, p in outcomes:
                assert Fraction(p).limit_denominator(6**n) == Fraction(counts[zo.ROLLS[i]], 6**n)


def _play_scripted(params, rolls, choose):
    """Play python_zilch with the given rolls as chance outcomes, and the engine with the same
    rolls scripted; the same choices must give the same game."""
    game = pyspiel.load_game("python_zilch", params)
    state = game.new_initial_state()
    it = iter(rolls)
    while not state.is_terminal():
        if state.is_chance_node():
            roll = next(it)
            ids = {zo.ROLLS[i]: i for i, _ in state.chance_outcomes()}
            state.apply_action(ids[tuple(sorted(roll))])
        else:
            state.apply_action(choose(state.legal_actions()))
    return state


def test_same_game_as_the_engine_with_the_same_dice():
    engine = GameState("zonk", 2, seed=7)  # a seeded engine game; its rolls become chance outcomes
    choices = []
    while not engine.done:
        legal = engine.legal_actions()
        choices.append(legal[len(legal) // 2])
        engine.apply(choices[-1])
    made = list(engine.rolls)
    picks = iter(choices)
    state = _play_scripted({"ruleset": "zonk", "players": 2}, made, lambda legal: next(picks))
    assert state.game_state.scores == engine.scores and state.game_state.winners == engine.winners
    w = engine.winners
    assert state.returns() == [(0.0 if len(w) > 1 else 1.0) if q in w else -1.0 for q in range(2)]
    replay = GameState("zonk", 2, dice=ScriptedDice(made))
    for a in choices:
        replay.apply(a)
    assert replay.snapshot() == state.game_state.snapshot()


def test_a_zilch_on_a_turns_first_roll_is_a_chance_node_of_its_own():
    # P1 keeps 1 and banks 100 -> P2's first roll 2 2 3 3 4 6 zilches -> P1's next roll: three
    # chance nodes between two decisions
    game = pyspiel.load_game("python_zilch", {"ruleset": "zonk", "players": 2, "overrides": "entry_threshold:0;min_bank:0"})
    state = game.new_initial_state()
    ids = {zo.ROLLS[i]: i for i in range(len(zo.ROLLS))}
    state.apply_action(ids[(1, 2, 3, 3, 4, 6)])
    assert state.current_player() == 0
    bank_one = next(a for a in state.legal_actions() if a & 1 and (a >> 1) == 1)
    state.apply_action(bank_one)
    assert state.is_chance_node()
    state.apply_action(ids[(2, 2, 3, 3, 4, 6)])
    assert state.is_chance_node() and state.game_state is not None
    state.apply_action(ids[(1, 1, 1, 2, 3, 4)])
    assert state.current_player() == 0 and state.game_state.scores == [100, 0]
    assert state.game_state.turns[-1]["banked"] is False and state.game_state.turns[-1]["player"] == 1


def test_observation_tensor_is_the_envs_observation():
    game = pyspiel.load_game("python_zilch", {"ruleset": "farkle", "players": 3})
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    checked = 0
    while not state.is_terminal() and checked < 60:
        if state.is_chance_node():
            o, p = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(o, p=np.array(p) / sum(p))))
            continue
        for q in range(3):
            assert np.array_equal(np.array(state.observation_tensor(q), np.float32), observe(state.game_state, q))
        assert "to move" in state.observation_string(0)
        state.apply_action(int(rng.choice(state.legal_actions())))
        checked += 1


def test_serialize_round_trip_and_fast_independent_clones():
    game = pyspiel.load_game("python_zilch", {"ruleset": "zonk", "players": 2, "overrides": "target:4000"})
    state = game.new_initial_state()
    rng = np.random.default_rng(1)
    for _ in range(80):
        if state.is_terminal():
            break
        if state.is_chance_node():
            o, p = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(o, p=np.array(p) / sum(p))))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert state2.history() == state.history() and str(state2) == str(state)
    for c in (state.clone(), copy.deepcopy(state)):
        assert c.history() == state.history() and str(c) == str(state)
        assert c.game_state is not state.game_state and c.game_state._table.rolls is state.game_state._table.rolls
        before = str(state)
        for _ in range(40):
            if c.is_terminal():
                break
            if c.is_chance_node():
                c.apply_action(c.chance_outcomes()[0][0])
            else:
                c.apply_action(c.legal_actions()[0])
        assert str(state) == before  # the copy is independent


def test_gamestate_deepcopy_is_a_clone():
    g = GameState("farkle", 3, seed=0)
    for _ in range(40):
        g.apply(g.legal_actions()[-1])
    c = copy.deepcopy(g)
    assert c.snapshot() == g.snapshot() and c._table.rolls is g._table.rolls and c.turns is not g.turns
    both = copy.deepcopy([g, g])
    assert both[0] is both[1]  # the memo is honoured
    c.apply(c.legal_actions()[0])
    assert c.snapshot() != g.snapshot()
    assert c.rolls[: len(g.rolls)] == g.rolls  # the copy rolls the same dice


def test_bad_parameters_name_the_value():
    with pytest.raises(Exception, match="players = 7"):
        pyspiel.load_game("python_zilch", {"players": 7})
    with pytest.raises(Exception, match="max_turns = 0"):
        pyspiel.load_game("python_zilch", {"max_turns": 0})
    with pytest.raises(Exception, match="not KEY:VALUE"):
        pyspiel.load_game("python_zilch", {"overrides": "target=5000"})
    with pytest.raises(Exception, match="target"):
        pyspiel.load_game("python_zilch", {"overrides": "target:-5"})


def test_bench_script_runs():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "bench/openspiel.py", "--sims", "1", "--clones", "200"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "random_sim_test" in out.stdout and "deepcopy" in out.stdout


def test_openspiels_pytorch_algorithms_import():
    """open-spiel does not declare dm-tree; the dev extra does (its PyTorch DQN imports ``tree``)."""
    from open_spiel.python.pytorch import dqn  # noqa: F401
    from open_spiel.python import rl_environment

    env = rl_environment.Environment(pyspiel.load_game("python_zilch", {"overrides": "target:1000"}))
    step = env.reset()
    assert step.observations["legal_actions"][step.observations["current_player"]]


def test_two_players_are_zero_sum_other_counts_general_sum():
    """Two players' returns are +1 / -1 or 0 / 0, so the game says ZERO_SUM (what value_iteration and
    the other two-player zero-sum algorithms check); with 1 or 3+ players they need not sum to 0."""
    zero, general = pyspiel.GameType.Utility.ZERO_SUM, pyspiel.GameType.Utility.GENERAL_SUM
    two = pyspiel.load_game("python_zilch", {"players": 2, "overrides": "target:500"})
    assert two.get_type().utility == zero and two.utility_sum() == 0.0
    assert pyspiel.load_game("python_zilch(players=2,ruleset=farkle)").get_type().utility == zero
    for n in (1, 3, 6):
        assert pyspiel.load_game("python_zilch", {"players": n}).get_type().utility == general
    rng = np.random.default_rng(0)
    for game, total in ((two, 0.0), (pyspiel.load_game("python_zilch", {"players": 3, "overrides": "target:500"}), None)):
        for _ in range(5):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, probs = zip(*state.chance_outcomes())
                    state.apply_action(int(rng.choice(outcomes, p=np.asarray(probs) / sum(probs))))
                else:
                    state.apply_action(state.legal_actions()[-1])
            if total is not None:
                assert sum(state.returns()) == total and sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])
    again, _ = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(two, two.new_initial_state()))
    assert again.get_type().utility == zero  # the game a serialization loads again


def _doc_snippets():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[3] / "docs" / "environment.md").read_text()
    section = text.split("### What OpenSpiel's algorithms can do")[1].split("\n## ")[0]
    return [block.split("```")[0] for block in section.split("```python\n")[1:]]


@pytest.mark.parametrize("index", [0, 1], ids=["whole-tree-and-instead", "sampling-and-rl"])
def test_documented_openspiel_snippets_run(index, capsys):
    snippets = _doc_snippets()
    assert len(snippets) == 2
    exec(compile(snippets[index], f"docs/environment.md snippet {index}", "exec"), {"__name__": "snippet"})
    out = capsys.readouterr().out
    assert ("MCTS game:" in out and "RL episode:" in out) if index else out.strip()
