"""What one client can make the web server do, bounded: new games per client, how long games are
kept, and hints (solving) off the request path with a time budget.

Every bound is a field of :class:`Limits`; ``zilch serve`` sets them from its options, and each
has an environment variable for servers started otherwise (``uvicorn`` on ``create_app``):

==========================  ============================  =========================================
option (``zilch serve``)    environment                   default
==========================  ============================  =========================================
``--max-new-games N/SEC``   ``ZILCH_WEB_MAX_NEW_GAMES``   ``20/60``: 20 new games a minute a client
``--keep-finished DAYS``    ``ZILCH_WEB_KEEP_FINISHED``   ``7``: finished games, days after their end
``--keep-abandoned DAYS``   ``ZILCH_WEB_KEEP_ABANDONED``  ``30``: games in play, days after their last change
``--keep-history DAYS``     ``ZILCH_WEB_KEEP_HISTORY``    ``365``: a device's history, days after each game's end
``--hint-seconds S``        ``ZILCH_WEB_HINT_SECONDS``    ``10``: a hint's solving time budget
``--hint-workers N``        ``ZILCH_WEB_HINT_WORKERS``    ``1``: hints solved at once (worker processes)
==========================  ============================  =========================================

**New games** (``POST /api/games``) are counted per client address over a sliding window; one
more is answered ``429 too_many_games`` with ``Retry-After`` (seconds until one is allowed). The
address is the connection's, or, from a reverse proxy uvicorn trusts (``FORWARDED_ALLOW_IPS``; by
default a proxy on this machine, 127.0.0.1 and ::1), its ``X-Forwarded-For``; behind a proxy on
another machine that is not trusted, every client counts as the proxy. ``0`` (``--max-new-games 0``)
turns the limit off.

**Expiry**: a finished game is deleted ``keep_finished`` days after its last change, a game in play
``keep_abandoned`` days after its last change (a move, a seat claimed or given up, a rematch); ``0``
keeps them for ever. A device's history (:mod:`zilch_web.history`) keeps each game ``keep_history``
days after its end, with its record, so it outlives the game itself. Expired games are swept when the server starts and then at most every
:data:`SWEEP_EVERY` seconds, on the next new game; a deleted game's link answers 404.

**Hints** (``GET /api/games/{id}/hint``) are solved in worker processes (:mod:`zilch_web.hint_worker`),
never in the server's own process, so a long solve cannot hold the other requests; at most
``hint_workers`` at once; a hint that waits more than :data:`HINT_QUEUE_SECONDS` for a worker is
answered ``503 hint_busy`` with ``Retry-After``; one that solves for longer than ``hint_seconds`` is
stopped (its worker is killed) and answered ``503 hint_timeout``, and the same rules are answered at
once (``409 no_hint``) from then on, as are rules the size check refuses before solving
(:func:`zilch_web.hints.solve_size`).
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any

#: Seconds between two sweeps of expired games.
SWEEP_EVERY = 600.0
#: Seconds a hint waits for a free worker before the answer is ``503 hint_busy``.
HINT_QUEUE_SECONDS = 2.0
#: Client addresses the rate limiter remembers at most (the oldest are forgotten first).
MAX_CLIENTS = 10_000

DAY = 86400.0


def parse_rate(text: str) -> tuple[int, float]:
    """``N/SECONDS`` (``20/60``), or ``N`` (per minute), or ``0`` (no limit): ``(N, SECONDS)``;
    ValueError naming the text otherwise."""
    raw = text.strip()
    try:
        if "/" in raw:
            n_text, s_text = raw.split("/", 1)
            n, s = int(n_text), float(s_text)
        else:
            n, s = int(raw), 60.0
    except ValueError:
        raise ValueError(f"{text!r}: give new games per client as N/SECONDS, e.g. 20/60 (0: no limit)") from None
    if n < 0 or not (math.isfinite(s) and s > 0):
        raise ValueError(f"{text!r}: N is 0 or more (0: no limit) and SECONDS more than 0")
    return n, s


def parse_days(text: str, what: str) -> float | None:
    """Days as a number of seconds; ``0`` is None (kept for ever)."""
    try:
        days = float(text)
    except ValueError:
        raise ValueError(f"{what} {text!r}: give a number of days (0: keep for ever)") from None
    if not math.isfinite(days) or days < 0:
        raise ValueError(f"{what} {text!r}: give a number of days, 0 or more (0: keep for ever)")
    return None if days == 0 else days * DAY


def _env(name: str, default: str) -> str:
    return os.environ.get(name, "").strip() or default


@dataclass
class Limits:
    """The server's bounds (see the module's table); :meth:`from_env` reads the environment."""

    new_games: int = 20  #: new games a client may make per window (0: no limit)
    new_games_window: float = 60.0  #: seconds
    keep_finished: float | None = 7 * DAY  #: seconds a finished game is kept after its last change
    keep_abandoned: float | None = 30 * DAY  #: seconds a game in play is kept after its last change
    keep_history: float | None = 365 * DAY  #: seconds a device's history keeps a game after its end
    hint_seconds: float = 10.0  #: a hint's solving budget
    hint_workers: int = 1  #: hints solved at once
    hint_queue_seconds: float = HINT_QUEUE_SECONDS
    sweep_every: float = SWEEP_EVERY

    @classmethod
    def from_env(cls) -> "Limits":
        """Bounds from ``ZILCH_WEB_*`` (module docstring); ValueError naming a bad value."""
        n, window = parse_rate(_env("ZILCH_WEB_MAX_NEW_GAMES", "20/60"))
        out = cls(new_games=n, new_games_window=window,
                  keep_finished=parse_days(_env("ZILCH_WEB_KEEP_FINISHED", "7"), "ZILCH_WEB_KEEP_FINISHED"),
                  keep_abandoned=parse_days(_env("ZILCH_WEB_KEEP_ABANDONED", "30"), "ZILCH_WEB_KEEP_ABANDONED"),
                  keep_history=parse_days(_env("ZILCH_WEB_KEEP_HISTORY", "365"), "ZILCH_WEB_KEEP_HISTORY"))
        secs = _env("ZILCH_WEB_HINT_SECONDS", "10")
        workers = _env("ZILCH_WEB_HINT_WORKERS", "1")
        try:
            out.hint_seconds = float(secs)
            out.hint_workers = int(workers)
        except ValueError:
            raise ValueError(f"ZILCH_WEB_HINT_SECONDS={secs!r} / ZILCH_WEB_HINT_WORKERS={workers!r}: "
                             "give a number of seconds and a whole number of workers") from None
        out.check()
        return out

    def check(self) -> "Limits":
        if not (math.isfinite(self.hint_seconds) and 0 < self.hint_seconds <= 3600):
            raise ValueError(f"hint seconds {self.hint_seconds}: give more than 0 and at most 3600")
        if not 1 <= self.hint_workers <= 64:
            raise ValueError(f"hint workers {self.hint_workers}: give 1 to 64")
        return self


class RateLimiter:
    """At most ``limit`` events per ``window`` seconds per key (a sliding window); the memory is
    bounded: at most :data:`MAX_CLIENTS` keys, the least recently seen forgotten first."""

    def __init__(self, limit: int, window: float, max_keys: int = MAX_CLIENTS):
        self.limit, self.window, self.max_keys = int(limit), float(window), max_keys
        self._seen: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def check(self, key: str, now: float | None = None) -> float:
        """Count one event for ``key`` and return 0, or, if it is over the limit, the seconds until
        one more is allowed (the event is then not counted)."""
        if self.limit <= 0:
            return 0.0
        now = time.monotonic() if now is None else now
        with self._lock:
            times = self._seen.get(key)
            if times is None:
                times = self._seen[key] = deque()
                while len(self._seen) > self.max_keys:
                    self._seen.popitem(last=False)
            self._seen.move_to_end(key)
            while times and times[0] <= now - self.window:
                times.popleft()
            if len(times) >= self.limit:
                return max(times[0] + self.window - now, 0.001)
            times.append(now)
            return 0.0


@dataclass
class Sweeper:
    """Deletes expired games (:meth:`zilch_web.store.GameStore.expire`) and expired history
    (:meth:`zilch_web.history.DeviceHistory.expire`) at most every ``every`` seconds, when
    :meth:`maybe` is called (the server calls it on each new game)."""

    store: Any
    limits: Limits
    history: Any = None
    last: float = field(default=-math.inf)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def maybe(self, now: float | None = None) -> list[str]:
        now = time.time() if now is None else now
        with self._lock:
            if now - self.last < self.limits.sweep_every:
                return []
            self.last = now
        return self.sweep(now)

    def sweep(self, now: float | None = None) -> list[str]:
        if self.history is not None:
            self.history.expire(self.limits.keep_history, now=now)
        if self.limits.keep_finished is None and self.limits.keep_abandoned is None:
            return []
        return self.store.expire(self.limits.keep_finished, self.limits.keep_abandoned, now=now)
