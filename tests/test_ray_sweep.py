"""train/sweep.py: the grid's checks (no Ray), and a tiny sweep on a local Ray with 2 CPUs that is
interrupted after its first trial and restarted: the finished trial is not run again, the other one
is, and the summary ranks both. About 30 s (two local Ray start-ups and two tiny trainings)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from train import sweep

ROOT = Path(__file__).resolve().parents[1]


def test_grid_values_take_the_arguments_types():
    g = sweep.parse_grid(["learning-rate=3e-4,1e-3", "n_steps=64,1e2", "anneal_lr=true,no",
                          "net_arch=64,64;128,128", "opponents=optimal-turn,self", "set=target=5000,target=6000"])
    assert g == {"learning_rate": [3e-4, 1e-3], "n_steps": [64, 100], "anneal_lr": [True, False],
                 "net_arch": ["64,64", "128,128"], "opponents": ["optimal-turn,self"],
                 "set": ["target=5000", "target=6000"]}


@pytest.mark.parametrize("item, message", [
    ("learnin_rate=1e-3", "not an argument of train/ppo.py (did you mean learning_rate"),
    ("seed=1,2", "use --seeds"),
    ("timesteps=10", "use --timesteps"),
    ("n_steps=64,abc", "--grid n_steps=abc: n_steps takes a whole number"),
    ("n_steps=1.5", "takes a whole number"),
    ("learning_rate=fast", "learning_rate takes a number"),
    ("anneal_lr=maybe", "a switch: true or false"),
    ("objective=points", "objective is one of win, score"),
    ("learning_rate", "write KEY=V1,V2"),
    ("ent_coef=0,,0.01", "an empty value"),
    ("ent_coef=0,0", "repeated"),
])
def test_bad_grids_are_named(item, message):
    with pytest.raises(sweep.SweepError, match=None) as e:
        sweep.parse_grid([item])
    assert message in str(e.value)


def test_trials_are_the_product_and_checked_by_ppos_parser(tmp_path):
    grid = sweep.parse_grid(["learning_rate=3e-4,1e-3", "final_games=100"])
    trials = sweep.make_trials(["zonk", "zilch5k"], [1, 2], 5000, grid, tmp_path)
    assert [t.name for t in trials][:2] == ["zonk-s1-learning_rate=0.0003", "zonk-s1-learning_rate=0.001"]
    assert len(trials) == 8 and len({t.out for t in trials}) == 8
    t = trials[0]
    assert t.command().startswith("python train/ppo.py --ruleset zonk --seed 1 --timesteps 5000 --out ")
    assert "--final-games 100" in t.command() and "--no-progress" in t.command()
    assert t.out == (tmp_path / t.name).resolve()
    with pytest.raises(sweep.SweepError, match="--n-steps 0: must be at least 1"):
        sweep.make_trials(["zonk"], [1], 100, sweep.parse_grid(["n_steps=0"]), tmp_path)
    with pytest.raises(sweep.SweepError, match="named twice"):
        sweep.make_trials(["zonk"], [1, 1], 100, {}, tmp_path)
    with pytest.raises(sweep.SweepError, match="--rulesets nosuch"):
        sweep.check_rulesets(["nosuch"])


def test_a_finished_trial_of_other_arguments_is_not_overwritten(tmp_path):
    t, = sweep.make_trials(["zonk"], [1], 100, {}, tmp_path)
    t.out.mkdir()
    (t.out / "trial.json").write_text(json.dumps({"status": "done", "argv": t.argv[:-1], "row": {}}))
    with pytest.raises(sweep.SweepError, match="holds a finished trial of other arguments"):
        sweep.trial_state(t)
    (t.out / "trial.json").write_text(json.dumps({"status": "done", "argv": t.argv, "row": {}}))
    assert sweep.trial_state(t) == "done"


def test_command_line_errors_exit_2():
    r = subprocess.run([sys.executable, "train/sweep.py", "--grid", "lr=1e-3", "--list"], cwd=ROOT,
                       capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 2 and "--grid lr: not an argument of train/ppo.py" in r.stderr


TINY = ["--rulesets", "zonk", "--seeds", "1", "2", "--timesteps", "256", "--cpus", "2", "--max-concurrent", "1",
        "--grid", "n_envs=2", "--grid", "n_steps=64", "--grid", "batch_size=64", "--grid", "n_epochs=2",
        "--grid", "net_arch=16,16", "--grid", "eval_every=128", "--grid", "eval_games=4",
        "--grid", "final_games=4", "--grid", "final_solo_turns=50", "--grid", "final_opponents=random",
        "--grid", "export=false", "--grid", "opponents=greedy", "--quiet"]


def test_sweep_interrupted_and_restarted_does_not_rerun_finished_trials(tmp_path):
    pytest.importorskip("ray")
    out = tmp_path / "sw"
    cmd = [sys.executable, "train/sweep.py", *TINY, "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    first = out / "zonk-s1" / "trial.json"
    log = open(tmp_path / "first.log", "w")
    p = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    t0 = time.time()
    while not first.exists() and p.poll() is None and time.time() - t0 < 120:
        time.sleep(0.1)
    assert first.exists(), (tmp_path / "first.log").read_text()
    p.send_signal(signal.SIGINT)  # the second trial is under way (one trial at a time)
    assert p.wait(timeout=120) == 130, (tmp_path / "first.log").read_text()
    assert not (out / "zonk-s2" / "trial.json").exists()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["finished"] == 1 and summary["unfinished"] == ["zonk-s2"]
    record, mtime = first.read_text(), first.stat().st_mtime_ns

    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 trials in" in r.stdout and "1 already done" in r.stdout
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
    # Tune got the periodic evaluations (128 and 256 timesteps) and the final report of the trial
    reported = [json.loads(line) for f in (out / "_tune").glob("sweep-*/zonk-s2/result.json")
                for line in f.read_text().splitlines()]
    assert [x["timesteps"] for x in reported if "eval_metric" in x][-2:] == [128, 256]
    assert reported[-1].get("done") is True
    md = (out / "summary.md").read_text()
    assert "| zonk-s1 | zonk | 1 |" in md and "## Best trial per ruleset" in md
