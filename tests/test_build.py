"""``python -m build`` makes an sdist and a wheel (built from the sdist, so the sdist
is complete) that install into a fresh venv and run ``zilch --help``, a Zilch-v1 episode and a game of
the shipped trained agent (``ppo:zonk``), with the package data (presets, game tables, web pages, the
shipped policies: each checkpoints/NAME/policy.onnx and policy.json as agents/policies/NAME/) inside.
``make build-check`` runs this file alone.

Fast by design (about 10 s): the build runs without build isolation, with this venv's setuptools (the
build-system's one requirement, in the dev extra; the isolated build from the registry's setuptools is
what ``pip install -e .`` of the set-up runs each time); the fresh venv has no pip and no dependencies
of its own; it sees the project venv's installed dependencies through a ``.pth`` file (whose own
``.pth`` files, such as the project's editable install, are not run), and the wheel goes in with
``pip --python ... --no-deps``. The installed copy runs with numba's JIT off (``NUMBA_DISABLE_JIT=1``:
the same functions, uncompiled): numba caches by source path, so the kernels of a new install would
compile again (about 20 s) where this test is about what the wheel holds; the rest of the suite runs
those kernels compiled.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tarfile
import venv
import zipfile
from pathlib import Path

import zilch_env

ROOT = Path(__file__).resolve().parents[1]
DATA = ("zilch_env/rules/presets/zonk.toml", "agents/solver/game_tables/README.md",
        "agents/evaluate/strategy_cards.json", "zilch_web/static/")
#: The shipped policies: every checkpoint folder with an exported ONNX policy.
POLICIES = sorted(d.name for d in (ROOT / "checkpoints").iterdir() if (d / "policy.onnx").is_file())


def run(cmd, **kw):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")} | {"NUMBA_DISABLE_JIT": "1"}
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env, **kw)
    assert out.returncode == 0, f"{cmd}:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out.stdout


def test_wheel_and_sdist_install_into_a_fresh_venv_and_run(tmp_path):
    dist = tmp_path / "dist"
    run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(ROOT)], cwd=tmp_path)
    v = zilch_env.__version__
    wheel = dist / f"zilch_rl-{v}-py3-none-any.whl"
    sdist = dist / f"zilch_rl-{v}.tar.gz"
    assert wheel.exists() and sdist.exists(), sorted(p.name for p in dist.iterdir())
    names = zipfile.ZipFile(wheel).namelist()
    for want in DATA:
        assert any(n.startswith(want) for n in names), f"the wheel lacks {want}"
    assert any(n.startswith("agents/solver/game_tables/game-zonk-") for n in names)
    assert f"zilch_rl-{v}.dist-info/licenses/LICENSE" in names
    assert "zonk" in POLICIES and "any" in POLICIES
    shipped = {n for n in names if n.startswith("agents/policies/")}
    assert shipped == {f"agents/policies/{d}/{f}" for d in POLICIES for f in ("policy.json", "policy.onnx")}
    with zipfile.ZipFile(wheel) as z:  # the build's copy is checkpoints/' file
        assert z.read("agents/policies/zonk/policy.onnx") == (ROOT / "checkpoints/zonk/policy.onnx").read_bytes()
    snames = tarfile.open(sdist).getnames()
    for want in DATA + ("LICENSE", "pyproject.toml", "README.md", "setup.py", "checkpoints/zonk/policy.onnx",
                        "checkpoints/any/policy.json"):
        assert any(n.startswith(f"zilch_rl-{v}/{want}") for n in snames), f"the sdist lacks {want}"
    assert not any(n.endswith("model.zip") for n in names + snames), "a training checkpoint was packaged"

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    site = Path(run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).strip())
    (site / "project-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "--no-index", "-q", str(wheel)])

    help_text = run([str(env_dir / "bin" / "zilch"), "--help"], cwd=tmp_path)
    assert "usage: zilch" in help_text
    check = f"""
import importlib.metadata, pathlib, gymnasium as gym, numpy as np, zilch_env, agents, zilch_web
here = pathlib.Path({str(env_dir)!r}).resolve()
for m in (zilch_env, agents, zilch_web):
    assert pathlib.Path(m.__file__).resolve().is_relative_to(here), m.__file__
assert importlib.metadata.version("zilch-rl") == zilch_env.__version__ == {v!r}
assert (pathlib.Path(agents.__file__).parent / "solver" / "game_tables").glob("game-zonk-*.npz")
assert zilch_env.load_ruleset("farkle").target == 10000
env = gym.make("Zilch-v1", ruleset="zonk")
obs, info = env.reset(seed=0)
rng = np.random.default_rng(0)
while True:
    obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
    if term or trunc:
        break
print("episode", r, info["game_turns"])
"""
    out = run([str(py), "-c", check], cwd=tmp_path)
    assert out.startswith("episode ")

    # the shipped agent, by its name and as the bare cpu's default (ppo:checkpoints/zonk), from the wheel
    shipped = f"""
import pathlib
from agents import make_agent
from agents.learned import shipped_policies
here = pathlib.Path({str(env_dir)!r}).resolve()
assert sorted(shipped_policies()) == {POLICIES!r}
for spec in ("ppo:zonk", "ppo:checkpoints/zonk", "ppo:any"):
    path = make_agent(spec, "zonk").policy.path.resolve()
    assert path.is_relative_to(here / "lib") and path.parent.parent.name == "policies", (spec, path)
from zilch_env import load_ruleset
from zilch_web.levels import default_cpu
assert default_cpu(load_ruleset("zonk")) == "ppo:checkpoints/zonk"  # a bare cpu: the shipped agent
print("shipped ok")
"""
    assert run([str(py), "-c", shipped], cwd=tmp_path).strip() == "shipped ok"
    game = run([str(env_dir / "bin" / "zilch"), "play", "--ruleset", "zonk", "--players", "cpu:ppo:zonk,cpu",
                "--seed", "1", "--delay", "0"], cwd=tmp_path)
    assert "Final standings" in game, game[-2000:]
