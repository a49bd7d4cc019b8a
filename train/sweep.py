"""Training sweeps on Ray Tune: every (ruleset, seed, grid point) is a trial of ``train/ppo.py``.

    python train/sweep.py --rulesets zonk zilch5k --seeds 1 2 3 --timesteps 300000 --out sweeps/first
    python train/sweep.py --rulesets zilch --seeds 1 2 --grid learning_rate=3e-4,1e-3 --grid ent_coef=0,0.01
    python train/sweep.py --rulesets farkle --seeds 1 2 --address auto      # a running Ray cluster
    python train/sweep.py ... --list                                         # the trials, without running them

Trials
    A trial runs the training *function* of ``train/ppo.py`` (:func:`train.ppo.main` with the trial's
    arguments, in a Ray worker process: the same code path, outputs and seeding as the command
    ``python train/ppo.py ARGS``, which ``DIR/<trial>/train_command.txt`` records) and reports each
    periodic evaluation to Tune (``timesteps``, ``eval_metric`` ...). Its outputs are collected under
    ``DIR/<trial>/``: the checkpoints ``latest/`` and ``best/``, the exported ``policy.onnx`` +
    ``policy.json``, the final evaluation ``eval.md`` / ``eval.json``, ``README.md``, the TensorBoard
    logs (``tensorboard/``), ``train.log`` (what the run printed) and ``trial.json`` (written last:
    the trial is done). A trial is named ``<ruleset>-s<seed>`` followed by ``-<key>=<value>`` for
    every grid key with more than one value, e.g. ``zilch-s2-learning_rate=0.0003``. A Ray worker
    process runs one trial after another (Tune's ``reuse_actors``): the next trial starts without
    importing torch and loading the tables again (seconds each), and as every run seeds itself, a
    trial's results are the same whichever worker runs it and whatever ran there before.

Grids
    ``--grid KEY=V1,V2,...`` (repeatable) takes any argument of ``train/ppo.py`` (``learning_rate`` or
    ``learning-rate``; see ``python train/ppo.py --help``) but those the sweep sets itself (ruleset,
    seed, timesteps, out, runs, run_name, resume, progress). The trials are the product of the
    rulesets, the seeds and every grid. A grid of one value sets that argument for every trial
    (``--grid final_games=400``). The values of arguments that are themselves comma lists
    (``opponents``, ``final_opponents``, ``net_arch``) are separated by ``;`` instead:
    ``--grid 'net_arch=64,64;128,128'``. Booleans take true/false; ``--grid set=target=5000,target=10000``
    varies one rule override. Every trial's arguments are checked by ``train/ppo.py``'s own parser
    before Ray starts, so a bad key or value fails at once, naming it.

Summary and the best trial
    ``DIR/summary.md`` and ``DIR/summary.json``: one row per trial (its grid values, timesteps,
    minutes, best periodic evaluation, final evaluation) and the best trial of each ruleset. A trial is
    ranked by its *final score*: under the win objective its final evaluation against the periodic
    evaluation's opponent (the luck-adjusted score share where the game table is stored, else the
    score share; the best periodic evaluation when that opponent is not among ``final_opponents``),
    under the score objective its final solo points per turn.

Resuming
    Run the same command again: finished trials (``trial.json`` with the same arguments) are not run
    again, a trial interrupted after a periodic evaluation continues from its ``latest/`` checkpoint
    (``train/ppo.py --resume``), the others start afresh. Ctrl-C (or SIGTERM) stops the sweep; the
    summary then lists what is finished. More seeds or grid values with the same ``--out`` add trials
    to the sweep. A finished trial whose arguments differ from the new command's is an error (give
    another ``--out``), never overwritten. A trial that fails is in the summary with its error (its
    traceback in its ``train.log``), the other trials go on, and the sweep exits 1; the same command
    runs the failed trial again.

Ray
    A local Ray on this machine's CPUs (``--cpus``) by default; ``--address`` joins a running cluster
    (``docs/cluster.md``: what the workers need, and how the game tables and the solver cache reach
    them). Each trial asks ``--cpus-per-trial`` CPUs (1: the PPO update runs on one thread) and runs its
    final evaluation on that many processes. Tune's own records (each trial's results as JSON and CSV)
    go to ``DIR/_tune``. Ray is imported only once the trials are checked (``--help`` and ``--list``
    never start it).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import signal
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from train import ppo  # noqa: E402  (no torch, no Ray: ppo imports them inside its run)
from train.trials import SweepError, Trial, check_rulesets, make_trials, parse_grid, trial_state  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

# --------------------------------------------------------------------------------------------
# One trial (in a Ray worker)


def run_trial(config: dict[str, Any]) -> None:
    """The Tune trainable: ``train.ppo.main`` with the trial's arguments, its periodic evaluations
    reported to Tune, then ``trial.json`` (the trial's summary row) and a last report with ``done``."""
    from ray import tune

    t = config["trial"]
    out = Path(t["out"])
    out.mkdir(parents=True, exist_ok=True)
    if t.get("cwd") and os.path.isdir(t["cwd"]):
        os.chdir(t["cwd"])  # relative paths of the arguments (--init, a TOML ruleset) as on the driver
    argv = list(t["argv"]) + (["--resume"] if t["resume"] else [])
    if t.get("table") and not has_game_table(t["ruleset"], t["grid"].get("set")):
        # Without it the run would choose other settings (no shaping, another evaluation opponent)
        # than the same command on the driver's machine: fail, never train something else.
        raise RuntimeError(f"the game table of {t['ruleset']} is stored on the driver's machine but not on "
                           f"this worker ({os.uname().nodename}): copy the solver cache (docs/cluster.md)")

    def on_evaluation(res: dict[str, Any]) -> None:
        tune.report({"timesteps": int(res["timesteps"]), "eval_metric": float(res["metric"]),
                     **{f"eval_{k}": float(v) for k, v in res.items()
                        if isinstance(v, (int, float)) and k not in ("metric", "timesteps")}})

    t0 = time.time()
    with open(out / "train.log", "a") as log, contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
        print(f"\n$ {shlex.join(['python', 'train/ppo.py', *argv])}", flush=True)
        try:
            status = ppo.main(argv, on_evaluation=on_evaluation)
        except SystemExit as e:  # train/ppo.py's errors: a message, not a traceback
            print(f"train/ppo.py stopped: {e}", flush=True)
            raise RuntimeError(f"train/ppo.py stopped: {e}") from None
        except Exception:
            import traceback

            traceback.print_exc()  # into train.log (the summary gives the message)
            raise
    if status != 0:
        raise RuntimeError(f"train/ppo.py ended with status {status} (see {out / 'train.log'})")
    row = trial_row(out, t["name"], t["ruleset"], t["seed"], t["grid"])
    row["wall_minutes"] = (time.time() - t0) / 60
    tmp = out / "trial.tmp.json"
    tmp.write_text(json.dumps({"status": "done", "argv": t["argv"], "row": row}, indent=2))
    os.replace(tmp, out / "trial.json")
    tune.report({"timesteps": int(row["timesteps"]), "done": True,
                 "final_score": float(row["final_score"]) if row["final_score"] is not None else float("nan")})


def has_game_table(ruleset: str, override: str | None = None) -> bool:
    """Whether this machine stores the game table of ``ruleset`` (with the grid's ``set`` override, if
    any), shipped or in the solver cache."""
    from zilch_env import load_ruleset
    from zilch_env.rules.load import parse_overrides

    return ppo.stored_game_table(load_ruleset(ruleset, parse_overrides([override] if override else [])))


def trial_row(out: Path, name: str, ruleset: str, seed: int, grid: dict[str, Any]) -> dict[str, Any]:
    """The summary of a finished trial from its files: ``latest/train.json`` and ``eval.json``."""
    state = json.loads((out / "latest" / "train.json").read_text())
    final = json.loads((out / "eval.json").read_text()) if (out / "eval.json").exists() else None
    best = state.get("best") or {}
    objective = state["objective"]
    score, ci, ranked_by = None, None, None
    if final and objective == "win":
        opp = (state.get("args") or {}).get("eval_opponent") or best.get("opponent")
        r = (final.get("vs") or {}).get(opp)
        if r:
            la = r.get("luck_adjusted")
            if la:
                score, ci, ranked_by = la["mean"], [la["low"], la["high"]], f"final luck-adjusted share vs {opp}"
            else:
                c = r.get("score_share_ci") or {}
                score, ranked_by = r["score_share"], f"final score share vs {opp}"
                ci = [c["low"], c["high"]] if "low" in c else None
    elif final and (final.get("solo") or {}).get("points_per_turn"):
        ppt = final["solo"]["points_per_turn"]
        score, ci, ranked_by = ppt["mean"], [ppt.get("low"), ppt.get("high")], "final solo points per turn"
    if score is None and best:
        score, ranked_by = best["metric"], f"best periodic {best.get('metric_kind', 'points per turn')}"
    return {
        "trial": name, "ruleset": ruleset, "seed": seed, "grid": grid, "objective": objective,
        "timesteps": int(state.get("timesteps", 0)), "train_minutes": state.get("seconds", 0.0) / 60,
        "best_eval": {k: best.get(k) for k in ("metric", "metric_kind", "opponent", "timesteps", "games")} if best else None,
        "evaluations": len(state.get("evaluations", [])),
        "final": final, "final_score": score, "final_score_ci95": ci, "ranked_by": ranked_by,
        "dir": str(out), "checkpoint": str(out / "best" / "model.zip"),
        "policy": str(out / "policy.onnx") if (out / "policy.onnx").exists() else None,
        "tensorboard": state.get("run_dir"),
    }


# --------------------------------------------------------------------------------------------
# The summary


def summarize(trials: list[Trial], out: Path, errors: dict[str, str], grid_keys: list[str]) -> dict[str, Any]:
    """``summary.json`` and ``summary.md`` in ``out`` from every trial's ``trial.json``; returns the
    summary (``rows``, ``best`` per ruleset, ``unfinished``, ``errors``)."""
    rows, unfinished = [], []
    for t in trials:
        rec = t.out / "trial.json"
        if rec.exists():  # the row from the trial's files as they are now (the record says it is done)
            row = trial_row(t.out, t.name, t.ruleset, t.seed, t.grid)
            row["wall_minutes"] = json.loads(rec.read_text()).get("row", {}).get("wall_minutes")
            rows.append(row)
        elif t.name not in errors:
            unfinished.append(t.name)
    best: dict[str, dict[str, Any]] = {}
    for r in rows:
        if r["final_score"] is None:
            continue
        b = best.get(r["ruleset"])
        if b is None or r["final_score"] > b["final_score"]:
            best[r["ruleset"]] = r
    summary = {"format": "zilch-rl/sweep/1", "trials": len(trials), "finished": len(rows),
               "rows": rows, "best": {rs: {"trial": r["trial"], "final_score": r["final_score"],
                                           "ranked_by": r["ranked_by"], "checkpoint": r["checkpoint"],
                                           "policy": r["policy"]} for rs, r in best.items()},
               "unfinished": unfinished, "errors": errors}
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
    (out / "summary.md").write_text(markdown(summary, grid_keys))
    return summary


def markdown(summary: dict[str, Any], grid_keys: list[str]) -> str:
    rows = summary["rows"]
    opps: list[str] = []
    for r in rows:
        for o in ((r.get("final") or {}).get("vs") or {}):
            if o not in opps:
                opps.append(o)
    lines = ["# Sweep summary", "",
             f"{summary['finished']} of {summary['trials']} trials finished. Final score: see `ranked by` "
             "(the best trial of each ruleset is the one with the highest).", "",
             "| trial | ruleset | seed | " + "".join(f"{k} | " for k in grid_keys)
             + "timesteps | train min | best periodic eval | " + "".join(f"final vs `{o}` | " for o in opps)
             + "solo pts/turn (of optimum) | final score [95% CI] | ranked by |",
             "|" + "---|" * (9 + len(grid_keys) + len(opps))]
    for r in rows:
        b = r.get("best_eval") or {}
        best = (f"{b['metric']:.3f} @ {b['timesteps']:,}" if b.get("metric") is not None else "-")
        final = r.get("final") or {}
        cells = []
        for o in opps:
            v = (final.get("vs") or {}).get(o)
            if not v:
                cells.append("-")
                continue
            la = v.get("luck_adjusted")
            cells.append(f"{v['score_share']:.3f}" + (f" (adj. {la['mean']:.3f})" if la else ""))
        solo = final.get("solo") or {}
        ppt = solo.get("points_per_turn")
        of = solo.get("of_optimum")
        solo_text = (f"{ppt['mean']:.1f}" + (f" ({100 * of['mean']:.1f}%)" if of else "")) if ppt else "-"
        fs, ci = r["final_score"], r.get("final_score_ci95")
        fs_text = "-" if fs is None else f"{fs:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci and None not in ci else "")
        lines.append(f"| {r['trial']} | {r['ruleset']} | {r['seed']} | "
                     + "".join(f"{r['grid'].get(k)} | " for k in grid_keys)
                     + f"{r['timesteps']:,} | {r['train_minutes']:.1f} | {best} | " + "".join(c + " | " for c in cells)
                     + f"{solo_text} | {fs_text} | {r['ranked_by'] or '-'} |")
    if summary["best"]:
        lines += ["", "## Best trial per ruleset", "", "| ruleset | trial | final score | ranked by | checkpoint |",
                  "|---|---|---|---|---|"]
        for rs, b in summary["best"].items():
            lines.append(f"| {rs} | {b['trial']} | {b['final_score']:.3f} | {b['ranked_by']} | `{b['checkpoint']}` |")
    if summary["unfinished"]:
        lines += ["", f"Not finished (run the same command again to continue): {', '.join(summary['unfinished'])}"]
    if summary["errors"]:
        lines += ["", "## Failed trials", ""] + [f"- {n}: {e}" for n, e in summary["errors"].items()]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# The command


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="train/sweep.py", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Ray Tune sweep of train/ppo.py: one trial per (ruleset, seed, grid point), each\n"
        "running train/ppo.py's training function; outputs under DIR/<trial>/, a summary table\n"
        "(DIR/summary.md, DIR/summary.json) with the best trial per ruleset. Run the same command\n"
        "again to resume: finished trials are not rerun.",
        epilog="Examples:\n  python train/sweep.py --rulesets zonk zilch5k --seeds 1 2 3 --timesteps 300000\n"
        "  python train/sweep.py --rulesets zilch --seeds 1 2 --grid learning_rate=3e-4,1e-3 "
        "--grid final_games=400\n  python train/sweep.py --rulesets farkle --seeds 1 2 --address auto\n\n"
        "Grid keys: any train/ppo.py argument (python train/ppo.py --help) but ruleset, seed,\n"
        "timesteps, out, runs, run_name, resume and progress. The values of opponents,\n"
        "final_opponents and net_arch are separated by ';'. Running on a Ray cluster: docs/cluster.md.")
    p.add_argument("--rulesets", nargs="+", default=["zonk"], metavar="RULESET",
                   help="presets or TOML files, one trial set each (default: zonk)")
    p.add_argument("--seeds", nargs="+", type=int, default=[1], metavar="SEED", help="seeds (default: 1)")
    p.add_argument("--timesteps", type=int, default=ppo.Args.timesteps,
                   help=f"timesteps of every trial (default: {ppo.Args.timesteps:,}, train/ppo.py's)")
    p.add_argument("--grid", action="append", default=[], metavar="KEY=V1,V2",
                   help="values of a train/ppo.py argument to sweep (repeatable; the trials are the product)")
    p.add_argument("--out", default="sweeps/sweep", metavar="DIR",
                   help="where the trials and the summary go; the same DIR resumes (default: sweeps/sweep)")
    p.add_argument("--address", metavar="ADDR",
                   help="a running Ray cluster (auto, HOST:6379 or ray://HOST:10001); default: a local Ray")
    p.add_argument("--cpus", type=int, default=os.cpu_count() or 1,
                   help="CPUs of the local Ray (default: every core, %(default)s)")
    p.add_argument("--cpus-per-trial", type=int, default=1,
                   help="CPUs each trial asks for; its final evaluation runs on that many processes (default: 1)")
    p.add_argument("--max-concurrent", type=int, default=0,
                   help="trials running at once at most; 0 = as many as the CPUs allow (default: 0)")
    p.add_argument("--list", action="store_true", help="print the trials and their train/ppo.py commands; run nothing")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    return p


