"""The end of a ``train/ppo.py`` run: the final evaluation of the exported agent and the checkpoint's
``README.md`` (the commands that reproduce it and the results), with the small queries both need.

Imported by ``train/ppo.py`` (which re-exports these names); importing it imports neither torch nor
the evaluation (they are imported when called).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zilch_env import Ruleset

if TYPE_CHECKING:  # the Args dataclass of train/args.py
    from train.args import Args

__all__ = ["evaluate_now", "final_evaluation", "write_readme", "shown", "rate", "shapeable_game_table",
           "stored_game_table"]


def rate(x: Any) -> float:
    """A rate from the evaluation report: a number, or a dict with its interval (``{"rate": ...}``)."""
    return float(x["rate"]) if isinstance(x, dict) else float(x)


def stored_game_table(rs: Ruleset) -> bool:
    """Whether ``optimal-win`` can play ``rs`` without solving first (its table is cached or shipped)."""
    from agents.solver.game import load_game_table

    try:
        return load_game_table(rs) is not None
    except ValueError:  # rules the game solver does not cover
        return False


def shapeable_game_table(rs: Ruleset) -> bool:
    """Whether the win shaping and the teacher can read a stored game table of ``rs``: stored, and of
    rules they read (``agents.solver.game_support.check_teachable``: not under challenge)."""
    from agents.solver.game_support import check_teachable
    from zilch_env import UnsupportedRulesError

    try:
        check_teachable(rs)
    except UnsupportedRulesError:
        return False
    return stored_game_table(rs)


def final_evaluation(args: Any, rs: Ruleset, players: int, out: Path) -> dict[str, Any]:
    """The exported agent (or the best checkpoint) against every final opponent, one table each, and
    alone (points per turn against the exact turn optimum); ``eval.md`` / ``eval.json`` in ``out`` and
    the summary in ``policy.json``."""
    from rich.console import Console

    from agents.base import make_agent
    from agents.evaluate import evaluate

    console = Console(soft_wrap=True)
    me = f"ppo:{shown(out)}"
    seed = args.seed + 20_000
    summary: dict[str, Any] = {"agent": me, "seed": seed, "games_per_table": args.final_games,
                               "players": players, "vs": {}, "skipped": {}}
    md = [f"# {rs.name}: final evaluation of `{me}`", ""]
    for spec in [s.strip() for s in args.final_opponents.split(",") if s.strip()] * (args.final_games > 0):
        if spec == "optimal-win" and not stored_game_table(rs):
            summary["skipped"][spec] = ("no stored game table for these rules (solving it here could take "
                                        f"many minutes): run zilch solve --ruleset {args.ruleset}"
                                        + "".join(f" --set {kv}" for kv in args.set) + " --objective win")
            console.print(f"[dim]skipping {spec}: {summary['skipped'][spec]}[/dim]")
            continue
        try:
            make_agent(spec, rs)
        except Exception as e:  # an agent the ruleset or the install does not have
            summary["skipped"][spec] = f"{type(e).__name__}: {e}"
            console.print(f"[dim]skipping {spec}: {type(e).__name__}: {e}[/dim]")
            continue
        table = max(players, 2)  # a score agent (trained alone) is measured in 2-player games
        # One agent against copies: the N rotations are the distinct games of the N! permutations,
        # so rotations give the agent's results exactly, with (N-1)! times more deals for the games.
        rep = evaluate(agents=[me] + [spec] * (table - 1),
                       ruleset=rs, games=args.final_games, seed=seed, workers=args.eval_workers,
                       players=table, orders="rotations", solo_turns=0, progress=args.progress)
        rep.print()
        row = rep.data["tables"][0]["results"][0]
        summary["vs"][spec] = {"win": row["win"], "draw": row["draw"]["rate"],
                               "score_share": rate(row["score_share"]),
                               "score_share_ci": row["score_share"] if isinstance(row["score_share"], dict) else None,
                               "luck_adjusted": row.get("luck_adjusted"),
                               "luck_sd_reduction": row.get("luck_sd_reduction"),
                               "points_per_turn": row["points_per_turn"]["mean"], "games": row["games"]}
        md.append(rep.markdown())
    if args.final_solo_turns:
        rep = evaluate(agents=[me], ruleset=rs, games=1, seed=seed, workers=args.eval_workers,
                       solo_turns=args.final_solo_turns, progress=args.progress)
        rep.print()
        a = rep.data["solo"]["agents"][0]
        summary["solo"] = {"points_per_turn": a.get("points_per_turn"), "of_optimum": a.get("ratio"),
                           "optimum": rep.data["solo"]["optimum"], "error": a.get("error")}
        md.append(rep.markdown())
    (out / "eval.json").write_text(json.dumps(summary, indent=2))
    (out / "eval.md").write_text("\n".join(md) + "\n")
    if (out / "policy.json").exists():
        from agents.export import update_metadata

        update_metadata(out / "policy.json", evaluation=summary)
    return summary


def shown(path: Path) -> str:
    """A path as a command line would give it: relative to the current directory when inside it."""
    rel = os.path.relpath(path)
    return path.as_posix() if rel.startswith("..") else Path(rel).as_posix()


def write_readme(out: Path, rs: Ruleset, state: dict[str, Any], summary: dict[str, Any] | None) -> None:
    """``README.md`` of the checkpoint: the commands that reproduce it, the files, the evaluations."""
    best = state.get("best") or {}
    rules = state["ruleset"]
    if rules.get("distribution") == "any":
        title = (f"# {out.name}: PPO agent for any ruleset (the distribution `any` of zilch_env.rules.distribution, "
                 f"{rules['pool']} rulesets drawn with seed {rules['seed']}; evaluated on `{rs.name}`)")
    else:
        title = (f"# {out.name}: PPO agent for `{rs.name}` (objective {state['objective']}, "
                 f"{state['players']} player{'s' * (state['players'] > 1)})")
    lines = [title, "",
             "Reproduce (from the repository root; a list means a run resumed with the later commands):", "",
             "```sh", *state["commands"], "```", "",
             f"Trained {state.get('timesteps', 0):,} timesteps in {state.get('seconds', 0) / 60:.1f} minutes of "
             f"training{' against ' + ', '.join(state['opponents']) if state['opponents'] else ''}; "
             f"TensorBoard run `{state['run_dir']}`.", "",
             "Files: `policy.onnx` + `policy.json` (the exported CPU opponent, agent spec "
             f"`ppo:{shown(out)}`), `best/model.zip` + `best/train.json` (the SB3 checkpoint with the "
             "best periodic evaluation), `eval.md` / `eval.json` (the final evaluation).", ""]
    if best:
        what = (f"{best.get('metric_kind', 'score share')} {best['metric']:.3f} against `{best.get('opponent')}` "
                f"in {best.get('games')} games"
                if state["objective"] == "win" else f"{best['metric']:.1f} points per turn alone")
        if best.get("selected"):
            lines += [f"Exported: the {best['selected']} model, evaluated at {best['timesteps']:,} timesteps: "
                      f"{what}.", ""]
        else:
            lines += [f"Best periodic evaluation at {best['timesteps']:,} timesteps: {what}.", ""]
    if summary:
        lines += [f"Final evaluation (`agents.evaluate`, seat-balanced, common random numbers, seed "
                  f"{summary['seed']}, {summary['games_per_table']} games per opponent):", "",
                  "| opponent | win % [95% CI] | draw % | score share | luck-adjusted share % [95% CI] | "
                  "pts/turn |", "|---|---|---|---|---|---|"]
        for opp, r in summary["vs"].items():
            w = r["win"]
            la = r.get("luck_adjusted")
            adj = (f"{100 * la['mean']:.2f} [{100 * la['low']:.2f}, {100 * la['high']:.2f}]" if la else "-")
            lines.append(f"| `{opp}` | {100 * w['rate']:.1f} [{100 * w['low']:.1f}, {100 * w['high']:.1f}] | "
                         f"{100 * r['draw']:.1f} | {r['score_share']:.3f} | {adj} | {r['points_per_turn']:.0f} |")
        for opp, why in summary["skipped"].items():
            lines.append(f"| `{opp}` | not played: {why} | | | | |")
        if any(r.get("luck_adjusted") for r in summary["vs"].values()):
            lines += ["", "Luck-adjusted share: each game's result minus the luck of its dice, measured with the "
                          "exact game table (`agents.evaluate --luck`): the same expectation as the score share, "
                          "with a Student's t interval over the deals."]
        solo = summary.get("solo") or {}
        if solo.get("points_per_turn"):
            p = solo["points_per_turn"]
            ratio = solo.get("of_optimum")
            lines += ["", f"Alone: {p['mean']:.1f} points per turn [{p['low']:.1f}, {p['high']:.1f}] over "
                          f"{p['turns']:,} turns from the board"
                      + (f", {100 * ratio['mean']:.1f}% [{100 * ratio['low']:.1f}, {100 * ratio['high']:.1f}] of the "
                         f"exact turn optimum {solo['optimum']:.1f}" if ratio else "") + "."]
    (out / "README.md").write_text("\n".join(lines) + "\n")


def evaluate_now(model: Any, rs: Ruleset, args: Args, players: int) -> dict[str, Any]:
    """The periodic evaluation: against ``--eval-opponent`` (win) or alone (score). ``metric`` is
    what "best" maximises: the score share (wins + half draws) or the points per turn."""
    from agents.evaluate import evaluate
    from train.selfplay import PolicySnapshot

    snap = PolicySnapshot.from_policy(model.policy, deterministic=True, name="ppo")
    seed = args.seed + 10_000  # the same deals at every evaluation: checkpoints compare on equal dice
    if args.objective == "win":
        rep = evaluate(agents=[snap] + [args.eval_opponent] * (players - 1), ruleset=rs,
                       games=args.eval_games, seed=seed, workers=1, players=players, orders="rotations",
                       solo_turns=0)  # (rotations: as in the final evaluation above)
        row = rep.data["tables"][0]["results"][0]
        # With the game table stored, the luck-adjusted share (agents.evaluate --luck): the same
        # expectation without the dice's luck, so 400 games rank checkpoints far more finely.
        adjusted = (row.get("luck_adjusted") or {}).get("mean")
        return {"metric": rate(row["score_share"]) if adjusted is None else float(adjusted),
                "metric_kind": "score share" if adjusted is None else "luck-adjusted score share",
                "score_share": rate(row["score_share"]), "win": row["win"]["rate"], "draw": row["draw"]["rate"],
                "points_per_turn": row["points_per_turn"]["mean"], "games": row["games"],
                "opponent": args.eval_opponent}
    rep = evaluate(agents=[snap], ruleset=rs, games=1, seed=seed, workers=1,
                   solo_turns=args.eval_solo_turns)
    a = rep.data["solo"]["agents"][0]
    if "error" in a:
        return {"metric": 0.0, "points_per_turn": 0.0, "error": a["error"]}
    out = {"metric": a["points_per_turn"]["mean"], "points_per_turn": a["points_per_turn"]["mean"]}
    if "ratio" in a:
        out["of_optimum"] = a["ratio"]["mean"]
    return out
