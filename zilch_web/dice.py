"""The dice of a stored web game, independent of any library's version.

A stored game is its seed and its actions, replayed. Its dice must therefore come back the same
after any upgrade. NumPy does not promise that ``default_rng`` keeps its streams across versions,
so the web game's dice (format ``zilch-rl/table/2``) are **keyed SplitMix64**, computed here in
plain Python integers: roll number ``k`` (0, 1, ...) of a game with seed ``s`` takes the code

    ``mix64((s + (k + 1) * 0x9E3779B97F4A7C15) mod 2**64) mod 6**6``

and a roll of ``n`` dice is the sorted base-6 digits (plus one) of ``code mod 6**n``. This is the
batched engine's :class:`zilch_env.batched.KeyedDice` with key ``s`` (a test checks they agree), so
``GameState(rules, n, dice=KeyedDice(seed))`` rolls a finished game's dice again from the seed the
game shows at its end. ``tests/zilch_web/test_web_storage.py`` pins the rolls of a few seeds.

Games stored before (format ``zilch-rl/table/1``) rolled ``numpy.random.default_rng([seed, k])``.
They keep those dice (:class:`NumpyTableDice`) but are replayed from the rolls stored with them
(:class:`StoredRolls`), so a NumPy that changed its streams cannot make them unreadable; only the
rolls after the stored ones are drawn from NumPy, and those are as random and secret as before.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from zilch_env import RandomDice

#: The stored format of a table whose dice are :class:`KeyedTableDice`.
KEYED = "splitmix64"
#: Format-1 tables (before keyed dice): ``numpy.random.default_rng([seed, k])``.
NUMPY = "numpy-default_rng"

_M64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_CODES = 6**6


def mix64(z: int) -> int:
    """The SplitMix64 output function (Steele, Lea and Flood 2014) on a 64-bit integer."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


def keyed_roll(seed: int, k: int, n: int) -> tuple[int, ...]:
    """Roll number ``k`` of ``n`` dice of the game with ``seed``: sorted faces 1 to 6."""
    code = mix64((int(seed) + (k + 1) * _GOLDEN) & _M64) % _CODES % 6**n
    faces = []
    for _ in range(n):
        faces.append(code % 6 + 1)
        code //= 6
    return tuple(sorted(faces))


class _TableDiceBase(RandomDice):
    """A dice source whose roll ``k`` is a pure function of ``(seed, k)``.

    A subclass of :class:`RandomDice` for its ``__deepcopy__``: an agent's look-ahead copy of the
    game gets ordinary dice of a fixed seed, never the game's own next rolls."""

    kind = ""

    def __init__(self, seed: int):
        super().__init__(0)
        self.seed = int(seed)
        self.count = 0

    def roll(self, n: int) -> tuple[int, ...]:
        r = self.roll_at(self.count, n)
        self.count += 1
        return r

    def roll_at(self, k: int, n: int) -> tuple[int, ...]:  # pragma: no cover - abstract
        raise NotImplementedError


class KeyedTableDice(_TableDiceBase):
    """The web game's dice: keyed SplitMix64 (:func:`keyed_roll`), the same on every version."""

    kind = KEYED

    def roll_at(self, k: int, n: int) -> tuple[int, ...]:
        return keyed_roll(self.seed, k, n)


class NumpyTableDice(_TableDiceBase):
    """The dice of games stored in format 1: roll ``k`` drawn from ``default_rng([seed, k])``."""

    kind = NUMPY

    def roll_at(self, k: int, n: int) -> tuple[int, ...]:
        rng = np.random.default_rng([self.seed, k])
        return tuple(sorted(int(d) for d in rng.integers(1, 7, size=n)))


class StoredRolls(RandomDice):
    """Replays a stored game's rolls, then rolls on with ``then`` (counting on from there)."""

    def __init__(self, rolls: Sequence[Sequence[int]], then: _TableDiceBase):
        super().__init__(0)
        self.rolls = [tuple(sorted(int(d) for d in r)) for r in rolls]
        self.then = then
        self.seed = then.seed
        self.kind = then.kind

    @property
    def count(self) -> int:
        return self.then.count

    def roll(self, n: int) -> tuple[int, ...]:
        k = self.then.count
        if k < len(self.rolls):
            r = self.rolls[k]
            if len(r) != n or not all(1 <= d <= 6 for d in r):
                raise ValueError(f"stored roll #{k + 1} {list(r)} does not fit: the game rolls {n} dice here")
            self.then.count += 1
            return r
        return self.then.roll(n)


def dice_for(kind: str, seed: int) -> _TableDiceBase:
    """The dice source of a stored dice kind (:data:`KEYED` or :data:`NUMPY`)."""
    if kind == KEYED:
        return KeyedTableDice(seed)
    if kind == NUMPY:
        return NumpyTableDice(seed)
    raise ValueError(f"unknown dice {kind!r}: this server knows {KEYED!r} and {NUMPY!r}")
