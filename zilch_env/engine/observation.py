"""The observation: one game state as a flat float32 vector, from one seat's point of view.

:func:`observe` is a pure function of a :class:`~zilch_env.engine.GameState` and a seat. Both
environments use it (the Gymnasium env for its agent's seat, the PettingZoo env for each player), and
so can anything that wants to feed a network the same input (evaluation, exported policies). It is
written once: the batched engine's compiled observation (``zilch_env.engine.batch_kernels.observe``),
run on the game's row of the batched engine's state (a :class:`~zilch_env.engine.GameState` is a view
over one such row; :func:`state_row` writes one from any other state's fields), so the single game and
the batched games are observed by the same code.

Everything is relative to the observing seat: its own player block comes first, then the other
players in seat order after it (the next player to play after it second, and so on), padded to six
players with zero blocks whose ``present`` flag is 0. Points are divided by the ruleset's target,
so 1.0 means "the target", and clipped to :data:`POINTS_HIGH` (scores above four targets do not occur
in practice; the clip only keeps the Box bounds honest). A score below zero (a ruleset with
``score_floor`` < 0, where penalties may take a banked score down to the floor) is clipped to 0 in
the player blocks' ``score``; ``lead`` and ``keep_lead`` (clipped to [-4, 4]) keep its sign. Dice counts are divided by 6. Flags are 0 or 1.
No normalisation wrapper is needed.

The layout, field by field (:data:`LAYOUT` holds the same list with each field's slice and bounds;
``T`` is the target, "seat" is the observing seat, "to move" is the player to move):

================== ==== ============================================================================
field              size meaning and scale
================== ==== ============================================================================
phase                 4 one-hot: challenge decision, piggyback decision, keep after a roll, game over
to_move               1 1 when the seat is the one to move
roll_counts           6 dice of the current roll showing each face 1..6, / 6 (zeros before a roll)
roll_dice            36 the sorted roll: 6 positions x 6 faces one-hot (row i = position i, the bit i
                        of a keep mask in actions 0..127); positions beyond the roll are zero
dice_left             1 dice in the current roll, or dice to roll at turn start, / 6
turn_total            1 the turn total of the player to move, / T
permanent             1 points of this turn that survive a zilch (permanent straights), / T
bank_threshold        1 least turn total the seat may bank: the entry threshold before it is on the
                        board, the minimum bank afterwards, / T
to_bank               1 what the turn total still lacks to reach that threshold, / T (0 when reached)
bank_allowed          1 1 when the seat is to move and some legal action banks
last_result           1 points the previous turn recorded (0 after a zilch), / T
to_overcome           1 under ``overcoming``: what the turn total lacks to beat last_result, / T
offer                 3 piggyback offer before the turn's first roll: present, its turn total / T, its
                        dice / 6
frozen                6 pyramiding: dice of each face set aside earlier in this pass, / 6
final_round           1 1 once a player has reached the target and the last turns are being played
final_turns_left      1 turns left in the final round (or in a tie-break round), / 6
tiebreak              1 1 during tie-break turns
tiebreak_round        1 tie-break rounds played so far, / 10 (the engine's limit)
lead                  1 the seat's score minus the best other score, / T, clipped to [-4, 4]
deficit               1 what the seat still needs, counting its turn total when it is to move, to
                        equal the best other score (the score to beat), / T
challenge_options     3 under ``challenge``: the seat may still challenge below 5000, at or above
                        5000, and its score is at or above 5000 (which bracket applies now)
players            6x10 one block per seat, own first, then the seats after it in order:
                          present, score / T, on_board, zilch_streak / max(penalty count, 3),
                          to_move, final_pending (still to play in the final or tie-break round),
                          challenged (the seat challenged this turn), challenges_used / 2,
                          tiebreak (among the tied players), started (the seat that began the game)
rules                18 the ruleset, so one network can serve several: dice / 6, target / 20000
                        (clipped to 5), entry threshold / T, min bank / T, keep all_scoring, hot dice
                        forced, end finish_round, tie tiebreak, pyramiding, challenge, overcoming,
                        piggyback, six-dice zilch bonus / T, zilch penalty count / 10 (clipped to
                        1), zilch penalty points / T, penalty halves, penalty resets, players / 6
keep_points          64 per keep mask m (bit i = sorted position i, as in actions 0..127 = m * 2 +
                        bank): the points keeping m scores, / T (pyramiding included), when m is a
                        legal keep of the current roll (``state.keeps()``); 0 otherwise and outside
                        the keep phase
keep_dice            64 per keep mask m: the dice the player rolls next after keeping m and rolling
                        on (the roll's dice minus m's, or all the ruleset's dice after hot dice), / 6;
                        0 when m is not a legal keep
keep_lead            64 per keep mask m: the lead of the player to move over the best other score if
                        it kept m and banked (its score + turn total + m's points - best other),
                        / T, clipped to [-4, 4]; 0 when m is not a legal keep
keep_ahead           64 per keep mask m: 1 when that lead is above 0 (banking after m puts the mover
                        ahead of everyone: in a last turn, a win)
keep_target          64 per keep mask m: 1 when keeping m and banking brings the mover's score to the
                        target or past it
rules_table          45 the rest of the ruleset, so one network can play any: the points of m dice of
                        face f scored alone (singles, triples, n-of-a-kinds: 6 faces x m = 1..6,
                        face-major), / T (0: they do not score alone); the straight, three pairs and
                        two triplets / T; four of a kind with a pair counts as three pairs; the
                        partial straights 12345 and 23456 / T; straights permanent; the instant
                        ending (end = "instant"); what the score floor allows below zero / T
================== ==== ============================================================================

The ``keep_points`` and ``keep_dice`` fields annotate each keep action with what the rules make of it
(as a legal-move list would), so a network need not learn the scoring table to tell the keeps apart.
The three ``keep_lead`` fields say what banking after each keep would make of the score: at the end
of a game the win turns on 50 points out of 10,000, a difference a network reads badly from the sum
of four inputs (a 2-million-step agent lost most of its win chance in exactly those decisions). Like
``roll_counts`` they describe the current roll, and the player to move, whatever the observing seat.

:data:`OBS_VERSION` numbers this layout; exported policies store it, so it must change whenever the
layout does. Each layout extends the one before it at the end: layout 2 is layout 1 with
``keep_points`` and ``keep_dice`` appended, layout 3 is layout 2 with ``keep_lead``, ``keep_ahead``
and ``keep_target`` appended. The first ``OBS_SIZES[v]`` values mean exactly what layout v's did, so
a policy trained on layout v plays from ``obs[:OBS_SIZES[v]]`` (:mod:`agents.learned` does so).
And layout 4 is layout 3 with ``rules_table`` appended: with the ``rules`` field it writes out every
rule the loader accepts, for an agent that plays any ruleset (``train/ppo.py --ruleset any``).
:data:`OBS_SIZES` gives each layout's size (151, 279, 471, 516).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np


from zilch_env.engine import layout as L
from zilch_env.engine import batch_kernels as BK
from zilch_env.engine.game import MAX_PLAYERS, GameState
from zilch_env.rules.primitives import MAX_TIEBREAK_ROUNDS
from zilch_env.rules.compiled import ROLLS
from zilch_env.rules.compiled import compile as compile_rules
from zilch_env.rules.schema import ENDS, PENALTY_MODES, Ruleset

__all__ = ["OBS_VERSION", "OBS_SIZE", "OBS_SIZES", "OBS_V1_SIZE", "OBS_LOW", "OBS_HIGH", "LAYOUT",
           "PLAYER_FIELDS", "Field", "observe", "field_values", "state_row", "kernel_constants",
           "KernelConstants", "rules_block", "KERNEL_OFFSETS", "ROLL_BLOCKS", "RULE_FIELDS",
           "RULE_TABLE_FIELDS", "check_obs_version", "observation_bounds"]

#: The version of the layout below; bump it whenever a field is added, removed, moved or rescaled.
OBS_VERSION = 4
#: Points are divided by the target and clipped to this (four targets).
POINTS_HIGH = 4.0
#: Die faces, and dice positions in a roll (a roll has at most 6 dice).
FACES = 6
POSITIONS = 6
#: Keep masks: one per subset of the six sorted roll positions.
MASKS = 1 << POSITIONS


class Field(NamedTuple):
    """One field of the observation: its name, where it lies, its bounds and how it is scaled."""

    name: str
    index: slice
    low: float
    high: float
    scale: str


#: The per-player block, in order (each ``players`` block is 10 values).
PLAYER_FIELDS = ("present", "score", "on_board", "zilch_streak", "to_move", "final_pending",
                 "challenged", "challenges_used", "tiebreak", "started")
RULE_FIELDS = ("dice", "target", "entry_threshold", "min_bank", "all_scoring", "hot_dice_forced",
               "finish_round", "tiebreak_ties", "pyramiding", "challenge", "overcoming", "piggyback",
               "six_dice_zilch_bonus", "zilch_penalty_count", "zilch_penalty_points",
               "zilch_penalty_halve", "zilch_penalty_reset", "num_players")
#: The ``rules_table`` field, in order: ``points_fF_M`` is M dice of face F scored alone.
RULE_TABLE_FIELDS = tuple(f"points_f{f}_{m}" for f in range(1, FACES + 1) for m in range(1, FACES + 1)) + (
    "straight", "three_pairs", "two_triplets", "four_and_pair_is_three_pairs", "partial_12345",
    "partial_23456", "permanent_straight", "end_instant", "below_zero")

_P = POINTS_HIGH
# (name, size, low, high, scale)
_SPEC: list[tuple[str, int, float, float, str]] = [
    ("phase", 4, 0, 1, "one-hot Phase CHALLENGE, PIGGYBACK, KEEP, OVER"),
    ("to_move", 1, 0, 1, "flag"),
    ("roll_counts", FACES, 0, 1, "dice / 6"),
    ("roll_dice", POSITIONS * FACES, 0, 1, "one-hot face per sorted position"),
    ("dice_left", 1, 0, 1, "dice / 6"),
    ("turn_total", 1, 0, _P, "points / target"),
    ("permanent", 1, 0, _P, "points / target"),
    ("bank_threshold", 1, 0, _P, "points / target"),
    ("to_bank", 1, 0, _P, "points / target"),
    ("bank_allowed", 1, 0, 1, "flag"),
    ("last_result", 1, 0, _P, "points / target"),
    ("to_overcome", 1, 0, _P, "points / target"),
    ("offer", 3, 0, _P, "flag, points / target, dice / 6"),
    ("frozen", FACES, 0, 1, "dice / 6"),
    ("final_round", 1, 0, 1, "flag"),
    ("final_turns_left", 1, 0, 1, "turns / 6"),
    ("tiebreak", 1, 0, 1, "flag"),
    ("tiebreak_round", 1, 0, 1, f"rounds / {MAX_TIEBREAK_ROUNDS}"),
    ("lead", 1, -_P, _P, "points / target"),
    ("deficit", 1, 0, _P, "points / target"),
    ("challenge_options", 3, 0, 1, "flags"),
    ("players", MAX_PLAYERS * len(PLAYER_FIELDS), 0, _P, "per seat: " + ", ".join(PLAYER_FIELDS)),
    ("rules", len(RULE_FIELDS), 0, 5, ", ".join(RULE_FIELDS)),
    ("keep_points", MASKS, 0, _P, "per keep mask: points / target (0 = not a legal keep)"),
    ("keep_dice", MASKS, 0, 1, "per keep mask: dice rolled next / 6 (0 = not a legal keep)"),
    ("keep_lead", MASKS, -_P, _P, "per keep mask: the mover's lead after keeping it and banking, points / target"),
    ("keep_ahead", MASKS, 0, 1, "per keep mask: flag, banking after it puts the mover ahead of every other score"),
    ("keep_target", MASKS, 0, 1, "per keep mask: flag, banking after it brings the mover to the target"),
    ("rules_table", len(RULE_TABLE_FIELDS), 0, _P, ", ".join(RULE_TABLE_FIELDS[36:]) + " (after 36 points per"
     " face and count)"),
]


def _build_layout() -> tuple[list[Field], int]:
    out, pos = [], 0
    for name, size, low, high, scale in _SPEC:
        out.append(Field(name, slice(pos, pos + size), float(low), float(high), scale))
        pos += size
    return out, pos


#: Every field, in order, with its slice of the vector and its bounds.
LAYOUT, OBS_SIZE = _build_layout()
_AT = {f.name: f.index.start for f in LAYOUT}
#: The size of each layout version. Every layout extends the one before it at the end, so a policy
#: of version v reads the first ``OBS_SIZES[v]`` values of a current observation.
OBS_SIZES: dict[int, int] = {1: _AT["keep_points"], 2: _AT["keep_lead"], 3: _AT["rules_table"], 4: OBS_SIZE}
#: The size of layout 1 (the prefix a version 1 policy reads).
OBS_V1_SIZE = OBS_SIZES[1]
assert OBS_V1_SIZE == 151 and OBS_SIZES[3] == 471 and OBS_SIZES[OBS_VERSION] == OBS_SIZE

# Bounds per element: the field's bounds, tightened where an element is a flag or a dice fraction.
OBS_LOW = np.zeros(OBS_SIZE, dtype=np.float32)
OBS_HIGH = np.zeros(OBS_SIZE, dtype=np.float32)
for _f in LAYOUT:
    OBS_LOW[_f.index] = _f.low
    OBS_HIGH[_f.index] = _f.high
_o = _AT["offer"]
OBS_HIGH[_o], OBS_HIGH[_o + 2] = 1.0, 1.0  # offer: flag and dice fraction
_PLAYER_HIGH = {"score": _P, "zilch_streak": _P}
for _q in range(MAX_PLAYERS):
    for _i, _name in enumerate(PLAYER_FIELDS):
        OBS_HIGH[_AT["players"] + _q * len(PLAYER_FIELDS) + _i] = _PLAYER_HIGH.get(_name, 1.0)
_RULE_HIGH = {"target": 5.0, "entry_threshold": _P, "min_bank": _P, "six_dice_zilch_bonus": _P,
              "zilch_penalty_points": _P}
for _i, _name in enumerate(RULE_FIELDS):
    OBS_HIGH[_AT["rules"] + _i] = _RULE_HIGH.get(_name, 1.0)
for _i, _name in enumerate(RULE_TABLE_FIELDS):
    if _name in ("four_and_pair_is_three_pairs", "permanent_straight", "end_instant"):
        OBS_HIGH[_AT["rules_table"] + _i] = 1.0
OBS_LOW.flags.writeable = False
OBS_HIGH.flags.writeable = False

_NPF = len(PLAYER_FIELDS)

# --------------------------------------------------------------------------------------------
# The encoder: the batched engine's compiled observation (zilch_env.engine.kernels.observe) run on
# the game written as one row of the batched engine's state. One encoder serves both engines, so the
# single game's observation and the batched one are the same values by construction.

#: The field offsets the observation kernel takes (``off``), in its order (not to be written).
_KERNEL_FIELDS = ("phase", "to_move", "roll_counts", None, "dice_left", "turn_total", "permanent",
                  "bank_threshold", "to_bank", "bank_allowed", "last_result", "to_overcome", "final_round",
                  "final_turns_left", "tiebreak", "tiebreak_round", "lead", "deficit", "players", "rules")
KERNEL_OFFSETS = np.array(
    [_AT[k] if k else _AT["roll_dice"] + POSITIONS * FACES for k in _KERNEL_FIELDS] + [_NPF]
    + [_AT[k] for k in ("keep_points", "keep_dice", "keep_lead", "keep_ahead", "keep_target", "offer",
                        "frozen", "challenge_options", "rules_table")] + [len(RULE_FIELDS)], dtype=np.int64)


def _roll_blocks() -> np.ndarray:
    """``roll_counts`` and ``roll_dice`` of every sorted roll, by roll id (:data:`zilch_env.rules.ROLLS`):
    the dice showing each face / 6, and each sorted position's face one-hot."""
    out = np.zeros((len(ROLLS), FACES + POSITIONS * FACES), dtype=np.float32)
    for r, roll in enumerate(ROLLS):
        for i, d in enumerate(roll):
            out[r, d - 1] += 1.0 / 6
            out[r, FACES + i * FACES + d - 1] = 1.0
    return out


