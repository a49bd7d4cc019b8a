"""The OpenSpiel game ``python_zilch``: Zilch on the one engine, with the dice as explicit chance nodes.

Importing this module registers the game with ``pyspiel.register_game``::

    import pyspiel
    import zilch_env.envs.openspiel  # noqa: F401  (registers python_zilch)

    game = pyspiel.load_game("python_zilch", {"ruleset": "farkle", "players": 2})
    state = game.new_initial_state()          # a chance node: the first roll of six dice
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(np.random.choice(outcomes, p=probs)))
        else:
            state.apply_action(state.legal_actions()[0])
    state.returns()

Game parameters
    - ``ruleset`` (str, default ``"zonk"``): a preset name or the path of a TOML ruleset.
    - ``players`` (int, default 2): 1 to 6.
    - ``max_turns`` (int, default 1000): the horizon, completed game turns of all seats, as in
      ``Zilch-v1``; a game not over by then is terminal with returns 0 for everyone.
    - ``overrides`` (str, default ``""``): dotted rule overrides ``KEY:VALUE`` separated by ``;``,
      e.g. ``"target:5000;variants.piggyback:true;variants.zilch_penalty.mode:halve"``: OpenSpiel
      parameters are scalars, and its game strings (``python_zilch(players=2,...)``, what
      serialization writes) cannot hold ``=``, ``,`` or parentheses in a value. A value is read as
      TOML (``5000``, ``true``), else as a bare string (``halve``), as ``zilch --set`` reads it;
      a table is given key by key. Every variant of the engine is allowed.

The game
    - Sequential, perfect information (every die and score is public), ``EXPLICIT_STOCHASTIC``.
    - Player actions: the 136 actions of ``Zilch-v1`` (``mask * 2 + bank`` after a roll, 128/129
      piggyback, 130.. challenge), legal as the engine says.
    - Chance nodes: every roll. An outcome is a *sorted* roll of the ``n`` dice being rolled (the
      engine only sees sorted rolls), with its exact multinomial probability
      ``n! / (c1! ... c6!) / 6**n`` (``c_f`` dice showing face ``f``); the chance action ids index
      :data:`ROLLS`, every sorted roll of 1 to 6 dice (923 in all, ``max_chance_outcomes``). A move
      that needs several rolls before the next decision (a zilch on a turn's first roll, the six-dice
      zilch bonus's re-roll) is followed by one chance node per roll.
    - Returns at the end: +1 to a sole winner, -1 to every seat that does not win, 0 to the seats
      sharing a draw (the rewards of ``Zilch-v1`` and the AEC env); 0 for all after the horizon.
      Two players: ``ZERO_SUM`` (+1 / -1, or 0 / 0), what ``game.get_type().utility`` says and
      algorithms for two-player zero-sum games require; other counts ``GENERAL_SUM`` (the type
      registered, :func:`game_type`).
    - Observation tensor: ``zilch_env.observe(state, player)``, the 516 values of ``Zilch-v2`` from
      that player's seat (of the state before the pending roll at a chance node; zeros before the
      first roll); the observation string is the engine's text picture.
    - ``max_game_length``: ``100 * max_turns`` moves (decisions and rolls), a bound no game that
      banks reaches; a game that does reach it is terminal like the horizon.
    - Serialization: OpenSpiel's own (the history of actions, replayed: the game is deterministic
      given its chance outcomes), so ``pyspiel.serialize_game_and_state`` /
      ``deserialize_game_and_state`` work once this module is imported.

A state holds the engine's :class:`~zilch_env.GameState` at the last decision and the move waiting
for its rolls. pyspiel clones a Python state by deep-copying its attributes; the engine state's
``copy.deepcopy`` is :meth:`GameState.clone` and the rules are shared, so ``clone()`` (and
``copy.deepcopy(state)``, which is ``clone()``) take tens of microseconds (``bench/openspiel.py``).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from zilch_env.engine.game import MAX_PLAYERS, NUM_ACTIONS, GameState
from zilch_env.envs.gym_env import DEFAULT_MAX_TURNS, check_max_turns
from zilch_env.engine.observation import OBS_SIZE, observe
from zilch_env.envs.reward import game_rewards
from zilch_env.rules.load import load_ruleset, parse_override_value
from zilch_env.rules.compiled import ROLLS, roll_probability
from zilch_env.extras import require

pyspiel = require("pyspiel", "openspiel", "the OpenSpiel game python_zilch (zilch_env.envs.openspiel)")

__all__ = ["GAME_TYPE", "ROLLS", "game_type", "ZilchGame", "ZilchState", "parse_game_overrides", "roll_probability"]

_ROLL_ID = {r: i for i, r in enumerate(ROLLS)}  # chance action ids are the compiled rules' roll ids
_BY_N = {n: [i for i, r in enumerate(ROLLS) if len(r) == n] for n in range(1, 7)}
MOVES_PER_TURN = 100


@functools.lru_cache(maxsize=8)
def _outcomes(n: int) -> tuple[tuple[int, float], ...]:
    """The chance outcomes of a roll of ``n`` dice: every sorted roll with its exact probability."""
    return tuple((i, float(roll_probability(ROLLS[i]))) for i in _BY_N[n])


GAME_TYPE = pyspiel.GameType(
    short_name="python_zilch",
    long_name="Python Zilch (Farkle, 10000, Zonk)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=1,
    provides_information_state_string=False,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    provides_factored_observation_string=False,
    parameter_specification={"ruleset": "zonk", "players": 2, "max_turns": DEFAULT_MAX_TURNS, "overrides": ""},
    default_loadable=True,
)


def game_type(players: int) -> pyspiel.GameType:
    """The game type of a game of ``players`` players: :data:`GAME_TYPE` (what is registered,
    ``GENERAL_SUM``), ``ZERO_SUM`` at two players. Two players' returns are +1 / -1 for a win and a
    loss, 0 / 0 for a draw or the horizon: they always sum to 0. With three or more a sole winner's
    +1 meets -1 for each other seat (the sum is 2 - n), and a lone player's +1 or -1 sums to itself."""
    if players != 2:
        return GAME_TYPE
    spec = {k: getattr(GAME_TYPE, k) for k in (
        "short_name", "long_name", "dynamics", "chance_mode", "information", "reward_model", "max_num_players",
        "min_num_players", "provides_information_state_string", "provides_information_state_tensor",
        "provides_observation_string", "provides_observation_tensor", "provides_factored_observation_string",
        "parameter_specification", "default_loadable")}
    return pyspiel.GameType(utility=pyspiel.GameType.Utility.ZERO_SUM, **spec)


