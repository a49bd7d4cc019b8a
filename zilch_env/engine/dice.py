"""The dice of a game: where its rolls come from, and the seeds that make them repeatable.

:class:`RandomDice` rolls from a seeded ``numpy.random.Generator`` (one draw of a roll code per roll:
the sorted roll of ``n`` dice, each with its multinomial chance); :class:`ScriptedDice` plays a list of
rolls (tests, replays), then optionally random dice. Any object with ``roll(n)`` (or, with
``by_slot = True``, ``roll_slot(n, seat, turn, index)``) returning ``n`` sorted faces is a dice source
for :class:`zilch_env.GameState`. :func:`check_seed` is the one rule for what a seed is, and
:func:`seed_arg` the command lines' ``--seed`` type.
"""

from __future__ import annotations

import functools
from typing import Any, Iterable, Sequence

import numpy as np

from zilch_env.rules.scoring import face

__all__ = ["DiceExhausted", "RandomDice", "ScriptedDice", "check_seed", "seed_arg", "sorted_rolls_by_code"]


def seed_arg(text: str) -> int:
    """A seed given on a command line (every ``--seed``): a whole number 0 or more, else an
    ``argparse.ArgumentTypeError`` naming the text."""
    import argparse

    try:
        value = int(text)
        check_seed(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: a seed is a whole number 0 or more") from None
    return value


def check_seed(seed: Any) -> None:
    """Refuse, naming it, a seed NumPy's generators cannot take: seeds are whole numbers 0 or more
    (or ``None`` for fresh entropy, or a ``numpy.random.Generator``)."""
    if seed is None or isinstance(seed, np.random.Generator):
        return
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed = {seed!r}: a seed is a whole number 0 or more (or None for a random game)")


# --------------------------------------------------------------------------------------------
# Dice


@functools.lru_cache(maxsize=1)
def sorted_rolls_by_code() -> tuple[tuple[tuple[int, ...], ...], ...]:
    """``[n][code]``: the sorted roll of ``n`` dice whose faces are the base-6 digits of ``code``
    (0 <= code < 6**n). Equal rolls are the same tuple object."""
    canon: dict[tuple[int, ...], tuple[int, ...]] = {}
    out: list[tuple[tuple[int, ...], ...]] = [()]
    for n in range(1, 7):
        row = []
        for code in range(6**n):
            faces, c = [], code
            for _ in range(n):
                faces.append(c % 6 + 1)
                c //= 6
            t = tuple(sorted(faces))
            row.append(canon.setdefault(t, t))
        out.append(tuple(row))
    return tuple(out)


class RandomDice:
    """Dice from a seeded ``numpy.random.Generator``.

    The generator is drawn in blocks of uniform codes in ``[0, 6**6)``; a roll of ``n`` dice takes one
    code modulo ``6**n`` (uniform, since ``6**n`` divides ``6**6``) and looks its sorted faces up, so
    a roll costs no generator call and no sort."""

    FIRST_BLOCK, BLOCK = 64, 4096  # blocks double from 64 codes: a short game draws little

    def __init__(self, seed: int | np.random.Generator | None = None):
        check_seed(seed)
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        self._buf: list[int] = []
        self._pos = 0
        self._block = self.FIRST_BLOCK
        self._by_code = sorted_rolls_by_code()

    def __deepcopy__(self, memo: dict) -> "RandomDice":
        """A copy that rolls the same dice from here on; the code table is shared, not copied."""
        import copy

        new = object.__new__(RandomDice)
        new.rng = copy.deepcopy(self.rng, memo)
        new._buf, new._pos, new._block, new._by_code = list(self._buf), self._pos, self._block, self._by_code
        return new

    def roll(self, n: int) -> tuple[int, ...]:
        if self._pos >= len(self._buf):
            self._buf = self.rng.integers(0, 6**6, size=self._block).tolist()
            self._block = min(2 * self._block, self.BLOCK)
            self._pos = 0
        code = self._buf[self._pos]
        self._pos += 1
        return self._by_code[n][code % _POW6[n]]


_POW6 = [6**n for n in range(7)]


class DiceExhausted(RuntimeError):
    """A scripted game asked for more rolls than the script has."""


class ScriptedDice:
    """Dice from a list of rolls, in order; each roll must have as many dice as the game rolls.

    When the script runs out the game raises :class:`DiceExhausted`, or, with ``then`` (e.g.
    ``RandomDice(0)``), goes on with those dice: tests script the rolls they are about and let the
    game continue past them."""

    def __init__(self, rolls: Iterable[Sequence[int]], then: "RandomDice | None" = None):
        self.then = then
        self.rolls = []
        for i, r in enumerate(rolls):
            try:
                faces = tuple(face(d) for d in r)
            except (TypeError, ValueError):
                faces = ()
            if not 1 <= len(faces) <= 6:
                shown = r.tolist() if isinstance(r, np.ndarray) else r
                raise ValueError(f"scripted roll #{i + 1} {shown!r}: a roll is 1 to 6 dice with faces 1 to 6")
            self.rolls.append(faces)
        self.pos = 0

    def roll(self, n: int) -> tuple[int, ...]:
        if self.pos >= len(self.rolls):
            if self.then is not None:
                return self.then.roll(n)
            raise DiceExhausted(f"the script has {len(self.rolls)} rolls and the game asks for another")
        r = self.rolls[self.pos]
        if len(r) != n:
            raise ValueError(f"scripted roll #{self.pos + 1} {list(r)!r} has {len(r)} dice but the game rolls {n}")
        self.pos += 1
        return tuple(sorted(r))
