"""The observation: one game state as a flat float32 vector, from one seat's point of view.

:func:`observe` is a pure function of a :class:`~zilch_env.engine.GameState` and a seat. Both
environments use it (the Gymnasium env for its agent's seat, the PettingZoo env for each player), and
so can anything that wants to feed a network the same input (evaluation, exported policies).

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
:data:`OBS_SIZES` gives each layout's size (151, 279, 471).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .engine import CHALLENGE_SPLIT, MAX_PLAYERS, MAX_TIEBREAK_ROUNDS, GameState, Phase
from .ruleset import Ruleset

__all__ = ["OBS_VERSION", "OBS_SIZE", "OBS_SIZES", "OBS_V1_SIZE", "OBS_LOW", "OBS_HIGH", "LAYOUT",
           "PLAYER_FIELDS", "Field", "observe", "field_values"]

#: The version of the layout below; bump it whenever a field is added, removed, moved or rescaled.
OBS_VERSION = 3
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
OBS_SIZES: dict[int, int] = {1: _AT["keep_points"], 2: _AT["keep_lead"], 3: OBS_SIZE}
#: The size of layout 1 (the prefix a version 1 policy reads).
OBS_V1_SIZE = OBS_SIZES[1]
assert OBS_V1_SIZE == 151 and OBS_SIZES[OBS_VERSION] == OBS_SIZE

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
OBS_LOW.flags.writeable = False
OBS_HIGH.flags.writeable = False

_NPF = len(PLAYER_FIELDS)


# Offsets of the fields, as plain ints (the encoder below runs once per environment step).
_PHASE, _TO_MOVE, _ROLL = _AT["phase"], _AT["to_move"], _AT["roll_counts"]
_DICE_LEFT, _TURN_TOTAL, _PERMANENT = _AT["dice_left"], _AT["turn_total"], _AT["permanent"]
_BANK_THRESHOLD, _TO_BANK, _BANK_ALLOWED = _AT["bank_threshold"], _AT["to_bank"], _AT["bank_allowed"]
_LAST_RESULT, _TO_OVERCOME, _OFFER, _FROZEN = (_AT["last_result"], _AT["to_overcome"], _AT["offer"],
                                               _AT["frozen"])
_FINAL_ROUND, _FINAL_LEFT, _TIEBREAK, _TIEBREAK_ROUND = (
    _AT["final_round"], _AT["final_turns_left"], _AT["tiebreak"], _AT["tiebreak_round"])
_LEAD, _DEFICIT, _CHALLENGE = _AT["lead"], _AT["deficit"], _AT["challenge_options"]
_PLAYERS, _RULES = _AT["players"], _AT["rules"]
_ROLL_END = _AT["roll_dice"] + POSITIONS * FACES
assert _AT["roll_dice"] == _ROLL + FACES  # the roll's two fields are written as one block
_KEEP_POINTS = _AT["keep_points"]
_KEEP_END = _AT["keep_dice"] + MASKS
assert _AT["keep_dice"] == _KEEP_POINTS + MASKS  # the keep fields too
_KEEP_LEAD, _KEEP_AHEAD, _KEEP_TARGET = _AT["keep_lead"], _AT["keep_ahead"], _AT["keep_target"]

_roll_blocks: dict[tuple[int, ...], np.ndarray] = {}
_rules_blocks: dict[tuple[int, int], tuple[Ruleset, np.ndarray]] = {}
_keep_blocks: dict[tuple[int, int, str, int, bool],
                   tuple[object, dict[tuple[int, ...], tuple[np.ndarray, np.ndarray, np.ndarray]]]] = {}


def _roll_block(roll: tuple[int, ...]) -> np.ndarray:
    """``roll_counts`` and ``roll_dice`` of a sorted roll (923 rolls at most, so cached)."""
    blk = _roll_blocks.get(roll)
    if blk is None:
        blk = np.zeros(_ROLL_END - _ROLL, dtype=np.float32)
        for i, d in enumerate(roll):
            blk[d - 1] += 1.0 / 6
            blk[FACES + i * FACES + d - 1] = 1.0
        blk.flags.writeable = False
        _roll_blocks[roll] = blk
    return blk


def _rules_block(rs: Ruleset, num_players: int) -> np.ndarray:
    """The constant ``rules`` field of a ruleset and player count, cached by identity (hashing a
    ruleset costs more than the rest of the encoder)."""
    hit = _rules_blocks.get((id(rs), num_players))
    if hit is not None and hit[0] is rs:
        return hit[1]
    inv = 1.0 / rs.target
    v, zp = rs.variants, rs.variants.zilch_penalty
    vals = [
        rs.dice / 6, min(rs.target / 20000, 5.0), min(rs.entry_threshold * inv, _P),
        min(rs.min_bank * inv, _P), rs.keep == "all_scoring", rs.hot_dice == "forced",
        rs.end == "finish_round", rs.tie == "tiebreak", v.pyramiding, v.challenge, v.overcoming,
        v.piggyback, min(v.six_dice_zilch_bonus * inv, _P), min(zp.count / 10, 1.0),
        min(zp.points * inv, _P), zp.count > 0 and zp.mode == "halve", zp.count > 0 and zp.mode == "reset",
        num_players / 6,
    ]
    out = np.array(vals, dtype=np.float32)
    out.flags.writeable = False
    if len(_rules_blocks) > 256:
        _rules_blocks.clear()
    _rules_blocks[(id(rs), num_players)] = (rs, out)
    return out


def _fill_keep_block(blk: np.ndarray, keeps, dice_left: int, rs: Ruleset) -> None:
    """``keep_points`` and ``keep_dice`` (one block of 128 values) of a roll's legal ``keeps``."""
    inv = 1.0 / rs.target
    for k in keeps:
        blk[k.mask] = min(k.points * inv, _P)
        left = dice_left - k.n
        blk[MASKS + k.mask] = (left if left else rs.dice) / 6


