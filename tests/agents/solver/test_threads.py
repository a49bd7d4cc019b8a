"""agents.solver.threads.numba_threads: the solvers' numba threads within a solve, numba's count given
back after it however the solve ends."""

from __future__ import annotations

import pytest

from agents.solver.threads import numba_threads


def test_numba_threads_sets_the_count_and_gives_the_old_one_back():
    import numba

    before = numba.get_num_threads()
    with numba_threads(1) as n:
        assert n == 1 == numba.get_num_threads()
    assert numba.get_num_threads() == before
    with pytest.raises(KeyboardInterrupt), numba_threads(1):  # a Ctrl-C during a solve
        raise KeyboardInterrupt
    assert numba.get_num_threads() == before
    with numba_threads(None) as n:  # numba's count as it is
        assert n == before
    with numba_threads(10 ** 6) as n:  # at most the threads numba started
        assert n == numba.config.NUMBA_NUM_THREADS
    assert numba.get_num_threads() == before
