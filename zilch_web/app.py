"""The web game's server: a JSON API over :class:`~zilch_web.table.Table` and the phone pages.

The server owns every game. A client only ever sends an action for the seat to move, with the
version of the game it saw; the engine checks it and the server then plays the computer players'
moves (seeded, so the same game plays out the same way) before answering with the events and the
new position. Games are rows of SQLite (:class:`~zilch_web.store.GameStore`) and survive a restart.

API (JSON; every error is ``{"error": CODE, "detail": SENTENCE}`` with a 4xx status):

====================================  =====================================================
``GET  /api/setup``                   presets, variant toggles, computer levels (``cpus``, ``default_cpu``)
``POST /api/cpus``                    the computer levels that can play ``{ruleset, set, players?}``
``POST /api/games``                   new game ``{ruleset, set, players, live?, seed?}`` -> 201
``GET  /api/games/{id}``              the game as its players see it (``log=all`` for every event)
``POST /api/games/{id}/moves``        ``{version, seat, token, action}`` or ``{version, seat, token, keep, bank}``
``GET  /api/games/{id}/events``       the game live (Server-Sent Events): at once, then after every change
``POST /api/games/{id}/invite``       ``{token, seat?}``: give a seat up to an invited player; the link to share
``POST /api/games/{id}/claim``        ``{seat?}``: claim a free seat -> ``{token, seat}`` (a server-made token)
``POST /api/games/{id}/rematch``      the same players and rules again; the winner begins
``GET  /api/games/{id}/hint``         the best move for the player to move, by the exact turn solver
``GET  /api/games/{id}/record``       the game record with its dice (``zilch verify``; ``zilch_env.replay``)
``GET  /api/games/{id}/review``       the finished game's review; ``POST /api/review``: a record's (:mod:`zilch_web.review`)
``POST|GET|DELETE /api/history``      this device's games and statistics; ``GET /api/history/{id}/review`` (:mod:`zilch_web.history`)
``GET  /rules/{preset}``, ``/g/{id}/rules``   the rules page, written from the ruleset
``GET  /``, ``/g/{id}``               the pages (plain HTML, CSS and a little JavaScript)
====================================  =====================================================

Seats: creating a game answers a ``token`` that holds every human seat (hot seat); each move sends
the token of the device making it (see :mod:`zilch_web.live`).

Status codes: 403 a seat another device holds, or a free seat not claimed yet; 404 unknown game;
413 a body over :data:`MAX_BODY` bytes; 414 a query string over :data:`MAX_QUERY`; 409 the game moved on (``stale_version``: a replayed or
out-of-date request), it is another seat's turn (``not_your_turn``), or the game is over; 422 a
malformed body, a ruleset or player list the rules refuse, or a move the rules forbid
(``illegal_action``, with the engine's sentence naming the rule), a ``seed`` for a ``live`` game
(``seed_not_allowed``: a chosen seed makes a practice game, :mod:`zilch_web.fair`); 409
``practice_seed`` an invite to a practice game; 409 ``game_unreadable`` a stored
game that no longer replays (the others are unaffected); 429 ``too_many_games`` more new games from
one address than :mod:`zilch_web.limits` allows (``Retry-After``); 503 ``storage_unavailable`` the
database failed (a full disk, ...: nothing was changed; ``Retry-After``), ``hint_busy`` /
``hint_timeout`` a hint beyond the workers or the time budget (:mod:`zilch_web.limits`); the reviews'
and the history's own: their modules.
"""

from __future__ import annotations

import gc
import logging
import math
import os
import threading
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from zilch_env import PRESETS, IllegalActionError, Ruleset, load_ruleset

# the request bodies and limits, and the rules pages, importable from here as before
from zilch_web.requests_in import (ApiError, LimitRequests, MoveIn, NewGame, RulesIn, SeatIn, action_of)
from zilch_web.rules_page import _page, _rules_html, preset_blurb, scoring_html, scoring_table_rows  # noqa: F401
from zilch_web.store import (CorruptStoredGame, GameGone, GameStore, StaleVersionError, StoreError,  # noqa: F401
                             StoreUnavailable, answer_store_faults)
