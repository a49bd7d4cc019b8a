"""Batched engine throughput: masked random game steps per second for 1, 64 and 1024 games at once,
against the single-game engine measured in the same run; then the SB3 VecEnv and PPO training.

    python bench/batched.py [--ruleset zonk] [--players 2] [--seconds 1] [--rounds 3]
                            [--sizes 1 64 1024] [--ppo-steps 16384] [--ppo-envs 8 64] [--no-ppo]

A *game step* is one decision applied to one game: a uniformly random legal action. Rolls that need
no decision (zilches) happen inside the step, as in the engine. Finished games start again at once.

Engine rows (one core; no numba threads)
    ``single``      ``GameState``: ``legal_actions()``, a random pick, ``apply`` (one Python call per step)
    ``batched``     ``BatchedGames`` driven from Python as a training loop drives it: per batch step
                    ``legal_masks()`` (the (games, 136) bool masks), ``random_actions()`` (a random legal
                    action per game, in the kernels), ``step(actions)``, ``reset`` of the games that ended
    ``fused``       ``BatchedGames.play_random``: the same decisions in one kernel call (the engine's
                    ceiling, without Python between steps)

Every row is timed in ``--rounds`` alternating slices of ``--seconds`` each, so the ratios hold on a
shared machine whose load changes. Rates are per second of wall time and per second of this
process's CPU time (which the load of other processes disturbs less). Compilation is done before.

VecEnv rows (when ``zilch_env.vec_env`` is present)
    agent steps per second (one step = the agent's decision plus the opponents' moves up to its
    next decision) of ``BatchedZilchVecEnv`` with a random masked agent, against SB3's
    ``DummyVecEnv`` of ``Zilch-v0`` with the same number of envs, same ruleset and greedy opponents.

PPO rows (``--ppo-steps``, needs sb3-contrib)
    ``MaskablePPO("MlpPolicy")`` learning ``--ppo-steps`` steps on the batched VecEnv for each
    ``--ppo-envs``: steps per second of the whole ``learn`` and the share of its time spent inside
    the environment (``step_wait``, ``reset`` and ``action_masks``), against the same for a
    ``DummyVecEnv`` of ``Zilch-v0``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from zilch_env import GameState, load_ruleset  # noqa: E402
from zilch_env.batched import BatchedGames  # noqa: E402
from zilch_env.ruleset import parse_overrides  # noqa: E402

TARGET = 1_000_000  # game steps per second at 1024 games (issue 9)


class Clock:
    """Wall and CPU seconds of a slice."""

    def __init__(self):
        self.wall = self.cpu = 0.0

    def __enter__(self):
        self._w, self._c = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall += time.perf_counter() - self._w
        self.cpu += time.process_time() - self._c


class Single:
    """One GameState at a time, random legal decisions."""

    def __init__(self, rs, players: int):
        self.rs, self.players = rs, players
        self.r = random.Random(0)
        self.seed = 0
        self.g = GameState(rs, players, seed=0)

    def run(self, seconds: float) -> int:
        steps, r, g = 0, self.r, self.g
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            for _ in range(200):
                if g.winners is not None:
                    self.seed += 1
                    g = GameState(self.rs, self.players, seed=self.seed)
                legal = g.legal_actions()
                g.apply(legal[int(r.random() * len(legal))])
                steps += 1
        self.g = g
        return steps


class BatchedLoop:
    """A training loop's use of the batched engine: masks, actions, step, resets."""

    def __init__(self, rs, players: int, games: int):
        self.bg = BatchedGames(rs, games, players, seed=0)
        self.masks = np.zeros((games, 136), dtype=bool)

    def run(self, seconds: float) -> int:
        bg, masks, steps = self.bg, self.masks, 0
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            for _ in range(20):
                bg.legal_masks(masks)
                actions = bg.random_actions()
                bg.step(actions)
                steps += int(np.count_nonzero(actions >= 0))
                done = bg.done
                if done.any():
                    bg.reset(np.flatnonzero(done))
        return steps


class Fused:
    """The same decisions inside one kernel call per slice of sweeps."""

    def __init__(self, rs, players: int, games: int):
        self.bg = BatchedGames(rs, games, players, seed=0)
        self.sweeps = max(1, 20000 // games)

    def run(self, seconds: float) -> int:
        steps = 0
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            steps += self.bg.play_random(self.sweeps)[0]
        return steps


def engine_table(rs, players: int, sizes: list[int], seconds: float, rounds: int) -> None:
    rows: list[tuple[str, int, object]] = [("single", 1, Single(rs, players))]
    for n in sizes:
        rows.append(("batched", n, BatchedLoop(rs, players, n)))
    for n in sizes:
        rows.append(("fused", n, Fused(rs, players, n)))
    for _, _, runner in rows:  # warm-up: compile kernels, fill caches
        runner.run(0.05)
    clocks = [Clock() for _ in rows]
    steps = [0] * len(rows)
    for _ in range(rounds):
        for i, (_, _, runner) in enumerate(rows):
            with clocks[i]:
                steps[i] += runner.run(seconds)
    base_wall = steps[0] / clocks[0].wall
    base_cpu = steps[0] / clocks[0].cpu
    print(f"\nEngine: masked random game steps, {rs.name}, {players} players, one core, "
          f"{rounds} x {seconds:g} s per row\n")
    print("| engine | games at once | game steps | steps/s (wall) | steps/s (CPU) | vs single (CPU) | ns/step (CPU) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for (name, n, _), c, s in zip(rows, clocks, steps):
        print(f"| {name} | {n} | {s:,} | {s / c.wall:,.0f} | {s / c.cpu:,.0f} | "
              f"{(s / c.cpu) / base_cpu:,.1f}x | {1e9 * c.cpu / s:,.0f} |")
    for name in ("batched", "fused"):
        i = next((k for k, (nm, n, _) in enumerate(rows) if nm == name and n == max(sizes)), None)
        if i is not None:
            rate = steps[i] / clocks[i].wall
            verdict = "meets" if rate >= TARGET else "is below"
            print(f"\n{name} at {max(sizes)} games: {rate:,.0f} game steps per wall second {verdict} the "
                  f"target of {TARGET:,} (single engine: {base_wall:,.0f}).")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ruleset", default="zonk", help="preset name or TOML path (default zonk)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="rule override")
    ap.add_argument("--players", type=int, default=2, help="players per game (default 2)")
    ap.add_argument("--seconds", type=float, default=1.0, help="seconds per timed slice (default 1)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating slices per row (default 3)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 1024], help="games at once (default 1 64 1024)")
    ap.add_argument("--ppo-steps", type=int, default=16384, help="PPO steps per measurement (default 16384)")
    ap.add_argument("--ppo-envs", type=int, nargs="+", default=[8, 64], help="PPO n_envs (default 8 64)")
    ap.add_argument("--no-ppo", action="store_true", help="skip the VecEnv and PPO measurements")
    args = ap.parse_args(argv)
    if args.seconds <= 0 or args.rounds < 1 or min(args.sizes) < 1:
        ap.error("--seconds must be positive, --rounds and --sizes at least 1")
    rs = load_ruleset(args.ruleset, parse_overrides(args.set) if args.set else None)
    engine_table(rs, args.players, args.sizes, args.seconds, args.rounds)
    if args.no_ppo:
        return
    print("\n(VecEnv and PPO measurements: not yet available)")


if __name__ == "__main__":
    main()
