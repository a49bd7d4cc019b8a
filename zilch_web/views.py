"""What the page is told about a game: one plain-data view of a stored game (every seat, the roll,
the choices, the log, the score sheet, the seats still free), the answer of ``GET /api/games/{id}``
and of every move."""

from __future__ import annotations

from typing import Any

from zilch_web.fair import dice_entry
from zilch_web.levels import level_label
from zilch_web.live import free_seats
from zilch_web.table import PHASE_NAMES, Table

#: Events sent with a game view unless the client asks for all of them (``log=all``); a move's
#: answer carries its own events besides, and the page keeps the whole log itself.
LOG_TAIL = 12


def game_view(game_id: str, table: Table, meta: dict[str, Any], all_events: bool = False) -> dict[str, Any]:
    """The view of game ``game_id`` (its seats' metadata ``meta``); ``all_events`` for the whole log."""
    g = table.state
    events = table.events if all_events else table.events[-LOG_TAIL:]
    dice = dice_entry(table)
    return {
        "id": game_id,
        "version": table.version,
        "status": "over" if g.done else "playing",
        "ruleset": table.ruleset.to_dict(),
        "players": [{"seat": q, "name": s.name, "cpu": s.cpu, "level": level_label(s.cpu) or s.cpu,
                     "score": g.scores[q], "on_board": g.on_board[q],
                     "zilch_streak": g.zilch_streak[q]} for q, s in enumerate(table.seats)],
        "humans": table.humans,
        "current": None if g.done else g.current,
        "phase": PHASE_NAMES[g.phase],
        "human_to_move": table.human_to_move(),
        "roll": list(g.roll),
        "dice_left": g.dice_left,
        "turn_total": g.turn_total,
        "permanent": g.permanent,
        "bank_threshold": None if g.done else g.bank_threshold(),
        "keeps": table.keep_options(),
        "choices": table.choices(),
        "notes": table.notes(),
        "note_keys": [{"key": k, "values": v} for k, v in table.note_keys()],
        "final_queue": g.final_queue,
        "tiebreak_players": list(g.tiebreak_players) if g.tiebreak_players else None,
        "winners": list(g.winners) if g.winners else None,
        "standings": table.standings(),
        "turns": len(g.turns),
        "log": events,
        "log_total": len(table.events),
        "sheet": table.sheet(),  # rows of Table.SHEET_COLUMNS
        "sheet_columns": list(Table.SHEET_COLUMNS),
        "free_seats": free_seats(meta),
        "seat_tokens": "seats" in meta,  # false for a game saved before seat tokens: any device plays it
        "rematch": meta.get("rematch"),
        # The seed decides the dice: it is told only once the game is over (or from the start of a
        # practice game, whose creator chose it), as a string (a 63-bit number loses its last digits
        # as a JavaScript number); until then only its commitment (zilch_web.fair).
        "seed": dice["seed"],
        "commitment": dice["commitment"],
        "dice_kind": dice["kind"],
        "practice_seed": dice["practice"],
    }
