"""How the engine's compiled code is compiled: one switch, read once at import.

The small rule functions of :mod:`zilch_env.rules.primitives` and the batched engine's helpers are
``numba.njit(inline=INLINE)``. Numba's own inlining (``"always"``, the default) makes the fused
engine about twice as fast as leaving inlining to LLVM, and costs compile time: each kernel that
calls them types their code again, about six times the compile time from an empty cache
(``bench/compile_time.py`` measures both). ``ZILCH_NUMBA_INLINE=never`` compiles the same
source without it: the same results, slower to run, faster to compile; the test suite sets it
(``tests/conftest.py``), with a numba cache of its own, because numba's cache does not tell the
two compilations apart.
"""

from __future__ import annotations

import os

__all__ = ["INLINE", "INLINE_CHOICES"]

#: The values ``ZILCH_NUMBA_INLINE`` may take.
INLINE_CHOICES = ("always", "never")


def _inline() -> str:
    raw = os.environ.get("ZILCH_NUMBA_INLINE", "always").strip() or "always"
    if raw not in INLINE_CHOICES:
        raise ValueError(f"ZILCH_NUMBA_INLINE={raw!r}: one of {', '.join(INLINE_CHOICES)} "
                         f"(always: numba inlines the rule helpers, the fast default; never: quicker to compile)")
    return raw


#: ``numba.njit``'s ``inline`` for the engine's helpers: ``"always"`` or ``"never"``.
INLINE = _inline()
