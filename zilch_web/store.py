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

**Faults.** Opening the file checks it (:class:`StoreError` at start: which file, what is wrong,
what to do): a folder that does not exist, a directory in the file's place, a file that is not a
SQLite database or fails SQLite's ``quick_check``, a database that cannot be written (a read-only
file or disk). While serving, an SQLite error (a full disk, an I/O error, a lock held too long) is a
:class:`StoreUnavailable` (the API answers 503 with the reason; nothing is half-saved, and the
other games go on), and a stored game that cannot be read back or replayed is a
:class:`CorruptStoredGame` (answered 409 for that game alone).

**Devices' histories** are the table ``device_games`` (:mod:`zilch_web.history`), made on open in
a database that has none.

**Expiry.** :meth:`GameStore.expire` deletes finished games not changed for ``finished_after``
seconds and games in play not changed for ``abandoned_after`` seconds (a move, a seat claimed or
offered and a rematch count as changes); the delete checks the time in the same transaction, so a
game moved meanwhile stays. A request that meets its game deleted is answered 404 (unknown game),
or 409 (``stale_version``) if the game was deleted while the move was being made: nothing is saved.
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

from zilch_web.table import CorruptGameError, Table

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

SCHEMA += """
CREATE TABLE IF NOT EXISTS store_info (key TEXT PRIMARY KEY, value TEXT);
CREATE INDEX IF NOT EXISTS games_expiry ON games (status, updated);
"""

#: Each device's finished games (zilch_web.history): made when a database without it is opened, so
#: older databases keep working and gain it.
SCHEMA += """
CREATE TABLE IF NOT EXISTS device_games (
    device   TEXT NOT NULL,   -- SHA-256 of the random id the browser keeps (never the id itself)
    game     TEXT NOT NULL,   -- the game's id
    seats    TEXT NOT NULL,   -- JSON list: the seats this device played
    ended    REAL NOT NULL,   -- unix time the game was added, at its end
    summary  TEXT NOT NULL,   -- JSON: rules, players, scores, winners, best turns
    record   TEXT NOT NULL,   -- the game record (its review outlives the game's row)
    figures  TEXT,            -- JSON: the review's accuracy and score per seat, once reviewed
    PRIMARY KEY (device, game)
);
CREATE INDEX IF NOT EXISTS device_games_ended ON device_games (ended);
"""

#: Columns added after the first release (an older database gains them on open).
NEW_COLUMNS = [("meta", "TEXT NOT NULL DEFAULT '{}'"), ("meta_version", "INTEGER NOT NULL DEFAULT 0")]


class StaleVersionError(RuntimeError):
    """The game moved on since it was read (another request changed it first)."""


class StoreError(RuntimeError):
    """The game database cannot be used at all (raised when it is opened): the message names the
    file, what is wrong and what to do."""


class StoreUnavailable(RuntimeError):
    """The database failed while serving (full disk, I/O error, read-only, locked): this request's
    change is not saved; the message says why."""


class GameGone(KeyError):
    """The game is not (or no longer) stored: deleted by expiry between two steps of a request."""


class CorruptStoredGame(RuntimeError):
    """A stored game that cannot be read back or replayed; the message names the game and why."""


