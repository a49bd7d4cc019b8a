"""The solved game as a teacher: DAgger-style imitation of ``optimal-win`` for a MaskablePPO win agent.

    python train/teach.py --ruleset zonk --init checkpoints/zonk          # teach the shipped agent
    python train/teach.py --ruleset zonk --init checkpoints/zonk --rounds 2 --decisions 20000
    python train/teach.py --help                                          # every option with its default

What it does
    The agent plays games with its own network (the deterministic masked argmax, as it plays when
    exported) against the opponents of ``--opponents`` on the batched engine
    (``zilch_env.envs.vec_env.BatchedZilchVecEnv``). At every one of its decisions the teacher, the
    ruleset's solved game (:class:`WinTeacher`, ``agents.solver.game_table.GameTable``), labels each legal
    action with its *regret*: the win chance under optimal play by both that the action gives up
    against the best one (0 for the best). The network's actor is then fitted by a supervised loss
    on every decision collected so far (:func:`fit`); the next round plays with the fitted network,
    so the states it learns from are the states it reaches (DAgger, Ross, Gordon and Bagnell 2011).

    The loss of a decision with legal actions ``a`` and regrets ``r(a)`` is
    ``CE(softmax(-r / tau), pi) + regret_coef * sum_a pi(a) r(a) / tau``: cross-entropy to the
    teacher's Boltzmann choice at temperature ``--tau`` (win chance; choices closer than about
    ``tau`` count as equally good), plus the policy's expected regret, which weighs each decision by
    what a mistake there costs. Only the actor (``mlp_extractor.policy_net`` and ``action_net``)
    learns; the value network is left as it is (``train/ppo.py --init`` gives a fresh one anyway).

    Each round's games also *measure* the network that played them: its mean regret per game, the
    win chance it loses to its own mistakes (round 0 measures the ``--init`` network, round ``k``
    the network after ``k`` fits; every round starts fresh games and counts those it finishes).
    Against ``optimal-win`` (which makes none) the expected score share is ``0.5 - regret per game``
    averaged over the seats (the luck-adjusted share of ``agents.evaluate --luck`` estimates the
    same number), so the network exported is the one with the least regret per game against
    ``optimal-win`` over the rounds. The solved game never moves for the agent: at play time the
    exported network decides alone.

Outputs (``--out``, default ``checkpoints/<ruleset>``), as ``train/ppo.py`` writes them
    ``best/model.zip`` + ``best/train.json`` (the chosen network in the SB3 checkpoint of ``--init``,
    the commands that made it appended), ``teach.json`` (every round: decisions, regret per game per
    opponent, the fit's loss and agreement), ``policy.onnx`` + ``policy.json`` (``agents.export``,
    the same graph and observation layout, so ``ppo:<out>`` plays it), ``eval.md`` / ``eval.json``
    (the final evaluation of ``train/ppo.py``: ``train.report.final_evaluation``) and ``README.md``.

Reuse
    :class:`WinTeacher` labels the rows of any ``zilch_env.engine.batched.BatchedGames`` of its ruleset,
    :func:`collect` plays and labels on any ``BatchedZilchVecEnv`` with any policy, :func:`fit`
    trains any SB3 masked actor policy on the decisions: a teacher per ruleset with a stored game
    table (:func:`teacher_for`) serves a generalist trained over many rulesets too: one VecEnv and
    one teacher per ruleset, their :class:`Decisions` joined before each fit.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable

# One BLAS thread per process (before numpy is imported): a small MLP gains nothing from threads.
for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from zilch_env import Ruleset, UnsupportedRulesError, load_ruleset  # noqa: E402
from train.held_out import refuse_held_out  # noqa: E402
from zilch_env.rules.load import parse_overrides  # noqa: E402

from train import teaching  # noqa: E402
from train.dagger import Decisions, collect, fit, teach_loss  # noqa: E402,F401
from train.teacher import TeachError, WinTeacher, teacher_for  # noqa: E402,F401
from train.teaching import Args, Lesson  # noqa: E402

__all__ = ["Decisions", "collect", "fit", "teach_loss", "Args", "TeachCourse", "build_parser", "parse_args",
           "main"]


def build_parser() -> argparse.ArgumentParser:
    """``train/teach.py``'s options: those of :class:`train.teaching.Args` for ``teach``."""
    return teaching.build_parser("teach", __doc__.split("\n\n")[0],
                                 epilog="Details: the module docstring (python -c 'import train.teach; "
                                        "help(train.teach)').")


