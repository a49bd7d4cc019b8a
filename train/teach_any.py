"""The solved games teach the agent for any ruleset (``checkpoints/any``) where they exist, and the
agent keeps what it learnt everywhere else.

    python train/teach_any.py --init checkpoints/any            # after train/ppo.py --ruleset any
    python train/teach_any.py --help                             # every option with its default

What it does
    DAgger rounds as ``train/teach.py``'s, over many rulesets at once. Each round the network plays:

    * on every preset (two players; the presets' game tables ship), games against the preset's
      ``optimal-win`` (the teacher itself), ``optimal-turn`` and itself, every decision labelled with
      the regret of each legal action under the solved game (:class:`train.teacher.WinTeacher`);
    * on every preset at each player count of ``--players`` (3 and 4 by default), games against
      ``optimal-turn`` and itself, every decision labelled as in the two-player game of the mover
      against the leader, the highest score among the others (``train.teacher.WinTeacher(leader=True)``):
      not the solved game of those players, but the way of play that gives the presets' two-player
      win agents more than a fair share at 3 and 4 players;
    * on every preset with ``variants.piggyback`` on (two players), ``--piggyback-decisions`` a
      round, in games against the preset's ``optimal-win`` played so, ``optimal-turn`` and itself,
      every decision labelled by the preset's solved game as ``WinTeacher(piggyback=True)`` does: a
      keep as in the preset's game, an offer by the win chance of rolling on from it against a
      fresh turn. The game solver does not model piggyback; played this way the presets' solved
      games still beat the ``heuristic`` under piggyback;
    * on every preset with ``variants.overcoming`` on at each target of ``--overcoming-targets``
      (3,000 and 4,000 by default, targets of the distribution), two players and each player count
      of ``--players``, ``--overcoming-decisions`` a round, in games against the teacher, ``greedy``
      and itself. At the player counts of ``--solved-players`` (2 and 3), where
      :mod:`agents.solver.multi` solves the rules (``zilch``, ``zonk``), the teacher is the solved game
      of those players under overcoming itself (solved and cached on first use: minutes each); else
      the solved two-player game of those rules without overcoming
      (``WinTeacher(leader=True, overcoming=True)``): before the end a keep as in that game among the
      legal actions, a last turn above both the leader and the previous turn's result, leaving the
      seats still to play as little as it can (``GameTable.final_situation_of``);
    * with ``--solved-rules N``, on N two-player rulesets of the distribution that are not presets as
      they are (:func:`solved_draws`: drawn, seeded by ``--seed``, among those the game solver solves
      within ``--solved-max-rows``), ``--solved-decisions`` a round in games against that ruleset's
      ``optimal-win``, ``optimal-turn`` and itself, every decision labelled by that ruleset's own solved
      game (solved on the fly and cached, seconds to minutes each), as on the presets: the exact
      lessons off the presets that the bank thresholds under other scoring values need;
    * on the rulesets of the run's pool that are not presets (``train/ppo.py --ruleset any``'s
      ``--rules-pool`` draws, 2 to 4 players), games against ``optimal-turn`` (each ruleset's own
      table) and itself, every decision labelled by the network as it was before teaching:
      pseudo-regrets ``tau * (max logit - logit)``, whose Boltzmann choice at ``tau`` is exactly that
      network's policy, so the loss there is the cross-entropy to it (distillation). Piggyback
      offers there are the exception: the ruleset's exact turn values label them (take the offer
      when rolling on from it is worth more points than a fresh turn, as ``optimal-turn`` does),
      the other choice given up ``--offer-regret`` win chance (where the turn solver does not solve
      the rules, pyramiding, the network before teaching labels them);
    * on the pool's piggyback rulesets (those the turn solver solves), ``--offer-decisions`` offers
      a round, each labelled by those turn values alone: offers are a small part of the decisions
      above, and without these the network keeps the choices it had.

    The actor is fitted on all of it (:func:`train.dagger.fit`), so it learns the solved games'
    moves on the presets without forgetting the rest. Each round's preset games measure the network
    that played them (its regret per game against ``optimal-win``, on each preset, and on each
    ``--solved-rules`` ruleset); the one exported is the fitted network (round 1 on: the ``--init``
    network has none of the lessons above) with the least mean over the presets and those rulesets.
    The network decides alone at play time.

Outputs (``--out``, default the ``--init`` directory): ``best/model.zip`` + ``best/train.json`` (the
commands appended), ``teach.json`` (every round), ``policy.onnx`` + ``policy.json``; then
``train/generalist_eval.py`` measures it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, Callable

# One BLAS thread per process (before numpy is imported): a small MLP gains nothing from threads.
for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from zilch_env import load_ruleset  # noqa: E402

from train import teaching  # noqa: E402
from train.dagger import Decisions, distill  # noqa: E402,F401
from train.teaching import Args, Lesson  # noqa: E402

__all__ = ["AnyCourse", "build_parser", "parse_args", "main", "overcoming_teacher", "distill", "solved_draws"]


def build_parser() -> argparse.ArgumentParser:
    """``train/teach_any.py``'s options: those of :class:`train.teaching.Args` for ``teach_any``."""
    return teaching.build_parser("teach_any", __doc__.split("\n\n")[0])


