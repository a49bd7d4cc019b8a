"""RLlib PPO with action masking on Zilch-v2 (RLlib's new API stack, ``ActionMaskingTorchRLModule``).

Ray's RLlib pins its own Gymnasium (ray 2.60: ``gymnasium==1.2.2``), so it does not share the
project's venv (Gymnasium 1.4); it gets a venv of its own::

    python3 -m venv rllib-venv
    rllib-venv/bin/pip install torch==2.13.0 "ray[rllib]" pettingzoo numba tomli-w rich matplotlib
    rllib-venv/bin/pip install --no-deps -e .      # zilch-rl itself, from this checkout
    rllib-venv/bin/python examples/rllib_ppo.py [--iterations 20] [--eval-games 500]

(Zilch-v2 runs on Gymnasium 1.2 as on 1.4.) The observation is wrapped by
``zilch_env.envs.wrappers.ActionMaskDict`` into ``{"action_mask", "observations"}``, the layout RLlib's
action-masking RLModule reads: it gives illegal actions a logit of ``FLOAT_MIN``, so PPO samples and
scores only legal ones. The agent plays two-player zonk against the greedy player (Zilch-v2's default
opponent); the script prints its win rate (the most likely legal action, a draw half) before
training and after, over ``--eval-games`` games.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402

import zilch_env  # noqa: E402,F401  (registers Zilch-v2)
from zilch_env.envs.wrappers import ActionMaskDict  # noqa: E402


def make_env(config: dict | None = None) -> gym.Env:
    """The env RLlib builds (``env_config`` are Zilch-v2's arguments)."""
    return ActionMaskDict(gym.make("Zilch-v2", **dict(config or {})))


def win_rate(module, env_config: dict, games: int, seed: int) -> float:
    """Win rate of the module's most likely legal action against the env's opponent."""
    import torch
    from ray.rllib.core.columns import Columns

    env = make_env(env_config)
    score = 0.0
    for g in range(games):
        obs, info = env.reset(seed=seed + g)
        while True:
            batch = {Columns.OBS: {k: torch.as_tensor(v[None]) for k, v in obs.items()}}
            with torch.no_grad():
                logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0].numpy()
            mask = obs["action_mask"] > 0
            action = int(np.flatnonzero(mask)[np.argmax(logits[mask])])
            obs, r, term, trunc, info = env.step(action)
            if term or trunc:
                break
        w, seat = info["winners"], info["seat"]
        score += (1.0 if w.sum() == 1 else 0.5) if w[seat] else 0.0
    return score / games


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ruleset", default="zonk")
    ap.add_argument("--iterations", type=int, default=20, help="PPO iterations (train_batch_size env steps each)")
    ap.add_argument("--train-batch-size", type=int, default=4000)
    ap.add_argument("--envs", type=int, default=8, help="envs per env runner")
    ap.add_argument("--eval-games", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    register_env("zilch-v1-masked", make_env)
    env_config = {"ruleset": args.ruleset}
    config = (
        PPOConfig()
        .environment("zilch-v1-masked", env_config=env_config)
        .env_runners(num_env_runners=0, num_envs_per_env_runner=args.envs)
        .training(train_batch_size_per_learner=args.train_batch_size, minibatch_size=500, num_epochs=4,
                  lr=3e-4, gamma=1.0, lambda_=0.95, entropy_coeff=0.01)
        .rl_module(rl_module_spec=RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                               model_config={"head_fcnet_hiddens": [256, 256]}))
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    before = win_rate(algo.get_module(), env_config, args.eval_games, seed=10_000)
    t0 = time.perf_counter()
    steps = 0
    for i in range(args.iterations):
        result = algo.train()
        steps = int(result.get("num_env_steps_sampled_lifetime", steps))
        ret = result.get("env_runners", {}).get("episode_return_mean")
        print(f"iteration {i + 1}: {steps} env steps, mean episode return {ret}")
    seconds = time.perf_counter() - t0
    after = win_rate(algo.get_module(), env_config, args.eval_games, seed=10_000)
    print(f"RLlib PPO (action masking) on Zilch-v2 ({args.ruleset}) against greedy: {steps} env steps in "
          f"{seconds:.0f} s")
    print(f"  win rate before training: {before:.3f}   after: {after:.3f}   ({args.eval_games} games each)")
    algo.stop()
    ray.shutdown()
    return {"before": before, "after": after, "steps": steps, "seconds": seconds}


if __name__ == "__main__":
    main()
