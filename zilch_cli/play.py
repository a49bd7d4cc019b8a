"""``zilch play --ruleset zonk --players you,cpu``: play in the terminal, against the computer or
friends at one keyboard (hot seat).

Each decision shows the scores, the rules that apply now (entry threshold, minimum bank, the last
turns of the game, ...), the dice and every legal keep, numbered, with its points, the turn total
after it and whether banking is allowed. Type ``3`` to keep choice 3 and roll the dice left, ``3b``
to keep it and bank; ``?`` asks the exact turn solver for the best move and the expected points of
each choice; ``rules`` prints the rules; ``q`` leaves the game. When a roll has only one keep (``keep =
"all_scoring"``), ``r`` rolls on and ``b`` banks. The computer players' moves are shown
step by step.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from zilch_cli import add_ruleset_args, output_file_problem, ruleset_from_args, seconds_arg, seed_arg

FACES = "⚀⚁⚂⚃⚄⚅"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "play", help="play a game in the terminal (against the computer or hot seat)",
        description="Play Zilch in the terminal. Players are named in turn order: 'cpu' or 'cpu:SPEC' "
        "(an agent spec, e.g. cpu:heuristic or cpu:optimal-turn) is a computer player, any other "
        "name a person at this keyboard. At each roll type N to keep choice N and roll on, Nb to "
        "keep it and bank (r or b alone when there is one keep), ? for the best move by the exact "
        "turn solver, 'rules' for the rules, q to quit.",
        epilog="Example: zilch play --ruleset farkle --players ann,bob,cpu:heuristic --set target=5000")
    add_ruleset_args(p)
    p.add_argument("--players", "-p", default="you,cpu", metavar="NAMES",
                   help="comma-separated players in turn order (default: you,cpu); 'cpu' or 'cpu:SPEC' "
                   "is a computer player (a bare 'cpu' plays the trained agent of the rules, "
                   "ppo:checkpoints/<preset>, where there is one, else the agent for any ruleset, "
                   "ppo:checkpoints/any, else the 'heuristic' agent)")
    p.add_argument("--seed", type=seed_arg, default=None, help="dice seed (default: a random one; the "
                   "same seed and moves give the same game)")
    p.add_argument("--delay", type=seconds_arg, default=None, metavar="SECONDS",
                   help="pause between the computer's steps (default: 0.5 on a terminal, 0 otherwise)")
    p.add_argument("--record", metavar="FILE", help="write the JSON game record to FILE at the end (its folder must exist; checked "
                   "before the game starts; written whole or not at all)")
    p.set_defaults(func=run)


def _dice(n: int) -> str:
    return f"{n} {'die' if n == 1 else 'dice'}"


def _seat_name(seat: Any, long: bool = False) -> str:
    """A seat's name, marked as a computer player unless the name already says so."""
    if not seat.is_cpu or seat.name.lower().startswith("cpu"):
        return seat.name
    return f"{seat.name} (computer: {seat.cpu})" if long else f"{seat.name} (cpu)"


class Quit(Exception):
    """The player typed q (or the input ended)."""


def run(args: argparse.Namespace) -> int:
    from agents.base import AgentSpecError
    from zilch_web.levels import default_cpu
    from zilch_web.table import Table, TableError
    from zilch_web.seats import parse_players

    rs = ruleset_from_args(args)
    if args.record and (problem := output_file_problem("--record", args.record)):
        print(f"zilch play: error: {problem}", file=sys.stderr)
        return 2
    try:
        seats = parse_players(args.players, default_cpu=default_cpu(rs))
        table = Table(rs, seats, seed=args.seed)
        for s in seats:  # build the computer players now, so a bad spec fails before the game starts
            if s.cpu:
                from zilch_web.table import cpu_agent

                cpu_agent(s.cpu, rs)
    except (TableError, AgentSpecError) as e:
        print(f"zilch play: error: {e}", file=sys.stderr)
        return 2
    delay = args.delay if args.delay is not None else (0.5 if sys.stdout.isatty() else 0.0)
    game = TerminalGame(table, delay=delay)
    code = game.play()
    if args.record:
        from zilch_cli import write_record

        status = write_record("play", args.record, table.state.to_record(),
                              lambda p: game.console.print(f"Game record written to {p}"))
        return code or status
    return code


