"""The checkpoint files of a training run: where they go (``checkpoints/<ruleset>``), the run's state
(``state.json``: the command, the ruleset, the steps done, the best evaluation) and the model files
written at every evaluation and at the end. :mod:`train.ppo` writes them; ``--resume`` reads them."""

from __future__ import annotations

import dataclasses
import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zilch_env import Ruleset
from zilch_env.engine.observation import OBS_VERSION

if TYPE_CHECKING:  # the Args dataclass of train/args.py
    from train.args import Args

ROOT = Path(__file__).resolve().parents[1]

__all__ = ["checkpoint_dir", "new_state", "resumed_state", "save_checkpoint", "save_final"]


def checkpoint_dir(args: Args) -> Path:
    """``--out``, else ``checkpoints/<ruleset>`` (``-score`` appended for the score objective)."""
    if args.out:
        return Path(args.out)
    name = Path(args.ruleset).stem if args.ruleset.endswith(".toml") else args.ruleset
    return ROOT / "checkpoints" / (name + ("-score" if args.objective == "score" else ""))


def new_state(args: Args, rs: Ruleset, players: int, specs: list[str], command: str) -> dict[str, Any]:
    """The state of a new run, saved in every checkpoint's ``train.json``: the rules, the layout,
    the commands, the arguments, the evaluations so far and the best one."""
    name = Path(args.ruleset).stem if args.ruleset.endswith(".toml") else args.ruleset
    run = args.run_name or f"{args.objective}-s{args.seed}-{time.strftime('%Y%m%d-%H%M%S')}"
    return {"ruleset": _rules(args, rs), "obs_version": OBS_VERSION,
            "players": players, "objective": args.objective, "opponents": specs,
            "run_dir": str(Path(args.runs) / name / run), "commands": [command],
            "args": dataclasses.asdict(args), "last_eval": 0, "last_snapshot": 0,
            "evaluations": [], "best": None}


def resumed_state(args: Args, rs: Ruleset, latest: Path, command: str, pool: Any) -> dict[str, Any]:
    """The state saved in ``latest/`` (``--resume``), with this command appended; the self-play pool
    is restored into ``pool``. Refuses a checkpoint of another observation layout or other rules."""
    if not (latest / "model.zip").exists():
        raise SystemExit(f"--resume: no checkpoint at {latest}/model.zip (train without --resume first)")
    _check_model_zip(latest / "model.zip")
    state = _read_state(latest / "train.json")
    if state.get("obs_version") != OBS_VERSION:
        raise SystemExit(f"--resume: {latest} was trained on observation layout "
                         f"{state.get('obs_version')}, this code writes layout {OBS_VERSION}; its network "
                         "cannot take the new input: train from scratch (another --out)")
    if state["ruleset"] != json.loads(json.dumps(_rules(args, rs))):
        raise SystemExit(f"--resume: {latest} was trained on other rules ({state['ruleset']['name']}); "
                         "give the same --ruleset and --set as the run it continues")
    state["commands"].append(command)
    if pool is not None and (latest / "pool.npz").exists():
        try:
            pool.load(str(latest / "pool.npz"))
        except Exception as e:  # a damaged npz: zipfile, pickle or key errors
            raise SystemExit(f"--resume: {latest / 'pool.npz'} cannot be read ({type(e).__name__}: {e}); the "
                             f"self-play pool is damaged: move it aside to resume with an empty pool") from None
    return state


_STATE_KEYS = ("ruleset", "obs_version", "commands", "timesteps")


def _read_state(path: Path) -> dict[str, Any]:
    """A checkpoint's ``train.json``: a JSON object with the run's state, else SystemExit naming the
    file and the problem (a truncated file is not a traceback)."""
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SystemExit(f"--resume: {path} is missing: the checkpoint is incomplete; train without "
                         f"--resume (another --out) or restore the file") from None
    except OSError as e:
        raise SystemExit(f"--resume: {path} cannot be read: {e.strerror or e}") from None
    except (UnicodeDecodeError, ValueError) as e:
        raise SystemExit(f"--resume: {path} is not valid JSON ({e}): the file is damaged or truncated; "
                         f"restore it or train without --resume (another --out)") from None
    missing = [k for k in _STATE_KEYS if not isinstance(state, dict) or k not in state]
    if missing:
        raise SystemExit(f"--resume: {path} lacks {', '.join(missing)}: not the state of a training run "
                         f"(train/ppo.py writes it)")
    if not isinstance(state["ruleset"], dict) or not isinstance(state["commands"], list):
        raise SystemExit(f"--resume: {path}: its ruleset or commands are not what train/ppo.py writes")
    return state


def _check_model_zip(path: Path) -> None:
    """``model.zip`` must be a whole zip archive (an SB3 save): a damaged one is refused naming it,
    before torch is loaded."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as z:
            bad = z.testzip()
            names = set(z.namelist())
    except (OSError, zipfile.BadZipFile, EOFError, ValueError) as e:
        raise SystemExit(f"--resume: {path} is not a readable zip archive ({e}): the checkpoint is damaged; "
                         f"resume from best/ (copy it to latest/) or train without --resume") from None
    if bad is not None or "policy.pth" not in names:
        what = f"its member {bad} is damaged" if bad else "it holds no policy.pth"
        raise SystemExit(f"--resume: {path}: {what}, not an SB3 checkpoint; resume from best/ (copy it to "
                         f"latest/) or train without --resume")


def _rules(args: Args, rs: Ruleset) -> dict[str, Any]:
    """The rules a run trains on, as its state records them: the ruleset, or under ``--ruleset any``
    the distribution (``train.generalist.rules_record``)."""
    if args.ruleset == "any":
        from train.generalist import rules_record

        return rules_record(args)
    return rs.to_dict()


def save_checkpoint(model: Any, where: Path, pool: Any, state: dict[str, Any]) -> None:
    """``model.zip`` (policy, optimizer, timesteps), ``pool.npz`` and ``train.json`` in ``where``;
    written to a temporary name and renamed, so an interrupted save never leaves half a checkpoint."""
    where.mkdir(parents=True, exist_ok=True)
    model.save(where / "model.tmp.zip")
    os.replace(where / "model.tmp.zip", where / "model.zip")
    if pool is not None:
        pool.save(str(where / "pool.tmp.npz"))
        os.replace(where / "pool.tmp.npz", where / "pool.npz")
    (where / "train.tmp.json").write_text(json.dumps({**state, "timesteps": int(model.num_timesteps)},
                                                     indent=2))
    os.replace(where / "train.tmp.json", where / "train.json")


def save_final(model: Any, out: Path, pool: Any, state: dict[str, Any], args: Args) -> None:
    """At the end of training: ``latest/``; and ``best/`` as the final model under ``--anneal-lr``
    (the learning rate has decayed to 0: the final model is the converged one, and the last periodic
    evaluations, a few hundred games each, are too noisy to pick among), or when no evaluation ran."""
    save_checkpoint(model, out / "latest", pool, state)
    if args.anneal_lr and state.get("evaluations"):
        state["best"] = {**state["evaluations"][-1], "selected": "final (--anneal-lr)"}
        save_checkpoint(model, out / "best", None, state)
    if state.get("best") is None:
        save_checkpoint(model, out / "best", None, state)
