"""How far a trained win agent plays from perfect play: its regret against ``optimal-win``.

    python bench/win_regret.py --ruleset zonk checkpoints/zonk/best/model.zip [MORE.zip ...]
                               [--envs 64] [--steps 800] [--seed 11] [--opponent optimal-turn]

Each SB3 checkpoint plays its deterministic masked policy in the batched VecEnv with the solved game's
``--shaping regret`` reward (``agents.solver.win_shaping.WinPotential``, ``luck=False``): every move is paid
twice the change of the agent's win chance it makes, read right after the move, which is 0 for the
move ``optimal-win`` would make and minus twice its regret otherwise. The report per checkpoint:

* regret per move, and per game (the win chance lost to imperfect play over a game, against an
  opponent that plays on perfectly from there; the agent's share against ``optimal-win`` is about
  one half minus it);
* the share of moves with a regret above 0.002.

Unlike a win rate over games, this has no dice luck in it: a few thousand games rank checkpoints a
tenth of a point apart. The ruleset's game table must be stored (``zilch solve --ruleset R --objective
win``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoints", nargs="+", help="SB3 checkpoints (model.zip) of win agents")
    ap.add_argument("--ruleset", default="zonk", help="preset or TOML file (default zonk)")
    ap.add_argument("--envs", type=int, default=64, help="games played together (default 64)")
    ap.add_argument("--steps", type=int, default=800, help="agent moves per game slot (default 800)")
    ap.add_argument("--seed", type=int, default=11, help="dice and seats (default 11)")
    ap.add_argument("--opponent", default="optimal-turn",
                    help="the other seat: optimal-turn (default), greedy, greedy:T or random")
    args = ap.parse_args()
    if args.envs < 1 or args.steps < 1:
        ap.error(f"--envs {args.envs} --steps {args.steps}: both at least 1")

    from sb3_contrib import MaskablePPO

    from zilch_env import load_ruleset
    from zilch_env.envs.vec_env import BatchedZilchVecEnv

    from agents.solver.win_shaping import WinPotential
    from agents.solver.game import load_game_table
    from agents.solver import turn_value_table

    rs = load_ruleset(args.ruleset)
    table = load_game_table(rs)
    if table is None:
        ap.error(f"no stored game table for {rs.name}: build it with zilch solve --ruleset {args.ruleset} "
                 "--objective win")
    opponent = turn_value_table(rs) if args.opponent == "optimal-turn" else args.opponent
    potential = WinPotential(rs, table)
    print(f"{rs.name}: {args.envs} games x {args.steps} moves, against {args.opponent}, seed {args.seed}")
    for path in args.checkpoints:
        model = MaskablePPO.load(path, device="cpu")
        venv = BatchedZilchVecEnv(rs, num_envs=args.envs, num_players=2, seed=args.seed, opponent=opponent,
                                  potential=potential, luck=False)
        obs = venv.reset()
        width = model.observation_space.shape[0]  # an earlier layout reads a prefix of the current one
        paid, games = [], 0
        for _ in range(args.steps):
            actions, _ = model.predict(obs[:, :width], action_masks=venv.action_masks(), deterministic=True)
            obs, rewards, _, infos = venv.step(actions)
            paid.append(rewards.copy())
            games += sum("winners" in i for i in infos)
        r = np.concatenate(paid) / 2.0  # the change of the win chance, per move
        print(f"{path}: regret per move {-r.mean():.5f}, per game {-r.sum() / max(games, 1):.4f} "
              f"({games} games, {r.size} moves); moves with regret > 0.002: {100 * (r < -0.002).mean():.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
