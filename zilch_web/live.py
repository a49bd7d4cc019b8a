"""Live games: seat tokens (which device plays which human seat) and the event streams.

**Seats.** Creating a game hands the creating device a *seat token* (a secret of 128 random bits)
that holds every human seat: hot seat, as before. The device can then *invite*: it gives up one of
its seats, which becomes free, and shares the game's link; the first device that opens the link and
claims the free seat gets its own token for it. Every move carries the token of the device making
it; a move for a seat that another device holds is refused (403). The server keeps only the
SHA-256 of each token, so the database does not hold anything that would let one play a seat.

**Streams.** ``GET /api/games/{id}/events`` is a Server-Sent Events stream: the game at once, then
again after every change (a move, a seat claimed or offered, a rematch). :class:`Hub` wakes the
streams of a game when a request thread changes it; the stream then reads the stored game, so what
it sends is always what the database holds.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import threading
from typing import Any


def new_token() -> str:
    """A fresh seat token (URL-safe text, 128 random bits)."""
    return secrets.token_urlsafe(16)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def initial_meta(humans: list[int], token: str) -> dict[str, Any]:
    """The seats document of a new game: the creating device (``token``) holds every human seat."""
    h = token_hash(token)
    return {"seats": {str(q): h for q in humans}, "rematch": None}


def holder(meta: dict[str, Any], seat: int) -> str | None:
    """The token hash that holds ``seat`` (None: free, waiting for an invited player)."""
    return (meta.get("seats") or {}).get(str(seat))


def free_seats(meta: dict[str, Any]) -> list[int]:
    return sorted(int(q) for q, h in (meta.get("seats") or {}).items() if h is None)


def seats_of(meta: dict[str, Any], token: str | None) -> list[int]:
    """The human seats the device with ``token`` holds."""
    if not token:
        return []
    h = token_hash(token)
    return sorted(int(q) for q, v in (meta.get("seats") or {}).items() if v == h)


class Hub:
    """Wakes the event streams of a game when it changes (called from the request threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiters: dict[str, set[tuple[asyncio.AbstractEventLoop, asyncio.Event]]] = {}

    def subscribe(self, game_id: str) -> tuple[asyncio.AbstractEventLoop, asyncio.Event]:
        item = (asyncio.get_running_loop(), asyncio.Event())
        with self._lock:
            self._waiters.setdefault(game_id, set()).add(item)
        return item

    def unsubscribe(self, game_id: str, item: tuple[asyncio.AbstractEventLoop, asyncio.Event]) -> None:
        with self._lock:
            waiters = self._waiters.get(game_id)
            if waiters is not None:
                waiters.discard(item)
                if not waiters:
                    del self._waiters[game_id]

    def publish(self, game_id: str) -> None:
        with self._lock:
            waiters = list(self._waiters.get(game_id, ()))
        for loop, event in waiters:
            try:
                loop.call_soon_threadsafe(event.set)
            except RuntimeError:  # pragma: no cover - the stream's loop has closed
                pass

    def streams(self, game_id: str | None = None) -> int:
        """How many streams are open (for one game, or all)."""
        with self._lock:
            if game_id is not None:
                return len(self._waiters.get(game_id, ()))
            return sum(len(w) for w in self._waiters.values())
