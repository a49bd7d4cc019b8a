"""The envs' horizon (``max_turns``) and infos of one shape.

14. A policy that never banks played one ``Zilch-v0`` game for ever (100,000 steps, 26,344 turns,
    no episode end); the AEC env with two such seats the same. Now ``max_turns`` (default 1000 game
    turns) truncates, in ``Zilch-v0``, ``Zilch-v1``, the AEC env and the batched VecEnv.
15. ``info["winners"]`` had one entry or two (after a draw), which broke Tianshou's replay buffer
    (``shape mismatch (8,2) vs (8,1)``). Every info key now has one shape for a given env.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import zilch_env
from zilch_env import NUM_ACTIONS, ZilchEnv, aec_env
from zilch_env.envs.gym_env import DEFAULT_MAX_TURNS, info_keys
from zilch_env.envs.vec_env import BatchedZilchVecEnv


def never_bank(mask: np.ndarray) -> int:
    """Keep the first legal keep and roll on, never bank (turn-start choices: the first legal)."""
    legal = np.flatnonzero(mask)
    rolls = legal[(legal < 128) & (legal % 2 == 0)]
    return int(rolls[0] if rolls.size else legal[0])


# ------------------------------------------------------------------ item 14: the horizon


@pytest.mark.parametrize("env_id", ["Zilch-v0", "Zilch-v1"])
def test_never_banking_alone_is_truncated_at_the_default_horizon(env_id):
    env = gym.make(env_id, ruleset="zonk", num_players=1)
    obs, info = env.reset(seed=0)
    for steps in range(1, 50_000):
        obs, reward, terminated, truncated, info = env.step(never_bank(info["action_mask"]))
        if terminated or truncated:
            break
    assert truncated and not terminated, f"no episode end after {steps} steps"
    assert info["game_turns"] == DEFAULT_MAX_TURNS == 1000 and not info["game_over"]
    assert reward == 0.0 and not info["action_mask"].any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_max_turns_counts_all_seats_and_is_checked_at_the_agents_decision():
    env = ZilchEnv("zonk", num_players=3, opponents=zilch_env.GreedyMover(10_000), max_turns=7)
    obs, info = env.reset(seed=3)
    truncated = terminated = False
    while not (terminated or truncated):
        obs, reward, terminated, truncated, info = env.step(never_bank(info["action_mask"]))
    assert truncated and not terminated and 7 <= info["game_turns"] < 7 + 3
    # the horizon and the agent-turn limit together: whichever comes first
    env = ZilchEnv("zonk", num_players=1, reward="score", turns=3, max_turns=100)
    obs, info = env.reset(seed=0)
    while True:
        obs, reward, terminated, truncated, info = env.step(never_bank(info["action_mask"]))
        if terminated or truncated:
            break
    assert truncated and info["agent_turns"] == 3 == info["game_turns"]


def test_aec_env_two_never_banking_seats_are_truncated():
    env = aec_env("zonk", 2, max_turns=50)
    env.reset(seed=1)
    steps = 0
    for agent in env.agent_iter(100_000):
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(never_bank(obs["action_mask"]))
        steps += 1
    raw = env.unwrapped
    assert not env.agents, f"the game did not end in {steps} steps"
    assert len(raw.state.turns) == 50 and not raw.state.done
    assert all(raw.truncations.values()) and not any(raw.terminations.values())
    assert info["game_turns"] == 50 and not info["game_over"] and not info["winners"].any()


def test_aec_env_default_horizon():
    env = aec_env("zonk", 1)
    env.reset(seed=0)
    for agent in env.agent_iter(100_000):
        obs, reward, terminated, truncated, info = env.last()
        env.step(None if terminated or truncated else never_bank(obs["action_mask"]))
    assert env.unwrapped.max_turns == 1000 and len(env.unwrapped.state.turns) == 1000
    assert truncated and not terminated


def test_batched_vec_env_horizon_truncates_like_zilch_v0():
    venv = BatchedZilchVecEnv("zonk", num_envs=4, num_players=1, seed=2, max_turns=20)
    venv.reset()
    ended = []
    for _ in range(2000):
        actions = np.array([never_bank(m) for m in venv.action_masks()])
        obs, rewards, dones, infos = venv.step(actions)
        for i in np.flatnonzero(dones):
            ended.append(infos[i])
        if len(ended) >= 8:
            break
    assert len(ended) >= 8
    for info in ended:
        assert info["TimeLimit.truncated"] and info["game_turns"] == 20 and not info["game_over"]
        assert info["winners"].shape == (1,) and not info["winners"].any()
    assert BatchedZilchVecEnv("zonk", num_envs=1).max_turns == DEFAULT_MAX_TURNS


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "10", None])
def test_bad_max_turns_names_the_value(bad):
    for make in (lambda: ZilchEnv(max_turns=bad), lambda: aec_env(max_turns=bad),
                 lambda: BatchedZilchVecEnv(num_envs=1, max_turns=bad)):
        with pytest.raises(ValueError, match=r"max_turns = .*1 or more"):
            make()


# ------------------------------------------------------------------ item 15: one shape per key


def shapes(info: dict) -> dict:
    return {k: np.shape(v) for k, v in info.items()}


def test_zilch_v0_info_has_one_shape_across_episodes_draws_truncations_and_illegal_moves():
    # target 500 makes draws common; max_turns 6 truncates some games; every 7th episode sends
    # an illegal action
    env = gym.make("Zilch-v1", ruleset="zonk", num_players=2, overrides={"target": 500}, max_turns=6)
    rng = np.random.default_rng(0)
    want = info_keys(2)
    seen = {"draw": 0, "win": 0, "truncated": 0, "illegal": 0}
    infos = []
    for ep in range(200):
        obs, info = env.reset(seed=ep)
        infos.append(info)
        if not info["action_mask"].any():  # the target reached before the agent's first decision
            continue
        while True:
            legal = np.flatnonzero(info["action_mask"])
            a = 0 if ep % 7 == 6 else int(rng.choice(legal))
            obs, r, term, trunc, info = env.step(a)
            infos.append(info)
            if term or trunc:
                break
        if info["illegal_action"]:
            seen["illegal"] += 1
        elif trunc:
            seen["truncated"] += 1
        else:
            seen["draw" if info["winners"].sum() > 1 else "win"] += 1
    assert all(seen.values()), seen
    for info in infos:
        assert shapes(info) == want
    # what a replay buffer does with them: stack every key
    for k in want:
        assert np.stack([i[k] for i in infos]).shape == (len(infos),) + want[k]


def test_sync_vector_env_stacks_infos_through_draws():
    envs = gym.vector.SyncVectorEnv([lambda: gym.make("Zilch-v1", overrides={"target": 500}) for _ in range(4)])
    obs, infos = envs.reset(seed=0)
    rng = np.random.default_rng(1)
    draws = 0
    for _ in range(300):
        actions = [int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in infos["action_mask"]]
        obs, r, term, trunc, infos = envs.step(actions)
        assert infos["winners"].shape == (4, 2) and infos["final_scores"].shape == (4, 2)
        draws += int((infos["winners"].sum(axis=1) > 1).sum())
    assert draws > 0


def test_aec_infos_have_one_shape_across_draws_as_tianshou_stacks_them():
    """What Tianshou's ``PettingZooEnv`` does: the info of ``env.last()`` after every step, stacked
    key by key (its replay buffer): a draw, too, gives ``winners`` one entry per seat."""
    env = aec_env("zonk", 2, overrides={"target": 500})
    rng = np.random.default_rng(2)
    infos, draws = [], 0
    for ep in range(150):
        env.reset(seed=ep)
        infos.append(env.last()[4])
        for agent in env.agent_iter():
            obs, r, term, trunc, info = env.last()
            if term or trunc:
                draws += int(info["winners"].sum() > 1)
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            if env.agents:
                infos.append(env.last()[4])
    assert draws > 0
    want = {"scores": (2,), "game_turns": (), "game_over": (), "winners": (2,), "rules_fingerprint": ()}
    for info in infos:
        assert shapes(info) == want
    for k in want:
        assert np.stack([i[k] for i in infos]).shape == (len(infos),) + want[k]


def test_tianshou_replay_buffer_takes_the_aec_infos():
    """The recipe that failed (``ValueError: shape mismatch``): Tianshou's ``PettingZooEnv`` over
    ``aec_env()`` feeding a ``VectorReplayBuffer``, through draws."""
    from tianshou.data import Batch, ReplayBuffer
    from tianshou.env import PettingZooEnv

    env = PettingZooEnv(aec_env("zonk", 2, overrides={"target": 500}))
    buf = ReplayBuffer(size=5000)
    rng = np.random.default_rng(3)
    draws = 0
    for ep in range(60):
        obs, info = env.reset(seed=ep)
        while True:
            a = int(rng.choice(np.flatnonzero(obs["mask"])))
            obs2, rew, term, trunc, info = env.step(a)
            buf.add(Batch(obs=obs["obs"], act=a, rew=rew[0], terminated=term, truncated=trunc,
                          obs_next=obs2["obs"], info=info))
            obs = obs2
            if term or trunc:
                draws += int(info["winners"].sum() > 1)
                break
    assert draws > 0 and len(buf) > 100
    assert buf.info.winners.shape == (buf.maxsize, 2) and buf.info.scores.shape == (buf.maxsize, 2)