def _keeps_of(keeps) -> tuple[np.ndarray, np.ndarray]:
    """The legal keeps' masks and points, as arrays (for the ``keep_lead`` block)."""
    masks = np.array([k.mask for k in keeps], dtype=np.int64)
    points = np.array([k.points for k in keeps], dtype=np.int64)
    return masks, points


def _keep_block(state: GameState) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``keep_points`` and ``keep_dice`` of a state in the keep phase, with the legal keeps' masks
    and points (from which :func:`observe` writes the score-dependent ``keep_lead`` fields).

    Without pyramiding the legal keeps are a function of the roll under the ruleset's scoring and keep
    rule, and the values also depend on its target and dice count; so the block is cached per
    (scoring, by identity; keep rule, target, dice, six-dice bonus on) and roll: 923 rolls at most. The scoring object,
    not the ruleset, is the identity, because ``GameState.clone`` copies the ruleset but shares its
    scoring. Under pyramiding the dice frozen earlier in the pass change the keeps and their points,
    so the block is computed from ``state.keeps()`` each time.
    """
    rs = state.ruleset
    if rs.variants.pyramiding:
        blk = np.zeros(2 * MASKS, dtype=np.float32)
        keeps = state.keeps()
        _fill_keep_block(blk, keeps, state.dice_left, rs)
        return (blk, *_keeps_of(keeps))
    scoring = rs.scoring
    key = (id(scoring), rs.target, rs.keep, rs.dice, rs.variants.six_dice_zilch_bonus > 0)
    hit = _keep_blocks.get(key)
    if hit is None or hit[0] is not scoring:
        if len(_keep_blocks) > 64:
            _keep_blocks.clear()
        hit = _keep_blocks[key] = (scoring, {})
    by_roll = hit[1]
    roll = state.roll
    entry = by_roll.get(roll)
    if entry is None:
        blk = np.zeros(2 * MASKS, dtype=np.float32)
        keeps = state.keeps()
        # the keep phase rolls every die left: dice_left is len(roll), a function of the roll
        _fill_keep_block(blk, keeps, len(roll), rs)
        masks, points = _keeps_of(keeps)
        for x in (blk, masks, points):
            x.flags.writeable = False
        entry = by_roll[roll] = (blk, masks, points)
    return entry


def observe(state: GameState, seat: int) -> np.ndarray:
    """The observation of ``state`` from ``seat``'s point of view (layout: :data:`LAYOUT`).

    The result is a new float32 vector of :data:`OBS_SIZE` values within
    [:data:`OBS_LOW`, :data:`OBS_HIGH`]. The state is not changed.
    """
    n = state.num_players
    if not 0 <= seat < n:
        raise ValueError(f"seat {seat!r}: this game's seats are 0 to {n - 1}")
    rs = state.ruleset
    variants = rs.variants
    inv = 1.0 / rs.target
    o = np.zeros(OBS_SIZE, dtype=np.float32)
    phase = state.phase
    over = phase == Phase.OVER
    cur = state.current
    mine = (not over) and cur == seat
    scores = state.scores
    on_board = state.on_board

    o[_PHASE + int(phase)] = 1.0
    if mine:
        o[_TO_MOVE] = 1.0
    roll = state.roll
    if roll:
        o[_ROLL:_ROLL_END] = _roll_block(roll)
    if not over:
        o[_DICE_LEFT] = state.dice_left / 6
    total = state.turn_total
    if total:
        o[_TURN_TOTAL] = min(total * inv, _P)
    if state.permanent:
        o[_PERMANENT] = min(state.permanent * inv, _P)
    threshold = rs.min_bank if on_board[seat] else rs.entry_threshold
    if threshold:
        o[_BANK_THRESHOLD] = min(threshold * inv, _P)
        if threshold > total:
            o[_TO_BANK] = min((threshold - total) * inv, _P)
    if mine and phase == Phase.KEEP:
        for a in state.legal_actions():
            if a & 1:
                o[_BANK_ALLOWED] = 1.0
                break
    last = state.last_result
    if last:
        o[_LAST_RESULT] = min(last * inv, _P)
    if variants.overcoming and last + 1 > total:
        o[_TO_OVERCOME] = min((last + 1 - total) * inv, _P)
    offer = state.offer
    if offer is not None and (phase == Phase.CHALLENGE or phase == Phase.PIGGYBACK):
        o[_OFFER] = 1.0
        o[_OFFER + 1] = min(offer[0] * inv, _P)
        o[_OFFER + 2] = offer[1] / 6
    if variants.pyramiding:
        for f, c in enumerate(state.frozen):
            if c:
                o[_FROZEN + f] = c / 6
    queue = state.final_queue if not over else None
    if queue is not None:
        o[_FINAL_ROUND] = 1.0
        o[_FINAL_LEFT] = len(queue) / 6
    tied = state.tiebreak_players
    if tied is not None:
        o[_TIEBREAK] = 1.0
    if state.tiebreak_round:
        o[_TIEBREAK_ROUND] = state.tiebreak_round / MAX_TIEBREAK_ROUNDS
    own = scores[seat]
    best_other = 0
    for q in range(n):
        if q != seat and scores[q] > best_other:
            best_other = scores[q]
    lead = (own - best_other) * inv
    o[_LEAD] = _P if lead > _P else (-_P if lead < -_P else lead)
    deficit = best_other - own - (total if mine else 0)
    if deficit > 0:
        o[_DEFICIT] = min(deficit * inv, _P)
    if variants.challenge:
        brackets = state.challenge_brackets[seat]
        room = state.challenges_used[seat] < 2
        o[_CHALLENGE] = room and not brackets[0]
        o[_CHALLENGE + 1] = room and not brackets[1]
        o[_CHALLENGE + 2] = own >= CHALLENGE_SPLIT

    streak_scale = 1.0 / max(variants.zilch_penalty.count, 3)
    challenged = state.challenged
    for k in range(n):
        q = (seat + k) % n
        b = _PLAYERS + k * _NPF
        o[b] = 1.0
        if scores[q] > 0:  # a score below zero (score_floor < 0) shows as 0 (the field's bounds)
            o[b + 1] = min(scores[q] * inv, _P)
        if on_board[q]:
            o[b + 2] = 1.0
        streak = state.zilch_streak[q]
        if streak:
            o[b + 3] = min(streak * streak_scale, _P)
        if q == cur and not over:
            o[b + 4] = 1.0
        if queue is not None and q in queue:
            o[b + 5] = 1.0
        if challenged == q:
            o[b + 6] = 1.0
        used = state.challenges_used[q]
        if used:
            o[b + 7] = used / 2
        if tied is not None and q in tied:
            o[b + 8] = 1.0
        if q == state.first:
            o[b + 9] = 1.0
    o[_RULES : _RULES + len(RULE_FIELDS)] = _rules_block(rs, n)
    if phase == Phase.KEEP and roll:
        blk, masks, points = _keep_block(state)
        o[_KEEP_POINTS:_KEEP_END] = blk
        # What banking after each keep would make of the mover's score: its lead over the best other
        # score (the sign decides a last turn), and whether it reaches the target. Both are sums a
        # network could form from other fields, but only to a precision far coarser than the 50
        # points that separate a win from a loss at the end of a game.
        banked = scores[cur] + total + points
        others = [scores[q] for q in range(n) if q != cur]
        best = max(others) if others else 0
        lead = (banked - best) * inv
        o[_KEEP_LEAD + masks] = np.clip(lead, -_P, _P)
        o[_KEEP_AHEAD + masks] = banked > best
        o[_KEEP_TARGET + masks] = banked >= rs.target
    return o


def field_values(obs: np.ndarray) -> dict[str, np.ndarray]:
    """An observation split into its named fields (for reading, debugging and tests)."""
    obs = np.asarray(obs)
    if obs.shape != (OBS_SIZE,):
        raise ValueError(f"an observation has shape ({OBS_SIZE},), not {obs.shape}")
    out = {f.name: obs[f.index] for f in LAYOUT}
    out["players"] = out["players"].reshape(MAX_PLAYERS, _NPF)
    return out
