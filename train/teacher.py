"""The solved game as a teacher: :class:`WinTeacher` labels every legal action of a decision in the
batched engine with the regret the solved game gives it (the chance of winning it gives up against the
best action), for ``train/teach.py`` and ``train/teach_any.py``; :func:`table_situation` gives every
teacher the same situations of the last turns."""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence
import numpy as np
from zilch_env import FRESH, NUM_ACTIONS, PIGGYBACK, Ruleset, UnsupportedRulesError, load_ruleset


class TeachError(ValueError):
    """A teacher or a teaching run that cannot be set up as asked (the message says why and what to do)."""


# --------------------------------------------------------------------------------------------
# The teacher: the solved game's value of every legal action


class WinTeacher:
    """The solved two-player game of one ruleset as a labeller of decisions in the batched engine.

    :meth:`action_values` gives, for rows of a ``zilch_env.engine.batched.BatchedGames`` at a decision
    (``Phase.KEEP``), the win chance of the player to move after each legal action, under optimal
    play by both (a draw as half; ``-inf`` for illegal actions): the values of
    ``GameTable.action_values``, from the turn DP of the row's situation solved with the cap of
    ``GameTable.stable_cap`` (so the values do not depend on which turns were solved before) and
    without the end-zone cut (every rolling value exact). :meth:`act_batch` plays the best action
    with ``GameTable.best_action``'s tie-breaks (bank before rolling on, then the lowest action):
    ``optimal-win`` as a batch opponent of ``BatchedZilchVecEnv``.

    With ``leader=True`` it also labels games of three or more players, as the two-player game of
    the mover against the *leader*, the highest score among the others (:func:`leader_seats`): an
    approximation, not the solved game of those players, which ``train/teach_any.py`` teaches at 3
    and 4 players (a two-player win agent plays better than a fair share there, against the
    ``heuristic``, by playing that way). A last turn is the mover's against the leader and the
    seats still to play after it (:func:`table_situation`).

    With ``overcoming=True`` it labels games of the table's rules with ``variants.overcoming`` on:
    a keep before the end as in the table's game, among the legal actions (a bank that does not beat
    the previous turn is not one); a last turn must also beat that turn's result, which the table's
    last turns take into account (``GameTable.final_situation_of``).

    With ``piggyback=True`` it labels games of the table's rules with ``variants.piggyback`` on, as
    the table's game, also an approximation (the game solver does not model piggyback): a keep is
    valued as in the table's game (banking does not count the offer it leaves), and a piggyback offer
    as the table's win chance of rolling on from the offered turn total and dice against that of a
    fresh turn. Played so, the table's win agent beats the ``heuristic`` where the score-maximising
    ``optimal-turn`` does not (``docs/benchmarks.md``, the agent for any ruleset).

    Given a solved game of :mod:`agents.solver.multi` (``table``, a ``MultiTable``) it labels games of
    exactly those rules and players by that game: three players, or two under ``overcoming`` (the
    flags above do not apply to it)."""

    name = "optimal-win"

    def __init__(self, ruleset: Ruleset | str, table: Any = None, threads: int = 1, cache_mb: float | None = None,
                 leader: bool = False, piggyback: bool = False, overcoming: bool = False):
        from agents.solver.game_support import check_teachable
        from agents.solver.multi import MultiTable
        from zilch_env.rules.scoring import scoring_table

        rs = ruleset if isinstance(ruleset, Ruleset) else load_ruleset(ruleset)
        #: The players of a multi-player solved game (``agents.solver.multi``), else None.
        self.players = table.players if isinstance(table, MultiTable) else None
        if self.players is None:
            check_teachable(rs)
        elif leader or piggyback or overcoming:
            raise TeachError("leader, piggyback and overcoming describe how a two-player table labels other "
                             "games; a multi-player solved game labels its own rules only")
        if table is None:
            from agents.solver.game import load_game_table

            table = load_game_table(rs)
            if table is None:
                raise TeachError(f"{rs.name}: no stored game table for these rules (solving it could take many "
                                 f"minutes): run zilch solve --ruleset {rs.name} --objective win first")
        if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
            raise TeachError(f"threads = {threads!r}: a whole number, 1 or more (threads solving new turns)")
        self.table = table
        self.ruleset = table.ruleset
        self.threads = int(threads)
        self.leader = bool(leader)
        self.piggyback = bool(piggyback)
        self.overcoming = bool(overcoming)
        self._games_checked: Any = None
        if cache_mb is not None:
            table.cache_mb = float(cache_mb)
        self._scoring = scoring_table(self.ruleset)
        self._keeps: dict[tuple, dict[int, tuple[int, int, int]]] = {}

    def _keeps_of(self, roll: tuple) -> dict[int, tuple[int, int, int]]:
        """``{keep mask: (points in units, 1 if a permanent straight, dice kept)}`` after ``roll``
        (the six-dice zilch bonus: the one keep of nothing, its bonus already in the turn total)."""
        opts = self._keeps.get(roll)
        if opts is None:
            from zilch_env.rules.compiled import compile as compile_rules
            from zilch_env.rules.scoring import bonus_of

            u = self.table.unit
            S = self.table.straight_units
            info = self._scoring.info(list(roll))
            if bonus_of(self.ruleset, info):
                opts = {0: (0, 0, 0)}
            else:
                opts = {k.mask: (k.points // u, 1 if (S and k.straight) else 0, k.n)
                        for k in compile_rules(self.ruleset).keeps_of(info.dice)}
            self._keeps[roll] = opts
        return opts

    def situations(self, games: Any, rows: np.ndarray) -> list[tuple]:
        """The table's situation of the player to move in each row (:func:`table_situation`)."""
        cur, first, tbr = games.current, games.first, games.tiebreak_round
        scores, onb, streak, last = games.scores, games.on_board, games.zilch_streak, games.last_result
        players = games.players
        over = np.array([r.variants.overcoming for r in games.rulesets])[games.rule_ids]
        out = []
        if self.players is not None:
            return [self.table.situation_of(int(cur[b]), scores[b, :self.players].tolist(),
                                            onb[b, :self.players].tolist(), games.final_queue(b), int(last[b]))
                    for b in rows.tolist()]
        for b in rows.tolist():
            n = int(players[b])
            out.append(table_situation(self.table, int(cur[b]), int(first[b]), scores[b, :n].tolist(),
                                       onb[b, :n].tolist(), streak[b, :n].tolist(), games.final_queue(b),
                                       games.tiebreak_players(b), int(tbr[b]), int(last[b]), bool(over[b])))
        return out

    def action_values(self, games: Any, rows: Sequence[int] | np.ndarray,
                      masks: np.ndarray | None = None) -> np.ndarray:
        """``(len(rows), NUM_ACTIONS)`` float64: the win chance of the mover after each legal action
        (``-inf`` where illegal). ``masks`` are the rows' legal masks if the caller has them. Raises
        :class:`TeachError` if a row is not at a decision (a roll to keep from; with ``piggyback=True``
        also an offer), if the games are not of the table's rules (with ``piggyback=True``: those rules
        with piggyback on), if they have more than two players and the teacher was not made with
        ``leader=True``, or if the engine offers an action the solved game does not know (which would
        be a bug)."""
        from agents.solver import game_kernels as K
        from zilch_env.engine.game import Phase
        from zilch_env.rules.primitives import can_bank

        rows = np.asarray(rows, dtype=np.int64)
        if self.players is not None and games.num_players != self.players:
            raise TeachError(f"a game of {games.num_players} players: this solved game is of {self.players}")
        if self.players is None and games.num_players != 2 and not self.leader:
            raise TeachError(f"a game of {games.num_players} players: the solved game is a two-player game "
                             "(leader=True labels it as the mover's game against the leader)")
        if masks is None:
            masks = games.legal_masks(rows=rows)
        out = np.full((rows.size, NUM_ACTIONS), -np.inf)
        if not rows.size:
            return out
        self._check_games(games)
        phase = games.phase[rows]
        offer = phase == int(Phase.PIGGYBACK)
        bad = np.flatnonzero(((phase != int(Phase.KEEP)) & ~(offer & self.piggyback)) | games.done[rows])
        if bad.size:
            what = "a roll to keep from, or a piggyback offer" if self.piggyback else "a roll to keep from"
            ph = int(phase[bad[0]])
            named = Phase(ph).name if ph in {int(p) for p in Phase} else "a roll due"
            raise TeachError(f"action_values: row {int(rows[bad[0]])} is at {named}; every row must be at a "
                             f"decision ({what})")
        tab, ip, u, D = self.table, self.table.ip, self.table.unit, self.ruleset.dice
        S, NP, extra = self.table.straight_units, int(ip[K.IP_NP]), int(ip[K.IP_MAXPTS]) + 1
        forced = self.ruleset.hot_dice == "forced"
        total, perm, left = games.turn_total[rows], games.permanent[rows], games.dice_left[rows]
        if offer.any():  # an offer is valued at its turn total and dice, before any roll
            offered = games.offers[rows]
            total = np.where(offer, offered[:, 0], total)
            left = np.where(offer, offered[:, 1], left)
        rolls = games.rolls[rows]
        sits = self.situations(games, rows)
        tmins = [max(int(t) // u + extra, self.table.stable_cap(s)) for s, t in zip(sits, total.tolist())]
        tab.prefetch(list(zip(sits, tmins)), False, self.threads)
        for i, (sit, tmin) in enumerate(zip(sits, tmins)):
            if offer[i]:  # a fresh turn (total 0, all the dice) or rolling on from the offer
                out[i, FRESH] = tab.roll_value(sit, 0, D, tmin=tmin)
                if masks[i, PIGGYBACK]:
                    out[i, PIGGYBACK] = tab.roll_value(sit, int(total[i]), int(left[i]), tmin=tmin)
                continue
            tv = tab.turn_values(sit, tmin, False)
            B, C, thr = tv.B, tv.C, tv.thr
            roll = tuple(f for f in rolls[i].tolist() if f)
            opts = self._keeps_of(roll)
            t = int(total[i]) // u
            pi = int(perm[i]) // (S * u) if S else 0
            n_left = int(left[i])
            for a in np.flatnonzero(masks[i]).tolist():
                opt = opts.get(a >> 1)
                if opt is None:
                    raise TeachError(f"row {int(rows[i])}: the engine offers action {a} after the roll {roll}, "
                                     "which the solved game has no keep for")
                dt, st, n = opt
                t2, m = t + dt, n_left - n
                if a & 1:
                    if not can_bank(t2, m, thr, forced):
                        raise TeachError(f"row {int(rows[i])}: the engine lets the player bank with action {a}, "
                                         "the solved game does not")
                    out[i, a] = float(B[t2])
                else:
                    out[i, a] = float(C[(t2 * NP + min(pi + st, NP - 1)) * (D + 1) + (m if m > 0 else D)])
        return out

    def _check_games(self, games: Any) -> None:
        """The games must be of the table's rules (with ``piggyback=True``, those with piggyback on)."""
        if games is self._games_checked:
            return
        from agents.solver.game_table import ruleset_key

        rs = self.ruleset
        variants = [name for name in ("piggyback", "overcoming") if getattr(self, name) and self.players is None]
        allowed = set()
        for k in range(1 << len(variants)):
            on = {name: True for i, name in enumerate(variants) if k >> i & 1}
            allowed.add(ruleset_key(dataclasses.replace(rs, variants=dataclasses.replace(rs.variants, **on))))
        for other in games.rulesets:
            if ruleset_key(other) not in allowed:
                from agents.learned import rule_differences

                diff = [f"{k}: table {mine!r}, games {theirs!r}"
                        for k, mine, theirs in rule_differences(rs.to_dict(), other.to_dict())
                        if k not in {f"variants.{name}" for name in variants}]
                extra = f" (or those rules with {' and/or '.join(variants)} on)" if variants else ""
                raise TeachError(f"the games play other rules than this teacher's table{extra}: {'; '.join(diff)}")
        self._games_checked = games

    @staticmethod
    def best(values: np.ndarray) -> np.ndarray:
        """The best action of each row of :meth:`action_values` (ties within 1e-12: banking before
        rolling on, then the lowest action, as ``GameTable.best_action``)."""
        top = values.max(axis=1, keepdims=True)
        near = values >= top - 1e-12
        banks = near & (np.arange(NUM_ACTIONS) % 2 == 1)
        pick = np.where(banks.any(axis=1, keepdims=True), banks, near)
        return np.argmax(pick, axis=1)

    def act_batch(self, games: Any, rows: np.ndarray) -> np.ndarray:
        """``optimal-win``'s moves in ``rows`` (a batch policy of ``BatchedZilchVecEnv``)."""
        return self.best(self.action_values(games, rows))


def leader_seats(me: int, first: int, players: int, scores: Sequence[int], final_queue: Sequence[int] | None,
                 tiebreak_players: Sequence[int] | None) -> tuple[list[int], int, list[int] | None, list[int] | None]:
    """The two-player game a seat of a game of ``players`` seats is taught as: the mover ``me``
    against the leader, the highest score among the others (in a tie-break, among the tied players;
    of equal scores, the next to play after the mover). Returns the two seats in the order they play
    in the round from ``first`` (the two-player game's seats 0 and 1, seat 0 first), the mover's seat
    there, and the final queue and tie-break players among the two (None where the game has none)."""
    others = [(me + k) % players for k in range(1, players)]
    if tiebreak_players is not None:  # in a tie-break the leader is among the tied players
        others = [q for q in others if q in tiebreak_players] or others
    lead = max(others, key=lambda q: (scores[q], -others.index(q)))
    seats = sorted((me, lead), key=lambda q: (q - first) % players)
    two = {q: i for i, q in enumerate(seats)}
    queue = None if final_queue is None else [two[q] for q in final_queue if q in two]
    tied = None if tiebreak_players is None else [two[q] for q in tiebreak_players if q in two]
    return seats, two[me], queue, tied


def table_situation(table: Any, me: int, first: int, scores: Sequence[int], on_board: Sequence[bool],
                    zilch_streak: Sequence[int], final_queue: Sequence[int] | None,
                    tiebreak_players: Sequence[int] | None, tiebreak_round: int, last_result: int = 0,
                    overcoming: bool = False) -> tuple:
    """The situation a two-player game table (``agents.solver.game_table.GameTable``) gives the mover of
    a game of any number of seats. Before the end, the two-player game of the mover against the
    leader (:func:`leader_seats`); a last turn, ``GameTable.final_situation_of`` (above the leader,
    under ``overcoming`` above the previous turn's result ``last_result``, and leaving the seats
    still to play as little as it can); a tie-break turn, the two-player game's against the leader
    among the tied players."""
    n = len(scores)
    if final_queue is not None and tiebreak_players is None:
        return table.final_situation_of(me, first, scores, on_board, zilch_streak, final_queue, last_result,
                                        overcoming)
    if n == 2:
        return table.situation_of(me, first, scores, on_board, zilch_streak, final_queue, tiebreak_players,
                                  tiebreak_round)
    seats, i, queue, tied = leader_seats(me, first, n, scores, final_queue, tiebreak_players)
    return table.situation_of(i, 0, [scores[q] for q in seats], [on_board[q] for q in seats],
                              [zilch_streak[q] for q in seats], queue, tied, tiebreak_round)


def teacher_for(ruleset: Ruleset | str, threads: int = 1, cache_mb: float | None = None) -> WinTeacher:
    """The teacher of a ruleset: its stored game table (cached or shipped) as a :class:`WinTeacher`;
    :class:`TeachError` naming why not (rules the game solver does not model, or no stored table)."""
    try:
        return WinTeacher(ruleset, threads=threads, cache_mb=cache_mb)
    except UnsupportedRulesError as e:
        name = ruleset.name if isinstance(ruleset, Ruleset) else ruleset
        raise TeachError(f"{name}: no teacher: {e}") from None


