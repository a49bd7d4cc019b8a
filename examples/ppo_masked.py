"""Masked PPO in one file, CleanRL style, on Zilch-v2's native vector env.

    python examples/ppo_masked.py [--total-timesteps 500000] [--num-envs 64] [--ruleset zonk]
                                  [--opponent greedy] [--eval-games 1000] [--seed 1]

The environments are ``gymnasium.make_vec("Zilch-v2", vectorization_mode="vector_entry_point")``
(the batched engine: one compiled call steps all games, the greedy opponent's moves included) with
``autoreset_mode="same_step"``: the observation after an episode's last step is already the next
game's first decision, so every stored step is a real decision with a non-empty action mask, and
``terminated | truncated`` marks where the returns stop (as CleanRL's ``next_done``; a truncation,
only at the 1000-turn horizon, is not bootstrapped). The policy is a categorical over the 136
actions with the illegal ones' logits set to a large negative number (``infos["action_mask"]``),
in the sampled actions, the log-probabilities and the entropy alike.

It prints the win rate of the deterministic policy (the most likely legal action) against the
opponent before training and after, over ``--eval-games`` games (a draw counts half).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

import zilch_env  # noqa: E402,F401  (registers Zilch-v2)


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ruleset", default="zonk")
    p.add_argument("--opponent", default="greedy", help="the vector env's opponents: an agent spec (greedy, random, greedy:N; "
                   "optimal-turn with the agents package installed)")
    p.add_argument("--total-timesteps", type=int, default=500_000)
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--num-steps", type=int, default=64, help="steps per env per rollout")
    p.add_argument("--learning-rate", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=1.0, help="episodic, reward only at the end (default 1)")
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--eval-games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=1, help="torch threads (default 1: small networks)")
    return p.parse_args(argv)


def layer(i: int, o: int, std: float = np.sqrt(2)) -> nn.Linear:
    lin = nn.Linear(i, o)
    nn.init.orthogonal_(lin.weight, std)
    nn.init.constant_(lin.bias, 0.0)
    return lin


class Agent(nn.Module):
    def __init__(self, obs_size: int, n_actions: int):
        super().__init__()
        self.critic = nn.Sequential(layer(obs_size, 256), nn.Tanh(), layer(256, 256), nn.Tanh(), layer(256, 1, 1.0))
        self.actor = nn.Sequential(layer(obs_size, 256), nn.Tanh(), layer(256, 256), nn.Tanh(),
                                   layer(256, n_actions, 0.01))

    def value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x).squeeze(-1)

    def dist(self, x: torch.Tensor, mask: torch.Tensor) -> torch.distributions.Categorical:
        logits = self.actor(x).masked_fill(~mask, -1e8)  # illegal actions: probability 0
        return torch.distributions.Categorical(logits=logits)


def make_envs(args, n: int, seed: int):
    envs = gym.make_vec("Zilch-v2", num_envs=n, vectorization_mode="vector_entry_point", ruleset=args.ruleset,
                        opponents=args.opponent, autoreset_mode="same_step")
    return envs, envs.reset(seed=seed)


def evaluate(agent: Agent, args, games: int, seed: int) -> float:
    """Win rate (a draw half) of the most likely legal action against the opponent."""
    n = min(games, 256)
    envs, (obs, infos) = make_envs(args, n, seed)
    done_games, score = 0, 0.0
    with torch.no_grad():
        while done_games < games:
            mask = torch.as_tensor(infos["action_mask"], dtype=torch.bool)
            logits = agent.actor(torch.as_tensor(obs)).masked_fill(~mask, -1e8)
            obs, _, term, trunc, infos = envs.step(logits.argmax(-1).numpy())
            for i in np.flatnonzero(term | trunc):
                if done_games < games:
                    f = infos["final_info"]
                    w, seat = f["winners"][i], f["seat"][i]
                    score += (1.0 if w.sum() == 1 else 0.5) if w[seat] else 0.0
                    done_games += 1
    return score / games


def main(argv=None) -> dict:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng_seed = args.seed
    envs, (next_obs, infos) = make_envs(args, args.num_envs, rng_seed)
    obs_size = envs.single_observation_space.shape[0]
    n_actions = envs.single_action_space.n
    agent = Agent(obs_size, n_actions)
    before = evaluate(agent, args, args.eval_games, seed=10_000)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    N, T = args.num_envs, args.num_steps
    obs = torch.zeros((T, N, obs_size))
    masks = torch.zeros((T, N, n_actions), dtype=torch.bool)
    actions = torch.zeros((T, N), dtype=torch.long)
    logprobs, rewards, dones, values = (torch.zeros((T, N)) for _ in range(4))
    next_obs = torch.as_tensor(next_obs)
    next_mask = torch.as_tensor(infos["action_mask"], dtype=torch.bool)
    next_done = torch.zeros(N)
    batch = N * T
    minibatch = batch // args.num_minibatches
    iterations = max(1, args.total_timesteps // batch)
    t0 = time.perf_counter()
    for it in range(1, iterations + 1):
        for g in optimizer.param_groups:  # linear learning-rate decay
            g["lr"] = (1.0 - (it - 1.0) / iterations) * args.learning_rate
        for step in range(T):
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                d = agent.dist(next_obs, next_mask)
                action = d.sample()
                values[step] = agent.value(next_obs)
            actions[step], logprobs[step] = action, d.log_prob(action)
            o, r, term, trunc, infos = envs.step(action.numpy())
            rewards[step] = torch.as_tensor(r, dtype=torch.float32)
            next_obs = torch.as_tensor(o)
            next_mask = torch.as_tensor(infos["action_mask"], dtype=torch.bool)
            next_done = torch.as_tensor(term | trunc, dtype=torch.float32)
        with torch.no_grad():  # GAE
            next_value = agent.value(next_obs)
            adv = torch.zeros_like(rewards)
            last = 0.0
            for t in reversed(range(T)):
                nonterminal = 1.0 - (next_done if t == T - 1 else dones[t + 1])
                nv = next_value if t == T - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * nv * nonterminal - values[t]
                adv[t] = last = delta + args.gamma * args.gae_lambda * nonterminal * last
            returns = adv + values
        b_obs, b_masks = obs.reshape(batch, obs_size), masks.reshape(batch, n_actions)
        b_act, b_logp = actions.reshape(batch), logprobs.reshape(batch)
        b_adv, b_ret = adv.reshape(batch), returns.reshape(batch)
        for _ in range(args.update_epochs):
            perm = torch.randperm(batch)
            for start in range(0, batch, minibatch):
                mb = perm[start: start + minibatch]
                d = agent.dist(b_obs[mb], b_masks[mb])
                ratio = (d.log_prob(b_act[mb]) - b_logp[mb]).exp()
                a = b_adv[mb]
                a = (a - a.mean()) / (a.std() + 1e-8)
                pg = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                v = 0.5 * ((agent.value(b_obs[mb]) - b_ret[mb]) ** 2).mean()
                loss = pg + args.vf_coef * v - args.ent_coef * d.entropy().mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
    seconds = time.perf_counter() - t0
    steps = iterations * batch
    after = evaluate(agent, args, args.eval_games, seed=10_000)
    print(f"masked PPO on Zilch-v2 ({args.ruleset}) against {args.opponent}: {steps} env steps in {seconds:.0f} s "
          f"({steps / seconds:,.0f} steps/s with updates)")
    print(f"  win rate before training: {before:.3f}   after: {after:.3f}   ({args.eval_games} games each)")
    return {"before": before, "after": after, "steps": steps, "seconds": seconds}


if __name__ == "__main__":
    main()