#: ``roll_counts`` and ``roll_dice`` of each roll id (the kernel copies the roll's row; not to be written).
ROLL_BLOCKS = _roll_blocks()
_ROLL_ID = {roll: r for r, roll in enumerate(ROLLS)}


def rules_block(rs: Ruleset, num_players: int) -> np.ndarray:
    """The constant fields of a ruleset and player count: ``rules`` (:data:`RULE_FIELDS`) followed by
    ``rules_table`` (:data:`RULE_TABLE_FIELDS`), as the observation kernel writes them. The rule values
    are the compiled rule parameters (:meth:`zilch_env.rules.compiled.CompiledRules.params`); the
    scoring combinations they do not hold are read from ``rs.scoring``."""
    rp = compile_rules(rs).params(num_players)
    inv = 1.0 / rp[L.R_TARGET]
    sc = rs.scoring
    kinds = []
    for f in range(FACES):
        for m in range(1, FACES + 1):
            pts = rp[L.R_FACE_POINTS + f * 7 + m]  # m dice of face f scored alone, -1 for none
            kinds.append(0.0 if pts < 0 else min(pts * inv, _P))
    partial = sc.partial_straights
    penalised = rp[L.R_ZILCH_PENALTY_COUNT] > 0
    vals = [
        rp[L.R_DICE] / 6, min(rp[L.R_TARGET] / 20000, 5.0), min(rp[L.R_ENTRY_THRESHOLD] * inv, _P),
        min(rp[L.R_MIN_BANK] * inv, _P), rp[L.R_ALL_SCORING], rp[L.R_FORCED_HOT_DICE],
        rp[L.R_END] == ENDS.index("finish_round"), rp[L.R_TIEBREAK], rp[L.R_PYRAMIDING], rp[L.R_CHALLENGE],
        rp[L.R_OVERCOMING], rp[L.R_PIGGYBACK], min(rp[L.R_SIX_DICE_BONUS] * inv, _P), min(rp[L.R_ZILCH_PENALTY_COUNT] / 10, 1.0),
        min(rp[L.R_ZILCH_PENALTY_POINTS] * inv, _P), penalised and rp[L.R_ZILCH_PENALTY_MODE] == PENALTY_MODES.index("halve"),
        penalised and rp[L.R_ZILCH_PENALTY_MODE] == PENALTY_MODES.index("reset"), rp[L.R_PLAYERS] / 6,
        *kinds, min(rp[L.R_STRAIGHT] * inv, _P), min(sc.three_pairs * inv, _P), min(sc.two_triplets * inv, _P),
        sc.four_and_pair_is_three_pairs, min(partial.get(12345, 0) * inv, _P),
        min(partial.get(23456, 0) * inv, _P), sc.permanent_straight, rp[L.R_END] == ENDS.index("instant"),
        min(-rp[L.R_SCORE_FLOOR] * inv, _P),
    ]
    out = np.array(vals, dtype=np.float32)
    out.flags.writeable = False
    return out


