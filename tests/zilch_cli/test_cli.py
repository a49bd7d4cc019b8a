"""The ``zilch`` command line: rules, score, simulate, their --help and their errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from zilch_cli import main
from zilch_env import loads_ruleset, load_ruleset, replay


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_rules_prints_a_loadable_ruleset(capsys):
    code, out, _ = run(capsys, "rules", "zonk", "--set", "target=20000")
    assert code == 0 and loads_ruleset(out) == load_ruleset("zonk", {"target": 20000})
    code, out, _ = run(capsys, "rules", "farkle", "--summary")
    assert code == 0 and "3 zilches in a row" in out and "1000" in out


def test_score_lists_every_keep_and_the_best(capsys):
    code, out, _ = run(capsys, "score", "--ruleset", "zonk", "2", "2", "2", "2", "1", "1")
    assert code == 0
    assert "keep 1 1 2 2 2 2    1500" in out and "keep 2 2 2 2         400" in out
    assert out.strip().endswith("Best: keep 1 1 2 2 2 2 for 1500")
    code, out, _ = run(capsys, "score", "--ruleset", "zilch", "2", "3", "4", "4", "5", "2")
    assert code == 0 and "zilch" in out


def test_simulate_is_seeded_and_writes_a_record(capsys, tmp_path):
    rec = tmp_path / "game.json"
    code, out1, _ = run(capsys, "simulate", "--ruleset", "zonk", "--players", "3", "--seed", "1", "--record", str(rec))
    assert code == 0 and "Winner" in out1 or "Draw" in out1
    code, out2, _ = run(capsys, "simulate", "--ruleset", "zonk", "--players", "3", "--seed", "1")
    assert out1.split("record written")[0] == out2
    g = replay(json.loads(rec.read_text()))
    assert g.done and g.num_players == 3


@pytest.mark.parametrize(
    "argv, words",
    [
        (["rules", "zonkers"], "unknown ruleset 'zonkers'"),
        (["score", "--ruleset", "zonk", "--set", "dice=9", "1"], "dice = 9"),
        (["score", "--ruleset", "zonk", "7", "1"], "faces 1 to 6"),
        (["simulate", "--players", "9"], "--players 9"),
        (["rules", "zonk", "--set", "target"], "KEY=VALUE"),
    ],
)
def test_errors_are_clear(capsys, argv, words):
    code, _, err = run(capsys, *argv)
    assert code == 2 and words in err


def test_help_for_every_command():
    for cmd in ([], ["rules"], ["score"], ["simulate"]):
        out = subprocess.run([sys.executable, "-m", "zilch_cli", *cmd, "--help"], capture_output=True, text=True)
        assert out.returncode == 0 and "usage: zilch" in out.stdout


def test_serve_without_the_web_extra_says_which_to_install(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if the web extra were not installed
    code, _, err = run(capsys, "serve", "--port", "8765")
    assert code == 2
    assert err.strip() == "zilch serve: error: zilch serve needs the web extra: pip install 'zilch-rl[web]'"
