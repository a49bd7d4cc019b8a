"""``Zilch-v0``: the Gymnasium environment. One agent plays one seat of a Zilch game; policies
passed in play the other seats inside :meth:`ZilchEnv.step`. The full manual is the class docstring.
"""

from __future__ import annotations

import operator
from pathlib import Path
from typing import Any, Mapping, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from zilch_env.engine.game import MAX_PLAYERS, NUM_ACTIONS, GameState, IllegalActionError, RandomDice
from zilch_env.engine.observation import OBS_SIZES, check_obs_version, observation_bounds, observe
from zilch_env.envs.opponents import seat_opponents
from zilch_env.players.policy import Policy
from zilch_env.envs.reward import game_reward
from zilch_env.rules.schema import Ruleset
from zilch_env.rules.load import load_ruleset, ruleset_fingerprint

__all__ = ["ZilchEnv", "DEFAULT_SCORE_TURNS", "DEFAULT_MAX_TURNS", "REWARDS", "ILLEGAL_ACTIONS",
           "RenderModeError", "V1_PINS", "check_max_turns", "info_keys"]

#: Agent turns per episode under ``reward="score"`` when ``turns`` is not given.
DEFAULT_SCORE_TURNS = 10
#: The horizon: completed turns of the game (all seats together) after which an episode that is not
#: over is truncated. As OpenSpiel's pig (``horizon=1000``): far beyond any game a player that banks
#: plays (a two-player zonk game between greedy players takes about 50 turns), and a bound on the
#: games of a policy that never banks (which otherwise never end, one player alone for ever).
DEFAULT_MAX_TURNS = 1000

#: What ``Zilch-v1`` pins: any change to one of these is a new version (``Zilch-v2``).
#: ``tests/zilch_env/envs/test_env_v1.py`` checks them, and a seeded episode's observations and rewards.
V1_PINS = {"obs_version": 3, "obs_size": 471, "num_actions": 136, "max_turns": 1000,
           "rewards": "win: +1 sole winner, 0 shared win, -1 otherwise, at the end; illegal -1"}
#: What ``Zilch-v2`` pins: ``Zilch-v1``'s MDP with observation layout 4 (the rules written out, for
#: an agent of any ruleset: ``rules_table``); any change to one of these is ``Zilch-v3``.
V2_PINS = {**V1_PINS, "obs_version": 4, "obs_size": 516}


def check_max_turns(max_turns: Any) -> int:
    """``max_turns`` as an int, or a ValueError naming the value and what is allowed."""
    if isinstance(max_turns, bool) or not isinstance(max_turns, (int, np.integer)) or max_turns < 1:
        raise ValueError(f"max_turns = {max_turns!r}: a whole number of game turns (all seats together), "
                         f"1 or more (default {DEFAULT_MAX_TURNS})")
    return int(max_turns)


def info_keys(num_players: int) -> dict[str, tuple[int, ...]]:
    """Every key of ``Zilch-v0`` / ``Zilch-v1``'s info and its shape (the same at every step, game
    over or not, so replay buffers and vector envs can stack them)."""
    n = int(num_players)
    return {"action_mask": (NUM_ACTIONS,), "seat": (), "scores": (n,), "turn_total": (), "turn_points": (),
            "agent_turns": (), "game_turns": (), "illegal_action": (), "illegal_reason": (),
            "game_over": (), "winners": (n,), "final_scores": (n,), "is_success": (),
            "rules_fingerprint": ()}
REWARDS = ("win", "score")
ILLEGAL_ACTIONS = ("penalty", "raise")


class RenderModeError(ValueError, TypeError):
    """A render mode the environment does not have. It is also a ``TypeError`` because that is what
    Stable-Baselines3's ``make_vec_env`` catches to retry without its default
    ``render_mode="rgb_array"``; so ``make_vec_env("Zilch-v0")`` works."""