class KernelConstants(NamedTuple):
    """What the observation kernel takes besides the state, for one ruleset and player count, each
    as the kernels' stack of one (a row with ``RULES_ROW`` 0): the rule parameters (``rp``) and keep table
    (``tab``) of :func:`zilch_env.rules.compile`, the scales ``finv`` (1 / target, the points clip,
    1 / max(zilch penalty count, 3), the tie-break rounds limit) and the ``rules`` and
    ``rules_table`` fields (:func:`rules_block`). Shared: not to be written (they stay writeable arrays so that the
    kernel runs the compiled version the batched engine uses, not a second one for read-only arrays)."""

    rp: np.ndarray
    finv: np.ndarray
    rules: np.ndarray
    tab: np.ndarray


_constants: dict[tuple, tuple[object, object, KernelConstants]] = {}


def kernel_constants(rs: Ruleset, num_players: int) -> KernelConstants:
    """:class:`KernelConstants` of ``rs`` and ``num_players``, cached. The key is the ruleset's plain
    values and its scoring and variants objects by identity: hashing a ruleset costs more than the
    whole observation, and ``GameState.clone`` copies the ruleset object but shares those two."""
    sc, v = rs.scoring, rs.variants
    key = (id(sc), id(v), rs.dice, rs.target, rs.entry_threshold, rs.min_bank, rs.keep, rs.hot_dice,
           rs.end, rs.tie, rs.score_floor, num_players)
    hit = _constants.get(key)
    if hit is not None and hit[0] is sc and hit[1] is v:
        return hit[2]
    cr = compile_rules(rs)
    finv = np.array([1.0 / rs.target, POINTS_HIGH, 1.0 / max(v.zilch_penalty.count, 3),
                     float(MAX_TIEBREAK_ROUNDS)], dtype=np.float64)
    c = KernelConstants(cr.params(num_players)[None, :], finv[None, :], np.array(rules_block(rs, num_players))[None, :],
                        np.array(cr.table)[None])
    if len(_constants) > 256:
        _constants.clear()
    _constants[key] = (sc, v, c)
    return c


