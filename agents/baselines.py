"""Baseline agents: uniformly random, greedy threshold players and a hand-written heuristic.

They are the yardsticks below the exact solvers: every learned agent should beat ``greedy`` and
approach ``heuristic``; ``bench/turn_solver.py`` measures each as a share of the turn optimum.

Agent specs (see :mod:`agents.base`):

* ``random`` — a uniformly random legal action.
* ``greedy`` / ``greedy:T`` — keep the most points (ties: the most dice), bank once the turn total
  reaches ``T`` (default 300) and banking is allowed, otherwise roll. ``greedy:1=300,2=300,4=1000,...``
  gives a threshold per number of dice that would be rolled next (``inf`` = never bank with that many;
  counts not given use the largest threshold given for fewer dice). Named presets:

  ==================  ===========================================================================
  ``greedy-cautious`` bank from 200 (as soon as the rules allow, in most rulesets)
  ``greedy-bold``     bank from 1000
  ``greedy-table``    by the dice left: 1-2 dice 300, 3 dice 400, 4 dice 1000, 5 dice 2500, 6 never
  ==================  ===========================================================================

  Greedy players never challenge and never piggyback.
* ``heuristic`` — a strong hand-written player (:class:`HeuristicAgent`).

Every agent handles every phase of the engine: challenge decisions, piggyback offers, forced keeps
(``keep = "all_scoring"``), forced hot dice and bank thresholds (it only returns actions in ``legal``).
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np

from zilch_env import (
    CHALLENGE_BASE, FRESH, NO_CHALLENGE, PIGGYBACK, GameState, GreedyMover, Phase, RandomMover, Ruleset,
    keep_action, scoring_table,
)
from zilch_env.rules.scoring import Keep, best_of

from agents.base import AgentSpecError, register_agent

__all__ = ["GreedyAgent", "HeuristicAgent", "GREEDY_PRESETS", "RandomAgent", "parse_thresholds"]


class RandomAgent(RandomMover):
    """Uniformly random among the legal actions (challenges and piggybacks included)."""

    name = "random"


def _most_points(keeps: Sequence[Keep]) -> Keep:
    """The keep of the most points; ties to the most dice (as ``all_scoring`` sets dice aside)."""
    return best_of(keeps)  # type: ignore[return-value]


# --------------------------------------------------------------------------------------------
# Greedy threshold players

INF = math.inf

#: Named greedy players: thresholds by the dice that would be rolled next (1..6).
GREEDY_PRESETS: dict[str, dict[int, float]] = {
    "greedy-cautious": {n: 200 for n in range(1, 7)},
    "greedy-bold": {n: 1000 for n in range(1, 7)},
    "greedy-table": {1: 300, 2: 300, 3: 400, 4: 1000, 5: 2500, 6: INF},
}


def parse_thresholds(text: str) -> dict[int, float]:
    """``"500"`` (one threshold) or ``"1=300,2=300,3=400,4=1000,5=2500,6=inf"`` (by dice rolled next)."""
    text = text.strip()
    try:
        if "=" not in text:
            t = float(text)
            if t < 0 or (t != INF and t != int(t)):
                raise ValueError
            return {n: t for n in range(1, 7)}
        given: dict[int, float] = {}
        for part in text.split(","):
            k, _, v = part.partition("=")
            n, t = int(k), float(v)
            if not 1 <= n <= 6 or t < 0:
                raise ValueError
            given[n] = t
    except ValueError:
        raise AgentSpecError(
            f"greedy:{text}: expected a turn total (greedy:500) or thresholds by the dice that would be "
            f"rolled next, e.g. greedy:1=300,2=300,3=400,4=1000,5=2500,6=inf (dice 1 to 6, totals >= 0)"
        ) from None
    out, last = {}, min(given.values())
    for n in range(1, 7):
        last = given.get(n, last)
        out[n] = last
    return out


class GreedyAgent(GreedyMover):
    """The greedy mover of the agent specs (``greedy``, ``greedy:500``, ``greedy-bold``, ...):
    :class:`zilch_env.GreedyMover` with a threshold per number of dice that would be rolled next (all
    of them after hot dice) and no ``min_dice`` rule, named by its spec."""

    def __init__(self, thresholds: float | Mapping[int, float] = 300, name: str | None = None):
        if not isinstance(thresholds, Mapping):
            thresholds = {n: float(thresholds) for n in range(1, 7)}
        thresholds = {n: float(thresholds[n]) for n in range(1, 7)}
        if name is None:
            vals = set(thresholds.values())
            name = f"greedy:{int(vals.pop())}" if len(vals) == 1 else "greedy:" + ",".join(
                f"{n}={'inf' if t == INF else int(t)}" for n, t in thresholds.items())
        super().__init__(thresholds, min_dice=0, name=name)


# --------------------------------------------------------------------------------------------
# The heuristic player


class HeuristicAgent:
    """A strong hand-written player, the way a good human plays.

    What it knows about the rules is what such a player knows: for each number of dice the chance of a
    zilch and the average points a scoring roll brings (``odds``, computed from the scoring table).

    * **Keep.** When it will bank, it keeps the most points. When it will roll, it weighs a few keeps
      a player considers — the most points; the same without its single 5s (or the rules' cheapest
      single); only the combinations (triples and better); one single die — by the one-roll look-ahead
      ``(1 - zilch chance) * (total + average roll)`` of the dice it would roll next, so it re-rolls
      scoring dice when that pays (from 1 5 x x x x it keeps the 1 and rolls five). A keep of every die
      (hot dice) is always taken.
    * **Bank** by a small table of turn total against the dice that would be rolled next (roll while
      below): 1-2 dice 300, 3 dice 400, 4 dice 1000, 5 dice 2500, 6 dice 6000 (never below the rules'
      threshold, which it must reach anyway).
    * **Situation.** Far behind near the end (the leader within 20% of the target and 15% of the target
      ahead) it rolls on to 1.6 times the table. In its last turn (someone reached the target, or a
      tie-break) it rolls until it beats the best score, then banks. In a challenged turn it banks at
      0.75 times the table, since a zilch costs extra.
    * **Challenge** the leader when at least 1000 behind (the first challenge costs only 600 on a zilch);
      the second challenge (2000) only when 3000 behind. **Piggyback** when the look-ahead of the offer
      beats 1.4 times the look-ahead of a fresh roll of all dice (a rough worth of a fresh turn).
    """

    BANK_AT = {1: 300, 2: 300, 3: 400, 4: 1000, 5: 2500, 6: 6000}
    PUSH = 1.6
    CHALLENGED = 0.75

    name = "heuristic"

    def __init__(self, ruleset: Ruleset):
        self.ruleset = ruleset
        self.zilch, self.gain = self.odds(ruleset)
        # A fresh turn is worth more than its first roll's look-ahead: roughly 1.4 times it.
        D = ruleset.dice
        self.fresh = (1 - self.zilch[D]) * self.gain[D] * 1.4

    @staticmethod
    def odds(rs: Ruleset) -> tuple[dict[int, float], dict[int, float]]:
        """(zilch chance, mean points of the best keep of a scoring roll) for 1..dice dice."""
        table = scoring_table(rs)
        zilch, gain = {}, {}
        for n in range(1, rs.dice + 1):
            z = pts = 0.0
            for roll, info in table.rolls.items():
                if len(roll) != n:
                    continue
                counts = np.bincount(roll, minlength=7)[1:]
                p = math.factorial(n) / np.prod([math.factorial(c) for c in counts]) / 6 ** n
                if info.zilch:
                    z += p
                else:
                    pts += p * info.best.points
            if n == rs.dice and rs.variants.six_dice_zilch_bonus:
                pts += z * rs.variants.six_dice_zilch_bonus
                z = 0.0
            zilch[n] = z
            gain[n] = pts / (1 - z) if z < 1 else 0.0
        return zilch, gain

    # ---------------------------------------------------------------- the situation

    def _bank_at(self, state: GameState, n_next: int) -> float:
        """Roll while the turn total is below this (before the rules' own threshold)."""
        rs, me = self.ruleset, state.current
        at = float(self.BANK_AT.get(n_next, self.BANK_AT[6]))
        others = [s for q, s in enumerate(state.scores) if q != me]
        if others:
            lead = max(others)
            if lead >= 0.8 * rs.target and lead - state.scores[me] >= 0.15 * rs.target:
                at *= self.PUSH
        if state.challenged is not None:
            at *= self.CHALLENGED
        return at

    def _must_beat(self, state: GameState) -> int | None:
        """In the player's last turn: the turn total that beats the best other score, else None."""
        me = state.current
        last = state.tiebreak_players is not None or (
            state.final_queue is not None and me in state.final_queue)
        if not last or state.num_players < 2:
            return None
        best = max(s for q, s in enumerate(state.scores) if q != me)
        return best - state.scores[me] + 1

    def _look_ahead(self, total: float, n: int) -> float:
        return (1 - self.zilch[n]) * (total + self.gain[n])

    # ---------------------------------------------------------------- decisions

    def act(self, state: GameState, legal: Sequence[int], rng: np.random.Generator) -> int:
        if state.phase == Phase.CHALLENGE:
            return self._challenge(state, legal)
        if state.phase == Phase.PIGGYBACK:
            total, dice = state.offer  # type: ignore[misc]
            take = self._look_ahead(total, dice) > self.fresh
            return PIGGYBACK if take and PIGGYBACK in legal else FRESH
        return self._keep(state, legal)

    def _challenge(self, state: GameState, legal: Sequence[int]) -> int:
        me, n = state.current, state.num_players
        options = [a for a in legal if a >= CHALLENGE_BASE]
        if not options:
            return NO_CHALLENGE
        target = max(options, key=lambda a: state.scores[(me + a - CHALLENGE_BASE + 1) % n])
        behind = state.scores[(me + target - CHALLENGE_BASE + 1) % n] - state.scores[me]
        need = 1000 if state.challenges_used[me] == 0 else 3000
        return target if behind >= need else NO_CHALLENGE

    def _keep(self, state: GameState, legal: Sequence[int]) -> int:
        rs = self.ruleset
        keeps = state.keeps()
        legal_set = set(legal)
        total0, n0 = state.turn_total, state.dice_left
        must_beat = self._must_beat(state)

        def wants_bank(k: Keep) -> bool:
            total, left = total0 + k.points, n0 - k.n
            if keep_action(k.mask, True) not in legal_set:
                return False
            if must_beat is not None:
                return total >= must_beat
            return total >= self._bank_at(state, left or rs.dice)

        most = _most_points(keeps)
        if wants_bank(most):
            return keep_action(most.mask, True)
        hot = [k for k in keeps if k.n == n0]
        if hot:
            k = _most_points(hot)
            return keep_action(k.mask, wants_bank(k))
        best, best_est = most, -1.0
        for k in self._candidates(keeps, most):
            left = n0 - k.n
            est = self._look_ahead(total0 + k.points, left)
            if est > best_est + 1e-9 or (abs(est - best_est) <= 1e-9 and k.points > best.points):
                best, best_est = k, est
        return keep_action(best.mask, wants_bank(best))

    def _candidates(self, keeps: Sequence[Keep], most: Keep) -> list[Keep]:
        """The keeps a good player weighs before rolling (all legal, canonical)."""
        sc = self.ruleset.scoring
        by_counts = {k.counts: k for k in keeps}
        singles = [f for f in range(1, 7) if sc.singles.get(f, 0) > 0]
        cands = [most]

        def add(counts) -> None:
            k = by_counts.get(tuple(counts))
            if k is not None and k not in cands:
                cands.append(k)

        # Most points without the cheapest single die (usually the 5s), and without any loose singles.
        if singles:
            cheap = min(singles, key=lambda f: sc.singles[f])
            c = list(most.counts)
            if 0 < c[cheap - 1] < 3:
                c[cheap - 1] = 0
                add(c)
            c = [x if x >= 3 or f + 1 not in singles else 0 for f, x in enumerate(most.counts)]
            add(c)
            # One single die: the most valuable single in the roll.
            for f in sorted(singles, key=lambda f: -sc.singles[f]):
                if most.counts[f - 1] or any(k.counts[f - 1] for k in keeps):
                    one = [0] * 6
                    one[f - 1] = 1
                    add(one)
                    break
        return cands


# --------------------------------------------------------------------------------------------
# Registration


def _random(ruleset: Ruleset, arg: str | None) -> RandomAgent:
    if arg is not None:
        raise AgentSpecError(f"random:{arg}: the random agent takes no argument")
    return RandomAgent()


def _greedy(ruleset: Ruleset, arg: str | None) -> GreedyAgent:
    return GreedyAgent(300 if arg is None else parse_thresholds(arg))


def _greedy_preset(name: str):
    def make(ruleset: Ruleset, arg: str | None) -> GreedyAgent:
        if arg is not None:
            raise AgentSpecError(f"{name}:{arg}: {name} takes no argument (use greedy:THRESHOLDS)")
        return GreedyAgent(GREEDY_PRESETS[name], name=name)
    return make


def _heuristic(ruleset: Ruleset, arg: str | None) -> HeuristicAgent:
    if arg is not None:
        raise AgentSpecError(f"heuristic:{arg}: the heuristic agent takes no argument")
    return HeuristicAgent(ruleset)


register_agent("random", _random, "uniformly random legal actions")
register_agent("greedy", _greedy, "keep the most points, bank from a threshold (greedy:500, or by dice "
               "left: greedy:1=300,2=300,3=400,4=1000,5=2500,6=inf; default 300)")
register_agent("greedy-cautious", _greedy_preset("greedy-cautious"), "greedy, banking from 200")
register_agent("greedy-bold", _greedy_preset("greedy-bold"), "greedy, banking from 1000")
register_agent("greedy-table", _greedy_preset("greedy-table"),
               "greedy by dice left: 1-2 dice 300, 3 dice 400, 4 dice 1000, 5 dice 2500, 6 never")
register_agent("thumb", "agents.solver.strategy:_make_thumb",
               "a rule of thumb: thumb:bank=300,dice=2 banks at 300 or more with 2 dice or fewer left, else "
               "rolls (also above=T2, entry_dice=N, keep=combos); plain thumb: the strategy card's rule")
register_agent("heuristic", _heuristic, "strong hand-written player: re-rolls scoring dice when it "
               "pays, banks by a table of total vs dice, pushes when behind, plays the endgame")
