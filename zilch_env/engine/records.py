"""Games played back and games in a row: :func:`replay` plays a JSON game record
(:meth:`~zilch_env.engine.game.GameState.to_record`) back to the same state or says where it differs;
:class:`Match` plays games in a row where the winner begins the next one."""

from __future__ import annotations

import json
from typing import Any
from zilch_env.engine.dice import DiceExhausted, RandomDice, ScriptedDice
from zilch_env.rules.schema import Ruleset
from zilch_env.rules.load import load_ruleset
from zilch_env.engine.actions import IllegalActionError, RecordError
from zilch_env.engine.game import GameState


#: The record formats :func:`replay` reads (:meth:`GameState.to_record` writes the last).
RECORD_FORMATS = ("zilch-rl/game-record/1",)


def replay(record: dict[str, Any] | str) -> GameState:
    """Play a game record (a dict or its JSON text) back; raises if it does not replay exactly."""
    if isinstance(record, (str, bytes)):
        try:
            record = json.loads(record)
        except ValueError as e:
            raise RecordError(f"a game record is JSON text, and this is not JSON: {e}") from None
    if not isinstance(record, dict):
        raise RecordError(f"a game record is a JSON object, not {type(record).__name__}")
    from zilch_env.rules.schema import RulesetError
    from zilch_env.rules.load import ruleset_from_dict

    fmt = record.get("format", RECORD_FORMATS[-1])  # (a record without the tag is read as the current format)
    if fmt not in RECORD_FORMATS:
        shown = repr(fmt) if len(repr(fmt)) <= 80 else repr(fmt)[:77] + "..."
        raise RecordError(f"the record's format {shown} is not one this version reads "
                          f"({', '.join(RECORD_FORMATS)}): a record of a newer version, or not a game record")
    missing = [k for k in ("ruleset", "num_players", "rolls", "actions") if k not in record]
    if missing:
        raise RecordError(f"the game record lacks {', '.join(missing)} (a record has format, ruleset, "
                          f"num_players, first, rolls, actions and final)")
    if not isinstance(record["ruleset"], dict):
        raise RecordError("the record's ruleset is not a table of rules")
    for key in ("rolls", "actions"):
        if not isinstance(record[key], list):
            raise RecordError(f"the record's {key} is not a list")
    try:
        rs = ruleset_from_dict(dict(record["ruleset"]))
        dice = ScriptedDice(record["rolls"])
        g = GameState(rs, record["num_players"], dice=dice, first=record.get("first", 0))
    except RulesetError as e:
        raise RecordError(f"the record's ruleset: {e}") from None
    except DiceExhausted:
        raise RecordError("the record has no rolls: a game's first roll is made when it starts") from None
    except (ValueError, TypeError) as e:
        raise RecordError(f"the record: {e}") from None
    for i, a in enumerate(record["actions"]):
        try:
            g.apply(a)
        except IllegalActionError as e:
            raise RecordError(f"record action #{i + 1} ({a!r}) is illegal in the replay: {e}") from None
        except DiceExhausted:
            raise RecordError(f"record action #{i + 1} needs a roll the record does not have "
                              f"(it has {len(dice.rolls)})") from None
        except ValueError as e:  # a scripted roll with the wrong number of dice
            raise RecordError(f"record action #{i + 1}: {e}") from None
    if dice.pos != len(dice.rolls):
        raise RecordError(f"the record has {len(dice.rolls)} rolls but the replay used {dice.pos}")
    final = record.get("final")
    if final is not None:
        if not isinstance(final, dict) or not isinstance(final.get("scores"), list):
            raise RecordError("the record's final is not {scores: [...], winners: [...]}")
        if final["scores"] != g.scores or (final.get("winners") and list(g.winners or ()) != final["winners"]):
            raise RecordError(f"the replay ends at scores {g.scores}, the record says {final['scores']}")
    return g


class Match:
    """Several games in a row where the winner begins the next game (source 004).

    After a draw, the tied player who played earliest in the last game begins.
    """

    def __init__(self, ruleset: Ruleset | str = "zonk", num_players: int = 2, seed: int | None = None,
                 dice: RandomDice | ScriptedDice | None = None):
        self.ruleset = load_ruleset(ruleset) if not isinstance(ruleset, Ruleset) else ruleset
        self.num_players = num_players
        self.dice = dice if dice is not None else RandomDice(seed)
        self.games: list[GameState] = []

    def next_game(self) -> GameState:
        first = 0
        if self.games:
            last = self.games[-1]
            if not last.done:
                raise RuntimeError("the current game of the match is not over yet")
            first = min(last.winners, key=lambda q: (q - last.first) % self.num_players)  # type: ignore[arg-type]
        g = GameState(self.ruleset, self.num_players, dice=self.dice, first=first)
        self.games.append(g)
        return g

    def wins(self) -> list[float]:
        """Wins per seat over the finished games (a draw shares one win)."""
        out = [0.0] * self.num_players
        for g in self.games:
            if g.done:
                for q, r in enumerate(g.result()):
                    out[q] += r
        return out