def parse_args(argv: list[str] | None = None) -> Args:
    return teaching.parse_args("teach", argv, build_parser())


class TeachCourse(teaching.Course):
    """One ruleset's two-player win agent, taught by that ruleset's solved game: one lesson, the
    games against ``--opponents``, every round; the network chosen by its regret per game against
    ``optimal-win`` (else the first opponent), round 0 (the ``--init`` network) included."""

    best_before = {"metric": 0.0, "opponent": "-", "games": 0}

    def __init__(self, args: Args):
        super().__init__(args)
        self.rs = load_ruleset(args.ruleset, parse_overrides(list(args.set)))
        refuse_held_out(self.rs, "--ruleset")
        name = Path(args.ruleset).stem if args.ruleset.endswith(".toml") else args.ruleset
        self.out = Path(args.out) if args.out else ROOT / "checkpoints" / name
        self.specs = [s.strip() for s in args.opponents.split(",") if s.strip()]

    def start(self) -> bool:
        if not self.args.finish_only:
            return False
        meta = self.out / "best" / "train.json"
        saved = json.loads(meta.read_text()) if meta.is_file() else {}
        if "teach" not in saved:
            raise SystemExit(f"--finish-only: {meta} is not a taught checkpoint (run train/teach.py without "
                             "--finish-only first)")
        finish(self.args, self.rs, self.out, saved, saved["teach"]["seconds"])
        return True

    def check(self, zip_path: Path, state: dict[str, Any]) -> Path:
        args, rs = self.args, self.rs
        if state["ruleset"] != json.loads(json.dumps(rs.to_dict())):
            raise SystemExit(f"--init {args.init}: trained for other rules ({state['ruleset'].get('name')}); give "
                             "the same --ruleset and --set")
        if state.get("players", 2) != 2 or state.get("objective", "win") != "win":
            raise SystemExit(f"--init {args.init}: a {state.get('players')}-player {state.get('objective')} agent; "
                             "the teacher teaches two-player win agents")
        from train.args import shaping_cache_mb

        try:
            self.teacher = teacher_for(rs, threads=args.threads, cache_mb=shaping_cache_mb(args.cache_mb))
        except TeachError as e:
            raise SystemExit(str(e)) from None
        return self.out

    def setup(self, model: Any, obs_size: int, learner: Callable) -> None:
        from zilch_env.envs.vec_env import BatchedZilchVecEnv

        args = self.args
        try:
            opponents = make_opponents(self.specs, self.rs, self.teacher, learner)
        except TeachError as e:
            raise SystemExit(str(e)) from None
        venv = BatchedZilchVecEnv(self.rs, num_envs=args.n_envs, num_players=2, seed=args.seed, opponent=opponents,
                                  reward="win")
        venv.seed(args.seed)
        self.lessons = [Lesson("measured", self.rs.name, self.teacher, venv, args.decisions, self.specs)]

    def opening(self, zip_path: Path) -> str:
        args = self.args
        return (f"{self.rs.name}: teaching {zip_path} by the solved game; {args.rounds} rounds of "
                f"{args.decisions:,} decisions against {', '.join(self.specs)}; out {self.out}")

    def summary(self, rnd: int, played: list[tuple[Lesson, dict]]) -> tuple[dict[str, Any], float | None, dict]:
        stats = played[0][1]
        ref = "optimal-win" if "optimal-win" in stats else self.specs[0]
        rpg = stats[ref]["regret_per_game"]
        entry = {"round": rnd, "decisions": self.args.decisions, "measured": stats}
        return entry, rpg, {"regret_per_game": rpg, "opponent": ref, "games": stats[ref]["games"]}

    def losses(self, entry: dict[str, Any]) -> str:
        return " " + "  ".join(f"{s}: {d['regret_per_game']:.4f}/game ({d['games']})"
                               for s, d in entry["measured"].items() if d["regret_per_game"] is not None)

    def unmeasured(self) -> dict[str, Any]:
        return {"round": self.args.rounds, "regret_per_game": None, "opponent": self.specs[0], "games": 0}

    def chosen(self, best: dict[str, Any], history: list[dict]) -> dict[str, Any]:
        if best["regret_per_game"] is None:  # the measure of --init stays, with what was exported
            return {}
        return {"metric": 0.5 - best["regret_per_game"], "metric_kind": "0.5 - regret per game (solved game)",
                "opponent": best["opponent"], "games": best["games"]}

    def finish(self, out: Path, state: dict[str, Any], best: dict[str, Any], seconds: float, started: float) -> None:
        print(f"taught in {seconds / 60:.1f} minutes: the network after {best['round']} fits, {_lost(best)}; saved "
              f"{out / 'best'}", flush=True)
        if self.args.export:
            finish(self.args, self.rs, out, state, seconds, started)


