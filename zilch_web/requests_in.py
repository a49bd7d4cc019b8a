"""What a request to the web game may be: the JSON bodies (pydantic models, every string bounded),
the errors the API answers with, and the middleware bounding query strings and bodies.

Status codes: 413 a body over :data:`MAX_BODY` bytes, 414 a query string over :data:`MAX_QUERY`
characters, 422 a string over :data:`MAX_STRING` characters anywhere in a body (keys included).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, field_validator

#: The largest request body accepted, in bytes (a bigger one is answered 413 before it is read on).
#: A new game with six players and every rule overridden is well under 8 KiB.
MAX_BODY = 64 * 1024
#: The longest string accepted anywhere in a request body (keys included): 422 beyond it.
MAX_STRING = 200
#: The longest query string of any request, in characters: 414 beyond it.
MAX_QUERY = 8192


class ApiError(Exception):
    """A request the game refuses: HTTP status, a short machine code and a sentence for people."""

    def __init__(self, status: int, code: str, detail: str, headers: dict[str, str] | None = None, **extra: Any):
        super().__init__(detail)
        self.status, self.code, self.detail, self.extra = status, code, detail, extra
        self.headers = headers  #: response headers (``Retry-After`` of a 429 or 503)


# -------------------------------------------------------------------------------- request bodies


class PlayerIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: StrictStr = Field("", max_length=MAX_STRING, description="the player's name; may be empty for a computer player")
    cpu: StrictStr | None = Field(None, max_length=MAX_STRING, description="agent spec of a computer player; null for a human")


def check_strings(value: Any, where: str = "set", depth: int = 0) -> None:
    """Refuse (ValueError, so the answer is a 422 naming the place) any string longer than
    :data:`MAX_STRING` in ``value``, keys included, and nesting deeper than a ruleset has."""
    if depth > 6:
        raise ValueError(f"{where}: nested deeper than any rule (6 levels)")
    if isinstance(value, str):
        if len(value) > MAX_STRING:
            raise ValueError(f"{where}: a string of {len(value)} characters; the most is {MAX_STRING}")
    elif isinstance(value, dict):
        for k, v in value.items():
            check_strings(k, f"{where} (a key)", depth + 1)
            check_strings(v, f"{where}.{k}", depth + 1)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            check_strings(v, f"{where}[{i}]", depth + 1)


class RulesIn(BaseModel):
    """A preset and rule overrides, every string in them bounded."""

    model_config = ConfigDict(extra="forbid")
    ruleset: StrictStr = Field("zonk", max_length=MAX_STRING, description="a preset name")
    set: dict[str, Any] = Field(default_factory=dict, max_length=64,
                                description="rule overrides by dotted key, e.g. {\"target\": 1000}")
    players: StrictInt | None = Field(None, ge=1, le=6, description="how many players the game will have")

    @field_validator("set")
    @classmethod
    def _bounded(cls, v: dict[str, Any]) -> dict[str, Any]:
        check_strings(v)
        return v


class NewGame(RulesIn):
    players: list[PlayerIn] = Field(..., min_length=1, max_length=6)  # type: ignore[assignment]
    seed: StrictInt | None = Field(None, ge=0, lt=2**63, description="dice seed of a practice game (refused "
                                   "with live); secret and random when left out")
    live: StrictBool = Field(False, description="the game will be played from several devices (its seats "
                             "given up to invited players): its dice must be secret, so no 'seed'")


class SeatIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    token: StrictStr | None = Field(None, max_length=64, description="this device's seat token for the game")
    seat: StrictInt | None = Field(None, description="the seat to give up (invite) or to claim")


class MoveIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: StrictInt = Field(..., description="the game's version the move was chosen at")
    seat: StrictInt = Field(..., description="the seat making the move")
    token: StrictStr | None = Field(None, max_length=64, description="the seat token of the device making the move")
    action: StrictInt | None = Field(None, description="an action number (0..135), or use keep and bank")
    keep: list[StrictInt] | None = Field(None, max_length=6, description="faces to keep from the current roll")
    bank: StrictBool = Field(False, description="with keep: bank after keeping (else roll on)")


def action_of(body: MoveIn, table: Any) -> int:
    """The action number a move names: ``action`` itself, or ``keep`` (faces) with ``bank`` (of the
    roll of ``table``, a :class:`zilch_web.table.Table`)."""
    from zilch_env import Phase, keep_action, mask_of

    g = table.state
    if (body.action is None) == (body.keep is None):
        raise ApiError(422, "malformed_request", "give either 'action' (a number) or 'keep' (the faces to keep) "
                       "with 'bank', not both and not neither")
    if body.action is not None:
        return body.action
    if g.phase != Phase.KEEP:
        raise ApiError(422, "illegal_action", f"there is no roll to keep from: {table.names[g.current]} first "
                       f"decides {', '.join(c['label'] for c in table.choices())}")
    try:
        return keep_action(mask_of(g.roll, body.keep or []), body.bank)
    except ValueError as e:
        raise ApiError(422, "illegal_action", str(e)) from None


# -------------------------------------------------------------------------------- limits


class LimitRequests:
    """ASGI middleware bounding what a request may send: a query string of at most
    :data:`MAX_QUERY` characters (else 414) and a body of at most :data:`MAX_BODY` bytes (else
    413), counted from ``Content-Length`` when given and as the body arrives otherwise, so a huge
    upload is stopped before it is read into memory. Answers are JSON ``{error, detail}``."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        if scope.get("path", "").endswith("/events"):
            try:
                return await self.app(scope, receive, send)
            except asyncio.CancelledError:
                # the server is shutting down (``zilch serve`` gives open streams 1 s, then cancels
                # them): the stream just ends, and the browser's EventSource reconnects later
                try:
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
                except Exception:  # pragma: no cover - the connection is already gone
                    pass
                return
        if len(scope.get("query_string", b"")) > MAX_QUERY:
            return await self._refuse(send, 414, "query_too_long",
                                      f"the query string has {len(scope['query_string'])} characters; the most "
                                      f"is {MAX_QUERY}")
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None:
            try:
                n = int(length)
            except ValueError:
                return await self._refuse(send, 400, "bad_request", "the Content-Length header is not a number")
            if n > MAX_BODY:
                return await self._refuse(send, 413, "body_too_large",
                                          f"the request body has {n} bytes; the most is {MAX_BODY} bytes")
        seen = 0
        refused = False  # once the body passed the bound, the app's own answer is replaced by a 413
        too_big = f"the request body has more than {MAX_BODY} bytes; the most is {MAX_BODY} bytes"

        async def counted() -> dict:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > MAX_BODY:
                    raise _BodyTooLarge()
            return message

        async def watched(message: dict) -> None:
            nonlocal refused
            if seen > MAX_BODY:
                if not refused:
                    refused = True
                    await self._refuse(send, 413, "body_too_large", too_big)
                return
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except Exception:
            if seen <= MAX_BODY:
                raise
            if not refused:  # our signal, or the app's error made of it
                await self._refuse(send, 413, "body_too_large", too_big)

    @staticmethod
    async def _refuse(send: Any, status: int, code: str, detail: str) -> None:
        body = json.dumps({"error": code, "detail": detail}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


class _BodyTooLarge(Exception):
    """Raised inside the app's receive when the body passes :data:`MAX_BODY`."""
