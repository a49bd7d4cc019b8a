"""The game table: one game of the engine with named seats (humans or computer players), the
story of the game as events people can follow, and a way to save it and bring it back exactly.

Both games that people play, the terminal game (``zilch play``) and the web game (``zilch serve``),
sit on a :class:`Table`. The engine (:class:`zilch_env.GameState`) owns the rules; the table adds
what the rules do not know:

* **Seats.** Each seat has a name and is a human (moves come from outside) or a computer player
  (an agent spec such as ``heuristic`` or ``ppo:PATH``, made with :func:`agents.base.make_agent`).
  :meth:`Table.play_cpu` makes the computer players' moves until a human is to move.
* **Events.** One engine action can do a lot: a keep and a roll, or a bank, the next player's roll,
  their zilch and the roll after it. :meth:`Table.apply` turns each action into the events people
  see (``keep``, ``roll``, ``zilch``, ``bank``, ``challenge``, ``final_round``, ``game_over``, ...),
  each with a sentence, so a computer player's turn can be shown step by step.
* **Determinism and saving.** The dice are :class:`zilch_web.dice.KeyedTableDice`: roll number *k*
  of a game is a pure function of ``(seed, k)`` computed by the project's own keyed SplitMix64, the
  same on every NumPy (games saved before them keep their NumPy dice, :mod:`zilch_web.dice`); the
  computer player's *k*-th decision draws from a generator seeded with ``(seed, k)``. A table is
  saved as its seed, seats, ruleset and action list (:meth:`Table.to_saved`) and rebuilt by playing
  the actions again (:meth:`Table.from_saved`): the same dice come back, and the stored rolls are
  checked against them.
"""

from __future__ import annotations

import secrets
from typing import Any, Sequence

import numpy as np

from zilch_env import (
    CHALLENGE_BASE,
    NO_CHALLENGE,
    PIGGYBACK,
    GameState,
    IllegalActionError,
    Phase,
    Ruleset,
    load_ruleset,
    scoring_table,
    split_keep_action,
)
from zilch_env.rules.primitives import CHALLENGE_ZILCH_COST
from zilch_env.rules.load import ruleset_from_dict
from zilch_env.rules.scoring import bonus_of

from zilch_web.names import INVISIBLE, NameRefused, clean_name, name_key  # noqa: F401
from zilch_web.seats import Seat, TableError, cpu_act, cpu_agent, name_seats  # noqa: F401  (TableError: the table's own)
from zilch_web.dice import KEYED, NUMPY, KeyedTableDice, NumpyTableDice, StoredRolls, dice_for  # noqa: F401

PHASE_NAMES = {Phase.CHALLENGE: "challenge", Phase.PIGGYBACK: "piggyback", Phase.KEEP: "keep",
               Phase.OVER: "over"}


class CorruptGameError(RuntimeError):
    """A saved game that does not replay to its stored rolls."""


# --------------------------------------------------------------------------------------------
# Dice and decisions that depend only on the game's seed


#: The dice of table format 1, kept under their old name (:mod:`zilch_web.dice`).
TableDice = NumpyTableDice


def decision_rng(seed: int, decision: int) -> np.random.Generator:
    """The generator a computer player draws from for the game's ``decision``-th action."""
    return np.random.default_rng([int(seed), 1, int(decision)])


def new_seed() -> int:
    """A fresh secret game seed (63 random bits): nobody can predict the dice from outside."""
    return secrets.randbits(63)


def action_label(g: GameState, action: int, names: Sequence[str]) -> str:
    """A player's words for a legal action of ``g`` (``keep 1 5 (150), bank 450``; ``challenge Bob``;
    ``no challenge``; ``piggyback on 450 with 2 dice``), the players called by ``names``."""
    if action == NO_CHALLENGE:
        return "no challenge"
    if action >= CHALLENGE_BASE:
        return f"challenge {names[(g.current + action - CHALLENGE_BASE + 1) % g.num_players]}"
    if action == PIGGYBACK and g.offer:
        return f"piggyback on {g.offer[0]} with {g.offer[1]} {'die' if g.offer[1] == 1 else 'dice'}"
    return g.describe(action)


# --------------------------------------------------------------------------------------------
# The table


def _dice_text(dice: Sequence[int]) -> str:
    return " ".join(str(d) for d in dice)


def _count_word(n: int) -> str:
    return ("no", "one", "two", "three", "four", "five", "six")[n] if 0 <= n <= 6 else str(n)


