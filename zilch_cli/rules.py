"""``zilch rules RULESET``: print a ruleset as a complete TOML file (or a readable summary)."""

from __future__ import annotations

import argparse

from zilch_cli import ruleset_from_args


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("rules", help="print a ruleset",
                       description="Print a ruleset as a complete TOML file: a preset, or a file "
                       "with its extends chain and --set overrides resolved. Save it, edit it, and "
                       "pass the file to --ruleset.")
    p.add_argument("ruleset", help="preset name (zilch, zilch15k, zilch10k, zilch5k, farkle, "
                   "farkle-basic, zonk, zonk20k, cardgames) or TOML file")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a rule by dotted key (repeatable)")
    p.add_argument("--summary", action="store_true", help="a readable summary instead of TOML")
    p.add_argument("--fingerprint", action="store_true",
                   help="print the rules' fingerprint instead: the SHA-256 of the TOML without its name "
                   "line, which every environment's info carries as rules_fingerprint (cite it with the "
                   "environment id)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from zilch_env.rules.load import ruleset_fingerprint, ruleset_to_toml
    from zilch_env.engine.text import rules_summary

    rs = ruleset_from_args(args)
    if args.fingerprint:
        print(ruleset_fingerprint(rs))
        return 0
    print(rules_summary(rs) if args.summary else ruleset_to_toml(rs), end="" if not args.summary else "\n")
    return 0
