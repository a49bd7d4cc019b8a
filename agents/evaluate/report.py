"""The reports: results tables on the terminal (rich), ``report.md``, ``report.json`` and the plots.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence
import itertools
import math
import sys

import numpy as np

from zilch_env import Policy, Ruleset

from agents.files import write_text_whole, write_whole
from agents.evaluate.stats import bradley_terry, cluster_mean, clustered_wilson, ratio_mean
from agents.evaluate.dice import order_kind
from agents.evaluate.config import EvalConfig, REPORT_FORMAT
from agents.evaluate.play import INTERACTION_VARIANTS


def _rate(x: np.ndarray, min_deff: float = 1.0) -> dict[str, float]:
    """A rate with its interval from outcomes in [0, 1] shaped ``(deals, seat orders)``."""
    rate, lo, hi, deff = clustered_wilson(x, min_deff)
    return {"rate": rate, "low": lo, "high": hi, "design_effect": deff}


def _deal_mean(x: np.ndarray) -> dict[str, Any]:
    """The mean of outcomes shaped ``(deals, seat orders)`` with Student's t 95% interval over the
    per-deal means (:func:`agents.evaluate.stats.cluster_mean`; None bounds with one deal)."""
    cm = cluster_mean(x)
    return {"rate": cm.mean, "low": _num(cm.low), "high": _num(cm.high), "stderr": _num(cm.stderr),
            "deals": cm.clusters}


@dataclass
class Report:
    """The result of :func:`evaluate`: ``data`` is the JSON document; ``scores`` and
    ``solo_points`` keep the raw per-game numbers for the plots."""

    data: dict[str, Any]
    scores: dict[str, np.ndarray] = field(default_factory=dict)  # final scores per agent, all its games
    solo_points: dict[str, np.ndarray] = field(default_factory=dict)  # per-turn solo points per agent

    # ------------------------------------------------------------------ building

    @classmethod
    def build(cls, cfg: EvalConfig, rs: Ruleset, specs: Sequence[str | Policy], labels: list[str],
              tables: list[tuple[int, ...]], orders: list[tuple[int, ...]], deals: int,
              merged: dict[tuple, dict[str, np.ndarray]], solo: list[dict[str, np.ndarray]],
              optimum: float | None, optimum_source: str, anchor: int | None,
              timing: dict[str, Any], engines: dict[tuple, str] | None = None,
              luck: dict[str, Any] | None = None, played: dict[tuple, int] | None = None) -> "Report":
        k = len(labels)
        pair_wins = np.zeros((k, k))  # pairwise results from every game: win 1, draw 1/2 each
        scores: dict[str, list[np.ndarray]] = {lab: [] for lab in labels}
        table_out = []
        for t in tables:
            m = merged[t]
            res, g = m["result"], len(m["length"])
            rows = []
            m_orders = len(orders)
            for pos, a in enumerate(t):
                r = res[:, pos]
                win, draw = r == 1.0, (r > 0) & (r < 1.0)
                wins, draws = int(win.sum()), int(draw.sum())
                losses = g - wins - draws
                by_deal = lambda x: x.reshape(-1, m_orders)  # noqa: E731 (games are deal-major)
                ppt = ratio_mean(by_deal(m["points"][:, pos]).sum(1), by_deal(m["turns"][:, pos]).sum(1))
                sc = m["score"][:, pos]
                scores[labels[a]].append(sc)
                adjusted, reduction = None, None
                if "luck" in m:
                    # Per deal, as the raw share's interval: the deal is the independent unit.
                    adj = by_deal(r - m["luck"][:, pos])
                    cm = cluster_mean(adj)
                    adjusted = {"mean": cm.mean, "low": _num(cm.low), "high": _num(cm.high),
                                "stderr": _num(cm.stderr), "deals": cm.clusters}
                    raw_sd = float(by_deal(r).mean(axis=1).std(ddof=1)) if cm.clusters > 1 else math.nan
                    # None when undefined: one deal, or no spread left (optimal play against itself)
                    reduction = _num(raw_sd / cm.sd) if cm.sd > 0 else None
                rows.append({
                    "agent": labels[a], "games": g, "wins": wins, "draws": draws, "losses": losses,
                    "win": _rate(by_deal(win)), "draw": _rate(by_deal(draw)), "loss": _rate(by_deal(r == 0)),
                    # Wins plus shares of draws, with the variance over the deals: the precise measure
                    # of a pair, since its interval keeps what the common dice cancel.
                    "score_share": _rate(by_deal(r), min_deff=1.0 / g),
                    # The same share with Student's t 95% interval over the per-deal shares (each
                    # deal's mean over its seat orders): the deals are the independent units, at any
                    # number of players (a fair share is 1 / players).
                    "score_share_t": _deal_mean(by_deal(r)),
                    "mean_score": float(sc.mean()), "sd_score": float(sc.std(ddof=1)) if g > 1 else 0.0,
                    "score_quantiles": {q: float(np.quantile(sc, q / 100)) for q in (10, 50, 90)},
                    "points_per_turn": ppt.to_dict(),
                    "zilch_rate": float(m["zilches"][:, pos].sum() / max(1, m["turns"][:, pos].sum())),
                    "turns_per_game": float(m["turns"][:, pos].mean()),
                    # The score share with the dice's luck removed (see the module docstring);
                    # None when the adjustment is off.
                    "luck_adjusted": adjusted, "luck_sd_reduction": reduction,
                })
            for i, j in itertools.combinations(range(len(t)), 2):
                wi, wj = res[:, i] > 0, res[:, j] > 0
                a, b = t[i], t[j]
                pair_wins[a, b] += (wi & ~wj).sum() + 0.5 * (wi & wj).sum()
                pair_wins[b, a] += (wj & ~wi).sum() + 0.5 * (wi & wj).sum()
            seat_wins = [float(res[m["seat"] == s].sum() / g) for s in range(len(t))]
            table_out.append({
                "agents": [labels[a] for a in t], "engine": (engines or {}).get(t, "single"), "deals": deals,
                "games": g, "games_played": (played or {}).get(t, g),
                "mean_length": float(m["length"].mean()), "seat_score_share": seat_wins, "results": rows,
            })
        games_between = pair_wins + pair_wins.T
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(games_between > 0, pair_wins / games_between, np.nan)
        ratings = None
        if tables:
            rt = bradley_terry(pair_wins, anchor=anchor)
            ratings = [{"agent": labels[i], "rating": _num(rt.rating[i]), "stderr": _num(rt.stderr[i])}
                       for i in range(k)]
            anchor_text = f"{labels[anchor]} = 0" if anchor is not None else "mean = 1500"
        solo_out = None
        solo_points = {}
        if solo:
            agents_out = []
            for a, s in enumerate(solo):
                if "error" in s:
                    agents_out.append({"agent": labels[a], "error": s["error"]})
                    continue
                rm = ratio_mean(s["points"], s["turns"])
                entry = {"agent": labels[a], "points_per_turn": rm.to_dict(),
                         "zilch_rate": s["zilches"] / max(1, int(s["turns"].sum()))}
                if optimum:
                    entry["ratio"] = rm.scaled(optimum).to_dict()
                agents_out.append(entry)
                solo_points[labels[a]] = s["turn_points"]
            solo_out = {"turns": cfg.solo_turns, "optimum": optimum, "optimum_source": optimum_source,
                        "variants_off": [v for v in INTERACTION_VARIANTS if getattr(rs.variants, v)],
                        "agents": agents_out}
        data = {
            "format": REPORT_FORMAT,
            "config": {
                "agents": labels, "specs": [s if isinstance(s, str) else f"<{type(s).__module__}.{type(s).__qualname__}>"
                          for s in specs],
                "ruleset": rs.name, "games": cfg.games, "deals": deals, "seed": cfg.seed,
                "players": cfg.players, "orders": order_kind(cfg.players, cfg.orders),
                "seat_orders": [list(o) for o in orders], "fair_share": 1.0 / cfg.players,
                "solo_turns": cfg.solo_turns, "engine": cfg.engine,
                "luck": luck or {"mode": cfg.luck, "on": False, "why_off": "not asked"},
            },
            "ruleset": rs.to_dict(),
            "tables": table_out,
            "pairwise": {"agents": labels, "score_share": _nested(share), "games": _nested(games_between)},
            "ratings": {"scale": "Elo (Bradley-Terry MLE, draws = half)",
                        "anchor": anchor_text, "agents": ratings} if ratings else None,
            "solo": solo_out,
            "timing": timing,
        }
        return cls(data, {lab: np.concatenate(v) if v else np.zeros(0, np.int64) for lab, v in scores.items()},
                   solo_points)

    # ------------------------------------------------------------------ views

    def results(self) -> dict[str, Any]:
        """The report without its timing: identical for a given seed whatever the workers."""
        return {k: v for k, v in self.data.items() if k != "timing"}

    def to_json(self) -> str:
        import json

        return json.dumps(self.data, indent=2, allow_nan=False, default=_json_default)

    def rich_tables(self) -> list[Any]:
        """The report as rich renderables: results per table, ratings, solo measure, with notes."""
        from rich.table import Table
        from rich.text import Text

        d = self.data
        cfg = d["config"]
        out = []
        if d["tables"]:
            tb = Table(title=f"{cfg['ruleset']}: {cfg['players']}-player tables, {d['tables'][0]['games']} "
                       f"games each, seed {cfg['seed']}", title_justify="left")
            luck = _has_luck(d)
            # a narrow terminal wraps the cells (overflow "fold"), never cuts them with "…"
            tb.add_column("agent", overflow="fold")
            tb.add_column("vs", overflow="fold")
            for col in RESULT_COLUMNS + (LUCK_COLUMNS_SHORT if luck else ()):
                tb.add_column(col, justify="right", overflow="fold")
            for t in d["tables"]:
                for ri, r in enumerate(t["results"]):
                    others = ", ".join(a for k, a in enumerate(t["agents"]) if k != ri)
                    tb.add_row(r["agent"], others, *_row_cells(r, t, luck), end_section=ri == len(t["results"]) - 1)
            out.append(tb)
            if luck:
                out.append(Text("luck-adj. share: the score share % with the dice's luck removed by the exact "
                                "game table (unbiased; Student's t 95% interval over the deals); sd ÷: how many "
                                "times smaller the spread of the per-deal share became", style="dim"))
        if d["ratings"]:
            rt = Table(title=f"Elo ratings, {d['ratings']['anchor']}", title_justify="left")
            rt.add_column("agent", overflow="fold")
            rt.add_column("rating", justify="right")
            rt.add_column("± 95%", justify="right")
            for r in sorted(d["ratings"]["agents"], key=lambda r: -_sortable(r["rating"])):
                rt.add_row(r["agent"], _fmt(r["rating"], "{:.0f}"), _fmt(_ci95(r["stderr"]), "{:.0f}"))
            out += [rt, Text("Bradley-Terry maximum likelihood over all games, a draw = half a win", style="dim")]
        if d["solo"]:
            s = d["solo"]
            opt = s["optimum"]
            st = Table(title="solo: points per turn from the board" + (f", exact optimum {opt:.1f}" if opt else ""),
                       title_justify="left")
            for col in ("agent", "pts/turn [95% CI]", "of optimum [95% CI]", "zilch %"):
                st.add_column(col, justify="left" if col == "agent" else "right", overflow="fold")
            for a in s["agents"]:
                if "error" in a:
                    st.add_row(a["agent"], f"no solo measure: {a['error']}", "-", "-")
                    continue
                st.add_row(a["agent"], _ci_text(a["points_per_turn"], "{:.1f}"),
                           _ci_text(a["ratio"], "{:.1%}") if "ratio" in a else "-",
                           f"{100 * a['zilch_rate']:.1f}")
            out += [st, Text(f"{s['turns']} turns per agent in one-player games; 95% intervals clustered by game"
                             + ("" if opt else f"; {s['optimum_source']}"), style="dim")]
        return out

    def print(self, console: Any = None) -> None:
        """The report on standard output: rich tables on a terminal (or the ``console`` given), the
        narrow text of :meth:`text` anywhere else (a pipe, a file, a log)."""
        if console is None and not sys.stdout.isatty():
            print(self.text(), end="", flush=True)
            return
        from rich.console import Console

        console = console or Console()
        for t in self.rich_tables():
            console.print(t)
        timing = self._timing_line()
        if timing:
            console.print(timing, style="dim")

    def _timing_line(self) -> str:
        tm = self.data["timing"]
        if not tm.get("games"):
            return ""
        w = tm["workers"]
        n_played = tm.get("games_played", tm["games"])
        repeats = (f" ({n_played} played; the seat orders that seat copies of an agent alike repeat them)"
                   if n_played < tm["games"] else "")
        return (f"{tm['games']} games{repeats} in {tm['tournament_seconds']:.1f} s "
                f"({tm['games_per_second']:,.0f} games/s, "
                + (f"Ray, {w} CPU{'s' * (w > 1)})" if tm.get("ray") else f"{w} worker{'s' * (w > 1)})"))

    def text(self, width: int = 80) -> str:
        """The report as plain text no wider than ``width`` (for pipes and logs): each result as a
        line naming the agent and its opponents and the measures packed into lines below it, every
        ``name value`` kept whole; the notes wrapped."""
        import textwrap

        d, cfg = self.data, self.data["config"]
        lines: list[str] = []

        def para(text: str, indent: str = "") -> None:
            lines.extend(textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=indent,
                                       break_on_hyphens=False) or [""])

        if d["tables"]:
            luck = _has_luck(d)
            para(f"{cfg['ruleset']}: {cfg['players']}-player tables, {d['tables'][0]['games']} games each, "
                 f"seed {cfg['seed']}")
            names = RESULT_COLUMNS + (LUCK_COLUMNS_SHORT if luck else ())
            for t in d["tables"]:
                for ri, r in enumerate(t["results"]):
                    others = ", ".join(a for k, a in enumerate(t["agents"]) if k != ri)
                    para(f"{r['agent']} vs {others}", "  ")
                    lines.extend(_pack([f"{n} {v}" for n, v in zip(names, _row_cells(r, t, luck))], width, "    "))
            if luck:
                para("luck-adj. share: the score share % with the dice's luck removed by the exact game table "
                     "(unbiased; Student's t 95% interval over the deals); sd ÷: how many times smaller the "
                     "spread of the per-deal share became")
        if d["ratings"]:
            para(f"Elo ratings, {d['ratings']['anchor']} (Bradley-Terry maximum likelihood over all games, "
                 "a draw = half a win):")
            for r in sorted(d["ratings"]["agents"], key=lambda r: -_sortable(r["rating"])):
                lines.extend(_pack([f"{r['agent']}:", f"{_fmt(r['rating'], '{:.0f}')} ± "
                                    f"{_fmt(_ci95(r['stderr']), '{:.0f}')}"], width, "  "))
        if d["solo"]:
            s = d["solo"]
            opt = s["optimum"]
            para("solo: points per turn from the board" + (f", exact optimum {opt:.1f}" if opt else "")
                 + f" ({s['turns']} turns per agent in one-player games; 95% intervals clustered by game"
                 + ("" if opt else f"; {s['optimum_source']}") + "):")
            for a in s["agents"]:
                if "error" in a:
                    para(f"{a['agent']}: no solo measure: {a['error']}", "  ")
                    continue
                cells = [f"{a['agent']}:", f"pts/turn {_ci_text(a['points_per_turn'], '{:.1f}')}"]
                if "ratio" in a:
                    cells.append(f"of optimum {_ci_text(a['ratio'], '{:.1%}')}")
                lines.extend(_pack(cells + [f"zilch % {100 * a['zilch_rate']:.1f}"], width, "  "))
        timing = self._timing_line()
        if timing:
            para(timing)
        return "\n".join(lines) + "\n"

    def markdown(self, plots: Sequence[str] = (), command: str | None = None) -> str:
        """The report as Markdown; ``plots`` are image paths relative to the Markdown file."""
        d, cfg = self.data, self.data["config"]
        lines = [f"# Evaluation: {cfg['ruleset']}", ""]
        if command:
            lines += ["```", command, "```", ""]
        lines += [f"Agents: {', '.join(f'`{a}`' for a in cfg['agents'])}. {cfg['players']}-player tables, "
                  f"{cfg['deals']} deals per table, each played in {len(cfg['seat_orders'])} seat orders "
                  f"with the same dice (common random numbers); seed {cfg['seed']}.", ""]
        if d["tables"]:
            luck = _has_luck(d)
            cols = RESULT_COLUMNS + (LUCK_COLUMNS if luck else ())
            lines += ["| table | agent | " + " | ".join(cols) + " | design effect |",
                      "|---|---|" + "---:|" * (len(cols) + 1)]
            for t in d["tables"]:
                for ri, r in enumerate(t["results"]):
                    name = " vs ".join(t["agents"]) if ri == 0 else ""
                    lines.append("| " + " | ".join([name, f"`{r['agent']}`", *_row_cells(r, t, luck),
                                                    f"{r['win']['design_effect']:.2f}"]) + " |")
            lines += ["", "win and draw: rates with Wilson 95% intervals (on the effective number of games when "
                      "the games of a deal pull together, never narrower than for independent games); share: "
                      f"wins plus shares of draws (a draw of k players is 1/k each), {100 / cfg['players']:.1f}% "
                      f"= a fair share at {cfg['players']} players, with Wilson's interval on the effective number of "
                      "games, whose variance is that of the per-deal shares (each deal's mean over its seat "
                      "orders) over the number of deals, so it keeps the luck the common dice cancel (report.json "
                      "also gives Student's t interval over the per-deal shares, `score_share_t`); score: mean "
                      "final score; pts/turn: points recorded per "
                      "turn; turns: every player's turns per game; design effect: the variance of the win rate "
                      "against that of as many independent games (below 1: the common dice cancelled that much "
                      "of the luck).", ""]
            lk = cfg.get("luck") or {}
            if not luck and lk.get("mode") == "auto" and lk.get("why_off"):
                lines += [f"No luck-adjusted results: {lk['why_off']}.", ""]
            if luck:
                lines += ["luck-adjusted share: each game's result minus the luck of its dice, measured with the "
                          "exact game table (the changes of the optimal win chance that the dice caused, each "
                          "zero on average): an unbiased estimate of the share with far less variance, with "
                          "Student's t 95% interval over the deals; luck sd ÷: the standard deviation of the "
                          "per-deal share over that of the adjusted share (a reduction k is worth k² times the "
                          "games).", ""]
            batched = [" vs ".join(t["agents"]) for t in d["tables"] if t.get("engine") == "batched"]
            if batched:
                lines += [f"On the batched engine (same deals, greedy and optimal-turn games move for move "
                          f"the same): "
                          f"{'; '.join(batched)}. The other tables on the single-game engine.", ""]
        if d["ratings"]:
            lines += [f"## Ratings", "", f"{d['ratings']['scale']}, anchored at {d['ratings']['anchor']}.", "",
                      "| agent | rating | ± 95% |", "|---|---:|---:|"]
            for r in sorted(d["ratings"]["agents"], key=lambda r: -_sortable(r["rating"])):
                lines.append(f"| `{r['agent']}` | {_fmt(r['rating'], '{:.0f}')} | {_fmt(_ci95(r['stderr']), '{:.0f}')} |")
            lines.append("")
        if d["solo"]:
            s = d["solo"]
            opt = s["optimum"]
            lines += ["## Solo measure", "",
                      f"Mean points per turn over {s['turns']} turns from the board (one-player games, "
                      "the same dice for every agent; 95% intervals clustered by game). "
                      + (f"Exact optimum of the turn: **{opt:.2f}** ({s['optimum_source']})." if opt
                         else f"No exact optimum: {s['optimum_source']}.")
                      + (f" Off in these games: {', '.join(s['variants_off'])} (they tie a turn to "
                         "another player's)." if s["variants_off"] else ""), "",
                      "| agent | pts/turn [95% CI] | of optimum [95% CI] | zilch % |", "|---|---:|---:|---:|"]
            for a in s["agents"]:
                if "error" in a:
                    lines.append(f"| `{a['agent']}` | no solo measure: {a['error']} | - | - |")
                    continue
                lines.append(f"| `{a['agent']}` | {_ci_text(a['points_per_turn'], '{:.1f}')} | "
                             f"{_ci_text(a['ratio'], '{:.1%}') if 'ratio' in a else '-'} | "
                             f"{100 * a['zilch_rate']:.1f} |")
            lines.append("")
        for p in plots:
            lines += [f"![{Path(p).stem.replace('_', ' ')}]({p})", ""]
        return "\n".join(lines)

    # ------------------------------------------------------------------ files

    def plot(self, out: str | Path) -> list[str]:
        """Write the PNG plots into ``out``; returns their file names."""
        from zilch_env.extras import require

        matplotlib = require("matplotlib", "eval", "writing the plots", otherwise="or write the report without "
                             "them: --no-plots")
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        d = self.data
        labels = d["config"]["agents"]
        written = []
        if d["tables"]:
            share = np.array([[np.nan if v is None else v for v in row] for row in d["pairwise"]["score_share"]],
                             dtype=float)
            fig, ax = plt.subplots(figsize=(1.2 * len(labels) + 2.5, 1.0 * len(labels) + 1.8))
            ax.set_facecolor("#dddddd")  # the diagonal and pairs that never met stay grey
            im = ax.imshow(np.ma.masked_invalid(share), cmap="RdBu", vmin=0, vmax=1)
            ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
            ax.set_yticks(range(len(labels)), labels)
            ax.set_xlabel("opponent")
            ax.set_ylabel("agent")
            for i in range(len(labels)):
                for j in range(len(labels)):
                    if not np.isnan(share[i, j]):
                        ax.text(j, i, f"{share[i, j]:.2f}", ha="center", va="center",
                                color="white" if abs(share[i, j] - 0.5) > 0.3 else "black")
            fig.colorbar(im, ax=ax, label="score rate (win = 1, draw = ½)")
            ax.set_title(f"{d['config']['ruleset']}: row agent against column agent")
            fig.tight_layout()
            write_whole(out / "winrate_matrix.png", lambda tmp: fig.savefig(tmp, dpi=110))
            plt.close(fig)
            written.append("winrate_matrix.png")

            fig, ax = plt.subplots(figsize=(7.5, 4.2))
            allsc = np.concatenate([v for v in self.scores.values() if len(v)])
            bins = np.linspace(0, max(1, allsc.max()), 50)
            for lab in labels:
                if len(self.scores.get(lab, ())):
                    ax.hist(self.scores[lab], bins=bins, histtype="step", linewidth=1.6, density=True,
                            label=f"{lab} (mean {self.scores[lab].mean():.0f})")
            ax.axvline(d["ruleset"]["target"], color="grey", linestyle=":", linewidth=1, label="target")
            ax.set_xlabel("final score")
            ax.set_ylabel("density")
            ax.set_title(f"{d['config']['ruleset']}: final scores over all games")
            ax.legend(fontsize=8)
            fig.tight_layout()
            write_whole(out / "score_distributions.png", lambda tmp: fig.savefig(tmp, dpi=110))
            plt.close(fig)
            written.append("score_distributions.png")

        measured = [a for a in d["solo"]["agents"] if "error" not in a] if d["solo"] else []
        if measured:
            s = d["solo"]
            fig, ax = plt.subplots(figsize=(1.1 * len(measured) + 3, 4.2))
            means = [a["points_per_turn"]["mean"] for a in measured]
            err = np.array([[a["points_per_turn"]["mean"] - a["points_per_turn"]["low"],
                             a["points_per_turn"]["high"] - a["points_per_turn"]["mean"]] for a in measured]).T
            err = np.nan_to_num(err)
            names = [a["agent"] for a in measured]
            ax.bar(range(len(names)), means, yerr=err, capsize=4, color="#4C72B0")
            ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
            if s["optimum"]:
                ax.axhline(s["optimum"], color="#C44E52", linestyle="--", label=f"exact optimum {s['optimum']:.1f}")
                for i, a in enumerate(measured):  # the share of the optimum, inside the bar
                    ax.text(i, means[i] / 2, f"{a['ratio']['mean']:.1%}\nof optimum", ha="center",
                            va="center", fontsize=8, color="white")
                top = max(s["optimum"], max(a["points_per_turn"]["high"] for a in measured))
                ax.set_ylim(0, top * 1.18)
                ax.legend(fontsize=8, loc="upper right")
            ax.set_ylabel("mean points per turn (95% CI)")
            ax.set_title(f"{d['config']['ruleset']}: points per turn from the board")
            fig.tight_layout()
            write_whole(out / "points_per_turn.png", lambda tmp: fig.savefig(tmp, dpi=110))
            plt.close(fig)
            written.append("points_per_turn.png")
        return written

    def write(self, out: str | Path, command: str | None = None, plots: bool = True) -> list[Path]:
        """Write ``report.json``, the plots and ``report.md`` into ``out``; returns the paths."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        names = self.plot(out) if plots else []
        write_text_whole(out / "report.json", self.to_json() + "\n")  # whole or not at all (Ctrl-C)
        write_text_whole(out / "report.md", self.markdown(names, command))
        return [out / "report.md", out / "report.json", *(out / n for n in names)]