def parse_args(argv: list[str] | None = None) -> Args:
    return teaching.parse_args("teach_any", argv, build_parser())


def solved_draws(count: int, max_rows: float, seed: int, batch: int = 64, batches: int = 50) -> list[Any]:
    """``count`` distinct two-player rulesets of the distribution, presets as they are left out, whose
    game the solver solves within ``max_rows`` turn-DP rows (``agents.solver.game.solve_size``), in
    the order drawn (seeded by ``seed``). ``SystemExit`` naming the limit when ``batches`` batches
    of ``batch`` draws hold fewer."""
    from agents.solver.game import solve_size
    from agents.solver.game_support import check_teachable
    from train.held_out import refuse_held_out
    from zilch_env import UnsupportedRulesError
    from zilch_env.rules.distribution import sample_rules

    out, seen = [], set()
    for b in range(batches):
        for d in sample_rules(batch, seed=[seed, 40, b]):
            if d.players != 2 or not d.overrides or d.ruleset in seen:
                continue
            try:
                check_teachable(d.ruleset)
            except UnsupportedRulesError:
                continue
            if solve_size(d.ruleset)[0] > max_rows:
                continue
            refuse_held_out(d.ruleset, f"the solved lesson's draw {d.label!r}")  # never: a draw of the distribution
            seen.add(d.ruleset)
            out.append(d)
            if len(out) == count:
                return out
    raise SystemExit(f"--solved-rules {count}: {len(out)} rulesets of the distribution solve within --solved-max-rows "
                     f"{max_rows:.0e} in {batches * batch} draws; ask fewer or raise --solved-max-rows")


def overcoming_teacher(rs: Any, players: int, solved_players: list[int], approximation: Any, cache_mb: float,
                       tables: dict[str, Any], progress: bool) -> tuple[Any, bool]:
    """The teacher of an overcoming lesson (``rs`` with overcoming on, ``players`` players): the solved
    game of those players (``agents.solver.multi``, one table per rules in ``tables``) when ``players``
    is in ``solved_players`` and the solver solves the rules, else ``approximation`` (the two-player
    game's, ``WinTeacher(leader=True, overcoming=True)``); and whether it is the solved game."""
    from agents.solver.multi import check_multi_supported, multi_key, solve_multi
    from train.teacher import WinTeacher
    from zilch_env import UnsupportedRulesError

    if players not in solved_players:
        return approximation, False
    try:
        check_multi_supported(rs, players)
    except UnsupportedRulesError:
        return approximation, False
    key = multi_key(rs, players)
    if key not in tables:
        tables[key] = solve_multi(rs, players, progress=progress)
    return WinTeacher(rs, table=tables[key], cache_mb=cache_mb), True


