"""Progress of long work, for people and for logs: the one helper every progress display goes through.

    from agents.progress import Progress, track

    with Progress() as bar:                      # on standard error
        task = bar.add("solve zonk", total=722)
        for level in range(722):
            ...
            bar.update(task, advance=1, info=f"change {change:.1e}")

    for draw in track(draws, "compiling the rules"):
        ...

On a terminal it is a rich progress bar (description, bar, done/total, the task's ``info`` text, time
elapsed and left). Written anywhere else (a file, a pipe, a job's log) there are no bars and no
carriage returns: a plain line per task every ``interval`` seconds (default 5,
``$ZILCH_PROGRESS_SECONDS``), and one when a task finishes::

    solve zonk (sweep 2): 361/722 (50%) 12 s, ~12 s left, change 1.2e-03

``enabled=False`` shows nothing; ``delay`` seconds hold the bars back (work that is usually quick shows
none), ``transient`` clears them at the end. Lines printed through :meth:`Progress.print` appear above
the bars on a terminal and in order in a log.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, TextIO, TypeVar

__all__ = ["Progress", "track", "DEFAULT_INTERVAL"]

T = TypeVar("T")

#: Seconds between two lines of a task's progress when the stream is not a terminal.
DEFAULT_INTERVAL = 5.0


def _interval() -> float:
    text = os.environ.get("ZILCH_PROGRESS_SECONDS", "")
    try:
        value = float(text) if text else DEFAULT_INTERVAL
    except ValueError:
        value = DEFAULT_INTERVAL
    return value if value > 0 else DEFAULT_INTERVAL


def _duration(seconds: float) -> str:
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


@dataclass
class _Task:
    description: str
    total: float | None
    completed: float
    info: str
    started: float = field(default_factory=time.perf_counter)
    last_line: float = field(default_factory=time.perf_counter)
    finished: bool = False

    def line(self, now: float) -> str:
        elapsed = now - self.started
        done = f"{self.completed:,.0f}"
        parts = [f"{self.description}: {done}"]
        if self.total:
            parts[0] += f"/{self.total:,.0f} ({100 * self.completed / self.total:.0f}%)"
        timing = _duration(elapsed)
        if self.total and 0 < self.completed < self.total and elapsed > 0:
            timing += f", ~{_duration(elapsed * (self.total - self.completed) / self.completed)} left"
        parts.append(timing)
        if self.info:
            parts.append(self.info)
        return " ".join(parts[:1]) + " " + ", ".join(parts[1:])


class Progress:
    """Tasks with a count of work done, shown as bars on a terminal and as lines in a log (see the
    module docstring). ``stream`` defaults to standard error."""

    def __init__(self, enabled: bool = True, stream: TextIO | None = None, interval: float | None = None,
                 delay: float = 0.0, transient: bool = False):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.interval = _interval() if interval is None else float(interval)
        self._tasks: dict[int, _Task] = {}
        self._next = 0
        self._rich = None
        self._rich_ids: dict[int, Any] = {}
        self._created = time.perf_counter()
        self._delay = float(delay)
        self._live = False
        if enabled and _is_terminal(self.stream):
            from rich.console import Console
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress as RichProgress, TextColumn,
                                       TimeElapsedColumn, TimeRemainingColumn)

            self._rich = RichProgress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                                      TextColumn("{task.fields[info]}"), TimeElapsedColumn(), TimeRemainingColumn(),
                                      console=Console(file=self.stream), transient=transient)
            self._go_live(self._created)

    # ------------------------------------------------------------------ tasks

    def add(self, description: str, total: float | None = None, completed: float = 0, info: str = "") -> int:
        """A new task of ``total`` units (None: unknown); returns its id."""
        key = self._next
        self._next += 1
        self._tasks[key] = _Task(description, total, completed, info)
        if self._rich is not None:
            self._rich_ids[key] = self._rich.add_task(description, total=total, completed=completed, info=info)
        return key

    def update(self, task: int, *, advance: float | None = None, completed: float | None = None,
               total: float | None = None, description: str | None = None, info: str | None = None) -> None:
        """Move a task on (``advance`` units, or to ``completed``), or change its total, description or
        info text. Setting ``completed`` below the count restarts the task's clock (a new sweep)."""
        t = self._tasks.get(task)
        if t is None:
            return
        now = time.perf_counter()
        if total is not None:
            t.total = total
        if completed is not None:
            if completed < t.completed:
                t.started = t.last_line = now
                t.finished = False
            t.completed = completed
        if advance:
            t.completed += advance
        if description is not None:
            t.description = description
        if info is not None:
            t.info = info
        if self._rich is not None:
            fields: dict[str, Any] = {}
            if info is not None:
                fields["info"] = info
            self._rich.update(self._rich_ids[task], advance=advance, completed=completed, total=total,
                              description=description, **fields)
            self._go_live(now)
            return
        if not self.enabled:
            return
        if t.total and t.completed >= t.total and not t.finished:
            t.finished = True
            self._line(t, now)
        elif now - t.last_line >= self.interval:
            self._line(t, now)

    def advance(self, task: int, n: float = 1) -> None:
        self.update(task, advance=n)

    def remove(self, task: int) -> None:
        """Drop a task (a finished one keeps its last line in a log)."""
        t = self._tasks.pop(task, None)
        if t is None:
            return
        if self._rich is not None:
            self._rich.remove_task(self._rich_ids.pop(task))

    def print(self, text: str) -> None:
        """A line of text (shown whether or not progress is): above the bars on a terminal, in order in a
        log."""
        if self._live:
            self._rich.console.print(text, markup=False, highlight=False)
        else:
            print(text, file=self.stream, flush=True)

    def close(self) -> None:
        if self._live:
            self._rich.stop()
        self._rich, self._live = None, False

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------ lines

    def _go_live(self, now: float) -> None:
        """Show the bars once ``delay`` seconds have passed since the display was made."""
        if not self._live and now - self._created >= self._delay:
            self._rich.start()
            self._live = True

    def _line(self, t: _Task, now: float) -> None:
        t.last_line = now
        print(t.line(now), file=self.stream, flush=True)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty()) and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):
        return False


def track(items: Iterable[T], description: str, total: int | None = None, enabled: bool = True,
          stream: TextIO | None = None) -> Iterator[T]:
    """Iterate ``items`` with a progress task of ``total`` (default ``len(items)`` when it has one)."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    with Progress(enabled, stream) as bar:
        task = bar.add(description, total=total)
        for item in items:
            yield item
            bar.advance(task)
