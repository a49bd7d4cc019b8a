"""The trials of a training sweep (``train/sweep.py``): the grid of ``train/ppo.py`` options given on
the command line, the trials it makes (every ruleset, seed and grid point), their flags and state."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import itertools
import json
import re
import shlex
from pathlib import Path
from typing import Any
from train import ppo


#: ``train/ppo.py`` arguments the sweep sets for every trial (they cannot be a grid).
RESERVED = {"ruleset": "--rulesets", "seed": "--seeds", "timesteps": "--timesteps", "out": "--out",
            "runs": "(DIR/<trial>/tensorboard)", "run_name": "(the trial's name)",
            "resume": "(automatic: run the sweep again)", "progress": "(the sweep's own progress bar)"}
#: Arguments whose own value is a comma-separated list: their grid values are separated by ``;``.
LIST_VALUED = {"opponents", "final_opponents", "net_arch"}
TRUE, FALSE = {"true", "yes", "on", "1"}, {"false", "no", "off", "0"}


class SweepError(ValueError):
    """A bad sweep argument (the message names it and what is allowed)."""


# --------------------------------------------------------------------------------------------
# The trials


@dataclasses.dataclass
class Trial:
    name: str
    ruleset: str
    seed: int
    grid: dict[str, Any]  # every grid key's value for this trial (one-value grids included)
    argv: list[str]  # the arguments of train/ppo.py
    out: Path

    def command(self) -> str:
        return shlex.join(["python", "train/ppo.py", *self.argv])


def ppo_fields() -> dict[str, dataclasses.Field]:
    return {f.name: f for f in dataclasses.fields(ppo.Args)}


def parse_grid(items: list[str]) -> dict[str, list[Any]]:
    """``["learning_rate=3e-4,1e-3", ...]`` -> ``{"learning_rate": [0.0003, 0.001]}``, each value of
    the field's type; a :class:`SweepError` names an unknown or reserved key and a bad value."""
    import difflib

    fields = ppo_fields()
    grid: dict[str, list[Any]] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise SweepError(f"--grid {item!r}: write KEY=V1,V2,... (e.g. --grid learning_rate=3e-4,1e-3)")
        if key in RESERVED:
            raise SweepError(f"--grid {key}: the sweep sets it for every trial; use {RESERVED[key]}")
        if key not in fields:
            close = difflib.get_close_matches(key, list(fields), n=3)
            allowed = sorted(set(fields) - set(RESERVED))
            raise SweepError(f"--grid {key}: not an argument of train/ppo.py"
                             + (f" (did you mean {', '.join(close)}?)" if close else "")
                             + f"; the arguments are: {', '.join(allowed)}")
        if key in grid:
            raise SweepError(f"--grid {key} is given twice: list all its values in one --grid {key}=V1,V2")
        f = fields[key]
        parts = [v.strip() for v in text.split(";" if key in LIST_VALUED or ";" in text else ",")]
        if not parts or any(v == "" for v in parts):
            raise SweepError(f"--grid {item!r}: an empty value" + (
                " (the values of this list-valued argument are separated by ';', e.g. "
                f"--grid '{key}=a,b;c')" if key in LIST_VALUED else ""))
        grid[key] = [convert(key, f, v) for v in parts]
        if len(set(map(str, grid[key]))) != len(grid[key]):
            raise SweepError(f"--grid {key}: a value is repeated in {text!r}")
    return grid


def convert(key: str, f: dataclasses.Field, v: str) -> Any:
    """One grid value as the field's type, checked against its choices."""
    kind = str(f.type)
    flag = f"--grid {key}={v}"
    if kind == "bool":
        if v.lower() in TRUE:
            return True
        if v.lower() in FALSE:
            return False
        raise SweepError(f"{flag}: {key} is a switch: true or false")
    if kind == "int":
        try:
            x = float(v)
        except ValueError:
            raise SweepError(f"{flag}: {key} takes a whole number") from None
        if not x.is_integer():
            raise SweepError(f"{flag}: {key} takes a whole number")
        return int(x)
    if kind == "float":
        try:
            return float(v)
        except ValueError:
            raise SweepError(f"{flag}: {key} takes a number") from None
    choices = f.metadata.get("choices")
    if choices and v not in choices:
        raise SweepError(f"{flag}: {key} is one of {', '.join(choices)}")
    return v