class Table:
    """A game of :class:`~zilch_env.GameState` with seats, events and seeded computer players.

    Fields:
        ruleset: the rules.
        seats: who plays each seat (:class:`Seat`).
        seed: the game's secret seed (dice and computer players' choices).
        practice: True when the seed was chosen by the game's creator (a practice game).
        state: the engine's game; read it, change it only through :meth:`apply`.
        events: every event of the game so far, in order (see :meth:`apply`).
    """

    def __init__(self, ruleset: Ruleset | str, seats: Sequence[Seat], seed: int | None = None,
                 first: int = 0, *, dice: str = KEYED, rolls: Sequence[Sequence[int]] | None = None,
                 check_names: bool = True, practice: bool = False):
        """``dice``: the dice kind (:data:`~zilch_web.dice.KEYED` for every new game); ``rolls``: a
        stored game's rolls to replay first (:class:`~zilch_web.dice.StoredRolls`); ``check_names``:
        False when rebuilding a stored game, whose names were checked when it was made;
        ``practice``: the seed was chosen by the game's creator, not drawn in secret (a practice
        game: its seed is shown from the start, :mod:`zilch_web.fair`)."""
        from zilch_web.levels import default_cpu

        self.ruleset = ruleset if isinstance(ruleset, Ruleset) else load_ruleset(ruleset)
        self.seats = name_seats(seats, default_cpu(self.ruleset), strict=check_names)
        self.seed = new_seed() if seed is None else int(seed)
        self.first = first
        self.practice = bool(practice)
        source: Any = dice_for(dice, self.seed)
        self.dice_kind = source.kind
        if rolls is not None:
            source = StoredRolls(rolls, source)
        self.state = GameState(self.ruleset, len(self.seats), dice=source, first=first)
        self._table = scoring_table(self.ruleset)
        self.events: list[dict[str, Any]] = []
        self._start_events()

    # ------------------------------------------------------------------ queries

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    @property
    def version(self) -> int:
        """How many actions the game has taken; every accepted move raises it by at least one."""
        return len(self.state.actions)

    @property
    def done(self) -> bool:
        return self.state.done

    @property
    def humans(self) -> list[int]:
        return [q for q, s in enumerate(self.seats) if not s.is_cpu]

    def human_to_move(self) -> bool:
        return not self.state.done and not self.seats[self.state.current].is_cpu

    def label(self, action: int) -> str:
        """A player's words for a legal action now (``keep 1 5 (150), bank 450``; ``challenge Bob``)."""
        return action_label(self.state, action, self.names)

    def says(self, seat: int, verb: str) -> str:
        """``"Ann keeps"``, but ``"You keep"`` for a player called You (``zilch play --players you,cpu``):
        ``verb`` is given in the third person singular."""
        name = self.names[seat]
        if name.lower() != "you":
            return f"{name} {verb}"
        plain = {"has": "have", "is": "are", "wins": "win", "loses": "lose"}.get(verb)
        return f"{name} {plain or verb[:-1]}"

    def standings(self) -> list[dict[str, Any]]:
        """Players by score, highest first, with places (equal scores share a place)."""
        g = self.state
        order = sorted(range(g.num_players), key=lambda q: (-g.scores[q], (q - g.first) % g.num_players))
        out, place = [], 0
        for i, q in enumerate(order):
            if i == 0 or g.scores[q] != g.scores[order[i - 1]]:
                place = i + 1
            out.append({"seat": q, "name": self.names[q], "score": g.scores[q], "place": place,
                        "winner": bool(g.winners and q in g.winners)})
        return out

    #: The notes' English sentences by key (the page's catalogues translate the same keys).
    NOTE_TEXT = {
        "tiebreak": "Tie-break: {players} each play one more turn; the highest score wins.",
        "lastTurns": "Last turns: {leader} has {score}. Still to play: {left}.",
        "roundFinish": "The round is being finished ({leader} leads with {score}). Still to play: {left}.",
        "lastTurn": "This is your last turn: {need} points to take the lead.",
        "entry": "Not on the board yet: your first bank needs {n} in one turn.",
        "minBank": "Banking needs a turn total of at least {n}.",
        "overcoming": "Overcoming: to bank, beat the previous turn's {n}.",
        "hotForced": "Hot dice are forced: when every die has scored, all six must be rolled again.",
        "challenge": "Challenge on {name}: a bank takes the points from them too; a zilch costs you {cost}.",
        "permanent": "Permanent straight: {n} of this turn survive a zilch.",
        "penalty.subtract": "{n} zilches in a row: one more costs {points}.",
        "penalty.halve": "{n} zilches in a row: one more halves the score.",
        "penalty.reset": "{n} zilches in a row: one more resets the score.",
    }

    def notes(self) -> list[str]:
        """The rules that bear on the decision now, in words addressed to the player to move:
        getting on the board, the minimum bank, overcoming, a challenge in play, a permanent
        straight, a zilch penalty one zilch away, and the ending (who still plays, what score to
        beat, tie-break turns)."""
        return [self.NOTE_TEXT[k].format(**v) for k, v in self.note_keys()]

    def note_keys(self) -> list[tuple[str, dict[str, Any]]]:
        """:meth:`notes` as (key of :attr:`NOTE_TEXT`, values): the page words them in its language."""
        g, rs, names = self.state, self.ruleset, self.names
        if g.done:
            return []
        q = g.current
        out: list[tuple[str, dict[str, Any]]] = []
        if g.tiebreak_players is not None:
            out.append(("tiebreak", {"players": ", ".join(names[x] for x in g.tiebreak_players)}))
        elif g.final_queue is not None:
            leader = max(range(g.num_players), key=lambda x: g.scores[x])
            left = ", ".join(names[x] for x in g.final_queue)
            out.append(("lastTurns" if rs.end == "others_one_turn" else "roundFinish",
                        {"leader": names[leader], "score": g.scores[leader], "left": left}))
            if q != leader:
                out.append(("lastTurn", {"need": g.scores[leader] - g.scores[q] + 1}))
        if not g.on_board[q] and rs.entry_threshold:
            out.append(("entry", {"n": rs.entry_threshold}))
        elif rs.min_bank:
            out.append(("minBank", {"n": rs.min_bank}))
        if rs.variants.overcoming and g.last_result:
            out.append(("overcoming", {"n": g.last_result}))
        if rs.hot_dice == "forced":
            out.append(("hotForced", {}))
        if g.challenged is not None:
            out.append(("challenge", {"name": names[g.challenged],
                                      "cost": CHALLENGE_ZILCH_COST[g.challenges_used[q] - 1]}))
        if g.permanent:
            out.append(("permanent", {"n": g.permanent}))
        zp = rs.variants.zilch_penalty
        if zp.count and g.on_board[q] and g.zilch_streak[q] == zp.count - 1:
            out.append(("penalty." + zp.mode, {"n": g.zilch_streak[q], "points": zp.points}))
        return out

    #: The columns of a :meth:`sheet` row.
    SHEET_COLUMNS = ("seat", "banked", "points", "turn_total", "score", "penalty")

    def sheet(self) -> list[list[int]]:
        """The score sheet: one row per finished turn, in order, as a list of :data:`SHEET_COLUMNS`
        (seat; 1 banked, 0 zilched; the points it recorded; its turn total; the mover's score after
        it; 1 if a penalty applied). Rows are lists, not objects, to keep every game view small."""
        return [[t["player"], int(bool(t["banked"])), t["recorded"], t["turn_total"], t["score"],
                 int(bool(t["penalty"]))] for t in self.state.turns]

    def keep_options(self) -> list[dict[str, Any]]:
        """The legal keeps of the current roll with what each leads to: points, the turn total
        after it, dice left to roll, and the actions to keep-and-roll and keep-and-bank (None when
        banking is not allowed after that keep)."""
        g = self.state
        if g.phase != Phase.KEEP:
            return []
        legal = set(g.legal_actions())
        out = []
        for k in g.keeps():
            left = g.dice_left - k.n
            bank = k.mask * 2 + 1
            out.append({"dice": list(k.dice), "mask": k.mask, "points": k.points, "n": k.n,
                        "total": g.turn_total + k.points, "hot_dice": left == 0,
                        "next_roll": left or self.ruleset.dice,
                        "roll": k.mask * 2, "bank": bank if bank in legal else None})
        return out

    def choices(self) -> list[dict[str, Any]]:
        """The turn-start decisions (challenge or not; piggyback or fresh dice) with their labels."""
        g = self.state
        if g.phase not in (Phase.CHALLENGE, Phase.PIGGYBACK):
            return []
        return [{"action": a, "label": self.label(a)} for a in g.legal_actions()]

    # ------------------------------------------------------------------ playing

    def apply(self, action: int) -> list[dict[str, Any]]:
        """Apply the action of the player to move and return the events it caused.

        Raises :class:`~zilch_env.IllegalActionError` with the engine's rule message, the game
        unchanged. The events, each a dict with ``kind``, ``seat``, ``text`` and ``v`` (the version
        after this action), in the order things happened:

        ``keep`` (dice, points, turn_total after, then = roll | bank, hot_dice), ``challenge``,
        ``piggyback`` / ``fresh``, ``bank`` (points recorded, score), ``challenge_result``,
        ``penalty``, ``roll`` (dice: the roll now waiting for a decision), ``bonus`` (six dice and
        no score under ``six_dice_zilch_bonus``), ``zilch`` (dice, points lost, permanent points
        kept, score), ``final_round``, ``tiebreak``, ``turn_start`` (a decision before rolling:
        ``decide`` = challenge | piggyback),
        ``game_over``.
        """
        g = self.state
        p, phase = g.current, g.phase
        mark = self._mark()
        keep = None
        if phase == Phase.KEEP and action in g.legal_actions():
            keep = next(k for k in g.keeps() if k.mask == action >> 1)
        pre_total, pre_left, pre_offer = g.turn_total, g.dice_left, g.offer
        g.apply(action)  # raises IllegalActionError, state unchanged
        names = self.names
        ev: list[dict[str, Any]] = []
        add = self._adder(ev)
        running, banked = 0, False
        if phase == Phase.KEEP:
            assert keep is not None
            banked = split_keep_action(action)[1]
            total = pre_total + keep.points
            hot = pre_left - keep.n == 0
            if keep.n == 0:  # after a six-dice zilch bonus: the bank follows, or a fresh roll of all the dice
                if not banked:
                    add("fresh", p, f"{self.says(p, 'rolls')} {_count_word(g.ruleset.dice)} fresh dice "
                        f"(turn {total})", turn_total=total)
            else:
                add("keep", p, f"{self.says(p, 'keeps')} {_dice_text(keep.dice)} for {keep.points}"
                    + (" — hot dice!" if hot else "") + f" (turn {total})",
                    dice=list(keep.dice), points=keep.points, turn_total=total,
                    then="bank" if banked else "roll", hot_dice=hot)
            running = total
        elif phase == Phase.CHALLENGE:
            if action != NO_CHALLENGE:
                q = (p + action - CHALLENGE_BASE + 1) % g.num_players
                add("challenge", p, f"{self.says(p, 'challenges')} {names[q]}", target=q)
        elif phase == Phase.PIGGYBACK:
            if action == PIGGYBACK and pre_offer:
                add("piggyback", p, f"{self.says(p, 'piggybacks')} on {pre_offer[0]} with {pre_offer[1]} "
                    f"{'die' if pre_offer[1] == 1 else 'dice'}", turn_total=pre_offer[0],
                    dice_left=pre_offer[1])
                running = pre_offer[0]
            else:
                add("fresh", p, f"{self.says(p, 'rolls')} fresh dice")
        self._narrate(mark, add, running, banked)
        self.events.extend(ev)
        return ev

    # What one engine call did, told from the rolls and turns it added.

    def _mark(self) -> tuple[int, int, bool, int]:
        g = self.state
        return len(g.rolls), len(g.turns), g.final_queue is not None, g.tiebreak_round

    def _adder(self, ev: list[dict[str, Any]]) -> Any:
        v = len(self.state.actions)

        def add(kind: str, seat: int | None, text: str, **kw: Any) -> None:
            ev.append({"kind": kind, "seat": seat, "text": text, "v": v, **kw})

        return add

    def _narrate(self, mark: tuple[int, int, bool, int], add: Any, running: int, banked: bool) -> None:
        """Events for the rolls and turn ends since ``mark``.

        The engine rolls by itself: after a keep-and-roll, a bank or a turn-start choice it rolls
        until someone has a decision to make, so one call may hold several turns, each ended by a
        zilch roll. Every new roll is exactly one of: a six-dice bonus roll (all dice, no score,
        under ``six_dice_zilch_bonus``), the zilch that ended the next unexplained turn, or, last,
        the live roll now waiting for a keep."""
        g, rs, names = self.state, self.ruleset, self.names
        n_rolls, n_turns, final_started, pre_tb = mark
        new_turns = g.turns[n_turns:]
        new_rolls = g.rolls[n_rolls:]

        def turn_end(t: dict[str, Any], zilch_roll: Sequence[int] | None) -> None:
            nonlocal final_started
            q = t["player"]
            if t["banked"]:
                if t["recorded"]:
                    text = f"{self.says(q, 'banks')} {t['recorded']}: score {t['score']}"
                else:
                    text = (f"{self.says(q, 'banks')} {t['turn_total']}, below the entry threshold "
                            f"{rs.entry_threshold}: not on the board yet")
                add("bank", q, text, points=t["recorded"], turn_total=t["turn_total"], score=t["score"])
                if t["challenged"] is not None:
                    c = t["challenged"]
                    add("challenge_result", c, f"Challenge: {self.says(c, 'loses')} {t['turn_total']}",
                        challenger=q, points=-t["turn_total"])
            else:
                lost = t["turn_total"] - t["recorded"]
                said = []
                if lost:
                    said.append(f"{lost} lost")
                if t["recorded"]:
                    said.append(f"the permanent straight keeps {t['recorded']}")
                said.append(f"score {t['score']}")
                said[0] = said[0][0].upper() + said[0][1:]
                text = f"{self.says(q, 'rolls')} {_dice_text(zilch_roll or ())}: zilch! {'; '.join(said)}"
                add("zilch", q, text, dice=list(zilch_roll or ()), lost=lost, points=t["recorded"],
                    score=t["score"])
            why = []  # the turn's typed events say what the penalties were
            for e in t["events"]:
                if e["kind"] == "challenge_cost":
                    why.append(f"a zilch in a challenge costs {e['points']}")
                elif e["kind"] == "zilch_penalty":
                    why.append(f"{e['count']} zilches in a row " + {
                        "subtract": f"cost {rs.variants.zilch_penalty.points}", "halve": "halve the score",
                        "reset": "reset the score to 0"}[e["mode"]])
            if why:
                add("penalty", q, f"Penalty for {names[q]}: {' and '.join(why)}; score {t['score']}",
                    score=t["score"], rule=t["penalty"])
            if (not final_started and t["score"] >= rs.target and g.tiebreak_round == pre_tb
                    and rs.end != "instant"):  # the instant ending has no last turns: game_over follows
                final_started = True
                rest = ("every other player gets one more turn" if rs.end == "others_one_turn"
                        else "the round is played to its end")
                add("final_round", q, f"{names[q]} reached {rs.target}: {rest}")

        seg = 0
        if banked:
            turn_end(new_turns[0], None)
            seg = 1
        live = g.phase == Phase.KEEP
        bonus = rs.variants.six_dice_zilch_bonus
        for i, r in enumerate(new_rolls):
            q = new_turns[seg]["player"] if seg < len(new_turns) else g.current
            if bonus_of(rs, self._table.rolls[r]):
                # docs/rules.md, the six-dice zilch bonus: the bonus joins the turn total and the
                # roll waits for the player's choice (its one keep is the keep of nothing): bank
                # (action 1, where the bar allows) or roll all the dice again (action 0)
                running = g.turn_total if live and i == len(new_rolls) - 1 else running + bonus
                can_bank = live and 1 in g.legal_actions()
                fresh = f"roll {_count_word(rs.dice)} fresh dice"
                choice = (f"Bank {running} or {fresh}" if can_bank
                          else fresh[0].upper() + fresh[1:] + f" (banking needs {g.bank_threshold()})")
                add("bonus", q, f"{self.says(q, 'rolls')} {_dice_text(r)}: no score, six-dice bonus +{bonus} "
                    f"(turn {running}). {choice}", dice=list(r), points=bonus, turn_total=running,
                    can_bank=can_bank)
            elif i == len(new_rolls) - 1 and live:
                add("roll", q, f"{self.says(q, 'rolls')} {_dice_text(r)}", dice=list(r), turn_total=g.turn_total)
            else:
                turn_end(new_turns[seg], r)
                seg += 1
                running = 0
        if g.tiebreak_round != pre_tb and not g.done:
            tied = g.tiebreak_players or ()
            add("tiebreak", None, f"Tie at {g.scores[tied[0]]}: " + ", ".join(names[q] for q in tied)
                + " play one more turn each", players=list(tied))
        if g.done:
            w = g.winners or ()
            text = ("Draw: " + " and ".join(names[q] for q in w) if len(w) > 1 else f"{self.says(w[0], 'wins')}") \
                + f" with {g.scores[w[0]]}"
            add("game_over", None, text, winners=list(w), scores=list(g.scores))
        elif g.phase == Phase.CHALLENGE:
            add("turn_start", g.current, f"{names[g.current]} may challenge an opponent before rolling",
                decide="challenge")
        elif g.phase == Phase.PIGGYBACK and g.offer:
            add("turn_start", g.current, f"{names[g.current]} may piggyback on {g.offer[0]} with "
                f"{g.offer[1]} {'die' if g.offer[1] == 1 else 'dice'}, or roll fresh dice", decide="piggyback")

    def _start_events(self) -> None:
        """Events of the game's opening: the first roll, and any zilches the constructor already played."""
        ev: list[dict[str, Any]] = []
        self._narrate((0, 0, False, 0), self._adder(ev), 0, False)
        self.events.extend(ev)

    def cpu_action(self) -> int:
        """The move of the computer player to move, drawn from the game's seeded decision stream."""
        g = self.state
        spec = self.seats[g.current].cpu
        if spec is None:
            raise RuntimeError(f"seat {g.current} ({self.names[g.current]}) is a human player")
        agent = cpu_agent(spec, self.ruleset)
        legal = g.legal_actions()
        return cpu_act(agent, g, legal, decision_rng(self.seed, len(g.actions)))

    def play_cpu(self, max_actions: int = 100_000) -> list[dict[str, Any]]:
        """Make the computer players' moves until a human is to move or the game is over."""
        out: list[dict[str, Any]] = []
        for _ in range(max_actions):
            g = self.state
            if g.done or not self.seats[g.current].is_cpu:
                return out
            out.extend(self.apply(self.cpu_action()))
        raise RuntimeError(f"the computer players made {max_actions} moves without the game ending")

    # ------------------------------------------------------------------ saving

    #: The stored formats: 1 rolled NumPy's ``default_rng([seed, k])``; 2 names its dice (``dice``).
    FORMAT_V1 = "zilch-rl/table/1"
    FORMAT = "zilch-rl/table/2"

    def to_saved(self) -> dict[str, Any]:
        """Everything needed to rebuild the table: seed, seats, first seat, ruleset, the engine's
        game record (rolls and actions), which dice the seed drives (format 2; a game of format 1
        stays format 1: its later rolls still come from its NumPy dice), and ``practice_seed: true``
        for a seed its creator chose."""
        out = {"format": self.FORMAT, "dice": self.dice_kind, "seed": self.seed, "first": self.first,
               "seats": [s.to_dict() for s in self.seats], "record": self.state.to_record()}
        if self.practice:
            out["practice_seed"] = True
        if self.dice_kind == NUMPY:
            out["format"] = self.FORMAT_V1
            del out["dice"]
        return out

    @classmethod
    def from_saved(cls, saved: dict[str, Any]) -> "Table":
        """Rebuild a table by playing its actions again; raises :class:`CorruptGameError` naming
        what is wrong if the saved game cannot be read or replayed.

        Format 2: the dice are rolled again from the seed and must give the stored rolls. Format 1
        (NumPy's dice, whose streams may change with NumPy's version): the stored rolls are replayed
        as they are, and NumPy rolls only the dice after them."""
        try:
            fmt = saved.get("format", cls.FORMAT_V1)
            if fmt not in (cls.FORMAT, cls.FORMAT_V1):
                raise CorruptGameError(f"unknown stored format {fmt!r} (this server reads {cls.FORMAT_V1!r} "
                                       f"and {cls.FORMAT!r}): saved by a newer version?")
            rec = saved["record"]
            rs = ruleset_from_dict(rec["ruleset"])
            seats = [Seat(s["name"], s.get("cpu")) for s in saved["seats"]]
            if fmt == cls.FORMAT:
                t = cls(rs, seats, seed=saved["seed"], first=saved.get("first", 0), dice=saved.get("dice", KEYED),
                        check_names=False, practice=bool(saved.get("practice_seed")))
            else:
                t = cls(rs, seats, seed=saved["seed"], first=saved.get("first", 0), dice=NUMPY,
                        rolls=rec["rolls"], check_names=False)
            for i, a in enumerate(rec["actions"]):
                try:
                    t.apply(a)
                except IllegalActionError as e:
                    raise CorruptGameError(f"saved action #{i + 1} ({a}) is illegal on replay: {e}") from None
            rolls = [list(r) for r in t.state.rolls]
            if rolls != [list(r) for r in rec["rolls"]]:
                raise CorruptGameError("the saved game's rolls differ from its seeded dice")
            return t
        except CorruptGameError:
            raise
        except Exception as e:  # a saved document of the wrong shape, rules this version refuses, ...
            raise CorruptGameError(f"the saved game cannot be read ({type(e).__name__}: {e})") from None