from zilch_web.live import Hub, Streams, free_seats, holder, initial_meta, new_token, seats_of, token_hash
from zilch_web.levels import cpu_levels, default_cpu as default_cpu_for, level_label
from zilch_web.hint_worker import HintService
from zilch_web.history import DeviceHistory, add_history_api
from zilch_web.review import ReviewService, add_review_api
from zilch_web.hints import HintUnavailable, check_size
from zilch_web.limits import Limits, RateLimiter, Sweeper
from zilch_web.pages import add_pages
from zilch_web.fair import game_record
from zilch_web.views import game_view
from zilch_web.setup_form import (LOAD_ERRORS, RULES_ERRORS, TOGGLE_CHOICES, TOGGLES, get_key, parse_value,  # noqa: F401
                                  rules_message, toggle_texts)
from zilch_web.words import Words, pick_lang
from zilch_web.seats import DEFAULT_CPU
from zilch_web.table import Seat, Table, TableError, cpu_agent

STATIC = Path(__file__).with_name("static")

log = logging.getLogger("zilch_web")

#: Where no computer players are named (``zilch serve`` without ``--cpu``) the levels of
#: :mod:`zilch_web.levels` are offered (Easy, Medium, Hard, Perfect: those that can play the rules).


#: Worker threads for the API's requests (``$ZILCH_WEB_THREADS``; default 4; anyio's default is 40).
WORKER_THREADS = max(1, int(os.environ.get("ZILCH_WEB_THREADS", "4") or 4))

# -------------------------------------------------------------------------------- the app