def _fault(doing: str, e: BaseException) -> StoreUnavailable:
    text = str(e)
    hint = ""
    low = text.lower()
    if "full" in low:
        hint = ": the disk is full; free space on it"
    elif "readonly" in low or "read-only" in low:
        hint = ": the database has become read-only"
    elif "locked" in low or "busy" in low:
        hint = ": another process holds the database; try again"
    return StoreUnavailable(f"the game database could not {doing} ({text}){hint}; nothing was changed")


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
        else:
            self._check_path()
        try:
            db = self._conn()
            db.executescript(SCHEMA)
            have = {row[1] for row in db.execute("PRAGMA table_info(games)")}
            for name, decl in NEW_COLUMNS:
                if name not in have:
                    try:
                        db.execute(f"ALTER TABLE games ADD COLUMN {name} {decl}")
                    except sqlite3.OperationalError as e:  # pragma: no cover - another process added it first
                        if "duplicate column" not in str(e):
                            raise
            check = db.execute("PRAGMA quick_check").fetchone()
            if check is None or check[0] != "ok":
                raise sqlite3.DatabaseError(f"SQLite's quick_check finds it damaged: {check and check[0]}")
            with self._write() as w:  # a real write: a read-only file or disk shows now, not at the first move
                w.execute("INSERT OR REPLACE INTO store_info (key, value) VALUES ('opened', ?)", (str(time.time()),))
        except sqlite3.Error as e:
            self.close()
            raise StoreError(self._explain(e)) from None

    def _check_path(self) -> None:
        p = Path(self.path)
        where = f"game database {self.path!r}"
        if not p.parent.exists():
            raise StoreError(f"{where}: the folder {str(p.parent)!r} does not exist; create it "
                             f"(mkdir -p {p.parent}) or give --db a file in an existing folder")
        if not p.parent.is_dir():
            raise StoreError(f"{where}: {str(p.parent)!r} is not a folder; give --db a file in a folder")
        if p.is_dir():
            raise StoreError(f"{where} is a folder, not a file; give --db a file name (e.g. "
                             f"{p / 'zilch-games.sqlite3'})")
        if p.exists() and not p.is_file():
            raise StoreError(f"{where} is not a regular file; give --db a file name")

    def _explain(self, e: sqlite3.Error) -> str:
        """The start-up message for an SQLite error opening the file."""
        where = f"game database {self.path!r}"
        text = str(e)
        low = text.lower()
        if "not a database" in low or "malformed" in low or "damaged" in low or "corrupt" in low:
            return (f"{where} is not a readable SQLite database ({text}). If it is a damaged game "
                    "database, move it aside (its games are lost unless 'sqlite3 FILE .recover' saves "
                    "them) and start again: a new file is made; or give --db another file")
        if "readonly" in low or "read-only" in low or "permission" in low:
            return (f"{where} cannot be written ({text}): make the file and its folder writable by "
                    "this user, or give --db a file in a writable folder")
        if "full" in low:
            return f"{where}: the disk is full ({text}); free some space, or give --db a file on another disk"
        if "unable to open" in low:
            return (f"{where} cannot be opened ({text}): check that its folder exists and is "
                    "writable, or give --db another file")
        if "locked" in low or "busy" in low:
            return f"{where} is locked by another process ({text}); stop it or give --db another file"
        return f"{where} cannot be used ({type(e).__name__}: {text}); give --db another file"

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
        try:
            with self._write() as db:
                db.execute("INSERT INTO games (id, version, status, created, updated, saved, meta) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?)",
                           (gid, table.version, "over" if table.done else "playing", now, now,
                            json.dumps(table.to_saved(), separators=(",", ":")), json.dumps(meta or {})))
        except sqlite3.Error as e:
            raise _fault("store the new game", e) from None
        self._remember(gid, table)
        return gid

    def meta(self, game_id: str) -> tuple[int, dict[str, Any]] | None:
        """The game's seats document and its change count, or None for an unknown game."""
        try:
            row = self._conn().execute("SELECT meta_version, meta FROM games WHERE id = ?", (game_id,)).fetchone()
        except sqlite3.Error as e:
            raise _fault("read the game", e) from None
        if row is None:
            return None
        try:
            meta = json.loads(row[1] or "{}")
            if not isinstance(meta, dict):
                raise ValueError(f"a {type(meta).__name__}, not an object")
        except ValueError as e:
            raise CorruptStoredGame(f"game {game_id!r}: its stored seats cannot be read ({e})") from None
        return row[0], meta

    def update_meta(self, game_id: str, change: Any) -> dict[str, Any]:
        """Apply ``change(meta) -> meta`` to the seats document inside one write transaction (so two
        devices claiming the last free seat cannot both get it); returns the new document."""
        try:
            with self._write() as db:
                row = db.execute("SELECT meta FROM games WHERE id = ?", (game_id,)).fetchone()
                if row is None:
                    raise GameGone(game_id)
                try:
                    meta = json.loads(row[0] or "{}")
                except ValueError as e:
                    raise CorruptStoredGame(f"game {game_id!r}: its stored seats cannot be read ({e})") from None
                new = change(meta)
                db.execute("UPDATE games SET meta = ?, meta_version = meta_version + 1, updated = ? WHERE id = ?",
                           (json.dumps(new), time.time(), game_id))
        except sqlite3.Error as e:
            raise _fault("save the change to the game's seats", e) from None
        return new

    def stamp(self, game_id: str) -> tuple[int, int] | None:
        """(version, meta_version): what the live streams compare to see that something changed."""
        try:
            row = self._conn().execute("SELECT version, meta_version FROM games WHERE id = ?", (game_id,)).fetchone()
        except sqlite3.Error as e:
            raise _fault("read the game", e) from None
        return None if row is None else (row[0], row[1])

    def load(self, game_id: str) -> Table | None:
        """The game's table (rebuilt from the database unless the cached copy is current), or None.
        Raises :class:`CorruptStoredGame` if it cannot be rebuilt, :class:`StoreUnavailable` if the
        database cannot be read."""
        try:
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
        except sqlite3.Error as e:
            raise _fault("read the game", e) from None
        if row is None:  # deleted (expired) meanwhile
            return None
        try:
            saved = json.loads(row[0])
            if not isinstance(saved, dict):
                raise ValueError(f"a {type(saved).__name__}, not an object")
            table = Table.from_saved(saved)
        except (ValueError, CorruptGameError) as e:
            raise CorruptStoredGame(f"game {game_id!r} is stored but cannot be replayed on this server "
                                    f"({e})") from None
        self._remember(game_id, table)
        return table

    def save(self, game_id: str, table: Table, expected_version: int) -> None:
        """Write the table if the stored game is still at ``expected_version``, else raise
        :class:`StaleVersionError` (and forget the cached copy, which no longer matches)."""
        try:
            with self._write() as db:
                cur = db.execute(
                    "UPDATE games SET version = ?, status = ?, updated = ?, saved = ? WHERE id = ? AND version = ?",
                    (table.version, "over" if table.done else "playing", time.time(),
                     json.dumps(table.to_saved(), separators=(",", ":")), game_id, expected_version))
                if cur.rowcount != 1:
                    self.forget(game_id)
                    raise StaleVersionError(f"game {game_id} is no longer at version {expected_version}")
        except sqlite3.Error as e:
            self.forget(game_id)
            raise _fault("save the move", e) from None
        self._remember(game_id, table)

    def expire(self, finished_after: float | None, abandoned_after: float | None,
               now: float | None = None) -> list[str]:
        """Delete finished games unchanged for ``finished_after`` seconds and games in play
        unchanged for ``abandoned_after`` seconds (None: never); returns the deleted ids."""
        now = time.time() if now is None else now
        gone: list[str] = []
        try:
            with self._write() as db:
                for status, age in (("over", finished_after), ("playing", abandoned_after)):
                    if age is None:
                        continue
                    cutoff = now - age
                    ids = [r[0] for r in db.execute("SELECT id FROM games WHERE status = ? AND updated < ?",
                                                    (status, cutoff))]
                    db.execute("DELETE FROM games WHERE status = ? AND updated < ?", (status, cutoff))
                    gone += ids
        except sqlite3.Error as e:
            raise _fault("delete expired games", e) from None
        for gid in gone:
            self.forget(gid)
        return gone

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
            try:
                self.db.execute("BEGIN IMMEDIATE")
            except BaseException:
                if self.lock:
                    self.lock.release()
                raise
            return self.db

        def __exit__(self, exc_type: Any, *rest: Any) -> None:
            try:
                if exc_type:
                    try:
                        self.db.execute("ROLLBACK")
                    except sqlite3.Error:  # SQLite already rolled back (a full disk does): the first error counts
                        pass
                else:
                    try:
                        self.db.execute("COMMIT")
                    except BaseException:
                        try:
                            self.db.execute("ROLLBACK")
                        except sqlite3.Error:
                            pass
                        raise
            finally:
                if self.lock:
                    self.lock.release()

    def connection(self) -> sqlite3.Connection:
        """This thread's connection, for the other tables of the file (:mod:`zilch_web.history`)."""
        return self._conn()

    def transaction(self) -> "_Tx":
        """A write transaction (:meth:`_write`), for the other tables of the file."""
        return self._write()

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



