"""The held-out suite: rulesets the agent for any ruleset (``ppo:checkpoints/any``) never trains on,
to measure how it plays rules it never saw against perfect play.

The suite is the TOML files of ``train/suite/`` (its README says what each varies). Each is a
two-player ruleset that the exact game solver solves (``zilch solve --ruleset FILE --objective win``,
6 seconds to 3.3 minutes each here) and that the training distribution never draws: each has a rule value
outside :func:`zilch_env.rules.distribution.reachable` (:func:`zilch_env.rules.distribution.outside_distribution`
names it; ``tests/train/test_held_out.py`` checks it from the sampler's own grids). The training
scripts refuse them: :func:`refuse_held_out` is called on every ruleset ``train/ppo.py``,
``train/teach.py`` and ``train/teach_any.py`` train on, and on every ruleset of the pool of
``train/ppo.py --ruleset any``. ``train/generalist_eval.py --suite`` measures an agent on them.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import NamedTuple

from zilch_env import Ruleset, load_ruleset

__all__ = ["SUITE_DIR", "SuiteRuleset", "suite", "held_out_name", "refuse_held_out"]

#: The folder of the suite's ruleset files.
SUITE_DIR = Path(__file__).resolve().parent / "suite"


class SuiteRuleset(NamedTuple):
    """One ruleset of the suite: its short name (the file's stem), its file and its rules."""

    name: str
    path: Path
    ruleset: Ruleset


def suite(directory: Path | None = None) -> list[SuiteRuleset]:
    """The suite's rulesets, by file name (``directory`` defaults to :data:`SUITE_DIR`)."""
    d = Path(directory) if directory is not None else SUITE_DIR
    files = sorted(d.glob("*.toml"))
    if not files:
        raise FileNotFoundError(f"{d}: no ruleset file (*.toml) of the held-out suite")
    return [SuiteRuleset(f.stem, f, load_ruleset(str(f))) for f in files]


def _rules_key(rs: Ruleset) -> str:
    """The rules of ``rs`` without its name, as canonical text."""
    data = rs.to_dict()
    data.pop("name", None)
    return json.dumps(data, sort_keys=True)


@functools.lru_cache(maxsize=1)
def _suite_keys() -> dict[str, str]:
    """The suite's rules (:func:`_rules_key`) -> file stem, read once per process."""
    return {_rules_key(s.ruleset): s.name for s in suite()}


def held_out_name(rs: Ruleset) -> str | None:
    """The suite ruleset whose rules ``rs`` are (whatever its name), or None."""
    return _suite_keys().get(_rules_key(rs))


def refuse_held_out(rs: Ruleset, what: str = "the ruleset") -> None:
    """``SystemExit`` naming the suite file when ``rs`` has the rules of a held-out ruleset: no
    training script learns from them."""
    name = held_out_name(rs)
    if name is not None:
        raise SystemExit(f"{what} ({rs.name}) has the rules of the held-out suite's {name!r} "
                         f"({SUITE_DIR / (name + '.toml')}): held out of training, only "
                         "train/generalist_eval.py --suite plays it")