def resolve_ruleset(ruleset: Ruleset | str | Path, overrides: Mapping[str, Any] | None) -> Ruleset:
    """A ``Ruleset`` from a preset name, a TOML path or a ``Ruleset``, with dotted-key overrides."""
    if isinstance(ruleset, Path):
        ruleset = str(ruleset)
    if not isinstance(ruleset, (Ruleset, str)):
        raise TypeError(f"ruleset = {ruleset!r}: give a preset name, the path of a TOML file or a Ruleset")
    return load_ruleset(ruleset, dict(overrides) if overrides else None)


def action_int(action: Any) -> int | None:
    """The action as a plain int (from an int, a NumPy integer or a one-element integer array), or
    None when it is not a whole number at all."""
    if type(action) is int:
        return action
    if isinstance(action, np.ndarray):
        if action.size != 1:
            return None
        action = action.reshape(()).item()
    if isinstance(action, bool):
        return None
    try:
        return operator.index(action)
    except TypeError:
        return None


class ZilchEnv(gym.Env[np.ndarray, np.int64]):
    """
    Zilch (also Farkle, 10000, Zonk) is a push-your-luck dice game: roll six dice, set aside scoring
    dice, then bank the turn total or roll the rest and risk losing it all.

    ## Description
    The agent plays one seat of a game of 1 to 6 players under a ruleset: one of the presets
    (``zilch``, ``zilch15k``, ``zilch10k``, ``zilch5k``, ``farkle``, ``farkle-basic``, ``zonk``,
    ``zonk20k``), a TOML ruleset file, or a :class:`~zilch_env.Ruleset`, with any variant switched on
    (pyramiding, challenge, overcoming, piggyback, six-dice zilch bonus, zilch penalty). The rules are
    in ``docs/rules.md``; the engine (:class:`~zilch_env.GameState`) applies them.

    A turn starts with a roll of all dice. After each roll the player sets aside a *keep* (one or
    more dice that all score together) and then banks the turn total or rolls the remaining dice
    (all of them again after *hot dice*). A roll with no scoring die is a *zilch*: the turn ends and
    its points are lost. Banking needs the entry threshold before a player's first score and the
    minimum bank afterwards. When a player ends a turn at or above the target, the others play their
    last turn (or the round is finished, by the ruleset; under ``end = "instant"`` that player wins at
    once); the highest score wins. Scores stay at or above the ruleset's ``score_floor`` (0 unless
    penalties may take them below zero; the observation's per-player ``score`` shows such a score as 0).

    The other seats are played by opponent policies (any object with ``act(state, legal, rng)``,
    :class:`~zilch_env.Policy`); they move inside :meth:`step` until it is the agent's decision
    again or the game is over, so the agent only ever sees its own decisions.

    ## Action Space
    ``Discrete(136)``, the engine's flat action numbers. Only some are legal at each decision; the
    mask is ``env.action_masks()`` (what sb3-contrib's ``MaskablePPO`` reads) and
    ``info["action_mask"]``.

    | action        | name           | meaning                                                |
    |---------------|----------------|--------------------------------------------------------|
    | 0 .. 127      | keep           | after a roll: ``mask * 2 + bank``; bit *i* of ``mask`` |
    |               |                | keeps the die at position *i* of the sorted roll (row  |
    |               |                | *i* of the ``roll_dice`` observation); ``bank`` 1 banks|
    |               |                | after keeping, 0 rolls the remaining dice              |
    | 128           | FRESH          | turn start under ``piggyback``: roll fresh dice        |
    | 129           | PIGGYBACK      | turn start under ``piggyback``: take over the previous |
    |               |                | player's banked turn total and remaining dice          |
    | 130           | NO_CHALLENGE   | turn start under ``challenge``: no challenge this turn |
    | 131 + k - 1   | CHALLENGE_BASE | turn start under ``challenge``: challenge the opponent |
    |               |                | *k* seats after you (k = 1 .. 5)                       |

    ``zilch_env.keep_action(mask, bank)`` and ``split_keep_action(action)`` convert, and
    ``env.unwrapped.state.describe(action)`` says an action in words.

    Of several keeps with the same dice only the canonical mask (each face's leftmost positions) is
    legal, so no two legal actions do the same thing. Under ``keep = "all_scoring"`` the one legal
    keep sets aside every scoring die, and the choice is bank or roll. The mask is never all zero
    while the agent is to move; it is all zero only in the observation that ends an episode, where
    no action follows.

    ## Observation Space
    ``Box(OBS_LOW, OBS_HIGH, (516,), float32)`` for ``Zilch-v2`` (layout 4), the first 471 values
    of it for ``Zilch-v1`` (layout 3), built by :func:`zilch_env.observe` (layout 1's 151 values,
    then ``keep_points`` and ``keep_dice`` (layout 2), then ``keep_lead``, ``keep_ahead`` and
    ``keep_target`` (layout 3), then ``rules_table`` (layout 4)), relative to
    the agent's seat: its own player block first, then the other seats in the order they play after
    it, padded to six players with zero blocks. Points are divided by the target (1.0 = the target)
    and clipped to 4; dice counts are divided by 6; flags are 0/1.

    | field             | size | meaning                                                         |
    |-------------------|------|-----------------------------------------------------------------|
    | phase             | 4    | one-hot: challenge decision, piggyback decision, keep, game over |
    | to_move           | 1    | the agent is to move                                             |
    | roll_counts       | 6    | dice of the roll showing each face, / 6                          |
    | roll_dice         | 36   | sorted roll, 6 positions x 6 faces one-hot (keep-mask bit order) |
    | dice_left         | 1    | dice in the roll (or to roll at turn start), / 6                 |
    | turn_total        | 1    | turn total so far, / target                                      |
    | permanent         | 1    | points of this turn that survive a zilch, / target               |
    | bank_threshold    | 1    | least total the agent may bank (entry threshold or min bank)     |
    | to_bank           | 1    | what the turn total lacks to reach it                            |
    | bank_allowed      | 1    | some legal action banks now                                      |
    | last_result       | 1    | the previous turn's recorded points (the overcoming bar)         |
    | to_overcome       | 1    | under overcoming: what the turn total lacks to beat it           |
    | offer             | 3    | piggyback offer: present, its turn total, its dice / 6           |
    | frozen            | 6    | pyramiding: dice of each face set aside in this pass, / 6        |
    | final_round       | 1    | the target was reached; last turns are being played              |
    | final_turns_left  | 1    | turns left in the final (or tie-break) round, / 6                |
    | tiebreak          | 1    | tie-break turns are being played                                 |
    | tiebreak_round    | 1    | tie-break rounds so far, / 10                                    |
    | lead              | 1    | own score minus the best other score, in [-4, 4]                 |
    | deficit           | 1    | points still needed (with the turn total) to equal the best      |
    | challenge_options | 3    | may challenge below 5000, at or above 5000; score >= 5000        |
    | players           | 60   | 6 blocks of: present, score, on_board, zilch_streak, to_move,    |
    |                   |      | final_pending, challenged, challenges_used / 2, tiebreak, started|
    | rules             | 18   | the ruleset's numbers and switches (so one network serves many)  |
    | keep_points       | 64   | per keep mask (as in actions 0..127): its points / target when  |
    |                   |      | a legal keep of the roll, else 0                                 |
    | keep_dice         | 64   | per keep mask: dice rolled next after it (all after hot dice) / 6|
    | keep_lead         | 64   | per keep mask: the mover's lead over the best other score if it  |
    |                   |      | kept it and banked, / target, in [-4, 4]                         |
    | keep_ahead        | 64   | per keep mask: that lead is above 0                              |
    | keep_target       | 64   | per keep mask: banking after it reaches the target               |
    | rules_table       | 45   | layout 4: each face's points for 1-6 dice of it, the straights,  |
    |                   |      | pairs and triplets, the instant ending, the score floor          |

    ``zilch_env.engine.observation`` documents every field in full; ``zilch_env.engine.observation.LAYOUT`` lists
    them with their slices and bounds, and ``field_values(obs)`` splits an observation by name.

    ## Rewards
    - ``reward="win"`` (default): at the end of the game +1 if the agent wins alone, -1 if it does
      not win, 0 for a draw it shares (with any number of players); 0 on every other step.
    - ``reward="score"``: after each of the agent's turns, the change that turn made to its score:
      the points it recorded (0 after a zilch, a permanent straight's points survive), minus any
      penalty (zilch penalty, a lost challenge), and minus nothing that opponents do to it (being
      challenged is their turn). In points, unscaled (a turn banks hundreds to thousands): the
      sum over an episode is the points the agent banked. Expected-score training.
    - An illegal action (see Episode End) under ``illegal_action="penalty"``: -1 with ``"win"``,
      minus the target with ``"score"`` (more than a player banks in a usual episode).

    ## Starting State
    A new game: all scores 0, no one on the board (unless the entry threshold is 0). Seat 0 begins.
    The agent's seat is drawn uniformly at each reset (or fixed by ``seat``), so it plays first as
    often as later. Opponents seated before the agent play their turns during :meth:`reset`; the
    first observation is the agent's first decision (the first roll of its turn, or the turn-start
    choice under ``challenge`` / ``piggyback``).

    ## Episode End
    - Termination: the game is over (``info["game_over"]``; ``info["winners"]`` marks the winners).
    - Termination: the agent sent an illegal action under ``illegal_action="penalty"``; the game is
      left as it was and ``info["illegal_action"]`` is True, ``info["illegal_reason"]`` names the
      rule. With ``illegal_action="raise"`` an :class:`~zilch_env.IllegalActionError` is raised instead.
    - Truncation (the horizon): the game has completed ``max_turns`` turns, all seats counted
      (default 1000, ``DEFAULT_MAX_TURNS``, as OpenSpiel's pig has ``horizon=1000``) and is not
      over. Without it a policy that never banks would play one game for ever (alone, or against
      opponents that never bank either). ``info["game_turns"]`` counts the turns.
    - Truncation: the agent has played ``turns`` turns (under ``reward="score"`` by default
      10, ``DEFAULT_SCORE_TURNS``; under ``"win"`` only when ``turns`` is given). The opponents
      still play up to the agent's next decision, and that is the returned observation, so a value
      function can bootstrap from it. A turn of the agent that ends with no decision in between (a
      zilch on its first roll) counts too, so ``info["agent_turns"]`` can then pass ``turns``.
      Both truncations are checked after the opponents moved, at the agent's next decision.

    ## Information
    ``reset`` and ``step`` return a dict with the same keys of the same shapes at every step (so
    vector envs and replay buffers, e.g. Tianshou's, stack them; ``zilch_env.envs.gym_env.info_keys(n)``
    lists them), ``n`` = ``num_players``:

    | key              | shape | meaning                                                          |
    |------------------|-------|------------------------------------------------------------------|
    | ``action_mask``  | (136,)| int8, 1 = legal (the same as ``action_masks()``); all 0 at the end|
    | ``seat``         | ()    | the agent's seat (0 = plays first)                               |
    | ``scores``       | (n,)  | int64, every seat's score, by seat                               |
    | ``turn_total``   | ()    | the turn total of the player to move                             |
    | ``turn_points``  | ()    | what the agent's turns that ended during this step added to its  |
    |                  |       | score (the ``"score"`` reward, reported under either reward)     |
    | ``agent_turns``  | ()    | the agent's completed turns so far                               |
    | ``game_turns``   | ()    | the game's completed turns, all seats (the horizon counts these) |
    | ``illegal_action``| ()   | whether this step's action was illegal                           |
    | ``illegal_reason``| ()   | str: the rule it broke, ``""`` when it was legal                 |
    | ``game_over``    | ()    | the game is over                                                 |
    | ``winners``      | (n,)  | bool per seat: shares the win (all False while the game goes on; |
    |                  |       | more than one True is a draw)                                    |
    | ``final_scores`` | (n,)  | int64: the scores once the game is over, zeros before            |
    | ``is_success``   | ()    | the agent won alone (Stable-Baselines3 logs its rate)            |
    | ``rules_fingerprint``| ()| str: the SHA-256 of the rules' canonical TOML                    |
    |                  |       | (:func:`zilch_env.ruleset_fingerprint`; also                     |
    |                  |       | ``env.unwrapped.rules_fingerprint``): with the id, it pins the   |
    |                  |       | MDP a result was measured on                                     |

    ## Arguments
    ```python
    import gymnasium as gym
    import zilch_env
    env = gym.make("Zilch-v0", ruleset="zonk", num_players=2)
    ```
    - ``ruleset="zonk"``: a preset name, the path of a TOML ruleset file, or a ``Ruleset``.
    - ``num_players=2``: 1 to 6.
    - ``opponents=None``: the other seats' players: agent specs (the strings of ``zilch play
      --opponent``: ``"random"``, ``"greedy"``, ``"greedy:500"``, and with the ``agents`` package
      installed ``"heuristic"``, ``"optimal-turn"``, ``"optimal-win"``, ``"ppo:PATH"``, ...;
      :mod:`zilch_env.envs.opponents`) or policy objects: one for all, or a list of
      ``num_players - 1``, the first playing the seat right after the agent's, the next the seat
      after that, and so on. Default: ``"greedy"`` (keeps the most points, banks from 300). Their
      ``rng`` argument is the environment's ``np_random``. Specs keep ``env.spec.kwargs`` JSON, so
      ``gymnasium.make(env.spec)`` makes the same env.
    - ``seat=None``: the agent's seat; None draws it at every reset.
    - ``reward="win"``: ``"win"`` or ``"score"`` (see Rewards).
    - ``turns=None``: agent turns per episode (see Episode End).
    - ``max_turns=1000``: the horizon, completed game turns of all seats (see Episode End).
    - ``obs_version=None``: the observation layout (the first ``OBS_SIZES[v]`` values); None is the
      current one. ``Zilch-v1`` pins 3, ``Zilch-v2`` pins 4.
    - ``illegal_action="penalty"``: ``"penalty"`` or ``"raise"``.
    - ``render_mode=None``: ``"ansi"`` (``render()`` returns the text) or ``"human"`` (printed
      after every reset and step): the moves since the last observation, the scores, the roll and
      the turn total; or ``"rgb_array"`` (``render()`` returns a ``(400, 640, 3)`` uint8 picture of
      the roll as dice with the last keep outlined, the last move, the turn total and the scores;
      ``zilch_env.envs.render``), which ``gymnasium.wrappers.RecordVideo`` records (it needs moviepy,
      in the ``dev`` extra) and ``HumanRendering`` shows (with pygame installed).
    - ``overrides=None``: rule overrides in dotted keys, e.g. ``{"variants.piggyback": True}``.

    All randomness (the dice, the agent's seat, opponents' choices) comes from ``self.np_random``:
    ``reset(seed=s)`` gives the same episode for the same actions, and the unseeded resets after it
    the same sequence of episodes. The game in progress is ``env.unwrapped.state``
    (a :class:`~zilch_env.GameState`; read it, do not change it).

    ## Version History
    - v2 (``Zilch-v2``): ``Zilch-v1``'s MDP with observation layout 4 (516 values): the rules
      written out (``rules_table``), so that one agent can play any ruleset; ``V2_PINS``.
    - v1 (``Zilch-v1``): pins the MDP: observation layout 3 (471 values), the action layout above
      (136 actions), the rewards above, the horizon ``max_turns=1000`` game turns, infos of one
      shape at every step (``winners`` a bool per seat; ``game_turns``, ``game_over``,
      ``illegal_reason`` always present), ``render_mode="rgb_array"``, and a native vector env over
      the batched engine (``gymnasium.make_vec("Zilch-v1", num_envs=N)``,
      :class:`zilch_env.envs.vector.ZilchVectorEnv`). ``zilch_env.envs.gym_env.V1_PINS`` lists what is pinned;
      any change of the MDP is ``Zilch-v2``.
    - v0 (``Zilch-v0``): the first id. It makes the same environment class with its current
      defaults (the horizon and the one-shape infos included), but pins nothing: its observation
      layout is whatever ``zilch_env.engine.observation.OBS_VERSION`` is (layouts 1 to 4 have all
      been "Zilch-v0"), and it has no vector entry point. Report results on ``Zilch-v1`` or ``Zilch-v2``.
    """

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 4}

    def __init__(
        self,
        ruleset: Ruleset | str | Path = "zonk",
        num_players: int = 2,
        opponents: str | Policy | Sequence[str | Policy] | None = None,
        seat: int | None = None,
        reward: str = "win",
        turns: int | None = None,
        illegal_action: str = "penalty",
        render_mode: str | None = None,
        overrides: Mapping[str, Any] | None = None,
        max_turns: int = DEFAULT_MAX_TURNS,
        obs_version: int | None = None,
    ):
        self.ruleset = resolve_ruleset(ruleset, overrides)
        #: The SHA-256 of the rules' canonical TOML (every info carries it as ``rules_fingerprint``).
        self.rules_fingerprint = ruleset_fingerprint(self.ruleset)
        if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)) or not (
            1 <= num_players <= MAX_PLAYERS
        ):
            raise ValueError(f"num_players = {num_players!r}: a game has 1 to {MAX_PLAYERS} players")
        self.num_players = n = int(num_players)
        self.obs_version = check_obs_version(obs_version)
        self._obs_size = OBS_SIZES[self.obs_version]
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, (int, np.integer))
                                 or not 0 <= seat < n):
            raise ValueError(f"seat = {seat!r}: None (drawn at each reset) or a seat from 0 to {n - 1}")
        self.fixed_seat = None if seat is None else int(seat)
        if reward not in REWARDS:
            raise ValueError(f"reward = {reward!r}: allowed are {', '.join(map(repr, REWARDS))}")
        self.reward_mode = reward
        if turns is not None and (isinstance(turns, bool) or not isinstance(turns, (int, np.integer))
                                  or turns < 1):
            raise ValueError(f"turns = {turns!r}: None or a whole number of agent turns, 1 or more")
        self.turns = int(turns) if turns is not None else (DEFAULT_SCORE_TURNS if reward == "score" else None)
        self.max_turns = check_max_turns(max_turns)
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action = {illegal_action!r}: allowed are "
                             f"{', '.join(map(repr, ILLEGAL_ACTIONS))}")
        self.illegal_action = illegal_action
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise RenderModeError(f"render_mode = {render_mode!r}: allowed are None, "
                                  f"{', '.join(map(repr, self.metadata['render_modes']))}")
        self.render_mode = render_mode
        self._last_move: tuple[str, int, tuple[int, ...]] = ("", 0, ())
        self.opponents = seat_opponents(opponents, n, self.ruleset)
        self.illegal_reward = -1.0 if reward == "win" else -float(self.ruleset.target)

        self.action_space = spaces.Discrete(NUM_ACTIONS)
        low, high = observation_bounds(self.obs_version)
        self.observation_space = spaces.Box(low, high, shape=(self._obs_size,), dtype=np.float32)

        self.state: GameState | None = None
        self._dice: RandomDice | None = None
        self.seat = 0
        self._mask = np.zeros(NUM_ACTIONS, dtype=bool)
        self._over = True
        self._own_score = 0
        self._agent_turns = 0
        self._n_turns = 0
        self._log: list[str] = []

    # ------------------------------------------------------------------ the Gymnasium API

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is not None and (isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer))
                                 or seed < 0):  # refused before anything changes: the env stays usable
            raise ValueError(f"reset(seed={seed!r}): a seed is a whole number 0 or more, or None")
        super().reset(seed=seed)
        rng = self.np_random
        n = self.num_players
        self.seat = self.fixed_seat if self.fixed_seat is not None else int(rng.integers(n))
        if seed is not None or self._dice is None:
            # One dice stream per seeding, carried on across the resets that follow: a new stream
            # per game would cost more than a short episode (it draws its first block of rolls).
            self._dice = RandomDice(int(rng.integers(2**63)))
        self.state = GameState(self.ruleset, n, dice=self._dice)
        self._over = False
        self._own_score = 0
        self._agent_turns = 0
        self._log = []
        self._n_turns = 0
        self._last_move = ("", 0, ())
        self._play_opponents()
        turn_points = self._take_turns()
        obs, info = self._observation(turn_points, illegal=False)
        if self.render_mode == "human":
            self.render()
        return obs, info

    def step(self, action: Any):
        if self.state is None or self._over:
            raise RuntimeError("the episode is over (or was never started): call reset() first")
        state = self.state
        a = action_int(action)
        legal = state.legal_actions()
        if a is None or a not in legal:
            reason = state.why_illegal(action if a is None else a)
            if self.illegal_action == "raise":
                raise IllegalActionError(reason)
            self._over = True
            obs, info = self._observation(0, illegal=True, reason=reason)
            if self.render_mode is not None:
                self._log.append(f"illegal action {action!r}: {reason}")
                if self.render_mode == "human":
                    self.render()
            return obs, self.illegal_reward, True, False, info
        self._log = []
        self._apply(a)
        self._play_opponents()
        turn_points = self._take_turns()
        terminated = state.done
        truncated = not terminated and ((self.turns is not None and self._agent_turns >= self.turns)
                                        or len(state.turns) >= self.max_turns)
        self._over = terminated or truncated
        if self.reward_mode == "score":
            reward = float(turn_points)
        elif terminated:
            winners = state.winners or ()
            reward = game_reward(self.seat in winners, len(winners))
        else:
            reward = 0.0
        obs, info = self._observation(turn_points, illegal=False)
        if self.render_mode == "human":
            self.render()
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The legal actions now as a bool vector of 136 (what sb3-contrib's MaskablePPO reads)."""
        return self._mask.copy()

    def render(self) -> str | None:
        if self.render_mode is None:
            gym.logger.warn("render() was called without a render_mode; make the environment with "
                            'render_mode="ansi", "human" or "rgb_array"')
            return None
        if self.render_mode == "rgb_array":
            from zilch_env.envs.render import draw

            if self.state is None:
                raise RuntimeError("render(): no game yet, call reset() first")
            move, mask, roll = self._last_move
            return draw(self.state, self._names(), move, mask, roll)
        text = self._render_text()
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    # ------------------------------------------------------------------ the game around the agent

    def _apply(self, action: int) -> None:
        """Apply a move of the player to move, noting it for ``render`` when rendering."""
        state = self.state
        if self.render_mode == "rgb_array":  # the picture shows the last move only
            who = self._names()[state.current]
            self._last_move = (f"{who}: {state.describe(action)}", action >> 1 if action < 128 else 0,
                               tuple(state.roll))
        elif self.render_mode is not None:
            who = self._names()[state.current]
            head = f"{who} rolls {' '.join(map(str, state.roll))}: " if state.roll else f"{who}: "
            self._log.append(head + state.describe(action))
        state.apply(action)

    def _play_opponents(self) -> None:
        """Opponents move until it is the agent's decision or the game is over."""
        state, rng = self.state, self.np_random
        seat = self.seat
        while not state.done and state.current != seat:
            p = state.current
            policy = self.opponents[(p - seat) % self.num_players - 1]
            legal = state.legal_actions()
            a = action_int(policy.act(state, legal, rng))
            if a is None or a not in legal:
                raise IllegalActionError(
                    f"opponent {getattr(policy, 'name', policy)!r} (seat {p}) chose an illegal action: "
                    f"{state.why_illegal(a)}")
            self._apply(a)

    def _take_turns(self) -> int:
        """Read the turns completed since the last call: count the agent's turns and return what they
        added to its score. The agent's score changes in its own turns (recorded in the turn's entry)
        and when an opponent banks while challenging it (the turn's ``challenge_transfer`` event,
        subtracted here, not counted as its points)."""
        state, seat = self.state, self.seat
        gained = 0
        turns = state.turns
        for t in turns[self._n_turns :]:
            if t["player"] == seat:
                gained += t["score"] - self._own_score
                self._own_score = t["score"]
                self._agent_turns += 1
            else:  # an opponent's challenge that banked took its points from the agent
                for e in t["events"]:
                    if e["kind"] == "challenge_transfer" and e["seat"] == seat:
                        self._own_score -= e["points"]
            if self.render_mode in ("ansi", "human"):
                self._log.append(self._turn_line(t))
        self._n_turns = len(turns)
        assert self._own_score == state.scores[seat], "the agent's score bookkeeping went wrong"
        return gained

    def _observation(self, turn_points: int, illegal: bool, reason: str = "") -> tuple[np.ndarray, dict[str, Any]]:
        state = self.state
        if self._over and not illegal:
            self._mask = np.zeros(NUM_ACTIONS, dtype=bool)
        else:
            self._mask = state.legal_mask()
        n = self.num_players
        done = state.done
        winners = np.zeros(n, dtype=bool)
        if done:
            winners[list(state.winners or ())] = True
        scores = np.array(state.scores, dtype=np.int64)
        info: dict[str, Any] = {
            "action_mask": self._mask.astype(np.int8),
            "seat": self.seat,
            "scores": scores,
            "turn_total": state.turn_total,
            "turn_points": turn_points,
            "agent_turns": self._agent_turns,
            "game_turns": len(state.turns),
            "illegal_action": illegal,
            "illegal_reason": reason,
            "game_over": done,
            "winners": winners,
            "final_scores": scores.copy() if done else np.zeros(n, dtype=np.int64),
            "is_success": bool(done and winners[self.seat] and winners.sum() == 1),
            "rules_fingerprint": self.rules_fingerprint,
        }
        return observe(state, self.seat)[: self._obs_size], info

    # ------------------------------------------------------------------ text

    def _names(self) -> list[str]:
        return [f"P{q + 1}" + (" (you)" if q == self.seat else "") for q in range(self.num_players)]

    def _turn_line(self, t: dict[str, Any]) -> str:
        who = self._names()[t["player"]]
        if t["banked"]:
            what = f"banks {t['turn_total']}" + ("" if t["recorded"] else " (below the entry threshold)")
        else:
            what = "zilch" + (f", keeps {t['recorded']} permanent" if t["recorded"] else "")
        extra = f" [{t['penalty']}]" if t["penalty"] else ""
        return f"{who} {what}{extra} -> {t['score']}"

    def _render_text(self) -> str:
        if self.state is None:
            return "(no game yet: call reset())"
        lines = list(self._log)
        lines.append(self.state.render(self._names()))
        if not self.state.done and self.state.current == self.seat and not self._over:
            legal = self.state.legal_actions()
            lines.append("Legal: " + "; ".join(f"{a} = {self.state.describe(a)}" for a in legal))
        return "\n".join(lines)