def answer_store_faults(app: Any) -> None:
    """Register the web app's answers to the store's faults (FastAPI exception handlers): 503
    ``storage_unavailable`` with ``Retry-After`` (:class:`StoreUnavailable`), 404 ``unknown_game``
    (:class:`GameGone`), 409 ``game_unreadable`` (:class:`CorruptStoredGame`); each logged."""
    import logging

    from fastapi.responses import JSONResponse

    log = logging.getLogger("zilch_web")

    @app.exception_handler(StoreUnavailable)
    async def _store_down(request: Any, exc: StoreUnavailable) -> JSONResponse:
        log.error("zilch web: %s %s: %s", request.method, request.url.path, exc)
        return JSONResponse({"error": "storage_unavailable", "detail": str(exc)}, status_code=503,
                            headers={"Retry-After": "30"})

    @app.exception_handler(GameGone)
    async def _gone(request: Any, exc: GameGone) -> JSONResponse:
        return JSONResponse({"error": "unknown_game", "detail": f"there is no game {exc.args[0]!r} (it was "
                             "deleted meanwhile, or never existed)"}, status_code=404)

    @app.exception_handler(CorruptStoredGame)
    async def _unreadable(request: Any, exc: CorruptStoredGame) -> JSONResponse:
        log.error("zilch web: %s", exc)
        return JSONResponse({"error": "game_unreadable", "detail": f"{exc}; this game cannot be shown or "
                             "played on (the other games are not affected)"}, status_code=409)
