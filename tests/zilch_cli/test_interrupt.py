"""Ctrl-C stops a long command at once: ``zilch solve --objective win`` is interrupted in the middle of
its solve (its work sits in long compiled calls) and exits 130 within a second or so, writing no table."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_ctrl_c_stops_a_game_solve_at_once_and_writes_nothing(tmp_path):
    env = dict(os.environ, ZILCH_SOLVER_CACHE=str(tmp_path))
    p = subprocess.Popen([sys.executable, "-m", "zilch_cli", "solve", "--ruleset", "zonk", "--set", "target=10000",
                          "--objective", "win", "--force", "--json"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    time.sleep(6)  # imports done, the solve under way (to 10,000 it takes about half a minute here)
    assert p.poll() is None, p.communicate()
    t0 = time.perf_counter()
    os.kill(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=60)
    took = time.perf_counter() - t0
    assert p.returncode == 130 and "interrupted" in err, (p.returncode, err[-2000:])
    assert took < 2.0, f"stopped {took:.2f} s after Ctrl-C"
    assert list(tmp_path.iterdir()) == [], "an interrupted solve writes no table, whole or half"