_EMPTY_ROW = np.zeros(L.WIDTH, dtype=np.int64)
_EMPTY_ROW[L.CHALLENGED] = -1


def state_row(state: GameState) -> np.ndarray:
    """``state`` as one row of the batched engine's state (``zilch_env.engine.kernels``' columns):
    the fields an observation reads. The dice stream, the turn's history and the statistics columns
    are left at zero; the row is for reading, not for stepping."""
    n = state.num_players
    st = _EMPTY_ROW.copy()
    st[L.CURRENT] = state.current
    st[L.FIRST_SEAT] = state.first
    st[L.PHASE] = state.phase
    roll = state.roll
    if roll:
        st[L.ROLL] = _ROLL_ID[roll]
    else:
        st[L.ROLL] = -1
    st[L.DICE_LEFT] = state.dice_left
    st[L.TURN_TOTAL] = state.turn_total
    st[L.PERMANENT] = state.permanent
    st[L.LAST_RESULT] = state.last_result
    queue = state.final_queue
    if queue is not None:
        st[L.FINAL_QUEUE_ON] = 1
        st[L.FINAL_QUEUE_END] = len(queue)
        st[L.FINAL_QUEUE: L.FINAL_QUEUE + len(queue)] = queue
    tied = state.tiebreak_players
    if tied is not None:
        m = 0
        for q in tied:
            m |= 1 << q
        st[L.TIEBREAK_SEATS] = m
    st[L.TIEBREAK_ROUND] = state.tiebreak_round
    st[L.SCORE: L.SCORE + n] = state.scores
    st[L.ON_BOARD: L.ON_BOARD + n] = state.on_board
    st[L.ZILCH_STREAK: L.ZILCH_STREAK + n] = state.zilch_streak
    variants = state.ruleset.variants
    if variants.pyramiding:
        frozen = state.frozen
        st[L.FROZEN: L.FROZEN + FACES] = frozen
        st[L.FROZEN_POINTS: L.FROZEN_POINTS + FACES] = state.frozen_points
        st[L.FROZEN_DICE] = sum(frozen)
    if variants.challenge:
        if state.challenged is not None:
            st[L.CHALLENGED] = state.challenged
        st[L.CHALLENGES_USED: L.CHALLENGES_USED + n] = state.challenges_used
        st[L.CHALLENGE_BRACKETS: L.CHALLENGE_BRACKETS + n] = [int(lo) | int(hi) << 1 for lo, hi in state.challenge_brackets]
    offer = state.offer
    if offer is not None:
        st[L.OFFER_ON] = 1
        st[L.OFFER_TOTAL] = offer[0]
        st[L.OFFER_DICE] = offer[1]
    return st


