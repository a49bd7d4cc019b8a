"""The review of a game in the web page (issue 37): every decision of every seat against the best move,
the luck of every roll, each player's accuracy and score, and a win-chance line, computed by
:func:`agents.evaluate.review.review_record` (the figures: docs/review.md) off the request path.

The API (every refusal ``{"error": CODE, "detail": SENTENCE}``, the code translated by the page):

* ``GET /api/games/{id}/review?wait=S``: the review of a finished stored game, from its record
  (:func:`zilch_web.fair.game_record`); 409 ``game_not_over`` while it is played.
* ``POST /api/review?wait=S``: the review of a game record sent as the body (a downloaded web record,
  ``zilch play --record``, ...); the history's reviews (``GET /api/history/{id}/review``,
  :mod:`zilch_web.history`) go through the same service.

A review is computed in a thread of :class:`ReviewService`, one at a time, and kept (the last
:attr:`ReviewService.KEEP` reviews): the answer is ``200`` with the review when it is ready within
``wait`` seconds (default 1.5, at most 10), else ``202`` with ``{"status": "reviewing", "done": D,
"total": N}`` (decisions reviewed so far) and ``Retry-After``; asking again follows the same review.
The server readies the reviews when it starts (:meth:`ReviewService.warm`): a 40-decision zonk game
is then reviewed in about 0.1 s, and in about 1 s by a process that was not readied
(docs/benchmarks.md, "Game review").

Refused: 422 ``record_invalid`` a record that does not replay (an illegal action, a roll too many or
too few, final scores it does not reach: the sentence names it) or is not a record; 422
``record_tampered`` a web record whose dice do not follow from its revealed seed, or whose seed is not
the one committed to (:func:`zilch_web.fair.verify_record`); 422 ``record_too_long`` more than
:data:`MAX_ACTIONS` actions; 409 ``no_review`` rules whose turn solve is beyond the hint's size
check (:func:`zilch_web.hints.check_size`); 503 ``review_busy`` more than
:attr:`ReviewService.MAX_WAITING` reviews waiting.

The answer is the review's JSON (format ``zilch-rl/review/1``, made with ``choices=True``: each
decision has ``scores``, ``on_board`` and ``choices``, every legal move with its values) and, for the
page's own words: ``game`` (the id, or null), ``target``, ``dice`` (``verified`` when the dice were
checked against the revealed seed, else ``unverified``), ``why_points_code`` (``players``,
``unsupported``, ``no_table``, or null under win chance), per seat ``cpu`` and ``level`` (the
computer's level, e.g. ``Hard``; null for a person), per decision ``not_valued_codes`` and, on every
choice, ``say`` (the move as data: a keep's ``dice``, ``points``, ``total``, ``n``, ``next_roll``,
``hot_dice``, ``bank``; a turn-start choice's ``label``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections import OrderedDict
from typing import Any, Callable

from fastapi import FastAPI, Query, Request
from fastapi.responses import JSONResponse, Response

from zilch_env import RecordError
from zilch_env.engine.actions import split_keep_action

from zilch_web.fair import VerifyError, game_record, verify_record
from zilch_web.requests_in import ApiError

log = logging.getLogger("zilch_web")

#: The most actions a reviewed record may have (a long real game has a few hundred).
MAX_ACTIONS = 2000
#: Seconds a review request waits for the review by default, and at most.
WAIT = 1.5
MAX_WAIT = 10.0

#: The reasons a decision is not valued (agents.evaluate.review_walk), by the start of their sentence.
NOT_VALUED = [("a turn-start decision", "turn_start"), ("no win chance", "no_win"),
              ("a challenged turn", "challenged"), ("the turn solver", "solver"),
              ("the move made is not among", "not_among")]


def not_valued_code(why: str) -> str:
    """The page's code for a reason a decision is not valued (``other`` for one it does not know)."""
    return next((code for start, code in NOT_VALUED if why.startswith(start)), "other")


def why_points_code(ruleset: Any, players: int) -> str:
    """Why a review is by points: ``players`` (not two players), ``unsupported`` (rules the game
    solver does not solve) or ``no_table`` (no table stored for them)."""
    from zilch_env import UnsupportedRulesError

    from agents.solver.game import check_supported

    if players != 2:
        return "players"
    try:
        check_supported(ruleset)
    except UnsupportedRulesError:
        return "unsupported"
    return "no_table"


def record_key(record: Any, game_id: str | None) -> str:
    """What identifies a review: the record's canonical JSON (and the game it is shown as)."""
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(f"{game_id or ''}\n{text}".encode()).hexdigest()


