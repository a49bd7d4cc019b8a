"""OpenSpiel's MCTS against a baseline through the OpenSpiel game ``python_zilch``.

    python examples/openspiel_mcts.py [--games 40] [--simulations 100] [--target 2000]
                                      [--opponent greedy|random] [--rollout greedy|random]

Two-player zonk (to a small target by default, so that a game is short) with one seat played by
``open_spiel.python.algorithms.mcts.MCTSBot`` and the other by the baseline, seats alternating.
The search walks the game's explicit chance nodes (every roll, with its exact probability); its
leaf evaluator plays the game out with ``--rollout`` moves for every seat: ``greedy``
(``zilch_env.GreedyMover``: keep the most points, bank from 300) or ``random`` (OpenSpiel's own
``RandomRolloutEvaluator``). The baseline reads the engine state of the OpenSpiel state
(``state.game_state``), so it plays exactly the moves it plays in the Gymnasium env.

It prints MCTS's win rate against the baseline (a draw counts half) and the time per MCTS move.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import pyspiel  # noqa: E402
from open_spiel.python.algorithms import mcts  # noqa: E402

import zilch_env.envs.openspiel  # noqa: E402,F401  (registers python_zilch)
from zilch_env import GreedyMover, RandomMover  # noqa: E402


class PolicyRolloutEvaluator(mcts.Evaluator):
    """Play the state out with a zilch_env policy for every seat (chance by its probabilities);
    the value is the returns of that one game. Priors are uniform."""

    def __init__(self, policy, rng: np.random.Generator):
        self.policy, self.rng = policy, rng

    def evaluate(self, state):
        s = state.clone()
        while not s.is_terminal():
            if s.is_chance_node():
                outcomes, probs = zip(*s.chance_outcomes())
                s.apply_action(int(self.rng.choice(outcomes, p=np.asarray(probs) / sum(probs))))
            else:
                s.apply_action(int(self.policy.act(s.game_state, s.legal_actions(), self.rng)))
        return np.array(s.returns())

    def prior(self, state):
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


def play(game, bots, rng) -> list[float]:
    """One game; ``bots[p]`` is an MCTSBot or a zilch_env policy."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=np.asarray(probs) / sum(probs))))
            continue
        bot = bots[state.current_player()]
        if isinstance(bot, mcts.MCTSBot):
            state.apply_action(bot.step(state))
        else:
            state.apply_action(int(bot.act(state.game_state, state.legal_actions(), rng)))
    return state.returns()


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ruleset", default="zonk")
    ap.add_argument("--target", type=int, default=2000)
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--simulations", type=int, default=100, help="MCTS simulations per move")
    ap.add_argument("--uct-c", type=float, default=2.0)
    ap.add_argument("--opponent", choices=("greedy", "random"), default="greedy")
    ap.add_argument("--rollout", choices=("greedy", "random"), default="greedy")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    game = pyspiel.load_game("python_zilch", {"ruleset": args.ruleset, "players": 2,
                                              "overrides": f"target:{args.target}"})
    rng = np.random.default_rng(args.seed)
    if args.rollout == "greedy":
        evaluator = PolicyRolloutEvaluator(GreedyMover(), rng)
    else:
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(args.seed))
    bot = mcts.MCTSBot(game, args.uct_c, args.simulations, evaluator,
                       random_state=np.random.RandomState(args.seed), solve=False)
    baseline = GreedyMover() if args.opponent == "greedy" else RandomMover()
    score, t0 = 0.0, time.perf_counter()
    for g in range(args.games):
        seat = g % 2
        bots = [bot, baseline] if seat == 0 else [baseline, bot]
        r = play(game, bots, rng)[seat]
        score += 1.0 if r > 0 else (0.5 if r == 0 else 0.0)
    seconds = time.perf_counter() - t0
    rate = score / args.games
    print(f"OpenSpiel MCTS ({args.simulations} simulations a move, {args.rollout} rollouts) against {args.opponent} "
          f"on python_zilch({args.ruleset}, target {args.target}): win rate {rate:.3f} over {args.games} games "
          f"({seconds:.0f} s)")
    return {"win_rate": rate, "games": args.games, "seconds": seconds}


if __name__ == "__main__":
    main()
