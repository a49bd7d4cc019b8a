"""Issue 41: a Gymnasium env that refused reset(seed=-1) was then broken for the next reset(seed=0)
(gymnasium's PassiveEnvChecker kept no data from the failed first reset); the env refuses the seed with
its own message and plays on."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import zilch_env  # noqa: F401  (registers the ids)


@pytest.mark.parametrize("env_id", ["Zilch-v1", "Zilch-v2"])
@pytest.mark.parametrize("seed", [-1, 1.5, "3"])
def test_a_refused_seed_leaves_the_env_usable(env_id, seed):
    env = gym.make(env_id)
    with pytest.raises(ValueError, match=r"reset\(seed=.*\): a seed is a whole number 0 or more"):
        env.reset(seed=seed)
    obs, _ = env.reset(seed=0)
    fresh, _ = gym.make(env_id).reset(seed=0)
    assert np.array_equal(obs, fresh)  # the same game as a fresh env's
    obs2, *_ = env.step(env.unwrapped.state.legal_actions()[0])
    assert obs2 is not None
