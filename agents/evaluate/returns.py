"""The mean return of an agent in a registered environment, as ``gymnasium.make`` builds it.

    from agents.evaluate.returns import env_returns, mean_return

    returns = env_returns("heuristic", "zonk", episodes=1000)      # Zilch-v2, its default opponent
    print(mean_return(returns))                                     # the mean with its 95% interval

The protocol (docs/environment.md, "Baselines of the pinned environment"): episode ``i`` (``i`` = 0,
1, ..., ``episodes - 1``) is ``env.reset(seed=seed + i)`` on ``gymnasium.make(env_id, ruleset=preset)``
with nothing else passed, so the env's own defaults hold (``Zilch-v2``: two players, the ``greedy``
opponent, the agent's seat drawn at every reset, the ``win`` reward); the agent under test decides
from the game the env holds (``env.unwrapped.state``) with the decision stream
``numpy.random.default_rng([seed, i])``. Episode ``i`` therefore deals the same seat and starts from
the same dice for every agent (common random numbers until the play differs). The return of an
episode is the sum of its rewards (under ``win``: +1 a sole win, 0 a shared win or the horizon, -1
otherwise). The interval is Student's t over the episodes, which are independent
(:func:`agents.evaluate.stats.cluster_mean` with one episode per cluster).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from zilch_env import Ruleset

from agents.evaluate.stats import ClusterMean, cluster_mean

__all__ = ["env_returns", "mean_return", "shipped_spec"]


def shipped_spec(preset: str) -> str:
    """The shipped trained agent of a preset: ``ppo:PRESET`` when one ships under that name, else the
    agent for any ruleset, ``ppo:any``."""
    from agents.learned import shipped_policies

    return f"ppo:{preset}" if preset in shipped_policies() else "ppo:any"


def env_returns(spec: str, ruleset: str | Ruleset, episodes: int, *, seed: int = 0, env_id: str = "Zilch-v2",
                env_kwargs: Mapping[str, Any] | None = None,
                progress: Callable[[int], None] | None = None) -> np.ndarray:
    """The return of each of ``episodes`` episodes of agent ``spec`` (an agent spec, as ``zilch eval``
    takes) in ``gymnasium.make(env_id, ruleset=ruleset, **env_kwargs)``, by the protocol of the module
    docstring. ``progress(k)`` is called with the episodes done so far, now and then."""
    import gymnasium as gym

    import zilch_env  # noqa: F401  (registers the ids)
    from agents.base import make_agent

    if isinstance(episodes, bool) or not isinstance(episodes, (int, np.integer)) or episodes < 1:
        raise ValueError(f"episodes = {episodes!r}: a whole number, 1 or more")
    env = gym.make(env_id, ruleset=ruleset, **dict(env_kwargs or {}))
    try:
        game_env = env.unwrapped
        agent = make_agent(spec, game_env.ruleset)
        out = np.zeros(int(episodes), dtype=np.float64)
        for i in range(int(episodes)):
            env.reset(seed=seed + i)
            rng = np.random.default_rng([seed, i])
            total, done = 0.0, False
            while not done:
                state = game_env.state
                action = agent.act(state, state.legal_actions(), rng)
                _, reward, terminated, truncated, _ = env.step(action)
                total += float(reward)
                done = terminated or truncated
            out[i] = total
            if progress is not None and (i + 1) % 100 == 0:
                progress(i + 1)
        if progress is not None:
            progress(int(episodes))
        return out
    finally:
        env.close()


def mean_return(returns: np.ndarray) -> ClusterMean:
    """The mean of the episodes' returns with Student's t 95% interval (the episodes independent)."""
    x = np.asarray(returns, dtype=np.float64)
    return cluster_mean(x.reshape(-1, 1))
