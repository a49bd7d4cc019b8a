"""``zilch verify RECORD.json``: check that every roll of a finished web game follows from its
revealed seed, and that the seed is the one the game committed to at its start (:mod:`zilch_web.fair`)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "verify", help="check that a web game's dice follow from its revealed seed",
        description="Check a web game's record (the 'Download the game record' link at the end of a "
        "game, or GET /api/games/ID/record): the commitment shown at the start of the game must be "
        "the SHA-256 of 'zilch-rl/dice/1:KIND:SEED' for the seed revealed at its end, and replaying "
        "the record's actions under its rules with the dice rolled from that seed must give every roll "
        "and the final scores of the record. Prints OK with a short summary (exit 0), or the first "
        "roll or field that does not follow (exit 1); a file that cannot be read is exit 2.")
    p.add_argument("record", metavar="RECORD.json", help="the game record, as the web game downloads it")
    p.add_argument("--json", action="store_true", help="the result as JSON ({ok, ...} or {ok: false, error})")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json
    import sys

    from zilch_web.fair import VerifyError, read_record, verify_record

    try:
        record = read_record(args.record)
    except VerifyError as e:
        print(f"zilch verify: error: {e}", file=sys.stderr)
        return 2
    try:
        got = verify_record(record)
    except VerifyError as e:
        if args.json:
            print(json.dumps({"ok": False, "record": args.record, "error": str(e)}, indent=2))
        else:
            print(f"zilch verify: {args.record}: FAILED: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"record": args.record, **got}, indent=2))
        return 0
    names = [got["players"][q] for q in got["winners"]]
    won = f"a draw between {' and '.join(names)}" if len(names) > 1 else f"won by {names[0] if names else 'nobody'}"
    print(f"OK: {args.record}: all {got['rolls']} rolls follow from seed {got['seed']} "
          f"({got['kind']} dice{', chosen for practice' if got['practice'] else ''}), whose SHA-256 is the "
          f"commitment {got['commitment']}")
    print(f"  {got['ruleset']} to {got['target']}, {len(got['players'])} players "
          f"({', '.join(got['players'])}), {got['actions']} actions replayed; "
          f"scores {' '.join(map(str, got['scores']))}, {won}")
    return 0
