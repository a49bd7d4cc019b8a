"""Dealing the dice: deals, turn slots and the seeded streams of every game of a tournament.

Deal ``d`` fixes the dice of every turn slot (:class:`DealCodes`, :class:`DealDice`) and one
decision stream per seat, so that every seat order of a table meets the same luck.
"""

from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np

from zilch_env import GameState, RandomDice, Ruleset
from zilch_env.engine.game import sorted_rolls_by_code
from zilch_env.engine.splitmix import (GOLDEN as _GOLDEN, M64 as _M64, mix64 as _mix64, mix64_array as _mix64_array)


#: The kinds of seat orders: ``auto`` is :data:`AUTO_PERMUTATIONS_UP_TO` players or fewer played in
#: every permutation, more in rotations.
ORDER_KINDS = ("auto", "rotations", "permutations")

#: ``orders = "auto"`` plays all N! seat orders up to this many players (6 at three, 24 at four) and
#: the N rotations beyond (120 or 720 orders per deal would leave too few deals for an interval at
#: ordinary budgets). Rotations seat each agent in each seat once but always in the same cyclic
#: order: at three or more players agent A then always plays just before agent B, never just after
#: (who moves after whom matters: the last turns after the target, piggyback, challenges), a bias
#: that permutations remove. For one agent against N-1 copies of another the N rotations are exactly
#: the distinct games of the permutations, so the agent's results are the same either way (its copies'
#: rows are not: under rotations the first copy always moves just after it); ``train/report.py``
#: plays rotations there, where ``games`` then buys (N-1)! times more deals.
AUTO_PERMUTATIONS_UP_TO = 4


def order_kind(players: int, kind: str = "auto") -> str:
    """The kind of seat orders ``kind`` means at ``players`` players (``auto`` resolved)."""
    if kind not in ORDER_KINDS:
        raise ValueError(f"orders = {kind!r}: choose one of {', '.join(ORDER_KINDS)}")
    if kind == "auto":
        return "permutations" if players <= AUTO_PERMUTATIONS_UP_TO else "rotations"
    return kind


def seat_orders(players: int, kind: str = "rotations") -> list[tuple[int, ...]]:
    """The seat orders of a deal: ``order[seat]`` is the table position (agent) sitting at ``seat``.

    ``rotations``: the N cyclic shifts (each position in each seat once); ``permutations``: all N!
    orders (each position in each seat (N-1)! times, after and before every other one equally often);
    ``auto``: :func:`order_kind`. For two players all three are the same two orders.
    """
    kind = order_kind(players, kind)
    if kind == "rotations":
        return [tuple((s + k) % players for s in range(players)) for k in range(players)]
    return list(itertools.permutations(range(players)))


def distinct_orders(keys: Sequence[object], orders: Sequence[tuple[int, ...]]
                    ) -> tuple[list[tuple[int, ...]], np.ndarray, np.ndarray]:
    """The seat orders that make different games, and how to rebuild every order's results from them.

    ``keys[position]`` names the agent at each table position (its spec; copies of one spec share a
    key). Two orders that seat the same agents in the same seats play the same game: the same slot
    dice, the same decision stream per seat and agents whose moves depend only on the game and that
    stream (what makes two copies of one agent tie exactly). So a deal needs only the distinct
    orders: with one agent and N-1 copies of another, N of the N! permutations.

    Returns ``(distinct, source, position)``: order ``j``'s game is ``distinct[source[j]]``, and
    the table position ``m`` of order ``j`` is the position ``position[j, m]`` of that game (the one
    sitting in the seat where ``m`` sits in order ``j``, a copy of the same agent).
    """
    n = len(keys)
    distinct: list[tuple[int, ...]] = []
    index: dict[tuple, int] = {}
    source = np.zeros(len(orders), np.int64)
    position = np.zeros((len(orders), n), np.int64)
    for j, order in enumerate(orders):
        arrangement = tuple(keys[order[s]] for s in range(n))
        if arrangement not in index:
            index[arrangement] = len(distinct)
            distinct.append(tuple(order))
        k = index[arrangement]
        source[j] = k
        for s in range(n):
            position[j, order[s]] = distinct[k][s]
    return distinct, source, position


def expand_orders(arrays: dict[str, np.ndarray], deals: int, source: np.ndarray,
                  position: np.ndarray) -> dict[str, np.ndarray]:
    """The results of every seat order (games deal-major, ``len(source)`` per deal) from those of the
    distinct orders (:func:`distinct_orders`; ``arrays`` indexed by game and table position, as the
    chunks return them, ``length`` by game only)."""
    out = {}
    for name, a in arrays.items():
        per_deal = a.reshape(deals, -1, *a.shape[1:])
        if a.ndim == 1:
            out[name] = per_deal[:, source].reshape(-1)
        else:
            out[name] = per_deal[:, source[:, None], position].reshape(-1, a.shape[1])
    return out


def deal_key(seed: int, deal: int, stream: int = 0) -> int:
    """The 64-bit dice key of a deal: ``SeedSequence([seed, deal, stream])`` (stream 0: the tables'
    deals, 2: the solo measure's games)."""
    return int(np.random.SeedSequence([seed, deal, stream]).generate_state(1, np.uint64)[0])


