"""Wrappers of ``Zilch-v1`` for libraries that read the action mask from the observation.

:class:`ActionMaskDict` turns the observation into ``{"action_mask": ..., "observations": ...}``,
the layout RLlib's action-masking RLModule (``ActionMaskingTorchRLModule``) reads; see
``examples/rllib_ppo.py``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

__all__ = ["ActionMaskDict"]


class ActionMaskDict(gym.Wrapper):
    """``Zilch-v1`` with a ``Dict`` observation: ``"observations"`` the env's 471 values and
    ``"action_mask"`` its 136 legal-action flags as float32 (1.0 = legal; all 0 in the observation
    that ends an episode). Rewards, flags and infos pass through unchanged.

    ``mask_key`` / ``obs_key`` rename the two entries (RLlib's names are the defaults)."""

    def __init__(self, env: gym.Env, mask_key: str = "action_mask", obs_key: str = "observations"):
        super().__init__(env)
        n = env.action_space.n
        self.mask_key, self.obs_key = mask_key, obs_key
        self.observation_space = spaces.Dict({
            mask_key: spaces.Box(0.0, 1.0, shape=(n,), dtype=np.float32),
            obs_key: env.observation_space,
        })

    def _wrap(self, obs: np.ndarray, info: dict[str, Any]) -> dict[str, np.ndarray]:
        return {self.mask_key: np.asarray(info["action_mask"], dtype=np.float32), self.obs_key: obs}

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        return self._wrap(obs, info), info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self._wrap(obs, info), reward, terminated, truncated, info
