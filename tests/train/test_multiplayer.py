"""train/multiplayer.py on tiny budgets: it plays the shipped agents at 3 players against heuristic
copies, writes its table between its markers and its JSON, takes extra agents, and refuses bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from train import multiplayer

ROOT = Path(__file__).resolve().parents[2]


def test_tiny_run_writes_its_table_and_json(tmp_path, capsys):
    ck = tmp_path / "checkpoints"
    shutil.copytree(ROOT / "checkpoints" / "zonk", ck / "zonk", ignore=shutil.ignore_patterns("best"))
    readme = tmp_path / "README.md"
    readme.write_text(f"# Agents\n\nbefore\n\n{multiplayer.START}\nold table\n{multiplayer.END}\n\nafter\n")
    out = tmp_path / "m.json"
    rc = multiplayer.main(["--checkpoints", str(ck), "--presets", "zonk", "--players", "3", "--games", "30",
                           "--agent", "greedy", "--rulesets", "zonk", "--write", str(readme), "--json", str(out),
                           "--quiet"])
    assert rc == 0
    err = capsys.readouterr().err
    assert "skipped: score agent of zonk" in err  # no zonk-score copied: said, not fatal
    doc = json.loads(out.read_text())
    assert doc["format"] == multiplayer.FORMAT
    kinds = [(r["kind"], r["players"]) for r in doc["rows"]]
    assert kinds == [("win", 3), ("reference", 3), ("extra", 3)]
    for r in doc["rows"]:
        assert r["games_played"] == 30 and r["deals"] == 10 and r["games_counted"] == 60 and r["orders"] == 6
        assert r["fair_share"] == pytest.approx(1 / 3)
        s = r["share"]
        assert s["low"] <= s["rate"] <= s["high"]
        assert r["above_fair"] == (s["low"] > 1 / 3)
    text = readme.read_text()
    assert text.startswith("# Agents\n\nbefore\n\n") and text.endswith("\n\nafter\n")
    assert "old table" not in text
    assert "| `zonk` | `optimal-turn` (reference) | 3 |" in text
    assert f"`ppo:{ck.as_posix()}/zonk` (win agent)" in text and "| `zonk` | `greedy` | 3 |" in text
    assert "Student's t over the per-deal shares" in text and "minutes wall time" in text


@pytest.mark.parametrize("bad, said", [("7", "2 to 6"), ("1", "2 to 6"), ("three", "not a number")])
def test_bad_players_is_a_clear_error(bad, said, capsys):
    with pytest.raises(SystemExit) as e:
        multiplayer.main(["--players", "3", bad])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--players" in err and said in err


def test_nothing_to_evaluate_and_bad_agents_are_errors(tmp_path, capsys):
    with pytest.raises(SystemExit):
        multiplayer.main(["--checkpoints", str(tmp_path), "--presets", "zonk", "--no-reference"])
    assert "no agent to evaluate" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        multiplayer.main(["--checkpoints", str(tmp_path), "--agent", "nonsense-agent", "--rulesets", "zonk"])
    assert "nonsense-agent" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        multiplayer.main(["--rulesets", "zonk"])
    assert "give --agent" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        multiplayer.main(["--resume"])
    assert "give --json FILE" in capsys.readouterr().err


def test_an_agent_that_cannot_play_four_players_gets_an_error_row(tmp_path, capsys):
    out = tmp_path / "m.json"
    rc = multiplayer.main(["--checkpoints", str(tmp_path), "--presets", "zonk", "--no-reference", "--players", "4",
                           "--games", "24", "--agent", "optimal-win", "--json", str(out), "--quiet"])
    assert rc == 1
    row = json.loads(out.read_text())["rows"][0]
    assert "'optimal-win' cannot play 4-player games" in row["error"]
    assert "error: agent 'optimal-win'" in capsys.readouterr().out


def test_resume_keeps_the_rows_measured_the_same_way(tmp_path, capsys):
    """A second run with --resume plays only the new agent's rows; another --games plays everything."""
    out = tmp_path / "m.json"
    base = ["--checkpoints", str(tmp_path), "--presets", "zonk", "--players", "3", "--games", "15",
            "--json", str(out), "--quiet", "--resume"]
    assert multiplayer.main(base + ["--agent", "greedy"]) == 0
    first = json.loads(out.read_text())
    assert [r["agent"] for r in first["rows"]] == ["optimal-turn", "greedy"] and first["timing"]["kept_rows"] == 0
    assert multiplayer.main(base + ["--agent", "greedy", "--agent", "greedy:500"]) == 0
    second = json.loads(out.read_text())
    assert [r["agent"] for r in second["rows"]] == ["optimal-turn", "greedy", "greedy:500"]
    assert second["timing"]["kept_rows"] == 2
    assert second["rows"][:2] == first["rows"]  # kept as they were, not replayed
    assert "2 rows kept from an earlier run" in capsys.readouterr().out
    assert multiplayer.main(base[:-1] + ["--games", "18", "--resume", "--agent", "greedy"]) == 0
    assert json.loads(out.read_text())["timing"]["kept_rows"] == 0
    assert "playing every row" in capsys.readouterr().err


def test_fingerprint_is_the_policy_file():
    assert multiplayer.fingerprint("heuristic") is None
    import hashlib
    assert multiplayer.fingerprint("ppo:checkpoints/zonk") == hashlib.sha256(
        (ROOT / "checkpoints" / "zonk" / "policy.onnx").read_bytes()).hexdigest()
