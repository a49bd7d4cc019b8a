"""The ``zilch`` command line. Each subcommand lives in its own module of :mod:`zilch_cli`
(``rules``, ``score``, ``simulate``, ...), listed in :data:`COMMANDS`; each module defines
``register(subparsers)`` and a ``run(args)`` it sets as the parser's default ``func``.

The command line sits above every layer (engine, agents, training, web game), so it may import
them all; :mod:`zilch_env` itself never imports it.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from zilch_env.engine.game import seed_arg  # noqa: F401  (the --seed type of every command)

#: Subcommand modules, in the order ``zilch --help`` lists them.
COMMANDS = ["rules", "score", "simulate", "solve", "strategy", "advise", "eval", "play", "serve", "verify", "review"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zilch",
        description="Zilch / Farkle / 10000 / Zonk: rules, scoring, simulation, solvers and games.",
        epilog="Rulesets: a preset (zilch, zilch15k, zilch10k, zilch5k, farkle, farkle-basic, zonk, "
        "zonk20k) or a TOML file; change any rule with --set KEY=VALUE (dotted keys, e.g. "
        "--set target=20000 --set variants.pyramiding=true). 'zilch COMMAND --help' for each command.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        try:
            mod = importlib.import_module(f"zilch_cli.{name}")
        except ModuleNotFoundError as e:
            if e.name == f"zilch_cli.{name}":
                continue  # not built yet
            raise
        mod.register(sub)
    return parser


def add_ruleset_args(p: argparse.ArgumentParser, default: str | None = "zonk") -> None:
    """``--ruleset`` and ``--set``, the same on every command."""
    p.add_argument("--ruleset", "-r", default=default, required=default is None,
                   help="preset name or TOML file" + (f" (default: {default})" if default else ""))
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a rule by dotted key, e.g. target=20000 or variants.piggyback=true "
                   "(repeatable)")


def _interruptible(compute):
    """``compute()`` on a worker thread while this one waits, so that Ctrl-C is answered at once even
    while the work sits in one long compiled call (the solvers' kernels release the interpreter):
    KeyboardInterrupt reaches the caller within a fraction of a second, and the work, whose files
    are written whole (:mod:`agents.files`), is dropped with the process. Its result or exception
    otherwise comes back as if called here."""
    import threading

    out: dict = {}

    def work() -> None:
        try:
            out["value"] = compute()
        except BaseException as e:  # handed to the waiting thread
            out["error"] = e

    t = threading.Thread(target=work, name="zilch-work", daemon=True)
    t.start()
    while t.is_alive():
        t.join(0.1)
    if "error" in out:
        raise out["error"]
    return out["value"]


def answer(command: str, compute, errors: tuple[type[BaseException], ...], show, as_json: bool) -> int:
    """The end of a subcommand that computes one answer: ``compute()``, then the answer as JSON
    (``as_json``) or through ``show``; exit status 0. One of ``errors`` is printed as
    ``zilch COMMAND: error: ...`` with exit status 2."""
    import json

    try:
        data = _interruptible(compute)
    except errors as e:
        print(f"zilch {command}: error: {e}", file=sys.stderr)
        return 2
    if as_json:
        print(json.dumps(data, indent=2))
    else:
        show(data)
    return 0


def seconds_arg(text: str) -> float:
    """argparse type of a pause: seconds, 0 or more (at most an hour)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"{text!r}: a pause is 0 to 3600 seconds")
    return value


def output_file_problem(option: str, path: str) -> str | None:
    """Why a file a command writes at its end (``--record FILE``) cannot be written at ``path``, or
    None: checked before the work starts, so a game is not played for a record that cannot be kept."""
    import os
    from pathlib import Path

    p = Path(path)
    if p.is_dir():
        return f"{option} {path}: a folder, not a file; name a file in it, e.g. {p / 'game.json'}"
    parent = p.parent
    if not parent.exists():
        return f"{option} {path}: the folder {parent} does not exist; create it first or name another file"
    if not parent.is_dir():
        return f"{option} {path}: {parent} is not a folder"
    if not os.access(parent, os.W_OK | os.X_OK) or (p.exists() and not os.access(p, os.W_OK)):
        return f"{option} {path}: no permission to write {'it' if p.exists() else 'in ' + str(parent)}"
    return None


def write_record(command: str, path: str, record: dict, say) -> int:
    """Write a game record whole (:func:`agents.files.write_text_whole`); when that fails, say why and
    print the record on standard output so the game is not lost. Returns the exit status."""
    import json

    from agents.files import write_text_whole

    text = json.dumps(record)
    try:
        write_text_whole(path, text)
    except OSError as e:
        print(f"zilch {command}: error: --record {path}: cannot write it: {e.strerror or e}; the record "
              f"follows on standard output", file=sys.stderr)
        print(text)
        return 1
    say(path)
    return 0


def ruleset_from_args(args: argparse.Namespace):
    from zilch_env.rules.load import load_ruleset, parse_overrides

    return load_ruleset(args.ruleset, parse_overrides(args.overrides))


def main(argv: list[str] | None = None) -> int:
    import signal

    from zilch_env.extras import MissingExtraError
    from zilch_env.rules.schema import RulesetError

    # `zilch simulate | head` ends quietly; the old handler comes back when main returns, so a
    # program (or a test) that calls main in-process keeps its own SIGPIPE handling
    pipe = getattr(signal, "SIGPIPE", None)
    old = signal.signal(pipe, signal.SIG_DFL) if pipe is not None else None
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        try:
            return int(args.func(args) or 0)
        except (RulesetError, MissingExtraError) as e:  # (a feature whose extra is not installed)
            print(f"zilch {args.command}: error: {e}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print(f"zilch {args.command}: interrupted", file=sys.stderr)
            return 130
    finally:
        if pipe is not None:
            signal.signal(pipe, old)


if __name__ == "__main__":
    sys.exit(main())
