"""What the tests share: the configurations every environment test runs (every preset, each variant
alone, all of them together), the solved tables several test modules read (session-scoped), and
scripted turns by naming the dice to keep."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Sequence

# Before zilch_env is imported: the suite compiles the engine without numba's own inlining (the
# default: quick to compile; zilch_env.jit) unless the shell says otherwise, and caches it under
# .numba-test-cache in that setting's folder (zilch_env.jit.cache_dir) unless NUMBA_CACHE_DIR names
# another place. ZILCH_NUMBA_INLINE=always pytest ... tests the inlined compilation.
os.environ.setdefault("ZILCH_NUMBA_INLINE", "never")
os.environ.setdefault("NUMBA_CACHE_DIR", str(Path(__file__).resolve().parents[1] / ".numba-test-cache"))
if "numba" in sys.modules:  # a plugin imported it first: numba reads its settings again
    from numba.core import config as _numba_config

    _numba_config.reload_config()

import pytest  # noqa: E402

import zilch_env  # noqa: E402
from zilch_env import GameState, keep_action, mask_of  # noqa: E402

# With several xdist workers (one per core), a worker's numba kernels run one thread unless a test
# asks for more (threads=2): two workers each running two threads on two cores made the solver tests'
# threads wait on each other (about 14% more time, 13% more CPU). Two threads against one are checked in
# tests/agents/solver/test_threads.py.
if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1) > 1:
    import numba

    numba.set_num_threads(1)

# Every preset as shipped, and each variant switched on (on the preset of the source it comes from),
# and all of them at once.
VARIANTS = {
    "pyramiding": ("zilch15k", {"variants.pyramiding": True}),
    "challenge": ("zilch15k", {"variants.challenge": True}),
    "overcoming": ("zilch15k", {"variants.overcoming": True}),
    "piggyback": ("farkle", {"variants.piggyback": True}),
    "six_dice_zilch_bonus": ("farkle", {"variants.six_dice_zilch_bonus": 500}),
    "penalty_halve": ("farkle", {"variants.zilch_penalty": {"count": 3, "points": 0, "mode": "halve"}}),
    "penalty_reset": ("farkle", {"variants.zilch_penalty": {"count": 3, "points": 0, "mode": "reset"}}),
    "all_variants": ("zonk", {
        "variants.pyramiding": True, "variants.challenge": True, "variants.overcoming": True,
        "variants.piggyback": True, "variants.six_dice_zilch_bonus": 500,
        "variants.zilch_penalty": {"count": 2, "points": 300, "mode": "subtract"},
    }),
}
CONFIGS = {name: (name, None) for name in zilch_env.PRESETS} | VARIANTS


@pytest.fixture(scope="session")
def solve_once():
    """``solve_game(rs)`` once per ruleset for the whole session (never from or to the disk cache):
    the game solver's tests, the shaping tests and the agents' tests read the same small tables."""
    from agents.solver.game import solve_game
    from zilch_env import ruleset_to_toml

    tables = {}

    def solve(rs):
        key = ruleset_to_toml(rs)
        if key not in tables:
            tables[key] = solve_game(rs, cache=False, progress=False)
        return tables[key]

    return solve


@pytest.fixture(scope="session")
def shared_solves(tmp_path_factory):
    """A folder for the solvers' on-disk caches (``directory=``) shared by the run's xdist workers:
    a test file that solves the game another file solved, with the same arguments, loads that table
    if the other file came first. The solvers write a table whole or not at all, so two workers
    solving it at once each get a whole table."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = root / "shared-solves"
    folder.mkdir(exist_ok=True)
    return folder


class FirstLegal:
    """A mover that plays the lowest legal action (as :func:`first_legal_batch` does for a batch)."""

    name = "first-legal"

    def act(self, state, legal, rng):
        return legal[0]


def first_legal_batch(obs, masks):
    """A batch policy ``(obs, masks) -> actions``: the lowest legal action of every game."""
    return masks.argmax(axis=1)


def keep(game: GameState, dice: Sequence[int], bank: bool = False) -> None:
    """Keep these faces from the current roll, then bank or roll."""
    game.apply(keep_action(mask_of(game.roll, dice), bank))


@pytest.fixture
def kp():
    return keep


@pytest.fixture
def opponent_providers(monkeypatch):
    """The opponent providers ``pyproject.toml`` declares (entry points ``zilch_rl.opponents``), as
    an install of this tree would list them: the tests' venv may hold an older install of the package
    (editable installs read entry points at install time), so the test sets them itself. Yields a
    function that replaces them with others (``set(name=factory, ...)``; none: no providers)."""
    import importlib.metadata as md
    import tomllib

    from zilch_env.envs.opponents import ENTRY_POINT_GROUP

    meta = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    declared = meta["project"]["entry-points"][ENTRY_POINT_GROUP]
    eps = [md.EntryPoint(name=k, value=v, group=ENTRY_POINT_GROUP) for k, v in declared.items()]
    real = md.entry_points

    def entry_points(**kw):
        if kw.get("group") == ENTRY_POINT_GROUP:
            return list(eps)
        return real(**kw)

    class _Stub:
        def __init__(self, name, obj):
            self.name, self._obj = name, obj

        def load(self):
            return self._obj

    def set_providers(**factories):
        eps[:] = [_Stub(k, f) for k, f in factories.items()]

    monkeypatch.setattr(md, "entry_points", entry_points)
    yield set_providers
