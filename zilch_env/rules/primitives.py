"""The rules of a turn and of the game's end as scalar functions, written once for every caller.

Plain Python that numba compiles as it is: the engine's views (:class:`zilch_env.GameState`'s
``can_bank``), the loader's playability check (:mod:`zilch_env.rules.playable`) and the turn solver's policy call them as
Python functions, and the fast kernels (:mod:`zilch_env.engine.kernels`) and the turn solver's
backward induction compile the same source with ``numba.njit``, inlined where called
(:data:`zilch_env.jit.INLINE`). A change of the rule here reaches all of them.

The bank rule has two parts: :func:`bank_bar` (which turn total may bank) and :func:`bank_need` (what
a keep of this roll must then bring, and which keep may not bank under forced hot dice); a keep of
``n`` dice and ``points`` may bank when :func:`may_bank` says so, which callers looping over many
keeps may write out as ``points >= need and n != no_bank_n``.

The end of a turn: :func:`turn_record` (what it records, and whether the player is then on the
board), :func:`zilch_streak` and :func:`penalised` (the zilch penalty), :func:`challenge_cost`;
the end of the game: :func:`final_turns` (who plays the last turns once a score reaches the target);
the pyramiding variant's keeps within a pass of the dice: :func:`pyramid_gain` (one face's new dice),
:func:`pass_keep` (the points of a keep, its hot-dice bonus included) and :func:`pass_freeze` (the
dice it freezes). The loader's playability check, the pyramiding turn solver and the engine's
kernels all score a pyramiding keep with these.
"""

from __future__ import annotations


def bank_bar(on_board: bool, entry: int, min_bank: int, overcoming: bool, last_result: int) -> int:
    """The least turn total that may be banked: the entry threshold before the board, the minimum
    bank on it, and under ``overcoming`` more than the previous turn's recorded result."""
    bar = min_bank if on_board else entry
    if overcoming and last_result >= bar:
        bar = last_result + 1
    return bar


def bank_need(bar: int, total: int, left: int, forced: bool) -> tuple[int, int]:
    """``(need, no_bank_n)`` for a roll of ``left`` dice at turn total ``total``: a keep may bank when
    its points reach ``need`` (the turn total then reaches ``bar``) and it keeps other than
    ``no_bank_n`` dice (under forced hot dice, a keep of every die rolled must roll them again;
    -1 otherwise)."""
    return bar - total, (left if forced else -1)


def may_bank(points: int, n: int, need: int, no_bank_n: int) -> bool:
    """Whether a keep of ``n`` dice and ``points`` may bank, given :func:`bank_need`."""
    return points >= need and n != no_bank_n


def can_bank(total: int, left_after: int, bar: int, forced: bool) -> bool:
    """Whether turn total ``total`` may be banked with ``left_after`` dice not set aside (0: hot dice):
    :func:`may_bank` of the whole total as one keep from nothing at risk."""
    return may_bank(total, left_after, *bank_need(bar, 0, 0, forced))


def turn_record(banked: bool, total: int, permanent: int, on_board: bool, entry: int) -> tuple[int, bool]:
    """``(recorded, on_board_after)``: a turn records its total when banked, else its permanent
    points (a permanent straight kept through the zilch); before the board a turn records nothing
    unless that reaches the entry threshold, which puts the player on the board."""
    recorded = total if banked else permanent
    if on_board:
        return recorded, True
    if recorded != 0 and recorded >= entry:
        return recorded, True
    return 0, False


def zilch_streak(banked: bool, was_on: bool, streak: int, count: int) -> tuple[int, bool]:
    """``(streak_after, penalty_now)``: a bank ends the zilch streak; a zilch by a player on the board
    adds to it, and the ``count``-th in a row (``count`` > 0) costs the zilch penalty and starts the
    count again. Zilches before the board are not counted."""
    if banked:
        return 0, False
    if not was_on:
        return streak, False
    streak += 1
    if count > 0 and streak >= count:
        return 0, True
    return streak, False


def penalised(score: int, mode: int, points: int, floor: int) -> int:
    """The score after the zilch penalty (``mode`` a code of :data:`zilch_env.rules.schema.PENALTY_MODES`): the score
    (first raised to ``floor``, the ruleset's ``score_floor``, if a challenge's cost took it lower)
    less ``points``, halved (rounding down) or reset to 0; the caller then raises the result to
    ``floor`` (docs/rules.md, the zilch penalty and ``score_floor``). A penalty never raises a score:
    halving or resetting a score at or below zero leaves it."""
    if score < floor:
        score = floor
    if mode == 0:
        return score - points
    if score <= 0:
        return score
    if mode == 1:
        return score // 2
    return 0


