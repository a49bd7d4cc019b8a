"""Issue 41: files on the command line and work without bounds. ``--record`` into a missing folder or
onto a folder, ``--out`` naming an existing file or a path no folder can be made at, ruleset files the
loader will not read: each an error naming the path and the problem (exit 2), checked before the work.
``solve``/``advise --objective win`` with a target of 1,000,000,000 and ``eval --games 10**12`` are
refused with the figure instead of running on."""

from __future__ import annotations

import json
import os

import pytest

from zilch_cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, out.out, out.err


def test_simulate_record_into_a_missing_folder_or_onto_a_folder(capsys, tmp_path):
    code, _, err = run(capsys, "simulate", "-q", "--record", str(tmp_path / "no" / "game.json"))
    assert code == 2 and f"the folder {tmp_path / 'no'} does not exist" in err
    code, _, err = run(capsys, "simulate", "-q", "--record", str(tmp_path))
    assert code == 2 and "a folder, not a file" in err
    code, _, err = run(capsys, "simulate", "-q", "--record", "/dev/null/game.json")
    assert code == 2 and "/dev/null is not a folder" in err


def test_simulate_record_is_written_whole(capsys, tmp_path):
    path = tmp_path / "game.json"
    path.write_text("old")
    code, out, _ = run(capsys, "simulate", "-q", "--seed", "2", "--record", str(path))
    assert code == 0 and f"record written to {path}" in out
    assert json.loads(path.read_text())["format"] == "zilch-rl/game-record/1"
    assert sorted(os.listdir(tmp_path)) == ["game.json"]  # no temporary file left


def test_play_record_checked_before_the_game(capsys, tmp_path):
    code, _, err = run(capsys, "play", "--players", "cpu:greedy,cpu:random", "--record",
                       str(tmp_path / "missing" / "g.json"))
    assert code == 2 and "does not exist" in err


def test_eval_out_an_existing_file_or_impossible_path(capsys, tmp_path):
    f = tmp_path / "report"
    f.write_text("x")
    code, _, err = run(capsys, "eval", "--agents", "greedy", "random", "--games", "2", "--out", str(f))
    assert code == 2 and "an existing file, not a folder" in err
    code, _, err = run(capsys, "eval", "--agents", "greedy", "random", "--games", "2",
                       "--out", str(f / "sub" / "dir"))
    assert code == 2 and f"{f} is a file, so no folder can be made under it" in err


def test_eval_games_beyond_the_bound(capsys):
    code, _, err = run(capsys, "eval", "--agents", "greedy", "random", "--games", str(10**12))
    assert code == 2 and "games = 1,000,000,000,000: at most 100,000,000 games per table" in err


def test_win_objective_with_a_huge_target_is_refused_with_the_figure(capsys):
    code, _, err = run(capsys, "solve", "--objective", "win", "--set", "target=1000000000")
    assert code == 2 and "turn-DP rows" in err and "GB of memory" in err
    code, _, err = run(capsys, "advise", "--objective", "win", "--set", "target=1000000000",
                       "--score", "0", "--opponent", "0", "--dice", "1", "5", "3", "3", "4", "2")
    assert code == 2 and "turn-DP rows" in err


def test_ruleset_files_the_loader_refuses_are_errors_naming_the_path(capsys, tmp_path):
    latin = tmp_path / "latin.toml"
    latin.write_bytes('extends = "zonk"\nname = "Zönk"\n'.encode("latin-1"))
    code, _, err = run(capsys, "simulate", "-q", "--ruleset", str(latin))
    assert code == 2 and f"{latin}: not UTF-8 text" in err
    top = tmp_path / "zero.toml"
    top.write_text('extends = "/dev/zero"\n')
    code, _, err = run(capsys, "simulate", "-q", "--ruleset", str(top))
    assert code == 2 and "/dev/zero: a device, not a ruleset file" in err