def _say(g: Any, action: int, names: list[str]) -> dict[str, Any]:
    """A legal move of ``g`` as data the page words itself (as the game view's ``keeps``)."""
    from zilch_env import Phase

    from zilch_web.table import action_label

    if g.phase != Phase.KEEP:
        return {"kind": "choice", "label": action_label(g, action, names)}
    mask, bank = split_keep_action(action)
    k = next((k for k in g.keeps() if k.mask == mask), None)
    dice = [int(g.roll[i]) for i in range(len(g.roll)) if mask >> i & 1]
    points = int(k.points) if k else 0
    n = int(k.n) if k else len(dice)
    left = g.dice_left - n
    if not mask:  # the choice after a six-dice zilch bonus: bank, or roll the dice again
        left = len(g.roll)
    return {"kind": "keep", "dice": dice, "points": points, "total": int(g.turn_total) + points, "n": n,
            "next_roll": left or g.ruleset.dice, "hot_dice": left == 0, "bank": bool(bank)}


def _positions(record: dict[str, Any], names: list[str]) -> list[dict[int, dict[str, Any]]]:
    """For each action of the record, every legal move of its position as data (:func:`_say`)."""
    from zilch_env import GameState, ScriptedDice
    from zilch_env.rules.load import ruleset_from_dict

    rs = ruleset_from_dict(dict(record["ruleset"]))
    g = GameState(rs, int(record["num_players"]), dice=ScriptedDice([list(r) for r in record["rolls"]]),
                  first=int(record.get("first", 0)))
    out = []
    for a in record["actions"]:
        out.append({b: _say(g, b, names) for b in g.legal_actions()})
        g.apply(int(a))
    return out


