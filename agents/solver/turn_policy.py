"""The turn solver's limits and errors, and a solved turn as data: the choices after a roll with their values (:class:`Choice`, :class:`Advice`),
the optimal policy of one turn (:class:`TurnPolicy`) and its summary (:class:`TurnSolution`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Sequence
import numpy as np
from zilch_env import GameState, Ruleset
from zilch_env.engine.game import keep_action
from zilch_env.rules.primitives import can_bank
from zilch_env.rules.compiled import compile as compile_rules
from zilch_env.rules.scoring import BONUS_KEEPS, Keep, bonus_of, scoring_table


#: The certified bracket on the optimum (points) below which the solve stops raising the cap.
TAIL_TOLERANCE = 1e-9
#: The first cap on the turn total (points); it is doubled until the bracket is below TAIL_TOLERANCE.
FIRST_CAP = 20_000
#: The largest grid the solver accepts (totals up to the cap, in steps of the points' common divisor).
MAX_GRID = 4_000_000


class SolverError(ValueError):
    """A ruleset the solver cannot give a finite answer for (e.g. every roll scores)."""


def certified_bound(step, size: int) -> np.ndarray:
    """An upper bound ``U`` on the fixed point of the monotone collect operator ``step`` (arrays of
    ``size``), verified: ``step(U) <= U`` implies the fixed point is at most ``U``. Iterates from 0
    to near the fixed point, then raises it until the check holds."""
    S = np.zeros(size)
    for _ in range(1_000_000):
        new = step(S)
        done = np.all(np.abs(new - S) <= 1e-12 * (1.0 + np.abs(new)))
        S = new
        if done:
            break
    U = S * (1.0 + 1e-6) + 1.0
    for _ in range(60):
        if np.all(step(U) <= U):
            return U
        U = U * 2.0 + 1.0
    raise SolverError("could not bound the points a turn can collect under these rules")  # pragma: no cover




@dataclass(frozen=True)
class Choice:
    """One choice after a roll: a keep, then bank or roll, and the expected points it leads to."""

    keep: Keep
    bank: bool
    value: float  # expected points of the turn from here on this choice (plus the streak term)
    action: int  # the engine action (keep_action(mask, bank))

    @property
    def dice(self) -> tuple[int, ...]:
        return self.keep.dice

    def describe(self, dice_left: int, all_dice: int) -> str:
        left = dice_left - self.keep.n
        what = "bank" if self.bank else (f"roll {left or all_dice}" + (" (hot dice)" if not left else ""))
        if not self.keep.n:  # the keep of nothing after a six-dice zilch bonus
            return f"take the six-dice bonus, {what}"
        return f"keep {' '.join(map(str, self.dice))} ({self.keep.points}), {what}"


@dataclass(frozen=True)
class Advice:
    """Every choice of one roll, best first."""

    roll: tuple[int, ...]
    turn_total: int
    permanent: int
    choices: tuple[Choice, ...]

    @property
    def best(self) -> Choice:
        return self.choices[0]

    @property
    def zilch(self) -> bool:
        return not self.choices


@dataclass(frozen=True, eq=False)
class TurnPolicy:
    """The solved values of one turn MDP: a board status, a bank threshold and a zilch offset.

    ``zilch_offset`` is added to what a zilch records (the streak term of :class:`TurnSolution`; 0 for
    the plain turn optimum). Values are expected points of the turn (plus that term) from a state.
    """

    ruleset: Ruleset
    on_board: bool
    bank_threshold: int
    zilch_offset: float
    unit: int
    straight: int  # permanent straight points (0: no permanent straights)
    levels: int  # J: permanent levels 0..J stored
    cap: int  # largest stored total at risk
    R: np.ndarray = field(repr=False)  # R[j, n, i]
    Z: np.ndarray = field(repr=False)  # zilch probability under this policy

    @property
    def values(self) -> np.ndarray:
        """Every stored value (the last axis: the total at risk, in units)."""
        return self.R

    # ---------------------------------------------------------------- values

    def _index(self, turn_total: int, permanent: int) -> tuple[int, int, int]:
        """(level j, extra permanent points folded above level J, grid index i)."""
        if permanent < 0 or turn_total < permanent:
            raise ValueError(f"turn total {turn_total} with permanent {permanent}: the turn total "
                             f"includes the permanent points, so 0 <= permanent <= turn total")
        at_risk = turn_total - permanent
        if at_risk % self.unit:
            raise ValueError(f"turn total {turn_total} cannot occur: every score under these rules is "
                             f"a multiple of {self.unit}")
        j, extra = 0, 0
        if permanent:
            if not self.straight or permanent % self.straight:
                raise ValueError(f"permanent {permanent}: permanent points are whole permanent "
                                 f"straights ({self.straight or 'none under these rules'})")
            j = permanent // self.straight
            if j > self.levels:
                extra, j = (j - self.levels) * self.straight, self.levels
        return j, extra, at_risk // self.unit

    def _zpay(self, j: int) -> float:
        p = j * self.straight
        rs = self.ruleset
        return float(p if (self.on_board or p >= rs.entry_threshold) else 0) + self.zilch_offset

    def _roll(self, j: int, i: int, n: int) -> tuple[float, float]:
        if i < self.R.shape[2]:
            return float(self.R[j, n, i]), float(self.Z[j, n, i])
        return self._zpay(j) + min(self.zilch_offset, 0.0), 1.0  # beyond the cap: the lower bound

    def roll_value(self, turn_total: int, dice: int, permanent: int = 0, frozen: Sequence[int] | None = None,
                   frozen_points: Sequence[int] | None = None) -> float:
        """Expected points when about to roll ``dice`` dice with this turn total (no bank choice).
        ``frozen`` / ``frozen_points`` (the dice frozen in this pass) matter only under pyramiding
        (:class:`agents.solver.turn_pyramid.PassPolicy`); here they change nothing."""
        self._check_dice(dice)
        j, extra, i = self._index(turn_total, permanent)
        return extra + self._roll(j, i, dice)[0]

    def can_bank(self, turn_total: int, left: int) -> bool:
        """GameState.can_bank for this board status (``left`` = dice not set aside, 0 = hot dice)."""
        return can_bank(turn_total, left, self.bank_threshold, self.ruleset.hot_dice == "forced")

    def value(self, turn_total: int, dice_left: int, permanent: int = 0) -> float:
        """Expected points at a decision where the player may bank ``turn_total`` or roll ``dice_left``
        dice (``dice_left`` = all dice means hot dice: banking then needs ``hot_dice = "optional"``)."""
        self._check_dice(dice_left)
        left = 0 if dice_left == self.ruleset.dice and turn_total > 0 else dice_left
        return self._after(turn_total, permanent, left)[0]

    def _after(self, turn_total: int, permanent: int, left: int) -> tuple[float, bool]:
        """(value, bank?) of the decision after a keep."""
        j, extra, i = self._index(turn_total, permanent)
        roll = extra + self._roll(j, i, left or self.ruleset.dice)[0]
        if self.can_bank(turn_total, left) and turn_total >= roll:
            return float(turn_total), True
        return roll, False

    def _check_dice(self, n: int) -> None:
        if not 1 <= n <= self.ruleset.dice:
            raise ValueError(f"{n} dice: under these rules a roll has 1 to {self.ruleset.dice} dice")

    # ---------------------------------------------------------------- the policy

    def decide(self, roll: Sequence[int], turn_total: int, permanent: int = 0, frozen: Sequence[int] | None = None,
               frozen_points: Sequence[int] | None = None) -> Advice:
        """Every legal keep of ``roll`` with bank and roll, valued, best first (``turn_total`` before it;
        ``frozen`` / ``frozen_points`` matter only under pyramiding).

        Banking is listed only where allowed. Ties go to banking, then to more points kept.
        """
        rs = self.ruleset
        info = scoring_table(rs).info(roll)
        if len(info.dice) > rs.dice:
            raise ValueError(f"roll {list(roll)!r}: these rules roll at most {rs.dice} dice")
        self._index(turn_total, permanent)
        n = len(info.dice)
        # all the dice and nothing scores, under the six-dice zilch bonus: the bonus joins the turn
        # total and the one keep is the keep of nothing (bank, or roll all the dice again)
        bonus = bonus_of(rs, info)
        choices = []
        for k in (BONUS_KEEPS if bonus else compile_rules(rs).keeps_of(info.dice)):
            left = n - k.n
            total = turn_total + bonus + k.points
            perm = permanent + (k.points if (k.straight and self.straight) else 0)
            j, extra, i = self._index(total, perm)
            roll_v = extra + self._roll(j, i, left or rs.dice)[0]
            choices.append(Choice(k, False, roll_v, keep_action(k.mask, False)))
            if self.can_bank(total, left):
                choices.append(Choice(k, True, float(total), keep_action(k.mask, True)))
        choices.sort(key=lambda ch: (-ch.value, not ch.bank, -ch.keep.points, ch.keep.mask))
        return Advice(info.dice, turn_total, permanent, tuple(choices))

    def advise(self, state: GameState) -> Advice:
        """:meth:`decide` for the roll of ``state`` (a KEEP phase): from the turn total before that roll
        (a six-dice zilch bonus it earned is already in the state's), with the dice frozen in this pass."""
        before = state.turn_total - bonus_of(self.ruleset, state.roll_info)
        return self.decide(state.roll, before, state.permanent, state.frozen, state.frozen_points)

    def best_action(self, state: GameState, legal: Sequence[int] | None = None) -> int:
        """The best legal keep action of ``state`` (a KEEP phase) by these values."""
        legal = state.legal_actions() if legal is None else legal
        allowed = set(legal)
        for ch in self.advise(state).choices:
            if ch.action in allowed:
                return ch.action
        return int(legal[0])  # pragma: no cover - every legal keep-and-roll is among the choices

    def bank_totals(self) -> dict[int, int | None]:
        """For n dice to roll, the least turn total from which this policy banks whenever it may and
        never rolls again below the cap (p = 0); None when it rolls up to the cap."""
        rs = self.ruleset
        out: dict[int, int | None] = {}
        N = self.R.shape[2]
        for n in range(1, rs.dice + 1):
            left = 0 if n == rs.dice else n
            first = None
            for i in range(N - 1, -1, -1):
                t = i * self.unit
                if not self.can_bank(t, left) or t < self.R[0, n, i]:
                    break
                first = t
            out[n] = first
        return out


@dataclass(frozen=True, eq=False)
class TurnSolution:
    """The solved turn of a ruleset for one board status (see the module docstring for the model).

    Attributes:
        expected_points: points of one turn under the optimal policy (a zilch scores nothing beyond
            permanent points; streak penalties not counted).
        points_per_turn: the optimal long-run average per turn under a ``subtract`` zilch-streak
            penalty (on the board), from the streak-dependent policies; ``expected_points`` without a
            penalty or before the board; ``None`` for the ``halve`` / ``reset`` penalties.
        policy: the plain turn optimum; streak_policies: one per current streak (0 .. K-1) when a
            subtract penalty applies, else ``(policy,)``. streak_values: h(0..K-1), h(0) = 0.
        zilch_probabilities: exact probability that a roll of n dice has no legal keep (index n; under
            six_dice_zilch_bonus such a roll of all the dice scores the bonus instead of ending the turn).
        bank_above: a proven total at risk from which banking is optimal whenever allowed (for every
            dice count that can zilch).
        cap, tail_error: the stored totals and the certified bracket on ``expected_points``.
        solve_seconds: wall time of the solve (first call; later calls are cached).
    """

    ruleset: Ruleset
    on_board: bool
    bank_threshold: int
    expected_points: float
    points_per_turn: float | None
    policy: TurnPolicy
    streak_policies: tuple[TurnPolicy, ...]
    streak_values: tuple[float, ...]
    zilch_probabilities: tuple[Fraction, ...]
    bank_above: float | None
    cap: int
    tail_error: float
    solve_seconds: float
    policy_iterations: int = 0

    def value(self, turn_total: int, dice_left: int, permanent: int = 0) -> float:
        """Expected points at a decision to bank ``turn_total`` or roll ``dice_left`` dice (no streak)."""
        return self.policy.value(turn_total, dice_left, permanent)

    def roll_value(self, turn_total: int, dice: int, permanent: int = 0) -> float:
        """Expected points when about to roll ``dice`` dice with ``turn_total`` (no bank choice)."""
        return self.policy.roll_value(turn_total, dice, permanent)

    def decide(self, roll: Sequence[int], turn_total: int, permanent: int = 0, streak: int | None = None,
               **frozen: Sequence[int]) -> Advice:
        """Every choice for ``roll`` valued, best first; ``streak`` picks the streak-dependent policy.
        Under pyramiding ``frozen=`` and ``frozen_points=`` give the dice frozen earlier in this pass."""
        return self.policy_for(streak).decide(roll, turn_total, permanent, **frozen)

    def best_action(self, state: GameState, legal: Sequence[int] | None = None) -> int:
        """The best legal keep action of ``state`` under the plain turn optimum."""
        return self.policy.best_action(state, legal)

    def policy_for(self, streak: int | None) -> TurnPolicy:
        """The policy for the current zilch streak (None: the plain turn optimum)."""
        if streak is None or len(self.streak_policies) == 1:
            return self.policy
        return self.streak_policies[min(max(streak, 0), len(self.streak_policies) - 1)]

    def to_dict(self) -> dict:
        return {
            "ruleset": self.ruleset.name,
            "on_board": self.on_board,
            "bank_threshold": self.bank_threshold,
            "expected_points": self.expected_points,
            "points_per_turn": self.points_per_turn,
            "streak_values": list(self.streak_values),
            "bank_totals": {str(n): t for n, t in self.policy.bank_totals().items()},
            "zilch_probabilities": {str(n): str(z) for n, z in enumerate(self.zilch_probabilities) if n},
            "bank_above": self.bank_above,
            "cap": self.cap,
            "tail_error": self.tail_error,
            "solve_seconds": self.solve_seconds,
        }


# --------------------------------------------------------------------------------------------
# Solving


