"""The dice of a game: where its rolls come from, and the seeds that make them repeatable.

:class:`RandomDice` rolls from a seeded ``numpy.random.Generator`` (one draw of a roll code per roll:
the sorted roll of ``n`` dice, each with its multinomial chance); :class:`ScriptedDice` plays a list of
rolls (tests, replays), then optionally random dice. Any object with ``roll(n)`` (or, with
``by_slot = True``, ``roll_slot(n, seat, turn, index)``) returning ``n`` sorted faces is a dice source
for :class:`zilch_env.GameState`. :func:`check_seed` is the one rule for what a seed is, and
:func:`seed_arg` the command lines' ``--seed`` type.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

import numpy as np

from zilch_env.engine.splitmix import GOLDEN as _GOLDEN, M64 as _M64, mix64 as _mix64, mix64_array as _mix64_array
from zilch_env.rules.scoring import face
from zilch_env.rules.packed import sorted_rolls_by_code

#: Dice codes are uniform in [0, 6**6); a roll of n dice uses code % 6**n.
_CODES = 6**6

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
        self._codes = _NO_CODES  # the block as an array: GameState's kernels read the codes directly
        self._pos = 0
        self._block = self.FIRST_BLOCK
        self._by_code = sorted_rolls_by_code()

    def __deepcopy__(self, memo: dict) -> "RandomDice":
        """A copy that rolls the same dice from here on; the code table is shared, not copied."""
        import copy

        new = object.__new__(RandomDice)
        new.rng = copy.deepcopy(self.rng, memo)
        new._buf, new._pos, new._block, new._by_code = list(self._buf), self._pos, self._block, self._by_code
        new._codes = self._codes  # never written: shared
        return new

    def refill(self) -> None:
        """Draw the next block of codes (the current one is used up)."""
        self._codes = self.rng.integers(0, 6**6, size=self._block)
        self._buf = self._codes.tolist()
        self._block = min(2 * self._block, self.BLOCK)
        self._pos = 0

    def roll(self, n: int) -> tuple[int, ...]:
        if self._pos >= len(self._buf):
            self.refill()
        code = self._buf[self._pos]
        self._pos += 1
        return self._by_code[n][code % _POW6[n]]


_NO_CODES = np.zeros(0, dtype=np.int64)
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


# --------------------------------------------------------------------------------------------
# Keyed dice: the batched engine's SplitMix64 streams, for one game

def _generator(x: Any) -> np.random.Generator:
    return x if isinstance(x, np.random.Generator) else np.random.default_rng(x)


def stream_keys(seed: int | None, count: int, salt: int = 0) -> np.ndarray:
    """``count`` SplitMix64 keys for seed ``seed`` (None: fresh entropy): key ``i`` is the
    ``(i + 1)``-th output of SplitMix64 started from ``mix(seed + salt)``. The keyed dice of game ``b``
    of ``BatchedGames(seed=s)`` are ``KeyedDice(stream_keys(s, G)[b])``; ``salt`` 1 gives the random
    agents' decision streams."""
    if seed is None:
        base = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
    else:
        base = _mix64((int(seed) * 2 + salt) * _GOLDEN & _M64)
    i = np.arange(1, count + 1, dtype=np.uint64)
    return _mix64_array(np.uint64(base) + i * np.uint64(_GOLDEN))


class KeyedDice:
    """A dice source for :class:`zilch_env.GameState` that rolls the keyed dice of the batched engine:
    code ``i`` (0, 1, ...) is the ``(i + 1)``-th SplitMix64 output from state ``key`` modulo ``6**6``
    (a bias below 1e-14), and a roll of ``n`` dice is ``sorted_rolls_by_code()[n][code % 6**n]`` as in
    :class:`RandomDice`. ``GameState(rs, n, dice=KeyedDice(k))`` rolls what a batched game with key
    ``k`` rolls."""

    def __init__(self, key: int):
        self.key = int(key) & _M64
        self.pos = 0
        self._by_code = sorted_rolls_by_code()

    def roll(self, n: int) -> tuple[int, ...]:
        self.pos += 1
        code = _mix64((self.key + self.pos * _GOLDEN) & _M64) % _CODES
        return self._by_code[n][code % _POW6[n]]

    def __deepcopy__(self, memo: dict) -> "KeyedDice":
        """A copy that rolls the same dice from here on (the code table is shared)."""
        new = KeyedDice(self.key)
        new.pos = self.pos
        return new


class KeyedSlotDice:
    """The keyed *slot* dice of the batched engine (``dice_slots=True``) for :class:`GameState`: the
    ``r``-th roll of the ``t``-th turn of seat ``s`` takes code ``slot_index(s, t, r)`` of the keyed
    stream ``key``, whoever sits there and however the game went before. Games given the same key
    (the seat orders of one deal) meet the same dice turn by turn: common random numbers that hold
    even when players bank at different moments.

    A slot dice source (``by_slot = True``): the game asks for each roll by its slot
    (:meth:`roll_slot`), so the dice need not know the game."""

    by_slot = True

    def __init__(self, key: int, first: int = 0):
        self.key = int(key) & _M64
        self._by_code = sorted_rolls_by_code()
        self._slot = (first, 0, 0)

    def roll_slot(self, n: int, seat: int, turn: int, index: int) -> tuple[int, ...]:
        """The ``index``-th roll (of ``n`` dice) of the ``turn``-th turn of ``seat``."""
        self._slot = (seat, turn, index + 1)  # where the next roll would come from (a copy's seed)
        slot = (seat << 40) | (turn << 16) | index
        code = _mix64((self.key + (slot + 1) * _GOLDEN) & _M64) % _CODES
        return self._by_code[n][code % _POW6[n]]

    def roll(self, n: int) -> tuple[int, ...]:
        raise TypeError("slot dice roll by turn slot: a GameState asks roll_slot(n, seat, turn, index)")

    def __deepcopy__(self, memo: dict) -> "RandomDice":
        """A copy (an agent's look-ahead) gets ordinary random dice: no peeking at the deal."""
        return RandomDice(np.random.default_rng([self.key, *self._slot]))
