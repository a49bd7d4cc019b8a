"""SplitMix64 (Steele, Lea and Flood 2014): the keyed dice of the batched engine and of the
evaluation's deals, and the decision streams of the kernels' random agents. Kept in one place so that
Python (:func:`mix64`), numpy (:func:`mix64_array`) and the numba kernels (:func:`keyed_code`,
:func:`_next_u64`) compute the same codes."""

from __future__ import annotations

import numpy as np

from zilch_env.jit import INLINE, njit
from zilch_env.engine.layout import CODES

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def mix64(z: int) -> int:
    """The SplitMix64 output function on a Python int."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def mix64_array(z: np.ndarray) -> np.ndarray:
    """The same on a ``uint64`` array (wrapping multiplication)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


# The same in the kernels (numba)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)


@njit(cache=True, inline=INLINE, _nrt=False)
def _next_u64(rng, i):
    """SplitMix64: the decision streams of the built-in random agents (one uint64 state each)."""
    z = rng[i] + _GOLDEN
    rng[i] = z
    return _mix(z)


@njit(cache=True, inline=INLINE, _nrt=False)
def _mix(z):
    """The SplitMix64 output function."""
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True, inline=INLINE, _nrt=False)
def keyed_code(key, i):
    """Dice code ``i`` (0, 1, ...) of the keyed stream ``key``: the (i+1)-th SplitMix64 output
    from state ``key``, modulo 6**6 (zilch_env.engine.batched.KeyedDice computes the same in Python)."""
    return np.int64(_mix(key + np.uint64(i + 1) * _GOLDEN) % np.uint64(CODES))


@njit(cache=True, inline=INLINE, _nrt=False)
def slot_index(seat, turn, roll):
    """The counter of a turn slot in the keyed slot dice: seat, the seat's turn (from 0) and the roll
    of that turn (from 0) side by side (zilch_env.engine.batched.KeyedSlotDice uses the same)."""
    return (seat << 40) | (turn << 16) | roll


@njit(cache=True, inline=INLINE, _nrt=False)
def _below(rng, i, m):
    """A uniform whole number in ``[0, m)`` from stream ``i`` (53 random bits, scaled)."""
    u = np.float64(_next_u64(rng, i) >> _S11) * (1.0 / 9007199254740992.0)
    k = np.int64(u * m)
    return k if k < m else m - 1
