"""The review of a game: every decision of every seat valued against the best move, the luck of every
roll, and each player's accuracy, from a game record (:meth:`zilch_env.GameState.to_record`).

Two measures value a position:

* ``win``: the mover's chance of winning the two-player game under optimal play by both from there,
  read from the solved game's table (:mod:`agents.solver.game`). Only a stored table counts (cached
  or shipped, :func:`agents.evaluate.luck.luck_table`): a review never spends minutes solving one.
* ``points``: the expected points of the turn under the turn optimum (:func:`agents.solver.solve_turn`,
  the plain optimum: zilch-streak penalties are not counted), for any rules the turn solver solves.

The review's *measure* is ``win`` when a table is stored for the record's rules and player count,
else ``points`` (and :attr:`Review.why_points` says why). Every decision also carries the other
measure where it can be computed.

Definitions (docs/review.md):

* A decision's **loss** is the value of the best move minus the value of the move made (0 for a best
  move), both in the mover's view.
* A roll's **luck** is the value just after the roll minus the value just before it, in the roller's
  view: the value after is that of the decision the roll leads to (its best move), or, after a zilch,
  of the next turn's start (``win``) or the points the turn records (``points``). It is 0 on average
  over the rolls the dice can give.
* Per seat, **accuracy** is the mean loss over its valued decisions, and the **score**
  ``100 * 2 ** (-accuracy / HALF_LOSS[measure])``: 100 when every move was best, half of that for
  each :data:`HALF_LOSS` of mean loss per decision.
* Under ``win`` every step is accounted: for each seat, the win chance at the start plus the luck of
  every roll plus the play of every decision (``-loss`` for its own moves, ``+loss`` for the
  opponent's) is the result (1, 0, or 1/2 for a draw), up to the float32 rounding of the table.
  Under ``points`` the same holds per turn: the turn's expected points at its first roll, plus the
  luck of its rolls, minus its losses, is what the turn recorded.
"""

from __future__ import annotations

from typing import Any, Callable

from zilch_env.engine.records import replay

from agents.evaluate.review_data import (HALF_LOSS, REVIEW_FORMAT, Choice, Decision, Mistake, Review, Roll,
                                         SeatReview, Valued, score_of)


def review_record(record: dict[str, Any] | str, progress: Callable[[int, int], None] | None = None,
                  choices: bool = False) -> Review:
    """Review a game record (a dict or its JSON text). Raises :class:`zilch_env.RecordError` naming
    what is wrong when the record does not replay exactly (an illegal action, a roll too many or too
    few, final scores it does not reach). ``progress(done, total)`` is called after each decision.
    ``choices``: every decision also carries the scores and every legal move with its values (the
    web game's review shows them; :attr:`Decision.choices`)."""
    from agents.evaluate.luck import luck_table
    from agents.evaluate.review_walk import Walker

    if isinstance(record, (str, bytes)):
        record = _parsed(record)
    game = replay(record)  # refuses a record that does not replay, naming the fault
    rs, n = game.ruleset, game.num_players
    table, why = luck_table(rs, n)
    why = _reworded(why)
    walker = Walker(rs, n, table, _reach(game), choices)
    walker.run(record, progress)
    measure = "win" if table is not None else "points"
    seats = [_seat(q, name, measure, walker, game) for q, name in enumerate(_names(record, n))]
    line: list[tuple[int, float]] = []
    if table is not None:
        line = [(d.index, d.win.best if d.seat == 0 else 1.0 - d.win.best) for d in walker.decisions if d.win]
        if game.done:
            line.append((len(walker.decisions), game.result()[0]))
    return Review(rs.name, n, game.first, [s.name for s in seats], measure, why or None, walker.why_no_points,
                  walker.decisions, walker.rolls, seats, line, list(game.scores),
                  list(game.winners) if game.winners is not None else None)


def _parsed(text: str | bytes) -> dict[str, Any]:
    import json

    from zilch_env import RecordError

    try:
        return json.loads(text)
    except ValueError as e:
        raise RecordError(f"a game record is JSON text, and this is not JSON: {e}") from None


