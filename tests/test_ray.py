"""``--ray`` evaluations (agents.ray_eval): the same report, number for number, as local workers for
the same seed, on a local Ray with 2 CPUs; and Ray stays out of every path that does not ask for it.
About 15 s together (the local Ray's start-up is most of it)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_py(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})


def test_ray_is_not_imported_without_ray():
    """``import agents.evaluate``, ``zilch --help``, ``train/ppo.py``'s and ``train/sweep.py``'s parsers
    and a local evaluation import no Ray."""
    code = """
import sys, contextlib, io
import agents.evaluate, zilch_cli
from train import ppo, sweep
with contextlib.redirect_stdout(io.StringIO()):
    try:
        zilch_cli.main(["--help"])
    except SystemExit:
        pass
    try:
        zilch_cli.main(["eval", "--help"])
    except SystemExit:
        pass
sweep.build_parser().format_help(); ppo.build_parser().format_help()
sweep.make_trials(["zonk"], [1, 2], 100, sweep.parse_grid(["learning_rate=1e-3,3e-4"]), __import__("pathlib").Path("/tmp/x"))
agents.evaluate.evaluate(agents=["greedy", "random"], games=20, seed=1, workers=1, solo_turns=50)
print(sorted(m for m in sys.modules if m == "ray" or m.startswith("ray.")))
"""
    r = run_py(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "[]"


def test_eval_help_offers_ray():
    from zilch_cli import build_parser

    sub = build_parser()._subparsers._group_actions[0].choices["eval"]
    text = sub.format_help()
    assert "--ray" in text and "--address" in text


def test_address_without_ray_is_an_error():
    from agents.evaluate import evaluate

    with pytest.raises(ValueError, match="needs ray"):
        evaluate(agents=["greedy", "random"], games=2, workers=1, solo_turns=0, address="auto")


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray")
    from agents.ray_eval import local_runtime_env

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env=local_runtime_env())
    yield ray
    ray.shutdown()


def test_ray_results_equal_local_workers(local_ray):
    """Tables on both engines (a batched greedy/random table, single-engine heuristic tables with the
    luck adjustment where the table is stored) and the solo measure in waves: the same numbers as one
    process and as a pool of 2, for the same seed."""
    from agents.evaluate import evaluate

    kw = dict(agents=["heuristic", "greedy", "random"], ruleset="zilch5k", games=120, seed=7, solo_turns=300)
    one = evaluate(workers=1, **kw)
    pool = evaluate(workers=2, **kw)
    on_ray = evaluate(workers=2, ray=True, **kw)
    text = lambda rep: json.dumps(rep.results(), sort_keys=True, default=str)  # noqa: E731
    assert text(on_ray) == text(one) == text(pool)
    assert on_ray.data["timing"]["ray"] and on_ray.data["timing"]["workers"] == 2
    assert {t["engine"] for t in on_ray.data["tables"]} >= {"batched", "single"}


def test_ray_evaluation_of_agent_objects_and_errors(local_ray):
    """Agent objects travel to the Ray workers (pickled); an agent that fails there names itself."""
    from agents.evaluate import evaluate
    from zilch_env import GreedyMover

    kw = dict(agents=[GreedyMover(400), "random"], ruleset="zonk", games=30, seed=2, solo_turns=0, engine="single")
    assert (json.dumps(evaluate(workers=1, **kw).results(), default=str)
            == json.dumps(evaluate(ray=True, **kw).results(), default=str))
    with pytest.raises(RuntimeError, match="Ray task"):
        evaluate(agents=[Broken(), "random"], ruleset="zonk", games=4, seed=0, solo_turns=0, ray=True)


class Broken(__import__("zilch_env").RandomMover):
    """Plays an illegal action in every game (its act is its own, so the single-game engine plays it)."""

    name = "broken"

    def act(self, game, legal, rng):
        return -1


def test_cli_eval_ray_matches_local(tmp_path):
    """``python -m agents.evaluate --ray`` (its own local Ray) writes the same report as --workers 1."""
    args = [sys.executable, "-m", "agents.evaluate", "--ruleset", "zonk", "--agents", "greedy", "random",
            "--games", "40", "--seed", "5", "--solo-turns", "100", "--no-plots", "--quiet"]
    env = {**__import__("os").environ, "PYTHONPATH": str(ROOT)}
    a = subprocess.run(args + ["--workers", "1", "--out", str(tmp_path / "a")], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=120)
    b = subprocess.run(args + ["--ray", "--workers", "2", "--out", str(tmp_path / "b")], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=120)
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    ra, rb = (json.loads((tmp_path / d / "report.json").read_text()) for d in "ab")
    ra.pop("timing"), rb.pop("timing")
    assert ra == rb