def to_flags(key: str, value: Any) -> list[str]:
    flag = "--" + key.replace("_", "-")
    if isinstance(value, bool):
        return [flag if value else "--no-" + key.replace("_", "-")]
    return [flag, str(value)]


def safe(text: str) -> str:
    """A trial name's piece as a file name (letters, digits and ``.=+-,`` kept)."""
    return re.sub(r"[^A-Za-z0-9.=+,-]+", "_", text).strip("_") or "_"


def make_trials(rulesets: list[str], seeds: list[int], timesteps: int, grid: dict[str, list[Any]],
                out: Path, cpus_per_trial: int = 1) -> list[Trial]:
    """Every (ruleset, seed, grid point), each with its ``train/ppo.py`` arguments, checked by
    ``train/ppo.py``'s parser (its message is raised as a :class:`SweepError`)."""
    if not rulesets:
        raise SweepError("--rulesets: name at least one ruleset")
    if not seeds:
        raise SweepError("--seeds: give at least one seed")
    if timesteps < 1:
        raise SweepError(f"--timesteps {timesteps}: must be at least 1")
    keys = list(grid)
    varied = [k for k in keys if len(grid[k]) > 1]
    trials: list[Trial] = []
    for rs, seed, point in itertools.product(rulesets, seeds, itertools.product(*(grid[k] for k in keys))):
        values = dict(zip(keys, point))
        stem = Path(rs).stem if rs.endswith(".toml") else rs
        name = safe(f"{stem}-s{seed}" + "".join(f"-{k}={values[k]}" for k in varied))
        where = (out / name).resolve()
        argv = ["--ruleset", rs, "--seed", str(seed), "--timesteps", str(timesteps), "--out", str(where),
                "--runs", str(where / "tensorboard"), "--run-name", name, "--no-progress"]
        if "eval_workers" not in values:
            argv += ["--eval-workers", str(cpus_per_trial)]
        for k in keys:
            argv += to_flags(k, values[k])
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                ppo.parse_args(argv)
        except SystemExit:
            msg = err.getvalue().strip().splitlines()
            raise SweepError(f"trial {name}: {msg[-1].removeprefix('train/ppo.py: ').removeprefix('error: ') if msg else 'rejected'}") from None
        trials.append(Trial(name, rs, seed, values, argv, where))
    names = [t.name for t in trials]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise SweepError(f"trials named twice: {', '.join(dup)} (a ruleset or a seed listed twice?)")
    return trials


def check_rulesets(rulesets: list[str]) -> None:
    from zilch_env import load_ruleset
    from zilch_env.rules.schema import RulesetError

    for rs in rulesets:
        try:
            load_ruleset(rs)
        except (RulesetError, OSError) as e:
            raise SweepError(f"--rulesets {rs}: {e}") from None


def trial_state(t: Trial) -> str:
    """``done`` (its ``trial.json`` with these very arguments), ``resume`` (a ``latest/`` checkpoint
    to continue) or ``new``; a finished trial of other arguments is a :class:`SweepError`."""
    record = t.out / "trial.json"
    if record.exists():
        done = json.loads(record.read_text())
        if done.get("argv") != t.argv:
            raise SweepError(f"{t.out} holds a finished trial of other arguments:\n  {shlex.join(done.get('argv', []))}"
                             f"\nnot\n  {shlex.join(t.argv)}\n(give another --out, or remove that directory)")
        return "done"
    return "resume" if (t.out / "latest" / "model.zip").exists() else "new"