def build_review(record: Any, game_id: str | None = None,
                 progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """The page's review of ``record`` (see the module's text); :class:`ApiError` when refused."""
    from zilch_web.hints import HintUnavailable, check_size
    from zilch_web.levels import level_label

    from agents.evaluate.review import review_record

    if not isinstance(record, dict):
        raise ApiError(422, "record_invalid", f"a game record is a JSON object, not {type(record).__name__}")
    actions = record.get("actions")
    if isinstance(actions, list) and len(actions) > MAX_ACTIONS:
        raise ApiError(422, "record_too_long", f"the record has {len(actions)} actions; a review takes at most "
                       f"{MAX_ACTIONS}")
    dice = record.get("dice")
    checked = isinstance(dice, dict) and dice.get("seed") is not None
    if checked:
        try:
            verify_record(record)
        except VerifyError as e:
            raise ApiError(422, "record_tampered", f"the record's dice do not follow from its seed: {e}") from None
    rs = _rules_of(record)
    if rs is not None:
        try:
            check_size(rules=rs)
        except HintUnavailable as e:
            raise ApiError(409, "no_review", str(e).replace("no hint under these rules", "no review under these "
                                                            "rules")) from None
    try:
        review = review_record(record, progress, choices=True)
        says = _positions(record, review.players)
    except RecordError as e:
        raise ApiError(422, "record_invalid", f"the record does not replay: {e}") from None
    out = review.to_dict()
    rs = _rules_of(record)
    out.update({"game": game_id, "target": rs.target, "dice": "verified" if checked else "unverified",
                "why_points_code": None if review.measure == "win" else why_points_code(rs, review.num_players)})
    players = record.get("players") if isinstance(record.get("players"), list) else []
    for s in out["seats"]:
        p = players[s["seat"]] if s["seat"] < len(players) and isinstance(players[s["seat"]], dict) else {}
        cpu = p.get("cpu") if isinstance(p.get("cpu"), str) else None
        s["cpu"], s["level"] = cpu, (level_label(cpu) if cpu else None)
    for d in out["decisions"]:
        d["not_valued_codes"] = {m: not_valued_code(why) for m, why in d["not_valued"].items()}
        moves = says[d["index"]]
        for c in d["choices"]:
            c["say"] = moves.get(c["action"])
    return out


def _rules_of(record: dict[str, Any]) -> Any:
    """The record's ruleset, or None if it cannot be read (the review then says what is wrong)."""
    from zilch_env.rules.load import ruleset_from_dict

    try:
        return ruleset_from_dict(dict(record["ruleset"]))
    except Exception:
        return None


class _Job:
    def __init__(self) -> None:
        self.done, self.total = 0, 0
        self.finished = threading.Event()


class ReviewService:
    """Reviews computed in threads, one at a time (a review is CPU work: two at once only take
    longer each), the last :attr:`KEEP` kept, each asked as often as needed while it runs."""

    #: Reviews kept (answers and refusals).
    KEEP = 64
    #: Reviews waiting for their turn at most (more: 503 review_busy).
    MAX_WAITING = 8

    def __init__(self, build: Callable[..., dict[str, Any]] = build_review):
        self.build = build
        self._lock = threading.Lock()
        self._one = threading.Lock()
        self._kept: OrderedDict[str, tuple[str, Any]] = OrderedDict()
        self._jobs: dict[str, _Job] = {}
        self.computed = 0  #: reviews computed so far (tests, operators)

    def warm(self) -> float:
        """Review a short zonk game now (the server does at start, in the background), so that the
        first review a player asks for finds the review's code imported, the zonk table loaded and
        the turn solver's kernels ready; returns the seconds it took. A failure is logged, not raised."""
        import time

        t0 = time.perf_counter()
        try:
            from zilch_env import GameState, keep_action

            g = GameState("zonk", 2, seed=1)
            while len(g.actions) < 12 and not g.done:
                k = max(g.keeps(), key=lambda k: (k.points, k.n))
                bank = keep_action(k.mask, True)
                g.apply(bank if g.turn_total + k.points >= 300 and bank in g.legal_actions() else keep_action(k.mask, False))
            with self._one:
                self.build(g.to_record(), None, None)
        except Exception:  # pragma: no cover - the first review then pays what was not readied
            log.exception("zilch web: readying the reviews failed")
        return time.perf_counter() - t0

    def ask(self, record: Any, game_id: str | None, wait: float) -> tuple[bool, Any]:
        """``(True, the review as JSON bytes)``, or ``(False, progress)`` while it runs after ``wait``
        seconds; :class:`ApiError` when the review is refused. (Reviews are kept encoded: a tenth of
        the memory of the objects, and sent again as they are.)"""
        key = record_key(record, game_id)
        with self._lock:
            hit = self._kept.get(key)
            if hit is not None:
                self._kept.move_to_end(key)
            job = self._jobs.get(key)
            if hit is None and job is None:
                if len(self._jobs) >= self.MAX_WAITING:
                    raise ApiError(503, "review_busy", f"{len(self._jobs)} reviews are being worked out; ask "
                                   "again in a few seconds", headers={"Retry-After": "5"})
                job = self._jobs[key] = _Job()
                threading.Thread(target=self._run, args=(key, job, record, game_id), daemon=True,
                                 name="zilch-review").start()
        if hit is None:
            job.finished.wait(max(0.0, wait))
            with self._lock:
                hit = self._kept.get(key)
            if hit is None:
                return False, {"status": "reviewing", "done": job.done, "total": job.total}
        kind, value = hit
        if kind == "error":
            raise ApiError(value.status, value.code, value.detail, headers=value.headers)
        return True, value

    def _run(self, key: str, job: _Job, record: Any, game_id: str | None) -> None:
        def progress(done: int, total: int) -> None:
            job.done, job.total = done, total

        if isinstance(record, dict) and isinstance(record.get("actions"), list):
            job.total = len(record["actions"])
        try:
            with self._one:
                review = self.build(record, game_id, progress)
                out: tuple[str, Any] = ("ok", json.dumps(review, separators=(",", ":")).encode())
                self.computed += 1
        except ApiError as e:
            out = ("error", e)
        except Exception as e:  # a fault of the review itself: said, and logged with its trace
            log.exception("zilch web: the review of %s failed", game_id or "a posted record")
            out = ("error", ApiError(500, "review_failed", f"the review could not be worked out "
                                     f"({type(e).__name__}: {e})"))
        with self._lock:
            self._kept[key] = out
            while len(self._kept) > self.KEEP:
                self._kept.popitem(last=False)
            self._jobs.pop(key, None)
        job.finished.set()


def answer(reviews: ReviewService, record: Any, game_id: str | None, wait: float) -> Response:
    """The HTTP answer of a review request: 200 with the review, or 202 with its progress."""
    ready, data = reviews.ask(record, game_id, min(max(wait, 0.0), MAX_WAIT))
    if ready:
        return Response(data, media_type="application/json")
    return JSONResponse(data, status_code=202, headers={"Retry-After": "1"})


def add_review_api(app: FastAPI, load: Callable[[str], Any], reviews: ReviewService) -> None:
    """Add ``GET /api/games/{id}/review`` and ``POST /api/review`` to ``app`` (``load(id)``: the
    stored game's table, or :class:`ApiError` 404)."""

    @app.get("/api/games/{game_id}/review")
    def game_review(game_id: str, wait: float = Query(WAIT, ge=0, le=MAX_WAIT)) -> Response:
        """The review of a finished game (see :mod:`zilch_web.review`): 200, or 202 while it is worked out."""
        table = load(game_id)
        if not table.done:
            raise ApiError(409, "game_not_over", "the game is still being played: its review opens once it is over")
        return answer(reviews, game_record(table), game_id, wait)

    @app.post("/api/review")
    async def posted_review(request: Request, wait: float = Query(WAIT, ge=0, le=MAX_WAIT)) -> Response:
        """The review of the game record sent as the body (JSON): 200, or 202 while it is worked out."""
        from fastapi.concurrency import run_in_threadpool

        try:
            record = json.loads(await request.body())
        except (ValueError, UnicodeDecodeError) as e:
            raise ApiError(422, "record_invalid", f"a game record is JSON text, and this is not JSON: {e}") from None
        return await run_in_threadpool(answer, reviews, record, None, wait)