def main(argv: list[str] | None = None) -> int:
    p = build_parser()
    a = p.parse_args(argv)
    for flag, v in (("--cpus", a.cpus), ("--cpus-per-trial", a.cpus_per_trial)):
        if v < 1:
            p.error(f"{flag} {v}: at least 1")
    if a.max_concurrent < 0:
        p.error(f"--max-concurrent {a.max_concurrent}: 0 (no limit) or more")
    out = Path(a.out).resolve()
    try:
        check_rulesets(a.rulesets)
        grid = parse_grid(a.grid)
        trials = make_trials(a.rulesets, a.seeds, a.timesteps, grid, out, a.cpus_per_trial)
        states = {t.name: trial_state(t) for t in trials}
    except SweepError as e:
        p.error(str(e))
    varied = [k for k in grid if len(grid[k]) > 1]
    if a.list:
        for t in trials:
            print(f"{t.name}  [{states[t.name]}]\n  {t.command()}")
        return 0
    todo = [t for t in trials if states[t.name] != "done"]
    done = len(trials) - len(todo)
    print(f"{len(trials)} trial{'s' * (len(trials) != 1)} in {out}"
          + (f": {done} already done" if done else "")
          + (f", {sum(s == 'resume' for s in states.values())} to resume" if "resume" in states.values() else ""),
          flush=True)
    errors: dict[str, str] = {}
    if todo:
        errors = run_tune(todo, states, a, out, total=len(trials), done=done)
    summary = summarize(trials, out, errors, varied)
    print((out / "summary.md").read_text())
    print(f"written: {out / 'summary.md'}, {out / 'summary.json'}")
    if summary["unfinished"]:
        print(f"interrupted: {len(summary['unfinished'])} trial(s) not finished; run the same command again "
              "to continue", file=sys.stderr)
        return 130
    return 1 if errors else 0


