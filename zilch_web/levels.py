"""The computer players people choose from: levels with a name and one line each, per ruleset.

A person picks an opponent by how hard it is, not by its implementation. Each level is an agent
spec (:func:`agents.base.make_agent`) that can play the rules at hand:

========  ==============================  ======================================================
Easy      ``greedy``                      keeps the most points and banks from 300
Medium    ``heuristic``                   the hand-written player (banks by total against dice)
Hard      ``ppo:checkpoints/<preset>``    the trained agent of the rules being played, else the
                                          agent trained on every ruleset (``ppo:checkpoints/any``)
Perfect   ``optimal-win``                 the solved game's best move (two players; three, and
                                          two under overcoming, where agents.solver.multi solved it)
========  ==============================  ======================================================

Hard exists (with the ``agents`` extra installed) for rules a shipped trained agent was trained on
(a preset's rules, whatever the ruleset is called: :func:`agents.learned.check_compatible` decides),
and for any other rules and player count when the agent for any ruleset is shipped (``checkpoints/any``); Perfect where the solved
game of the rules and player count is stored (:func:`has_game_table`; solving one takes minutes, so a
server never solves one for a request). The default computer player is Hard where it exists (the
rules' own trained agent, else the agent for any ruleset, which wins more than half its games
against the heuristic on every two-player variant and held-out ruleset it was measured on, and at 3
and 4 players a fair share, or an interval holding it, on every ruleset measured,
``checkpoints/any/eval.md``; 5 and 6 players were not measured), else the heuristic. ``zilch play``'s
bare ``cpu`` and the web game's new-game form use the same default.
"""

from __future__ import annotations

import importlib.util
import json
import threading
from collections import OrderedDict
from functools import lru_cache
from typing import Any

from zilch_env import PRESETS, Ruleset

from agents.learned import policies_folder

#: The shipped trained agents, one directory per preset (``<preset>/policy.json``): the repository's
#: ``checkpoints/``, or the installed package's copy (where ``ppo:checkpoints/<preset>`` finds them too).
CHECKPOINTS = policies_folder()

#: (label, spec or None when it depends on the rules, the line shown under the choice).
LEVELS = [
    ("Easy", "greedy", "Keeps the most points and banks as soon as it has 300: easy to beat."),
    ("Medium", "heuristic", "A careful hand-written player: banks by its total against the dice left, "
                            "pushes when behind."),
    ("Hard", None, "The trained agent: learnt these rules over millions of games; about as strong "
                   "as perfect play."),
    ("Hard", "ppo:checkpoints/any", "The agent trained on every ruleset: reads these rules and plays them."),
    ("Perfect", "optimal-win", "Plays the exact best move from the solved game: the strongest there is."),
]

_LOCK = threading.Lock()
#: trained_agent_spec's answers, most recently asked last, at most 512 (custom rules come and go).
_HARD: "OrderedDict[Ruleset, str | None]" = OrderedDict()


@lru_cache(maxsize=1)
def _onnxruntime_installed() -> bool:
    return importlib.util.find_spec("onnxruntime") is not None


def trained_agent_spec(ruleset: Ruleset) -> str | None:
    """``ppo:checkpoints/<preset>`` of the shipped trained agent that plays exactly these rules, else
    ``ppo:checkpoints/any`` (the agent for any ruleset) when it is shipped, else None (also when
    onnxruntime, the ``agents`` extra that plays them, is not installed)."""
    if not _onnxruntime_installed():
        return None
    with _LOCK:
        if ruleset in _HARD:
            _HARD.move_to_end(ruleset)
            return _HARD[ruleset]
    from agents.learned import PolicyMismatchError, check_compatible

    found = None
    for preset in PRESETS:
        meta_path = CHECKPOINTS / preset / "policy.json"
        if not meta_path.is_file():
            continue
        try:
            check_compatible(json.loads(meta_path.read_text()), ruleset, preset)
        except (PolicyMismatchError, ValueError, KeyError):
            continue
        found = f"ppo:checkpoints/{preset}"
        break
    if found is None and (CHECKPOINTS / "any" / "policy.json").is_file():
        found = "ppo:checkpoints/any"  # the agent for any ruleset
    with _LOCK:
        _HARD[ruleset] = found
        while len(_HARD) > 512:
            _HARD.popitem(last=False)
    return found


def has_game_table(ruleset: Ruleset, players: int = 2) -> bool:
    """Whether the exact game of these rules and ``players`` players is stored (cached or shipped), so
    that ``optimal-win`` plays at once instead of solving the game for minutes first
    (:func:`agents.solver.game.solved_game_stored`)."""
    try:
        from agents.solver.game import solved_game_stored
    except ImportError:  # pragma: no cover - the solvers ship with the package
        return False
    return solved_game_stored(ruleset, players)


def cpu_levels(ruleset: Ruleset, num_players: int | None = None) -> list[dict[str, Any]]:
    """The levels that can play ``ruleset`` (with ``num_players`` players, when known), easiest
    first: ``[{"spec", "label", "description"}, ...]``."""
    out = []
    hard = trained_agent_spec(ruleset)
    for label, spec, description in LEVELS:
        if label == "Hard":
            if (spec is None) == (hard == "ppo:checkpoints/any"):
                continue  # the one Hard entry: the rules' own agent's, or the agent for any ruleset's
            spec = hard
        elif label == "Perfect" and not has_game_table(ruleset, 2 if num_players is None else num_players):
            spec = None
        if spec is not None:
            out.append({"spec": spec, "label": label, "description": description})
    return out


def default_cpu(ruleset: Ruleset) -> str:
    """The computer player a bare ``cpu`` plays: the trained agent of these rules (the agent for any
    ruleset where no other knows them), else ``heuristic``."""
    return trained_agent_spec(ruleset) or "heuristic"


def level_label(spec: str | None) -> str | None:
    """The level a spec plays at (``Hard`` for any ``ppo:checkpoints/<preset>``), or None."""
    if spec is None:
        return None
    for label, s, _ in LEVELS:
        if s == spec:
            return label
    if spec.startswith("ppo:checkpoints/") and spec.rstrip("/").rsplit("/", 1)[-1] in (*PRESETS, "any"):
        return "Hard"
    return None