class AnyCourse(teaching.Course):
    """The agent for any ruleset (``train/ppo.py --ruleset any``), taught on the presets by their solved
    games and kept on the pool's other rulesets by the network before teaching (the module docstring);
    the network chosen by its mean regret per game against ``optimal-win`` over the presets, among
    the fitted ones (round 1 on)."""

    first_choice = 1
    agrees_with = "its labels"

    def check(self, zip_path: Path, state: dict[str, Any]) -> Path:
        args = self.args
        self.rules = state.get("ruleset", {})
        if self.rules.get("distribution") != "any":
            raise SystemExit(f"--init {args.init}: not an agent for any ruleset (its rules are "
                             f"{self.rules.get('name')!r}); teach a preset's agent with train/teach.py")
        self.zip_path = zip_path
        self.out = Path(args.out) if args.out else Path(args.init if Path(args.init).is_dir() else
                                                         zip_path.parent.parent)
        return self.out

    def setup(self, model: Any, obs_size: int, learner: Callable) -> None:
        from agents.progress import track

        from agents.base import kernel_agent
        from train.args import shaping_cache_mb
        from train.generalist import _opponent
        from train.selfplay import PolicySnapshot
        from train.teacher import WinTeacher, teacher_for
        from zilch_env.envs.vec_env import BatchedZilchVecEnv
        from zilch_env.rules.distribution import sample_rules

        args, progress = self.args, self.args.progress
        self.obs_size, self.frozen = obs_size, PolicySnapshot.from_policy(model.policy, deterministic=True)

        def vec(rs: Any, players: Any, opponents: list, n: int = args.n_envs, **kw: Any) -> Any:
            venv = BatchedZilchVecEnv(rs, num_envs=n, num_players=players, seed=args.seed, opponent=opponents, **kw)
            venv.seed(args.seed)
            return venv

        win, trio = ["optimal-win", "optimal-turn", "self"], ["optimal-turn", "self"]
        presets, multi, piggy = [], [], []
        for name in track(args.presets, "the presets' teachers", enabled=progress):
            rs = load_ruleset(name)
            cache_mb = shaping_cache_mb(args.cache_mb) / len(args.presets)
            teacher = teacher_for(rs, threads=args.threads, cache_mb=cache_mb)
            venv = vec(rs, 2, [teacher, kernel_agent("optimal-turn", rs), learner], reward="win")
            presets.append(Lesson("measured", name, teacher, venv, args.decisions, win, "optimal-win"))
            leader = WinTeacher(rs, table=teacher.table, leader=True)
            for n in args.players:
                venv = vec(rs, n, [kernel_agent("optimal-turn", rs), learner], reward="win")
                multi.append(Lesson("multi_player", f"{name} {n}p", leader, venv, args.multi_decisions, trio,
                                    "optimal-turn", last_round=False))
            if args.piggyback_decisions:
                pig_rs = load_ruleset(name, {"variants.piggyback": True})
                pig_teacher = WinTeacher(rs, table=teacher.table, piggyback=True)
                venv = vec(pig_rs, 2, [pig_teacher, kernel_agent("optimal-turn", pig_rs), learner], reward="win")
                piggy.append(Lesson("piggyback", f"{name} piggyback", pig_teacher, venv, args.piggyback_decisions,
                                    win, "optimal-win", last_round=False))
        over = []
        if args.overcoming_decisions:
            from agents.solver.game import solve_game

            jobs = [(name, t) for name in args.presets for t in args.overcoming_targets]
            solved_tables: dict[str, Any] = {}
            for name, t in track(jobs, "the overcoming lessons' games", enabled=progress):
                base = load_ruleset(name, {"target": t})
                cache_mb = shaping_cache_mb(args.cache_mb) / len(jobs)
                approx = WinTeacher(base, table=solve_game(base, progress=False), leader=True, overcoming=True,
                                    cache_mb=cache_mb)
                rs = load_ruleset(name, {"target": t, "variants.overcoming": True})
                for n in [2, *args.players]:
                    teacher, solved = overcoming_teacher(rs, n, list(args.solved_players), approx, cache_mb,
                                                         solved_tables, progress)
                    venv = vec(rs, n, [teacher, kernel_agent("greedy", rs), learner], reward="win")
                    what = f"{name} target {t} overcoming {n}p{' (solved game)' if solved else ''}"
                    over.append(Lesson("overcoming", what, teacher, venv, args.overcoming_decisions,
                                       ["optimal-win", "greedy", "self"], "optimal-win", last_round=False))
        solved = []
        if args.solved_rules:
            from agents.solver.game import solve_game

            draws = solved_draws(args.solved_rules, args.solved_max_rows, args.seed)
            for d in track(draws, "the distribution's solved games", enabled=progress):
                cache_mb = shaping_cache_mb(args.cache_mb) / len(draws)
                teacher = WinTeacher(d.ruleset, table=solve_game(d.ruleset, progress=False), cache_mb=cache_mb)
                venv = vec(d.ruleset, 2, [teacher, kernel_agent("optimal-turn", d.ruleset), learner], reward="win")
                solved.append(Lesson("solved", d.label, teacher, venv, args.solved_decisions, win, "optimal-win"))
        self.lessons = presets + multi + piggy + over + solved
        from train.held_out import refuse_held_out

        for lesson in self.lessons:  # the held-out suite is never taught
            for rs in lesson.venv.rulesets:
                refuse_held_out(rs, f"the lesson {lesson.name!r}")
        self.keep_env = self.offers = self.offer_env = self.offer_set = None
        teach_offers = args.offer_decisions and args.offer_regret > 0
        if args.keep_decisions or teach_offers:  # the pool's other rulesets, and their turn tables (solved once)
            draws = [d for d in sample_rules(self.rules["pool"], seed=self.rules["seed"])
                     if d.overrides or d.players != 2]
            for d in draws:  # never, by construction (tests/train/test_held_out.py); checked all the same
                refuse_held_out(d.ruleset, f"the pool's draw {d.label!r}")
            self.offers = _opponent("optimal-turn", draws, argparse.Namespace(seed=args.seed, progress=progress),
                                    None)
        if args.keep_decisions:
            self.keep_env = vec([d.ruleset for d in draws], [d.players for d in draws], [self.offers, learner],
                                4 * args.n_envs)
        if teach_offers:  # of those, the piggyback rulesets the turn solver solves (every one has overrides)
            pig = [(d, t) for d, t in zip(draws, self.offers.tables) if d.ruleset.variants.piggyback and t is not None]
            if pig:
                from zilch_env.players.kernel_agents import TableSet

                self.offer_set = TableSet([t for _, t in pig])
                self.offer_env = vec([d.ruleset for d, _ in pig], [d.players for d, _ in pig],
                                     [self.offer_set, learner], 4 * args.n_envs)

    def opening(self, zip_path: Path) -> str:
        presets = sum(lesson.group == "measured" for lesson in self.lessons)
        return (f"any ruleset: teaching {zip_path} on {presets} presets by their solved games, keeping it on "
                f"the pool's other rulesets; {self.args.rounds} rounds")

    def extras(self, learner: Callable) -> list[Decisions]:
        args, parts = self.args, []
        if self.keep_env is not None:
            parts.append(distill(self.keep_env, learner, self.frozen, args.keep_decisions, args.tau, self.obs_size,
                                 self.offers, args.offer_regret))
        if self.offer_env is not None:
            parts.append(distill(self.offer_env, learner, self.frozen, args.offer_decisions, args.tau, self.obs_size,
                                 self.offer_set, args.offer_regret, offers_only=True))
        return parts

    def summary(self, rnd: int, played: list[tuple[Lesson, dict]]) -> tuple[dict[str, Any], float | None, dict]:
        entry: dict[str, Any] = {"round": rnd, "measured": {}, "multi_player": {}, "piggyback": {}, "overcoming": {},
                                 "solved": {}}
        for lesson, stats in played:
            entry[lesson.group][lesson.name] = stats[lesson.measure]
        measured = [*entry["measured"].values(), *entry["solved"].values()]
        lost = [m["regret_per_game"] for m in measured if m["regret_per_game"] is not None]
        total = float(np.mean(lost)) if len(lost) == len(measured) else None
        entry["mean_regret_per_game"] = total
        return entry, total, {"mean_regret_per_game": total}

    def losses(self, entry: dict[str, Any]) -> str:
        shown = "  ".join(f"{n}: {m['regret_per_game']:.4f}" for n, m in entry["measured"].items()
                          if m["regret_per_game"] is not None)
        solved = [m["regret_per_game"] for m in entry.get("solved", {}).values() if m["regret_per_game"] is not None]
        if solved:
            shown += f"  ({len(solved)} solved rulesets of the distribution: mean {np.mean(solved):.4f})"
        total = entry["mean_regret_per_game"]
        return f", per game against optimal-win, {shown} (mean {total if total is None else round(total, 4)})"

    def unmeasured(self) -> dict[str, Any]:  # pragma: no cover - a tiny budget where no preset game finished
        return {"round": self.args.rounds, "mean_regret_per_game": None}

    def chosen(self, best: dict[str, Any], history: list[dict]) -> dict[str, Any]:
        if best["mean_regret_per_game"] is None:
            return {}
        rnd = history[best["round"]]
        games = sum(m["games"] for g in ("measured", "solved") for m in rnd.get(g, {}).values())
        return {"metric": 0.5 - best["mean_regret_per_game"], "opponent": "optimal-win", "games": games,
                "metric_kind": "0.5 - regret per game (solved games), the mean over the presets"
                               + (" and the solved rulesets of the distribution" if rnd.get("solved") else "")}

    def finish(self, out: Path, state: dict[str, Any], best: dict[str, Any], seconds: float, started: float) -> None:
        from agents.export import export
        from train.report import write_readme

        onnx_path = export(out / "best" / "model.zip", out / "policy.onnx")
        write_readme(out, load_ruleset(state["args"].get("eval_ruleset", "zonk")), state, None)
        m = best["mean_regret_per_game"]
        lost = "an unmeasured" if m is None else f"{m:.4f}"
        with open(out / "README.md", "a") as f:
            f.write(f"\nThen taught (`train/teach_any.py`, {seconds / 60:.1f} minutes): DAgger rounds in which each "
                    f"preset's solved game labels the agent's decisions there and the agent before teaching labels "
                    f"its decisions on the pool's other rulesets; exported the network after {best['round']} fits, "
                    f"which lost {lost} win chance per game against `optimal-win` on average over the presets"
                    f"{' and the solved rulesets of the distribution' if self.args.solved_rules else ''} "
                    f"(`teach.json`: every round). The network plays alone.\n\n"
                    f"Its evaluation (`train/generalist_eval.py`) is `eval.md` / `eval.json`.\n")
        print(f"taught in {seconds / 60:.1f} minutes: the network after {best['round']} fits; exported {onnx_path}",
              flush=True)


def main(argv: list[str] | None = None) -> int:
    return teaching.main(AnyCourse, "teach_any", argv, build_parser())


if __name__ == "__main__":
    sys.exit(main())
