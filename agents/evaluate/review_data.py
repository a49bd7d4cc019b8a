"""The plain data of a game's review (:mod:`agents.evaluate.review`): what each decision, roll and seat
carries, the score's scale, and the JSON form."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

#: The ``format`` of :meth:`Review.to_dict`.
REVIEW_FORMAT = "zilch-rl/review/1"

#: The mean loss per decision that halves the score, per measure: one percentage point of win chance,
#: or 25 expected points of the turn.
HALF_LOSS = {"win": 0.01, "points": 25.0}

#: Losses below this (float32 rounding of the table, float64 of the turn solver) count as none.
TINY = {"win": 1e-6, "points": 1e-6}


def score_of(mean_loss: float | None, measure: str) -> float | None:
    """The 0-100 score of a mean loss per decision: ``100 * 2 ** (-mean_loss / HALF_LOSS[measure])``
    (100 for no loss, monotone decreasing); None without a valued decision."""
    if mean_loss is None:
        return None
    return 100.0 * math.pow(2.0, -max(mean_loss, 0.0) / HALF_LOSS[measure])


@dataclass
class Valued:
    """One decision under one measure, in the mover's view: the value of the move made, of the best
    move, the loss (``best - value``), and the best move."""

    value: float
    best: float
    loss: float
    best_action: int
    best_move: str


@dataclass
class Choice:
    """One legal move of a decision and its value per measure, in the mover's view (None where a
    measure does not value it)."""

    action: int
    move: str
    win: float | None
    points: float | None


@dataclass
class Decision:
    """One decision of the game (the ``index``-th action of the record)."""

    index: int
    seat: int
    turn: int  # the turn it belongs to, counted from 0 over the whole game
    roll: list[int]
    turn_total: int  # the turn total with this roll's keep still to choose
    action: int
    move: str
    kind: str = "keep"  # "keep" (a keep, then bank or roll) or "turn_start" (challenge, piggyback)
    roll_index: int | None = None  # the roll it answers (index into Review.rolls; None at a turn start)
    win: Valued | None = None
    points: Valued | None = None
    #: Why a measure could not value this decision, per measure (absent when it did).
    not_valued: dict[str, str] = field(default_factory=dict)
    #: Only when asked for (``review_record(..., choices=True)``): the scores and board status of every
    #: seat at this decision, and every legal move with its value per measure (None where that measure
    #: does not value it), the best first.
    scores: list[int] | None = None
    on_board: list[bool] | None = None
    choices: list[Choice] | None = None


@dataclass
class Roll:
    """One roll of the game and its luck for the roller (None where a measure does not value it)."""

    index: int
    seat: int
    turn: int
    dice: list[int]
    first: bool  # the first roll of its turn
    zilch: bool = False
    win_before: float | None = None
    win_after: float | None = None
    win_luck: float | None = None
    points_before: float | None = None
    points_after: float | None = None
    points_luck: float | None = None


@dataclass
class Mistake:
    """One of a seat's costliest decisions: what it did, what was best, what each was worth."""

    index: int
    move: str
    best_move: str
    value: float
    best: float
    loss: float


@dataclass
class SeatReview:
    """One seat's game under the review's measure.

    ``decisions`` all its decisions, ``valued`` those the measure valued; ``accuracy`` the mean loss
    per valued decision and ``score`` its 0-100 form (:func:`score_of`); ``lost`` the sum of its
    losses. ``start``, ``luck``, ``play`` and ``result``: under ``win`` its win chance at the start,
    the luck of every roll of the game for it, the play of every decision for it (its opponent's
    losses less its own) and its result (None while the game is not over); under ``points`` its
    expected points at the first roll of each valued turn, the luck of its own rolls, minus its
    losses, and the points those turns recorded."""

    seat: int
    name: str
    decisions: int
    valued: int
    accuracy: float | None
    score: float | None
    lost: float
    start: float | None
    luck: float
    play: float
    result: float | None
    mistakes: list[Mistake]


@dataclass
class Review:
    """The review of one game (:func:`review_record`); :meth:`to_dict` is its JSON form."""

    ruleset: str
    num_players: int
    first: int
    players: list[str]
    measure: str  # "win" or "points"
    why_points: str | None  # why the review is not by win chance (None under "win")
    why_no_points: str | None  # why the turn solver values nothing (None when it does)
    decisions: list[Decision]
    rolls: list[Roll]
    seats: list[SeatReview]
    #: (decision index, seat 0's win chance at that decision under optimal play from there), then
    #: (number of decisions, seat 0's result) once the game is over; empty under "points".
    win_line: list[tuple[int, float]]
    scores: list[int]
    winners: list[int] | None

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON: every field, floats rounded to 6 decimals, plus the format tag and the
        score's definition."""
        out = {"format": REVIEW_FORMAT, **asdict(self)}
        for d in out["decisions"]:  # the detail only a review asked with choices=True has
            for key in ("scores", "on_board", "choices"):
                if d[key] is None:
                    del d[key]
        out["win_line"] = [[i, v] for i, v in self.win_line]
        out["half_loss"] = HALF_LOSS[self.measure]
        out["score_definition"] = (f"100 * 2 ** (-accuracy / {HALF_LOSS[self.measure]}), accuracy = mean "
                                   f"{'win chance' if self.measure == 'win' else 'expected points'} given up "
                                   f"per decision")
        return _rounded(out)


def _rounded(x: Any) -> Any:
    if isinstance(x, float):
        return round(x, 6)
    if isinstance(x, dict):
        return {k: _rounded(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_rounded(v) for v in x]
    return x