def _reworded(why: str) -> str:
    """The luck adjustment's reason for having no table (:func:`agents.evaluate.luck.luck_table`),
    in the words of a review."""
    for old, new in (("luck adjustment needs", "win chances need"), (", so there is no table to adjust with", ""),
                     ("then evaluate again", "then review again")):
        why = why.replace(old, new)
    return why


def _reach(game) -> int:
    """The largest turn total the review asks the turn solver about, rounded up to a power of two
    times 1000 so that reviews of games alike share one solve: the largest turn total of the game
    plus the most points one keep scores."""
    from zilch_env.rules.compiled import compile as compile_rules

    cr = compile_rules(game.ruleset)
    top = max([t["turn_total"] for t in game.turns] + [game.turn_total, 0])
    need = top + int(cr.k_pts.max(initial=0)) + game.ruleset.variants.six_dice_zilch_bonus
    reach = 1000
    while reach < need:
        reach *= 2
    return reach


def _seat(q: int, name: str, measure: str, walker, game) -> SeatReview:
    """Seat ``q``'s figures under ``measure`` (the definitions: :class:`SeatReview`)."""
    own = [(d, getattr(d, measure)) for d in walker.decisions if d.seat == q and getattr(d, measure) is not None]
    lost = sum(v.loss for _, v in own)
    accuracy = lost / len(own) if own else None
    worst = sorted((x for x in own if x[1].loss > 0.0), key=lambda x: (-x[1].loss, x[0].index))[:3]
    mistakes = [Mistake(d.index, d.move, v.best_move, v.value, v.best, v.loss) for d, v in worst]
    if measure == "win":
        start, luck, play, result = _win_account(q, walker, game)
    else:
        start, luck, play, result = _points_account(q, walker, game)
    return SeatReview(q, name, sum(d.seat == q for d in walker.decisions), len(own), accuracy,
                      score_of(accuracy, measure), lost, start, luck, play, result, mistakes)


def _win_account(q: int, walker, game) -> tuple[float | None, float, float, float | None]:
    """Seat ``q``'s win chance at the start, the luck of every roll for it, the play of every decision
    for it, and its result (two players: what one seat gains the other loses)."""
    rolls = [r for r in walker.rolls if r.win_luck is not None]
    start = None
    if walker.rolls and walker.rolls[0].win_before is not None:
        r0 = walker.rolls[0]
        start = r0.win_before if r0.seat == q else 1.0 - r0.win_before
    luck = sum(r.win_luck if r.seat == q else -r.win_luck for r in rolls)
    play = sum(-d.win.loss if d.seat == q else d.win.loss for d in walker.decisions if d.win)
    return start, luck, play, game.result()[q] if game.done else None


def _points_account(q: int, walker, game) -> tuple[float, float, float, float]:
    """Over seat ``q``'s finished turns that the turn solver values whole: their expected points at
    their first roll, the luck of their rolls, minus the points given up in them, and what they
    recorded."""
    turns: dict[int, list] = {}
    for r in walker.rolls:
        if r.seat == q:
            turns.setdefault(r.turn, []).append(r)
    start = luck = play = result = 0.0
    for t, rolls in turns.items():
        decided = [d for d in walker.decisions if d.turn == t and d.kind == "keep"]
        if (t >= len(game.turns) or any(r.points_luck is None for r in rolls)
                or any(d.points is None for d in decided)):
            continue
        start += rolls[0].points_before
        luck += sum(r.points_luck for r in rolls)
        play -= sum(d.points.loss for d in decided)
        result += float(game.turns[t]["recorded"])
    return start, luck, play, result


def _names(record: dict[str, Any], n: int) -> list[str]:
    """The players' names the record gives (the web game's ``players``), else P1, P2, ..."""
    players = record.get("players")
    names = [f"P{q + 1}" for q in range(n)]
    if isinstance(players, list):
        for q, p in enumerate(players[:n]):
            name = p.get("name") if isinstance(p, dict) else p
            if isinstance(name, str) and name.strip():
                names[q] = name.strip()[:40]
    return names


__all__ = ["HALF_LOSS", "REVIEW_FORMAT", "Choice", "Decision", "Mistake", "Review", "Roll", "SeatReview", "Valued",
           "review_record", "score_of"]
