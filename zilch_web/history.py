"""Statistics and history per device (issue 37, item 3): no account, nothing personal.

The browser keeps a random device id (128 random bits, ``localStorage`` ``zilchDevice``) and sends
it in the ``X-Zilch-Device`` header (never in a URL, so no access log or ``Referer`` holds it). The
server stores only its SHA-256, and for each of that device's finished games one row of
``device_games`` (:mod:`zilch_web.store`): the seats it played, the game's summary (rules, players,
scores, winners, each seat's best turn), the game record, and, once reviewed, the review's accuracy
and score per seat. The record is kept so that the history and every review in it outlive the game
itself (a finished game is deleted after ``keep_finished``, 7 days by default): a history row is
kept ``keep_history`` days after the game's end (365 by default; ``zilch serve --keep-history``,
``ZILCH_WEB_KEEP_HISTORY``; 0 for ever), and a device keeps its last :data:`MAX_GAMES` games. What a
row holds that a person typed is the players' names of that game. ``DELETE /api/history`` forgets
the device's history at once.

**Which seat is this device's player.** The seats a device plays are those its seat token holds
when the game ends (:mod:`zilch_web.live`): against the computer its one seat; in live play the
seat it kept or claimed; a watcher holds none and adds nothing. A device holding several seats
(hot seat: the phone passed between people) has no single player: its games are listed, with every
seat it played, and counted in ``played`` and ``hot_seat``, but the per-player figures (wins, wins
per computer level, the streak, the best turn, the accuracy over time) count only the games where
the device played one seat.

API (the device id in the ``X-Zilch-Device`` header; 422 ``bad_device`` without a valid one):

* ``POST /api/history`` ``{game, token}``: add a finished game to this device's history (``token``
  the device's seat token of that game): 201, or 200 if it was there; 409 ``game_not_over``, 403
  ``not_a_player`` (the token holds no seat of it), 404 ``unknown_game``. The game's review starts
  at once (:mod:`zilch_web.review`), so its figures are ready when the history is opened.
* ``GET /api/history``: ``{"stats": ..., "games": [...]}`` (:func:`stats`; the games newest first).
* ``GET /api/history/{id}/review?wait=S``: the review of a game of this history, from its record
  (200, or 202 while it is worked out, as ``GET /api/games/{id}/review``); 404 ``unknown_game``.
* ``DELETE /api/history``: forget this device's history -> ``{"deleted": N}``.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import time
from typing import Any

from fastapi import FastAPI, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictStr

from zilch_web.fair import game_record
from zilch_web.live import seats_of
from zilch_web.requests_in import MAX_STRING, ApiError
from zilch_web.review import MAX_WAIT, WAIT, ReviewService, answer
from zilch_web.store import GameStore, _fault

#: The header that carries the device id.
DEVICE_HEADER = "X-Zilch-Device"
#: What a device id looks like (the page makes 32 hexadecimal digits).
DEVICE_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")
#: The most games a device's history keeps (the oldest go first).
MAX_GAMES = 500


class HistoryIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    game: StrictStr = Field(..., max_length=MAX_STRING, description="the finished game's id")
    token: StrictStr | None = Field(None, max_length=MAX_STRING, description="this device's seat token of the game")


def device_key(request: Request) -> str:
    """The stored form of the request's device id (its SHA-256); 422 ``bad_device`` without one."""
    device = request.headers.get(DEVICE_HEADER, "")
    if not DEVICE_ID.fullmatch(device):
        raise ApiError(422, "bad_device", f"the {DEVICE_HEADER} header names this device: 16 to 64 letters, "
                       "digits, '-' or '_' (the page makes one at random and keeps it)")
    return hashlib.sha256(device.encode()).hexdigest()


def summary_of(table: Any) -> dict[str, Any]:
    """What the history shows of a finished game without its record: rules, players (name, computer
    spec and level), scores, winners, turns, and each seat's best turn (the most points one bank
    recorded)."""
    from zilch_web.levels import level_label

    g = table.state
    best = [0] * g.num_players
    for t in g.turns:
        if t["banked"]:
            best[t["player"]] = max(best[t["player"]], int(t["recorded"]))
    return {"rules": table.ruleset.name, "target": table.ruleset.target,
            "players": [{"name": s.name, "cpu": s.cpu, "level": level_label(s.cpu) if s.cpu else None}
                        for s in table.seats],
            "scores": [int(x) for x in g.scores], "winners": [int(q) for q in (g.winners or [])],
            "turns": len(g.turns), "best_turn": best, "practice": bool(table.practice)}


def figures_of(review: dict[str, Any]) -> dict[str, Any]:
    """The review's figures the history keeps: the measure, and each seat's accuracy and score."""
    return {"measure": review["measure"],
            "seats": [{"accuracy": s["accuracy"], "score": s["score"]} for s in review["seats"]]}


