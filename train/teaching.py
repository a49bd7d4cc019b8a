"""What the teaching scripts share: their options (:class:`Args`, one dataclass for ``train/teach.py``
and ``train/teach_any.py``: a field is written once, with the scripts it belongs to and the default or
help a script gives it otherwise), and their command (:func:`main`): the ``--init`` checkpoint read,
the DAgger rounds (:func:`run_rounds`: the learner plays every lesson's games, the teachers label its
decisions, the actor is fitted on what is kept; the network with the least measured regret is
chosen), the checkpoint, ``teach.json`` and the commands written.

What differs between the scripts is a :class:`Course`: which lessons a round plays (each a batched
VecEnv with its teacher, :class:`Lesson`), what else a round learns from, what a round's games
measure and how the result is exported. ``train/teach.py`` teaches one ruleset's agent by its solved
game; ``train/teach_any.py`` the agent for any ruleset by the presets' solved games."""

from __future__ import annotations

import argparse
import dataclasses
import json
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from zilch_env import PRESETS

from train.args import add_fields, arg, fields_of
from train.dagger import Decisions, actor_parameters, argmax_policy, collect, fit

__all__ = ["Args", "SCRIPTS", "build_parser", "parse_args", "Lesson", "Course", "run_rounds", "main"]

#: The teaching scripts (``train/<script>.py``) whose options :class:`Args` holds.
SCRIPTS = ("teach", "teach_any")
TEACH, ANY = ("teach",), ("teach_any",)


def _any(default: Any = None, help: str | None = None) -> dict[str, Any]:
    """A field's ``per`` metadata: what ``train/teach_any.py`` gives it instead."""
    return {"teach_any": {k: v for k, v in (("default", default), ("help", help)) if v is not None}}


