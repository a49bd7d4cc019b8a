"""How the web game's responses travel: compressed, with cache headers (issue 38, item 6).

:func:`install` adds two middlewares to the app:

* gzip (Starlette's ``GZipMiddleware``) for any response of 500 bytes or more to a client that
  accepts it; the event streams (``text/event-stream``) are never compressed, so every update
  still arrives at once;
* :class:`CacheHeaders`: a ``Cache-Control`` on every response that has none --
  ``no-store`` for the API (a game changes with every move), ``no-cache`` for the pages (always
  checked, so a new version of the game is seen at once), and ``public, max-age=3600`` for the
  files under ``/static/`` (the page, the style, the icons; checked again after an hour, by their
  ``ETag``).

It also teaches the file server the media type of the web app manifest
(``application/manifest+json``).
"""

from __future__ import annotations

import mimetypes
from typing import Any

from starlette.middleware.gzip import GZipMiddleware

mimetypes.add_type("application/manifest+json", ".webmanifest")

#: Cache-Control by path: (prefix, value); the first that matches; pages otherwise.
RULES = [
    ("/api/", "no-store"),
    ("/static/", "public, max-age=3600"),
    ("/favicon.ico", "public, max-age=3600"),
]
PAGES = "no-cache"


def cache_control(path: str) -> str:
    """The ``Cache-Control`` a response to ``path`` gets when it sets none itself."""
    return next((value for prefix, value in RULES if path.startswith(prefix)), PAGES)


class CacheHeaders:
    """ASGI middleware: adds :func:`cache_control`'s header to responses that have none."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        value = cache_control(scope.get("path", "")).encode()

        async def send_with_header(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                if not any(k.lower() == b"cache-control" for k, _ in headers):
                    headers.append((b"cache-control", value))
                    message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_header)


def install(app: Any) -> None:
    """Compress and label the responses of ``app`` (see the module's text)."""
    app.add_middleware(CacheHeaders)
    app.add_middleware(GZipMiddleware, minimum_size=500)
