"""``BatchedZilchVecEnv``: a Stable-Baselines3 ``VecEnv`` of many Zilch games on the batched engine.

It is ``Zilch-v0`` (:class:`zilch_env.envs.gym_env.ZilchEnv`) for ``num_envs`` games at once: the same
observation and action spaces, the same observations (``zilch_env.observe`` of the same state, bit
for bit), the same legal-action masks, rewards, terminations and truncations, with the opponents'
moves played inside :meth:`step_wait` by vectorised baselines and the episodes restarted
automatically as SB3 expects. ``tests/zilch_env/engine/test_batched.py`` runs it beside real ``Zilch-v0`` envs that
roll the same dice and compares every step.

Gymnasium's vector API (``gymnasium.make_vec("Zilch-v1")``) is :mod:`zilch_env.envs.vector`, which runs
on this class; this one is Stable-Baselines3's VecEnv API (it subclasses SB3's ``VecEnv`` when SB3 is installed).

    from sb3_contrib import MaskablePPO
    from zilch_env.envs.vec_env import BatchedZilchVecEnv

    venv = BatchedZilchVecEnv("zonk", num_envs=64, num_players=2, seed=1, opponents="greedy")
    model = MaskablePPO("MlpPolicy", venv, n_steps=128, seed=1)
    model.learn(100_000)

What differs from a ``DummyVecEnv`` of ``Zilch-v0``
    - Speed: one compiled call steps every game (the agent's move and every opponent move up to the
      agent's next decision), one fills every observation.
    - Rules: every ruleset, every variant (the challenge and piggyback decisions at turn start are
      the agent's actions 128-135, as in Zilch-v0).
    - Opponents: ``opponents=`` as ``gymnasium.make("Zilch-v2", opponents=...)``: agent specs
      (``"random"``, ``"greedy"``, ``"greedy:500"``, and through the opponent providers
      (:mod:`zilch_env.envs.opponents`) ``"optimal-turn"`` and the rest) or agent objects, one for every
      seat or one per seat. The kernels play the built-in baselines, a solved turn policy (a
      :class:`zilch_env.engine.batched.TurnValueTable`, what ``optimal-turn``'s ``kernel_form()`` gives,
      move for move) and any agent with a ``kernel_form()``; any *batch policy*
      (:func:`zilch_env.engine.batched.batch_policy_actions`) plays from Python: a callable taking
      ``(obs, masks)`` of the games where that opponent is to move (arrays ``(k, n)`` of the env's
      layout from the opponent's seat and ``(k, 136)``) and returning their ``k`` actions, e.g. a
      snapshot of the agent's own network for self-play, or an object with ``act_batch(games, rows)``
      reading the batched state. ``opponent=`` (instead of ``opponents=``) takes a list of these
      assigned to the envs round-robin (env ``i`` plays ``opponent[i % len(opponent)]`` in every
      other seat), as ``train/ppo.py --opponents`` does.
    - Horizon: ``max_turns`` (default 1000, ``zilch_env.envs.gym_env.DEFAULT_MAX_TURNS``) completed game
      turns, all seats counted, truncate an episode whose game is not over, as in Zilch-v0.
    - Infos: per step only ``turn_points`` (when not 0); at the end of an episode also
      ``terminal_observation``, ``TimeLimit.truncated``, ``seat``, ``agent_turns``, ``game_turns``,
      ``illegal_action``, ``game_over``, ``winners`` (a bool per seat, all False unless the game is
      over), ``final_scores`` (``(num_players,)`` of that game's rules, zeros unless the game is over) and
      ``is_success``: each key, when present, has one shape, the shape Zilch-v0 gives it. The per-step
      fields of Zilch-v0's info are arrays here: :meth:`action_masks`, :attr:`seats`,
      ``env.games.scores``, ``env.games.turn_total``.
    - Randomness: env ``i`` rolls the keyed dice ``stream_keys(seed, num_envs)[i]`` (going on from one
      episode to the next, as Zilch-v0's dice do between seedings), seats are drawn from
      ``numpy.random.default_rng(seed)``, random opponents use SplitMix64 streams. ``seed(s)`` takes
      effect at the next :meth:`reset`, as for SB3's own VecEnvs.
    - An episode in which the agent would have no decision at all (the game ends before its first
      roll scores, possible only with a target reached in one turn) is skipped: a new game starts.

MaskablePPO reads the masks with ``env.env_method("action_masks")`` (``get_action_masks``); that and
:meth:`action_masks` give the ``(num_envs, 136)`` bool masks of the agent's current decisions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
from gymnasium import spaces
try:
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvStepReturn
except ImportError:  # Stable-Baselines3 is in the ``train`` extra; zilch_env.envs.vector (Gymnasium) needs none of it
    VecEnvIndices = Any  # type: ignore[misc]
    VecEnvStepReturn = tuple  # type: ignore[misc]

    class VecEnv:  # type: ignore[no-redef]
        """The members of SB3's ``VecEnv`` that :class:`BatchedZilchVecEnv` uses, for an install
        without Stable-Baselines3 (where the native Gymnasium vector env runs on this class)."""

        def __init__(self, num_envs: int, observation_space: spaces.Space, action_space: spaces.Space):
            self.num_envs = num_envs
            self.observation_space, self.action_space = observation_space, action_space
            self.reset_infos: list[dict[str, Any]] = [{} for _ in range(num_envs)]
            self._seeds: list[int | None] = [None] * num_envs
            self._options: list[dict[str, Any]] = [{} for _ in range(num_envs)]
            self.metadata = {"render_modes": []}

        def _reset_seeds(self) -> None:
            self._seeds = [None] * self.num_envs

        def _reset_options(self) -> None:
            self._options = [{} for _ in range(self.num_envs)]

        def seed(self, seed: int | None = None) -> list[int | None]:
            if seed is None:
                seed = int(np.random.randint(0, 2**32 - 1, dtype=np.uint32))
            self._seeds = [seed + i for i in range(self.num_envs)]
            return self._seeds

        def step(self, actions: np.ndarray):
            self.step_async(actions)
            return self.step_wait()

from zilch_env.engine import kernels as K

from zilch_env.engine import layout as L
from zilch_env.engine import batch_kernels as BK
from zilch_env.players import agent_kernels as AK
from zilch_env.engine.batched import BatchedGames, stream_keys
from zilch_env.engine.game import NUM_ACTIONS, IllegalActionError
from zilch_env.envs.gym_env import (DEFAULT_MAX_TURNS, DEFAULT_SCORE_TURNS, ILLEGAL_ACTIONS, REWARDS, check_max_turns, resolve_ruleset)
from zilch_env.envs.opponents import pack_opponents
from zilch_env.envs.reward import vec_outcome
from zilch_env.engine.observation import (KERNEL_OFFSETS, OBS_SIZE, OBS_SIZES, ROLL_BLOCKS, check_obs_version, observation_bounds)
from zilch_env.rules.schema import Ruleset

__all__ = ["BatchedZilchVecEnv", "BatchPolicy"]

BatchPolicy = Callable[[np.ndarray, np.ndarray], np.ndarray]
#: ``potential(games, rows, seats)``: each seat's expected result (win 1, draw 0.5, loss 0) from where
#: each row stands (the result itself once the game is over).
Potential = Callable[[BatchedGames, np.ndarray, np.ndarray], np.ndarray]
#: Fresh games tried for an env whose agent gets no decision before its game ends.
MAX_EMPTY_EPISODES = 1000


class BatchedZilchVecEnv(VecEnv):
    """``num_envs`` games of Zilch-v0 on the batched engine (see the module docstring).

    Args:
        ruleset: a preset name, the path of a TOML ruleset file, or a :class:`Ruleset`; or a list of
            them: every episode then plays one of them, drawn uniformly (seeded) when it starts, on
            one batched engine (each game its own rules, :class:`~zilch_env.engine.batched.BatchedGames`).
        num_envs: games stepped together.
        num_players: 1 to 6; with a list of rulesets, one count or one per ruleset (the episode
            plays its ruleset's count).
        seed: seeds the dice, seats and random opponents (``None``: fresh entropy).
        opponent: the entrants of the other seats assigned to the envs round-robin (env ``i`` plays
            ``opponent[i % len(opponent)]`` in every other seat; training's mixes): each an agent spec
            or object as below, a :class:`~zilch_env.engine.batched.KernelAgent`, a
            :class:`~zilch_env.engine.batched.TurnValueTable` (e.g. ``optimal-turn``'s), with a list of
            rulesets a :class:`~zilch_env.players.kernel_agents.TableSet` (a table per ruleset, each game's
            own), or a batch policy ``(obs, masks) -> actions``. Default ``"greedy"``.
        opponents: the other seats as ``gymnasium.make("Zilch-v2", opponents=...)`` takes them: an
            agent spec (``"random"``, ``"greedy"``, ``"greedy:500"``, ``"optimal-turn"``, ...;
            :mod:`zilch_env.envs.opponents`) or object for every seat, or a list of ``num_players - 1``
            (the seat right after the agent's first). Played in the kernels where the agent has a form
            there, else as a batch policy; an agent with neither is refused by name. Not with ``opponent``.
        reward: ``"win"`` or ``"score"``, as Zilch-v0.
        turns: agent turns per episode (truncation), as Zilch-v0 (default: 10 under ``"score"``).
        max_turns: the horizon, completed game turns of all seats (truncation), as Zilch-v0
            (default 1000).
        seat: the agent's seat, or None to draw it at every reset.
        illegal_action: ``"penalty"`` (end the episode with reward -1, or minus the target under
            ``"score"``) or ``"raise"``, as Zilch-v0.
        reward_scale: rewards are divided by this (train/ppo.py's score objective).
        end_is_terminal: report a truncation (the turn limit) as a termination, so PPO does not
            bootstrap past it (train/ppo.py's score objective).
        overrides: rule overrides in dotted keys.
        potential: reward shaping for ``reward="win"``: a callable ``(games, rows, seats) ->
            values`` giving each seat's expected result (win 1, draw 0.5, loss 0) from where each row
            of the :class:`~zilch_env.engine.batched.BatchedGames` stands (at the agent's decisions, and
            between turns, a turn due but not rolled yet; the result itself once the game is over),
            e.g. ``agents.solver.win_shaping.WinPotential`` (the solved game). The agent is then paid, for
            each move, ``2 * (value after it - value before it)`` on the scale of the +1/-1 result:
            after it is the agent's next decision in the same turn, or the moment its turn ended,
            before the opponents move; the game's end pays nothing more. A potential of NaN (rules
            it does not know, ``agents.solver.win_shaping.RulesPotential``) leaves that game unshaped: it
            pays the result at the end.
        obs_version: the observation layout (the first ``OBS_SIZES[v]`` values; None: the current
            one), as Zilch-v0's.
        luck: with ``potential``, pay the dice's luck too (default). ``False`` reads the potential
            right after each move, before any dice are rolled (the potential must then answer for a
            roll due in the middle of a turn too): a move is paid the expected change of the value it
            makes, and what the next roll brings is not paid at all (it does not depend on the move).
    """

    def __init__(
        self,
        ruleset: Ruleset | str | Path = "zonk",
        num_envs: int = 8,
        num_players: int = 2,
        seed: int | None = None,
        opponent: Any = None,
        reward: str = "win",
        *,
        opponents: Any = None,
        turns: int | None = None,
        seat: int | None = None,
        illegal_action: str = "penalty",
        reward_scale: float = 1.0,
        end_is_terminal: bool = False,
        overrides: Mapping[str, Any] | None = None,
        potential: Potential | None = None,
        luck: bool = True,
        max_turns: int = DEFAULT_MAX_TURNS,
        obs_version: int | None = None,
    ):
        self.obs_version = check_obs_version(obs_version)
        self._obs_size = OBS_SIZES[self.obs_version]
        self.mixed = isinstance(ruleset, (list, tuple))
        if self.mixed and not ruleset:
            raise ValueError("ruleset: an empty list; give a ruleset or a list of them")
        rulesets = [resolve_ruleset(r, overrides) for r in ruleset] if self.mixed else [
            resolve_ruleset(ruleset, overrides)]
        rs = rulesets[0]
        self.max_turns = check_max_turns(max_turns)
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs = {num_envs!r}: a whole number, 1 or more")
        n_envs = int(num_envs)
        # checks the rules and num_players
        self.games = BatchedGames(rulesets if self.mixed else rs, n_envs, num_players, seed=seed)
        self.rulesets = self.games.rulesets
        self.num_players = self.games.num_players
        if self.mixed and reward == "score":
            raise ValueError("reward = 'score' pays points on one ruleset's scale; with a list of rulesets use "
                             "reward = 'win'")
        if reward not in REWARDS:
            raise ValueError(f"reward = {reward!r}: allowed are {', '.join(map(repr, REWARDS))}")
        self.reward_mode = reward
        if turns is not None and (isinstance(turns, bool) or not isinstance(turns, (int, np.integer)) or turns < 1):
            raise ValueError(f"turns = {turns!r}: None or a whole number of agent turns, 1 or more")
        self.turns = int(turns) if turns is not None else (DEFAULT_SCORE_TURNS if reward == "score" else None)
        fewest = int(self.games.entry_players.min())
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, (int, np.integer))
                                 or not 0 <= seat < fewest):
            raise ValueError(f"seat = {seat!r}: None (drawn at each reset) or a seat from 0 to {fewest - 1}")
        self.fixed_seat = None if seat is None else int(seat)
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action = {illegal_action!r}: allowed are "
                             f"{', '.join(map(repr, ILLEGAL_ACTIONS))}")
        self.illegal_action = illegal_action
        if not (isinstance(reward_scale, (int, float)) and reward_scale > 0):
            raise ValueError(f"reward_scale = {reward_scale!r}: a positive number")
        self.reward_scale = float(reward_scale)
        self.end_is_terminal = bool(end_is_terminal)
        self.illegal_reward = -1.0 if reward == "win" else -float(rs.target)
        if potential is not None and (reward != "win" or not callable(potential)):
            raise ValueError("potential: a callable (games, rows, seats) -> win chances, with reward='win' "
                             f"only (got reward={reward!r}, potential={potential!r})")
        self.potential = potential
        self.luck = bool(luck)
        self.render_mode = None
        if opponent is not None and opponents is not None:
            raise ValueError("give opponents= (the other seats, as gymnasium.make) or opponent= (entrants "
                             "assigned to the envs round-robin), not both")
        if opponents is not None:
            self._set_opponents(opponents, n_envs, per_seat=True)
        else:
            self._set_opponents("greedy" if opponent is None else opponent, n_envs)

        self.seats = np.zeros(n_envs, dtype=np.int64)
        self._own = np.zeros(n_envs, dtype=np.int64)  # the agent's score at its last observation
        self._obs = np.zeros((n_envs, OBS_SIZE), dtype=np.float32)
        self._mask = np.zeros((n_envs, NUM_ACTIONS), dtype=bool)
        self._actions = np.zeros(n_envs, dtype=np.int64)
        self._rewards = np.zeros(n_envs, dtype=np.float32)
        self._flags = np.zeros(n_envs, dtype=np.int64)
        self._points = np.zeros(n_envs, dtype=np.int64)
        self._agent_turns = np.zeros(n_envs, dtype=np.int64)
        self._phi = np.zeros(n_envs)  # the potential at each agent's current decision
        #: Per env, with a potential: whether its episode is shaped (the potential not NaN at its
        #: start): ``train/wrappers.turn_returns`` cuts the returns of those at each turn.
        self.shaped = np.zeros(n_envs, dtype=bool)
        self._seat_rng = np.random.default_rng(seed)
        self._rules_rng = np.random.default_rng(None if seed is None else [seed, 2])
        self._started = False
        # For zilch_env.envs.vector.ZilchVectorEnv (Gymnasium's autoreset modes): rows whose action this
        # step ignores (they are reset after it), whether ended episodes restart inside step_wait,
        # and whether step_wait builds SB3's per-env info dicts.
        self._hold: np.ndarray | None = None
        self._autoreset = True
        self._sb3_infos = True
        low, high = observation_bounds(self.obs_version)
        super().__init__(n_envs, spaces.Box(low, high, shape=(self._obs_size,), dtype=np.float32),
                         spaces.Discrete(NUM_ACTIONS))

    # ------------------------------------------------------------------ opponents

    @property
    def ruleset(self) -> Ruleset:
        """The env's ruleset (an env of one ruleset; an env of several has :attr:`rulesets`, env
        ``i`` playing ``rulesets[games.rule_ids[i]]``): its games' (:attr:`BatchedGames.ruleset`)."""
        return self.games.ruleset

    def _set_opponents(self, opponent: Any, n_envs: int, per_seat: bool = False) -> None:
        """Seat ``opponent`` (:func:`zilch_env.envs.opponents.pack_opponents`)."""
        packed = pack_opponents(opponent, n_envs, self.num_players, self.rulesets, self.mixed, per_seat)
        for k, v in packed.items():
            setattr(self, k, v)
        self.opponent = opponent
        if getattr(self, "_started", False):
            self._seat_tables(np.arange(n_envs))

    def _seat_tables(self, rows: np.ndarray) -> None:
        """The TableSet opponents of ``rows``: the table of each game's rules."""
        if not self._set_envs.size:
            return
        rows = np.intersect1d(rows, self._set_envs)
        if rows.size:
            rid = self.games._st[rows, L.RULES_ROW]
            self._kinds[rows, :] = self._set_kind[rows, rid][:, None]
            self._thr[rows, :] = self._set_thr[rows, rid][:, None]

    def _play_opponents(self) -> None:
        """Opponents move in every game until its agent is to decide or the game is over."""
        g = self.games
        while True:
            waiting = AK.play_opponents(g._st, self.seats, self._kinds, self._thr, self._md, g._rng,
                                       *self._values, g._rp, *g._kargs)
            g._service()
            if not waiting:
                return
            st = g._st
            to_move = np.flatnonzero((st[:, L.PHASE] <= L.KEEP) & (st[:, L.CURRENT] != self.seats))
            offset = (st[to_move, L.CURRENT] - self.seats[to_move]) % self.num_players
            bad = g.step_batch_policies(self._opp_policies, to_move, self._opp_who[to_move, offset], self._obs_size)
            if bad is not None:
                j, env, action = bad
                raise IllegalActionError(f"opponent policy {self._opp_policies[j]!r} chose the illegal action "
                                         f"{action} in env {env}")

    # ------------------------------------------------------------------ episodes

    def _start(self, rows: np.ndarray, rewind: bool = False) -> None:
        """New episodes in ``rows``: draw the agent's seat, start the game, let the opponents before
        the agent play; again where the game ended before the agent had a decision. ``rewind``
        starts the dice streams from their first code (the first reset after a seeding)."""
        g = self.games
        rows0 = rows
        for _ in range(MAX_EMPTY_EPISODES):
            ids = None
            if self.mixed:  # the episode's rules, then its seat among that ruleset's players
                ids = self._rules_rng.integers(len(self.rulesets), size=rows.size)
                players = g.entry_players[ids]
            if self.fixed_seat is not None:
                self.seats[rows] = self.fixed_seat
            elif self.mixed:
                self.seats[rows] = self._seat_rng.integers(players)
            else:
                self.seats[rows] = self._seat_rng.integers(self.num_players, size=rows.size)
            g.reset(rows, dice_keys=g._keys[rows].copy() if rewind else None, rules=ids)
            self._seat_tables(rows)
            rewind = False
            self._play_opponents()
            rows = rows[g.done[rows]]
            if not rows.size:
                break
        else:
            raise RuntimeError(f"{MAX_EMPTY_EPISODES} games in a row ended before the agent's first decision "
                               f"(target {self.rulesets[int(g._st[rows[0], L.RULES_ROW])].target} is reached in one turn?)")
        st = g._st
        self._own[:] = st[np.arange(self.num_envs), L.SCORE + self.seats]
        if self.potential is not None:
            self._phi[rows0] = self._potential(rows0)
            self.shaped[rows0] = np.isfinite(self._phi[rows0])

    def _potential(self, rows: np.ndarray) -> np.ndarray:
        phi = np.asarray(self.potential(self.games, rows, self.seats[rows]), dtype=np.float64)
        if phi.shape != rows.shape:
            raise ValueError(f"potential returned shape {phi.shape} for {rows.size} rows")
        return phi

    def reset(self) -> np.ndarray:
        seed = self._seeds[0]
        rewind = not self._started
        if seed is not None:
            self._reseed(int(seed))
            rewind = True
        self._reset_seeds()
        self._reset_options()
        self._start(np.arange(self.num_envs), rewind=rewind)
        self._started = True
        self.reset_infos = [{"seat": int(s)} for s in self.seats]
        return self._observe().copy()

    def _reseed(self, seed: int) -> None:
        g = self.games
        g._keys[:] = stream_keys(seed, self.num_envs)
        g._rng[:] = stream_keys(seed, self.num_envs * self.num_players, salt=1)
        self._seat_rng = np.random.default_rng(seed)
        self._rules_rng = np.random.default_rng([seed, 2])

    def step_async(self, actions: np.ndarray) -> None:
        a = np.asarray(actions)
        if a.shape not in ((self.num_envs,), (self.num_envs, 1)):
            raise ValueError(f"actions: expected shape ({self.num_envs},), got {a.shape}")
        self._actions[:] = a.reshape(-1)

    def step_wait(self) -> VecEnvStepReturn:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        g = self.games
        st = g._st
        n = self.num_envs
        hold = self._hold
        if hold is not None:
            self._actions[hold] = -1  # never legal: those games stay as they are
        if self.potential is None:
            K.step(st, self._actions, g._illegal, g._rp, *g._kargs)
        else:  # stop short of the next roll, read the potential there, then roll on
            K.step_hold(st, self._actions, g._illegal, g._rp, *g._kargs, 1 if self.luck else 2)
            illegal = g._illegal
            if self.luck:  # where the agent's turn ended
                turn_over = np.flatnonzero((((st[:, L.PHASE] == L.PENDING) & (st[:, L.TURN_ROLLS] == 0))
                                            | (st[:, L.PHASE] == L.OVER)) & ~illegal)
                phi_end = self._potential(turn_over)
            else:  # every move: the value right after it, before any dice
                moved = np.flatnonzero(~illegal)
                phi_moved = self._potential(moved)
            K.advance_pending(st, g._rp, *g._kargs)
        g._service()
        illegal = g._illegal
        if hold is not None:
            illegal[hold] = False
        if self.illegal_action == "raise" and illegal.any():
            i = int(np.flatnonzero(illegal)[0])
            raise IllegalActionError(f"env {i}: action {int(self._actions[i])} is not legal (legal: "
                                     f"{np.flatnonzero(self._mask_now()[i]).tolist()})")
        self._play_opponents()
        rewards, flags, points, agent_turns = self._rewards, self._flags, self._points, self._agent_turns
        vec_outcome(st, self.seats, self._own, illegal, self.turns or 0, self.reward_mode == "score",
                    self.illegal_reward, self.reward_scale, rewards, flags, points, agent_turns)
        horizon = (flags == 0) & (st[:, L.TURNS] >= self.max_turns)
        if horizon.any():  # the game's turns reached the horizon: a truncation, as in Zilch-v0
            flags[horizon] = 2  # (their reward stays: 0 under "win", the turn's points under "score")
        if hold is not None:  # no step for them: the caller resets them now
            flags[hold], rewards[hold], points[hold] = 0, 0.0, 0
        if self.potential is not None:
            shaped = np.where(illegal, rewards, 0.0)
            going = np.flatnonzero(flags == 0)  # the agent decides again: in this turn or its next
            phi = self._potential(going)
            if self.luck:
                shaped[turn_over] = 2.0 * (phi_end - self._phi[turn_over]) / self.reward_scale
                same = np.ones(n, dtype=bool)
                same[turn_over] = False
                on = same[going]
                shaped[going[on]] = 2.0 * (phi[on] - self._phi[going[on]]) / self.reward_scale
            else:
                shaped[moved] = 2.0 * (phi_moved - self._phi[moved]) / self.reward_scale
            self._phi[going] = phi
            unshaped = np.isnan(shaped)  # games whose rules have no potential: the result alone
            shaped[unshaped] = rewards[unshaped]
            rewards[:] = shaped
        obs = self._observe().copy()
        dones = flags != 0
        if not self._sb3_infos:
            if self._autoreset and dones.any():
                ended = np.flatnonzero(dones)
                self._start(ended)
                obs[ended] = self._observe(ended)
            return obs, rewards.copy(), dones, None
        infos: list[dict[str, Any]] = [{} for _ in range(n)]
        for i in np.flatnonzero(points):
            infos[i]["turn_points"] = int(points[i])
        ended = np.flatnonzero(dones)
        if ended.size:
            for i in ended:
                players = int(g.entry_players[st[i, L.RULES_ROW]])  # this game's seats
                f = int(flags[i])
                info = infos[i]
                info["terminal_observation"] = obs[i].copy()
                info["TimeLimit.truncated"] = bool(f & 2) and not self.end_is_terminal
                seat = int(self.seats[i])
                info["seat"] = seat
                info["agent_turns"] = int(agent_turns[i])
                info["game_turns"] = int(st[i, L.TURNS])
                info["illegal_action"] = bool(f & 4)
                over = bool(st[i, L.PHASE] == L.OVER)
                w = int(st[i, L.WINNER_SEATS]) if over else 0
                winners = (w >> np.arange(players)) & 1 == 1
                info["game_over"] = over
                info["winners"] = winners
                info["final_scores"] = (st[i, L.SCORE: L.SCORE + players].copy() if over
                                        else np.zeros(players, dtype=np.int64))
                info["is_success"] = bool(over and w == 1 << seat)
            if self._autoreset:
                self._start(ended)
                obs[ended] = self._observe(ended)
        return obs, rewards.copy(), dones, infos

    def _observe(self, rows: np.ndarray | None = None) -> np.ndarray:
        """The agents' observations, into the env's buffer: of every env, or of ``rows`` only (the
        envs that just started a new game; returns their rows)."""
        g = self.games
        if rows is None:
            BK.observe(g._st, self.seats, self._obs, KERNEL_OFFSETS, g._rp, *g.observation_constants(), ROLL_BLOCKS,
                       g._tabs)
            return self._obs[:, : self._obs_size]
        some = self._obs[rows]
        BK.observe(g._st[rows], self.seats[rows], some, KERNEL_OFFSETS, g._rp, *g.observation_constants(), ROLL_BLOCKS,
                   g._tabs)
        self._obs[rows] = some
        return some[:, : self._obs_size]

    def _mask_now(self) -> np.ndarray:
        return self.games.legal_masks(self._mask)

    def action_masks(self) -> np.ndarray:
        """``(num_envs, 136)`` bool: the legal actions of each env's agent now."""
        return self._mask_now().copy()

    def close(self) -> None:
        pass

    def warm_up(self) -> None:
        """Run what a step runs once, so that the first step of training compiles nothing (numba
        loads or compiles each kernel on its first call): a :meth:`reset` (the opponents' moves, the
        observation, the potential's turns) and the step, on a copy of the games (they stay where
        the reset left them). Seed the env again before the run's own reset to start it from its
        seed (the reset here draws seats)."""
        self.reset()
        g = self.games
        st = g._st.copy()
        actions = self._mask_now().argmax(axis=1)
        illegal = np.zeros(len(st), dtype=bool)
        if self.potential is None:
            K.step(st, actions, illegal, g._rp, *g._kargs)
        else:
            K.step_hold(st, actions, illegal, g._rp, *g._kargs, 1 if self.luck else 2)

    # ------------------------------------------------------------------ the VecEnv attribute API

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return [int(i) for i in indices]

    #: Attributes that hold one value per env (get_attr returns that env's value).
    _PER_ENV = {"seats": "seat"}

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """One value per env: ``seat`` (each env's agent seat), the bound method ``action_masks`` (whose
        call gives that env's mask), or any other attribute of this object, the same for every env."""
        idx = self._indices(indices)
        if attr_name == "seat":
            return [int(self.seats[i]) for i in idx]
        if attr_name == "action_masks":
            return [(lambda i=i: self._mask_now()[i].copy()) for i in idx]
        if not hasattr(self, attr_name):
            raise AttributeError(f"BatchedZilchVecEnv has no attribute {attr_name!r}")
        value = getattr(self, attr_name)
        return [value for _ in idx]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Only ``opponents`` (as the argument) or ``opponent`` (round-robin) can be set, for every env
        at once: ``indices`` must be None."""
        if attr_name not in ("opponent", "opponents") or indices is not None:
            raise AttributeError(f"BatchedZilchVecEnv.set_attr: only 'opponents' or 'opponent', for all envs "
                                 f"(indices=None), can be set, not {attr_name!r}")
        self._set_opponents(value, self.num_envs, per_seat=attr_name == "opponents")

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs) -> list[Any]:
        """``action_masks``: each env's mask (what sb3-contrib's ``get_action_masks`` stacks)."""
        idx = self._indices(indices)
        if method_name == "action_masks":
            m = self._mask_now()
            return [m[i].copy() for i in idx]
        raise AttributeError(f"BatchedZilchVecEnv.env_method: no per-env method {method_name!r} "
                             f"(available: 'action_masks')")

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def __repr__(self) -> str:
        rules = f"{len(self.rulesets)} rulesets" if self.mixed else repr(self.rulesets[0].name)
        return (f"BatchedZilchVecEnv({rules}, num_envs={self.num_envs}, "
                f"num_players={self.num_players}, opponent={self.opponent!r}, reward={self.reward_mode!r})")