def run_tune(todo: list[Trial], states: dict[str, str], a: argparse.Namespace, out: Path, total: int,
             done: int) -> dict[str, str]:
    """The trials ``todo`` as one Ray Tune experiment; returns the errors of the failed trials."""
    import logging

    # Tune's older console output honours verbose=0 (the sweep shows its own progress bar); the newer
    # one prints its configuration box and paths whatever the verbosity.
    os.environ.setdefault("RAY_AIR_NEW_OUTPUT", "0")
    try:
        import ray
        from ray import tune
    except ImportError as e:
        raise SystemExit(f"train/sweep.py: error: Ray Tune is not installed ({e}): pip install -e '.[ray]' "
                         "(or pip install 'ray[tune]')") from None

    from agents.evaluate.ray_eval import local_runtime_env

    # SIGTERM stops the sweep as Ctrl-C does (Tune's handler: the trials stop, the results are kept).
    on_term = signal.signal(signal.SIGTERM, lambda *_: os.kill(os.getpid(), signal.SIGINT))
    # A failed trial is reported by the summary (its message) and its train.log (the traceback), not
    # by a traceback from Tune's controller in the middle of the progress bar.
    logging.getLogger("ray.tune").setLevel(logging.CRITICAL)
    started = not ray.is_initialized()
    if started:
        if a.address:
            ray.init(address=a.address, log_to_driver=False, logging_level=logging.WARNING)
        else:
            ray.init(num_cpus=a.cpus, include_dashboard=False, log_to_driver=False,
                     logging_level=logging.WARNING, runtime_env=local_runtime_env())
    cwd = os.getcwd()
    tables = {(t.ruleset, t.grid.get("set")) for t in todo}
    tables = {k: has_game_table(*k) for k in tables}
    configs = [{"name": t.name, "ruleset": t.ruleset, "seed": t.seed, "grid": t.grid, "argv": t.argv,
                "out": str(t.out), "resume": states[t.name] == "resume", "cwd": cwd, "table": tables[(t.ruleset, t.grid.get("set"))]}
               for t in todo]
    bar = TrialProgress(not a.quiet, total, done, {t.name: 0 for t in todo}, todo[0].argv)
    # Tune imports the trainable's module by name in its workers: train.sweep, not __main__.
    from train.sweep import run_trial as trainable
    from ray.tune.logger import CSVLoggerCallback, JsonLoggerCallback

    # Tune's records: each trial's results as JSON and CSV, not as a TensorBoard log as well (the trials
    # write their own, DIR/<trial>/tensorboard); Tune's TensorBoard logger imports torch in this process.
    auto_loggers = os.environ.get("TUNE_DISABLE_AUTO_CALLBACK_LOGGERS")
    os.environ["TUNE_DISABLE_AUTO_CALLBACK_LOGGERS"] = "1"
    try:
        tuner = tune.Tuner(
            tune.with_resources(trainable, {"cpu": a.cpus_per_trial}),
            param_space={"trial": tune.grid_search(configs)},
            # reuse_actors: a worker's next trial skips the start-up (torch, SB3, the tables) of a new
            # process; train.ppo.main seeds everything itself, so the results are the same.
            tune_config=tune.TuneConfig(max_concurrent_trials=a.max_concurrent or None, reuse_actors=True,
                                        trial_name_creator=lambda tr: tr.config["trial"]["name"],
                                        trial_dirname_creator=lambda tr: tr.config["trial"]["name"]),
            run_config=tune.RunConfig(storage_path=str(out / "_tune"), name=time.strftime("sweep-%Y%m%d-%H%M%S"),
                                      verbose=0,
                                      callbacks=[bar.callback(), JsonLoggerCallback(), CSVLoggerCallback()]),
        )
        results = tuner.fit()
    finally:
        if auto_loggers is None:
            os.environ.pop("TUNE_DISABLE_AUTO_CALLBACK_LOGGERS", None)
        else:
            os.environ["TUNE_DISABLE_AUTO_CALLBACK_LOGGERS"] = auto_loggers
        bar.close()
        signal.signal(signal.SIGTERM, on_term)
        if started:
            ray.shutdown()
    errors = {}
    for r in results:
        if r.error is not None:
            name = r.config["trial"]["name"]
            cause = getattr(r.error, "cause", None) or r.error
            errors[name] = f"{type(cause).__name__}: {cause}".splitlines()[0][:500]
    return errors