@dataclass
class Args:
    """Every option of the teaching scripts. A field without ``scripts`` is an option of both, with
    the default and help shown unless ``per`` gives ``train/teach_any.py`` its own."""

    ruleset: str = arg("zonk", "preset name or TOML ruleset file (its game table must be stored: zilch solve "
                               "--ruleset R --objective win)", scripts=TEACH)
    set: tuple[str, ...] = arg((), "rule override KEY=VALUE in dotted keys (repeatable)", metavar="KEY=VALUE",
                               action="append", scripts=TEACH)
    init: str = arg("", "the MaskablePPO checkpoint to teach (a .zip or a checkpoint directory, its "
                        "best/model.zip): required; its network, layout and train.json are kept",
                    per=_any("checkpoints/any", "the checkpoint of train/ppo.py --ruleset any to teach"))
    out: str = arg("", "checkpoint directory written; default checkpoints/<ruleset>",
                   per=_any(help="checkpoint directory written; default the --init directory"))
    opponents: str = arg("optimal-win,optimal-turn,self", "comma-separated opponents of the agent's games, "
                                                          "assigned to the envs round-robin: optimal-win (the "
                                                          "teacher itself), self (the network being taught), or "
                                                          "any agent with a batched form (optimal-turn, greedy, "
                                                          "random, ...)", scripts=TEACH)
    presets: tuple[str, ...] = arg(tuple(PRESETS), "the rulesets taught by their solved game", nargs="+",
                                   scripts=ANY)
    rounds: int = arg(6, "rounds of play, label and fit (one more round of play measures the last fit)",
                      per=_any(4))
    decisions: int = arg(200_000, "agent decisions played and labelled per round",
                         per=_any(40_000, "agent decisions played and labelled per preset per round"))
    players: tuple[int, ...] = arg((3, 4), "player counts at which the presets are also taught, by the "
                                           "two-player game of the mover against the leader (none: two "
                                           "players only)", nargs="*", scripts=ANY)
    multi_decisions: int = arg(20_000, "decisions per preset per player count of --players per round",
                               scripts=ANY)
    piggyback_decisions: int = arg(20_000, "decisions per preset per round on the preset with piggyback on (two "
                                           "players), labelled by the preset's solved game as "
                                           "train.teacher.WinTeacher(piggyback=True) does (0: none)", scripts=ANY)
    overcoming_decisions: int = arg(5_000, "decisions per preset, target of --overcoming-targets and player count "
                                           "(2 and --players) per round on the preset with overcoming on, "
                                           "labelled by the solved game of those players (--solved-players) or "
                                           "else as train.teacher.WinTeacher(leader=True, overcoming=True) does "
                                           "(0: none)", scripts=ANY)
    overcoming_targets: tuple[int, ...] = arg((3000, 4000), "the targets of the overcoming lessons (each preset's "
                                                            "game is solved there, cached)", nargs="+", scripts=ANY)
    solved_players: tuple[int, ...] = arg((2, 3), "player counts (2, 3) of the overcoming lessons taught by the "
                                                  "solved game of those players under overcoming where "
                                                  "agents.solver.multi solves the rules (solved and cached on "
                                                  "first use, minutes each); the others by the two-player game "
                                                  "without overcoming (none: all of them)", nargs="*", scripts=ANY)
    solved_rules: int = arg(0, "two-player rulesets of the distribution (presets as they are left out) also taught "
                               "by their own solved game, solved on the fly and cached (0: none)", scripts=ANY)
    solved_decisions: int = arg(20_000, "decisions per --solved-rules ruleset per round", scripts=ANY)
    solved_max_rows: float = arg(5e7, "the largest game a --solved-rules ruleset may be, in turn-DP rows "
                                      "(agents.solver.game.solve_size; 5e7 solves in about three minutes here)",
                                 scripts=ANY)
    keep_decisions: int = arg(120_000, "decisions per round on the pool's other rulesets (labelled by the network "
                                       "before teaching)", scripts=ANY)
    offer_regret: float = arg(0.01, "on the pool's other rulesets, the win chance a piggyback offer's label says "
                                    "the turn values' other choice gives up (0: the network before teaching "
                                    "labels offers too)", scripts=ANY)
    offer_decisions: int = arg(20_000, "piggyback offers per round on the pool's piggyback rulesets, labelled by "
                                       "the turn values alone (0: none)", scripts=ANY)
    max_decisions: int = arg(1_000_000, "decisions kept for fitting (the oldest rounds' dropped beyond it)",
                             per=_any(1_500_000))
    epochs: int = arg(4, "passes over the kept decisions per round", per=_any(3))
    batch_size: int = arg(1024, "minibatch size of the fit")
    learning_rate: float = arg(1e-3, "Adam learning rate of the fit", per=_any(5e-4))
    anneal_lr: bool = arg(True, "decay the learning rate linearly over the rounds (to a tenth in the last)")
    tau: float = arg(1e-3, "temperature of the teacher's choice, in win chance: actions within about tau of "
                           "the best count as about as good")
    regret_coef: float = arg(1.0, "weight of the policy's expected regret (over tau) in the loss, beside the "
                                  "cross-entropy")
    n_envs: int = arg(256, "games played together", per=_any(64, "games played together per ruleset"))
    seed: int = arg(1, "seed of torch, the games and the fit's order")
    threads: int = arg(1, "torch threads, and threads solving new turns of the game table")
    cache_mb: int = arg(0, "megabytes of solved turns kept in memory; 0 = as train/ppo.py --shaping-cache-mb 0",
                        per=_any(help="megabytes of solved turns kept in memory, shared by the presets' teachers "
                                      "(and again by the overcoming lessons'); 0 = as train/ppo.py "
                                      "--shaping-cache-mb 0"))
    final_games: int = arg(2000, "games per opponent of the final evaluation (train/ppo.py's); 0 = none",
                           scripts=TEACH)
    final_solo_turns: int = arg(20000, "on-board turns of the final solo measure; 0 = none", scripts=TEACH)
    final_opponents: str = arg("random,greedy,greedy-cautious,greedy-bold,greedy-table,heuristic,optimal-turn,"
                               "optimal-win", "final evaluation opponents", scripts=TEACH)
    eval_workers: int = arg(2, "processes of the final evaluation", scripts=TEACH)
    eval_seed: int = arg(1, "the final evaluation plays seed eval_seed + 20000 (train/ppo.py's, for --seed 1)",
                         scripts=TEACH)
    export: bool = arg(True, "export policy.onnx + policy.json and run the final evaluation", scripts=TEACH)
    finish_only: bool = arg(False, "teach nothing: export and evaluate the taught network saved in <out>/best "
                                   "(after a run with --no-export)", scripts=TEACH)
    progress: bool = arg(True, "show progress bars")

    def recorded(self, script: str) -> dict[str, Any]:
        """The options of ``script`` and their values (``teach.json`` and ``train.json`` record them)."""
        return {f.name: getattr(self, f.name) for f in script_fields(script)}


