"""Environment throughput: steps per second of one Zilch-v0 under masked random play, against a
trivial Gymnasium environment with the same spaces measured in the same run.

    python bench/env.py [--seconds 5 | --steps 100000] [--ruleset zonk] [--set KEY=VALUE ...]
                        [--players 2] [--opponent greedy|random] [--rounds 10] [--profile 25]

One step is what a training loop does: read the action mask from ``info``, pick a legal action
uniformly at random, call ``step`` (which also plays the opponents' moves up to the agent's next
decision), and ``reset`` when the episode ends. The baseline env has ``Discrete(136)`` actions, the
same ``Box`` observation space, returns a constant observation and mask, and ends an episode every
``--baseline-length`` steps; the same loop drives it, so the ratio is the cost of the game itself
(engine, observation encoder, opponents) over the bare Gymnasium call. Both envs are used unwrapped
(``gymnasium.make`` adds the same small wrapper cost to both). The two are timed in alternating
slices (``--rounds``), so that the ratio holds on a shared machine whose load changes.

``--profile N`` then runs half as many Zilch steps again under cProfile and prints the N functions with the
most time of their own, to show where a step's time goes.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
from gymnasium import spaces  # noqa: E402

from zilch_env import NUM_ACTIONS, GreedyMover, RandomMover, ZilchEnv, load_ruleset  # noqa: E402
from zilch_env.engine.observation import OBS_HIGH, OBS_LOW, OBS_SIZE  # noqa: E402
from zilch_env.rules.load import parse_overrides  # noqa: E402


class TrivialEnv(gym.Env):
    """The baseline: Zilch-v0's spaces, a constant observation and mask, episodes of fixed length."""

    def __init__(self, length: int = 50):
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = spaces.Box(OBS_LOW, OBS_HIGH, shape=(OBS_SIZE,), dtype=np.float32)
        self.length = length
        self._obs = np.zeros(OBS_SIZE, dtype=np.float32)
        self._mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self._mask[:20] = 1
        self._t = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self._t = 0
        return self._obs.copy(), {"action_mask": self._mask.copy()}

    def step(self, action):
        self._t += 1
        return self._obs.copy(), 0.0, self._t >= self.length, False, {"action_mask": self._mask.copy()}


class Driver:
    """Masked random play of one env, resumable: :meth:`run` plays some steps and returns their time."""

    def __init__(self, env: gym.Env, seed: int):
        self.env = env
        self.rng = np.random.default_rng(seed)
        _, self.info = env.reset(seed=seed)
        self.steps = self.episodes = self.seconds = 0
        self.done_steps = self.done_decisions = 0  # steps and engine decisions of finished episodes

    def run(self, steps: int) -> float:
        env, rng, info = self.env, self.rng, self.info
        start = time.perf_counter()
        for i in range(steps):
            legal = np.flatnonzero(info["action_mask"])
            obs, reward, terminated, truncated, info = env.step(legal[int(rng.integers(len(legal)))])
            if terminated or truncated:
                self.episodes += 1
                state = getattr(env, "state", None)
                if state is not None:
                    self.done_decisions += state.decisions
                    self.done_steps = self.steps + i + 1
                obs, info = env.reset()
        elapsed = time.perf_counter() - start
        self.info = info
        self.steps += steps
        self.seconds += elapsed
        return elapsed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=5.0, help="time of the Zilch env (default 5)")
    ap.add_argument("--steps", type=int, default=None, help="a fixed number of steps per env instead of --seconds")
    ap.add_argument("--ruleset", "-r", default="zonk", help="preset name or TOML file (default: zonk)")
    ap.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                    help="override a rule by dotted key, e.g. variants.piggyback=true (repeatable)")
    ap.add_argument("--players", "-n", type=int, default=2, help="players in the game (default 2)")
    ap.add_argument("--opponent", choices=["greedy", "random"], default="greedy",
                    help="the policy of the other seats (default: greedy, the env's default)")
    ap.add_argument("--baseline-length", type=int, default=50, help="episode length of the trivial env (default 50)")
    ap.add_argument("--rounds", type=int, default=10,
                    help="alternating slices the budget is split into (default 10)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the dice and the random choices (default 0)")
    ap.add_argument("--profile", type=int, default=0, metavar="N",
                    help="also profile the Zilch loop and print the N costliest functions")
    args = ap.parse_args()
    if args.steps is not None and args.steps < 1:
        ap.error(f"--steps {args.steps}: give 1 or more")
    if args.seconds <= 0:
        ap.error(f"--seconds {args.seconds}: give a positive time")
    if args.rounds < 1:
        ap.error(f"--rounds {args.rounds}: give 1 or more")

    rs = load_ruleset(args.ruleset, parse_overrides(args.overrides))
    opponent = GreedyMover() if args.opponent == "greedy" else RandomMover()
    zilch = Driver(ZilchEnv(rs, num_players=args.players, opponents=opponent), args.seed)
    base = Driver(TrivialEnv(args.baseline_length), args.seed)
    zilch.run(2000)  # warm-up: scoring tables, caches
    base.run(2000)
    zilch, base = Driver(zilch.env, args.seed), Driver(base.env, args.seed)

    budget = f"{args.steps} steps" if args.steps is not None else f"{args.seconds:g} s"
    print(f"masked random play, one env, one core, {budget} each, in {args.rounds} alternating slices")
    print(f"Zilch-v0: ruleset {rs.name}, {args.players} players, opponents {opponent.name}\n")
    # The two envs take turns in slices, so a change in the machine's load hits both alike.
    if args.steps is not None:
        for r in range(args.rounds):
            k = args.steps * (r + 1) // args.rounds - args.steps * r // args.rounds
            zilch.run(k)
            base.run(k)
    else:
        probe = 256
        per_step = zilch.run(probe) / probe
        base.run(probe)
        k = max(256, int(args.seconds / args.rounds / per_step))
        while zilch.seconds < args.seconds:
            zilch.run(k)
            base.run(k)
    sps_z, sps_b = zilch.steps / zilch.seconds, base.steps / base.seconds
    print(f"{'env':<12}{'steps':>10}{'episodes':>10}{'seconds':>9}{'steps/s':>12}{'us/step':>9}")
    for name, d, sps in (("Zilch-v0", zilch, sps_z), ("trivial", base, sps_b)):
        print(f"{name:<12}{d.steps:>10}{d.episodes:>10}{d.seconds:>9.2f}{sps:>12,.0f}{1e6 / sps:>9.1f}")
    print(f"\nratio: Zilch-v0 runs at {sps_z / sps_b:.3f} of the trivial env's speed "
          f"({sps_b / sps_z:.1f}x slower)")
    per = zilch.done_decisions / zilch.done_steps if zilch.done_steps else 0.0
    print(f"Zilch-v0: {zilch.steps / max(zilch.episodes, 1):.1f} agent steps per episode, {per:.2f} engine "
          f"decisions per agent step (the opponents' moves run inside step)")

    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        zilch.run(max(zilch.steps // 2, 1))
        prof.disable()
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(args.profile)
        print("\nprofile of the Zilch loop (cProfile, sorted by own time; cProfile slows Python calls):")
        print("\n".join(line for line in out.getvalue().splitlines() if line.strip())[:20000])
    return 0


if __name__ == "__main__":
    sys.exit(main())