class DeviceHistory:
    """The ``device_games`` table of a :class:`~zilch_web.store.GameStore`'s file."""

    def __init__(self, store: GameStore):
        self.store = store

    def add(self, device: str, game: str, seats: list[int], summary: dict[str, Any], record: dict[str, Any],
            now: float | None = None) -> bool:
        """Add a game (True), or leave it as it is if it is there (False); the device's oldest games
        beyond :data:`MAX_GAMES` are forgotten."""
        now = time.time() if now is None else now
        try:
            with self.store.transaction() as db:
                cur = db.execute("INSERT OR IGNORE INTO device_games (device, game, seats, ended, summary, record) "
                                 "VALUES (?, ?, ?, ?, ?, ?)",
                                 (device, game, json.dumps(seats), now, json.dumps(summary),
                                  json.dumps(record, separators=(",", ":"))))
                db.execute("DELETE FROM device_games WHERE device = ? AND game NOT IN (SELECT game FROM "
                           "device_games WHERE device = ? ORDER BY ended DESC, game LIMIT ?)", (device, device, MAX_GAMES))
        except sqlite3.Error as e:
            raise _fault("save the game in this device's history", e) from None
        return cur.rowcount == 1

    def rows(self, device: str) -> list[dict[str, Any]]:
        """The device's games, oldest first: game, seats, ended, summary, figures (or None)."""
        try:
            rows = self.store.connection().execute(
                "SELECT game, seats, ended, summary, figures FROM device_games WHERE device = ? ORDER BY ended, game",
                (device,)).fetchall()
        except sqlite3.Error as e:
            raise _fault("read this device's history", e) from None
        return [{"game": g, "seats": json.loads(seats), "ended": ended, "summary": json.loads(summary),
                 "figures": json.loads(figures) if figures else None} for g, seats, ended, summary, figures in rows]

    def record(self, device: str, game: str) -> dict[str, Any] | None:
        try:
            row = self.store.connection().execute("SELECT record FROM device_games WHERE device = ? AND game = ?",
                                                  (device, game)).fetchone()
        except sqlite3.Error as e:
            raise _fault("read this device's history", e) from None
        return None if row is None else json.loads(row[0])

    def set_figures(self, device: str, game: str, figures: dict[str, Any]) -> None:
        try:
            with self.store.transaction() as db:
                db.execute("UPDATE device_games SET figures = ? WHERE device = ? AND game = ?",
                           (json.dumps(figures), device, game))
        except sqlite3.Error as e:
            raise _fault("save the review's figures", e) from None

    def forget(self, device: str) -> int:
        try:
            with self.store.transaction() as db:
                return db.execute("DELETE FROM device_games WHERE device = ?", (device,)).rowcount
        except sqlite3.Error as e:
            raise _fault("forget this device's history", e) from None

    def expire(self, keep: float | None, now: float | None = None) -> int:
        """Forget the games that ended more than ``keep`` seconds ago (None: none); how many."""
        if keep is None:
            return 0
        cutoff = (time.time() if now is None else now) - keep
        try:
            with self.store.transaction() as db:
                return db.execute("DELETE FROM device_games WHERE ended < ?", (cutoff,)).rowcount
        except sqlite3.Error as e:
            raise _fault("delete expired history", e) from None


def result_of(row: dict[str, Any]) -> str:
    """This device's result in a game: ``won``, ``lost``, ``draw`` (its seat among several winners),
    or ``hot_seat`` (it played several seats)."""
    if len(row["seats"]) != 1:
        return "hot_seat"
    winners = row["summary"]["winners"]
    if row["seats"][0] not in winners:
        return "lost"
    return "won" if len(winners) == 1 else "draw"


