"""Games in SQLite: one row per game, the table saved as JSON, and a version for safe updates.

A game is stored as :meth:`zilch_web.table.Table.to_saved` (seed, seats, ruleset and the engine's
game record) and rebuilt with :meth:`~zilch_web.table.Table.from_saved`, so games survive a server
restart. Every update is a compare-and-swap on ``version`` (the number of actions taken): a write
made from a stale copy of the game changes nothing and is reported, so two requests can never both
move the same game from the same position. Rebuilt tables are kept in a small in-memory cache
(checked against the stored version) so a move does not replay the whole game.

Beside the game, each row holds its *seats* document (``meta``, JSON): which device holds each
human seat (the SHA-256 of its seat token; ``null`` for a seat offered to an invited player) and the
id of the rematch once one is made; ``meta_version`` counts its changes, so the live event
streams notice a seat being claimed as well as a move.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from zilch_web.table import Table

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id       TEXT PRIMARY KEY,   -- secrets.token_urlsafe(16): unguessable
    version  INTEGER NOT NULL,   -- actions taken; every update checks and raises it
    status   TEXT NOT NULL,      -- 'playing' or 'over'
    created  REAL NOT NULL,      -- unix time
    updated  REAL NOT NULL,
    saved    TEXT NOT NULL       -- Table.to_saved() as JSON
);
"""

#: Columns added after the first release (an older database gains them on open).
NEW_COLUMNS = [("meta", "TEXT NOT NULL DEFAULT '{}'"), ("meta_version", "INTEGER NOT NULL DEFAULT 0")]


class StaleVersionError(RuntimeError):
    """The game moved on since it was read (another request changed it first)."""


class GameStore:
    """Games in one SQLite file (``":memory:"`` works for a single process)."""

    def __init__(self, path: str | Path = "zilch-games.sqlite3", cache_size: int = 256):
        self.path = str(path)
        self._local = threading.local()
        self._cache: OrderedDict[str, tuple[int, Table]] = OrderedDict()
        self._cache_size = cache_size
        self._cache_lock = threading.Lock()
        self._locks = [threading.Lock() for _ in range(self.LOCK_STRIPES)]
        self._shared: sqlite3.Connection | None = None
        self._write_lock = threading.Lock()
        if self.path == ":memory:":
            self._shared = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        db = self._conn()
        db.executescript(SCHEMA)
        have = {row[1] for row in db.execute("PRAGMA table_info(games)")}
        for name, decl in NEW_COLUMNS:
            if name not in have:
                try:
                    db.execute(f"ALTER TABLE games ADD COLUMN {name} {decl}")
                except sqlite3.OperationalError:  # pragma: no cover - another process added it first
                    pass

    def _conn(self) -> sqlite3.Connection:
        """One connection per thread (SQLite connections are not shared across threads)."""
        if self._shared is not None:
            return self._shared
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            self._local.db = db
        return db

    #: Moves are serialised per game by one of this many locks (picked by the id's hash): a fixed
    #: set, so requests for made-up ids cannot grow the server's memory.
    LOCK_STRIPES = 64

    def lock(self, game_id: str) -> threading.Lock:
        """The lock that serialises moves of one game inside this process."""
        return self._locks[hash(game_id) % self.LOCK_STRIPES]

    def create(self, table: Table, meta: dict[str, Any] | None = None) -> str:
        """Store a new game (and its seats document ``meta``); returns its id."""
        gid = secrets.token_urlsafe(16)
        now = time.time()
        with self._write() as db:
            db.execute("INSERT INTO games (id, version, status, created, updated, saved, meta) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (gid, table.version, "over" if table.done else "playing", now, now,
                        json.dumps(table.to_saved(), separators=(",", ":")), json.dumps(meta or {})))
        self._remember(gid, table)
        return gid

    def meta(self, game_id: str) -> tuple[int, dict[str, Any]] | None:
        """The game's seats document and its change count, or None for an unknown game."""
        row = self._conn().execute("SELECT meta_version, meta FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else (row[0], json.loads(row[1] or "{}"))

    def update_meta(self, game_id: str, change: Any) -> dict[str, Any]:
        """Apply ``change(meta) -> meta`` to the seats document inside one write transaction (so two
        devices claiming the last free seat cannot both get it); returns the new document."""
        with self._write() as db:
            row = db.execute("SELECT meta FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                raise KeyError(game_id)
            new = change(json.loads(row[0] or "{}"))
            db.execute("UPDATE games SET meta = ?, meta_version = meta_version + 1 WHERE id = ?",
                       (json.dumps(new), game_id))
        return new

    def stamp(self, game_id: str) -> tuple[int, int] | None:
        """(version, meta_version): what the live streams compare to see that something changed."""
        row = self._conn().execute("SELECT version, meta_version FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else (row[0], row[1])

    def load(self, game_id: str) -> Table | None:
        """The game's table (rebuilt from the database unless the cached copy is current), or None."""
        db = self._conn()
        row = db.execute("SELECT version FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            return None
        (version,) = row
        with self._cache_lock:
            hit = self._cache.get(game_id)
            if hit is not None and hit[0] == version == hit[1].version:
                self._cache.move_to_end(game_id)
                return hit[1]
        row = db.execute("SELECT saved FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:  # pragma: no cover - games are never deleted
            return None
        table = Table.from_saved(json.loads(row[0]))
        self._remember(game_id, table)
        return table

    def save(self, game_id: str, table: Table, expected_version: int) -> None:
        """Write the table if the stored game is still at ``expected_version``, else raise
        :class:`StaleVersionError` (and forget the cached copy, which no longer matches)."""
        with self._write() as db:
            cur = db.execute(
                "UPDATE games SET version = ?, status = ?, updated = ?, saved = ? WHERE id = ? AND version = ?",
                (table.version, "over" if table.done else "playing", time.time(),
                 json.dumps(table.to_saved(), separators=(",", ":")), game_id, expected_version))
            if cur.rowcount != 1:
                self.forget(game_id)
                raise StaleVersionError(f"game {game_id} is no longer at version {expected_version}")
        self._remember(game_id, table)

    def forget(self, game_id: str) -> None:
        with self._cache_lock:
            self._cache.pop(game_id, None)

    def count(self) -> int:
        return self._conn().execute("SELECT COUNT(*) FROM games").fetchone()[0]

    def _remember(self, game_id: str, table: Table) -> None:
        with self._cache_lock:
            self._cache[game_id] = (table.version, table)
            self._cache.move_to_end(game_id)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)

    class _Tx:
        def __init__(self, db: sqlite3.Connection, lock: threading.Lock | None):
            self.db, self.lock = db, lock

        def __enter__(self) -> sqlite3.Connection:
            if self.lock:
                self.lock.acquire()
            self.db.execute("BEGIN IMMEDIATE")
            return self.db

        def __exit__(self, exc_type: Any, *rest: Any) -> None:
            try:
                self.db.execute("ROLLBACK" if exc_type else "COMMIT")
            finally:
                if self.lock:
                    self.lock.release()

    def _write(self) -> "_Tx":
        """A write transaction. Writers of this process queue on one lock first: waiting for
        SQLite's own lock means its busy handler's sleeps (up to 100 ms each), which under load made
        the slowest moves seconds long while the server was idle; other processes still wait on
        SQLite's lock (``timeout=30``)."""
        return self._Tx(self._conn(), self._write_lock)

    def close(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None
        if self._shared is not None:
            self._shared.close()

