"""Vector env throughput: ``gymnasium.make_vec("Zilch-v1", vectorization_mode="vector_entry_point")``
(the native :class:`zilch_env.envs.vector.ZilchVectorEnv` on the batched engine) against a
``SyncVectorEnv`` of ``Zilch-v1`` with the same number of envs, measured in the same run.

    python bench/vector.py [--num-envs 64] [--seconds 1.0 | --steps N] [--ruleset farkle] [--players 2]
                           [--opponent greedy] [--rounds 5]

One step is what a vectorised training loop does: read ``infos["action_mask"]``, pick a legal action
per env uniformly at random (one NumPy call for all envs; an env whose mask is all zero, the step
after an episode ended, sends 0, which ``next_step`` autoreset ignores), and ``step``. Steps per
second count env steps (``num_envs`` per call). The two are timed in alternating slices
(``--rounds``), each as long as the other (``--seconds`` of stepping; ``--steps`` gives a fixed count
instead), so that the ratio holds on a shared machine whose load changes; the medians are printed.
Both use ``next_step`` autoreset and greedy opponents.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402

import zilch_env  # noqa: E402,F401  (registers Zilch-v1)


def masked_random(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row (0 for a row with no legal action)."""
    return np.argmax(rng.random(masks.shape) * masks, axis=1)


def run(envs: gym.vector.VectorEnv, rng: np.random.Generator, state: dict, steps: int = 0,
        seconds: float = 0.0) -> float:
    """Env steps per second over ``steps`` env steps (``steps // num_envs`` calls), or over as many
    calls as fit in ``seconds``."""
    infos = state.get("infos")
    if infos is None:
        _, infos = envs.reset(seed=0)
    calls = max(1, steps // envs.num_envs) if steps else 0
    done = 0
    t0 = time.perf_counter()
    while True:
        _, _, _, _, infos = envs.step(masked_random(infos["action_mask"], rng))
        done += 1
        if (calls and done >= calls) or (not calls and done % 8 == 0 and time.perf_counter() - t0 >= seconds):
            break
    dt = time.perf_counter() - t0
    state["infos"] = infos
    return done * envs.num_envs / dt


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--num-envs", type=int, default=64, help="envs in each vector env (default 64)")
    ap.add_argument("--seconds", type=float, default=1.0,
                    help="seconds of stepping per vector env and round (default 1.0)")
    ap.add_argument("--steps", type=int, default=0,
                    help="a fixed number of env steps per vector env and round instead of --seconds")
    ap.add_argument("--rounds", type=int, default=5, help="alternating timing slices (default 5)")
    ap.add_argument("--ruleset", default="farkle", help="preset (default farkle)")
    ap.add_argument("--players", type=int, default=2, help="players per game (default 2)")
    ap.add_argument("--opponent", default="greedy", help="opponent of both envs: greedy or random (default greedy)")
    a = ap.parse_args(argv)
    for name, value in (("--num-envs", a.num_envs), ("--rounds", a.rounds)):
        if value < 1:
            ap.error(f"{name} {value}: must be at least 1")
    if a.steps < 0 or (not a.steps and not a.seconds > 0):
        ap.error(f"--steps {a.steps} / --seconds {a.seconds}: give a positive number of steps or seconds")
    kw = {"ruleset": a.ruleset, "num_players": a.players}
    native = gym.make_vec("Zilch-v1", num_envs=a.num_envs, vectorization_mode="vector_entry_point",
                          opponents=a.opponent, **kw)
    sync = gym.make_vec("Zilch-v1", num_envs=a.num_envs, vectorization_mode="sync", opponents=a.opponent, **kw)
    rng = np.random.default_rng(0)
    sn, ss = {}, {}
    warm = min(a.steps or 10 * a.num_envs, 10 * a.num_envs)
    run(native, rng, sn, steps=warm)  # compile and warm up
    run(sync, rng, ss, steps=warm)
    rn, rs = [], []
    for _ in range(a.rounds):
        rn.append(run(native, rng, sn, a.steps, a.seconds))
        rs.append(run(sync, rng, ss, a.steps, a.seconds))
    n, s = float(np.median(rn)), float(np.median(rs))
    print(f"Zilch-v1 {a.ruleset}, {a.players} players, {a.opponent} opponents, N = {a.num_envs}, "
          f"{a.rounds} rounds of {f'{a.steps} env steps' if a.steps else f'{a.seconds:g} s'} each (medians)")
    print(f"  native vector env (vector_entry_point): {n:12,.0f} env steps/s")
    print(f"  SyncVectorEnv of Zilch-v1:              {s:12,.0f} env steps/s")
    print(f"  ratio: {n / s:.1f}x SyncVectorEnv")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
