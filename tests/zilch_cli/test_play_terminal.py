"""The terminal game (``zilch play``) with scripted input: the screen, every kind of input (keep and
roll, keep and bank, a refused bank, nonsense, ``?``, ``r``, ``q``, end of input), hot seat, a whole
game against the computer, and the command line itself in a subprocess."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from agents.base import register_agent
from zilch_cli.play import TerminalGame
from zilch_env import GreedyMover, load_ruleset
from zilch_web.table import Seat, Table

register_agent("test-greedy", lambda rs, arg: GreedyMover(), "GreedyMover, for the terminal tests")
ROOT = Path(__file__).resolve().parents[2]


def run_script(table, lines):
    """Play ``table`` with input ``lines`` (then the end of input); returns the transcript."""
    out = io.StringIO()
    feed = iter(lines)

    def read(prompt):
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    game = TerminalGame(table, console=Console(file=out, width=200, color_system=None), read=read)
    assert game.play() == 0
    return out.getvalue()


def test_screen_keeps_and_inputs():
    table = Table("zonk", [Seat("Ann"), Seat("", "test-greedy")], seed=3)
    g = table.state
    options = table.keep_options()
    first_total = options[0]["total"]
    text = run_script(table, ["x", "99", "1b", "?", "rules", "1", "q"])
    # The screen: scores, the rule that applies, the roll, the numbered keeps.
    assert "Ann" in text and "CPU" in text and "not on the board" in text
    assert "your first bank needs 500" in text
    assert "Ann rolls" in text and "turn total 0" in text
    for i, o in enumerate(options, 1):
        assert f"{i}  {' '.join(map(str, o['dice']))}" in text
    # Nonsense and a refused bank say what is allowed and why.
    assert "'x' is not a choice" in text and "'99' is not a choice" in text
    assert f"Banking is not allowed after keep 1: bank refused: a turn total of {first_total} is below the entry threshold 500" in text
    # ? shows the solver's best move with expected values; "rules" the rules; q leaves.
    assert "Best: keep" in text and "expect" in text and "Exact turn solver" in text
    assert "Each turn starts by rolling all dice" in text
    assert "Ann keeps" in text
    assert "Game left after" in text
    assert g.actions[0] == options[0]["roll"]


def test_a_whole_game_against_the_computer():
    table = Table(load_ruleset("zonk", {"target": 1000}), [Seat("you"), Seat("", "test-greedy")], seed=5)
    out = io.StringIO()

    def read(prompt):  # a human who keeps the most points and banks from 400
        opts = table.keep_options()
        best = max(range(len(opts)), key=lambda i: (opts[i]["points"], opts[i]["n"]))
        o = opts[best]
        return f"{best + 1}b" if o["bank"] is not None and o["total"] >= 400 else f"{best + 1}"

    game = TerminalGame(table, console=Console(file=out, width=200, color_system=None), read=read)
    assert game.play() == 0
    text = out.getvalue()
    assert table.done
    assert "Final standings" in text and "★" in text
    assert "you keep " in text and "you keeps" not in text  # a player called "you" is addressed as such
    assert "CPU (test-greedy) keeps" in text and "CPU (test-greedy) rolls" in text  # the computer's steps
    assert "reached 1000" in text and "every other player gets one more turn" in text
    w = table.state.winners[0]
    assert f"{table.names[w]}" in text.split("Final standings")[1].splitlines()[2]


def test_last_turn_rules_are_shown():
    rs = load_ruleset("zonk", {"target": 300, "entry_threshold": 0})
    for seed in range(50):  # a game where the computer reaches the target in its first turn
        table = Table(rs, [Seat("", "test-greedy"), Seat("Bea")], seed=seed)
        table.play_cpu()
        if not table.done and table.state.final_queue is not None:
            break
    else:  # pragma: no cover
        raise AssertionError("no seed below 50 lets the computer reach 300 first")
    assert any("This is your last turn" in n for n in table.notes()), table.notes()
    text = run_script(table, ["q"])
    assert "reached 300: every other player gets one more turn" in text
    assert "Last turns: CPU (test-greedy) has" in text and "Still to play: Bea" in text
    assert "This is your last turn" in text


def test_all_scoring_single_keep_takes_r_and_b():
    table = Table("zilch", [Seat("Ann"), Seat("Bob")], seed=4)
    assert len(table.keep_options()) == 1
    text = run_script(table, ["r", "q"])
    assert "Ann keeps" in text


def test_turn_start_choices_and_hot_seat_banner():
    rs = load_ruleset("zonk", {"variants.piggyback": True, "entry_threshold": 0})
    table = Table(rs, [Seat("Ann"), Seat("Bob")], seed=2)
    o = min(table.keep_options(), key=lambda o: o["n"])
    i = table.keep_options().index(o) + 1
    text = run_script(table, [f"{i}b", "7", "?", "1", "q"])
    assert "Ann's turn" in text and "Bob's turn" in text
    assert "Before rolling: 1 piggyback on" in text or "Before rolling: 1 roll fresh dice" in text
    assert "'7' is not a choice: type 1-2" in text
    assert "Best:" in text


def test_end_of_input_leaves_quietly():
    table = Table("farkle", [Seat("Ann"), Seat("", "test-greedy")], seed=1)
    text = run_script(table, [])
    assert "Game left after 0 turns" in text


def _cli(args, stdin=""):
    env = dict(os.environ, COLUMNS="100")
    return subprocess.run([sys.executable, "-m", "zilch_cli", "play", *args], input=stdin, text=True,
                          capture_output=True, cwd=ROOT, env=env, timeout=120)


def test_cli_hot_seat_game_is_seeded():
    script = "\n".join(["1b", "1"] * 300) + "\n"
    args = ["--players", "ann,bob", "--seed", "7", "--set", "target=500", "--set", "entry_threshold=0"]
    a = _cli(args, script)
    assert a.returncode == 0, a.stderr
    assert "ann's turn" in a.stdout and "bob's turn" in a.stdout
    assert "Final standings" in a.stdout
    b = _cli(args, script)
    assert a.stdout == b.stdout, "the same seed and input give the same game"


def test_cli_refuses_bad_players(capsys):
    """Refused before a game starts, with exit status 2 (in this process: ``zilch_cli.main``, as the
    seeded games above run it in a subprocess)."""
    from zilch_cli import main

    for args, words in ((["--players", "you,cpu:no-such-agent"], "unknown agent 'no-such-agent'"),
                        (["--players", "you,,bob"], "comma-separated names"),
                        (["--players", "ann,Ann"], "different name"),
                        (["--players", "a,b,c,d,e,f,g"], "1 to 6 players"),
                        (["--ruleset", "zonk", "--set", "target=lots"], "target")):
        try:
            code = main(["play", *args])
        except SystemExit as e:  # argparse's own errors
            code = e.code
        assert code == 2 and words in capsys.readouterr().err, args