def main(argv: list[str] | None = None) -> int:
    return teaching.main(TeachCourse, "teach", argv, build_parser())


def make_opponents(specs: list[str], rs: Ruleset, teacher: WinTeacher, learner: Callable) -> list[Any]:
    """The VecEnv's opponents of ``--opponents``: the teacher, the learner, or a kernel agent."""
    from agents.base import kernel_agent

    out: list[Any] = []
    for spec in specs:
        if spec == "optimal-win":
            out.append(teacher)
        elif spec == "self":
            out.append(learner)
        else:
            try:
                out.append(kernel_agent(spec, rs))
            except (UnsupportedRulesError, ValueError) as e:
                raise TeachError(f"--opponents {spec!r}: {e}; allowed are optimal-win, self and the agents "
                                 "with a batched form (optimal-turn, greedy, greedy:T, random, ...)") from None
    return out


def _lost(best: dict[str, Any], q: str = "") -> str:
    """What the chosen network lost per game, in words."""
    if best["regret_per_game"] is None:
        return "not measured (no game finished in a round)"
    return (f"which lost {best['regret_per_game']:.4f} win chance per game against {q}{best['opponent']}{q} over "
            f"{best['games']:,} games")


def finish(args: Args, rs: Ruleset, out: Path, state: dict[str, Any], seconds: float,
           started: float | None = None) -> None:
    """The export and the final evaluation of ``train/ppo.py``, and the checkpoint's README (with the
    whole command's wall time when ``started``, its ``time.perf_counter()`` at the start, is given)."""
    from agents.export import export
    from train.report import final_evaluation, write_readme

    onnx_path = export(out / "best" / "model.zip", out / "policy.onnx")
    print(f"exported {onnx_path} (+ {onnx_path.with_suffix('.json').name})", flush=True)
    ev = argparse.Namespace(seed=args.eval_seed, final_games=args.final_games, final_opponents=args.final_opponents,
                            eval_workers=args.eval_workers, progress=args.progress, ruleset=args.ruleset,
                            set=args.set, final_solo_turns=args.final_solo_turns)
    summary = (final_evaluation(ev, rs, 2, out) if args.final_games > 0 or args.final_solo_turns > 0 else None)
    write_readme(out, rs, state, summary)
    text = (out / "README.md").read_text()
    best = state["teach"]["chosen"]
    note = (f"Then taught by the solved game (`train/teach.py`: DAgger rounds of play, labels of every legal action by "
            f"`optimal-win`'s game table, supervised fit of the actor) in {seconds / 60:.1f} minutes; exported the "
            f"network after {best['round']} of {state['teach']['args']['rounds']} fits, {_lost(best, '`')} "
            "(`teach.json`: every round). The network "
            "plays alone: the table never moves for it.")
    if started is not None:
        note += (f" The whole `train/teach.py` command (teaching, export, final evaluation) took "
                 f"{(time.perf_counter() - started) / 60:.1f} minutes.")
    text = text.replace("a list means a run resumed with the later commands",
                        "run in order: `train/ppo.py` trains, `train/teach.py` teaches its checkpoint")
    lines = text.split("\n")
    at = next((i for i, ln in enumerate(lines) if ln.startswith("Trained ")), len(lines) - 1)
    lines[at + 1:at + 1] = ["", note]
    (out / "README.md").write_text("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
