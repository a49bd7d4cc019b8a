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


def _arrays(folder):
    """Every array of every table file a solve wrote into ``folder``, by file and name."""
    import numpy as np

    out = {}
    for f in sorted(folder.rglob("*.npz")):
        with np.load(f, allow_pickle=False) as z:
            out.update({(f.name, k): z[k] for k in z.files if k != "meta"})
    return out


@pytest.mark.parametrize("players", [2, 3])
def test_two_threads_solve_the_table_one_thread_solves(tmp_path, players):
    """The suite's solves run one numba thread per worker (tests/conftest.py): the parallel sweeps
    with two threads are checked here, against one thread, array for array (the game solver for two
    players, the multi-player solver for three)."""
    import numpy as np

    from agents.solver.game import solve_game
    from agents.solver.multi import solve_multi
    from zilch_env import load_ruleset

    rs = load_ruleset("zilch", {"target": 600 if players == 3 else 1000})
    got = {}
    for threads in (1, 2):
        folder = tmp_path / f"t{threads}"
        if players == 2:
            solve_game(rs, directory=folder, threads=threads, progress=False)
        else:
            solve_multi(rs, players, directory=folder, threads=threads, progress=False, tail_eps=1e-2)
        got[threads] = _arrays(folder)
    assert got[1] and got[1].keys() == got[2].keys()
    for key, a in got[1].items():
        assert np.array_equal(a, got[2][key], equal_nan=a.dtype.kind in "fc"), key
