"""What the two-player game solver (:mod:`agents.solver.game`) models, and the grid it solves on.

:func:`check_supported` refuses, naming the rule, every ruleset the solver does not model. For the
two variants it does not model (``piggyback``, ``pyramiding``) the refusal gives the
size the game would need on the solver's grid (:func:`variant_size`), so that a user can tell a model
not written yet from a game this machine could not hold:

* ``piggyback``: every race state gains the offer it starts with, the previous player's banked turn
  total and the dice they left (at most ``target / unit`` totals times ``dice`` counts): the table
  grows by that factor, while each turn's DP keeps its size (it reads one bank value per total and
  dice left instead of one per total).
* ``pyramiding``: the race keeps its states, but a turn's state holds the dice frozen in the pass
  (45 to 61 pass states on the presets, ``agents.solver.turn_pyramid.pass_graph``, against the
  ``dice + 1`` positions per turn total of the plain DP): about 6 to 14 times the work of the plain
  game (the pass graph's roll and keep entries against the plain roll classes and options).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from zilch_env import Ruleset, UnsupportedRulesError
from zilch_env.engine import layout as L
from zilch_env.rules.compiled import compile as compile_rules
from zilch_env.rules.schema import ENDS

from agents.solver import game_kernels as K
from agents.solver.roll_classes import RollTables, game_unit, roll_tables

__all__ = ["VariantSize", "check_supported", "check_teachable", "variant_size"]

#: What the solver models, said in every refusal.
SUPPORTED = ("it supports every preset's rules, zilch_penalty with mode 'subtract' or 'reset', "
             "six_dice_zilch_bonus and challenge")
#: The pyramiding turn's work against the plain turn's, measured on the presets' pass graphs:
#: (roll entries + keep entries) / (roll classes + options), zonk 5.7 ... zilch 14.
PYRAMID_WORK = (6, 14)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _params(rs: Ruleset, rt: RollTables, dcap: int, players: int = 2) -> np.ndarray:
    """The solve's integer vector (:mod:`agents.solver.game_turn`): the engine's rule parameters of
    ``rs`` for ``players`` players (:meth:`zilch_env.rules.compiled.CompiledRules.params`), then the
    grid of a solve in units of ``rt.unit`` tracking leads up to ``dcap`` units (``IP_*``)."""
    u = rt.unit
    ip = np.zeros(K.IP_SIZE, np.int64)
    ip[:L.R_SIZE] = compile_rules(rs).params(players)
    Tu = _ceil_div(int(ip[L.R_TARGET]), u)
    f = -int(ip[L.R_SCORE_FLOOR]) // u  # on the grid: compile's score_unit divides the floor
    ip[K.IP_UNIT] = u
    ip[K.IP_TU] = Tu
    ip[K.IP_FLOOR] = f
    ip[K.IP_NS] = Tu + 1 + f
    # under challenge each player also carries the brackets they used: both (4 usages) when a race
    # score can reach the split, else the lower one only (2)
    nu = (4 if ip[L.R_CHALLENGE_SPLIT] < ip[L.R_TARGET] else 2) if ip[L.R_CHALLENGE] else 0
    ip[K.IP_NU] = nu
    ip[K.IP_NZ] = max(int(ip[L.R_ZILCH_PENALTY_COUNT]), 1) * max(nu, 1)
    ip[K.IP_NSEAT] = 2 if (ip[L.R_END] == ENDS.index("finish_round") or ip[L.R_TIEBREAK]) else 1
    ip[K.IP_DCAP] = dcap
    S = int(K.straight_units(ip))
    ip[K.IP_NP] = (dcap + Tu + 2 * rt.maxpts) // S + 2 if S else 1
    ip[K.IP_MAXPTS] = max(rt.maxpts, 1)
    return ip


@dataclass(frozen=True)
class VariantSize:
    """The size of a two-player game under one variant the solver does not model, on its grid:
    ``states`` values stored (``bytes`` at 8 bytes each while solving, half that in the float32
    table) and about ``rows`` turn-DP rows of work (the plain game's ``plain_rows`` times the
    variant's factor; pyramiding gives the low and high ends of :data:`PYRAMID_WORK`)."""

    variant: str
    plain_states: int
    states: int
    bytes: int
    plain_rows: float
    rows: tuple[float, float]
    why: str

    def describe(self) -> str:
        lo, hi = self.rows
        work = f"{lo:.1e}" if lo == hi else f"{lo:.1e} to {hi:.1e}"
        return (f"{self.why}: {self.states:,} values x 8 bytes = {self.bytes / 2**30:,.2f} GB while solving "
                f"({self.plain_states:,} without it) and about {work} turn-DP rows ({self.plain_rows:.1e} "
                f"without it)")


def variant_size(rs: Ruleset, variant: str) -> VariantSize:
    """The size of the two-player game of ``rs`` with ``variants.<variant>`` modelled (``piggyback``
    or ``pyramiding``), from the solver's grid of ``rs`` (the module docstring says how)."""
    ip = _params(rs, roll_tables(rs, game_unit(rs)), 0)
    tu, ns, nz, nseat, dice = (int(ip[i]) for i in (K.IP_TU, K.IP_NS, K.IP_NZ, K.IP_NSEAT, L.R_DICE))
    plain = nseat * (ns * nz) ** 2
    rows = plain * (10 * tu + 1) / 2  # as agents.solver.game.solve_size
    if variant == "piggyback":
        states = plain * (1 + tu * dice)
        return VariantSize(variant, plain, states, states * 8, rows, (rows, rows),
                           f"the offer in the state ({tu} turn totals x {dice} dice counts per race state)")
    if variant == "pyramiding":
        lo, hi = PYRAMID_WORK
        return VariantSize(variant, plain, plain, plain * 8, rows, (rows * lo, rows * hi),
                           "the frozen dice in each turn's state (45 to 61 pass states per turn total on "
                           f"the presets, against {dice + 1} positions)")
    raise ValueError(f"variant {variant!r}: one of 'piggyback', 'pyramiding'")


def check_supported(rs: Ruleset) -> None:
    """Raise :class:`zilch_env.UnsupportedRulesError` naming the first rule the game solver does not model
    (for piggyback and pyramiding with the size the game would need, :func:`variant_size`)."""
    v = rs.variants
    for name in ("pyramiding", "piggyback"):
        if getattr(v, name):
            raise UnsupportedRulesError(
                f"variants.{name} = true: the game solver does not model the {name} variant ({SUPPORTED}). "
                f"Modelled, this game would need {variant_size(rs, name).describe()}")
    if v.overcoming:
        raise UnsupportedRulesError(
            f"variants.overcoming = true: the game solver does not support the overcoming variant ({SUPPORTED}); "
            "agents.solver.multi solves it at two players")
    zp = v.zilch_penalty
    if zp.count and zp.mode == "halve":
        raise UnsupportedRulesError("variants.zilch_penalty.mode = 'halve': the game solver supports the "
                                    "penalty modes 'subtract' and 'reset' (halving leaves the points grid)")
    if zp.count and rs.tie == "tiebreak":
        raise UnsupportedRulesError("tie = 'tiebreak' with variants.zilch_penalty: the game solver does not "
                                    "model zilch streaks running into tie-break turns (use tie = 'draw' or "
                                    "no zilch penalty)")


def check_teachable(rs: Ruleset) -> None:
    """Raise :class:`zilch_env.UnsupportedRulesError` where a solved game cannot label training games
    (``train.teacher.WinTeacher``) or shape their rewards (``agents.solver.win_shaping.WinPotential``):
    rules the solver does not model (:func:`check_supported`), and ``challenge``, whose race values
    depend on the challenges each player has used, which those readers of the table do not pass (the
    solved game itself plays them: ``optimal-win``, reviews, hints)."""
    check_supported(rs)
    if rs.variants.challenge:
        raise UnsupportedRulesError("variants.challenge = true: the teacher and the win shaping read the race "
                                    "values without the challenges each player has used; the solved game "
                                    "plays challenges as optimal-win")