#: Source 001: one challenge while below this score and one at or above it.
CHALLENGE_SPLIT = 5000
#: Source 001: a zilch costs the challenger 600 on their first challenge and 2000 on their second.
CHALLENGE_ZILCH_COST = (600, 2000)
#: Tie-break turns are played at most this many times; a tie that survives them is a draw.
MAX_TIEBREAK_ROUNDS = 10


def challenge_bracket(score: int, split: int) -> int:
    """The bracket bit of a challenge declared at ``score``: 1 below ``split``, 2 at or above it."""
    return 2 if score >= split else 1


def may_challenge(on: bool, used: int, brackets: int, score: int, split: int) -> bool:
    """Whether a player (``on`` the board, ``used`` challenges declared, in the bracket bits
    ``brackets``) may challenge at ``score`` (source 001): two challenges at most, one per bracket
    (:func:`challenge_bracket`). Whom they may challenge (an opponent on the board) is the caller's."""
    return on and used < 2 and (brackets & challenge_bracket(score, split)) == 0


def challenge_cost(used: int, first: int, second: int) -> int:
    """What a zilch in a challenge costs the challenger: ``first`` in its first challenge of the
    game, ``second`` in its second (``used`` challenges declared, this one included)."""
    return first if used == 1 else second


def final_turns(p: int, n: int, first: int, end: int) -> tuple[int, int]:
    """The last turns once seat ``p`` of ``n`` ends a turn at or above the target, as a run of seats
    in playing order: ``(start, count)``, the seats ``(start + i) % n`` for ``i < count``. ``end`` is
    a code of :data:`zilch_env.rules.schema.ENDS`: under ``"others_one_turn"`` every other seat plays one more turn;
    under ``"finish_round"`` the seats after ``p`` in the round that began with seat ``first``; under
    ``"instant"`` none (``p`` has won at once: every other score is below the target, since the game
    would have ended when it reached it, so ``p`` alone holds the highest). ``count`` 0: the game
    ends now."""
    if end == 2:
        return (p + 1) % n, 0
    if end == 1:
        pos = (p - first + n) % n
        return (first + pos + 1) % n, n - 1 - pos
    return (p + 1) % n, n - 1


def pyramid_gain(alone, group, have: int, k: int, have_points: int, none):
    """Points of ``k`` newly kept dice of one face under pyramiding (docs/rules.md, the variants):
    alone (``alone``: their points by themselves, ``none`` when they do not score alone), or joining
    the ``have`` dice of that face frozen earlier in this pass, the group of ``have + k`` (``group``
    points, ``none`` when it does not score) replacing their ``have_points``; whichever is worth
    more, ``none`` when neither scores. ``none`` is the caller's "does not score" (None, or the
    kernels' integer sentinel)."""
    best = alone
    if have > 0 and have + k >= 3 and group != none:
        gain = group - have_points
        if best == none or gain > best:
            best = gain
    return best


def face_gain(face_points, at: int, f: int, k: int, have: int, have_points: int, none):
    """:func:`pyramid_gain` of ``k`` new dice of face index ``f`` from ``face_points``, the points of
    ``m`` dice of each face scored alone (entry ``at + f * 7 + m``; -1 where they do not score: the
    compiled rules' ``R_FACE_POINTS``, :func:`zilch_env.rules.scoring.face_points`); ``have`` dice of
    that face frozen with ``have_points`` (``have + k`` is at most six: the dice of one pass)."""
    alone = face_points[at + f * 7 + k]
    group = face_points[at + f * 7 + have + k]
    return pyramid_gain(alone if alone >= 0 else none, group if group >= 0 else none, have, k, have_points, none)


def popcount(x: int) -> int:
    """The number of bits set in ``x`` (dice in a keep mask)."""
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


# The pass's keeps read their inputs where the caller holds them (the kernels: the rule parameters, a
# row of the keep table and a row of the state, whole, since numba would count references to a slice
# passed on; Python: plain sequences): ``face_points[at ...]``, ``rolls[r][counts + f]`` and
# ``rolls[r][first + f]`` (the roll's dice of face index ``f``, and the sorted position of the first),
# ``state[b][frozen + f]`` and ``state[b][frozen_points + f]`` (the dice of each face frozen in this pass
# and their points).


