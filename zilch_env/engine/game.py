"""The game engine: one game of 1 to 6 players under any :class:`~zilch_env.rules.schema.Ruleset`.

A :class:`GameState` knows whose move it is, lists that player's legal actions
(:meth:`GameState.legal_actions`), applies one (:meth:`GameState.apply`) and refuses an illegal one
with an :class:`IllegalActionError` that names the rule forbidding it, leaving the game unchanged.
Dice come from a seeded ``numpy.random.Generator`` (:class:`RandomDice`) or from a script
(:class:`ScriptedDice`, for tests and replays). Every roll and action is recorded;
:meth:`GameState.to_record` gives a JSON game record and :func:`replay` plays it back to the same state.

Actions are small integers, the same flat layout every environment uses
(:mod:`zilch_env.engine.actions`).

The rules themselves are in ``docs/rules.md``; each method below says which rule it applies.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

import numpy as np

from zilch_env.engine.dice import (DiceExhausted, RandomDice, ScriptedDice, check_seed, seed_arg, sorted_rolls_by_code)  # noqa: F401
from zilch_env.rules.schema import ENDS, PENALTY_MODES, Ruleset
from zilch_env.rules.load import load_ruleset
from zilch_env.rules.primitives import (CHALLENGE_SPLIT, CHALLENGE_ZILCH_COST, MAX_TIEBREAK_ROUNDS, bank_bar, bank_need, can_bank, challenge_cost, final_turns, penalised, turn_record, zilch_streak)
from zilch_env.engine.actions import (CHALLENGE_BASE, FRESH, KEEP_ACTIONS, MAX_PLAYERS, NO_CHALLENGE, NUM_ACTIONS, PIGGYBACK, IllegalActionError, Phase, RecordError, action_number, keep_action, mask_of, player_count, split_keep_action)  # noqa: F401
from zilch_env.rules.scoring import (BONUS_KEEPS, permanent_straight, Keep, RollInfo, bonus_of, pass_keeps, pyramid_freeze, scoring_table)

# --------------------------------------------------------------------------------------------
# The game


class GameState:
    """One game in progress (or over). All fields are read-only to callers; change it with :meth:`apply`.

    Fields:
        ruleset: the rules of this game.
        num_players: 1 to 6; seats are 0 .. num_players - 1.
        first: the seat that started the game (round order counts from it).
        current: the seat to move.
        phase: what ``current`` decides now (:class:`Phase`).
        scores: banked scores, never below the ruleset's ``score_floor`` (0 unless a ruleset lets
            penalties take scores below zero).
        on_board: whether each player has recorded a first score (reached the entry threshold).
        zilch_streak: zilches in a row, counted once on the board (for ``zilch_penalty``).
        roll: the current roll, sorted (empty outside :attr:`Phase.KEEP`).
        dice_left: dice in the current roll, or to be rolled next at turn start.
        turn_total: points of this turn so far, at risk.
        permanent: points of this turn that survive a zilch (permanent straights).
        frozen / frozen_points: dice kept in this pass of the dice by face, and their points (pyramiding).
        final_queue: seats still to play their last turn once the target was reached (None before).
        tiebreak_players / tiebreak_round: who plays tie-break turns, and how many rounds so far.
        last_result: the points the previous turn recorded (0 after a zilch), the bar to overcome.
        offer: ``(turn_total, dice)`` the previous player banked, for ``piggyback``, else None.
        challenged: the seat challenged this turn, or None.
        challenges_used: challenges each player has declared; challenge_brackets: which brackets
            (0 below 5000, 1 at or above) each player has used.
        winners: the seats sharing the win once the game is over (more than one is a draw).
        turns: one summary dict per completed turn: ``player``, ``banked``, ``turn_total``, ``recorded``
            (what joined the score: the bank, or permanent straight points at a zilch), ``score``
            after the turn, ``challenged`` (the seat, or None), ``piggyback`` (the turn took over an
            offer), ``zilch_roll`` (the roll that ended it, None after a bank), ``penalty`` (a short
            note for people, None without one) and ``events``: what happened besides, as typed
            records in order, each a dict with ``kind`` and ``points``: ``"piggyback"`` (the total
            taken over, and ``dice``), ``"bonus"`` (a six-dice zilch bonus), ``"permanent"``
            (permanent straight points recorded at a zilch), ``"challenge_transfer"`` (points taken
            from the challenged ``seat``), ``"challenge_cost"`` (what a zilch in a challenge cost)
            and ``"zilch_penalty"`` (``mode``, ``count``, and the points it took).
    """

    __slots__ = (
        "ruleset", "num_players", "first", "current", "phase", "scores", "on_board", "zilch_streak",
        "roll", "roll_info", "dice_left", "turn_total", "permanent", "frozen", "frozen_points",
        "final_queue", "tiebreak_players", "tiebreak_round", "last_result", "offer", "challenged",
        "challenges_used", "challenge_brackets", "winners", "turns", "rolls", "actions",
        "decisions", "dice_source", "_table", "_legal", "_keeps", "_piggybacked", "_pyr", "_offer_frozen",
        "_entry", "_min_bank", "_forced", "_overcoming", "_all_scoring", "_rolls_by_dice", "_mask", "_mask_of",
        "_events", "_by_slot", "_seat_turns", "_rit", "_bar_now", "_bonus",
    )  # fmt: skip

    def __init__(
        self,
        ruleset: Ruleset | str = "zonk",
        num_players: int = 2,
        seed: int | np.random.Generator | None = None,
        dice: Iterable[Sequence[int]] | RandomDice | ScriptedDice | None = None,
        first: int = 0,
    ):
        self.ruleset = rs = load_ruleset(ruleset) if not isinstance(ruleset, Ruleset) else ruleset
        num_players = player_count(num_players)
        if (isinstance(first, (bool, np.bool_)) or not isinstance(first, (int, np.integer))
                or not 0 <= first < num_players):
            raise ValueError(f"first = {first!r}: the first player is a seat from 0 to {num_players - 1}")
        first = int(first)
        check_seed(seed)
        if dice is None:
            self.dice_source: RandomDice | ScriptedDice = RandomDice(seed)
        elif hasattr(dice, "roll") or hasattr(dice, "roll_slot"):
            # any dice source: an object whose roll(n) returns n sorted faces, or, with by_slot = True,
            # whose roll_slot(n, seat, turn, index) returns the index-th roll of seat's turn-th turn
            self.dice_source = dice
        else:
            self.dice_source = ScriptedDice(dice)
        self._table = scoring_table(rs)
        self._rolls_by_dice = self._table.rolls
        self._pyr = rs.variants.pyramiding
        self._bonus = rs.variants.six_dice_zilch_bonus
        # rule constants read on every decision
        self._entry, self._min_bank = rs.entry_threshold, rs.min_bank
        self._forced = rs.hot_dice == "forced"
        self._overcoming = rs.variants.overcoming
        self._all_scoring = rs.keep == "all_scoring"
        self._mask_of: list[int] | None = None
        self._mask: np.ndarray | None = None
        n = num_players
        self.num_players = n
        self.first = first
        self.current = first
        self.scores = [0] * n
        self.on_board = [rs.entry_threshold == 0] * n
        self.zilch_streak = [0] * n
        self.final_queue: list[int] | None = None
        self.tiebreak_players: tuple[int, ...] | None = None
        self.tiebreak_round = 0
        self.last_result = 0
        self.offer: tuple[int, int] | None = None
        self._offer_frozen: tuple[list[int], list[int]] | None = None
        self.challenges_used = [0] * n
        self.challenge_brackets = [[False, False] for _ in range(n)]
        self.winners: tuple[int, ...] | None = None
        self.turns: list[dict[str, Any]] = []
        self.rolls: list[tuple[int, ...]] = []
        self.actions: list[int] = []
        self.decisions = 0
        self._by_slot = bool(getattr(self.dice_source, "by_slot", False))
        self._seat_turns = [0] * n
        self._start_turn()
        if self.phase == Phase.KEEP:
            self._roll()

    # ------------------------------------------------------------------ queries

    @property
    def done(self) -> bool:
        return self.phase == Phase.OVER

    @property
    def offer_frozen(self) -> tuple[list[int], list[int]] | None:
        """With a piggyback offer under pyramiding: the dice frozen in the pass it takes over, by
        face, and their points (as :attr:`frozen` and :attr:`frozen_points`); None without an offer."""
        return self._offer_frozen

    def bank_threshold(self) -> int:
        """The least turn total the player to move may bank (entry threshold before the board)."""
        rs = self.ruleset
        return rs.min_bank if self.on_board[self.current] else rs.entry_threshold

    def keeps(self) -> tuple[Keep, ...]:
        """The legal keeps of the current roll (points include pyramiding), canonical masks only."""
        keeps = self._keeps
        if keeps is None:
            if self.phase != Phase.KEEP:
                return ()
            info = self.roll_info
            if info.keeps and not (self._pyr or self._all_scoring):
                keeps = info.keeps  # what pass_keeps returns here, without the call (the hot path)
            else:
                keeps = pass_keeps(self.ruleset.scoring, info, self.frozen, self.frozen_points, self._pyr,
                                   self._all_scoring, bonus_of(self.ruleset, info) > 0)
            self._keeps = keeps
        return keeps

    def can_bank(self, total: int, left_after: int) -> bool:
        """Whether a turn total may be banked with ``left_after`` dice not set aside (0 = hot dice)."""
        return can_bank(total, left_after, self._bar_now, self._forced)

    def legal_actions(self) -> list[int]:
        """The legal actions of the player to move, ascending; empty once the game is over."""
        if self._legal is None:
            ph = self.phase
            if ph == Phase.KEEP:
                need, no_bank_n = bank_need(self._bar_now, self.turn_total, self.dice_left, self._forced)
                out = []  # primitives.may_bank written out per keep: this loop is the engine's hottest
                for k in self.keeps():
                    a = k.mask * 2
                    out.append(a)
                    if k.points >= need and k.n != no_bank_n:
                        out.append(a + 1)
                self._legal = out
            elif ph == Phase.CHALLENGE:
                self._legal = [NO_CHALLENGE] + [
                    CHALLENGE_BASE + k - 1 for k in range(1, self.num_players)
                    if self.on_board[(self.current + k) % self.num_players]
                ]
            elif ph == Phase.PIGGYBACK:
                self._legal = [FRESH, PIGGYBACK]
            else:
                self._legal = []
        return self._legal

    def legal_mask(self) -> np.ndarray:
        """The legal actions as a boolean vector of length :data:`NUM_ACTIONS` (a fresh copy)."""
        legal = self.legal_actions()
        if self._mask_of is not legal:  # built once per decision, copied per call
            self._mask = np.zeros(NUM_ACTIONS, dtype=bool)
            self._mask[legal] = True
            self._mask_of = legal
        return self._mask.copy()

    # ------------------------------------------------------------------ applying actions

    def apply(self, action: int) -> None:
        """Apply one action of the player to move; raises :class:`IllegalActionError` (state unchanged)."""
        # a plain int needs no conversion (bool is not int: type(True) is bool); anything else is read
        # by action_number, which refuses what is not an action number
        a = action if type(action) is int else action_number(action)
        if a is None or a not in self.legal_actions():
            raise IllegalActionError(self.why_illegal(action))
        action = a
        self.actions.append(action)
        self.decisions += 1
        self._legal = None
        ph = self.phase
        if ph == Phase.KEEP:
            mask, bank = action >> 1, action & 1
            if self._pyr or not mask:  # pyramiding's keeps, or the keep of nothing after a bonus
                keep = next(k for k in self.keeps() if k.mask == mask)
            else:
                keep = self.roll_info.by_mask[mask]
            self._apply_keep(keep)
            if bank:
                self._end_turn(banked=True)
                if self.phase == Phase.KEEP:  # the next turn's first roll is due
                    self._roll()
            else:
                self._roll()
        elif ph == Phase.CHALLENGE:
            if action != NO_CHALLENGE:
                p = self.current
                self.challenged = (p + action - CHALLENGE_BASE + 1) % self.num_players
                self.challenge_brackets[p][int(self.scores[p] >= CHALLENGE_SPLIT)] = True
                self.challenges_used[p] += 1
            if self.offer is not None and self.ruleset.variants.piggyback:
                self.phase = Phase.PIGGYBACK
            else:
                self._roll()
        elif ph == Phase.PIGGYBACK:
            if action == PIGGYBACK:
                self.turn_total, self.dice_left = self.offer  # type: ignore[misc]
                # play on from there: the previous player's pass goes on, frozen dice included
                self.frozen, self.frozen_points = (list(x) for x in self._offer_frozen)  # type: ignore[union-attr]
                self._piggybacked = True
                self._events.append({"kind": "piggyback", "points": self.turn_total, "dice": self.dice_left})
            self._roll()

    def why_illegal(self, action: Any) -> str:
        """Which rule forbids ``action`` now (or a note that it is legal)."""
        a = action_number(action)
        if a is None:
            if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
                return f"action {action} is out of range: actions are 0 to {NUM_ACTIONS - 1}"
            shown = repr(action) if len(repr(action)) <= 40 else repr(action)[:37] + "..."
            return f"action {shown} is not an action number (whole numbers 0 to {NUM_ACTIONS - 1})"
        action = a
        if self.phase == Phase.OVER:
            return "the game is over: it accepts no move"
        if action in self.legal_actions():
            return f"action {action} is legal"
        ph = self.phase
        if ph == Phase.CHALLENGE:
            if action >= CHALLENGE_BASE:
                k = action - CHALLENGE_BASE + 1
                if k >= self.num_players:
                    return f"challenge the opponent {k} seats on: this game has only {self.num_players} players"
                return (f"challenge refused: player {(self.current + k) % self.num_players + 1} is not on the "
                        f"board, and only players on the board can be challenged")
            return ("turn start: the player first decides whether to challenge "
                    f"(action {NO_CHALLENGE} = no challenge, {CHALLENGE_BASE}+ = challenge an opponent)")
        if ph == Phase.PIGGYBACK:
            return (f"turn start: the player decides whether to piggyback on the previous player's "
                    f"banked {self.offer[0]} with {self.offer[1]} dice (action {PIGGYBACK}) or roll "  # type: ignore[index]
                    f"fresh dice (action {FRESH})")
        if action >= KEEP_ACTIONS:
            return (f"action {action} is a turn-start decision, but the player has rolled "
                    f"{list(self.roll)} and must now keep dice and bank or roll")
        mask, bank = split_keep_action(action)
        if self.keeps() is BONUS_KEEPS:
            if mask:
                return (f"nothing in {list(self.roll)} scores: after the six-dice zilch bonus the player keeps "
                        f"no die and banks (action 1) or rolls all {len(self.roll)} dice again (action 0)")
        elif mask == 0:
            return "every roll needs a keep: at least one scoring die must be set aside"
        if mask >> len(self.roll):
            return (f"keep mask {mask:#b} selects a die beyond the {len(self.roll)} rolled "
                    f"(positions 0 to {len(self.roll) - 1} of {list(self.roll)})")
        dice = [self.roll[i] for i in range(len(self.roll)) if mask >> i & 1]
        canonical = mask_of(self.roll, dice) if mask else 0
        keeps = {k.mask: k for k in self.keeps()}
        if canonical != mask:
            return (f"keep mask {mask:#b} keeps {dice}, the same dice as the canonical mask "
                    f"{canonical:#b}; only the canonical form is an action")
        if mask not in keeps:
            if self.ruleset.keep == "all_scoring":
                best = next(iter(keeps.values()))
                return (f"keep = 'all_scoring': every scoring die is set aside, so the keep must be "
                        f"{list(best.dice)}, not {dice}")
            return f"keep {dice} does not score: every kept die must belong to a scoring combination"
        k = keeps[mask]
        total, left = self.turn_total + k.points, self.dice_left - k.n
        rs = self.ruleset
        if left == 0 and rs.hot_dice == "forced":
            return "hot dice are forced: with all dice set aside the player must roll them all again, not bank"
        if not self.on_board[self.current] and total < rs.entry_threshold:
            return (f"bank refused: a turn total of {total} is below the entry threshold "
                    f"{rs.entry_threshold}, needed to get on the board")
        if self.on_board[self.current] and total < rs.min_bank:
            return f"bank refused: a turn total of {total} is below the minimum bank {rs.min_bank}"
        if rs.variants.overcoming and total <= self.last_result:
            return (f"bank refused (overcoming): a turn total of {total} does not beat the previous "
                    f"player's last turn, {self.last_result}")
        return f"action {action} is not legal here"  # pragma: no cover - every rule is named above

    # ------------------------------------------------------------------ the turn

    def _start_turn(self) -> None:
        rs = self.ruleset
        self.phase = Phase.KEEP
        self.roll: tuple[int, ...] = ()
        self.roll_info: RollInfo | None = None
        self.dice_left = rs.dice
        self.turn_total = 0
        self.permanent = 0
        self.frozen = [0] * 6
        self.frozen_points = [0] * 6
        self.challenged: int | None = None
        self._piggybacked = False
        self._events: list[dict[str, Any]] = []
        self._rit = 0
        p = self.current
        # the turn's bank bar: the mover's board status and the previous result hold for the turn
        self._bar_now = bank_bar(self.on_board[p], self._entry, self._min_bank, self._overcoming,
                                 self.last_result)
        self._legal: list[int] | None = None
        self._keeps: tuple[Keep, ...] | None = None
        if rs.variants.challenge and self.tiebreak_players is None and self._may_challenge(p):
            self.phase = Phase.CHALLENGE
        elif rs.variants.piggyback and self.offer is not None:
            self.phase = Phase.PIGGYBACK
        # else the turn's first roll is due (phase KEEP, no roll yet): the caller rolls it

    def _may_challenge(self, p: int) -> bool:
        """Source 001: two challenge turns at most, one below 5000 and one at or above, both players on the board."""
        if not self.on_board[p] or self.challenges_used[p] >= 2:
            return False
        if self.challenge_brackets[p][int(self.scores[p] >= CHALLENGE_SPLIT)]:
            return False
        return any(self.on_board[q] for q in range(self.num_players) if q != p)

    def _roll(self) -> None:
        """Roll the dice left; a zilch ends the turn, and the next turn's first roll is made by this
        same loop (no recursion however many turns in a row zilch on their first roll)."""
        self._legal = None
        while True:
            if self._by_slot:  # slot dice: the roll of this seat's turn and of this roll in it
                p = self.current
                roll = self.dice_source.roll_slot(self.dice_left, p, self._seat_turns[p], self._rit)
            else:
                roll = self.dice_source.roll(self.dice_left)
            self._rit += 1
            self.rolls.append(roll)
            self.roll = roll
            info = self.roll_info = self._rolls_by_dice[roll]
            self.phase = Phase.KEEP
            self._keeps = None
            if info.keeps:
                return
            keeps = self.keeps() if (self._pyr or self._bonus) else ()
            if keeps is BONUS_KEEPS:
                # docs/rules.md, the six-dice zilch bonus: all dice rolled and nothing scores: the bonus
                # joins the turn total, and the player banks or rolls all the dice again.
                self.turn_total += self._bonus
                self._events.append({"kind": "bonus", "points": self._bonus})
                return
            if keeps:  # pyramiding: the roll scores with the dice frozen in this pass
                return
            self._end_turn(banked=False)
            if self.phase != Phase.KEEP:  # a turn-start decision, or the game is over
                return

    def _apply_keep(self, keep: Keep) -> None:
        rs = self.ruleset
        self.turn_total += keep.points
        if keep.straight and permanent_straight(rs):
            self.permanent += keep.points
        self.dice_left -= keep.n
        if self.dice_left == 0:  # hot dice: all set aside, the next roll takes them all and starts a new pass
            self.dice_left = rs.dice
            self.frozen = [0] * 6
            self.frozen_points = [0] * 6
        elif self._pyr:
            self.frozen, self.frozen_points = pyramid_freeze(self.ruleset.scoring, keep, self.frozen, self.frozen_points)

    def _end_turn(self, banked: bool) -> None:
        rs, p, n = self.ruleset, self.current, self.num_players
        total = self.turn_total
        was_on = self.on_board[p]
        recorded, self.on_board[p] = turn_record(banked, total, self.permanent, was_on, self._entry)
        score = self.scores[p] + recorded
        penalty_note = None
        events = self._events
        if recorded and not banked:
            events.append({"kind": "permanent", "points": recorded})
        floor = rs.score_floor
        if self.challenged is not None:
            if banked:  # the challenged loses the banked total, down to the score floor
                q = self.challenged
                taken = min(self.scores[q] - floor, total)
                self.scores[q] -= taken
                events.append({"kind": "challenge_transfer", "seat": q, "points": taken})
            else:
                cost = challenge_cost(self.challenges_used[p], *CHALLENGE_ZILCH_COST)
                score -= cost
                penalty_note = f"challenge zilch -{cost}"
                events.append({"kind": "challenge_cost", "points": cost})
        zp = rs.variants.zilch_penalty
        self.zilch_streak[p], penalty = zilch_streak(banked, was_on, self.zilch_streak[p], zp.count)
        if penalty:
            before = max(floor, score)
            score = penalised(score, PENALTY_MODES.index(zp.mode), zp.points, floor)
            penalty_note = (penalty_note + "; " if penalty_note else "") + f"{zp.count} zilches: {zp.mode}"
            events.append({"kind": "zilch_penalty", "mode": zp.mode, "count": zp.count,
                           "points": before - max(floor, score)})
        self.scores[p] = max(floor, score)  # docs/rules.md, score_floor: penalties stop at the floor
        self.last_result = recorded
        self._seat_turns[p] += 1
        # piggyback is offered on another player's bank only: a one-player game has no offer
        self.offer = (total, self.dice_left) if banked and rs.variants.piggyback and n > 1 else None
        self._offer_frozen = (list(self.frozen), list(self.frozen_points)) if self.offer else None
        self.turns.append({
            "player": p, "banked": banked, "turn_total": total, "recorded": recorded,
            "score": self.scores[p], "challenged": self.challenged, "penalty": penalty_note,
            "piggyback": self._piggybacked, "zilch_roll": None if banked else list(self.roll),
            "events": events,
        })
        self.roll = ()
        self.roll_info = None
        self._keeps = None
        self._legal = None
        # Ending (docs/rules.md, "Ending"): who plays next, or the result.
        if self.tiebreak_players is not None:
            self.final_queue.pop(0)  # type: ignore[union-attr]
            if not self.final_queue:
                return self._finish(self.tiebreak_players)
        elif self.final_queue is None:
            if self.scores[p] >= rs.target:
                start, count = final_turns(p, n, self.first, ENDS.index(rs.end))
                self.final_queue = [(start + i) % n for i in range(count)]
                if not self.final_queue:
                    return self._finish(tuple(range(n)))
        else:
            self.final_queue.pop(0)
            if not self.final_queue:
                return self._finish(tuple(range(n)))
        self.current = self.final_queue[0] if self.final_queue else (p + 1) % n
        self._start_turn()

    def _finish(self, contenders: tuple[int, ...]) -> None:
        best = max(self.scores[q] for q in contenders)
        tied = tuple(q for q in contenders if self.scores[q] == best)
        if len(tied) > 1 and self.ruleset.tie == "tiebreak" and self.tiebreak_round < MAX_TIEBREAK_ROUNDS:
            self.tiebreak_round += 1
            self.tiebreak_players = tied
            self.final_queue = sorted(tied, key=lambda q: (q - self.first) % self.num_players)
            self.current = self.final_queue[0]
            self.offer = None
            self._start_turn()
            return
        self.winners = tied
        self.phase = Phase.OVER
        self._legal = None

    # ------------------------------------------------------------------ copies, records, text

    def clone(self) -> "GameState":
        """An independent copy (dice source included: the copy rolls the same dice)."""
        import copy

        new = object.__new__(GameState)
        for name in GameState.__slots__:
            setattr(new, name, copy.copy(getattr(self, name)))
        new.scores, new.on_board, new.zilch_streak = list(self.scores), list(self.on_board), list(self.zilch_streak)
        new.frozen, new.frozen_points = list(self.frozen), list(self.frozen_points)
        new.final_queue = list(self.final_queue) if self.final_queue is not None else None
        new.challenge_brackets = [list(b) for b in self.challenge_brackets]
        new.dice_source = copy.deepcopy(self.dice_source)
        new._by_slot = bool(getattr(new.dice_source, "by_slot", False))
        new.turns = [dict(t) for t in self.turns]
        return new

    def __deepcopy__(self, memo: dict) -> "GameState":
        """``copy.deepcopy`` is :meth:`clone`: the ruleset and its scoring tables are immutable and
        shared, so a deep copy needs no more, and walking them would cost far more than the game
        (OpenSpiel clones Python game states with deepcopy)."""
        new = self.clone()
        memo[id(self)] = new
        return new

    def result(self) -> list[float]:
        """Each seat's result once over: 1 for a sole winner, 1/k each for k sharing a draw, 0 otherwise."""
        if self.winners is None:
            raise RuntimeError("the game is not over")
        return [1.0 / len(self.winners) if q in self.winners else 0.0 for q in range(self.num_players)]

    def snapshot(self) -> dict[str, Any]:
        """The observable state as plain data (compared by replay tests)."""
        return {
            "scores": list(self.scores), "on_board": list(self.on_board),
            "zilch_streak": list(self.zilch_streak), "current": self.current, "phase": int(self.phase),
            "roll": list(self.roll), "dice_left": self.dice_left, "turn_total": self.turn_total,
            "permanent": self.permanent, "frozen": list(self.frozen), "final_queue": self.final_queue,
            "tiebreak_players": self.tiebreak_players, "last_result": self.last_result,
            "offer": self.offer, "challenged": self.challenged,
            "challenges_used": list(self.challenges_used), "winners": self.winners,
            "turns": len(self.turns),
        }

    def to_record(self) -> dict[str, Any]:
        """The game record: rules, players, every roll and every action. :func:`replay` plays it back."""
        return {
            "format": "zilch-rl/game-record/1",
            "ruleset": self.ruleset.to_dict(),
            "num_players": self.num_players,
            "first": self.first,
            "rolls": [list(r) for r in self.rolls],
            "actions": list(self.actions),
            "final": {"scores": list(self.scores), "winners": list(self.winners) if self.winners else None},
        }

    def describe(self, action: int) -> str:
        """A player's words for an action in this state: ``keep 1 1 5 (250), roll 3 dice``."""
        if action == FRESH:
            return "roll fresh dice"
        if action == PIGGYBACK:
            return f"piggyback on {self.offer[0]} with {self.offer[1]} dice" if self.offer else "piggyback"
        if action == NO_CHALLENGE:
            return "no challenge"
        if action >= CHALLENGE_BASE:
            return f"challenge player {(self.current + action - CHALLENGE_BASE + 1) % self.num_players + 1}"
        mask, bank = split_keep_action(action)
        k = next((k for k in self.keeps() if k.mask == mask), None)
        if self.keeps() is BONUS_KEEPS and not mask:  # the choice after a six-dice zilch bonus
            n = len(self.roll)
            return f"bank {self.turn_total}" if bank else f"roll {n} fresh dice"
        dice = " ".join(str(self.roll[i]) for i in range(len(self.roll)) if mask >> i & 1)
        pts = f" ({k.points})" if k else ""
        if bank:
            return f"keep {dice}{pts}, bank {self.turn_total + (k.points if k else 0)}"
        left = self.dice_left - (k.n if k else 0)
        n = left or self.ruleset.dice
        return f"keep {dice}{pts}, roll {n} {'die' if n == 1 else 'dice'}" + (" (hot dice)" if not left else "")

    def render(self, names: Sequence[str] | None = None) -> str:
        """A plain-text picture: scores, the player to move, the roll and the turn total."""
        names = names or [f"P{q + 1}" for q in range(self.num_players)]
        lines = []
        for q in range(self.num_players):
            mark = ">" if q == self.current and not self.done else " "
            board = "" if self.on_board[q] else "  (not on the board)"
            lines.append(f"{mark} {names[q]:<10} {self.scores[q]:>6}{board}")
        if self.done:
            w = self.winners or ()
            lines.append(("Draw: " if len(w) > 1 else "Winner: ") + ", ".join(names[q] for q in w))
        else:
            lines.append(f"{names[self.current]} to move: turn total {self.turn_total}"
                         + (f" (permanent {self.permanent})" if self.permanent else "")
                         + (f", roll {' '.join(map(str, self.roll))}" if self.roll else ""))
            if self.final_queue is not None:
                lines.append(f"Final turns: {', '.join(names[q] for q in self.final_queue)}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"GameState({self.ruleset.name!r}, scores={self.scores}, current={self.current}, "
                f"phase={self.phase.name}, roll={list(self.roll)}, turn_total={self.turn_total})")