def _num(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def _nested(a: np.ndarray) -> list[list[float | None]]:
    return [[_num(float(v)) for v in row] for row in a]


def _json_default(o: Any) -> Any:
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    raise TypeError(f"not JSON: {type(o).__name__}")


def _sortable(x: float | None) -> float:
    return -math.inf if x is None else x


def _ci95(se: float | None) -> float | None:
    return None if se is None else 1.959963984540054 * se


def _fmt(x: float | None, f: str) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f.format(x)


def _ci_text(d: dict[str, float], f: str) -> str:
    if d["low"] is None or math.isnan(d["low"]):
        return _fmt(d["mean"], f)
    return f"{f.format(d['mean'])} [{f.format(d['low'])}, {f.format(d['high'])}]"


#: The columns of the results table (terminal and Markdown).
RESULT_COLUMNS = ("win % [95% CI]", "draw %", "share % [95% CI]", "score", "pts/turn", "zilch %", "turns")
#: The columns added when the results are adjusted for luck.
LUCK_COLUMNS = ("luck-adjusted share [95% CI]", "luck sd ÷")
#: Their shorter names on the terminal, where the table is already wide.
LUCK_COLUMNS_SHORT = ("luck-adj. share", "sd ÷")


def _pack(items: Sequence[str], width: int, indent: str) -> list[str]:
    """``items`` joined by ``;`` (none after an item that ends with ``:``) into lines of at most
    ``width`` characters after ``indent``, an item never split (one longer than a line gets a line of
    its own)."""
    out: list[str] = []
    line = ""
    for k, item in enumerate(items):
        piece = item + (";" if k < len(items) - 1 and not item.endswith(":") else "")
        if line and len(indent) + len(line) + 1 + len(piece) > width:
            out.append(indent + line)
            line = piece
        else:
            line = f"{line} {piece}" if line else piece
    if line:
        out.append(indent + line)
    return out


def _has_luck(d: dict[str, Any]) -> bool:
    return any(r.get("luck_adjusted") for t in d["tables"] for r in t["results"])


def _row_cells(r: dict[str, Any], t: dict[str, Any], luck: bool = False) -> list[str]:
    w, sh = r["win"], r["score_share"]
    cells = [f"{100 * w['rate']:.1f} [{100 * w['low']:.1f}, {100 * w['high']:.1f}]",
             f"{100 * r['draw']['rate']:.1f}", f"{100 * sh['rate']:.1f} [{100 * sh['low']:.1f}, {100 * sh['high']:.1f}]",
             f"{r['mean_score']:.0f}",
             _fmt(r["points_per_turn"]["mean"], "{:.1f}"), f"{100 * r['zilch_rate']:.1f}",
             f"{t['mean_length']:.1f}"]
    if luck:
        la = r.get("luck_adjusted")
        if la is None:
            cells += ["-", "-"]
        else:
            pct = {k: None if la[k] is None else 100 * la[k] for k in ("mean", "low", "high")}
            cells += [_ci_text(pct, "{:.1f}"), _fmt(r["luck_sd_reduction"], "{:.1f}×")]
    return cells
