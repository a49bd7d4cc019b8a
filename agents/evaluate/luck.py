"""Luck adjustment: each game's result minus the luck of its dice, measured with the exact game table.

At every decision the change of the optimal win chance that the dice caused since the previous
decision is the luck (zero on average under fair dice); :func:`luck_table` loads the table once
per process, :func:`_play_luck` plays a game and sums each seat's luck.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from zilch_env import GameState, IllegalActionError, Policy, Ruleset

from agents.evaluate.config import MAX_DECISIONS


#: The luck adjustment's tables, kept between evaluations in one process (``train/ppo.py``'s periodic
#: ones) and between reviews (a web server reviews games of several rulesets): the turns they solved
#: stay cached. Safe because each solves every turn at its stable cap, so no value it gives depends on
#: which turns were solved before. At most :data:`LUCK_TABLES_KEPT`, the least recently used dropped.
_LUCK_TABLES: dict[str, Any] = {}
LUCK_TABLES_KEPT = 4


def luck_table(ruleset: Ruleset, players: int) -> tuple[Any, str]:
    """The game table that adjusts these games for luck, and why there is none: ``(table, "")`` or
    ``(None, reason)``. Only a stored table (cached or shipped with the package) counts: solving one
    takes minutes, which an evaluation never spends unasked."""
    from zilch_env import UnsupportedRulesError

    from agents.solver.game import check_supported, load_game_table

    if players != 2:
        return None, (f"luck adjustment needs two-player games (the exact game table solves those), "
                      f"not {players} players")
    try:
        check_supported(ruleset)
    except UnsupportedRulesError as e:
        return None, f"the game solver does not handle these rules, so there is no table to adjust with: {e}"
    from agents.solver.game import ruleset_key

    key = ruleset_key(ruleset)
    table = _LUCK_TABLES.pop(key, None)
    if table is None:
        table = load_game_table(ruleset)
    if table is not None:
        _LUCK_TABLES[key] = table  # the most recently used last
        while len(_LUCK_TABLES) > LUCK_TABLES_KEPT:
            _LUCK_TABLES.pop(next(iter(_LUCK_TABLES)))
    if table is None:
        return None, (f"no game table is stored for the rules {ruleset.name!r}; build it (minutes) with "
                      f"`zilch solve --ruleset {ruleset.name} --objective win` (with the same --set "
                      "options if any), then evaluate again")
    return table, ""


def _play_luck(game: GameState, pols: Sequence[Policy], rngs: Sequence[np.random.Generator],
               where: Callable[[], tuple[list[str], str]], table: Any) -> float:
    """:func:`_play` of a two-player game to its end, returning seat 0's luck
    ``(V(s_0) - W_start) + sum_t (V(s_{t+1}) - Q(s_t, a_t))``.

    One look-up of the table per decision gives both terms there: the values of every legal action,
    whose maximum is the mover's optimal value ``V(s_t)`` (which closes the previous term) and one of
    which is the chosen action's ``Q(s_t, a_t)`` (which opens the next). The look-up skips rolling on
    where banking is provably better (the cut DP, as the optimal-win agent plays); only an agent that
    does roll on there costs a second, uncut look-up. The last term closes on the result.
    """
    legal_actions, apply, turns = game.legal_actions, game.apply, game.turns
    w = table.first_player_win
    prev = w if game.first == 0 else 1.0 - w  # seat 0's chance before the first roll
    luck = 0.0
    p = 0
    turn, sit, cap = None, None, 0  # the situation (and its cap) is the same at every decision of a turn
    try:
        while game.winners is None:
            if game.decisions >= MAX_DECISIONS:
                labels, text = where()
                raise RuntimeError(f"{text} did not end within {MAX_DECISIONS} decisions (agents {labels})")
            p = game.current
            a = pols[p].act(game, legal_actions(), rngs[p])
            if (len(turns), game.challenged) != turn:  # a new turn, or a challenge declared in this one
                turn, sit = (len(turns), game.challenged), table.situation(game)
                cap = table.stable_cap(sit)
            values = table.action_values(game, True, cap, sit)
            q = values.get(a)
            if q is not None:  # (an illegal action: apply names the rule below)
                v = max(values.values())
                if q < 0.0:  # rolling on where banking is provably better: the uncut values
                    q = table.action_values(game, False, cap, sit)[a]
                if p:
                    v, q = 1.0 - v, 1.0 - q
                luck += v - prev
                prev = q
            apply(a)
    except IllegalActionError as e:
        labels, text = where()
        raise RuntimeError(f"agent {labels[p]!r} chose an illegal action in {text}: {e}") from None
    return luck + game.result()[0] - prev
