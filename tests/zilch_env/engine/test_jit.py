"""ZILCH_NUMBA_INLINE: the suite compiles the engine without numba's inlining (tests/conftest.py);
the default compilation gives the same games, and a bad value is refused by name."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from zilch_env import jit

ROOT = Path(__file__).resolve().parents[3]

# Sixteen three-player games of farkle with piggyback, random legal actions (picked in Python), every
# state and legal list on the way: run here and in a subprocess. The single-game view steps with the
# turn-flow kernels the batch uses, which hold the inlined rule helpers; it compiles them in a third of
# the batch's time. (The observation's kernel is left out: its inlined compilation alone takes about
# 15 s, a third of this test's, and bench/compile_time.py compiles it in both settings.)
GAMES = """
import numpy as np
from zilch_env import GameState, load_ruleset


def play():
    rs = load_ruleset("farkle", {"variants.piggyback": True})
    rng = np.random.default_rng(0)
    states = []
    for seed in range(16):
        g = GameState(rs, 3, seed=seed)
        for _ in range(60):
            if g.done:
                break
            legal = g.legal_actions()
            states.append([g.snapshot(), legal])
            g.apply(int(rng.choice(legal)))
    return {"states": states}
"""
SUBPROCESS = GAMES + """
import json
from zilch_env import jit
print(json.dumps(dict(play(), inline=jit.INLINE)))
"""


def _run(env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", SUBPROCESS], env=env, capture_output=True, text=True, cwd=ROOT)


def test_the_suite_compiles_as_conftest_says():
    """``never`` unless the suite was started with ``ZILCH_NUMBA_INLINE=always``; each setting's
    compiled code goes to a folder of its own, where numba looks."""
    from numba.core import config

    assert jit.INLINE == os.environ["ZILCH_NUMBA_INLINE"]
    assert jit.cache_dir() == Path(os.environ["NUMBA_CACHE_DIR"]) / f"inline-{jit.INLINE}-{jit.source_key()}"
    assert config.CACHE_DIR == str(jit.cache_dir())


def test_a_changed_source_gets_a_cache_folder_of_its_own(tmp_path):
    """A kernel's compiled code holds its helpers from other files and the packed rule constants, which
    numba's own check (the kernel's file) misses: any change to the engine's or the solvers' source
    changes the folder's key, and an unchanged copy keeps it."""
    import shutil

    src = Path(jit.__file__).resolve().parent
    shutil.copytree(src, tmp_path / "zilch_env", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(src.parent / "agents" / "solver", tmp_path / "agents" / "solver",
                    ignore=shutil.ignore_patterns("__pycache__", "game_tables"))
    shutil.copy(src.parent / "agents" / "learned.py", tmp_path / "agents" / "learned.py")
    key = jit.source_key(tmp_path / "zilch_env")
    assert key == jit.source_key()
    for changed in ("zilch_env/rules/packed.py", "agents/solver/game_turn.py"):
        path = tmp_path / changed
        text = path.read_text()
        path.write_text(text + "\n# changed\n")
        assert jit.source_key(tmp_path / "zilch_env") != key, changed
        path.write_text(text)
    assert jit.source_key(tmp_path / "zilch_env") == key


def test_the_kernels_are_cached_where_the_announcement_looks():
    """After a step of the batched engine its kernels' index files are in cache_dir, under the name
    announce_compile looks for (so the next process says nothing)."""
    from zilch_env.engine import kernels
    from zilch_env.engine.batched import BatchedGames

    bg = BatchedGames("zonk", 2, 2, seed=0)
    bg.step(bg.random_actions())
    assert any(jit.cache_dir().glob(f"*/{Path(kernels.__file__).stem}.*.nbi"))


def test_a_cold_cache_is_announced_once_on_stderr(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(jit, "_announced", False)
    jit.announce_compile("/somewhere/kernels.py")
    jit.announce_compile("/somewhere/kernels.py")
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "compiling the fast engine once" in err
    assert str(tmp_path / f"inline-{jit.INLINE}-{jit.source_key()}") in err
    warm = tmp_path / f"inline-{jit.INLINE}-{jit.source_key()}" / "engine_0123"
    warm.mkdir(parents=True)
    (warm / "kernels.step-10.py311.nbi").touch()
    monkeypatch.setattr(jit, "_announced", False)
    jit.announce_compile("/somewhere/kernels.py")
    assert capsys.readouterr().err == ""


def test_the_default_compiles_without_inlining():
    env = {k: v for k, v in os.environ.items() if k != "ZILCH_NUMBA_INLINE"}
    p = subprocess.run([sys.executable, "-c", "from zilch_env import jit; print(jit.INLINE)"], env=env,
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0 and p.stdout.split() == ["never"], p.stderr[-2000:]


def other_compilation() -> dict:
    """GAMES played in a subprocess compiled with the setting this process does not use (its kernels
    in that setting's folder of the same cache; tests/warm_up.py compiles them before the suite)."""
    other = "always" if jit.INLINE == "never" else "never"
    p = _run(dict(os.environ, ZILCH_NUMBA_INLINE=other))
    assert p.returncode == 0, p.stderr[-2000:]
    theirs = json.loads(p.stdout.strip().splitlines()[-1])
    assert theirs.pop("inline") == other
    return theirs


def test_both_compilations_play_the_same_games():
    """The other compilation (numba's inlining, in its own cache folder) against this process's:
    equal states."""
    theirs = other_compilation()
    here: dict = {}
    exec(GAMES, here)
    assert theirs == json.loads(json.dumps(here["play"]()))


def test_a_bad_setting_is_refused_by_name():
    p = _run(dict(os.environ, ZILCH_NUMBA_INLINE="sometimes"))
    assert p.returncode != 0
    assert "ZILCH_NUMBA_INLINE='sometimes'" in p.stderr and "always, never" in p.stderr


def test_the_compile_time_bench_times_and_compares(monkeypatch, capsys):
    """bench/compile_time.py: its child times every entry point and the two engines (here, on this
    process's compilation, already cached); the table and the ratios are those of the two runs."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("compile_time", ROOT / "bench" / "compile_time.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    got = bench.child("zonk", 2, 0.02, 1)
    assert set(got["compile"]) == set(bench.ENTRIES) == set(got["cpu"]) and all(t >= 0 for t in got["compile"].values())
    assert got["rate"]["single"] > 0 and got["rate"]["fused"] > 0
    runs = {"always": {"compile": dict.fromkeys(bench.ENTRIES, 10.0), "cpu": dict.fromkeys(bench.ENTRIES, 5.0),
                       "rate": {"single": 1.0, "fused": 20.0}},
            "never": {"compile": dict.fromkeys(bench.ENTRIES, 2.0), "cpu": dict.fromkeys(bench.ENTRIES, 1.0),
                      "rate": {"single": 2.0, "fused": 20.0}}}
    monkeypatch.setattr(bench, "run_mode", lambda mode, args: runs[mode])
    assert bench.main([]) == 0
    out = capsys.readouterr().out
    # nine entries: the totals, then the CPU of the eight that are not the single-game view's
    assert "| always | 10.0 s |" in out and "| 90.0 s | 45.0 s | 40.0 s | 20 | 20.0x |" in out
    assert "| 18.0 s | 9.0 s | 8.0 s | 20 | 10.0x |" in out
    assert "5.0x the compile time, 2.00x the fused speed" in out


def test_the_turn_flow_compiles_without_reference_counts():
    """Every numba function of the engine's turn flow, the batch kernels and the agents' kernels is
    compiled with ``_nrt=False`` (zilch_env.jit: the reference counts at each call took two thirds of
    the engine's time), but the kernels that allocate, which hand their buffers to such a helper."""
    import importlib

    from numba.core.registry import CPUDispatcher

    allocating = {("zilch_env.engine.batch_kernels", "legal_masks")}
    modules = ("zilch_env.engine.kernels", "zilch_env.engine.keeps", "zilch_env.engine.decisions",
               "zilch_env.engine.splitmix", "zilch_env.engine.batch_kernels", "zilch_env.players.agent_kernels",
               "zilch_env.envs.reward")
    seen, counted = [], 0
    for name in modules:
        mod = importlib.import_module(name)
        for attr, f in vars(mod).items():
            if isinstance(f, CPUDispatcher) and f.py_func.__module__ == name:
                counted += 1
                if f.targetoptions.get("_nrt", True) and (name, attr) not in allocating:
                    seen.append(f"{name}.{attr}")
    assert counted > 40
    assert not seen, f"compiled with numba's reference counts: {seen}"


def test_constant_arguments_compile_no_specialisation_of_their_own():
    """A compiled function called with constants (``1``, ``True``) and with variables is compiled
    once (zilch_env.jit.njit), where numba.njit compiles it again for each constant; every compiled
    function of the engine, the agents' kernels and the solvers is made by zilch_env.jit.njit."""
    import importlib

    import numba
    from numba.core.registry import CPUDispatcher

    def twice(x, flag):
        return 2 * x if flag else x

    def calls(f):
        def caller(y, b):
            return f(1, True) + f(y, b) + f(0, False)
        return caller

    ours, theirs = jit.njit(cache=False)(twice), numba.njit(cache=False)(twice)
    assert jit.njit(cache=False)(calls(ours))(5, True) == 2 + 10 + 0
    assert len(ours.signatures) == 1
    assert numba.njit(cache=False)(calls(theirs))(5, True) == 12
    assert len(theirs.signatures) == 3

    modules = ("zilch_env.rules.primitives", "zilch_env.engine.kernels", "zilch_env.engine.keeps",
               "zilch_env.engine.decisions", "zilch_env.engine.splitmix", "zilch_env.engine.batch_kernels",
               "zilch_env.players.agent_kernels", "zilch_env.envs.reward", "agents.learned",
               "agents.solver.turn", "agents.solver.turn_lanes", "agents.solver.turn_pyramid",
               "agents.solver.rule_value", "agents.solver.game_turn", "agents.solver.game_kernels",
               "agents.solver.game_sweep", "agents.solver.game_challenge", "agents.solver.multi_kernels",
               "agents.solver.situation_kernels")
    plain = numba_made = 0
    for name in modules:
        for f in vars(importlib.import_module(name)).values():
            if isinstance(f, CPUDispatcher) and f.py_func.__module__ == name:
                if "get_call_template" in vars(f):
                    plain += 1
                else:
                    numba_made += 1
    assert plain > 150 and numba_made == 0
