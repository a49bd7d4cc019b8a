"""Training throughput: MaskablePPO environment steps per second on Zilch-v0, against a trivial masked
env with the same spaces, measured in the same run, and where the time goes.

    python bench/train_throughput.py [--timesteps 40960] [--ruleset zonk] [--opponents greedy]
                                     [--n-envs 8] [--threads 1] [--n-steps 256] [--n-epochs 4]

Both runs use ``train/ppo.py``'s PPO settings (its ``Args`` defaults unless given here), 8
``DummyVecEnv`` envs, one torch thread, the CPU. The time of each run is split three ways:

* env: inside ``VecEnv.step`` (the game, the opponents' moves, the observation encoder) and the mask
  query ``get_action_masks``;
* policy: the rest of the rollout (the forward pass of the masked policy per step, SB3's buffer);
* update: ``model.train()``, the PPO epochs over the rollout.

With ``--batched N`` (default 64) it also measures ``BatchedZilchVecEnv`` (``train/ppo.py --vec
batched``: the same games stepped by the compiled batched engine), with ``--n-envs`` envs and with N
envs at the same rollout size (``n_steps`` scaled down), where one policy call serves N games.
With ``--shaping`` (default ``regret``, ``train/ppo.py``'s default where the ruleset's game table is
stored) it then measures that batched VecEnv with the solved game's potential: every turn situation
not met before solves its turn DP first, so this rate is lowest at the start of a run and rises as
the turns are cached; ``--shaping-timesteps`` measures it over a longer window.

With ``--train-env`` (default on) it then measures the env a default ``python train/ppo.py --ruleset
R`` trains on, built by ``train/ppo.py`` itself (``make_training_envs``: 64 batched envs against
``optimal-turn`` and self-play, ``--shaping regret``, one return per turn) over
``--train-timesteps`` steps from a cold start (no turn solved yet), without the periodic
evaluations: the rate of a run's training steps.

The trivial env (``bench/env.py``'s ``TrivialEnv``: a constant observation and mask, episodes of 50
steps) costs almost nothing to step, so its rate is the ceiling that PPO itself sets on this machine.
Every run uses ``train/ppo.py``'s torch settings (``torch_settings``).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402

import zilch_env  # noqa: E402,F401
from env import TrivialEnv  # noqa: E402  (bench/env.py)
from train.args import Args, torch_settings  # noqa: E402


class Timed:
    """Accumulates the seconds spent in some methods of an object."""

    def __init__(self):
        self.seconds: dict[str, float] = {}

    def wrap(self, obj, method: str, key: str) -> None:
        fn = getattr(obj, method)

        def timed(*a, **kw):
            t = time.perf_counter()
            try:
                return fn(*a, **kw)
            finally:
                self.seconds[key] = self.seconds.get(key, 0.0) + time.perf_counter() - t

        setattr(obj, method, timed)


class TrivialMasked(TrivialEnv):
    def action_masks(self) -> np.ndarray:
        return self._mask.astype(bool)


def run(make_env, a: Args, timesteps: int, n_envs: int, venv=None) -> dict[str, float]:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    torch_settings(a.threads)
    if venv is None:
        venv = DummyVecEnv([make_env] * n_envs)
    venv.seed(0)
    hidden = [int(h) for h in a.net_arch.split(",")]
    model = MaskablePPO("MlpPolicy", venv, learning_rate=a.learning_rate, n_steps=a.n_steps,
                        batch_size=a.batch_size, n_epochs=a.n_epochs, gamma=a.gamma, gae_lambda=a.gae_lambda,
                        ent_coef=a.ent_coef, policy_kwargs={"net_arch": {"pi": hidden, "vf": hidden}},
                        seed=0, device="cpu")
    model.learn(a.n_steps * n_envs)  # warm-up: tables, caches, first allocations
    gc.collect()
    gc.freeze()  # as train/ppo.py does before it learns
    tm = Timed()
    tm.wrap(venv, "step", "env")
    tm.wrap(venv, "env_method", "env")  # get_action_masks -> env_method("action_masks")
    tm.wrap(model, "train", "update")
    t = time.perf_counter()
    n0 = model.num_timesteps
    model.learn(timesteps, reset_num_timesteps=False)
    total = time.perf_counter() - t
    steps = model.num_timesteps - n0
    env_s, upd_s = tm.seconds.get("env", 0.0), tm.seconds.get("update", 0.0)
    return {"steps": steps, "seconds": total, "sps": steps / total, "env": env_s, "update": upd_s,
            "policy": total - env_s - upd_s}


def train_env(rs) -> object:
    """The VecEnv of ``python train/ppo.py --ruleset R`` with its defaults, as train/ppo.py builds it
    (a fresh self-play pool holding one untrained snapshot)."""
    from train import ppo
    from train.selfplay import PolicySnapshot, SelfPlayPool

    args = ppo.parse_args(["--ruleset", rs.name])
    specs = ppo.opponent_specs(args)
    args = ppo.resolve_auto(args, rs, specs)
    pool = SelfPlayPool(args.selfplay_pool)
    venv = ppo.make_training_envs(args, rs, 2, specs, pool)
    probe = ppo.new_model(args, venv)
    pool.add(PolicySnapshot.from_policy(probe.policy), 0)
    return venv


def main() -> int:
    d = Args()
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--timesteps", type=int, default=40960, help="measured steps per env kind (default 40960)")
    ap.add_argument("--ruleset", default="zonk", help="preset of Zilch-v0 (default zonk)")
    ap.add_argument("--opponents", default="greedy",
                    help="agent spec of the other seat (default greedy, the env's default; "
                         "train/ppo.py trains against heuristic and self-play)")
    ap.add_argument("--n-envs", type=int, default=8, help="DummyVecEnv envs (default 8)")
    ap.add_argument("--threads", type=int, default=d.threads, help=f"torch threads (default {d.threads})")
    ap.add_argument("--n-steps", type=int, default=d.n_steps, help=f"steps per env per rollout (default {d.n_steps})")
    ap.add_argument("--n-epochs", type=int, default=d.n_epochs, help=f"PPO epochs (default {d.n_epochs})")
    ap.add_argument("--batch-size", type=int, default=d.batch_size, help=f"minibatch (default {d.batch_size})")
    ap.add_argument("--net-arch", default=d.net_arch, help=f"hidden layers (default {d.net_arch})")
    ap.add_argument("--batched", type=int, default=64, metavar="N",
                    help="also zilch_env.envs.vec_env.BatchedZilchVecEnv with --n-envs and with N envs, the same "
                         "rollout size (train/ppo.py --vec batched; 0 = skip; default 64)")
    ap.add_argument("--shaping", default="regret", choices=("regret", "decisions", "turns", "none"),
                    help="also the batched VecEnv with N envs under train/ppo.py's --shaping (the solved "
                         "game's potential, read in Python every step; the ruleset's game table must be "
                         "stored); none = skip (default regret, train/ppo.py's default where a table exists)")
    ap.add_argument("--shaping-timesteps", type=int, default=None, metavar="N",
                    help="measured steps of the shaped run (default --timesteps): its rate rises as the "
                         "solved turns it meets are cached, so a longer window shows more of a whole run")
    ap.add_argument("--train-env", action=argparse.BooleanOptionalAction, default=True,
                    help="also the env of a default train/ppo.py run (opponents optimal-turn and self, shaping "
                         "regret, turn returns), from a cold start (default on)")
    ap.add_argument("--train-timesteps", type=int, default=163840, metavar="N",
                    help="measured steps of the --train-env run (default 163840: ten rollouts)")
    args = ap.parse_args()
    a = Args(threads=args.threads, n_steps=args.n_steps, n_epochs=args.n_epochs, batch_size=args.batch_size,
             net_arch=args.net_arch)

    from agents.base import make_agent

    rs = zilch_env.load_ruleset(args.ruleset)
    opp = make_agent(args.opponents, rs)

    def zilch():
        return gym.make("Zilch-v0", ruleset=rs, num_players=2, opponents=opp, disable_env_checker=True)

    print(f"MaskablePPO, {args.n_envs} DummyVecEnv envs, {a.threads} torch thread(s), n_steps {a.n_steps}, "
          f"batch {a.batch_size}, {a.n_epochs} epochs, net {a.net_arch}; {args.timesteps} steps each\n")
    rows = [("Zilch-v0 " + f"({rs.name}, vs {args.opponents})", run(zilch, a, args.timesteps, args.n_envs)),
            ("trivial masked env", run(TrivialMasked, a, args.timesteps, args.n_envs))]
    if args.batched:
        from zilch_env.envs.vec_env import BatchedZilchVecEnv

        for n in sorted({args.n_envs, args.batched}):
            venv = BatchedZilchVecEnv(rs, num_envs=n, num_players=2, seed=0, opponent=args.opponents)
            b = Args(threads=a.threads, n_steps=max(1, a.n_steps * args.n_envs // n), n_epochs=a.n_epochs,
                     batch_size=a.batch_size, net_arch=a.net_arch)
            rows.append((f"batched VecEnv, {n} envs", run(None, b, args.timesteps, n, venv=venv)))
        if args.shaping != "none":
            from agents.solver.win_shaping import WinPotential
            from agents.solver.game import load_game_table

            table = load_game_table(rs)
            if table is None:
                print(f"(no stored game table for {rs.name}: the shaped env is skipped)")
            else:
                n = args.batched
                pot = WinPotential(rs, table, per="turn" if args.shaping == "turns" else "decision")
                venv = BatchedZilchVecEnv(rs, num_envs=n, num_players=2, seed=0, opponent=args.opponents,
                                          potential=pot, luck=args.shaping != "regret")
                b = Args(threads=a.threads, n_steps=max(1, a.n_steps * args.n_envs // n), n_epochs=a.n_epochs,
                         batch_size=a.batch_size, net_arch=a.net_arch)
                steps = args.shaping_timesteps or args.timesteps
                label = f"batched, {n} envs, shaping {args.shaping}"
                if steps != args.timesteps:
                    label += f" ({steps:,} steps)"
                rows.append((label, run(None, b, steps, n, venv=venv)))
                shaped = rows[-1][1]
                if args.train_env:
                    venv = train_env(rs)
                    d = Args()
                    rows.append((f"train/ppo.py's env ({args.train_timesteps:,} steps)",
                                 run(None, d, args.train_timesteps, venv.num_envs, venv=venv)))
                # the machine's speed drifts over minutes: the reference again, right after
                rows.append(("trivial masked env (again)", run(TrivialMasked, a, args.timesteps, args.n_envs)))
    print(f"{'env':<50}{'steps/s':>9}{'env %':>8}{'policy %':>10}{'update %':>10}"
          f"{'env us/step':>13}{'policy us/step':>16}{'update us/step':>16}")
    for name, r in rows:
        s = r["seconds"]
        print(f"{name:<50}{r['sps']:>9,.0f}{100 * r['env'] / s:>8.1f}{100 * r['policy'] / s:>10.1f}"
              f"{100 * r['update'] / s:>10.1f}{1e6 * r['env'] / r['steps']:>13.1f}"
              f"{1e6 * r['policy'] / r['steps']:>16.1f}{1e6 * r['update'] / r['steps']:>16.1f}")
    z, b = rows[0][1], rows[1][1]
    print(f"\nZilch-v0 trains at {z['sps'] / b['sps']:.2f} of the trivial env's rate. "
          f"Per step it spends {1e6 * (z['env'] - b['env']) / z['steps']:.1f} us more in the env than the "
          f"trivial env does; the policy forward and the update cost the same for both.")
    if args.batched and args.shaping != "none" and rows[-1][0] == "trivial masked env (again)":
        ref = (rows[1][1]["sps"] + rows[-1][1]["sps"]) / 2
        print(f"The shaped batched env trains at {shaped['sps'] / ref:.2f} of the trivial env's rate (the mean of "
              f"its two runs, {rows[1][1]['sps']:,.0f} and {rows[-1][1]['sps']:,.0f} steps/s).")
        if args.train_env:
            t = rows[-2][1]
            print(f"train/ppo.py's env trains at {t['sps']:,.0f} steps/s, {t['sps'] / ref:.2f} of the trivial "
                  "env's rate.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
