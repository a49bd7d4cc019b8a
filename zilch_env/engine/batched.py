"""The batched engine: many games stepped together over arrays, for training and evaluation
throughput; one ruleset for them all, or each game its own.

:class:`BatchedGames` holds ``num_games`` games of ``num_players`` players as a struct of arrays and
steps them with compiled kernels (numba, ``zilch_env.engine.kernels``): one call applies one action
in every game, one call fills every game's legal-action mask. Actions, phases and the rules are
those of :class:`zilch_env.GameState` (the flat action layout 0..135; the rules: ``docs/rules.md``).

One source of truth
    The batched engine has no scoring of its own: its tables are the rolls, canonical keeps, points,
    straights and best keeps of :func:`zilch_env.rules.scoring.scoring_table`, laid out as arrays
    (:class:`BatchTables`). Its dice are coded as in :class:`zilch_env.engine.RandomDice`: uniform
    codes in ``[0, 6**6)``, a roll of ``n`` dice being ``sorted_rolls_by_code()[n][code % 6**n]``. The
    codes of game ``b`` come from one of three sources:

    * its own ``numpy.random.Generator``, drawn in blocks (``dice=seeds``): game ``b`` plays the
      dice of ``GameState(rs, n, seed=seeds[b])`` (a generator's codes do not depend on the block
      sizes, which RandomDice grows from 64 to 4096);
    * by default, and much faster, a SplitMix64 stream computed in the kernels from a 64-bit key
      (``dice_keys``, or from ``seed``): the dice of ``GameState(rs, n, dice=KeyedDice(key))``;
    * the same keys read by *turn slot* (``dice_slots=True``): the r-th roll of seat s's t-th turn is
      the same in every game with that key, for common random numbers across seat orders
      (:class:`KeyedSlotDice`, :func:`slot_game`).

    The same dice and actions lead to the same states: ``tests/zilch_env/engine/test_batched.py`` plays thousands of
    seeded games of every preset in both engines, with each kind of dice, and requires identical
    states and legal actions after every step.

Observations
    :meth:`BatchedGames.observe` encodes every game at once, the same vector as
    :func:`zilch_env.observe` bit for bit; :class:`zilch_env.envs.vec_env.BatchedZilchVecEnv` builds the
    SB3 VecEnv of ``Zilch-v0`` on it.

Rules covered
    Every ruleset the loader accepts: free or all-scoring keeps, optional or forced hot dice, entry
    threshold and minimum bank, permanent straights, the zilch penalty (subtract, halve, reset), the
    six-dice zilch bonus, both endings, draws and tie-break turns, every variant (``pyramiding``: the
    keeps of a roll computed in the kernels from the dice frozen in this pass; ``challenge`` and
    ``piggyback``: decisions at turn start, phases ``CHALLENGE`` and ``PIGGYBACK`` with the actions
    128-135 of the single-game engine; ``overcoming``), 1 to 6 players and 1 to 6 dice.

Kernel agents and batch policies
    The kernels also play *kernel agents* (:mod:`zilch_env.players.kernel_agents`, re-exported here:
    :class:`KernelAgent`, from a spec by :func:`builtin_kernel_agent`)
    for many games at once: the two baseline movers of :mod:`zilch_env.players.policy`, greedy
    (:class:`zilch_env.GreedyMover`: the most points, bank from a threshold) and random (uniform among
    the legal actions, from a per-seat SplitMix64 decision stream), and any policy given as a
    :class:`TurnValueTable`, the solved values of a turn (``agents.solver.turn_value_table`` builds the
    one of ``optimal-turn``). Other agents play from Python as *batch policies*
    (:func:`is_batch_policy`, :func:`batch_policy_actions`). :meth:`BatchedGames.play_to_end` plays
    every game to its end between them; the tournaments built on it (deals, seat orders, results)
    are ``agents.evaluate.tournament``.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from zilch_env.jit import announce_compile
from zilch_env.engine import kernels as K

from zilch_env.engine import layout as L
from zilch_env.engine import batch_kernels as BK
from zilch_env.engine.game import (MAX_PLAYERS, NUM_ACTIONS, RandomDice)
from zilch_env.rules.schema import Ruleset, UnsupportedRulesError
from zilch_env.rules.load import load_ruleset
from zilch_env.rules.compiled import compile as compile_rules
from zilch_env.players.batched_play import AgentPlay
from zilch_env.players.kernel_agents import (KernelAgent, TurnValueTable, _check_int, batch_policy_actions, is_batch_policy, builtin_kernel_agent)
from zilch_env.engine.state import RowFields
from zilch_env.rules.scoring import scoring_table
from zilch_env.engine.checks import INT64, UINT64, check_batch_memory, whole_numbers
from zilch_env.engine.dice import KeyedDice, KeyedSlotDice, _generator, stream_keys  # noqa: F401  (KeyedDice: the batch's dice for one game)
from zilch_env.rules.compiled import BatchTables, batch_tables  # noqa: F401

__all__ = [
    "BatchedGames", "BatchTables", "KernelAgent", "KeyedDice", "KeyedSlotDice", "TurnValueTable",
    "UnsupportedRulesError", "batch_tables", "builtin_kernel_agent", "batch_policy_actions", "is_batch_policy",
    "slot_game", "stream_keys", "MAX_KEEPS",
]

#: Legal keeps per roll the tables hold: 63, the most any roll can have under any scoring rule.
MAX_KEEPS = L.MAX_KEEPS
_POW6 = [6**n for n in range(7)]
_CODES = 6**6


# --------------------------------------------------------------------------------------------
# Tables




def slot_game(ruleset: Ruleset | str, num_players: int, key: int, first: int = 0) -> Any:
    """``GameState(ruleset, num_players, first=first)`` rolling :class:`KeyedSlotDice` ``key``."""
    from zilch_env.engine.game import GameState

    return GameState(ruleset, num_players, dice=KeyedSlotDice(key, first), first=first)


# --------------------------------------------------------------------------------------------
# The batch


class BatchedGames(AgentPlay):
    """``num_games`` games of ``num_players`` players under one ruleset, stepped together; or games
    of many rulesets and player counts at once, each game its own.

    Args:
        ruleset: a :class:`Ruleset` or a preset name / TOML path; or a sequence of them, the batch's
            *rules* (entries ``0 .. R - 1``): each game plays one entry, game ``b`` entry ``b % R``
            until :meth:`reset` gives it another (``rules=``). One engine steps them all, each game
            under its own rules (:attr:`rule_ids`).
        num_games: games in the batch (rows ``0 .. num_games - 1``).
        num_players: 1 to 6; with several rulesets, one count for all or one per entry.
        seed: the seed of everything not given explicitly (``None``: fresh entropy). By default
            game ``b`` rolls keyed dice, ``KeyedDice(stream_keys(seed, num_games)[b])``, drawn inside
            the kernels at no cost; the random agents' decision streams are
            ``stream_keys(seed, num_games * num_players, salt=1)``.
        dice: instead, one numpy dice seed per game: anything ``numpy.random.default_rng`` takes, or
            a ``Generator`` (used, and advanced, in place). Game ``b`` then rolls exactly the dice of
            ``GameState(ruleset, num_players, seed=dice[b])`` (``RandomDice``). Costs a generator per
            game and a refill from Python every few thousand rolls.
        dice_keys: or one keyed-dice key per game (uint64), e.g. equal keys for the games of a deal
            played in several seat orders (common random numbers).
        dice_slots: keyed dice by turn slot instead of in order: the r-th roll of the t-th turn of
            seat s is the same in every game with that key (:class:`KeyedSlotDice`).
        first: the seat that starts every game (or one per game).
        dice_block: with ``dice``, the codes drawn per generator call (a power of two;
            ``RandomDice.BLOCK`` by default). The codes of a stream do not depend on it; tests make it
            tiny so that the refill paths run often.
        decision_keys: ``(num_games, num_players)`` uint64 keys of the random agents' decision
            streams, one per seat (default: from ``seed``, as above).

    Every game starts at once (its first roll is made). A game's dice stream goes on across
    :meth:`reset`, like a :class:`zilch_env.Match` sharing one ``RandomDice``, unless new dice are
    given. The state is exposed as read-only array views (:attr:`scores`, :attr:`current`, ...);
    change it only with :meth:`step` and :meth:`reset`.
    """

    def __init__(self, ruleset: Ruleset | str = "zonk", num_games: int = 1, num_players: int = 2,
                 seed: int | None = None, dice: Sequence[Any] | None = None, first: int | Sequence[int] = 0,
                 *, dice_keys: Sequence[int] | np.ndarray | None = None, dice_slots: bool = False,
                 dice_block: int = RandomDice.BLOCK, decision_keys: Sequence[int] | np.ndarray | None = None):
        self.mixed = isinstance(ruleset, (list, tuple))
        rulesets = list(ruleset) if self.mixed else [ruleset]
        if not rulesets:
            raise ValueError("ruleset: an empty list; give a ruleset or a list of them")
        self.rulesets = tuple(r if isinstance(r, Ruleset) else load_ruleset(r) for r in rulesets)
        R = len(self.rulesets)
        self.num_games = G = _check_int("num_games", num_games, 1)
        if isinstance(num_players, (list, tuple, np.ndarray)):
            if len(num_players) != R:
                raise ValueError(f"num_players: {len(num_players)} counts for {R} rulesets; give one count or "
                                 f"one per ruleset")
            counts = [_check_int("num_players", c, 1, MAX_PLAYERS) for c in num_players]
        else:
            counts = [_check_int("num_players", num_players, 1, MAX_PLAYERS)] * R
        #: Players of each rules entry; the batch's seat columns (and decision streams per game) are
        #: the most of them.
        self.entry_players = np.array(counts, dtype=np.int64)
        self.entry_players.flags.writeable = False
        self.num_players = n = max(counts)
        if dice is not None and dice_keys is not None:
            raise ValueError("give dice (numpy seeds) or dice_keys (keyed dice), not both")
        # the first ruleset's named tables: their rolls and faces are every ruleset's (the keeps are
        # the first's; the kernels read each game's own, ``_tabs``)
        self.tables = tb = batch_tables(self.rulesets[0])
        self.keyed = dice is None
        if dice_slots and not self.keyed:
            raise ValueError("dice_slots: slot dice are keyed dice; give dice_keys (or a seed), not dice")
        self.dice_slots = bool(dice_slots)
        keyed = (2 if dice_slots else 1) if self.keyed else 0
        self._rp = np.stack([compile_rules(r).params(c, keyed=keyed) for r, c in zip(self.rulesets, counts)])
        tables: dict[bytes, int] = {}  # one copy of each distinct keep table (rp[R_KEEP_TABLE] picks it)
        stack = []
        for i, r in enumerate(self.rulesets):
            t = compile_rules(r).table
            key = t.tobytes()
            if key not in tables:
                tables[key] = len(stack)
                stack.append(t)
            self._rp[i, L.R_KEEP_TABLE] = tables[key]
        self._tabs = np.stack(stack)
        if seed is not None and (isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer))
                                 or seed < 0):
            raise ValueError(f"seed = {seed!r}: a seed is a whole number 0 or more (or None for fresh entropy)")
        self.seed = seed
        self._block = _check_int("dice_block", dice_block, 1)
        if dice_block & (dice_block - 1):
            raise ValueError(f"dice_block = {dice_block!r}: a power of two")
        # every array below has a row per game: refuse a batch beyond memory before making any
        check_batch_memory("num_games", G, 8 * L.WIDTH + 2 * (1 if self.keyed else 2 * self._block)
                           + 8 * (n + 2) + NUM_ACTIONS + 1 + (0 if self.keyed else 1000))
        self._st = np.zeros((G, L.WIDTH), dtype=np.int64)
        self._st[:, L.RULES_ROW] = np.arange(G) % R
        self._dbuf = np.zeros((G, 2 * self._block if not self.keyed else 1), dtype=np.uint16)
        self._keys = np.zeros(G, dtype=np.uint64)
        self._gens: list[np.random.Generator | None] = [None] * G
        rows = np.arange(G)
        if self.keyed:
            self._set_keys(rows, stream_keys(seed, G) if dice_keys is None else dice_keys)
        else:
            self._set_dice(rows, dice)
        # the random agents' decision streams, one per seat of every game
        if decision_keys is None:
            self._rng = stream_keys(seed, G * n, salt=1)
        else:
            self._rng = whole_numbers("decision_keys", decision_keys, *UINT64, np.uint64).reshape(-1)
            if self._rng.shape != (G * n,):
                raise ValueError(f"decision_keys: expected {G} x {n} keys (one per seat of every game), "
                                 f"got {np.shape(decision_keys)}")
        self._illegal = np.zeros(G, dtype=np.bool_)
        self._mask = np.zeros((G, NUM_ACTIONS), dtype=np.bool_)
        self._kargs = (self._dbuf, self._keys, tb.code_roll, self._tabs)
        self._obs_consts: tuple[np.ndarray, np.ndarray] | None = None
        announce_compile(K.__file__)  # the first step compiles the kernels unless they are cached
        self.reset(first=first)

    @property
    def ruleset(self) -> Ruleset:
        """The batch's ruleset (a batch of one ruleset; a batch of several has :attr:`rulesets`)."""
        if self.mixed:
            raise AttributeError(f"this batch plays {len(self.rulesets)} rulesets: game b plays "
                                 f"rulesets[rule_ids[b]]")
        return self.rulesets[0]

    @property
    def rule_ids(self) -> np.ndarray:
        """Per game: the entry of :attr:`rulesets` (and :attr:`entry_players`) it plays."""
        return self._col(L.RULES_ROW)

    @property
    def players(self) -> np.ndarray:
        """Per game: its number of players."""
        return self.entry_players[self._st[:, L.RULES_ROW]]

    # ------------------------------------------------------------------ dice

    def _set_keys(self, rows: np.ndarray, keys: Sequence[int] | np.ndarray) -> None:
        keys = whole_numbers("dice_keys", keys, *UINT64, np.uint64).reshape(-1)
        if keys.shape != rows.shape:
            raise ValueError(f"dice_keys: {keys.size} keys given for {rows.size} games; give one per game")
        self._keys[rows] = keys
        self._st[rows, L.DICE_READ] = 0

    def _set_dice(self, rows: np.ndarray, dice: Sequence[Any]) -> None:
        if len(dice) != len(rows):
            raise ValueError(f"dice: {len(dice)} seeds given for {len(rows)} games; give one per game")
        for b, d in zip(rows, dice):
            self._gens[b] = _generator(d)
        st = self._st
        st[rows, L.DICE_READ] = 0
        st[rows, L.DICE_WRITTEN] = 0
        self._refill(rows)
        self._refill(rows)

    def _refill(self, rows: np.ndarray) -> None:
        """Append one block of dice codes to each game in ``rows`` (the codes RandomDice draws)."""
        st, buf, gens, block = self._st, self._dbuf, self._gens, self._block
        mask = 2 * block - 1
        for b in rows:
            at = int(st[b, L.DICE_WRITTEN]) & mask
            buf[b, at: at + block] = gens[b].integers(0, _CODES, size=block)
            st[b, L.DICE_WRITTEN] += block

    def _service(self) -> None:
        """Numpy dice: top up every game that has one block of dice codes or less, and finish every
        roll that waited for dice (rare: a step rolling thousands of times). Keyed dice need nothing."""
        if self.keyed:
            return
        st = self._st
        while True:
            low = np.flatnonzero(st[:, L.DICE_WRITTEN] - st[:, L.DICE_READ] <= self._block)
            self._refill(low)
            if not (st[:, L.PHASE] == L.PENDING).any():
                return
            K.advance_pending(st, self._rp, *self._kargs)

    # ------------------------------------------------------------------ playing

    def reset(self, rows: Sequence[int] | np.ndarray | None = None, first: int | Sequence[int] = 0,
              dice: Sequence[Any] | None = None, dice_keys: Sequence[int] | np.ndarray | None = None,
              rules: int | Sequence[int] | np.ndarray | None = None) -> None:
        """Start new games in ``rows`` (default: all) with first seat(s) ``first``, making their first
        rolls. ``dice`` (numpy seeds) or ``dice_keys`` (keyed dice, whichever kind the batch uses)
        give them new dice streams, one per row; else their streams go on. ``rules`` (an entry of
        :attr:`rulesets`, or one per row) changes the rules they play; else they keep theirs."""
        rows = (np.arange(self.num_games) if rows is None
                else whole_numbers("rows", rows, 0, self.num_games - 1).reshape(-1))
        ids = self._st[rows, L.RULES_ROW]
        if rules is not None:
            r = whole_numbers("rules", rules, *INT64)
            if r.ndim > 1 or (r.ndim == 1 and r.shape != rows.shape):
                raise ValueError(f"rules: {r.size} entries for {rows.size} rows; give one entry or one per row")
            ids = np.broadcast_to(r, rows.shape)
            if ids.size and (ids.min() < 0 or ids.max() >= len(self.rulesets)):
                raise ValueError(f"rules = {rules!r}: entries of this batch's rulesets, 0 to {len(self.rulesets) - 1}")
        firsts = np.broadcast_to(whole_numbers("first", first, *INT64), rows.shape).copy()
        if firsts.size and (firsts.min() < 0 or (firsts >= self.entry_players[ids]).any()):
            raise ValueError(f"first = {first!r}: the first player is a seat from 0 to the game's players - 1 "
                             f"({self.num_players - 1} at most)")
        if (dice is not None and self.keyed) or (dice_keys is not None and not self.keyed):
            kind = "keyed dice (dice_keys)" if self.keyed else "numpy dice (dice)"
            raise ValueError(f"this batch rolls {kind}; reset it with the same kind of dice streams")
        self._st[rows, L.RULES_ROW] = ids  # every check passed: the rows change only now
        if dice is not None:
            self._set_dice(rows, dice)
        if dice_keys is not None:
            self._set_keys(rows, dice_keys)
        K.new_games(self._st, rows, firsts, self._rp, *self._kargs)
        self._service()

    def step(self, actions: Sequence[int] | np.ndarray) -> np.ndarray:
        """Apply ``actions[b]`` in every game waiting for a decision (games that are over ignore
        theirs). Returns a bool array: True where the action was illegal; that game is unchanged."""
        a = whole_numbers("actions", actions, *INT64)  # (an illegal action is flagged, not refused)
        if a.shape != (self.num_games,):
            raise ValueError(f"actions: expected shape ({self.num_games},), got {a.shape}")
        K.step(self._st, a, self._illegal, self._rp, *self._kargs)
        self._service()
        return self._illegal.copy()

    def legal_masks(self, out: np.ndarray | None = None, rows: np.ndarray | None = None) -> np.ndarray:
        """``(games, 136)`` bool: the legal actions of the player to move in each game of ``rows``
        (default: all); none once a game is over."""
        st = self._st if rows is None else self._st[rows]
        if out is None:
            out = np.empty((len(st), NUM_ACTIONS), dtype=np.bool_)
        BK.legal_masks(st, out, self._rp, self._tabs)
        return out

    def step_rows(self, rows: Sequence[int] | np.ndarray, actions: Sequence[int] | np.ndarray) -> np.ndarray:
        """:meth:`step` for some games only: ``actions[i]`` goes to game ``rows[i]``. Returns the
        illegal flags, one per row."""
        rows = whole_numbers("rows", rows, 0, self.num_games - 1).reshape(-1)
        a = whole_numbers("actions", actions, *INT64).reshape(-1)
        if a.shape != rows.shape:
            raise ValueError(f"step_rows: {a.size} actions for {rows.size} rows")
        illegal = np.zeros(rows.size, dtype=np.bool_)
        K.step_rows(self._st, rows, a, illegal, self._rp, *self._kargs)
        self._service()
        return illegal

    def legal_actions(self, b: int) -> list[int]:
        """The legal actions of game ``b``, ascending (as :meth:`GameState.legal_actions`)."""
        m = self.legal_masks(self._mask)
        return np.flatnonzero(m[b]).tolist()

    def observe(self, seats: int | Sequence[int] | np.ndarray, out: np.ndarray | None = None,
                rows: np.ndarray | None = None) -> np.ndarray:
        """``(games, OBS_SIZE)`` float32: row ``i`` is ``zilch_env.observe(game b, seats[i])`` for the
        games ``b`` in ``rows`` (default: all), the observation the single-game environments give
        (the same values, bit for bit; tested)."""
        from zilch_env.engine.observation import KERNEL_OFFSETS, OBS_SIZE, ROLL_BLOCKS

        finv, rules = self.observation_constants()
        st = self._st if rows is None else self._st[rows]
        seats = np.broadcast_to(np.asarray(seats, dtype=np.int64), (len(st),))
        if seats.size and (seats.min() < 0 or (seats >= self.entry_players[st[:, L.RULES_ROW]]).any()):
            raise ValueError(f"seats: a seat is 0 to the game's players - 1 ({self.num_players - 1} at most)")
        if out is None:
            out = np.empty((len(st), OBS_SIZE), dtype=np.float32)
        BK.observe(st, np.ascontiguousarray(seats), out, KERNEL_OFFSETS, self._rp, finv, rules, ROLL_BLOCKS,
                  self._tabs)
        return out

    def observation_constants(self) -> tuple[np.ndarray, np.ndarray]:
        """What the observation kernel reads per rules entry besides the state: the scales ``finv``
        and the constant ``rules`` and ``rules_table`` fields, stacked
        (:func:`zilch_env.engine.observation.kernel_constants`, one entry per row)."""
        if self._obs_consts is None:
            from zilch_env.engine.observation import kernel_constants

            cs = [kernel_constants(r, int(c)) for r, c in zip(self.rulesets, self.entry_players)]
            self._obs_consts = (np.concatenate([c.finv for c in cs]), np.concatenate([c.rules for c in cs]))
        return self._obs_consts

    # ------------------------------------------------------------------ reading the state

    def _col(self, c: int) -> np.ndarray:
        v = self._st[:, c]
        v.flags.writeable = False
        return v

    def _seats(self, c: int) -> np.ndarray:
        v = self._st[:, c: c + self.num_players]
        v.flags.writeable = False
        return v

    @property
    def phase(self) -> np.ndarray:
        """Per game: a decision is due in ``Phase.CHALLENGE`` (0), ``Phase.PIGGYBACK`` (1) and
        ``Phase.KEEP`` (2); ``Phase.OVER`` (3) once the game has ended; 4 while a roll is due."""
        return self._col(L.PHASE)

    @property
    def done(self) -> np.ndarray:
        return self._st[:, L.PHASE] == L.OVER

    @property
    def current(self) -> np.ndarray:
        """The seat to move."""
        return self._col(L.CURRENT)

    @property
    def first(self) -> np.ndarray:
        return self._col(L.FIRST_SEAT)

    @property
    def scores(self) -> np.ndarray:
        """``(num_games, num_players)`` banked scores."""
        return self._seats(L.SCORE)

    @property
    def on_board(self) -> np.ndarray:
        return self._seats(L.ON_BOARD).astype(bool)

    @property
    def zilch_streak(self) -> np.ndarray:
        return self._seats(L.ZILCH_STREAK)

    @property
    def dice_left(self) -> np.ndarray:
        return self._col(L.DICE_LEFT)

    @property
    def turn_total(self) -> np.ndarray:
        return self._col(L.TURN_TOTAL)

    @property
    def permanent(self) -> np.ndarray:
        return self._col(L.PERMANENT)

    @property
    def last_result(self) -> np.ndarray:
        return self._col(L.LAST_RESULT)

    @property
    def offers(self) -> np.ndarray:
        """``(num_games, 2)`` under ``piggyback``: the previous player's bank offered at the start of
        this turn, its turn total and its dice to roll (kept through the turn, taken or not, as
        ``GameState.offer``); ``(0, 0)`` where this turn had no offer."""
        on = self._st[:, L.OFFER_ON] != 0
        out = np.stack([self._st[:, L.OFFER_TOTAL], self._st[:, L.OFFER_DICE]], axis=1)
        out[~on] = 0
        return out

    @property
    def turns(self) -> np.ndarray:
        """Completed turns per game (all players)."""
        return self._col(L.TURNS)

    @property
    def decisions(self) -> np.ndarray:
        return self._col(L.DECISIONS)

    @property
    def rolls(self) -> np.ndarray:
        """``(num_games, 6)``: the current sorted roll, padded with 0 (all 0 when none)."""
        r = self._st[:, L.ROLL]
        out = self.tables.faces[np.maximum(r, 0)].copy()
        out[r < 0] = 0
        return out

    @property
    def winners(self) -> np.ndarray:
        """``(num_games, num_players)`` bool: the seats sharing the win (all False while playing)."""
        m = self._st[:, L.WINNER_SEATS]
        return (m[:, None] >> np.arange(self.num_players)) & 1 == 1

    @property
    def turn_stats(self) -> dict[str, np.ndarray]:
        """Per game and seat: ``turns`` played, ``points`` recorded (banked totals and permanent
        points, before penalties) and ``zilches`` (turns not banked)."""
        return {"turns": self._seats(L.SEAT_TURNS), "points": self._seats(L.SEAT_POINTS),
                "zilches": self._seats(L.SEAT_ZILCHES)}

    def fields(self, b: int) -> RowFields:
        """Game ``b``'s fields as :class:`zilch_env.GameState` shows them (``final_queue``,
        ``tiebreak_players``, ``offer``, ``winners``, ``snapshot()``, ...), read from its row:
        a read-only view, current until the next step or reset."""
        n = int(self.entry_players[self._st[b, L.RULES_ROW]])
        return RowFields(self._st[b], n, scoring_table(self.rulesets[self._st[b, L.RULES_ROW]]))

    def final_queue(self, b: int) -> list[int] | None:
        """Seats still to play in the final (or tie-break) round of game ``b``; None before."""
        return self.fields(b).final_queue

    @property
    def roll_due(self) -> np.ndarray:
        """Per game: a roll is due (the dice are not rolled yet: ``vec_env``'s shaping stops games
        there, or numpy dice ran out), rather than a decision (``Phase.KEEP``) or the end."""
        return self._st[:, L.PHASE] == L.PENDING

    @property
    def rolls_this_turn(self) -> np.ndarray:
        """Per game: rolls made so far in the current turn (0 before its first roll)."""
        return self._col(L.TURN_ROLLS)

    @property
    def final_round(self) -> np.ndarray:
        """Per game: whether the final round (or a tie-break round) is being played: someone reached
        the target (:meth:`final_queue` is not None)."""
        return self._st[:, L.FINAL_QUEUE_ON] != 0

    @property
    def tiebreak(self) -> np.ndarray:
        """Per game: whether tie-break turns are being played (:meth:`tiebreak_players` is not None)."""
        return self._st[:, L.TIEBREAK_SEATS] != 0

    @property
    def tiebreak_round(self) -> np.ndarray:
        """Per game: the tie-break round being played (0 before any)."""
        return self._col(L.TIEBREAK_ROUND)

    def tiebreak_players(self, b: int) -> tuple[int, ...] | None:
        """The seats playing tie-break turns in game ``b``; None without a tie-break."""
        return self.fields(b).tiebreak_players

    def snapshot(self, b: int) -> dict[str, Any]:
        """Game ``b`` in the form of :meth:`GameState.snapshot`."""
        return self.fields(b).snapshot()

    def __repr__(self) -> str:
        rules = (f"{len(self.rulesets)} rulesets" if self.mixed else repr(self.rulesets[0].name))
        return (f"BatchedGames({rules}, num_games={self.num_games}, "
                f"num_players={self.num_players}, over={int(self.done.sum())})")