def parse_game_overrides(text: str) -> dict[str, Any]:
    """``"target:5000;variants.piggyback:true"`` to ``{"target": 5000, "variants.piggyback": True}``."""
    out: dict[str, Any] = {}
    for item in str(text).split(";"):
        if not item.strip():
            continue
        key, sep, value = item.partition(":")
        if not sep or not key.strip():
            raise ValueError(f"overrides: {item!r} is not KEY:VALUE (e.g. 'target:5000;variants.piggyback:true')")
        if any(c in value for c in "=,()"):
            raise ValueError(f"overrides: {item!r}: OpenSpiel parameter values cannot hold '=', ',' or "
                             f"parentheses; give a table key by key (variants.zilch_penalty.count:3)")
        out[key.strip()] = parse_override_value(value.strip())
    return out


class _NeedRoll(Exception):
    """The engine asked for a roll that no chance outcome has given yet."""

    def __init__(self, n: int):
        self.n = n


class _ChanceDice:
    """A dice source that gives the chance outcomes chosen so far, in order, and raises
    :class:`_NeedRoll` for the next one."""

    __slots__ = ("rolls", "pos")

    def __init__(self, rolls=()):
        self.rolls = list(rolls)
        self.pos = 0

    def roll(self, n: int) -> tuple[int, ...]:
        if self.pos < len(self.rolls):
            r = self.rolls[self.pos]
            self.pos += 1
            if len(r) != n:
                raise AssertionError(f"chance outcome {r} has {len(r)} dice, the engine rolls {n}")
            return r
        raise _NeedRoll(n)

    def __deepcopy__(self, memo: dict) -> "_ChanceDice":
        new = _ChanceDice(self.rolls)
        new.pos = self.pos
        return new


