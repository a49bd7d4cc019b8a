"""agents.progress: bars on a terminal, a plain line every few seconds elsewhere (never carriage
returns), nothing when disabled; and every progress display of the project goes through it."""

from __future__ import annotations

import io
import re
from pathlib import Path

from agents.progress import Progress, track

ROOT = Path(__file__).resolve().parents[2]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_gets_a_line_when_a_task_finishes_and_no_carriage_returns():
    log = io.StringIO()
    with Progress(stream=log, interval=3600) as bar:
        task = bar.add("solve zonk", total=1000, info="levels")
        for _ in range(1000):
            bar.advance(task)
    text = log.getvalue()
    assert "\r" not in text and "\x1b" not in text
    assert text.count("\n") == 1
    assert re.fullmatch(r"solve zonk: 1,000/1,000 \(100%\) \d+ s, levels\n", text), text


def test_a_log_gets_a_line_every_interval():
    log = io.StringIO()
    bar = Progress(stream=log, interval=0.0)  # every update is due
    task = bar.add("games", total=10)
    for k in range(1, 5):
        bar.update(task, completed=k, info=f"{k} games/s")
    bar.update(task, description="games (sweep 2)", completed=0)  # a new sweep restarts the clock
    bar.close()
    lines = log.getvalue().splitlines()
    assert lines[:4] == [f"games: {k}/10 ({10 * k}%) {lines[k - 1].split(') ')[1]}" for k in range(1, 5)]
    assert all("left" in line and f"{k} games/s" in line for k, line in enumerate(lines[:4], 1))
    assert lines[4].startswith("games (sweep 2): 0/10 (0%)")


def test_a_terminal_gets_rich_bars_and_disabled_progress_shows_nothing_but_printed_lines():
    term = Terminal()
    with Progress(stream=term) as bar:
        assert bar._live
        bar.advance(bar.add("fit", total=3), 3)
    assert "fit" in term.getvalue()

    quiet = io.StringIO()
    with Progress(enabled=False, stream=quiet) as bar:
        task = bar.add("fit", total=3)
        bar.advance(task, 3)
        bar.print("finished trial_1")
    assert quiet.getvalue() == "finished trial_1\n"

    later = Terminal()
    bar = Progress(stream=later, delay=3600)  # quick work shows no bar
    bar.advance(bar.add("review", total=2), 2)
    bar.close()
    assert not bar._live and later.getvalue() == ""


def test_track_yields_every_item():
    log = io.StringIO()
    assert list(track(range(5), "items", stream=log)) == list(range(5))
    assert log.getvalue().startswith("items: 5/5 (100%)")


def test_every_progress_display_goes_through_the_helper():
    offenders = []
    for folder in ("zilch_env", "agents", "train", "zilch_cli", "zilch_web", "bench", "examples"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.name == "progress.py" and path.parent.name == "agents":
                continue
            text = path.read_text()
            if re.search(r"^\s*(from tqdm|import tqdm|from rich\.progress)", text, re.M):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []
