"""Tournaments on the batched engine (``agents.evaluate.tournament.play_games``): the games of kernel agents are
those of the single-game engine with the same movers and dice, seeded and independent of the batch
size; batch policies played from Python give the same games as the built-ins they copy."""

from __future__ import annotations

import numpy as np
import pytest

from agents.evaluate.tournament import play_games
from tests.conftest import FirstLegal, first_legal_batch
from zilch_env import GameState, GreedyMover, load_ruleset, play_game
from zilch_env.engine.batched import KeyedDice, slot_game, stream_keys


def test_play_games_greedy_equals_single_engine_games():
    rs = load_ruleset("zonk")
    agents = ["greedy", "greedy:600"]
    seats = np.array([[0, 1], [1, 0]] * 50)
    dice = [np.random.default_rng([9, g]) for g in range(100)]
    res = play_games(rs, agents, seats, dice=[[9, g] for g in range(100)], batch=32)
    keyed = play_games(rs, agents, seats, seed=9, batch=32)
    keys = stream_keys(9, 100)
    movers = [GreedyMover(), GreedyMover(600)]
    for g in range(100):
        game = play_game(GameState(rs, 2, seed=dice[g]), [movers[a] for a in seats[g]], rng=0)
        assert res.scores[g].tolist() == game.scores
        assert np.flatnonzero(res.winners[g]).tolist() == list(game.winners)
        assert res.length[g] == len(game.turns)
        assert res.decisions[g] == game.decisions
        assert res.result[g].tolist() == game.result()
        game = play_game(GameState(rs, 2, dice=KeyedDice(keys[g])), [movers[a] for a in seats[g]], rng=0)
        assert keyed.scores[g].tolist() == game.scores and keyed.decisions[g] == game.decisions


def test_play_games_is_seeded_and_random_is_weaker():
    seats = np.array([[0, 1], [1, 0]] * 300)
    a = play_games("farkle", ["random", "greedy"], seats, seed=4, batch=256)
    b = play_games("farkle", ["random", "greedy"], seats, seed=4, batch=100)
    for f in ("scores", "winners", "turns", "points", "zilches", "length", "decisions"):
        assert np.array_equal(getattr(a, f), getattr(b, f)), f
    wins = np.zeros(2)
    for g in range(len(seats)):
        for q in range(2):
            wins[seats[g, q]] += a.result[g, q]
    assert wins[1] > 0.8 * len(seats)  # greedy beats random almost always
    assert (a.result.sum(axis=1) == 1).all()


def test_play_games_with_batch_policies():
    """Agents played from Python: an act_batch object (here the greedy choices read off the batch)
    gives the built-in greedy's games; an (obs, masks) callable gives the single engine's games."""

    class GreedyBatch:
        def act_batch(self, games, rows):
            return games.greedy_actions()[rows]

    seats = np.array([[0, 1], [1, 0]] * 40)
    built_in = play_games("zilch15k", ["greedy", "random"], seats, seed=6, batch=32)
    outside = play_games("zilch15k", [GreedyBatch(), "random"], seats, seed=6, batch=32)
    for f in ("scores", "winners", "turns", "points", "zilches", "length", "decisions"):
        assert np.array_equal(getattr(built_in, f), getattr(outside, f)), f
    res = play_games("zonk", [first_legal_batch, "greedy"], seats[:20], seed=7, dice_slots=True)
    keys = stream_keys(7, 20)
    for g in range(20):
        game = slot_game("zonk", 2, keys[g])
        play_game(game, [[FirstLegal(), GreedyMover()][a] for a in seats[g]], rng=0)
        assert res.scores[g].tolist() == game.scores and res.decisions[g] == game.decisions
    with pytest.raises(RuntimeError, match="illegal action"):
        play_games("zonk", [lambda obs, masks: np.zeros(len(obs), int), "greedy"], seats[:2], seed=0)
