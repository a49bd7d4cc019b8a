"""Tianshou DQN with action masks on the PettingZoo AEC env (``zilch_env.envs.zilch_v2``).

Tianshou's multi-agent recipe (its tic-tac-toe example): ``PettingZooEnv(zilch_v2.env())`` in a
``DummyVectorEnv``, a masked DQN for one seat and Tianshou's masked random policy for the other,
``MultiAgentOffPolicyAlgorithm`` routing each step to the seat to move (in Zilch a seat moves several
times in a row: every roll of a turn is a decision). The DQN picks only legal actions: Tianshou
masks the Q-values with the observation's ``mask``, which ``PettingZooEnv`` reads from the AEC
env's ``action_mask``. The infos have one shape at every step, so the replay buffer stores them.

    python examples/tianshou_dqn.py [--epochs 10] [--steps-per-epoch 2000] [--eval-games 200]

It prints the learned seat's win rate against the random seat before training (the untrained
network) and after, over ``--eval-games`` games with seats alternating (a draw counts half).
Install: ``pip install tianshou`` (in the ``dev`` extra).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm  # noqa: E402
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy  # noqa: E402
from tianshou.algorithm.optim import AdamOptimizerFactory  # noqa: E402
from tianshou.data import Collector, CollectStats, ReplayBuffer, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv  # noqa: E402
from tianshou.env.pettingzoo_env import PettingZooEnv  # noqa: E402
from tianshou.trainer import OffPolicyTrainerParams  # noqa: E402
from tianshou.utils.net.common import Net  # noqa: E402

from zilch_env.envs import zilch_v2  # noqa: E402


def make_env(args) -> PettingZooEnv:
    return PettingZooEnv(zilch_v2.env(ruleset=args.ruleset, num_players=2,
                                      overrides={"target": args.target} if args.target else None))


def win_rate(net: torch.nn.Module, args, games: int, seed: int) -> float:
    """The network's seat (greedy on masked Q-values) against uniform random legal moves, seats
    alternating; a draw is half a win."""
    env = zilch_v2.env(ruleset=args.ruleset, num_players=2,
                       overrides={"target": args.target} if args.target else None)
    rng = np.random.default_rng(seed)
    score = 0.0
    net.eval()
    for g in range(games):
        env.reset(seed=seed + g)
        learner = f"player_{g % 2}"
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                if agent == learner:
                    w = info["winners"]
                    score += (1.0 if w.sum() == 1 else 0.5) if w[g % 2] else 0.0
                env.step(None)
                continue
            mask = obs["action_mask"].astype(bool)
            if agent == learner:
                with torch.no_grad():
                    q = net(torch.as_tensor(obs["observation"][None]))[0][0].numpy()
                action = int(np.flatnonzero(mask)[np.argmax(q[mask])])
            else:
                action = int(rng.choice(np.flatnonzero(mask)))
            env.step(action)
    net.train()
    return score / games


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ruleset", default="zonk")
    ap.add_argument("--target", type=int, default=3000, help="points to win (default 3000: short games)")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--steps-per-epoch", type=int, default=2000)
    ap.add_argument("--envs", type=int, default=4)
    ap.add_argument("--buffer", type=int, default=20000)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--eval-games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    torch.set_num_threads(1)

    env = make_env(args)
    obs_space = env.observation_space["observation"]
    net = Net(state_shape=obs_space.shape, action_shape=env.action_space.n, hidden_sizes=[128, 128])
    before = win_rate(net, args, args.eval_games, seed=10_000)
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.1, eps_inference=0.0)
    learner = DQN(policy=policy, optim=AdamOptimizerFactory(lr=args.lr), gamma=0.99, n_step_return_horizon=3,
                  target_update_freq=320)
    opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    marl = MultiAgentOffPolicyAlgorithm(algorithms=[opponent, learner], env=env)  # DQN plays player_1

    train_envs = DummyVectorEnv([lambda: make_env(args) for _ in range(args.envs)])
    test_envs = DummyVectorEnv([lambda: make_env(args)])
    train_envs.seed(args.seed)
    test_envs.seed(args.seed + 1)
    # one env: a plain ReplayBuffer (VectorReplayBuffer compiles its numba kernels first, ~20 s)
    buffer = ReplayBuffer(args.buffer) if args.envs == 1 else VectorReplayBuffer(args.buffer, args.envs)
    train = Collector[CollectStats](marl, train_envs, buffer, exploration_noise=True)
    test = Collector[CollectStats](marl, test_envs, exploration_noise=True)
    train.reset()
    train.collect(n_step=args.batch_size * args.envs)
    t0 = time.perf_counter()
    marl.run_training(OffPolicyTrainerParams(
        training_collector=train, test_collector=test, max_epochs=args.epochs,
        epoch_num_steps=args.steps_per_epoch, collection_step_num_env_steps=args.envs * -(-10 // args.envs), test_step_num_episodes=1,
        batch_size=args.batch_size, update_step_num_gradient_steps_per_sample=0.1, test_in_training=False,
        multi_agent_return_reduction=lambda rews: rews[:, 1], show_progress=False))
    seconds = time.perf_counter() - t0
    after = win_rate(net, args, args.eval_games, seed=10_000)
    steps = args.epochs * args.steps_per_epoch
    print(f"Tianshou DQN on zilch_v2 ({args.ruleset}, target {args.target}) against random legal moves, "
          f"{steps} env steps in {seconds:.0f} s")
    print(f"  win rate before training: {before:.3f}   after: {after:.3f}   ({args.eval_games} games each)")
    return {"before": before, "after": after, "steps": steps, "seconds": seconds}


if __name__ == "__main__":
    main()
