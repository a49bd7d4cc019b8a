"""Dice nobody can know in advance: the commitment to a game's dice, the game record that reveals
them, and the check that every roll of a record follows from its seed (``zilch verify``).

A web game's seed decides every roll (:mod:`zilch_web.dice`). The server draws it in secret
(:func:`zilch_web.table.new_seed`, 63 random bits) and, from the start of the game, shows only its
**commitment**: the SHA-256, in lowercase hexadecimal, of the UTF-8 text

    ``zilch-rl/dice/1:KIND:SEED``

where ``KIND`` is the dice kind (``splitmix64`` for every new game) and ``SEED`` the seed in
decimal, e.g. ``zilch-rl/dice/1:splitmix64:1234567``. Once the game is over the seed is revealed (in
the game view and the game record), and anyone can hash the text again and roll the dice again from
the seed. A seed a client chose (a practice game) is shown from the start instead.

The game record (:func:`game_record`) is the engine's record (:meth:`zilch_env.GameState.to_record`,
which :func:`zilch_env.replay` reads) with the players and a ``dice`` entry: ``kind``,
``commitment``, ``seed`` (decimal text, or null while the game is being played) and ``practice``.
:func:`verify_record` replays such a record from its seed alone, under its own rules, and names the
first field or roll that does not follow.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from zilch_web.dice import KEYED, dice_for

#: The text hashed for a commitment is this prefix, the dice kind, a colon and the seed in decimal.
COMMITMENT_PREFIX = "zilch-rl/dice/1:"


def commitment_text(kind: str, seed: int) -> str:
    """The text whose SHA-256 is the commitment of a game's dice: ``zilch-rl/dice/1:KIND:SEED``."""
    return f"{COMMITMENT_PREFIX}{kind}:{int(seed)}"


def commitment(kind: str, seed: int) -> str:
    """The commitment to the dice of kind ``kind`` rolled from ``seed``: SHA-256 hex of :func:`commitment_text`."""
    return hashlib.sha256(commitment_text(kind, seed).encode("utf-8")).hexdigest()


def dice_entry(table: Any) -> dict[str, Any]:
    """What a game tells about its dice: kind, commitment, and the seed once it may be known (the
    game is over, or the seed is a practice game's, chosen by its creator)."""
    shown = table.done or table.practice
    return {"kind": table.dice_kind, "commitment": commitment(table.dice_kind, table.seed),
            "seed": str(table.seed) if shown else None, "practice": bool(table.practice)}


def game_record(table: Any) -> dict[str, Any]:
    """The downloadable record of a web game (:class:`zilch_web.table.Table`): the engine's game
    record (ruleset, number of players, first seat, rolls, actions, final scores), the players'
    names and computer specs, and the dice entry (:func:`dice_entry`)."""
    rec = table.state.to_record()
    rec["players"] = [{"name": s.name, "cpu": s.cpu} for s in table.seats]
    rec["dice"] = dice_entry(table)
    return rec


class VerifyError(ValueError):
    """A record whose dice do not follow from its seed, or that cannot be checked; the message names
    the first field or roll at fault."""


def _seed_of(dice: dict[str, Any]) -> int:
    seed = dice.get("seed")
    if seed is None:
        raise VerifyError("dice.seed is null: the game was not over when the record was taken, so its "
                          "seed is not revealed yet; download the record again once the game has ended")
    if isinstance(seed, bool) or not isinstance(seed, (int, str)) or not (str(seed).isascii() and str(seed).isdigit()) \
            or len(str(seed)) > 20:
        raise VerifyError(f"dice.seed = {seed!r}: a seed is a whole number 0 or more, written in decimal")
    return int(seed)


