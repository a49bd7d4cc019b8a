"""The evaluation's report for people and logs: piped, it is plain text of at most 80 columns with
nothing cut ("…"); on a narrow terminal rich wraps the cells instead of cutting them."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from rich.console import Console

from agents.evaluate import evaluate


@pytest.fixture(scope="module")
def report():
    # the luck columns too (luck="on": the single-game engine, zonk's shipped game table)
    return evaluate(agents=["ppo:checkpoints/zonk", "greedy", "random"], ruleset="zonk", games=12, seed=1,
                    solo_turns=40, workers=1, luck="on")


def test_text_fits_80_columns_and_keeps_every_value(report):
    text = report.text()
    assert "…" not in text and "\r" not in text
    assert max(len(line) for line in text.splitlines()) <= 80
    assert text.count(" vs ") == 6  # every result row, named by its agent and opponents
    for r in report.data["tables"][0]["results"]:
        assert f"{100 * r['win']['rate']:.1f} [" in text
    assert "luck-adj. share" in text and "Elo ratings" in text and "of optimum" in text


def test_packing_keeps_every_measure_whole():
    from agents.evaluate.report import _pack

    items = ["agent:", "win % [95% CI] 74.0 [67.5, 79.6]", "draw % 0.5", "a measure longer than the line is"]
    assert _pack(items, 24, "  ") == ["  agent:", "  win % [95% CI] 74.0 [67.5, 79.6];", "  draw % 0.5;",
                                      "  a measure longer than the line is"]
    assert _pack(items[:1] + items[2:3], 80, "") == ["agent: draw % 0.5"]


def test_print_writes_the_text_when_stdout_is_not_a_terminal(report, capsys):
    report.print()
    assert capsys.readouterr().out == report.text()


def test_a_narrow_terminal_wraps_the_rich_tables_without_cutting(report):
    out = io.StringIO()
    report.print(Console(file=out, width=60, force_terminal=True, color_system=None))
    assert "…" not in out.getvalue()
    assert max(len(line) for line in out.getvalue().splitlines()) <= 60


def test_zilch_eval_piped_fits_80_columns():
    out = subprocess.run([sys.executable, "-m", "zilch_cli", "eval", "--ruleset", "zonk", "--agents", "greedy",
                          "random", "--games", "20", "--seed", "1", "--solo-turns", "0", "--workers", "1"],
                         capture_output=True, text=True, check=True)
    assert "…" not in out.stdout and max(len(line) for line in out.stdout.splitlines()) <= 80
    assert "greedy vs random" in out.stdout
    assert "\r" not in out.stderr  # the progress, written to a pipe, is plain lines


def test_the_list_of_agents_piped_fits_80_columns():
    out = subprocess.run([sys.executable, "-m", "zilch_cli", "eval", "--list-agents"], capture_output=True, text=True,
                         check=True).stdout
    assert max(len(line) for line in out.splitlines()) <= 80 and "…" not in out
    assert out.startswith("greedy ") and "\nrandom " in out and "ppo:FILE.zip" in out.replace("\n", " ")
