"""``zilch serve``: the web game on a phone or a browser (FastAPI and uvicorn: the ``web`` extra).

Open the printed address, pick the rules and the players (people for hot seat, computer players
by level: Easy, Medium, Hard, Perfect) and play. Games are kept in a SQLite file and survive a restart of the server.
"""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve", help="serve the web game (phone-sized pages, games kept in SQLite)",
        description="Serve the web game: a new-game page (rules, variants, people and computer "
        "players), the game itself (tap dice to keep, roll or bank, hints by the exact turn "
        "solver), pass-the-phone screens for hot seat, the rules page and the final standings. "
        "Games are stored in a SQLite file and survive a restart.",
        epilog="Example: zilch serve --port 8000 --db games.sqlite3 --cpu heuristic --cpu optimal-turn. "
        "To play from a phone on your own network, serve on --host 0.0.0.0 and open "
        "http://<this computer's address>:8000/.")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, "
                   "this computer only)")
    p.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    p.add_argument("--db", default="zilch-games.sqlite3", metavar="FILE",
                   help="SQLite file of the games (default: zilch-games.sqlite3 in the working folder)")
    p.add_argument("--cpu", action="append", default=None, metavar="SPEC",
                   help="a computer player to offer (an agent spec such as heuristic, greedy, "
                   "optimal-turn or ppo:PATH); repeat for several. Default: the levels Easy (greedy), "
                   "Medium (heuristic), Hard (the trained agent of the rules, ppo:checkpoints/<preset>, "
                   "else the agent for any ruleset, ppo:checkpoints/any) "
                   "and Perfect (optimal-win, where the solved game of the rules and player count is stored: "
                   "two players, and three, or two under overcoming, once 'zilch solve --objective win "
                   "[--players 3]' has solved them), those that "
                   "can play each game's rules; the trained agent is the default opponent")
    g = p.add_argument_group("limits", "what one client can make the server do (each also read from "
                             "the environment variable named, for servers started without 'zilch serve')")
    g.add_argument("--max-new-games", default=None, metavar="N/SECONDS",
                   help="new games one client address may make per SECONDS; one more is answered 429 with "
                   "Retry-After; 0: no limit (default: 20/60, or $ZILCH_WEB_MAX_NEW_GAMES). Behind a "
                   "reverse proxy the address is its X-Forwarded-For if uvicorn trusts the proxy "
                   "($FORWARDED_ALLOW_IPS, default 127.0.0.1,::1), else the proxy's")
    g.add_argument("--keep-finished", default=None, metavar="DAYS",
                   help="delete a finished game DAYS after its last move; 0: keep for ever "
                   "(default: 7, or $ZILCH_WEB_KEEP_FINISHED)")
    g.add_argument("--keep-abandoned", default=None, metavar="DAYS",
                   help="delete a game still in play DAYS after its last change (a move, a seat claimed or "
                   "given up); 0: keep for ever (default: 30, or $ZILCH_WEB_KEEP_ABANDONED)")
    g.add_argument("--keep-history", default=None, metavar="DAYS",
                   help="a device's history (its statistics and past games, with their records and reviews) "
                   "keeps each game DAYS after its end, after the game itself is deleted; 0: keep for ever "
                   "(default: 365, or $ZILCH_WEB_KEEP_HISTORY)")
    g.add_argument("--hint-seconds", type=float, default=None, metavar="S",
                   help="a hint's solving time budget: a longer solve is stopped and answered 503 "
                   "(default: 10, or $ZILCH_WEB_HINT_SECONDS)")
    g.add_argument("--hint-workers", type=int, default=None, metavar="N",
                   help="hints solved at once, each in its own worker process, off the server's "
                   "requests (default: 1, or $ZILCH_WEB_HINT_WORKERS)")
    p.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"],
                   help="uvicorn's log level (default: info)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from zilch_env.extras import require

    for module in ("fastapi", "uvicorn"):
        require(module, "web", "zilch serve")
    import uvicorn

    from agents.base import AgentSpecError
    from zilch_env import load_ruleset
    from zilch_web.app import create_app
    from zilch_web.table import cpu_agent

    if not 0 < args.port < 65536:
        print(f"zilch serve: error: --port {args.port}: a port is 1 to 65535", file=sys.stderr)
        return 2
    if args.cpu:
        for spec in args.cpu:  # a spec that cannot be built fails now, not in the middle of a game
            try:
                cpu_agent(spec, load_ruleset("zonk"))
            except AgentSpecError as e:
                print(f"zilch serve: error: --cpu {spec}: {e}", file=sys.stderr)
                return 2
    from zilch_web.limits import Limits, parse_days, parse_rate
    from zilch_web.store import StoreError

    try:
        limits = Limits.from_env()
        if getattr(args, "max_new_games", None) is not None:
            limits.new_games, limits.new_games_window = parse_rate(args.max_new_games)
        if getattr(args, "keep_finished", None) is not None:
            limits.keep_finished = parse_days(args.keep_finished, "--keep-finished")
        if getattr(args, "keep_abandoned", None) is not None:
            limits.keep_abandoned = parse_days(args.keep_abandoned, "--keep-abandoned")
        if getattr(args, "keep_history", None) is not None:
            limits.keep_history = parse_days(args.keep_history, "--keep-history")
        if getattr(args, "hint_seconds", None) is not None:
            limits.hint_seconds = args.hint_seconds
        if getattr(args, "hint_workers", None) is not None:
            limits.hint_workers = args.hint_workers
        limits.check()
    except ValueError as e:
        print(f"zilch serve: error: {e}", file=sys.stderr)
        return 2
    try:
        app = create_app(args.db, cpu_specs=args.cpu, limits=limits, freeze_when_warm=True)
    except StoreError as e:
        print(f"zilch serve: error: {e}", file=sys.stderr)
        return 2
    shown = "localhost" if args.host in ("127.0.0.1", "::1") else args.host
    print(f"Zilch: open http://{shown}:{args.port}/   (games in {args.db}; "
          f"computer players: {', '.join(app.state.cpu_specs) or 'none'})", flush=True)
    # open event streams would hold a Ctrl-C shutdown for ever: they are closed after 1 s
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, timeout_graceful_shutdown=1)
    return 0