class _Shared:
    """An immutable value that copies (``clone``'s deepcopy of every attribute) share."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value

    def __deepcopy__(self, memo: dict) -> "_Shared":
        return self

    def __reduce__(self):
        return (_Shared, (self.value,))


class ZilchGame(pyspiel.Game):
    """``python_zilch`` (see the module docstring for the parameters and the game)."""

    def __init__(self, params: dict[str, Any] | None = None):
        p = {**GAME_TYPE.parameter_specification, **(params or {})}
        self.ruleset_name = str(p["ruleset"])
        self.overrides = str(p["overrides"])
        self.ruleset = load_ruleset(self.ruleset_name, parse_game_overrides(self.overrides) or None)
        n = p["players"]
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_PLAYERS:
            raise ValueError(f"players = {n!r}: a game has 1 to {MAX_PLAYERS} players")
        self.max_turns = check_max_turns(p["max_turns"])
        self.num_seats = n
        zero_sum = n == 2
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=len(ROLLS),
            num_players=n,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if zero_sum else None,
            max_game_length=MOVES_PER_TURN * self.max_turns,
        )
        super().__init__(game_type(n), info, {"ruleset": self.ruleset_name, "players": n,
                                           "max_turns": self.max_turns, "overrides": self.overrides})

    def new_initial_state(self) -> "ZilchState":
        return ZilchState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> "ZilchObserver":
        if params:
            raise ValueError(f"python_zilch observers take no parameters; got {params}")
        return ZilchObserver()


class ZilchState(pyspiel.State):
    """A ``python_zilch`` state: the engine's game at the last decision (``game_state``, None before
    the first roll) and the move waiting for its rolls."""

    def __init__(self, game: ZilchGame):
        super().__init__(game)
        self._rs = _Shared(game.ruleset)
        self._n = game.num_seats
        self._max_turns = game.max_turns
        self._max_moves = MOVES_PER_TURN * game.max_turns
        self._moves = 0
        self.game_state: GameState | None = None
        self._pending: int | None = -1  # -1: the game's construction; an action; None: nothing waits
        self._rolls: list[tuple[int, ...]] = []
        self._need = 0
        self._resolve()

    # ------------------------------------------------------------------ the chance machinery

    def _resolve(self) -> None:
        """Run the pending move with the rolls chosen so far: it completes (the next decision is
        reached) or asks for another roll (a chance node of ``_need`` dice)."""
        dice = _ChanceDice(self._rolls)
        try:
            if self._pending == -1:
                g = GameState(self._rs.value, self._n, dice=dice)
            else:
                g = self.game_state.clone()
                g.dice_source = dice
                g.apply(self._pending)
        except _NeedRoll as e:
            self._need = e.n
            return
        g.dice_source = _ChanceDice()
        self.game_state = g
        self._pending = None
        self._rolls = []
        self._need = 0

    # ------------------------------------------------------------------ the pyspiel API

    def current_player(self) -> int:
        if self._need:
            return pyspiel.PlayerId.CHANCE
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return self.game_state.current

    def is_terminal(self) -> bool:
        if self._need:
            return False
        g = self.game_state
        return g.done or len(g.turns) >= self._max_turns or self._moves >= self._max_moves

    def _legal_actions(self, player: int) -> list[int]:
        return list(self.game_state.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert self._need, "not a chance node"
        return list(_outcomes(self._need))

    def _apply_action(self, action: int) -> None:
        self._moves += 1
        if self._need:
            roll = ROLLS[action]
            if len(roll) != self._need:
                raise ValueError(f"chance outcome {action} is a roll of {len(roll)} dice; {self._need} are rolled")
            self._rolls.append(roll)
        else:
            self._pending = int(action)
        self._resolve()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return "roll " + " ".join(map(str, ROLLS[action]))
        if self.game_state is None or self._need:
            return f"action {action}"
        return self.game_state.describe(action)

    def returns(self) -> list[float]:
        g = self.game_state
        if self._need or g is None or not g.done:
            return [0.0] * self._n
        return game_rewards(g.winners, self._n)

    def __str__(self) -> str:
        if self.game_state is None:
            return "(before the first roll)"
        text = self.game_state.render()
        if self._need:
            text += f"\n(rolling {self._need} dice)"
        return text

    def __deepcopy__(self, memo: dict) -> "ZilchState":
        """``copy.deepcopy`` is ``clone()``: pyspiel makes a new initial state, deep-copies each
        attribute (the engine state by :meth:`GameState.clone`, the rules shared) and copies the
        history."""
        return self.clone()


class ZilchObserver:
    """The observation tensor (``zilch_env.observe`` from the player's seat) and string."""

    def __init__(self):
        self.tensor = np.zeros(OBS_SIZE, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: ZilchState, player: int) -> None:
        if state.game_state is None:
            self.tensor.fill(0)
        else:
            self.tensor[:] = observe(state.game_state, player)

    def string_from(self, state: ZilchState, player: int) -> str:
        return f"player {player}\n{state}"


pyspiel.register_game(GAME_TYPE, ZilchGame)