class DealCodes:
    """The codes of one deal's turn slots, computed a page of :attr:`PAGE_TURNS` turns of every seat at
    a time and shared by the deal's games. Slot ``(s, t, r)``, the r-th roll of the t-th turn of seat s,
    has the code ``mix64(key + (((s << 40) | (t << 16) | r) + 1) * golden) mod 6**6`` (SplitMix64),
    the slot dice of the batched engine (:class:`zilch_env.engine.batched.KeyedSlotDice`), so that both
    engines deal the same dice."""

    PAGE_TURNS = 16
    SLOT_ROLLS = 8  # rolls per turn held in a page; later rolls of a long turn are computed one by one

    def __init__(self, key: int, players: int):
        self.key = int(key) & _M64
        self.players = players
        self._pages: dict[int, list[int]] = {}

    def page(self, k: int) -> list[int]:
        """Turns ``16k .. 16k+15`` of every seat: ``[(s * PAGE_TURNS + t % PAGE_TURNS) * SLOT_ROLLS + r]``."""
        codes = self._pages.get(k)
        if codes is None:
            s = np.arange(self.players, dtype=np.uint64)[:, None, None] << np.uint64(40)
            t = np.arange(k * self.PAGE_TURNS, (k + 1) * self.PAGE_TURNS, dtype=np.uint64)[None, :, None] << np.uint64(16)
            r = np.arange(self.SLOT_ROLLS, dtype=np.uint64)[None, None, :]
            z = np.uint64(self.key) + ((s | t | r) + np.uint64(1)) * np.uint64(_GOLDEN)
            codes = self._pages[k] = (_mix64_array(z.reshape(-1)) % np.uint64(6**6)).tolist()
        return codes

    def code(self, seat: int, turn: int, r: int) -> int:
        """One slot's code (the rolls past ``SLOT_ROLLS`` of a long turn)."""
        return _mix64((self.key + (((seat << 40) | (turn << 16) | r) + 1) * _GOLDEN) & _M64) % 6**6


class DealDice(RandomDice):
    """The dice of one game of a deal, by *turn slot*: the ``r``-th roll of the ``t``-th turn of the
    player in seat ``s`` shows the faces of the deal's code for that slot (:class:`DealCodes`), whoever
    sits there and however earlier turns went. A roll of ``n`` dice takes the code modulo ``6**n`` and
    looks the sorted faces up, as :class:`RandomDice` does.

    Why slots and not one stream: with one stream (``GameState(seed=...)``) roll number k of the game
    goes to whoever happens to roll k-th, so as soon as two agents bank at different moments the
    dice they meet part ways and the luck no longer cancels (an agent's results in the two seat
    orders of a deal even correlate positively). With slots the agents of a pair face each other's
    dice turn by turn, the correlation is negative, and most of the luck cancels (the figures:
    ``docs/benchmarks.md``, "Common random numbers").

    These are the dice of :class:`zilch_env.engine.batched.KeyedSlotDice` with the same key, roll for roll
    (tested), so a table plays the same deals in either engine; this class is the fast form for many
    games (pages of codes shared by a deal instead of one hash per roll and a table per game). Like
    it, it is a slot dice source (``by_slot``): the game asks for each roll by its slot. A copy
    (``GameState.clone``, an agent's look-ahead) gets ordinary random dice seeded from the slot: an
    agent cannot peek at the deal.
    """

    by_slot = True

    def __init__(self, codes: DealCodes, first: int = 0):
        self.codes = codes
        self._by_code = sorted_rolls_by_code()
        self._key = (-1, -1)  # the (seat, turn) whose page and base are held
        self._slot = (first, 0, 0)

    def roll_slot(self, n: int, seat: int, turn: int, index: int) -> tuple[int, ...]:
        """The ``index``-th roll (of ``n`` dice) of the ``turn``-th turn of ``seat``."""
        c = self.codes
        if self._key != (seat, turn):
            self._key = (seat, turn)
            self._page = c.page(turn // c.PAGE_TURNS)
            self._base = (seat * c.PAGE_TURNS + turn % c.PAGE_TURNS) * c.SLOT_ROLLS
        self._slot = (seat, turn, index + 1)
        if index < _SLOT_ROLLS:
            return self._by_code[n][self._page[self._base + index] % _POW6[n]]
        return self._by_code[n][c.code(seat, turn, index) % _POW6[n]]

    def roll(self, n: int) -> tuple[int, ...]:
        raise TypeError("deal dice roll by turn slot: a GameState asks roll_slot(n, seat, turn, index)")

    def __deepcopy__(self, memo: dict) -> RandomDice:
        return RandomDice(np.random.default_rng([self.codes.key, *self._slot]))


def deal_game(ruleset: Ruleset, players: int, codes: DealCodes) -> GameState:
    """A new game of the deal ``codes``: ``GameState`` rolling its :class:`DealDice`."""
    return GameState(ruleset, players, dice=DealDice(codes))


_POW6 = [6**n for n in range(7)]


_POW6 = [6**n for n in range(7)]
_SLOT_ROLLS = DealCodes.SLOT_ROLLS


def seat_rng(seed: int, deal: int, seat: int) -> np.random.Generator:
    """The decision stream of whoever sits at ``seat`` in deal ``deal`` (the agent's ``rng``)."""
    return np.random.default_rng([seed, deal, 1, seat])


def solo_rng(seed: int, game: int) -> np.random.Generator:
    """The decision stream of one-player game ``game`` of the solo measure."""
    return np.random.default_rng([seed, game, 3, 0])


def decision_keys(seed: int, deal: int, players: int) -> np.ndarray:
    """The 64-bit keys of the kernels' random players, one per seat of deal ``deal``."""
    return np.random.SeedSequence([seed, deal, 1]).generate_state(players, np.uint64)
