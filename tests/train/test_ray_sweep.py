"""train/sweep.py without Ray: the grid's checks, the trials and their arguments, resuming's record.
(The sweep on a local Ray, interrupted and restarted, is in tests/agents/evaluate/test_ray.py, which starts one
local Ray for all the Ray tests.) Under a second together."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from train import sweep

ROOT = Path(__file__).resolve().parents[2]


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