def verify_record(record: Any) -> dict[str, Any]:
    """Check a web game record: its commitment is the SHA-256 of its revealed seed, and replaying
    its actions under its rules with the dice rolled from that seed gives exactly its rolls and its
    final scores. Returns a summary (rules, players, rolls and actions checked, winners, seed,
    commitment); raises :class:`VerifyError` naming the first field or roll that does not follow."""
    from zilch_env import GameState, IllegalActionError
    from zilch_env.rules.load import ruleset_from_dict
    from zilch_env.rules.schema import RulesetError

    if not isinstance(record, dict):
        raise VerifyError(f"a game record is a JSON object, not {type(record).__name__}")
    dice = record.get("dice")
    if not isinstance(dice, dict):
        raise VerifyError("the record has no 'dice' entry (kind, commitment, seed): only the web game's "
                          "records (GET /api/games/ID/record) carry the commitment to check")
    for key in ("ruleset", "num_players", "rolls", "actions"):
        if key not in record:
            raise VerifyError(f"the record lacks '{key}' (a record has ruleset, num_players, first, rolls, "
                              "actions, final, players and dice)")
    kind = dice.get("kind", KEYED)
    promised = dice.get("commitment")
    if not isinstance(promised, str) or len(promised) != 64:
        raise VerifyError(f"dice.commitment = {promised!r}: a commitment is 64 hexadecimal digits (SHA-256)")
    seed = _seed_of(dice)
    try:
        source = dice_for(kind, seed)
    except ValueError as e:
        raise VerifyError(f"dice.kind: {e}") from None
    got = commitment(kind, seed)
    if got != promised.lower():
        raise VerifyError(f"commitment mismatch: SHA-256 of {commitment_text(kind, seed)!r} is {got}, "
                          f"but the record's commitment is {promised}: this seed is not the one committed to")
    rolls, actions = record["rolls"], record["actions"]
    if not isinstance(rolls, list) or not isinstance(actions, list):
        raise VerifyError("the record's rolls and actions must be lists")
    try:
        rs = ruleset_from_dict(dict(record["ruleset"]))
        g = GameState(rs, record["num_players"], dice=source, first=record.get("first", 0))
    except (RulesetError, ValueError, TypeError) as e:
        raise VerifyError(f"the record's ruleset or players cannot be played: {e}") from None

    def check_rolls(after: str) -> None:
        for k in range(check_rolls.done, len(g.rolls)):
            rolled = list(g.rolls[k])
            if k >= len(rolls):
                raise VerifyError(f"{after}: the seed rolls roll #{k + 1} {rolled}, but the record has only "
                                  f"{len(rolls)} rolls")
            stated = rolls[k]
            if not isinstance(stated, list) or sorted(stated) != rolled:
                raise VerifyError(f"roll #{k + 1}: the record says {stated}, the seed gives {rolled}")
        check_rolls.done = len(g.rolls)

    check_rolls.done = 0  # type: ignore[attr-defined]
    check_rolls("at the start")
    for i, a in enumerate(actions):
        if g.done:
            raise VerifyError(f"action #{i + 1} ({a!r}) comes after the end of the game")
        try:
            g.apply(a)
        except IllegalActionError as e:
            raise VerifyError(f"action #{i + 1} ({a!r}) is illegal in the replay: {e}") from None
        except (ValueError, TypeError) as e:
            raise VerifyError(f"action #{i + 1} ({a!r}): {e}") from None
        check_rolls(f"after action #{i + 1}")
    if len(rolls) != len(g.rolls):
        raise VerifyError(f"the record has {len(rolls)} rolls but its actions roll {len(g.rolls)}")
    if not g.done:
        raise VerifyError(f"the game is not over after its {len(actions)} actions: an unfinished game's "
                          "record cannot be verified")
    final = record.get("final")
    if isinstance(final, dict) and final.get("scores") is not None and final["scores"] != list(g.scores):
        raise VerifyError(f"final.scores: the record says {final['scores']}, the replay ends at {list(g.scores)}")
    players = record.get("players")
    names = [p.get("name", "") if isinstance(p, dict) else str(p) for p in players] \
        if isinstance(players, list) else [f"P{q + 1}" for q in range(g.num_players)]
    return {"ok": True, "ruleset": rs.name, "target": rs.target, "players": names,
            "rolls": len(g.rolls), "actions": len(actions), "scores": list(g.scores),
            "winners": list(g.winners or ()), "kind": kind, "seed": str(seed), "commitment": got,
            "practice": bool(dice.get("practice"))}


def read_record(path: str) -> Any:
    """The JSON of a record file; :class:`VerifyError` naming the file if it cannot be read."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise VerifyError(f"{path}: cannot read it: {e.strerror or e}") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise VerifyError(f"{path}: not a JSON game record ({e})") from None
