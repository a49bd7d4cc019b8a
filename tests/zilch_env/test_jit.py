"""ZILCH_NUMBA_INLINE: the suite compiles the engine without numba's inlining (tests/conftest.py);
the default compilation gives the same games, and a bad value is refused by name."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from zilch_env import _jit
from zilch_env.batched import BatchedGames

ROOT = Path(__file__).resolve().parents[2]

# 200 random steps of three-player farkle with piggyback (picked in Python: only the kernels a
# game needs are compiled), then every observation and mask.
GAMES = """
import json, sys
import numpy as np
from zilch_env import _jit, load_ruleset
from zilch_env.batched import BatchedGames
bg = BatchedGames(load_ruleset("farkle", {"variants.piggyback": True}), 16, 3, seed=5)
rng = np.random.default_rng(0)
for _ in range(200):
    bg.step([rng.choice(np.flatnonzero(m)) if m.any() else -1 for m in bg.legal_masks()])
    bg.reset(np.flatnonzero(bg.done))
print(json.dumps({"inline": _jit.INLINE, "obs": bg.observe(bg.current).round(6).tolist(),
                  "masks": bg.legal_masks().tolist(), "scores": bg.scores.tolist()}))
"""


def _run(env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", GAMES], env=env, capture_output=True, text=True, cwd=ROOT)


def test_the_suite_compiles_as_conftest_says():
    """``never`` unless the suite was started with ``ZILCH_NUMBA_INLINE=always``; ``never``'s compiled
    code goes to a cache of its own."""
    assert _jit.INLINE == os.environ["ZILCH_NUMBA_INLINE"]
    if _jit.INLINE == "never":
        cache = Path(os.environ["NUMBA_CACHE_DIR"]).name
        assert cache in (".numba-test-cache", "zilch-tests-inline-never")


def test_both_compilations_play_the_same_games():
    """The default compilation (numba's inlining, its own cache: __pycache__ beside the sources, or
    the NUMBA_CACHE_DIR the suite was started with) against this process's: equal states."""
    env = {k: v for k, v in os.environ.items() if k not in ("ZILCH_NUMBA_INLINE", "NUMBA_CACHE_DIR")}
    p = _run(env)
    assert p.returncode == 0, p.stderr[-2000:]
    always = json.loads(p.stdout.strip().splitlines()[-1])
    assert always["inline"] == "always"
    from zilch_env import load_ruleset

    bg = BatchedGames(load_ruleset("farkle", {"variants.piggyback": True}), 16, 3, seed=5)
    rng = np.random.default_rng(0)
    for _ in range(200):
        bg.step([rng.choice(np.flatnonzero(m)) if m.any() else -1 for m in bg.legal_masks()])
        bg.reset(np.flatnonzero(bg.done))
    assert always["scores"] == bg.scores.tolist()
    assert always["masks"] == bg.legal_masks().tolist()
    assert np.array_equal(np.array(always["obs"]), bg.observe(bg.current).round(6))


def test_a_bad_setting_is_refused_by_name():
    p = _run(dict(os.environ, ZILCH_NUMBA_INLINE="sometimes"))
    assert p.returncode != 0
    assert "ZILCH_NUMBA_INLINE='sometimes'" in p.stderr and "always, never" in p.stderr
