"""The wrappers through which ``train/ppo.py``'s PPO sees the games: :class:`ScaledReward` (the
DummyVecEnv's Zilch-v0 envs: the score objective's scale and episode end) and :func:`turn_returns`
(a VecEnv wrapper: one return per agent turn). Re-exported by ``train/ppo.py``."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

__all__ = ["ScaledReward", "turn_returns"]


class ScaledReward(gym.Wrapper):
    """Divides the reward by ``scale`` and, when ``end_is_terminal``, reports the episode's turn limit
    as a termination (no bootstrapping; see ``train/ppo.py``'s docstring). Passes ``action_masks`` through."""

    def __init__(self, env: gym.Env, scale: float, end_is_terminal: bool):
        super().__init__(env)
        self.scale = scale
        self.end_is_terminal = end_is_terminal

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        if self.end_is_terminal and truncated:
            terminated, truncated = True, False
        return obs, reward / self.scale, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self.env.unwrapped.action_masks()


def turn_returns(venv: Any) -> Any:
    """The advantage one turn at a time (the score objective, and the shaped win objective, whose
    rewards are paid move by move too): a VecEnv wrapper that reports the end of
    every agent turn as the end of an episode to PPO (``done`` without truncation, so nothing is
    bootstrapped past it), while the game itself goes on. Once on the board the turns are
    independent: a decision changes only the points of its own turn, so the later turns' points are
    pure noise in its return (with gamma 1 and GAE lambda 0.95 they would add the variance of about
    seven more turns to every advantage). A new turn is seen in the observation: the agent is to
    keep with a turn total of 0 (every keep scores, so within a turn the total is above 0), or to
    answer a piggyback offer. The cut steps carry ``info["turn_cut"] = True``; real episode ends
    are passed on unchanged. Only shaped games are cut: a game whose rules have no potential
    (``BatchedZilchVecEnv.shaped`` False, a ruleset of ``--ruleset any`` without a game table) is
    paid its result at the end alone, and cut at its turns its earlier turns would never see it
    (the score objective has no potential: every turn is cut)."""
    from stable_baselines3.common.vec_env import VecEnvWrapper

    from zilch_env.engine.game import Phase
    from zilch_env.engine.observation import LAYOUT

    at = {f.name: f.index.start for f in LAYOUT}
    keep_col, total_col = at["phase"] + int(Phase.KEEP), at["turn_total"]
    offer_col = at["phase"] + int(Phase.PIGGYBACK)  # a piggyback offer opens a turn too

    class TurnReturns(VecEnvWrapper):
        def reset(self):
            return self.venv.reset()

        def step_wait(self):
            obs, rewards, dones, infos = self.venv.step_wait()
            cut = (~dones) & (((obs[:, keep_col] == 1.0) & (obs[:, total_col] == 0.0)) | (obs[:, offer_col] == 1.0))
            if getattr(self.venv, "potential", None) is not None:  # a shaped env: cut its shaped games
                cut &= self.venv.shaped
            if cut.any():
                dones = dones | cut
                for i in np.flatnonzero(cut):
                    infos[i]["turn_cut"] = True
            return obs, rewards, dones, infos

    return TurnReturns(venv)  # masks: MaskablePPO asks env_method("action_masks"), passed through