def stats(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The device's statistics over its games (``rows`` oldest first; see the module's text):
    ``played``, ``hot_seat``, ``won``, ``lost``, ``draw``, ``levels`` (per computer level met:
    ``{played, won}``; a game against two levels counts for each), ``people`` (games with another
    person on another device: ``{played, won}``), ``streak`` (the longest run of wins; a loss or a
    draw ends it), ``best_turn`` (``{points, game, ended}`` or None) and ``accuracy`` (per reviewed
    game, oldest first: ``{game, ended, measure, accuracy, score}``)."""
    out: dict[str, Any] = {"played": len(rows), "hot_seat": 0, "won": 0, "lost": 0, "draw": 0, "levels": {},
                           "people": {"played": 0, "won": 0}, "streak": 0, "best_turn": None, "accuracy": []}
    run = 0
    for row in rows:
        result = result_of(row)
        if result == "hot_seat":
            out["hot_seat"] += 1
            continue
        out[result] += 1
        won = result == "won"
        run = run + 1 if won else 0
        out["streak"] = max(out["streak"], run)
        me = row["seats"][0]
        s = row["summary"]
        others = [p for q, p in enumerate(s["players"]) if q != me]
        for level in sorted({p["level"] or p["cpu"] for p in others if p["cpu"]}):
            entry = out["levels"].setdefault(level, {"played": 0, "won": 0})
            entry["played"] += 1
            entry["won"] += int(won)
        if any(not p["cpu"] for p in others):
            out["people"]["played"] += 1
            out["people"]["won"] += int(won)
        points = s["best_turn"][me]
        if points and (out["best_turn"] is None or points > out["best_turn"]["points"]):
            out["best_turn"] = {"points": points, "game": row["game"], "ended": row["ended"]}
        f = row["figures"]
        if f and f.get("seats") and f["seats"][me]["score"] is not None:
            out["accuracy"].append({"game": row["game"], "ended": row["ended"], "measure": f["measure"],
                                    "accuracy": f["seats"][me]["accuracy"], "score": f["seats"][me]["score"]})
    return out


def listing(row: dict[str, Any]) -> dict[str, Any]:
    """One game of the history as the page lists it."""
    s = row["summary"]
    f = row["figures"]
    mine = [{"seat": q, "score": f["seats"][q]["score"]} if f and f.get("seats") else {"seat": q, "score": None}
            for q in row["seats"]]
    return {"game": row["game"], "ended": row["ended"], "rules": s["rules"], "target": s["target"],
            "players": s["players"], "scores": s["scores"], "winners": s["winners"], "seats": row["seats"],
            "result": result_of(row), "turns": s["turns"], "measure": f.get("measure") if f else None,
            "mine": mine, "reviewed": f is not None and "error" not in f, "review_error": (f or {}).get("error")}


def add_history_api(app: FastAPI, store: GameStore, history: DeviceHistory, reviews: ReviewService,
                    load: Any, meta_of: Any) -> None:
    """Add the history's endpoints (see the module's text) to ``app``."""

    def fill_figures(device: str, rows: list[dict[str, Any]]) -> None:
        """The figures of the games not reviewed yet, from the reviews ready now (the others are
        started, and shown once ready)."""
        for row in rows:
            if row["figures"] is not None:
                continue
            record = history.record(device, row["game"])
            try:
                ready, data = reviews.ask(record, row["game"], 0.0)
            except ApiError as e:
                if e.code == "review_busy":
                    return
                data, ready = {"error": e.code}, True
                row["figures"] = data
                history.set_figures(device, row["game"], data)
                continue
            if ready:
                row["figures"] = figures_of(json.loads(data))
                history.set_figures(device, row["game"], row["figures"])

    @app.post("/api/history", status_code=201)
    def add_game(body: HistoryIn, request: Request) -> JSONResponse:
        """Add a finished game to this device's history (see :mod:`zilch_web.history`)."""
        device = device_key(request)
        table = load(body.game)
        if not table.done:
            raise ApiError(409, "game_not_over", "the game is still being played: it joins the history once it is over")
        meta = meta_of(body.game)
        seats = seats_of(meta, body.token) if "seats" in meta else list(table.humans)
        if not seats:
            raise ApiError(403, "not_a_player", "only a device that played in this game keeps it in its history: "
                           "this request's token holds no seat of it")
        record = game_record(table)
        added = history.add(device, body.game, seats, summary_of(table), record)
        try:  # the review starts now: its figures are ready when the history is opened
            reviews.ask(record, body.game, 0.0)
        except ApiError:
            pass
        return JSONResponse({"game": body.game, "seats": seats, "added": added}, status_code=201 if added else 200)

    @app.get("/api/history")
    def device_history(request: Request) -> JSONResponse:
        """This device's statistics and games (newest first)."""
        device = device_key(request)
        rows = history.rows(device)
        fill_figures(device, rows)
        return JSONResponse({"stats": stats(rows), "games": [listing(r) for r in reversed(rows)]})

    @app.get("/api/history/{game_id}/review")
    def history_review(game_id: str, request: Request, wait: float = Query(WAIT, ge=0, le=MAX_WAIT)) -> Any:
        """The review of a game of this device's history, from its stored record."""
        device = device_key(request)
        record = history.record(device, game_id)
        if record is None:
            raise ApiError(404, "unknown_game", f"there is no game {game_id!r} in this device's history")
        return answer(reviews, record, game_id, wait)

    @app.delete("/api/history")
    def forget_history(request: Request) -> JSONResponse:
        """Forget this device's history."""
        return JSONResponse({"deleted": history.forget(device_key(request))})
