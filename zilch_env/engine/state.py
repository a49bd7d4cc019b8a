"""The fields of one game, read from its row of the engine's state (:mod:`zilch_env.engine.layout`).

:class:`GameFields` is what :class:`zilch_env.GameState` shows of its row, and :class:`RowFields`
what :meth:`zilch_env.engine.batched.BatchedGames.fields` shows of one game of a batch: every field a
property that reads the columns the kernels write, as Python values (ints, bools, lists, tuples,
None), written once for both views. A few fields of a ``GameState`` may be assigned, to put a game
at a position for tests and analysis; per-seat lists refuse item assignment (:class:`SeatList`),
since setting one item of a copy would change nothing.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from zilch_env.engine import layout as L
from zilch_env.engine.actions import Phase
from zilch_env.rules.compiled import ROLLS
from zilch_env.rules.scoring import RollInfo

#: The phase shown for each of the row's phases; PENDING (a roll is due) shows as KEEP.
_PHASES = (Phase.CHALLENGE, Phase.PIGGYBACK, Phase.KEEP, Phase.OVER, Phase.KEEP)


class SeatList(list):
    """A per-seat field of a :class:`GameState` (``scores``, ``on_board``, ...): a list read from the
    game's row. Setting one item would change only this copy, so it is refused; assign the whole
    field instead (``game.scores = [7000, 0]``)."""

    __slots__ = ("_field",)

    def __init__(self, values: Iterable[Any], field: str):
        super().__init__(values)
        self._field = field

    def __setitem__(self, index: Any, value: Any) -> None:
        raise TypeError(f"GameState.{self._field} is read from the game: assign the whole field "
                        f"(game.{self._field} = [...]) to put the game at a position")


class GameFields:
    """The fields of a game as properties over its row ``_s0`` (set by the subclass, with
    ``num_players``, ``_table`` and ``_changed()``)."""

    __slots__ = ()

    def _seats(self, col: int) -> list[int]:
        return self._s0[col: col + self.num_players].tolist()

    def _seat_list(self, col: int, field: str) -> SeatList:
        return SeatList(self._s0[col: col + self.num_players].tolist(), field)

    def _changed(self) -> None:
        self._legal = None
        self._keeps = None

    @property
    def current(self) -> int:
        return self._s0.item(L.CURRENT)

    @property
    def phase(self) -> Phase:
        return _PHASES[self._s0.item(L.PHASE)]

    @property
    def done(self) -> bool:
        return self._s0.item(L.PHASE) == L.OVER

    @property
    def scores(self) -> list[int]:
        return self._seat_list(L.SCORE, "scores")

    @scores.setter
    def scores(self, values: Sequence[int]) -> None:
        self._set_seats(L.SCORE, values)

    @property
    def on_board(self) -> list[bool]:
        return SeatList([x != 0 for x in self._seats(L.ON_BOARD)], "on_board")

    @on_board.setter
    def on_board(self, values: Sequence[bool]) -> None:
        self._set_seats(L.ON_BOARD, [bool(v) for v in values])

    @property
    def zilch_streak(self) -> list[int]:
        return self._seat_list(L.ZILCH_STREAK, "zilch_streak")

    @zilch_streak.setter
    def zilch_streak(self, values: Sequence[int]) -> None:
        self._set_seats(L.ZILCH_STREAK, values)

    def _set_seats(self, col: int, values: Sequence[Any]) -> None:
        values = list(values)
        if len(values) != self.num_players:
            raise ValueError(f"{len(values)} values for {self.num_players} seats")
        self._s0[col: col + self.num_players] = [int(v) for v in values]
        self._changed()

    @property
    def roll(self) -> tuple[int, ...]:
        s0 = self._s0
        return ROLLS[s0.item(L.ROLL)] if s0.item(L.PHASE) == L.KEEP else ()

    @property
    def roll_info(self) -> RollInfo | None:
        roll = self.roll
        return self._table.rolls[roll] if roll else None

    @property
    def dice_left(self) -> int:
        return self._s0.item(L.DICE_LEFT)

    @property
    def turn_total(self) -> int:
        return self._s0.item(L.TURN_TOTAL)

    @turn_total.setter
    def turn_total(self, value: int) -> None:
        self._s0[L.TURN_TOTAL] = int(value)
        self._changed()

    @property
    def permanent(self) -> int:
        return self._s0.item(L.PERMANENT)

    @property
    def frozen(self) -> list[int]:
        return self._s0[L.FROZEN: L.FROZEN + 6].tolist()

    @property
    def frozen_points(self) -> list[int]:
        return self._s0[L.FROZEN_POINTS: L.FROZEN_POINTS + 6].tolist()

    @property
    def final_queue(self) -> list[int] | None:
        s0 = self._s0
        if not s0.item(L.FINAL_QUEUE_ON):
            return None
        return SeatList(s0[L.FINAL_QUEUE + s0.item(L.FINAL_QUEUE_POS): L.FINAL_QUEUE + s0.item(L.FINAL_QUEUE_END)].tolist(), "final_queue")

    @final_queue.setter
    def final_queue(self, seats: Sequence[int] | None) -> None:
        s0 = self._s0
        if seats is None:
            s0[L.FINAL_QUEUE_ON] = s0[L.FINAL_QUEUE_POS] = s0[L.FINAL_QUEUE_END] = 0
        else:
            seats = [int(q) for q in seats]
            s0[L.FINAL_QUEUE: L.FINAL_QUEUE + len(seats)] = seats
            s0[L.FINAL_QUEUE_ON], s0[L.FINAL_QUEUE_POS], s0[L.FINAL_QUEUE_END] = 1, 0, len(seats)
        self._changed()

    @property
    def tiebreak_players(self) -> tuple[int, ...] | None:
        m = self._s0.item(L.TIEBREAK_SEATS)
        return tuple(q for q in range(self.num_players) if m >> q & 1) if m else None

    @property
    def tiebreak_round(self) -> int:
        return self._s0.item(L.TIEBREAK_ROUND)

    @property
    def last_result(self) -> int:
        return self._s0.item(L.LAST_RESULT)

    @property
    def offer(self) -> tuple[int, int] | None:
        s0 = self._s0
        return (s0.item(L.OFFER_TOTAL), s0.item(L.OFFER_DICE)) if s0.item(L.OFFER_ON) else None

    @offer.setter
    def offer(self, value: tuple[int, int] | None) -> None:
        s0 = self._s0
        if value is None:
            s0[L.OFFER_ON] = 0
        else:
            s0[L.OFFER_ON], s0[L.OFFER_TOTAL], s0[L.OFFER_DICE] = 1, int(value[0]), int(value[1])
        self._changed()

    @property
    def offer_frozen(self) -> tuple[list[int], list[int]] | None:
        """With a piggyback offer under pyramiding: the dice frozen in the pass it takes over, by
        face, and their points (as :attr:`frozen` and :attr:`frozen_points`); None without an offer."""
        s0 = self._s0
        if not s0.item(L.OFFER_ON):
            return None
        return s0[L.OFFER_FROZEN: L.OFFER_FROZEN + 6].tolist(), s0[L.OFFER_FROZEN_POINTS: L.OFFER_FROZEN_POINTS + 6].tolist()

    @property
    def challenged(self) -> int | None:
        q = self._s0.item(L.CHALLENGED)
        return None if q < 0 else q

    @property
    def piggybacked(self) -> bool:
        """Whether this turn took over the previous player's offer."""
        return self._s0.item(L.PIGGYBACKED) != 0

    @property
    def challenges_used(self) -> list[int]:
        return self._seats(L.CHALLENGES_USED)

    @property
    def challenge_brackets(self) -> list[list[bool]]:
        return [[bool(b & 1), bool(b & 2)] for b in self._seats(L.CHALLENGE_BRACKETS)]

    @property
    def winners(self) -> tuple[int, ...] | None:
        s0 = self._s0
        if s0.item(L.PHASE) != L.OVER:
            return None
        m = s0.item(L.WINNER_SEATS)
        return tuple(q for q in range(self.num_players) if m >> q & 1)

    @property
    def decisions(self) -> int:
        return self._s0.item(L.DECISIONS)

    def snapshot(self) -> dict[str, Any]:
        """The observable state as plain data (compared by replay and differential tests)."""
        return {
            "scores": list(self.scores), "on_board": list(self.on_board),
            "zilch_streak": list(self.zilch_streak), "current": self.current, "phase": int(self.phase),
            "roll": list(self.roll), "dice_left": self.dice_left, "turn_total": self.turn_total,
            "permanent": self.permanent, "frozen": list(self.frozen), "final_queue": self.final_queue,
            "tiebreak_players": self.tiebreak_players, "last_result": self.last_result,
            "offer": self.offer, "challenged": self.challenged,
            "challenges_used": list(self.challenges_used), "winners": self.winners,
            "turns": self._s0.item(L.TURNS),
        }


class RowFields(GameFields):
    """The fields of game ``b`` of a batch, read from its row (a read-only view: the batch changes
    its games only by ``step`` and ``reset``)."""

    __slots__ = ("_s0", "num_players", "_table")

    def __init__(self, row: Any, num_players: int, table: Any):
        self._s0 = row.view()
        self._s0.flags.writeable = False
        self.num_players = num_players
        self._table = table
