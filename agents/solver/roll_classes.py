"""The roll classes a game solve works on: the rolls of 1 to dice dice merged into classes with the
same keep options (:class:`RollTables`, :func:`roll_tables`), and the points unit of a game
(:func:`game_unit`), the greatest common divisor of every point value it can add or take."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
import numpy as np
from zilch_env import Ruleset
from zilch_env.rules.compiled import compile as compile_rules
from zilch_env.rules.primitives import CHALLENGE_ZILCH_COST
from zilch_env.rules.scoring import permanent_straight


@dataclass(frozen=True)
class RollTables:
    """The rolls of 1 to ``dice`` dice merged into classes with the same keep options.

    Class ``c`` of ``n`` dice (``cls_lo[n] <= c < cls_hi[n]``) has probability ``cls_p[c]`` and the
    options ``opt_lo[c] <= o < opt_hi[c]``: ``opt_pts`` units scored, ``opt_m`` dice left (0 = hot
    dice), ``opt_pinc`` 1 for a permanent straight. ``pz[n]`` is the chance that ``n`` dice score
    nothing; ``p_allonly`` the chance that every option of a roll of all the dice uses all of them.
    """

    unit: int
    cls_lo: np.ndarray
    cls_hi: np.ndarray
    cls_p: np.ndarray
    opt_lo: np.ndarray
    opt_hi: np.ndarray
    opt_pts: np.ndarray
    opt_m: np.ndarray
    opt_pinc: np.ndarray
    pz: np.ndarray
    p_allonly: float
    maxpts: int

    def as_tuple(self, NP: int, D: int) -> tuple:
        """The kernels' view: option offsets into the flat ``Q`` array for ``NP`` permanent levels."""
        off = (self.opt_pts * NP + self.opt_pinc) * D + self.opt_m
        return (self.cls_lo, self.cls_hi, self.cls_p, self.opt_lo, self.opt_hi, off, self.pz)




def game_unit(rs: Ruleset) -> int:
    """The greatest common divisor of every point value the game can add or take (keeps of up to
    ``dice`` dice, the subtracted penalty, the six-dice bonus, a challenge's costs): every score is a
    multiple of it."""
    unit = compile_rules(rs).score_unit
    if rs.variants.challenge:  # a challenge's zilch costs the challenger these amounts
        unit = math.gcd(unit, *CHALLENGE_ZILCH_COST)
    return unit


def roll_tables(rs: Ruleset, unit: int) -> RollTables:
    """The roll classes of ``rs`` in units of ``unit`` (see :class:`RollTables`)."""
    cr = compile_rules(rs)
    D = rs.dice
    permanent = permanent_straight(rs)
    cls_lo = np.zeros(D + 1, np.int64)
    cls_hi = np.zeros(D + 1, np.int64)
    pz = np.zeros(D + 1)
    cls_p: list[float] = []
    opt_lo: list[int] = []
    opt_hi: list[int] = []
    opt_pts: list[int] = []
    opt_m: list[int] = []
    opt_pinc: list[int] = []
    p_allonly = 0.0
    maxpts = 1
    for n in range(1, D + 1):
        classes: dict[tuple, float] = defaultdict(float)
        for r in cr.rolls_of(n):
            p = cr.roll_p[r]
            keeps = cr.keeps[r]
            if not keeps:
                pz[n] += p
                continue
            opts = tuple(sorted({(k.points // unit, n - k.n, int(permanent and k.straight)) for k in keeps}))
            classes[opts] += p
        cls_lo[n] = len(cls_p)
        for opts in sorted(classes):
            cls_p.append(classes[opts])
            opt_lo.append(len(opt_pts))
            for pts, m, inc in opts:
                opt_pts.append(pts)
                opt_m.append(m)
                opt_pinc.append(inc)
                maxpts = max(maxpts, pts)
            opt_hi.append(len(opt_pts))
            if n == D and all(m == 0 for _, m, _ in opts):
                p_allonly += classes[opts]
        cls_hi[n] = len(cls_p)
    return RollTables(unit, cls_lo, cls_hi, np.array(cls_p), np.array(opt_lo, np.int64),
                      np.array(opt_hi, np.int64), np.array(opt_pts, np.int64), np.array(opt_m, np.int64),
                      np.array(opt_pinc, np.int64), pz, p_allonly, maxpts)


# ============================================================================================
# Supported rules and solve parameters

