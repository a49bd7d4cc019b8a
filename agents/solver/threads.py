"""The solvers' numba threads: :func:`numba_threads` runs a solve on the threads asked and sets numba's
count back as it was after it, however the solve ends (the two-player and the multi-player game
solvers, ``threads=`` of :func:`agents.solver.game.solve_game` and :func:`agents.solver.multi.solve_multi`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def numba_threads(threads: int | None) -> Iterator[int]:
    """Within the block numba's parallel kernels run on ``threads`` threads, at most numba's
    ``NUMBA_NUM_THREADS`` (None or 0: the count numba has now); yields the count in force. On leaving
    the block, by its end or an exception (a Ctrl-C), numba's count before the block is set again."""
    import numba

    old = numba.get_num_threads()
    if threads:
        numba.set_num_threads(min(int(threads), numba.config.NUMBA_NUM_THREADS))
    try:
        yield numba.get_num_threads()
    finally:
        numba.set_num_threads(old)
