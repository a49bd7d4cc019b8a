"""The PettingZoo environment: every seat of a Zilch game is an agent (AEC, agents take turns).

As in PettingZoo's classic modules (``pettingzoo.classic.tictactoe_v3``), :func:`env` returns the
environment wrapped the way PettingZoo's classic board games are (illegal moves end the game,
out-of-range actions are caught, the call order is enforced) and :class:`raw_env` is the bare
environment; ``zilch_env.envs.zilch_v1`` is the versioned module with the two names
(``from zilch_env import zilch_v1; env = zilch_v1.env()``), and :func:`aec_env` is :func:`env`
under its earlier name. The manual is :class:`raw_env`'s docstring.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from zilch_env.engine.game import MAX_PLAYERS, NUM_ACTIONS, GameState, IllegalActionError, RandomDice
from zilch_env.envs.gym_env import (DEFAULT_MAX_TURNS, RenderModeError, action_int, check_max_turns, resolve_ruleset)
from zilch_env.engine.observation import OBS_SIZES, check_obs_version, observation_bounds, observe
from zilch_env.envs.reward import game_rewards
from zilch_env.rules.load import ruleset_fingerprint
from zilch_env.rules.schema import Ruleset

__all__ = ["env", "aec_env", "raw_env", "ILLEGAL_REWARD"]

#: The reward of a player whose move was illegal (the game ends; the others get 0), as in
#: PettingZoo's classic games.
ILLEGAL_REWARD = -1


def env(
    ruleset: Ruleset | str | Path = "zonk",
    num_players: int = 2,
    render_mode: str | None = None,
    overrides: Mapping[str, Any] | None = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    obs_version: int | None = None,
) -> AECEnv:
    """A Zilch game as a PettingZoo AEC environment, wrapped like PettingZoo's classic games
    (``obs_version``: the observation layout, None for the current one; ``zilch_v1`` pins 3,
    ``zilch_v2`` pins 4).

    An illegal action ends the game with reward -1 for the player who sent it and 0 for the others
    (``TerminateIllegalWrapper``). See :class:`raw_env` for the game, observations and rewards.
    """
    e: AECEnv = raw_env(ruleset, num_players, render_mode, overrides, max_turns=max_turns, obs_version=obs_version)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=ILLEGAL_REWARD)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


#: :func:`env` under its first name, ``zilch_env.aec_env`` (the README shows it).
aec_env = env


def pinned(obs_version: int) -> tuple[Callable[..., AECEnv], type]:
    """``(env, raw_env)`` of a versioned module (``zilch_v1``, ``zilch_v2``): :func:`env` and a
    subclass of :class:`raw_env` with the observation layout ``obs_version``."""
    def check(v: Any) -> None:
        if v != obs_version:
            raise ValueError(f"obs_version = {v!r}: this version pins observation layout {obs_version}")

    def pinned_env(*args: Any, obs_version: int = obs_version, **kwargs: Any) -> AECEnv:
        check(obs_version)
        return env(*args, **kwargs, obs_version=obs_version)

    class pinned_raw_env(raw_env):
        def __init__(self, ruleset: Ruleset | str | Path = "zonk", num_players: int = 2, render_mode: str | None = None,
                     overrides: Mapping[str, Any] | None = None, max_turns: int = DEFAULT_MAX_TURNS,
                     obs_version: int = obs_version):
            check(obs_version)
            super().__init__(ruleset, num_players, render_mode, overrides, max_turns, obs_version)

    pinned_env.__doc__ = f"``zilch_env.envs.aec.env`` with observation layout {obs_version}."
    pinned_raw_env.__doc__ = f"``zilch_env.envs.aec.raw_env`` with observation layout {obs_version}."
    pinned_raw_env.__name__ = pinned_raw_env.__qualname__ = "raw_env"
    return pinned_env, pinned_raw_env


class raw_env(AECEnv, EzPickle):
    """
    # Zilch

    | Import             | `from zilch_env import zilch_v1`                              |
    |--------------------|---------------------------------------------------------------|
    | Creation           | `zilch_v1.env(ruleset="zonk", num_players=2)`                 |
    | Actions            | Discrete                                                      |
    | Parallel API       | No                                                            |
    | Agents             | `agents = ['player_0', ..., 'player_{N-1}']`, N = 1 to 6       |
    | Action Shape       | (1,)                                                          |
    | Action Values      | Discrete(136)                                                 |
    | Observation Shape  | (471,) plus the action mask (136,)                            |
    | Observation Values | [-4, 5] (see `zilch_env.engine.observation.OBS_LOW` / `OBS_HIGH`)    |

    ## Description
    Zilch (Farkle, 10000, Zonk) for 1 to 6 players under any ruleset and variants, every seat an
    agent. Seat *i* is ``player_i``; ``player_0`` begins. The game is the same as in the Gymnasium
    environment ``Zilch-v1`` (:class:`zilch_env.ZilchEnv`); here no seat is played by a built-in
    opponent.

    ``agent_selection`` is always the player the rules say is to move. Turns go round the table,
    except that the final turns after someone reaches the target, and tie-break turns, follow the
    ruleset's ending; a player moves several times in a row within a turn (each roll is a decision).

    ## Observation Space
    A dict: ``"observation"`` is :func:`zilch_env.observe` from that player's own seat (its own
    block first, then the seats after it; 471 float32 values, layout 3, documented in
    ``zilch_env.engine.observation``), and ``"action_mask"`` is an int8 vector of the 136 actions, 1 =
    legal, all zeros for every player except the one to move.

    ## Action Space
    ``Discrete(136)``: ``mask * 2 + bank`` after a roll (bit *i* keeps the die at sorted position
    *i*; bank 1 banks, 0 rolls on), 128 roll fresh dice / 129 piggyback (under ``piggyback``),
    130 no challenge / 131 + k - 1 challenge the opponent *k* seats on (under ``challenge``). Only
    canonical keeps are legal. See :class:`zilch_env.ZilchEnv` for the full table.

    ## Rewards
    At the end of the game each player receives its own reward: +1 for a sole winner, -1 for a
    player who does not win, 0 for the players sharing a draw. 0 on every other step. With the
    wrapped environment (``aec_env``) an illegal action ends the game with -1 for its sender and 0
    for everyone else; the raw environment raises ``IllegalActionError``.

    ## Episode End
    - Termination: every agent terminates when the game is over (tie-break turns are bounded, so
      every game a player that banks plays ends).
    - Truncation (the horizon): every agent is truncated when the game has completed ``max_turns``
      turns (all seats together; default 1000, ``zilch_env.envs.gym_env.DEFAULT_MAX_TURNS``, as OpenSpiel's
      pig has ``horizon=1000``) and is not over, with reward 0. Without it players that never bank
      would play one game for ever.

    ## Information
    ``infos[agent]`` has the same keys of the same shapes at every step, for every agent (so
    Tianshou's ``PettingZooEnv`` and its replay buffer can stack them), ``n`` = ``num_players``:

    | key          | shape | meaning                                                             |
    |--------------|-------|---------------------------------------------------------------------|
    | ``scores``   | (n,)  | int64, every seat's score, by seat                                  |
    | ``game_turns``| ()   | the game's completed turns, all seats (the horizon counts these)    |
    | ``game_over``| ()    | the game is over                                                    |
    | ``winners``  | (n,)  | bool per seat: shares the win; all False until the game is over (and |
    |              |       | after a truncation); more than one True is a draw                   |
    | ``rules_fingerprint``| () | str: the SHA-256 of the rules' canonical TOML                  |
    |              |       | (:func:`zilch_env.ruleset_fingerprint`, ``rules_fingerprint``)      |

    ## Why there is no Parallel API
    PettingZoo's Parallel API has every live agent act at every step. In Zilch exactly one player
    decides at a time, and what it may do (and whether it moves again: each roll of a turn is a
    decision) depends on the previous move and the dice, so a Parallel step would be one real
    action and ``n - 1`` dummy ones that must be ignored, with the roll between them hidden in the
    step. ``aec_to_parallel`` refuses such games (``is_parallelizable`` is False); AEC is the exact
    description of a turn-based game, as for PettingZoo's classic games (chess, tic-tac-toe).

    ## Arguments
    - ``ruleset="zonk"``: a preset name, a TOML ruleset path or a ``Ruleset``.
    - ``num_players=2``: 1 to 6.
    - ``render_mode=None``: ``"ansi"`` (``render()`` returns text), ``"human"`` (printed after
      every step) or ``"rgb_array"`` (a ``(400, 640, 3)`` uint8 picture: the roll, the turn total,
      the scores; ``zilch_env.envs.render``).
    - ``overrides=None``: rule overrides in dotted keys, e.g. ``{"variants.challenge": True}``.
    - ``max_turns=1000``: the horizon, completed game turns of all seats (see Episode End).

    The dice come from the environment's generator: ``reset(seed=s)`` replays the same game for the
    same actions.

    ## Version History
    - v2 (``zilch_v2``): v1 with observation layout 4 (516 values: the rules written out,
      ``rules_table``). The same MDP as the Gymnasium env ``Zilch-v2``.
    - v1 (``zilch_v1``): observation layout 3 (471 values), the horizon ``max_turns``, infos of one
      shape at every step (``winners`` a per-seat mask), ``env()`` / ``raw_env`` as in PettingZoo's
      classic modules. The same MDP as the Gymnasium env ``Zilch-v1``.
    - v0: the first module, ``zilch_env.aec_env``, kept as an alias of :func:`env`: the same
      environment as v1 with nothing pinned (its observation layout is whatever
      ``zilch_env.engine.observation.OBS_VERSION`` is), so results are reported on ``zilch_v1``.
    """

    metadata = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": "zilch_v1",
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(
        self,
        ruleset: Ruleset | str | Path = "zonk",
        num_players: int = 2,
        render_mode: str | None = None,
        overrides: Mapping[str, Any] | None = None,
        max_turns: int = DEFAULT_MAX_TURNS,
        obs_version: int | None = None,
    ):
        EzPickle.__init__(self, ruleset, num_players, render_mode, overrides, max_turns, obs_version)
        super().__init__()
        self.ruleset = resolve_ruleset(ruleset, overrides)
        #: The SHA-256 of the rules' canonical TOML (every info carries it as ``rules_fingerprint``).
        self.rules_fingerprint = ruleset_fingerprint(self.ruleset)
        self.max_turns = check_max_turns(max_turns)
        if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)) or not (
            1 <= num_players <= MAX_PLAYERS
        ):
            raise ValueError(f"num_players = {num_players!r}: a game has 1 to {MAX_PLAYERS} players")
        self.num_players = int(num_players)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise RenderModeError(f"render_mode = {render_mode!r}: allowed are None, "
                                  f"{', '.join(map(repr, self.metadata['render_modes']))}")
        self.render_mode = render_mode
        self.obs_version = check_obs_version(obs_version)
        self._obs_size = OBS_SIZES[self.obs_version]
        # the versioned module whose MDP this is (zilch_v1: layout 3, zilch_v2: layout 4)
        self.metadata = {**self.metadata, "name": {3: "zilch_v1", 4: "zilch_v2"}.get(self.obs_version, "zilch")}
        low, high = observation_bounds(self.obs_version)
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agents = self.possible_agents[:]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(low, high, shape=(self._obs_size,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(NUM_ACTIONS,), dtype=np.int8),
            })
            for a in self.possible_agents
        }
        self._rng: np.random.Generator | None = None
        self._dice: RandomDice | None = None
        self.state: GameState | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        state = self.state
        if state is None:
            raise RuntimeError("call reset() before observe()")
        if not state.done and state.current == seat:
            mask = state.legal_mask().astype(np.int8)
        else:
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        return {"observation": observe(state, seat)[: self._obs_size], "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None or self._rng is None:
            self._rng, _ = seeding.np_random(seed)
            self._dice = RandomDice(int(self._rng.integers(2**63)))  # carried on by unseeded resets
        self.state = GameState(self.ruleset, self.num_players, dice=self._dice)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {}
        self._set_infos()
        self.agent_selection = self.possible_agents[self.state.current]
        self._log: list[str] = []

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.state
        seat = self._seat[agent]
        a = action_int(action)
        if a is None or a not in state.legal_actions():
            raise IllegalActionError(f"{agent}: {state.why_illegal(action if a is None else a)}")
        self._cumulative_rewards[agent] = 0
        if self.render_mode is not None:
            head = f"{agent} rolls {' '.join(map(str, state.roll))}: " if state.roll else f"{agent}: "
            self._log.append(head + state.describe(a))
        state.apply(a)
        for key in self.rewards:
            self.rewards[key] = 0
        if state.done:
            for name, r in zip(self.possible_agents, game_rewards(state.winners, self.num_players)):
                self.rewards[name] = r
                self.terminations[name] = True
            self.agent_selection = self.possible_agents[(seat + 1) % self.num_players]
        elif len(state.turns) >= self.max_turns:
            for name in self.possible_agents:
                self.truncations[name] = True
            self.agent_selection = self.possible_agents[(seat + 1) % self.num_players]
        else:
            self.agent_selection = self.possible_agents[state.current]
        self._set_infos()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _set_infos(self) -> None:
        """Every agent's info, the same keys and shapes at every step (see Information)."""
        state, n = self.state, self.num_players
        winners = np.zeros(n, dtype=bool)
        if state.done:
            winners[list(state.winners or ())] = True
        scores = np.array(state.scores, dtype=np.int64)
        for name in self.possible_agents:
            self.infos[name] = {"scores": scores.copy(), "game_turns": len(state.turns),
                                "game_over": state.done, "winners": winners.copy(),
                                "rules_fingerprint": self.rules_fingerprint}

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode; make the environment "
                                  'with render_mode="ansi", "human" or "rgb_array"')
            return None
        if self.render_mode == "rgb_array":
            from zilch_env.envs.render import draw

            if self.state is None:
                raise RuntimeError("render(): no game yet, call reset() first")
            return draw(self.state, list(self.possible_agents))
        if self.state is None:
            text = "(no game yet: call reset())"
        else:
            names = [f"player_{q}" for q in range(self.num_players)]
            text = "\n".join(self._log + [self.state.render(names)])
            self._log = []
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def close(self) -> None:
        pass