def pass_keep(face_points, at: int, rolls, r: int, counts: int, first: int, rolled: int, state, b: int,
              frozen: int, frozen_points: int, mask: int, hot_bonus: int, none):
    """``(points, dice)`` of keeping the dice at the sorted positions in ``mask`` of roll ``r`` of
    ``rolled`` dice while dice are frozen in this pass (pyramiding; docs/rules.md, the variants): each
    face's new dice score alone or join their frozen dice (:func:`face_gain`), and a keep of every die
    rolled adds ``hot_bonus``. Points ``none`` when ``mask`` is not a canonical keep (each face's
    lowest positions) that scores. The inputs' places are as the comment above says."""
    if mask <= 0 or (mask >> rolled) != 0:
        return none, 0
    pts = 0
    n = 0
    for f in range(6):
        c = rolls[r][counts + f]
        if c == 0:
            continue
        block = (mask >> rolls[r][first + f]) & ((1 << c) - 1)
        k = popcount(block)
        if block != (1 << k) - 1:
            return none, 0
        if k > 0:
            v = face_gain(face_points, at, f, k, state[b][frozen + f], state[b][frozen_points + f], none)
            if v == none:
                return none, 0
            pts += v
            n += k
    if n == rolled:  # hot dice: every die rolled is set aside
        pts += hot_bonus
    return pts, n


def pass_freeze(face_points, at: int, rolls, r: int, counts: int, first: int, state, b: int, frozen: int,
                frozen_points: int, mask: int) -> int:
    """The dice kept by ``mask`` (a keep :func:`pass_keep` scores) join this pass's frozen dice, in
    place: each face's points become its frozen points plus what its new dice added. Returns the
    dice frozen."""
    n = 0
    for f in range(6):
        c = rolls[r][counts + f]
        if c == 0:
            continue
        k = popcount((mask >> rolls[r][first + f]) & ((1 << c) - 1))
        if k > 0:
            state[b][frozen_points + f] += face_gain(face_points, at, f, k, state[b][frozen + f],
                                                     state[b][frozen_points + f], -1)
            state[b][frozen + f] += k
            n += k
    return n


# The same functions compiled for numba code (the kernels, the turn solver), inlined where called.
from zilch_env.jit import INLINE, njit as _njit  # noqa: E402

nb_bank_bar = _njit(cache=True, inline=INLINE, _nrt=False)(bank_bar)
nb_bank_need = _njit(cache=True, inline=INLINE, _nrt=False)(bank_need)
nb_may_bank = _njit(cache=True, inline=INLINE, _nrt=False)(may_bank)
nb_turn_record = _njit(cache=True, inline=INLINE, _nrt=False)(turn_record)
nb_zilch_streak = _njit(cache=True, inline=INLINE, _nrt=False)(zilch_streak)
nb_penalised = _njit(cache=True, inline=INLINE, _nrt=False)(penalised)
nb_challenge_cost = _njit(cache=True, inline=INLINE, _nrt=False)(challenge_cost)
nb_challenge_bracket = _njit(cache=True, inline=INLINE, _nrt=False)(challenge_bracket)
nb_final_turns = _njit(cache=True, inline=INLINE, _nrt=False)(final_turns)
nb_pyramid_gain = _njit(cache=True, inline=INLINE, _nrt=False)(pyramid_gain)


def _compiled(func, inline=INLINE, **calls):
    """``func`` compiled for numba code, the plain functions it calls by name replaced by their
    compiled forms ``calls`` (numba code calls compiled functions only): the same source, once."""
    import types

    g = dict(func.__globals__)
    g.update(calls)
    f = types.FunctionType(func.__code__, g, func.__name__, func.__defaults__, func.__closure__)
    f.__qualname__, f.__module__, f.__doc__ = func.__qualname__, func.__module__, func.__doc__
    return _njit(cache=True, inline=inline, _nrt=False)(f)


nb_face_gain = _compiled(face_gain, pyramid_gain=nb_pyramid_gain)
nb_may_challenge = _compiled(may_challenge, challenge_bracket=nb_challenge_bracket)
nb_popcount = _njit(cache=True, inline=INLINE, _nrt=False)(popcount)
# inlined into its one caller whatever the setting: a call with its many arguments, made for each of
# a roll's 63 masks, costs a third of the pyramiding engine's speed (bench/ab.py on bench/batched.py)
nb_pass_keep = _compiled(pass_keep, "always", face_gain=nb_face_gain, popcount=nb_popcount)
nb_pass_freeze = _compiled(pass_freeze, face_gain=nb_face_gain, popcount=nb_popcount)


@_njit(cache=True, inline=INLINE, _nrt=False)
def nb_can_bank(total, left_after, bar, forced):
    """:func:`can_bank` over the compiled parts (numba calls compiled functions only)."""
    need, no_bank_n = nb_bank_need(bar, 0, 0, forced)
    return nb_may_bank(total, left_after, need, no_bank_n)