class TerminalGame:
    """The terminal front end of a :class:`~zilch_web.table.Table`."""

    def __init__(self, table: Any, delay: float = 0.0, console: Any = None, read: Any = None):
        from rich.console import Console

        self.table = table
        self.delay = delay
        self.console = console or Console(highlight=False)
        self.read = read or self._read
        self.shown = 0  # events printed so far
        self.last_human: int | None = None
        self.last_board: tuple[int, int] | None = None

    # ---------------------------------------------------------------- the loop

    def play(self) -> int:
        t, c = self.table, self.console
        rs = t.ruleset
        c.rule(f"[bold]Zilch: {rs.name}[/], first to {rs.target}")
        c.print("Players: " + ", ".join(_seat_name(s, long=True) for s in t.seats)
                + ". Type 'rules' for the rules, ? for a hint.")
        try:
            while True:
                self.show_events()
                if t.done:
                    break
                if not t.human_to_move():
                    t.apply(t.cpu_action())
                    continue
                self.turn()
        except Quit:
            c.print(f"\nGame left after {len(t.state.turns)} turns. Scores: "
                    + ", ".join(f"{n} {s}" for n, s in zip(t.names, t.state.scores)))
            return 0
        self.final()
        return 0

    def show_events(self) -> None:
        """Print the events not shown yet; the computer's steps one at a time."""
        t = self.table
        for e in t.events[self.shown:]:
            cpu = e["seat"] is not None and t.seats[e["seat"]].is_cpu
            style = {"zilch": "red", "penalty": "red", "bank": "bold green", "final_round": "bold yellow",
                     "game_over": "bold", "tiebreak": "bold yellow", "challenge_result": "red"}.get(e["kind"], "")
            if e["kind"] == "roll" and not cpu:
                continue  # the player's own roll is shown on their screen
            if cpu and self.delay:
                time.sleep(self.delay)
            text = e["text"]
            if e["kind"] in ("roll", "zilch", "bonus"):
                text += "   " + " ".join(FACES[d - 1] for d in e["dice"])
            self.console.print(f"  [{style}]{text}[/]" if style else f"  {text}")
        self.shown = len(t.events)

    def turn(self) -> None:
        """One decision of the human to move: show the position, read a choice, apply it."""
        from zilch_env import IllegalActionError, Phase

        t, c = self.table, self.console
        g = t.state
        q = g.current
        if len(t.humans) > 1 and self.last_human != q:
            c.rule(f"[bold]{t.names[q]}'s turn[/]")
        self.last_human = q
        where = (len(g.turns), q)
        if where != self.last_board:  # the scores at the start of each turn; the rules that apply at each decision
            self.board()
            self.last_board = where
        for n in t.notes():
            c.print(f"[yellow]• {n}[/]")
        if g.phase == Phase.KEEP:
            options = t.keep_options()
            self.show_keeps(options)
            n = len(options)
            many = f"1-{n}" if n > 1 else "1"
            prompt = (f"{many} keep and roll, {many.replace('-', 'b-')}b keep and bank"
                      if n > 1 else "1 (or r) keep and roll, 1b (or b) keep and bank")
        else:
            choices = t.choices()
            c.print(("Before rolling: " if g.phase == Phase.PIGGYBACK else "Turn start: ")
                    + "   ".join(f"[bold]{i}[/] {ch['label']}" for i, ch in enumerate(choices, 1)))
            prompt = f"1-{len(choices)} choose"
        while True:
            line = self.ask(f"{prompt}; ? hint, rules, q quit")
            if g.phase == Phase.KEEP:
                action = self.parse_keep(line, options)
            else:
                action = self.parse_choice(line, choices)
            if action is None:
                continue
            try:
                t.apply(action)
            except IllegalActionError as e:  # pragma: no cover - the menus only offer legal actions
                c.print(f"[red]Not allowed: {e}[/]")
                continue
            return

    # ---------------------------------------------------------------- screens

    def board(self) -> None:
        from rich.table import Table as RichTable

        t, c = self.table, self.console
        g = t.state
        tab = RichTable(show_header=True, header_style="bold", box=None, pad_edge=False)
        tab.add_column("")
        tab.add_column("player")
        tab.add_column("score", justify="right")
        tab.add_column("")
        for q, s in enumerate(t.seats):
            tab.add_row("▶" if q == g.current else "", _seat_name(s),
                        str(g.scores[q]), "" if g.on_board[q] else "not on the board")
        c.print()
        c.print(tab)

    def show_keeps(self, options: list[dict[str, Any]]) -> None:
        from rich.table import Table as RichTable

        t, c = self.table, self.console
        g = t.state
        dice = "  ".join(f"{FACES[d - 1]} {d}" for d in g.roll)
        c.print(f"\n[bold]{t.says(g.current, 'rolls')}[/]  {dice}      turn total [bold]{g.turn_total}[/]"
                + (f", {_dice(t.ruleset.dice - g.dice_left)} set aside" if g.dice_left < t.ruleset.dice else ""))
        tab = RichTable(box=None, header_style="bold", pad_edge=False)
        for col, just in (("#", "right"), ("keep", "left"), ("points", "right"), ("turn", "right"),
                          ("then", "left")):
            tab.add_column(col, justify=just)  # type: ignore[arg-type]
        for i, o in enumerate(options, 1):
            roll = f"roll {o['next_roll']}" + (" (hot dice)" if o["hot_dice"] else "")
            then = roll + (f"   or [bold]{i}b[/] bank {o['total']}" if o["bank"] is not None else "")
            tab.add_row(str(i), " ".join(map(str, o["dice"])), str(o["points"]), str(o["total"]), then)
        c.print(tab)

    def final(self) -> None:
        from rich.table import Table as RichTable

        t, c = self.table, self.console
        c.rule("[bold]Final standings[/]")
        tab = RichTable(box=None, header_style="bold", pad_edge=False)
        tab.add_column("place", justify="right")
        tab.add_column("player")
        tab.add_column("score", justify="right")
        for s in t.standings():
            tab.add_row(str(s["place"]), s["name"] + ("  ★" if s["winner"] else ""), str(s["score"]))
        c.print(tab)
        c.print(f"{len(t.state.turns)} turns, seed {t.seed}.")

    # ---------------------------------------------------------------- input

    @staticmethod
    def _read(prompt: str) -> str:
        return input(prompt)

    def ask(self, prompt: str) -> str:
        """A line of input; ``q`` or the end of input quits, ``rules`` and ``?`` answer and ask again."""
        while True:
            try:
                self.console.print(f"{prompt} > ", end="")
                line = self.read("").strip().lower()
            except EOFError:
                self.console.print()
                raise Quit from None
            if not sys.stdin.isatty():
                self.console.print(line)  # echo scripted input so a transcript reads like a session
            if line in ("q", "quit", "exit"):
                raise Quit
            if line == "rules":
                from zilch_env.engine.text import rules_summary

                self.console.print(rules_summary(self.table.ruleset))
                continue
            if line in ("?", "h", "hint"):
                self.hint()
                continue
            if line:
                return line

    def parse_keep(self, line: str, options: list[dict[str, Any]]) -> int | None:
        """``3`` → keep choice 3 and roll; ``3b`` → keep it and bank; ``r`` / ``b`` when there is one keep."""
        text = line.replace(" ", "")
        bank = False
        if text in ("r", "roll", "b", "bank") and len(options) == 1:
            text = "1" + ("b" if text.startswith("b") else "")
        if text.endswith("b"):
            bank, text = True, text[:-1]
        elif text.endswith("r"):
            text = text[:-1]
        n = len(options)
        if not text.isdigit() or not 1 <= int(text) <= n:
            span, bspan = (f"1-{n}", f"1b-{n}b") if n > 1 else ("1", "1b")
            self.console.print(f"[red]{line!r} is not a choice:[/] type {span} to keep and roll on, "
                               f"{bspan} to keep and bank, ? for a hint, q to quit")
            return None
        o = options[int(text) - 1]
        if bank and o["bank"] is None:
            self.console.print(f"[red]Banking is not allowed after keep {int(text)}:[/] "
                               + self.bank_refusal(o))
            return None
        return o["bank"] if bank else o["roll"]

    def bank_refusal(self, o: dict[str, Any]) -> str:
        g = self.table.state
        return g.why_illegal(o["roll"] + 1)

    def parse_choice(self, line: str, choices: list[dict[str, Any]]) -> int | None:
        n = len(choices)
        if not line.isdigit() or not 1 <= int(line) <= n:
            self.console.print(f"[red]{line!r} is not a choice:[/] type 1-{n}, ? for a hint, q to quit")
            return None
        return choices[int(line) - 1]["action"]

    def hint(self) -> None:
        from zilch_web.hints import HintUnavailable, hint_for

        try:
            h = hint_for(self.table)
        except HintUnavailable as e:
            self.console.print(f"[yellow]No hint: {e}[/]")
            return
        c = self.console
        best = h["best"]
        index = ""
        if h["phase"] == "keep":
            opts = self.table.keep_options()
            for i, o in enumerate(opts, 1):
                if best in (o["roll"], o["bank"]):
                    index = f"  (type {i}{'b' if best == o['bank'] else ''})"
        c.print(f"[bold cyan]Best: {h['best_label']}[/]{index}")
        for o in h["options"][:8]:
            c.print(f"  {o['label']:<48} {o['value_text']}")
        if len(h["options"]) > 8:
            c.print(f"  … and {len(h['options']) - 8} more")
        c.print(f"[dim]{h['explain']}[/]")
