"""``zilch review RECORD.json [--json]``: the review of a finished (or unfinished) game from its record:
every decision against the best move, the luck of every roll, and each player's accuracy and score
(:func:`agents.evaluate.review.review_record`; the figures are defined in docs/review.md)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from zilch_cli import answer

EPILOG = """\
The figures:
  measure     win chance (the solved two-player game, where a table is stored for the record's
              rules: `zilch solve --objective win` builds one), else the expected points of the
              turn (the turn solver); the report says why when it is points.
  loss        what a move gave up: the value of the best move minus that of the move made, in
              the mover's view (0 for a best move). Every decision also shows the other measure
              where it can be computed.
  luck        what a roll did to the roller's value: the value just after it (the best move it
              leads to, or after a zilch the next turn's start / the points the turn records)
              minus the value just before it (the average over the rolls the dice can give).
  accuracy    a player's mean loss per valued decision.
  score       100 * 2 ** (-accuracy / H), H = 1 percentage point of win chance (or 25 expected
              points): 100 when every move was best, 50 at H per decision, 25 at 2 H.
  luck, play  per player: under win chance, start + luck + play = result (1 win, 0 loss, 1/2
              draw), luck summing every roll of the game for that player and play every decision
              (its own losses count against it, its opponent's for it); under points, the same per
              turn: expected points at the turn's first roll + luck + play = points recorded.
Turn-start decisions (challenge, piggyback) and rules a solver does not handle are marked not
valued, with the reason. A record that does not replay (an illegal action, a roll too many or too
few, final scores it does not reach) or whose dice do not follow from its revealed seed (a web
game's record) is refused with the reason, exit status 2.

Example: zilch review game.json; zilch review game.json --json > review.json
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "review", help="review a game from its record: every decision against the best move, the luck of "
        "every roll, each player's accuracy",
        description="Review a game record (GameState.to_record, `zilch play --record`, or the web game's "
        "GET /api/games/ID/record): every decision of every player with the move made, the best move "
        "and what the move gave up; the luck of every roll; per player an accuracy, a 0-100 score, how "
        "much of the result was luck and how much play, and the three costliest mistakes.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("record", metavar="RECORD.json", help="the game record (JSON)")
    p.add_argument("--json", action="store_true",
                   help="print the review as JSON (format zilch-rl/review/1: decisions, rolls, seats, win_line)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from zilch_env import RecordError
    from zilch_web.fair import VerifyError, read_record

    try:
        record = read_record(args.record)
    except VerifyError as e:
        print(f"zilch review: error: {e}", file=sys.stderr)
        return 2
    return answer("review", lambda: _review(args.record, record), (RecordError, VerifyError), _print, args.json)


def _review(path: str, record: Any) -> dict[str, Any]:
    """The review of ``record`` as plain data; a web game's record whose seed is revealed is first
    checked against its seed and commitment (:func:`zilch_web.fair.verify_record`)."""
    from zilch_env import RecordError
    from zilch_web.fair import VerifyError, verify_record

    from agents.evaluate.review import review_record
    from agents.progress import Progress

    if not isinstance(record, dict):
        raise RecordError(f"{path}: a game record is a JSON object, not {type(record).__name__}")
    if isinstance(record.get("dice"), dict) and record["dice"].get("seed") is not None:
        try:
            verify_record(record)
        except VerifyError as e:
            raise RecordError(f"{path}: its dice do not follow from its revealed seed: {e}") from None
    actions = record.get("actions")
    total = len(actions) if isinstance(actions, list) else 0
    bar = Progress(total > 0, delay=1.0, transient=True)
    task = bar.add("review", total=total, info="decisions")
    try:
        review = review_record(record, progress=lambda done, total: bar.update(task, completed=done))
    except RecordError as e:
        raise RecordError(f"{path}: the record does not replay: {e}") from None
    finally:
        bar.close()
    return review.to_dict()


def _fmt(measure: str, x: float | None, signed: bool = False) -> str:
    """A value, luck or loss in the measure's unit: percentage points of win chance, or points."""
    if x is None:
        return "-"
    if measure == "win":
        return f"{100 * x:+.2f}%" if signed else f"{100 * x:.2f}%"
    return f"{x:+.1f}" if signed else f"{x:.1f}"


def _print(data: dict[str, Any]) -> None:
    m = data["measure"]
    names = data["players"]
    print(f"Review of a {data['ruleset']} game, {data['num_players']} players: "
          + ", ".join(f"{n} {s}" for n, s in zip(names, data["scores"]))
          + (f"; {_outcome(data)}" if data["winners"] is not None else "; not over"))
    if m == "win":
        print("Measure: win chance (the solved two-player game): values, luck and losses in percentage points")
    else:
        print(f"Measure: expected points of the turn (the turn solver), because {data['why_points']}")
    if data["why_no_points"]:
        print(f"  note: {data['why_no_points']}")
    print()
    _print_moves(data, m, names)
    print()
    unit = "win chance" if m == "win" else "expected points"
    print(f"Players (accuracy = mean {unit} given up per decision; score = 100 * 2^(-accuracy / "
          f"{_fmt(m, data['half_loss'])}), 100 = every move best):")
    for s in data["seats"]:
        _print_seat(s, m)


def _outcome(data: dict[str, Any]) -> str:
    w = data["winners"]
    names = data["players"]
    if len(w) > 1:
        return "a draw between " + " and ".join(names[q] for q in w)
    return f"won by {names[w[0]]}"


def _print_moves(data: dict[str, Any], m: str, names: list[str]) -> None:
    """Every roll with its luck, and under it the decision it led to with its loss and the best move."""
    by_roll: dict[int, list] = {}
    starts: dict[int, list] = {}
    for d in data["decisions"]:
        if d["roll_index"] is None:
            starts.setdefault(d["turn"], []).append(d)
        else:
            by_roll.setdefault(d["roll_index"], []).append(d)
    width = max((len(n) for n in names), default=2)
    shown_start: set[int] = set()
    for r in data["rolls"]:
        if r["turn"] not in shown_start:
            shown_start.add(r["turn"])
            for d in starts.get(r["turn"], ()):
                print(f"  #{d['index'] + 1:<3} {names[d['seat']]:<{width}}  {d['move']}: not valued "
                      f"({d['not_valued'].get(m, '')})")
        dice = " ".join(map(str, r["dice"]))
        luck = r[f"{m}_luck"]
        tail = "  zilch" if r["zilch"] else ""
        print(f"       {names[r['seat']]:<{width}}  rolled {dice:<11} luck {_fmt(m, luck, True):>8}{tail}")
        for d in by_roll.get(r["index"], ()):
            v = d[m]
            if v is None:
                print(f"  #{d['index'] + 1:<3} {'':<{width}}    {d['move']}: not valued ({d['not_valued'].get(m, '')})")
            elif v["loss"] > 0:
                print(f"  #{d['index'] + 1:<3} {'':<{width}}    {d['move']:<38} gave up {_fmt(m, v['loss'])}; "
                      f"best: {v['best_move']}")
            else:
                print(f"  #{d['index'] + 1:<3} {'':<{width}}    {d['move']:<38} best")


def _print_seat(s: dict[str, Any], m: str) -> None:
    if s["accuracy"] is None:
        print(f"  {s['name']}: no valued decision ({s['decisions']} decisions)")
        return
    print(f"  {s['name']}: score {s['score']:.0f}, accuracy {_fmt(m, s['accuracy'])} per decision over "
          f"{s['valued']} valued decisions of {s['decisions']}; {_fmt(m, s['lost'])} given up in all")
    if m == "win":
        result = "-" if s["result"] is None else {1.0: "won", 0.0: "lost"}.get(s["result"], "drew")
        print(f"    win chance {_fmt(m, s['start'])} at the start, luck {_fmt(m, s['luck'], True)}, play "
              f"{_fmt(m, s['play'], True)} -> {result}")
    else:
        print(f"    expected {_fmt(m, s['start'])} points over its valued turns, luck {_fmt(m, s['luck'], True)}, "
              f"play {_fmt(m, s['play'], True)} -> {_fmt(m, s['result'])} points recorded")
    for k in s["mistakes"]:
        print(f"    #{k['index'] + 1} {k['move']}: gave up {_fmt(m, k['loss'])} ({_fmt(m, k['value'])}); "
              f"better {k['best_move']} ({_fmt(m, k['best'])})")
