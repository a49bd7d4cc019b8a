"""Live games: seat tokens (which device plays which human seat) and the event streams.

**Seats.** Creating a game hands the creating device a *seat token* (a secret of 128 random bits)
that holds every human seat: hot seat, as before. The device can then *invite*: it gives up one of
its seats, which becomes free, and shares the game's link; the first device that opens the link and
claims the free seat gets its own token for it. Every move carries the token of the device making
it; a move for a seat that another device holds is refused (403). The server keeps only the
SHA-256 of each token, so the database does not hold anything that would let one play a seat.

**Streams.** ``GET /api/games/{id}/events`` is a Server-Sent Events stream: the game at once, then
again after every change (a move, a seat claimed or offered, a rematch). :class:`Hub` wakes the
streams of a game when a request thread changes it. A stream woken by a move of this server, from
the version it told last, sends that move's answer on as it is (:class:`Streams`); after any other
change it reads the stored game, so what it sends is what the database holds.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
import threading
from typing import Any, AsyncIterator, Callable

import anyio.to_thread

from zilch_web.store import StoreUnavailable


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


class Streams:
    """The games' event streams: the :class:`Hub` that wakes them, and each game's last move's answer
    (``recent``: game id -> (version, seats version, the version before the move, the answer as JSON
    text ``{"game": view, "events": [...]}``, the view, the seats document as JSON); at most
    ``keep`` games, the oldest forgotten first), which a stream woken by that move sends on as it is.
    Any other change drops the game's entry before waking its streams (:meth:`changed`), so a stream
    never sends a move's answer over a later change: it reads the database instead."""

    def __init__(self, hub: Hub, keep: int = 512) -> None:
        self.hub = hub
        self.keep = keep
        self.recent: dict[str, tuple[int, int, int, str, dict[str, Any], str]] = {}

    @staticmethod
    def answer(view: dict[str, Any], events: list[dict[str, Any]]) -> str:
        """The JSON text of ``{"game": view, "events": events}``, as a move's answer and every stream
        tell it (encoded as ``JSONResponse`` encodes; the view's first keys are the game's id and
        version)."""
        return json.dumps({"game": view, "events": events}, ensure_ascii=False, allow_nan=False,
                          separators=(",", ":"))

    @staticmethod
    def _told(version: int, meta: dict[str, Any]) -> tuple[int, str]:
        """What a stream told, to compare with what the game is now: its version and seats."""
        return version, json.dumps(meta, sort_keys=True)

    def moved(self, game_id: str, version: int, meta_version: int, before: int, answer: str,
              shown: dict[str, Any], meta: dict[str, Any]) -> None:
        """A move took the game from ``before`` to ``version`` (seats document ``meta``, at change
        count ``meta_version``); ``answer`` (:meth:`answer`) is what its mover was told."""
        self.recent[game_id] = (version, meta_version, before, answer, shown, self._told(version, meta)[1])
        while len(self.recent) > self.keep:
            self.recent.pop(next(iter(self.recent)))
        self.hub.publish(game_id)

    def changed(self, game_id: str) -> None:
        """A change that is not a move (a seat, a rematch): the streams ask the database."""
        self.recent.pop(game_id, None)
        self.hub.publish(game_id)

    def forget(self, game_id: str) -> None:
        """The game is gone (expired)."""
        self.recent.pop(game_id, None)

    async def events(self, game_id: str, since: int | None, request: Any, *, stamp: Callable[[str], Any],
                     read: Callable[[], tuple[Any, dict[str, Any]]],
                     tell: Callable[[Any, dict[str, Any]], dict[str, Any]], problems: tuple[type, ...],
                     limiter: Any = None) -> AsyncIterator[str]:
        """The Server-Sent Events of one stream: ``stamp(game_id)`` the stored (version, seats
        version), ``read()`` the stored (table, seats document), raising one of ``problems`` (then an
        ``event: problem`` ends the stream), ``tell(table, meta)`` the game's view; the reads run in
        worker threads (``limiter``). Ends when the request is gone, the store cannot be read, or the
        game is over and its rematch was told."""
        item = self.hub.subscribe(game_id)
        last_v = since
        last_stamp = None
        last_sent = None
        try:
            while True:
                item[1].clear()
                hit = self.recent.get(game_id)
                if hit is not None and last_v == hit[2] and last_sent is not None and last_sent[0] == hit[2]:
                    # woken by this server's move from the version this stream told last: its answer
                    # is the news, sent as it is, without asking the database
                    last_stamp = (hit[0], hit[1])
                    yield f"event: game\nid: {hit[0]}\ndata: {hit[3]}\n\n"
                    last_sent, last_v = (hit[0], hit[5]), hit[0]
                    if hit[4]["status"] == "over" and hit[4]["rematch"]:  # pragma: no cover - a move has no rematch
                        return
                else:
                    try:
                        now = await anyio.to_thread.run_sync(stamp, game_id, limiter=limiter)
                    except StoreUnavailable:  # the browser's EventSource reconnects later
                        return
                    if now != last_stamp:
                        last_stamp = now
                        try:
                            table, meta = await anyio.to_thread.run_sync(read, limiter=limiter)
                        except problems as e:  # deleted, unreadable
                            data = json.dumps({"error": getattr(e, "code", "storage_unavailable"),
                                               "detail": getattr(e, "detail", str(e))})
                            yield f"event: problem\ndata: {data}\n\n"
                            return
                        # (a move may land between the stamp and the read: then the next stamp shows
                        # what was already sent, and nothing is sent twice)
                        key = self._told(table.version, meta)
                        if key != last_sent:
                            new = [e for e in table.events if last_v is not None and e["v"] > last_v]
                            yield f"event: game\nid: {table.version}\ndata: {self.answer(tell(table, meta), new)}\n\n"
                            last_sent, last_v = key, table.version
                        if table.done and meta.get("rematch"):
                            return
                try:
                    await asyncio.wait_for(item[1].wait(), 15)
                except asyncio.TimeoutError:
                    yield ": still here\n\n"
                if await request.is_disconnected():
                    return
        finally:
            self.hub.unsubscribe(game_id, item)
