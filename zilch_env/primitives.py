"""The turn's bank rule as scalar functions, written once for every caller.

Plain Python that numba compiles as it is: the single-game engine (:mod:`zilch_env.engine`), the
loader's playability check (:mod:`zilch_env.playable`) and the turn solver's policy call them as
Python functions, and the fast kernels (:mod:`zilch_env._batched_kernels`) and the turn solver's
backward induction compile the same source with ``numba.njit(inline="always")``. A change of the
rule here reaches all of them.

The rule has two parts: :func:`bank_bar` (which turn total may bank) and :func:`bank_need` (what a
keep of this roll must then bring, and which keep may not bank under forced hot dice); a keep of
``n`` dice and ``points`` may bank when :func:`may_bank` says so, which callers looping over many
keeps may write out as ``points >= need and n != no_bank_n``.
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


# The same functions compiled for numba code (the kernels, the turn solver), inlined where called.
from numba import njit as _njit  # noqa: E402

nb_bank_bar = _njit(cache=True, inline="always")(bank_bar)
nb_bank_need = _njit(cache=True, inline="always")(bank_need)
nb_may_bank = _njit(cache=True, inline="always")(may_bank)


@_njit(cache=True, inline="always")
def nb_can_bank(total, left_after, bar, forced):
    """:func:`can_bank` over the compiled parts (numba calls compiled functions only)."""
    need, no_bank_n = nb_bank_need(bar, 0, 0, forced)
    return nb_may_bank(total, left_after, need, no_bank_n)
