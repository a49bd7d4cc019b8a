"""The game engine: one game of 1 to 6 players under any :class:`~zilch_env.rules.schema.Ruleset`.

A :class:`GameState` knows whose move it is, lists that player's legal actions
(:meth:`GameState.legal_actions`), applies one (:meth:`GameState.apply`) and refuses an illegal one
with an :class:`IllegalActionError` that names the rule forbidding it, leaving the game unchanged.
Dice come from a seeded ``numpy.random.Generator`` (:class:`RandomDice`) or from a script
(:class:`ScriptedDice`, for tests and replays). Every roll and action is recorded;
:meth:`GameState.to_record` gives a JSON game record and :func:`replay` plays it back to the same state.

One turn flow
    A ``GameState`` is the single-game view over one row of the engine's state
    (:mod:`zilch_env.engine.layout`, every column named and commented): it plays its moves with the
    same compiled kernels as :class:`zilch_env.engine.batched.BatchedGames` steps thousands of games
    with (:mod:`zilch_env.engine.kernels`, through :mod:`zilch_env.engine.decisions`), and reads its
    fields from that row. The kernels stop before every roll, so the game's own dice source rolls
    the dice; the view adds what only a single game keeps: the record of rolls and actions, and the
    summary of every turn with its typed events (read from the row's ``END_*`` columns).

Actions are small integers, the same flat layout every environment uses
(:mod:`zilch_env.engine.actions`).

The rules themselves are in ``docs/rules.md``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterable, Sequence

import numpy as np

from zilch_env.jit import announce_compile
from zilch_env.engine import decisions as D
from zilch_env.engine import layout as L
from zilch_env.engine.state import GameFields, SeatList  # noqa: F401
from zilch_env.engine.dice import (DiceExhausted, RandomDice, ScriptedDice, check_seed, seed_arg, sorted_rolls_by_code)  # noqa: F401
from zilch_env.rules.schema import Ruleset
from zilch_env.rules.load import load_ruleset
from zilch_env.rules.compiled import ROLL_ID, ROLLS, CompiledRules, compile as compile_rules
from zilch_env.rules.primitives import bank_bar, can_bank
from zilch_env.engine.actions import (CHALLENGE_BASE, FRESH, KEEP_ACTIONS, MAX_PLAYERS, NO_CHALLENGE, NUM_ACTIONS, PIGGYBACK, IllegalActionError, Phase, RecordError, action_number, keep_action, mask_of, player_count, split_keep_action)  # noqa: F401
from zilch_env.rules.scoring import BONUS_KEEPS, Keep, scoring_table

_one_step = D.one_step


@lru_cache(maxsize=256)
def _params(cr: CompiledRules, num_players: int) -> np.ndarray:
    """The rule parameters of a game (shared, read-only: games of one ruleset and player count read one)."""
    rp = cr.params(num_players)
    rp.flags.writeable = False
    return rp


# --------------------------------------------------------------------------------------------
# The game


class GameState(GameFields):
    """One game in progress (or over): a view over one row of the engine's state. Change it with
    :meth:`apply`; assigning ``scores``, ``on_board``, ``zilch_streak``, ``turn_total``,
    ``final_queue`` or ``offer`` puts the game at a position (for tests and analysis), the next
    decision then reads it.

    Fields (read from the row):
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
        piggybacked: whether this turn took over the previous player's offer.
        challenges_used: challenges each player has declared; challenge_brackets: which brackets
            (0 below 5000, 1 at or above) each player has used.
        winners: the seats sharing the win once the game is over (more than one is a draw).
        decisions: the actions applied.

    Kept by the view:
        rolls / actions: every roll (sorted) and every action, in order (the game record).
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
        "ruleset", "num_players", "first", "turns", "rolls", "actions", "dice_source",
        "_st", "_s0", "_rp", "_tab", "_cr", "_by_slot", "_legal", "_keeps", "_mask", "_mask_of", "_events",
        "_buf", "_kbuf", "_table", "_pyr", "_bonus", "_random",
    )  # fmt: skip

    def __init__(
        self,
        ruleset: Ruleset | str = "zonk",
        num_players: int = 2,
        seed: int | np.random.Generator | None = None,
        dice: Iterable[Sequence[int]] | RandomDice | ScriptedDice | None = None,
        first: int = 0,
    ):
        self.ruleset = load_ruleset(ruleset) if not isinstance(ruleset, Ruleset) else ruleset
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
        announce_compile(D.__file__, "the engine")
        self.num_players = num_players
        self.first = first
        self.turns: list[dict[str, Any]] = []
        self.rolls: list[tuple[int, ...]] = []
        self.actions: list[int] = []
        self._events: list[dict[str, Any]] = []
        self._st = np.zeros((1, L.WIDTH), dtype=np.int64)
        self._bind_rules()
        self._bind_row()
        D.one_new(self._st, first, self._rp)
        self._play(-1)

    def _bind_rules(self) -> None:
        """What the kernels read of the rules, from ``ruleset`` and ``num_players`` (cached, shared)."""
        rs = self.ruleset
        self._cr = cr = compile_rules(rs)
        self._tab, self._rp, self._table = cr.table, _params(cr, self.num_players), scoring_table(rs)
        self._pyr, self._bonus = rs.variants.pyramiding, rs.variants.six_dice_zilch_bonus

    def _bind_row(self) -> None:
        """The view over its row and its dice source: the row, the kernels' buffers, empty caches."""
        self._s0 = self._st[0]
        self._buf = np.empty(D.ACTION_ROOM, dtype=np.int64)
        self._kbuf = np.empty((D.KEEP_ROOM, 4), dtype=np.int64)
        self._legal: list[int] | None = None
        self._keeps: tuple[Keep, ...] | None = None
        self._mask_of: list[int] | None = None
        self._mask: np.ndarray | None = None
        self._by_slot = bool(getattr(self.dice_source, "by_slot", False))
        self._random = type(self.dice_source) is RandomDice  # its codes go to the kernels directly

    # ------------------------------------------------------------------ queries

    def bank_threshold(self) -> int:
        """The least turn total the player to move may bank (entry threshold before the board)."""
        rs = self.ruleset
        return rs.min_bank if self.on_board[self.current] else rs.entry_threshold

    def keeps(self) -> tuple[Keep, ...]:
        """The legal keeps of the current roll (points include pyramiding), canonical masks only."""
        keeps = self._keeps
        if keeps is None:
            s0 = self._s0
            if s0.item(L.PHASE) != L.KEEP:
                return ()
            r = s0.item(L.ROLL)
            if self._pyr and s0.item(L.FROZEN_DICE):  # pyramiding, dice frozen in this pass: the kernels' keeps
                roll = ROLLS[r]
                kb = self._kbuf
                keeps = tuple(_keep(roll, *kb[i].tolist()) for i in range(D.one_keeps(self._st, self._rp, self._tab, kb)))
            else:
                keeps = self._cr.keeps[r] or BONUS_KEEPS  # a roll kept in play with no keep: the six-dice bonus
            self._keeps = keeps
        return keeps

    def best_keep(self) -> Keep:
        """The keep of the most points, ties to more dice, then the lower mask: the keep of
        ``keep = "all_scoring"`` and of the greedy mover (one choice of the kernels, for both views)."""
        if self.phase != Phase.KEEP:
            raise ValueError(f"no roll to keep from: the player decides {self.phase.name.lower()}")
        mask = D.one_best_keep(self._st, self._rp, self._tab)[0]
        return next(k for k in self.keeps() if k.mask == mask)

    def can_bank(self, total: int, left_after: int) -> bool:
        """Whether a turn total may be banked with ``left_after`` dice not set aside (0 = hot dice)."""
        rs, p = self.ruleset, self.current
        bar = bank_bar(self.on_board[p], rs.entry_threshold, rs.min_bank, rs.variants.overcoming, self.last_result)
        return can_bank(total, left_after, bar, rs.hot_dice == "forced")

    def legal_actions(self) -> list[int]:
        """The legal actions of the player to move, ascending; empty once the game is over."""
        legal = self._legal
        if legal is None:
            buf = self._buf
            legal = self._legal = buf[: D.one_legal(self._st, self._rp, self._tab, buf)].tolist()
        return legal

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
        self.actions.append(a)
        self._legal = None
        self._keeps = None
        self._play(a)

    def _play(self, a: int) -> None:
        """Move ``a`` (none when negative), then the rolls due, with the summary of every turn that ends."""
        if a == PIGGYBACK:  # the offer taken over, as it stands before the move (the kernels roll on at once)
            self._events.append({"kind": "piggyback", "points": self._s0.item(L.OFFER_TOTAL),
                                 "dice": self._s0.item(L.OFFER_DICE)})
        if not self._random:
            if a >= 0 and D.one_move(self._st, self._rp, self._tab, a):
                self._turn_over(None)
            return self._roll_due()
        ds = self.dice_source
        code_roll = self._cr.code_roll
        s0 = self._s0
        while True:
            pos, r, placed, ended = _one_step(self._st, self._rp, self._tab, a, ds._codes, ds._pos, code_roll)
            ds._pos = pos
            if ended:
                self._turn_over(None)
            a = -1
            if r >= 0:
                self._rolled(ROLLS[r], placed)
            if s0.item(L.PHASE) != L.PENDING:
                return
            if pos >= len(ds._buf):
                ds.refill()

    def _roll_due(self) -> None:
        """Roll while a roll is due: the dice source rolls, the kernels place the roll (a zilch ends
        the turn, and the next turn's first roll is rolled by this same loop)."""
        s0 = self._s0
        while s0.item(L.PHASE) == L.PENDING:
            n = s0.item(L.DICE_LEFT)
            if self._by_slot:  # slot dice: the roll of this seat's turn and of this roll in it
                p = s0.item(L.CURRENT)
                roll = self.dice_source.roll_slot(n, p, s0.item(L.SEAT_TURNS + p), s0.item(L.TURN_ROLLS))
            else:
                roll = self.dice_source.roll(n)
            try:
                r = ROLL_ID[roll]
            except (KeyError, TypeError):
                r, roll = _roll_id(roll, n)
            if len(roll) != n:
                raise ValueError(f"the dice source rolled {list(roll)} for a roll of {n} dice")
            self._rolled(roll, D.one_roll(self._st, self._rp, self._tab, r))

    def _rolled(self, roll: tuple[int, ...], placed: int) -> None:
        """A roll the kernels placed (:func:`zilch_env.engine.decisions.one_roll`): recorded, and the
        end of the turn it zilched or the six-dice bonus it scored (docs/rules.md)."""
        self.rolls.append(roll)
        if placed == 1:
            self._turn_over(roll)
        elif placed == 2:
            self._events.append({"kind": "bonus", "points": self._bonus})

    def _turn_over(self, zilch_roll: tuple[int, ...] | None) -> None:
        """The summary of the turn that just ended, from the row's ``END_*`` columns."""
        row = self._s0.tolist()
        banked = zilch_roll is None
        recorded = row[L.LAST_RESULT]
        events = self._events
        self._events = []
        penalty = None
        if recorded and not banked:
            events.append({"kind": "permanent", "points": recorded})
        q = row[L.END_CHALLENGED]
        if q >= 0:
            if banked:
                events.append({"kind": "challenge_transfer", "seat": q, "points": row[L.END_TAKEN]})
            else:
                penalty = f"challenge zilch -{row[L.END_COST]}"
                events.append({"kind": "challenge_cost", "points": row[L.END_COST]})
        if row[L.END_PENALISED]:
            zp = self.ruleset.variants.zilch_penalty
            penalty = (penalty + "; " if penalty else "") + f"{zp.count} zilches: {zp.mode}"
            events.append({"kind": "zilch_penalty", "mode": zp.mode, "count": zp.count, "points": row[L.END_PENALTY]})
        self.turns.append({
            "player": row[L.END_SEAT], "banked": banked, "turn_total": row[L.END_TOTAL], "recorded": recorded,
            "score": row[L.END_SCORE], "challenged": None if q < 0 else q, "penalty": penalty,
            "piggyback": bool(row[L.END_PIGGYBACKED]), "zilch_roll": None if banked else list(zilch_roll),
            "events": events,
        })

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

    # ------------------------------------------------------------------ copies, records, text

    def clone(self) -> "GameState":
        """An independent copy (dice source included: the copy rolls the same dice)."""
        import copy

        new = object.__new__(GameState)
        for name in ("ruleset", "num_players", "first", "_rp", "_tab", "_cr", "_table", "_pyr", "_bonus"):
            setattr(new, name, getattr(self, name))  # immutable, shared
        new._st = self._st.copy()
        new.rolls, new.actions = list(self.rolls), list(self.actions)
        new.turns = [dict(t) for t in self.turns]
        new._events = list(self._events)
        new.dice_source = copy.deepcopy(self.dice_source)
        new._bind_row()
        return new

    _DERIVED = ("_s0", "_rp", "_tab", "_cr", "_table", "_pyr", "_bonus", "_buf", "_kbuf", "_legal", "_keeps", "_mask",
                "_mask_of", "_by_slot", "_random")

    def __getstate__(self) -> dict[str, Any]:
        """Pickled: the row and what the view keeps; the compiled rules are rebuilt from the ruleset."""
        return {name: getattr(self, name) for name in GameState.__slots__ if name not in GameState._DERIVED}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self._bind_rules()
        self._bind_row()

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


def _keep(roll: tuple[int, ...], mask: int, points: int, n: int, straight: int) -> Keep:
    """A :class:`Keep` of ``roll`` from the kernels' numbers."""
    counts = [0] * 6
    for i, d in enumerate(roll):
        if mask >> i & 1:
            counts[d - 1] += 1
    return Keep(mask, tuple(counts), n, points, bool(straight))  # type: ignore[arg-type]


def _roll_id(roll: Any, n: int) -> tuple[int, tuple[int, ...]]:
    """The roll id of what a dice source rolled for ``n`` dice, sorted, or a ValueError naming it."""
    try:
        dice = tuple(sorted(int(d) for d in roll))
        return ROLL_ID[dice], dice
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"the dice source rolled {roll!r} for a roll of {n} dice: a roll is 1 to 6 faces "
                         f"from 1 to 6") from None
