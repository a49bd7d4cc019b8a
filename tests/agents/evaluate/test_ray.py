"""Ray, on one local Ray with 2 CPUs started for this module: ``--ray`` evaluations
(agents.evaluate.ray_eval) give the same report, number for number, as local workers for the same seed; a
tiny ``train/sweep.py`` sweep interrupted after its first trial and restarted does not rerun the
finished trial, a failed trial is reported; and Ray stays out of every path that does not ask for it.
About 40 s together (35-45 s at a load average of 8-10)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


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
    from agents.evaluate.ray_eval import local_runtime_env

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env=local_runtime_env())
    yield ray
    ray.shutdown()


def test_ray_results_equal_local_workers(local_ray):
    """Tables on both engines (a batched greedy/random table, single-engine heuristic tables with the
    luck adjustment where the table is stored, each in two chunks of deals: more tasks than Ray keeps in
    flight) and the solo measure in waves: the same numbers as one process and as a pool of 2, for the
    same seed."""
    from agents.evaluate import evaluate
    from agents.evaluate.config import CHUNK_DEALS

    # CHUNK_DEALS + 1 deals: two chunks of each single-engine table (a whole one and a last deal alone)
    kw = dict(agents=["heuristic", "greedy", "random"], ruleset="zilch5k", games=2 * (CHUNK_DEALS + 1), seed=7,
              solo_turns=300)
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


def test_cli_eval_ray_matches_local(tmp_path, local_ray, capsys):
    """``python -m agents.evaluate --ray`` and ``zilch eval --ray`` write the same report as --workers 1
    (on the module's Ray: a command given no --address uses the Ray already started in its process)."""
    from agents.evaluate import main
    from zilch_cli import main as zilch

    args = ["--ruleset", "zonk", "--agents", "greedy", "random", "--games", "40", "--seed", "5",
            "--solo-turns", "100", "--no-plots", "--quiet"]
    assert main(args + ["--workers", "1", "--out", str(tmp_path / "a")]) == 0
    assert main(args + ["--ray", "--out", str(tmp_path / "b")]) == 0
    assert zilch(["eval", *args, "--ray", "--out", str(tmp_path / "c")]) == 0
    assert "Ray, 2 CPUs" in capsys.readouterr().out
    ra, rb, rc = (json.loads((tmp_path / d / "report.json").read_text()) for d in "abc")
    for r in (ra, rb, rc):
        r.pop("timing")
    assert ra == rb == rc


def test_cli_eval_address_needs_ray(capsys):
    from agents.evaluate import main

    assert main(["--agents", "greedy", "random", "--games", "2", "--address", "auto"]) == 2
    assert "needs ray = True (--ray)" in capsys.readouterr().err


TINY = ["--rulesets", "zonk", "--seeds", "1", "2", "--timesteps", "256", "--cpus", "2", "--max-concurrent", "1",
        "--grid", "n_envs=2", "--grid", "n_steps=64", "--grid", "batch_size=64", "--grid", "n_epochs=2",
        "--grid", "net_arch=16,16", "--grid", "eval_every=128", "--grid", "eval_games=4",
        "--grid", "final_games=4", "--grid", "final_solo_turns=50", "--grid", "final_opponents=random",
        "--grid", "export=false", "--grid", "opponents=greedy", "--quiet"]


def test_sweep_interrupted_and_restarted_does_not_rerun_finished_trials(tmp_path, local_ray, capsys):
    """Ctrl-C (SIGINT, which Tune's handler turns into a stop) once the first of two trials has
    finished, one trial at a time; then the same command again: the finished trial is not run again,
    the other one is, and the summary has both."""
    from train import sweep

    out = tmp_path / "sw"
    first = out / "zonk-s1" / "trial.json"

    def interrupt() -> None:
        t0 = time.time()
        while not first.exists() and time.time() - t0 < 120:
            time.sleep(0.05)
        # The second trial is under way. Only to Tune's handler: a SIGINT to Python's own would stop
        # the whole test run (the test then fails on the exit status instead).
        if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
            os.kill(os.getpid(), signal.SIGINT)

    watcher = threading.Thread(target=interrupt, daemon=True)
    watcher.start()
    assert sweep.main([*TINY, "--out", str(out)]) == 130
    watcher.join()
    second = out / "zonk-s2" / "trial.json"
    # On a loaded machine the second trial (256 steps) can finish before Tune acts on the stop;
    # then both are finished, and the restart must run neither.
    done = 1 + second.exists()
    assert first.exists()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["finished"] == done and summary["unfinished"] == ([] if done == 2 else ["zonk-s2"])
    record, mtime = first.read_text(), first.stat().st_mtime_ns
    capsys.readouterr()

    assert sweep.main([*TINY, "--out", str(out)]) == 0
    stdout = capsys.readouterr().out
    assert "2 trials in" in stdout and f"{done} already done" in stdout
    assert first.read_text() == record and first.stat().st_mtime_ns == mtime  # not run again
    assert (out / "zonk-s1" / "train.log").read_text().count("$ python train/ppo.py") == 1
    summary = json.loads((out / "summary.json").read_text())
    assert summary["finished"] == 2 and not summary["unfinished"] and not summary["errors"]
    rows = {row["trial"]: row for row in summary["rows"]}
    for name in ("zonk-s1", "zonk-s2"):
        d = out / name
        assert rows[name]["timesteps"] >= 256 and rows[name]["final"]["vs"]["random"]["games"] == 4
        assert (d / "best" / "model.zip").exists() and (d / "eval.md").exists()
        assert list((d / "tensorboard" / "zonk" / name).glob("events.out.tfevents.*"))
        assert json.loads((d / "latest" / "train.json").read_text())["evaluations"]
    assert summary["best"]["zonk"]["trial"] in rows
    # Tune got the periodic evaluations and the final report: zonk-s1's in the first sweep (128 and 256
    # timesteps), and zonk-s2's from where the restart took it up (afresh: 128 and 256; resumed from
    # its evaluation at 128, made just before the stop: 256). A trial's reports in a sweep's records:
    sweeps = sorted((out / "_tune").glob("sweep-*"))  # by the time each started
    assert len(sweeps) == 1 + (done == 1)

    def reported(sweep: Path, name: str) -> list[dict]:
        f = sweep / name / "result.json"
        return [json.loads(line) for line in f.read_text().splitlines()] if f.exists() else []

    evaluations = lambda xs: [x["timesteps"] for x in xs if "eval_metric" in x]  # noqa: E731
    assert evaluations(reported(sweeps[0], "zonk-s1")) == [128, 256]
    if done == 1:
        log = (out / "zonk-s2" / "train.log").read_text()
        start = int(re.findall(r"\(([\d,]+) done\)", log)[-1].replace(",", ""))  # the restart's first line
        again = reported(sweeps[1], "zonk-s2")
        assert evaluations(again) == [t for t in (128, 256) if t > start] and again[-1].get("done") is True
    else:
        assert evaluations(reported(sweeps[0], "zonk-s2")) == [128, 256]
    md = (out / "summary.md").read_text()
    assert "| zonk-s1 | zonk | 1 |" in md and "## Best trial per ruleset" in md


def test_sweep_failed_trial_is_reported(tmp_path, local_ray, capsys):
    """A trial that fails (an --init checkpoint that does not exist) is in the summary with its
    message, its traceback in its train.log; the sweep exits 1 and writes no trial.json."""
    from train import sweep

    out = tmp_path / "bad"
    i = TINY.index("--seeds")
    argv = TINY[:i + 2] + TINY[i + 3:] + ["--grid", "init=/nonexistent/x.zip"]  # seed 1 only
    assert sweep.main([*argv, "--out", str(out)]) == 1
    summary = json.loads((out / "summary.json").read_text())
    assert summary["finished"] == 0 and not summary["unfinished"]
    assert "FileNotFoundError: /nonexistent/x.zip" in summary["errors"]["zonk-s1"]
    assert "Traceback" in (out / "zonk-s1" / "train.log").read_text()
    assert not (out / "zonk-s1" / "trial.json").exists()
    assert "## Failed trials" in (out / "summary.md").read_text()
