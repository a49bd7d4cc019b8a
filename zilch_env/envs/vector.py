"""``ZilchVectorEnv``: ``Zilch-v1`` for ``num_envs`` games at once as a native
``gymnasium.vector.VectorEnv`` over the batched engine, the vector entry point of ``Zilch-v1`` and ``Zilch-v2``::

    import gymnasium as gym
    import zilch_env

    envs = gym.make_vec("Zilch-v2", num_envs=64, vectorization_mode="vector_entry_point",
                        ruleset="farkle", num_players=2, opponents="greedy")
    obs, infos = envs.reset(seed=0)                  # obs (64, 516), infos["action_mask"] (64, 136)
    obs, rewards, terminations, truncations, infos = envs.step(actions)

It is a ``SyncVectorEnv`` of ``Zilch-v1`` (same spaces, observations, masks, rewards, terminations,
truncations and info keys, stacked the way ``SyncVectorEnv`` stacks them, each with its ``_key``
mask) stepped by one compiled call for all games, the opponents' moves included
(:class:`zilch_env.envs.vec_env.BatchedZilchVecEnv` does the work; ``bench/vector.py`` measures the
speed against a ``SyncVectorEnv``).

Autoreset (Gymnasium 1.x, ``autoreset_mode``; https://farama.org/Vector-Autoreset-Mode)
    - ``"next_step"`` (default, as ``SyncVectorEnv``): the step that ends an episode returns its last
      observation with ``terminated`` / ``truncated`` set; the *next* ``step`` ignores that env's
      action, starts a new game and returns its first observation with reward 0 and both flags
      False, and the new game's info.
    - ``"same_step"``: the step that ends an episode already returns the new game's first
      observation and info; the ended episode's last observation is ``infos["final_obs"][i]`` and
      its info ``infos["final_info"]`` (masked by ``infos["_final_info"]``).
    - ``"disabled"``: nothing restarts by itself; call ``reset(options={"reset_mask": mask})``
      for the ended envs before the next step (stepping an ended env raises).

What it has of the batched env
    - Rules: every ruleset and every variant, as the batched engine (the challenge and piggyback
      decisions at turn start are the actions 128-135, as in Zilch-v1).
    - Opponents (``opponents``, as ``Zilch-v2``'s): agent specs (``"greedy"`` the default,
      ``"greedy:THRESHOLD"``, ``"random"``, and through the opponent providers of
      :mod:`zilch_env.envs.opponents` ``"optimal-turn"`` and others) or agent objects, one for every
      seat or a list of ``num_players - 1``. An agent with a form in the kernels (random, greedy,
      optimal-turn's solved turn values, a ``TurnValueTable``) plays there; a batch policy
      (``(obs, masks) -> actions``, self-play, or an object with ``act_batch(games, rows)``, as
      ``ppo:PATH`` has) from Python; any other agent (``heuristic``, ``optimal-win``, ...) is refused by name: play it with
      ``gymnasium.make``.
    - ``reward``, ``turns``, ``seat``, ``illegal_action``, ``max_turns``, ``overrides`` as Zilch-v1.

Seeding: ``reset(seed=s)`` (an int) seeds every env (env ``i`` rolls the keyed dice stream ``i``
of ``s``); the same seed and actions give the same run. A list of seeds is refused: the engine
seeds its games from one number. The dice differ from a ``SyncVectorEnv`` with the same seed (other
generators), the distribution of games is the same.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space


from zilch_env.engine import layout as L
from zilch_env.engine.game import NUM_ACTIONS
from zilch_env.envs.gym_env import DEFAULT_MAX_TURNS

from zilch_env.rules.load import ruleset_fingerprint
from zilch_env.rules.schema import Ruleset
from zilch_env.envs.vec_env import BatchedZilchVecEnv

__all__ = ["ZilchVectorEnv"]


def _autoreset_mode(mode: Any) -> AutoresetMode:
    """An ``AutoresetMode`` from itself, its value (``"NextStep"``) or its name in any case, with or
    without underscores (``"next_step"``, ``"NEXT_STEP"``)."""
    if isinstance(mode, AutoresetMode):
        return mode
    if isinstance(mode, str):
        key = mode.replace("_", "").replace("-", "").lower()
        for m in AutoresetMode:
            if m.value.lower() == key:
                return m
    raise ValueError(f"autoreset_mode = {mode!r}: allowed are 'next_step', 'same_step', 'disabled' "
                     f"(or gymnasium.vector.AutoresetMode)")


class ZilchVectorEnv(VectorEnv):
    """``num_envs`` games of ``Zilch-v1`` on the batched engine, a ``gymnasium.vector.VectorEnv``
    (see the module docstring for autoreset, rules, opponents and seeding).

    Args:
        num_envs: games stepped together.
        ruleset, num_players, reward, turns, seat, illegal_action, max_turns, overrides,
            obs_version: as ``Zilch-v1`` (:class:`zilch_env.ZilchEnv`).
        opponents: the other seats, as ``Zilch-v2``'s ``opponents`` (see the module docstring).
        autoreset_mode: ``"next_step"`` (default), ``"same_step"`` or ``"disabled"``, or an
            ``AutoresetMode``.
        render_mode: None only (render one game with ``gym.make("Zilch-v1", render_mode=...)``).
        seed: seeds the games before the first ``reset`` (``reset(seed=...)`` does the same).
    """

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        num_envs: int = 8,
        ruleset: Ruleset | str | Path = "zonk",
        num_players: int = 2,
        opponents: Any = None,
        reward: str = "win",
        turns: int | None = None,
        seat: int | None = None,
        illegal_action: str = "penalty",
        max_turns: int = DEFAULT_MAX_TURNS,
        overrides: Mapping[str, Any] | None = None,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
        seed: int | None = None,
        obs_version: int | None = None,
    ):
        if render_mode is not None:
            raise ValueError(f"render_mode = {render_mode!r}: the vector env does not render; make one "
                             f'env with gym.make("Zilch-v1", render_mode="rgb_array") to render')
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        self._venv = v = BatchedZilchVecEnv(ruleset, num_envs, num_players, seed=seed, opponents=opponents,
                                            reward=reward, turns=turns, seat=seat, illegal_action=illegal_action,
                                            overrides=overrides, max_turns=max_turns, obs_version=obs_version)
        v._sb3_infos = False
        v._autoreset = False  # ended games restart here, by the autoreset mode
        self.num_envs = v.num_envs
        self.num_players = v.num_players
        self.ruleset = v.ruleset
        #: The SHA-256 of the rules' canonical TOML (``infos["rules_fingerprint"]``, one per env).
        self.rules_fingerprint = ruleset_fingerprint(self.ruleset)
        self.render_mode = None
        self.metadata = dict(self.metadata, autoreset_mode=self.autoreset_mode)
        self.single_observation_space = v.observation_space
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._ended = np.zeros(self.num_envs, dtype=bool)  # episodes that ended at the last step
        # the infos' constant parts, copied into each step's infos
        self._env_rows = np.arange(self.num_envs)
        self._seat_bits = 1 << np.arange(self.num_players, dtype=np.int64)
        self._no_reasons = np.full(self.num_envs, "", dtype=object)
        self._fingerprints = np.full(self.num_envs, self.rules_fingerprint, dtype=object)
        self._started = False
        self._seed = seed

    # ------------------------------------------------------------------ the VectorEnv API

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        v = self._venv
        mask = None if options is None else options.get("reset_mask")
        if mask is not None:
            mask = np.asarray(mask, dtype=bool)
            if mask.shape != (self.num_envs,):
                raise ValueError(f"options['reset_mask']: shape ({self.num_envs},) of bools, got {mask.shape}")
            if not self._started:
                raise RuntimeError("reset() without a reset_mask first")
        if seed is not None and not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            raise ValueError(f"seed = {seed!r}: one int seeds every env (a list of seeds is not supported)")
        if mask is None:
            if seed is not None:
                self._seed = int(seed)
            if seed is not None or (not self._started and self._seed is not None):
                v.seed(self._seed)  # takes effect in v.reset(): the games' dice, seats, random opponents
            v.reset()  # unseeded: every game's dice stream goes on
            self._started = True
            self._ended[:] = False
            return self._obs(), self._infos(np.zeros(self.num_envs, dtype=np.int64))
        rows = np.flatnonzero(mask)
        if seed is not None:
            raise ValueError("reset(seed=..., options={'reset_mask': ...}): seed all envs, or reset some unseeded")
        if rows.size:
            v._start(rows)
        self._ended[rows] = False
        return self._obs(), self._infos(np.zeros(self.num_envs, dtype=np.int64))

    def step(self, actions: Any):
        if not self._started:
            raise RuntimeError("call reset() before step()")
        v = self._venv
        a = np.asarray(actions)
        if a.shape not in ((self.num_envs,), (self.num_envs, 1)):
            raise ValueError(f"actions: expected shape ({self.num_envs},), got {a.shape}")
        mode = self.autoreset_mode
        hold = self._ended if mode == AutoresetMode.NEXT_STEP and self._ended.any() else None
        if mode == AutoresetMode.DISABLED and self._ended.any():
            raise RuntimeError(f"envs {np.flatnonzero(self._ended).tolist()} ended and autoreset_mode is "
                               f"'disabled': reset(options={{'reset_mask': mask}}) them before stepping")
        v._hold = hold.copy() if hold is not None else None
        try:
            v.step_async(a)
            obs, rewards, dones, _ = v.step_wait()  # the ended games are not restarted yet
        finally:
            v._hold = None
        flags = v._flags.copy()
        terminated = (flags & 5) != 0  # the game is over, or an illegal action ended the episode
        truncated = (flags & 2) != 0
        points = v._points.copy()
        rewards = rewards.astype(np.float64)
        if mode == AutoresetMode.SAME_STEP:
            if not dones.any():
                return obs, rewards, terminated, truncated, self._infos(points, flags)
            final = self._infos(points, flags)
            final_obs = np.full(self.num_envs, None, dtype=object)
            ended = np.flatnonzero(dones)
            for i in ended:
                final_obs[i] = obs[i].copy()
            v._start(ended)
            obs[ended] = v._observe(ended)
            points[ended] = 0
            flags[ended] = 0
            infos = self._infos(points, flags)
            infos["final_obs"], infos["_final_obs"] = final_obs, dones.copy()
            infos["final_info"] = {k: x for k, x in final.items() if not k.startswith("_")}
            infos["final_info"].update({"_" + k: dones.copy() for k in list(infos["final_info"])})
            infos["_final_info"] = dones.copy()
            return obs, rewards, terminated, truncated, infos
        info_flags = flags
        if hold is not None:  # next_step: the envs that ended at the last step start a new game now
            rows = np.flatnonzero(hold)
            v._start(rows)
            obs[rows] = v._observe(rows)
            info_flags = flags.copy()
            info_flags[rows] = 0
        self._ended = dones.copy()
        return obs, rewards, terminated, truncated, self._infos(points, info_flags)

    def action_masks(self) -> np.ndarray:
        """``(num_envs, 136)`` bool: the legal actions now (as ``infos["action_mask"]``)."""
        return self._venv.action_masks()

    def close_extras(self, **kwargs: Any) -> None:
        self._venv.close()

    # ------------------------------------------------------------------ observations and infos

    def _obs(self) -> np.ndarray:
        return self._venv._observe().copy()

    def _infos(self, points: np.ndarray, flags: np.ndarray | None = None) -> dict[str, Any]:
        """Zilch-v1's info of every env, stacked as ``SyncVectorEnv`` stacks them (``key`` and its
        ``_key`` mask, all True: every env has every key at every step)."""
        v, g = self._venv, self._venv.games
        st = g._st
        n, N = self.num_players, self.num_envs
        if flags is None:
            flags = np.zeros(N, dtype=np.int64)
        over = st[:, L.PHASE] == L.OVER
        mask = v._mask_now()
        # the ended (next_step) rows show their final state; an illegal ending shows the mask
        ended_ok = (flags != 0) & ((flags & 4) == 0)
        mask[ended_ok] = False
        winners = ((st[:, L.WINNER_SEATS, None] & self._seat_bits) != 0) & over[:, None]
        scores = st[:, L.SCORE: L.SCORE + n].copy()
        seats = v.seats.copy()
        illegal = (flags & 4) != 0
        reason = self._no_reasons.copy()
        for i in np.flatnonzero(illegal):
            reason[i] = (f"action {int(v._actions[i])} is not legal here (legal: "
                         f"{np.flatnonzero(mask[i]).tolist()})")
        infos = {
            "action_mask": mask.view(np.int8).copy(),
            "seat": seats,
            "scores": scores,
            "turn_total": st[:, L.TURN_TOTAL].copy(),
            "turn_points": np.array(points, dtype=np.int64),
            "agent_turns": st[self._env_rows, L.SEAT_TURNS + seats],
            "game_turns": st[:, L.TURNS].copy(),
            "illegal_action": illegal,
            "illegal_reason": reason,
            "game_over": over,
            "winners": winners,
            "final_scores": np.where(over[:, None], scores, 0),
            "is_success": over & (winners.sum(axis=1) == 1) & winners[self._env_rows, seats],
            "rules_fingerprint": self._fingerprints.copy(),
        }
        ones = np.ones(N, dtype=bool)
        for k in list(infos):
            infos["_" + k] = ones
        return infos

    def __repr__(self) -> str:
        return (f"ZilchVectorEnv({self.ruleset.name!r}, num_envs={self.num_envs}, num_players={self.num_players}, "
                f"opponents={self._venv.opponent!r}, autoreset_mode={self.autoreset_mode.value!r})")
