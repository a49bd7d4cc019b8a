"""The command line of ``python -m agents.evaluate`` and ``zilch eval`` (the same options).
"""

from __future__ import annotations

import argparse
import sys

from zilch_env import load_ruleset, Ruleset
from zilch_env.engine.game import seed_arg

from agents.evaluate.config import DEFAULT_WORKERS, ENGINES, EvalConfig, LUCK_MODES
from agents.evaluate.dice import ORDER_KINDS
from agents.evaluate.run import evaluate


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Every option of the evaluation except ``--ruleset`` / ``--set`` (each command adds those)."""
    p.add_argument("--agents", "-a", nargs="+", metavar="SPEC",
                   help="agents by spec: a baseline name (random, greedy, greedy:500, heuristic ...), "
                   "a solver (optimal-turn, optimal-win) or ppo:PATH; repeat a spec to seat copies. "
                   "--list-agents shows them all")
    p.add_argument("--games", "-g", type=int, default=2000,
                   help="games per table, rounded up to whole deals; at most 100,000,000 (default: 2000)")
    p.add_argument("--seed", type=seed_arg, default=0,
                   help="seed of the dice and of the agents' choices, 0 or more (default: 0)")
    p.add_argument("--workers", "-j", type=int, default=DEFAULT_WORKERS,
                   help=f"worker processes; results do not depend on it (default: all cores, {DEFAULT_WORKERS})")
    p.add_argument("--ray", action="store_true",
                   help="play the deals as Ray tasks (needs ray[tune]): a local Ray with --workers CPUs, or "
                   "the cluster at --address; the same results as local workers")
    p.add_argument("--address", metavar="ADDR",
                   help="with --ray: a running Ray cluster (auto, HOST:6379 or ray://HOST:10001); default: "
                   "start a local Ray")
    p.add_argument("--players", "-n", type=int, default=2,
                   help="players per game, 2 to 6; every set of that many agents is a table (default: 2)")
    p.add_argument("--orders", choices=ORDER_KINDS, default="auto",
                   help="seat orders each deal is played in, all with the same dice: rotations (N, each agent "
                   "in each seat once, but always in the same cyclic order), permutations (N!, each agent also "
                   "just before and just after every other equally often; orders that seat copies of one "
                   "agent alike are played once) or auto: permutations up to 4 players, rotations for 5 and "
                   "6; the same two orders for 2 players (default: auto)")
    p.add_argument("--solo-turns", type=int, default=20000, metavar="N",
                   help="turns from the board per agent for the solo measure against the exact turn "
                   "optimum; 0 skips it (default: 20000)")
    p.add_argument("--engine", choices=ENGINES, default="auto",
                   help="auto: tables of greedy, random and optimal-turn players (the agents the batched "
                   "engine plays in its kernels) run there, tens of times faster; single: every game on the "
                   "single-game engine (default: auto)")
    p.add_argument("--luck", choices=LUCK_MODES, default="auto",
                   help="luck-adjusted results: each game's result minus the luck of its dice, measured "
                   "with the exact two-player game table (the change of the optimal win chance the dice "
                   "caused at each step, zero on average), so an unbiased share with a much narrower "
                   "interval. auto: on for 2 players when the rules' table is stored (cached or shipped; "
                   "never solved here); on: required, an error says why it cannot be (players, rules, or "
                   "the 'zilch solve --objective win' command to run), and every table then plays on the "
                   "single-game engine; auto leaves the tables the batched engine plays (greedy, random, "
                   "optimal-turn) there, unadjusted; off: never (default: auto)")
    p.add_argument("--anchor", metavar="AGENT",
                   help="the agent rated 0 (default: random if it plays, else mean rating 1500)")
    p.add_argument("--out", "-o", metavar="DIR", help="write report.md, report.json and the PNG plots into DIR "
                   "(made if missing; an existing file or a path no folder can be made at is refused before "
                   "the games are played)")
    p.add_argument("--no-plots", action="store_true", help="with --out, skip the PNG plots")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.add_argument("--list-agents", action="store_true", help="list the agent specs and exit")


def run_from_args(args: argparse.Namespace, ruleset: Ruleset, prog: str) -> int:
    """Run an evaluation from parsed arguments; returns the exit status."""
    from agents.base import AgentSpecError, agent_names

    if args.list_agents:
        import shutil
        import textwrap

        names = agent_names()
        width = max(map(len, names), default=0)
        # the terminal's width, 80 columns in a pipe or a log: each description wrapped beside its name
        columns = shutil.get_terminal_size((80, 24)).columns if sys.stdout.isatty() else 80
        for name, help in names.items():
            lines = textwrap.wrap(help, max(20, columns - width - 2), break_on_hyphens=False) or [""]
            print(f"{name:<{width}}  {lines[0]}")
            for line in lines[1:]:
                print(" " * (width + 2) + line)
        return 0
    if not args.agents:
        print(f"{prog}: error: name the agents with --agents SPEC ... (see --list-agents)", file=sys.stderr)
        return 2
    if args.out and (problem := _out_dir_problem(args.out)):
        print(f"{prog}: error: --out {args.out}: {problem}", file=sys.stderr)
        return 2
    cfg = EvalConfig(agents=args.agents, ruleset=ruleset, games=args.games, seed=args.seed,
                     workers=args.workers, players=args.players, orders=args.orders,
                     solo_turns=args.solo_turns, anchor=args.anchor, engine=args.engine, luck=args.luck,
                     ray=args.ray, address=args.address)
    try:
        report = evaluate(cfg, progress=not args.quiet)
    except (AgentSpecError, ValueError) as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:  # (a worker or a Ray task that failed, or Ray missing)
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 1
    report.print()
    if args.out:
        command = " ".join([prog, *(_quote(a) for a in sys.argv[1:])])
        try:
            paths = report.write(args.out, command=command, plots=not args.no_plots)
        except ImportError as e:
            print(f"{prog}: error: {e}", file=sys.stderr)
            return 2
        except OSError as e:  # (the folder changed since the check: the report above is on the terminal)
            print(f"{prog}: error: --out {args.out}: cannot write the report: {e.strerror or e}", file=sys.stderr)
            return 1
        print(f"written: {', '.join(str(p) for p in paths)}")
    return 0


def _out_dir_problem(out: str) -> str | None:
    """Why the report folder ``--out`` names cannot be written (checked before the games are played),
    or None. A folder that does not exist yet is made, with its parents, when the folder above exists."""
    import os
    from pathlib import Path

    p = Path(out)
    if p.exists() and not p.is_dir():
        return "an existing file, not a folder; --out names the folder the report is written into"
    up = p
    while not up.exists():  # the nearest folder that exists: the new folders are made in it
        if up.parent == up:
            break
        up = up.parent
    if not up.is_dir():
        return f"{up} is a file, so no folder can be made under it"
    if not os.access(up, os.W_OK | os.X_OK):
        return f"no permission to write in {up}"
    return None


def _quote(a: str) -> str:
    import shlex

    return shlex.quote(a)


def main(argv: list[str] | None = None) -> int:
    from zilch_env.rules.schema import RulesetError
    from zilch_env.rules.load import parse_overrides

    p = argparse.ArgumentParser(
        prog="python -m agents.evaluate",
        description="Seat-balanced tournaments between agents with common random numbers: win rates "
        "with Wilson intervals, Elo ratings, points per turn against the exact turn optimum; a table, "
        "Markdown, JSON and PNG plots.",
        epilog="Example: python -m agents.evaluate --ruleset zonk --agents heuristic greedy random "
        "--games 2000 --seed 1 --out reports/zonk",
    )
    p.add_argument("--ruleset", "-r", default="zonk", help="preset name or TOML file (default: zonk)")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a rule by dotted key, e.g. target=20000 or variants.piggyback=true (repeatable)")
    add_arguments(p)
    args = p.parse_args(argv)
    try:
        rs = load_ruleset(args.ruleset, parse_overrides(args.overrides))
    except RulesetError as e:
        print(f"{p.prog}: error: {e}", file=sys.stderr)
        return 2
    try:
        return run_from_args(args, rs, p.prog)
    except KeyboardInterrupt:
        print(f"{p.prog}: interrupted", file=sys.stderr)
        return 130