def create_app(db: str | Path = "zilch-games.sqlite3", cpu_specs: list[str] | None = None,
               limits: Limits | None = None, freeze_when_warm: bool = False) -> FastAPI:
    """The web game as an ASGI app, storing games in the SQLite file ``db``.

    ``cpu_specs`` are the agent specs players may pick as computer opponents. Without them the
    server offers the levels of :func:`zilch_web.levels.cpu_levels` that can play the rules of each
    game (Easy ``greedy``, Medium ``heuristic``, Hard the trained agent of the rules or else the
    agent for any ruleset, Perfect ``optimal-win`` where the game table is stored), Hard by default. Only offered
    specs are accepted from clients, so a request can never make the server load an arbitrary file
    as a policy, nor solve a game for minutes.

    ``limits``: new games per client, how long games are kept, the hints' time budget and workers
    (:class:`zilch_web.limits.Limits`; default from the ``ZILCH_WEB_*`` environment). Raises
    :class:`zilch_web.store.StoreError` (a message naming the file and what to do) if ``db`` cannot
    be used.

    ``freeze_when_warm`` (``zilch serve``): once the startup chores have loaded what the server keeps
    for its lifetime (the libraries, the computer players, the review's tables and kernels), move it
    out of the garbage collector's reach (``gc.freeze``): a full collection then scans only what the
    games made since, instead of stopping every move and stream for a tenth of a second or more.
    """
    from agents.base import agent_names

    limits = (limits or Limits.from_env()).check()
    store = GameStore(db)
    hub = Hub()
    creations = RateLimiter(limits.new_games, limits.new_games_window)
    history = DeviceHistory(store)
    reviews = ReviewService()
    sweeper = Sweeper(store, limits, history)
    hints_served = HintService(limits)
    streams = Streams(hub)  # the event streams, and each game's last move's answer they send on
    helps = agent_names()
    fixed = None if cpu_specs is None else list(cpu_specs)

    def offered_for(rs: Ruleset, players: int | None = None) -> tuple[list[dict[str, Any]], str | None]:
        """The computer players offered for these rules (and player count): entries and the default."""
        if fixed is None:
            entries = cpu_levels(rs, players)
            best = default_cpu_for(rs)
        else:
            levels = {c["spec"]: c for c in cpu_levels(rs, players)}
            entries = [dict(levels.get(s) or {"spec": s, "label": level_label(s) or s,
                                               "description": helps.get(s.partition(":")[0], "")}) for s in fixed]
            best = next((s for s in (default_cpu_for(rs), DEFAULT_CPU) if s in fixed), fixed[0] if fixed else None)
        for e in entries:
            e["help"] = helps.get(e["spec"].partition(":")[0], "")
        if best not in {e["spec"] for e in entries}:
            best = entries[0]["spec"] if entries else None
        return entries, best

    default_rules = load_ruleset("zonk")
    cpu_specs = fixed if fixed is not None else [c["spec"] for c in offered_for(default_rules)[0]]

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        # Few worker threads: a move is CPU work under the GIL, so more threads only make them (and
        # the event loop that carries every request and stream) wait longer for it.
        import anyio.to_thread

        anyio.to_thread.current_default_thread_limiter().total_tokens = WORKER_THREADS
        # The event streams' reads have threads of their own: 200 open streams waking at once no
        # longer queue the moves behind them (bench/web_load.py --games 200, issue 38).
        app.state.stream_limiter = anyio.CapacityLimiter(WORKER_THREADS)
        threading.Thread(target=_startup_chores, daemon=True, name="zilch-web-start").start()
        yield

    def _startup_chores() -> None:
        """Sweep expired games, ready the reviews and start a hint worker, off the event loop."""
        sweep()
        reviews.warm()
        hints_served.pool.warm()
        if freeze_when_warm:
            gc.collect()
            gc.freeze()

    def sweep(now: float | None = None) -> list[str]:
        try:
            gone = sweeper.sweep(now) if now is not None else sweeper.maybe()
        except StoreUnavailable as e:  # the next sweep tries again
            log.warning("zilch web: expired games not swept: %s", e)
            return []
        for gid in gone:
            streams.forget(gid)
        if gone:
            log.info("zilch web: %d expired games deleted", len(gone))
        return gone

    app = FastAPI(title="Zilch", docs_url="/api/docs", redoc_url=None, openapi_url="/api/openapi.json",
                  lifespan=lifespan)
    app.state.store = store
    app.state.hub = hub
    app.state.limits = limits
    app.state.sweep = sweep  # sweep(now): delete expired games now (tests, operators)
    app.state.hints = hints_served
    app.state.reviews, app.state.history = reviews, history
    app.state.cpu_specs = list(cpu_specs)  # the offer for the default preset (zonk), for the banner
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.add_middleware(LimitRequests)

    # ---------------------------------------------------------------- errors

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse({"error": exc.code, "detail": exc.detail, **exc.extra}, status_code=exc.status,
                            headers=exc.headers)

    answer_store_faults(app)  # 503 storage_unavailable, 404 a game gone meanwhile, 409 game_unreadable

    @app.exception_handler(RequestValidationError)
    async def _bad_body(request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for e in exc.errors():
            where = ".".join(str(x) for x in e.get("loc", ()) if x != "body") or "body"
            parts.append(f"{where}: {e.get('msg', 'invalid')}")
        return JSONResponse({"error": "malformed_request", "detail": "; ".join(parts) or "malformed request",
                             "errors": [{"loc": list(e.get("loc", ())), "msg": e.get("msg")} for e in exc.errors()]},
                            status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return JSONResponse({"error": code, "detail": str(exc.detail)}, status_code=exc.status_code)

    def load(game_id: str) -> Table:
        table = store.load(game_id)
        if table is None:
            raise ApiError(404, "unknown_game", f"there is no game {game_id!r} (games are found by their full link)")
        return table

    # ---------------------------------------------------------------- setup and new games

    @app.get("/api/setup")
    def setup(lang: str = Query("en", max_length=16)) -> JSONResponse:
        """Presets, variant toggles and computer levels; the presets' summaries and the toggles'
        labels in ``lang`` (en, pt-BR, sv; else English) from the page's catalogues."""
        w = Words(pick_lang(lang))
        presets = []
        for name in PRESETS:
            rs = load_ruleset(name)
            cpus, best = offered_for(rs)
            presets.append({"name": name, "target": rs.target, "summary": preset_blurb(rs, w),
                            "entry_threshold": rs.entry_threshold, "min_bank": rs.min_bank, "keep": rs.keep,
                            "variants": {k: get_key(rs, k) == on or get_key(rs, k) in
                                         [v for _, v in TOGGLE_CHOICES.get(k, [])] for k, on, *_ in TOGGLES},
                            "values": {k: get_key(rs, k) for k, *_ in TOGGLES},
                            "cpus": cpus, "default_cpu": best})
        cpus, best = offered_for(default_rules)
        return _json({"presets": presets, "default_preset": "zonk",
                "toggles": toggle_texts(w),
                "cpus": cpus, "default_cpu": best})

    def rules_of(ruleset: str, overrides: dict[str, Any]) -> Ruleset:
        if ruleset not in PRESETS:
            raise ApiError(422, "bad_ruleset", f"ruleset {ruleset!r} is not a preset; choose one of "
                           f"{', '.join(PRESETS)} and change rules with 'set'")
        try:
            return load_ruleset(ruleset, overrides or None)
        except LOAD_ERRORS as e:
            raise ApiError(422, "bad_ruleset", rules_message(e, overrides)) from None

    @app.post("/api/cpus")
    def cpus_for(body: RulesIn) -> JSONResponse:
        """The computer players that can play these rules (the new-game form asks when the rules change)."""
        cpus, best = offered_for(rules_of(body.ruleset, body.set), body.players)
        return _json({"cpus": cpus, "default_cpu": best})

    @app.post("/api/games", status_code=201)
    def new_game(body: NewGame, request: Request) -> JSONResponse:
        wait = creations.check(request.client.host if request.client else "")
        if wait:
            raise ApiError(429, "too_many_games", f"this address made {limits.new_games} new games in the last "
                           f"{limits.new_games_window:g} s, the most allowed; try again in {math.ceil(wait)} s",
                           headers={"Retry-After": str(math.ceil(wait))})
        sweep()
        rs = rules_of(body.ruleset, body.set)
        offer, _ = offered_for(rs, len(body.players))
        allowed = {c["spec"] for c in offer}
        seats = []
        for i, pl in enumerate(body.players):
            if pl.cpu is not None and pl.cpu not in allowed:
                names = ", ".join(f"{c['label']} ({c['spec']})" if c["label"] != c["spec"] else c["spec"]
                                  for c in offer) or "none on this server"
                why = ""
                if level_label(pl.cpu) == "Hard":
                    why = " (a trained agent plays only the rules it was trained on)"
                elif pl.cpu == "optimal-win":
                    why = " (Perfect plays two-player games whose game table is stored)"
                raise ApiError(422, "bad_player", f"player {i + 1}: computer player {pl.cpu!r} is not offered "
                               f"for these rules{why}; choose one of: {names}")
            seats.append(Seat(pl.name, pl.cpu))
        if all(s.is_cpu for s in seats):
            raise ApiError(422, "bad_player", "a game needs at least one human player")
        if body.seed is not None and body.live:
            raise ApiError(422, "seed_not_allowed", "a chosen 'seed' is for practice games only: in a live game "
                           "(played from several devices) nobody may choose or know the dice; leave 'seed' out")
        try:
            table = Table(rs, seats, seed=body.seed, practice=body.seed is not None)
        except TableError as e:
            raise ApiError(422, "bad_player", str(e)) from None
        except RULES_ERRORS as e:
            raise ApiError(422, "bad_ruleset", f"these rules cannot be played: {rules_message(e)}") from None
        for s in table.seats:
            if s.cpu is not None:
                try:  # an agent may refuse these rules (the turn solver refuses pyramiding)
                    if s.cpu.partition(":")[0] == "optimal-turn":  # it solves the turn: the hint's size check
                        check_size(rules=rs)
                    cpu_agent(s.cpu, rs)
                except HintUnavailable as e:
                    raise ApiError(422, "bad_player", f"computer player {s.cpu!r} cannot play these rules: "
                                   f"{str(e).removeprefix('no hint under these rules: ')}") from None
                except RULES_ERRORS as e:
                    raise ApiError(422, "bad_player", f"computer player {s.cpu!r} cannot play these rules: "
                                   f"{rules_message(e)}") from None
        play_cpu_or_refuse(table)
        token = new_token()
        meta = initial_meta(table.humans, token)
        gid = store.create(table, meta)
        return _json({"id": gid, "url": f"/g/{gid}", "token": token, "seats": table.humans,
                      "events": table.events, "game": view(gid, table, meta=meta)}, 201)

    # ---------------------------------------------------------------- seats

    def meta_of(game_id: str) -> dict[str, Any]:
        m = store.meta(game_id)
        if m is None:
            raise ApiError(404, "unknown_game", f"there is no game {game_id!r} (games are found by their full link)")
        return m[1]

    @app.post("/api/games/{game_id}/invite")
    def invite(game_id: str, body: SeatIn) -> JSONResponse:
        """Give up one of this device's seats to an invited player: the seat becomes free, and the
        first device that opens the game's link and claims it plays it."""
        table = load(game_id)
        if table.practice:
            raise ApiError(409, "practice_seed", f"this is a practice game: its creator chose its dice (seed "
                           f"{table.seed}), so no one may be invited to it; start a new game without a seed")
        mine = seats_of(meta_of(game_id), body.token)
        if not mine:
            raise ApiError(403, "not_a_player", "only a device that plays in this game can invite: this "
                           "request's token holds no seat of it")
        if len(mine) < 2:
            raise ApiError(409, "last_seat", f"this device plays only {table.names[mine[0]]}'s seat; it keeps "
                           "it (add a person to the game to invite someone)")
        seat = mine[-1] if body.seat is None else body.seat
        if seat not in mine:
            raise ApiError(403, "seat_held", f"seat {seat} is not this device's to give: it holds "
                           f"{', '.join(table.names[q] for q in mine)}")
        if seat == mine[0] and len(mine) > 1 and body.seat is None:  # pragma: no cover - mine[-1] != mine[0]
            seat = mine[-1]

        def free(meta: dict[str, Any]) -> dict[str, Any]:
            if holder(meta, seat) != token_hash(body.token or ""):
                raise ApiError(409, "seat_changed", "the seat changed hands meanwhile; reload the game")
            meta["seats"][str(seat)] = None
            return meta

        store.update_meta(game_id, free)
        streams.changed(game_id)
        return _json({"seat": seat, "name": table.names[seat], "url": f"/g/{game_id}",
                      "text": f"Join my game of Zilch as {table.names[seat]}"})

    @app.post("/api/games/{game_id}/claim")
    def claim(game_id: str, body: SeatIn) -> JSONResponse:
        """Claim a free seat (the given one, else the first): answers this device's token for it.

        Seat tokens are made by the server (128 random bits), never chosen by a client: a claim
        without ``token`` gets a fresh one; a claim with a token is accepted only from a device that
        already holds a seat of this game with it (it then plays both seats with one token), and any
        other token is refused (422 ``client_token``)."""
        table = load(game_id)
        token = body.token or new_token()
        got: list[int] = []

        def take(meta: dict[str, Any]) -> dict[str, Any]:
            if body.token is not None and not seats_of(meta, body.token):
                raise ApiError(422, "client_token", "seat tokens are made by the server: claim without a "
                               "'token' to get one (a token is accepted only from a device that already "
                               "holds a seat of this game with it)")
            free = free_seats(meta)
            if not free:
                raise ApiError(409, "no_free_seat", "every seat of this game is taken: you can watch it")
            seat = free[0] if body.seat is None else body.seat
            if seat not in free:
                raise ApiError(409, "seat_taken", f"seat {seat} is not free; free: "
                               f"{', '.join(f'{q} ({table.names[q]})' for q in free)}")
            meta["seats"][str(seat)] = token_hash(token)
            got.append(seat)
            return meta

        meta = store.update_meta(game_id, take)
        streams.changed(game_id)
        return _json({"token": token, "seat": got[0], "seats": seats_of(meta, token),
                      "game": view(game_id, table, meta=meta)})

    # ---------------------------------------------------------------- playing

    @app.get("/api/games/{game_id}")
    def get_game(game_id: str, log: str = Query("tail", pattern="^(tail|all)$")) -> JSONResponse:
        table = load(game_id)
        return _json(view(game_id, table, all_events=log == "all"))

    @app.post("/api/games/{game_id}/moves")
    def move(game_id: str, body: MoveIn) -> JSONResponse:
        t0 = time.perf_counter()
        with store.lock(game_id):
            table = load(game_id)
            g = table.state
            if body.version != table.version:
                raise ApiError(409, "stale_version",
                               f"this move was chosen at version {body.version}, but the game is at version "
                               f"{table.version}: it was already played or the game moved on; reload the game",
                               version=table.version)
            if g.done:
                raise ApiError(409, "game_over", "the game is over: it accepts no move")
            n = g.num_players
            if not 0 <= body.seat < n:
                raise ApiError(422, "bad_seat", f"seat {body.seat} does not exist: this game has seats 0 to {n - 1}")
            stamp_meta = store.meta(game_id)
            meta_version, meta = stamp_meta if stamp_meta is not None else (0, {})
            held = holder(meta, body.seat)
            if "seats" in meta:  # (a game saved before seat tokens existed has none: any device plays it)
                if held is None:
                    raise ApiError(403, "seat_free", f"{table.names[body.seat]}'s seat waits for the invited "
                                   "player: open the game's link on their device and claim it")
                if body.token is None or token_hash(body.token) != held:
                    raise ApiError(403, "seat_held", f"{table.names[body.seat]}'s seat is played from another "
                                   "device" + ("" if body.token else ": this move carries no seat token"))
            if body.seat != g.current:
                raise ApiError(409, "not_your_turn",
                               f"it is {table.names[g.current]}'s turn (seat {g.current}), not "
                               f"{table.names[body.seat]}'s (seat {body.seat})")
            if table.seats[g.current].is_cpu:  # pragma: no cover - the server never stops on a computer's turn
                raise ApiError(409, "not_your_turn", f"seat {g.current} is a computer player")
            action = action_of(body, table)
            before = table.version
            try:
                events = table.apply(action)
            except IllegalActionError as e:
                raise ApiError(422, "illegal_action", str(e)) from None
            except RULES_ERRORS as e:  # pragma: no cover - the engine holds any value the loader accepts
                store.forget(game_id)  # the cached table may be half changed: rebuild it from the database
                raise ApiError(422, "bad_ruleset", f"this move cannot be played under these rules: "
                               f"{rules_message(e)}") from None
            try:
                events += play_cpu_or_refuse(table)
                store.save(game_id, table, before)
            except StaleVersionError:
                raise ApiError(409, "stale_version", "the game moved on while this move was made; reload the game") from None
            except BaseException:
                store.forget(game_id)  # nothing is saved: the game stays at the version before this move
                raise
        shown = view(game_id, table, meta=meta)
        answer = Streams.answer(shown, events)  # the answer and this game's streams tell the same text
        streams.moved(game_id, table.version, meta_version, before, answer, shown, meta)
        out = Response(answer.encode(), media_type="application/json")
        # how long the server worked on the move, for the browser's developer tools and bench/web_load.py
        out.headers["Server-Timing"] = f"app;dur={(time.perf_counter() - t0) * 1000:.2f}"
        return out

    @app.post("/api/games/{game_id}/rematch", status_code=201)
    def rematch(game_id: str) -> JSONResponse:
        """A new game with the same rules and players once this one is over; the winner begins
        (source 004), and after a draw the tied player who played earliest. The devices keep their
        seats (the same tokens play them); asked twice, the same rematch is answered."""
        with store.lock(game_id):
            old = load(game_id)
            g = old.state
            if not g.done:
                raise ApiError(409, "game_not_over", "the game is still being played: finish it before a rematch")
            meta = meta_of(game_id)
            if meta.get("rematch"):
                again = load(meta["rematch"])
                return _json({"id": meta["rematch"], "url": f"/g/{meta['rematch']}", "events": again.events,
                              "game": view(meta["rematch"], again)}, 201)
            first = min(g.winners or (0,), key=lambda q: (q - g.first) % g.num_players)
            table = Table(old.ruleset, old.seats, first=first, check_names=False)  # names as the game had them
            play_cpu_or_refuse(table)
            new_meta = {"seats": dict(meta.get("seats") or {}), "rematch": None}
            gid = store.create(table, new_meta)

            def point(m: dict[str, Any]) -> dict[str, Any]:
                m["rematch"] = gid
                return m

            store.update_meta(game_id, point)
        streams.changed(game_id)
        return _json({"id": gid, "url": f"/g/{gid}", "events": table.events, "game": view(gid, table, meta=new_meta)},
                     201)

    @app.get("/api/games/{game_id}/events")
    async def live(game_id: str, request: Request, since: int | None = Query(None, ge=0, lt=2**31)) -> StreamingResponse:
        """The game as a Server-Sent Events stream (``text/event-stream``): an ``event: game`` with
        ``{"game": VIEW, "events": [...]}`` at once and after every change; ``events`` are the game's
        events after version ``since`` (on connect; none if not given), then those of each change.
        A comment line every 15 s keeps proxies from closing the stream; it ends once the game is
        over and its rematch (if any) was told."""
        if await run_in_threadpool(store.stamp, game_id) is None:
            raise ApiError(404, "unknown_game", f"there is no game {game_id!r} (games are found by their full link)")

        limiter = getattr(request.app.state, "stream_limiter", None)  # None: the default threads

        stream = streams.events(game_id, since, request, stamp=store.stamp,
                                read=lambda: (load(game_id), meta_of(game_id)),
                                tell=lambda table, meta: view(game_id, table, meta=meta),
                                problems=(ApiError, StoreUnavailable, CorruptStoredGame), limiter=limiter)
        return StreamingResponse(stream, media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    @app.get("/api/games/{game_id}/hint")
    def hint(game_id: str) -> JSONResponse:
        """The best move by the exact turn solver, solved in a worker process within the hint budget
        (:mod:`zilch_web.limits`): 409 ``no_hint`` (rules without a hint, too big, or known to take
        too long), 503 ``hint_busy`` / ``hint_timeout`` with a reason."""
        table = load(game_id)
        if table.done:
            raise ApiError(409, "game_over", "the game is over: there is nothing to advise")
        return _json({"version": table.version, **hints_served.answer(table)})

    @app.get("/api/games/{game_id}/record")
    def record(game_id: str) -> JSONResponse:
        return _json(game_record(load(game_id)))

    def view(game_id: str, table: Table, all_events: bool = False, meta: dict[str, Any] | None = None) -> dict[str, Any]:
        return game_view(game_id, table, meta_of(game_id) if meta is None else meta, all_events)

    add_review_api(app, load, reviews)  # the review of a game (zilch_web.review)
    add_history_api(app, store, history, reviews, load, meta_of)  # each device's games (zilch_web.history)
    add_pages(app, store)  # the pages, gzip and Cache-Control (zilch_web.pages)

    return app


def _json(data: Any, status: int = 200) -> JSONResponse:
    """A JSON answer, encoded once (the plain-data views need no validation on the way out)."""
    return JSONResponse(data, status_code=status)


def play_cpu_or_refuse(table: Table) -> list[dict[str, Any]]:
    """:meth:`Table.play_cpu`, with an agent's failure under these rules as a 422 naming the agent.
    An illegal move by an agent is the server's fault, not the rules': it stays an error (500)."""
    try:
        return table.play_cpu()
    except IllegalActionError:
        raise
    except RULES_ERRORS as e:
        g = table.state
        spec = table.seats[g.current].cpu if not g.done else None
        raise ApiError(422, "bad_player", f"computer player {spec!r} cannot play this position under these "
                       f"rules: {rules_message(e)}") from None
