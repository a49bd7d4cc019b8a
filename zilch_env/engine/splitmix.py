"""SplitMix64 (Steele, Lea and Flood 2014): the keyed dice of the batched engine and of the
evaluation's deals. Kept in one place so that Python, numpy and the numba kernels
(``zilch_env.engine.kernels._mix``) compute the same codes."""

from __future__ import annotations

import numpy as np

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