class TrialProgress:
    """The sweep's progress on stderr: trials finished, and timesteps trained as of each trial's last
    periodic evaluation; a line per finished or failed trial."""

    def __init__(self, enabled: bool, total: int, done: int, steps: dict[str, int], argv: list[str]):
        from agents.progress import Progress

        self.steps = steps
        self.per_trial = int(argv[argv.index("--timesteps") + 1])
        self.bar = Progress(enabled)
        self.trials = self.bar.add("trials", total=total, completed=done)
        self.timesteps = self.bar.add("timesteps", total=self.per_trial * len(steps), completed=0)

    def _print(self, text: str) -> None:
        self.bar.print(text)

    def result(self, name: str, result: dict[str, Any]) -> None:
        self.steps[name] = max(self.steps.get(name, 0), int(result.get("timesteps", 0)))
        self.bar.update(self.timesteps, completed=sum(self.steps.values()))
        if result.get("done"):
            self._print(f"finished {name}: final score {result.get('final_score', float('nan')):.3f}")
        elif "eval_metric" in result:
            self._print(f"{name}: evaluation at {result['timesteps']:,} timesteps: {result['eval_metric']:.3f}")

    def finished(self, name: str, ok: bool) -> None:
        self.bar.advance(self.trials)
        self.steps[name] = self.per_trial if ok else self.steps.get(name, 0)
        self.bar.update(self.timesteps, completed=sum(self.steps.values()))
        if not ok:
            self._print(f"failed {name} (see its train.log)")

    def callback(self) -> Any:
        from ray import tune

        me = self

        class Reporter(tune.Callback):
            def on_trial_result(self, iteration, trials, trial, result, **info):
                me.result(trial.config["trial"]["name"], result)

            def on_trial_complete(self, iteration, trials, trial, **info):
                me.finished(trial.config["trial"]["name"], True)

            def on_trial_error(self, iteration, trials, trial, **info):
                me.finished(trial.config["trial"]["name"], False)

            def __reduce__(self):  # Tune pickles its callbacks with the experiment: a bar does not pickle
                return tune.Callback, ()

        return Reporter()

    def close(self) -> None:
        self.bar.close()


if __name__ == "__main__":
    sys.exit(main())
