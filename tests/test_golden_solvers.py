"""The exact solvers' values pinned: the turn solver on every preset and variant, the two-player game
solver and the multi-player solver on small rulesets (``tests/data/make_golden_solvers.py``) solve again
to the recorded numbers within 1e-9 (their sums within a relative 1e-9).

The entry points the records are made with are imported in one block at the top of
``make_golden_solvers.py`` (and only there): update that block when a module moves."""

from __future__ import annotations

import gzip
import json
import math
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))

import make_golden_solvers as S  # noqa: E402

GOLDEN = json.loads(gzip.decompress((DATA / "golden_solvers.json.gz").read_bytes()))
TURN = {name: rest for name, *rest in S.turn_configs()}
GAME = dict(S.game_configs())
MULTI = {name: rest for name, *rest in S.multi_configs()}


def _close(want, got, path: str, problems: list[str], sums: bool = False) -> None:
    """Compare two records (nested dicts, lists, numbers) and collect every difference by path."""
    if len(problems) > 20:
        return
    if isinstance(want, dict) and isinstance(got, dict):
        if sorted(want) != sorted(got):
            problems.append(f"{path}: keys {sorted(got)}, recorded {sorted(want)}")
            return
        for k in want:
            _close(want[k], got[k], f"{path}.{k}", problems, k in ("sum", "wsum"))
    elif isinstance(want, list) and isinstance(got, list):
        if len(want) != len(got):
            problems.append(f"{path}: {len(got)} entries, recorded {len(want)}")
            return
        for i, (w, g) in enumerate(zip(want, got)):
            _close(w, g, f"{path}[{i}]", problems)
    elif isinstance(want, (int, float)) and not isinstance(want, bool) and isinstance(got, (int, float)):
        rel = S.SUM_RTOL * max(abs(want), abs(got)) if sums else 0.0
        if not math.isclose(want, got, rel_tol=0.0, abs_tol=max(S.TOL, rel)):
            problems.append(f"{path}: {got!r}, recorded {want!r} (off by {abs(got - want):.3g})")
    elif want != got:
        problems.append(f"{path}: {got!r}, recorded {want!r}")


def _check(kind: str, name: str, got: dict) -> None:
    problems: list[str] = []
    _close(GOLDEN[kind][name], got, name, problems)
    assert not problems, f"{kind} solver, {name}: the values changed:\n  " + "\n  ".join(problems[:20])


def test_every_solve_is_recorded():
    assert sorted(GOLDEN["turn"]) == sorted(TURN)
    assert sorted(GOLDEN["game"]) == sorted(GAME)
    assert sorted(GOLDEN["multi"]) == sorted(MULTI)
    assert {name.split("/")[0] for name in TURN} == set(S.PRESETS)


@pytest.mark.parametrize("preset", S.PRESETS)
def test_turn_solver_reproduces_its_golden_values(preset):
    for name, (rs, on, thr, count) in TURN.items():
        if name.split("/")[0] == preset:
            _check("turn", name, S.turn_record(rs, on, thr, count))


@pytest.mark.parametrize("name", sorted(GAME))
def test_game_solver_reproduces_its_golden_values(name, solve_once, monkeypatch):
    """The record's solve, ``solve_game(rs, cache=False, progress=False)``, is made by conftest's
    ``solve_once``: that very call, once a session (tests/agents/solver/test_game_solver.py's
    self-play makes it for zonk, zilch, zilch5k and cardgames to 1,000 too)."""
    def solve_game(rs, **kw):
        assert kw == {"cache": False, "progress": False}, kw  # solve_once's call
        return solve_once(rs)

    monkeypatch.setattr(S, "solve_game", solve_game)
    _check("game", name, S.game_record(GAME[name]))


@pytest.mark.parametrize("name", sorted(MULTI))
def test_multi_solver_reproduces_its_golden_values(name):
    rs, players, eps = MULTI[name]
    _check("multi", name, S.multi_record(rs, players, eps))