def observe(state: GameState, seat: int) -> np.ndarray:
    """The observation of ``state`` from ``seat``'s point of view (layout: :data:`LAYOUT`).

    The result is a new float32 vector of :data:`OBS_SIZE` values within
    [:data:`OBS_LOW`, :data:`OBS_HIGH`]. The state is not changed.
    """
    n = state.num_players
    if not 0 <= seat < n:
        raise ValueError(f"seat {seat!r}: this game's seats are 0 to {n - 1}")
    c = kernel_constants(state.ruleset, n)
    out = np.empty((1, OBS_SIZE), dtype=np.float32)
    # A GameState is a view over one row of the engine's state (its ``_st``, rules row 0): the kernel
    # reads that row as it is; any other state is rebuilt as a row first (:func:`state_row`).
    row = state._st if isinstance(state, GameState) else state_row(state).reshape(1, L.WIDTH)
    BK.observe(row, np.array([seat], dtype=np.int64), out, KERNEL_OFFSETS, c.rp, c.finv, c.rules, ROLL_BLOCKS, c.tab)
    return out[0]


def check_obs_version(obs_version: Any) -> int:
    """``obs_version`` as a layout this code writes (None: the current one, :data:`OBS_VERSION`), or
    a ValueError naming the value and the layouts: the environments' ``obs_version`` argument (an
    environment of layout v gives the first ``OBS_SIZES[v]`` values)."""
    if obs_version is None:
        return OBS_VERSION
    if isinstance(obs_version, bool) or obs_version not in OBS_SIZES:
        raise ValueError(f"obs_version = {obs_version!r}: one of the observation layouts "
                         f"{', '.join(map(str, sorted(OBS_SIZES)))} (or None for the current one, {OBS_VERSION})")
    return int(obs_version)


def observation_bounds(obs_version: int) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of layout ``obs_version``: the first ``OBS_SIZES[obs_version]`` bounds."""
    n = OBS_SIZES[obs_version]
    return OBS_LOW[:n], OBS_HIGH[:n]


def field_values(obs: np.ndarray) -> dict[str, np.ndarray]:
    """An observation split into its named fields (for reading, debugging and tests)."""
    obs = np.asarray(obs)
    if obs.shape != (OBS_SIZE,):
        raise ValueError(f"an observation has shape ({OBS_SIZE},), not {obs.shape}")
    out = {f.name: obs[f.index] for f in LAYOUT}
    out["players"] = out["players"].reshape(MAX_PLAYERS, _NPF)
    return out