def script_fields(script: str) -> list[dataclasses.Field]:
    """The fields of :class:`Args` that are options of ``script``, in their order."""
    if script not in SCRIPTS:
        raise ValueError(f"script {script!r}: one of {', '.join(SCRIPTS)}")
    return [f for f in dataclasses.fields(Args) if script in f.metadata.get("scripts", SCRIPTS)]


def build_parser(script: str, description: str = "", epilog: str | None = None,
                 cls: type = Args) -> argparse.ArgumentParser:
    """The parser of ``train/<script>.py``: one flag per option of ``script`` in ``cls`` (:class:`Args`)."""
    script_fields(script)  # a known script
    p = argparse.ArgumentParser(prog=f"train/{script}.py", description=description, epilog=epilog,
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    return add_fields(p, cls, script)


def parse_args(script: str, argv: list[str] | None = None, parser: argparse.ArgumentParser | None = None) -> Args:
    """``argv`` parsed for ``script`` into :class:`Args` (the options ``script`` lacks keep
    :class:`Args`' defaults); every bad value named in one error, with what is allowed."""
    p = parser or build_parser(script)
    ns = p.parse_args(argv)
    a = fields_of(Args, ns)
    has = set(vars(ns))
    bad = [f"--{n.replace('_', '-')} {getattr(a, n)}: must be at least 1"
           for n in ("rounds", "decisions", "multi_decisions", "max_decisions", "epochs", "batch_size", "n_envs",
                     "threads", "eval_workers", "solved_decisions") if n in has and getattr(a, n) < 1]
    bad += [f"--{n.replace('_', '-')} {getattr(a, n)}: must be above 0" for n in ("learning_rate", "tau")
            if not getattr(a, n) > 0]
    if a.regret_coef < 0:
        bad.append(f"--regret-coef {a.regret_coef}: must be 0 or more")
    bad += [f"--{n.replace('_', '-')} {getattr(a, n)}: must be 0 or more"
            for n in ("cache_mb", "final_games", "final_solo_turns", "keep_decisions", "offer_decisions",
                      "piggyback_decisions", "overcoming_decisions", "solved_rules") if n in has and getattr(a, n) < 0]
    if script == "teach":
        if not a.init:
            bad.append("--init: give the checkpoint to teach (e.g. --init checkpoints/zonk, the output of "
                       "train/ppo.py)")
        if not [s for s in a.opponents.split(",") if s.strip()]:
            bad.append("--opponents: name at least one opponent")
    else:
        bad += _any_errors(a)
    if bad:
        p.error("; ".join(bad))
    return a


def _any_errors(a: Args) -> list[str]:
    """What is wrong with ``train/teach_any.py``'s own options (the player counts and lists made sorted
    sets on the way)."""
    from zilch_env.rules.distribution import TARGETS

    bad = []
    a.players, a.solved_players = tuple(sorted(set(a.players))), tuple(sorted(set(a.solved_players)))
    wrong = [n for n in a.players if not 3 <= n <= 4]
    if wrong:
        bad.append(f"--players {' '.join(map(str, wrong))}: 3 or 4 (two players are always taught, by the "
                   "solved game)")
    wrong = [t for t in a.overcoming_targets if t not in TARGETS]
    if wrong:
        bad.append(f"--overcoming-targets {' '.join(map(str, wrong))}: targets of the distribution, "
                   f"{', '.join(map(str, TARGETS))} (the rest are held out for evaluation)")
    if not a.solved_max_rows > 0:
        bad.append(f"--solved-max-rows {a.solved_max_rows}: turn-DP rows, above 0")
    if not 0 <= a.offer_regret <= 1:
        bad.append(f"--offer-regret {a.offer_regret}: a win chance from 0 to 1")
    wrong = [n for n in a.solved_players if n not in (2, 3)]
    if wrong:
        bad.append(f"--solved-players {' '.join(map(str, wrong))}: 2 or 3 (agents.solver.multi solves those)")
    wrong = [x for x in a.presets if x not in PRESETS]
    if wrong:
        bad.append(f"--presets {' '.join(wrong)}: not presets; allowed are {', '.join(PRESETS)}")
    return bad


# --------------------------------------------------------------------------------------------
# The rounds


@dataclass
class Lesson:
    """The games of one VecEnv in a round: the learner plays ``decisions`` decisions of them against
    ``opponents`` (the names of the VecEnv's opponents, round-robin) and ``teacher`` labels them
    (:func:`train.dagger.collect`). What they measure goes to the round's ``group`` under ``name``:
    the stats against ``measure`` (None: against every opponent). ``last_round``: also played in
    the last round, which only measures."""

    group: str
    name: str
    teacher: Any
    venv: Any
    decisions: int
    opponents: list[str]
    measure: str | None = None
    last_round: bool = True


class Course:
    """What a teaching script teaches, filled in by the scripts' courses (``train.teach.TeachCourse``,
    ``train.teach_any.AnyCourse``) for :func:`main` and :func:`run_rounds`. ``lessons`` (made by
    :meth:`setup`) are played each round in order; :meth:`extras` (called in every round but the
    last, with the learner) gives more decisions to fit on."""

    #: The first round whose network may be chosen (round 0 measures the ``--init`` network).
    first_choice = 0
    #: What the fit's agreement is with, in the round's line (the teacher's: the argmax regret too).
    agrees_with = "the teacher"
    #: The ``best`` of a ``train.json`` that has none, before the chosen network's record.
    best_before: dict[str, Any] = {}

    def __init__(self, args: Args):
        self.args = args
        self.lessons: list[Lesson] = []

    def start(self) -> bool:
        """Anything to do before the ``--init`` checkpoint is read; True if that was all."""
        return False

    def check(self, zip_path: Path, state: dict[str, Any]) -> Path:
        """Refuse an ``--init`` checkpoint (``SystemExit`` saying why) this course cannot teach; else
        the output directory."""
        raise NotImplementedError

    def setup(self, model: Any, obs_size: int, learner: Callable) -> None:
        """Make the lessons (the learner plays the network being taught)."""
        raise NotImplementedError

    def opening(self, zip_path: Path) -> str:
        """The line printed before the first round."""
        raise NotImplementedError

    def extras(self, learner: Callable) -> list[Decisions]:
        return []

    def summary(self, rnd: int, played: list[tuple[Lesson, dict]]) -> tuple[dict[str, Any], float | None, dict]:
        """A round's entry of ``teach.json`` (before its seconds), the score the network is chosen by
        (the least; None: unmeasured) and what is recorded of the round if it is chosen."""
        raise NotImplementedError

    def losses(self, entry: dict[str, Any]) -> str:
        """What the round's line says the network lost, after "loses"."""
        raise NotImplementedError

    def unmeasured(self) -> dict[str, Any]:
        """The chosen round's record when no round measured the network: the last fit."""
        raise NotImplementedError

    def chosen(self, best: dict[str, Any], history: list[dict]) -> dict[str, Any]:
        """What ``train.json``'s ``best`` says of the chosen network beside its name and timesteps."""
        raise NotImplementedError

    def finish(self, out: Path, state: dict[str, Any], best: dict[str, Any], seconds: float, started: float) -> None:
        """After the checkpoint is saved: the export (and what else the script writes)."""
        raise NotImplementedError


def run_rounds(course: Course, model: Any, obs_size: int, current: dict[str, Callable],
               learner: Callable) -> tuple[list[dict], dict | None, Any, float]:
    """The DAgger rounds of ``course`` on ``model``'s actor: round ``k`` plays the lessons with the
    network after ``k`` fits (``current["policy"]``, played by ``learner``), labels and measures them,
    then fits on every decision kept; one more round measures the last fit. Returns the rounds'
    entries, the chosen round's record and weights (None: no round measured) and the seconds."""
    import torch

    from train.selfplay import PolicySnapshot

    args = course.args
    optimizer = torch.optim.Adam(actor_parameters(model.policy), lr=args.learning_rate)
    data = Decisions.empty(obs_size)
    history: list[dict[str, Any]] = []
    best: dict[str, Any] | None = None
    best_score, best_weights = None, None
    t0 = time.perf_counter()
    with _bar(args.progress) as bar:
        for rnd in range(args.rounds + 1):
            parts: list[Decisions] = []  # joined once: joining each lesson's as it comes copies the round over and over
            played = []
            for lesson in course.lessons:
                if rnd == args.rounds and not lesson.last_round:
                    continue
                what = f"round {rnd} play" + (f" {lesson.name}" if len(course.lessons) > 1 else "")
                task = bar.add(what, total=lesson.decisions)
                new, stats = collect(lesson.venv, learner, lesson.teacher, lesson.decisions, obs_size,
                                     lesson.opponents, progress=lambda k: bar.update(task, completed=k))
                bar.remove(task)
                parts.append(new)
                played.append((lesson, stats))
            entry, score, record = course.summary(rnd, played)
            entry["seconds"] = round(time.perf_counter() - t0, 1)
            if rnd >= course.first_choice and score is not None and (best_score is None or score < best_score):
                best, best_score = {"round": rnd, **record}, score
                best_weights = {k: v.clone() for k, v in model.policy.state_dict().items()}
            print(f"round {rnd} ({entry['seconds']:.0f} s): the network of round {rnd - 1 if rnd else 'init'} "
                  f"loses{course.losses(entry)}", flush=True)
            if rnd == args.rounds:
                history.append(entry)
                break
            parts += course.extras(learner)
            data = Decisions.concat([data, *parts], args.max_decisions)
            lr = args.learning_rate * (1.0 - 0.9 * rnd / max(args.rounds - 1, 1) if args.anneal_lr else 1.0)
            task = bar.add(f"round {rnd} fit", total=args.epochs * len(data), info=f"{len(data):,} decisions")
            fitted = fit(model.policy, data, args.epochs, args.batch_size, lr, args.tau, args.regret_coef,
                         seed=args.seed * 1000 + rnd, optimizer=optimizer, progress=lambda w: bar.advance(task, w))
            bar.remove(task)
            entry["fit"] = {"decisions": len(data), "learning_rate": lr, **{k: round(v, 6) for k, v in fitted.items()}}
            regret = (f", argmax regret {fitted['argmax_regret']:.2e}/decision"
                      if course.agrees_with == "the teacher" else "")
            print(f"round {rnd} fit on {len(data):,} decisions: loss {fitted['loss']:.4f}, agrees with "
                  f"{course.agrees_with} {fitted['agree']:.2%}{regret}", flush=True)
            history.append(entry)
            current["policy"] = argmax_policy(PolicySnapshot.from_policy(model.policy, deterministic=True))
    return history, best, best_weights, time.perf_counter() - t0


def _bar(progress: bool):
    from agents.progress import Progress

    return Progress(progress)


# --------------------------------------------------------------------------------------------
# The command


def main(course_of: Callable[[Args], Any], script: str, argv: list[str] | None = None,
         parser: argparse.ArgumentParser | None = None) -> int:
    """``python train/<script>.py ARGV``: the options parsed, the course ``course_of(args)`` made (a
    :class:`Course`), the ``--init`` checkpoint read and checked, the rounds run (:func:`run_rounds`),
    the chosen network saved to ``<out>/best`` with ``teach.json`` and the command appended to its
    commands, then the course's export."""
    started = time.perf_counter()
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(script, argv, parser)
    command = shlex.join(["python", f"train/{script}.py", *argv])
    import torch
    from sb3_contrib import MaskablePPO

    from agents.export import resolve_checkpoint, train_metadata
    from train.args import torch_settings
    from train.checkpoints import save_checkpoint
    from train.selfplay import PolicySnapshot

    torch_settings(args.threads)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    course = course_of(args)
    if course.start():  # the course did all there was to do (train/teach.py --finish-only)
        return 0
    try:
        zip_path = resolve_checkpoint(args.init)
        state = train_metadata(zip_path)
    except FileNotFoundError as e:
        raise SystemExit(f"--init {args.init}: {e}") from None
    out = course.check(zip_path, state)
    model = MaskablePPO.load(zip_path, device="cpu")
    obs_size = int(model.observation_space.shape[-1])
    current = {"policy": argmax_policy(PolicySnapshot.from_policy(model.policy, deterministic=True))}

    def learner(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return current["policy"](obs, masks)

    course.setup(model, obs_size, learner)
    print(course.opening(zip_path), flush=True)
    history, best, best_weights, seconds = run_rounds(course, model, obs_size, current, learner)
    if best is None:  # no game finished in any round (a tiny budget): the last fit, unmeasured
        best = course.unmeasured()
    else:
        model.policy.load_state_dict(best_weights)
    state = dict(state)
    state["commands"] = [*state.get("commands", []), command]
    state["teach"] = {"args": args.recorded(script), "rounds": history, "chosen": best, "seconds": round(seconds, 1)}
    chosen = {"selected": f"taught (after {best['round']} fits of train/{script}.py)",
              "timesteps": int(model.num_timesteps), **course.chosen(best, history)}
    state["best"] = {**(state.get("best") or course.best_before), **chosen}
    save_checkpoint(model, out / "best", None, state)
    (out / "teach.json").write_text(json.dumps(state["teach"], indent=2) + "\n")
    course.finish(out, state, best, seconds, started)
    return 0
