"""Environment throughput: steps per second of one Zilch-v0 under masked random play, against a
trivial Gymnasium environment with the same spaces measured in the same run.

    python bench/env.py [--seconds 5 | --steps 50000] [--ruleset zonk] [--set KEY=VALUE ...]
                        [--players 2] [--opponent greedy|random] [--profile 25]

One step is what a training loop does: read the action mask from ``info``, pick a legal action
uniformly at random, call ``step`` (which also plays the opponents' moves up to the agent's next
decision), and ``reset`` when the episode ends. The baseline env has ``Discrete(136)`` actions, the
same ``Box`` observation space, returns a constant observation and mask, and ends an episode every
``--baseline-length`` steps; the same loop drives it, so the ratio is the cost of the game itself
(engine, observation encoder, opponents) over the bare Gymnasium call. Both envs are used unwrapped
(``gymnasium.make`` adds the same small wrapper cost to both).

``--profile N`` then runs the Zilch loop again under cProfile and prints the N functions with the
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
from zilch_env.observation import OBS_HIGH, OBS_LOW, OBS_SIZE  # noqa: E402
from zilch_env.ruleset import parse_overrides  # noqa: E402


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


def drive(env: gym.Env, seconds: float, steps: int | None, seed: int = 0) -> tuple[int, int, float, float]:
    """Masked random play; returns (steps, episodes, seconds, engine decisions per step in the
    finished episodes, or 0 for an env without a game). Time is checked every 256 steps."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    n = episodes = 0
    done_steps = done_decisions = 0
    start = time.perf_counter()
    while True:
        for _ in range(256):
            legal = np.flatnonzero(info["action_mask"])
            _, _, terminated, truncated, info = env.step(legal[int(rng.integers(len(legal)))])
            n += 1
            if terminated or truncated:
                episodes += 1
                state = getattr(env, "state", None)
                if state is not None:
                    done_decisions += state.decisions
                    done_steps = n
                _, info = env.reset()
            if (steps is not None and n >= steps) or (
                    steps is None and n % 256 == 0 and time.perf_counter() - start >= seconds):
                elapsed = time.perf_counter() - start
                return n, episodes, elapsed, done_decisions / done_steps if done_steps else 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=5.0, help="time per env (default 5)")
    ap.add_argument("--steps", type=int, default=None, help="a fixed number of steps per env instead of --seconds")
    ap.add_argument("--ruleset", "-r", default="zonk", help="preset name or TOML file (default: zonk)")
    ap.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                    help="override a rule by dotted key, e.g. variants.piggyback=true (repeatable)")
    ap.add_argument("--players", "-n", type=int, default=2, help="players in the game (default 2)")
    ap.add_argument("--opponent", choices=["greedy", "random"], default="greedy",
                    help="the policy of the other seats (default: greedy, the env's default)")
    ap.add_argument("--baseline-length", type=int, default=50, help="episode length of the trivial env (default 50)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the dice and the random choices (default 0)")
    ap.add_argument("--profile", type=int, default=0, metavar="N",
                    help="also profile the Zilch loop and print the N costliest functions")
    args = ap.parse_args()
    if args.steps is not None and args.steps < 1:
        ap.error(f"--steps {args.steps}: give 1 or more")
    if args.seconds <= 0:
        ap.error(f"--seconds {args.seconds}: give a positive time")

    rs = load_ruleset(args.ruleset, parse_overrides(args.overrides))
    opponent = GreedyMover() if args.opponent == "greedy" else RandomMover()
    env = ZilchEnv(rs, num_players=args.players, opponents=opponent)
    base = TrivialEnv(args.baseline_length)
    drive(env, 0.3, None, args.seed)  # warm-up: scoring tables, caches
    drive(base, 0.3, None, args.seed)

    budget = f"{args.steps} steps" if args.steps is not None else f"{args.seconds:g} s"
    print(f"masked random play, one env, one core, {budget} each")
    print(f"Zilch-v0: ruleset {rs.name}, {args.players} players, opponents {opponent.name}\n")
    n_z, ep_z, t_z, per_step = drive(env, args.seconds, args.steps, args.seed)
    n_b, ep_b, t_b, _ = drive(base, args.seconds, args.steps, args.seed)
    sps_z, sps_b = n_z / t_z, n_b / t_b
    print(f"{'env':<12}{'steps':>10}{'episodes':>10}{'seconds':>9}{'steps/s':>12}{'us/step':>9}")
    print(f"{'Zilch-v0':<12}{n_z:>10}{ep_z:>10}{t_z:>9.2f}{sps_z:>12,.0f}{1e6 / sps_z:>9.1f}")
    print(f"{'trivial':<12}{n_b:>10}{ep_b:>10}{t_b:>9.2f}{sps_b:>12,.0f}{1e6 / sps_b:>9.1f}")
    print(f"\nratio: Zilch-v0 runs at {sps_z / sps_b:.3f} of the trivial env's speed "
          f"({sps_b / sps_z:.1f}x slower)")
    print(f"Zilch-v0: {n_z / max(ep_z, 1):.1f} agent steps per episode, {per_step:.2f} engine decisions "
          f"per agent step (the opponents' moves run inside step)")

    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        drive(env, args.seconds, args.steps, args.seed)
        prof.disable()
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(args.profile)
        print("\nprofile of the Zilch loop (cProfile, sorted by own time; cProfile slows Python calls):")
        print("\n".join(line for line in out.getvalue().splitlines() if line.strip())[:20000])
    return 0


if __name__ == "__main__":
    sys.exit(main())
