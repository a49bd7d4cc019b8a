"""The web game's pages: the single page of the game (``/``, ``/g/{id}``), its service worker and icon,
and the rules pages of a preset (with ``set.KEY=VALUE`` overrides) and of a stored game, in the
player's language (:mod:`zilch_web.words`); every response gzipped with ``Cache-Control`` (:mod:`zilch_web.assets`)."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse

from zilch_env import PRESETS, load_ruleset
from zilch_web.assets import install as compress_and_cache
from zilch_web.rules_page import _page, _rules_html
from zilch_web.setup_form import LOAD_ERRORS, parse_value, rules_message
from zilch_web.words import Words, request_lang

STATIC = Path(__file__).with_name("static")


def add_pages(app: FastAPI, store: Any) -> None:
    """Add the pages to ``app``; ``store`` (a :class:`~zilch_web.store.GameStore`) holds the games."""

    compress_and_cache(app)

    @app.get("/sw.js", include_in_schema=False)
    def service_worker() -> FileResponse:
        """The service worker (static/sw.js), served from the root so that it may serve every page."""
        return FileResponse(STATIC / "sw.js", media_type="text/javascript", headers={"Cache-Control": "no-cache"})

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/g/{game_id}", include_in_schema=False)
    def game_page(game_id: str) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/g/{game_id}/review", include_in_schema=False)
    def review_page(game_id: str) -> FileResponse:
        """The review of a game (static/review.js shows it)."""
        return FileResponse(STATIC / "index.html")

    @app.get("/history", include_in_schema=False)
    def history_page() -> FileResponse:
        """This device's statistics and past games (static/history.js)."""
        return FileResponse(STATIC / "index.html")

    @app.get("/rules/{preset}", include_in_schema=False, response_class=HTMLResponse)
    def rules_page(preset: str, request: Request) -> HTMLResponse:
        w = Words(request_lang(request))
        if preset not in PRESETS:
            return _said(_page(w.t("rules.unknown.title"), "<p>" + html.escape(w.t(
                "rules.unknown", name=preset, presets=", ".join(PRESETS))) + "</p>", w), 404)
        overrides: dict[str, Any] = {}
        try:
            overrides = {k[4:]: parse_value(k[4:], v) for k, v in request.query_params.items() if k.startswith("set.")}
            rs = load_ruleset(preset, overrides or None)
            return _said(_rules_html(rs, back="/", w=w))
        except LOAD_ERRORS as e:
            return _said(_page(w.t("rules.bad.title"), f"<p>{html.escape(rules_message(e, overrides))}</p>", w), 422)

    @app.get("/g/{game_id}/rules", include_in_schema=False, response_class=HTMLResponse)
    def game_rules_page(game_id: str, request: Request) -> HTMLResponse:
        w = Words(request_lang(request))
        table = store.load(game_id)
        if table is None:
            return _said(_page(w.t("rules.unknownGame.title"), f"<p>{html.escape(w.t('rules.unknownGame'))}</p>"
                               f"<p><a href='/'>{html.escape(w.t('over.new'))}</a></p>", w), 404)
        return _said(_rules_html(table.ruleset, back=f"/g/{game_id}", w=w))


def _said(page: str, status: int = 200) -> HTMLResponse:
    """A rules page: its language follows ?lang=, the zilchLang cookie and Accept-Language, so a
    cache keeps one copy per cookie and language (``Vary``)."""
    return HTMLResponse(page, status_code=status, headers={"Vary": "Cookie, Accept-Language"})
