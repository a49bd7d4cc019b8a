"""How well a solved two-player game plays a game of 3 or 4 players, against the ``heuristic``.

    python bench/multiplayer_teacher.py --ruleset zilch --set target=3500 --set variants.overcoming=true \\
        --players 3 [--games 3000] [--agents ppo:checkpoints/any]

``train/teach_any.py`` teaches games of 3 and 4 players as the mover's two-player game against the
leader, the highest score among the others (``train.teach.WinTeacher(leader=True)``), and the
presets under piggyback as their own game (``WinTeacher(piggyback=True)``; ``--players 2 --set
variants.piggyback=true``). This measures that teacher as a player, so a learner's result there can
be read against what its lesson is worth:

* ``leader``: every decision the best of the two-player game table against the leader
  (:func:`train.teach.leader_seats`); a last turn as :func:`train.teach.table_situation` gives it:
  above the leader and, under ``overcoming``, the previous turn's result, leaving the seats still to
  play as little as it can (``GameTable.final_situation_of``);
* ``product``: before the game's end is reached, the action with the largest product of the mover's
  two-player win chances against each other player (as if its races with them were independent);
  from the end on, as ``leader``.

The table is that of the rules without ``overcoming`` and ``piggyback`` (the game solver models
neither): before the end a keep is valued as in those rules, among the actions the game allows; an
offer by the win chance of rolling on from it against a fresh turn. It is solved and cached on
first use (seconds for targets up to 5,000). ``--solved`` also measures ``solved``: the game of these
players and rules solved exactly (:mod:`agents.solver.multi`, every player maximising their own
chance), played as it is solved. Each agent plays one seat against ``heuristic`` in the others, seat
permutations and common random numbers (``agents.evaluate``); printed: its share of the seats'
results with a 95% interval, and the fair share. ``--agents`` adds agent specs measured on the same
deals. ``--split`` measures each of them also as two halves: ``X / heuristic's end`` plays X until
the game's end is reached (a player at the target: the final round, any tie-break) and the
heuristic from then on, ``heuristic / X's end`` the other way round; read against the heuristic's
fair share, they tell how much of X's result comes from each part of the game.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from zilch_env import FRESH, NO_CHALLENGE, PIGGYBACK, GameState, Phase, Ruleset, load_ruleset  # noqa: E402
from zilch_env.rules.load import parse_overrides  # noqa: E402


class TwoPlayerTablePlayer:
    """Plays a game of any number of players from a two-player game table (``mode`` ``leader`` or
    ``product``, see the module's docstring)."""

    def __init__(self, table: Any, mode: str):
        self.table, self.mode = table, mode
        self.name = f"table-{mode}"
        self.ruleset = table.ruleset

    def _situation(self, st: GameState, seats: Sequence[int], queue: Any, tied: Any) -> tuple:
        return self.table.situation_of(seats.index(st.current), 0, [st.scores[q] for q in seats],
                                       [st.on_board[q] for q in seats], [st.zilch_streak[q] for q in seats],
                                       queue, tied, st.tiebreak_round)

    def _leader(self, st: GameState) -> tuple:
        from train.teacher import table_situation

        return table_situation(self.table, st.current, st.first, st.scores, st.on_board, st.zilch_streak,
                               st.final_queue, st.tiebreak_players, st.tiebreak_round, st.last_result,
                               st.ruleset.variants.overcoming)

    def _values(self, st: GameState, sit: tuple) -> dict[int, float]:
        cap = self.table.stable_cap(sit)
        if st.phase == Phase.PIGGYBACK:  # a fresh turn, or rolling on from the offer
            (total, dice), D = st.offer, self.ruleset.dice  # type: ignore[misc]
            return {FRESH: self.table.roll_value(sit, 0, D, tmin=cap),
                    PIGGYBACK: self.table.roll_value(sit, total, dice, tmin=cap)}
        # the keeps of the game's roll in the table's situation (the legal ones: under overcoming a
        # bank below the bar is not among them)
        return self.table.action_values(st, cut=False, tmin=cap, situation=sit)

    def act(self, st: GameState, legal: Sequence[int], rng: np.random.Generator) -> int:
        if st.phase == Phase.CHALLENGE:
            return NO_CHALLENGE
        if self.mode == "product" and st.final_queue is None and st.tiebreak_players is None:
            score = {a: 1.0 for a in legal}
            for q in range(st.num_players):
                if q != st.current:
                    seats = sorted((st.current, q), key=lambda x: (x - st.first) % st.num_players)
                    vals = self._values(st, self._situation(st, seats, None, None))
                    score = {a: s * vals[a] for a, s in score.items()}
        else:
            vals = self._values(st, self._leader(st))
            score = {a: vals[a] for a in legal}
        return max(legal, key=lambda a: (score[a], a & 1, -a))


class SolvedPlayer:
    """Plays from the solved game of the game's own players and rules (:mod:`agents.solver.multi`)."""

    name = "solved"

    def __init__(self, table: Any):
        self.table = table
        self.ruleset = table.ruleset

    def act(self, st: GameState, legal: Sequence[int], rng: np.random.Generator) -> int:
        return self.table.best_action(st, legal)


class EndgameSplit:
    """One agent before the game's end is reached, another from then on (the final round and any
    tie-break): ``--split`` tells which part of a game an agent's result comes from."""

    def __init__(self, before: Any, after: Any):
        self.before, self.after = before, after
        self.name = f"{before.name} / {after.name}"

    def act(self, st: GameState, legal: Sequence[int], rng: np.random.Generator) -> int:
        endgame = st.final_queue is not None or st.tiebreak_players is not None
        return (self.after if endgame else self.before).act(st, legal, rng)


def base_rules(rs: Ruleset) -> Ruleset:
    """The rules the two-player table is solved for: ``rs`` without overcoming and piggyback."""
    return dataclasses.replace(rs, variants=dataclasses.replace(rs.variants, overcoming=False, piggyback=False))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench/multiplayer_teacher.py", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--ruleset", default="zilch", help="preset name or TOML file")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a rule (repeatable)")
    p.add_argument("--players", type=int, default=3,
                   help="players, 2 to 4 (at 2 both players are the table's own game)")
    p.add_argument("--games", type=int, default=3000, help="games played (as train/generalist_eval.py counts them)")
    p.add_argument("--agents", nargs="*", default=["ppo:checkpoints/any"], help="agent specs also measured")
    p.add_argument("--seed", type=int, default=11, help="seed of the deals")
    p.add_argument("--solved", action="store_true",
                   help="also measure the solved game of these players and rules (agents.solver.multi: three "
                        "players, or two under overcoming; solved and cached on first use, minutes for targets of "
                        "3,000 and more)")
    p.add_argument("--split", action="store_true",
                   help="also measure each agent with the heuristic's play from the game's end on (the final "
                        "round, any tie-break) and the heuristic with the agent's play there")
    args = p.parse_args(argv)
    if not 2 <= args.players <= 4:
        p.error(f"--players {args.players}: 2 to 4")
    if args.games < 1:
        p.error(f"--games {args.games}: 1 or more")
    from agents.base import make_agent, register_agent
    from agents.evaluate import evaluate
    from agents.solver.game import check_supported, solve_game
    from zilch_env import UnsupportedRulesError

    try:
        rs = load_ruleset(args.ruleset, parse_overrides(args.set))
        check_supported(base_rules(rs))
    except (ValueError, UnsupportedRulesError) as e:
        p.error(str(e))
    table = solve_game(base_rules(rs))
    solved = []
    if args.solved:
        from agents.solver.multi import check_multi_supported, solve_multi

        try:
            check_multi_supported(rs, args.players)
        except UnsupportedRulesError as e:
            p.error(f"--solved: {e}")
        multi = solve_multi(rs, args.players, progress=True)
        register_agent("solved", lambda r, a: SolvedPlayer(multi), "bench/multiplayer_teacher.py --solved")
        solved = ["solved"]
    for mode in ("leader", "product"):
        register_agent(f"table-{mode}", lambda r, a, m=mode: TwoPlayerTablePlayer(table, m),
                       f"the two-player table as a {mode} player (bench/multiplayer_teacher.py)")
    print(f"{rs.name} {args.players} players {' '.join(args.set)}: each agent in one seat, heuristic in the "
          f"others, {args.games} games, seat permutations; fair share {100 / args.players:.1f}%", flush=True)
    specs = [(spec, spec) for spec in [*solved, "table-leader", "table-product", *args.agents]]
    if args.split:
        for i, (spec, _) in enumerate(list(specs)):
            for j, (label, pair) in enumerate(((f"{spec} / heuristic's end", (spec, "heuristic")),
                                               (f"heuristic / {spec}'s end", ("heuristic", spec)))):
                register_agent(f"split-{i}-{j}", lambda r, a, pair=pair: EndgameSplit(*(make_agent(x, r) for x in pair)),
                               "bench/multiplayer_teacher.py --split")
                specs.append((label, f"split-{i}-{j}"))
    for label, spec in specs:
        rep = evaluate(agents=[spec] + ["heuristic"] * (args.players - 1), ruleset=rs,
                       games=args.games, seed=args.seed, workers=1, players=args.players,
                       solo_turns=0, luck="off", orders="permutations", progress=False)
        s = rep.data["tables"][0]["results"][0]["score_share"]
        print(f"  {label:44s} {100 * s['rate']:5.1f}% [{100 * s['low']:.1f}, {100 * s['high']:.1f}]", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
