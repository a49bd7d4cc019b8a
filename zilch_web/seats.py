"""The players at a table: :class:`Seat` (a name, and the agent spec of a computer), the ``--players``
text and the names the seats are given, and the computer players themselves: one shared agent per
spec and ruleset (:func:`cpu_agent`), each played by one request thread at a time (:func:`agent_lock`)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator, Sequence
import numpy as np
from zilch_env import GameState, Ruleset
from zilch_web.names import NameRefused, clean_name, name_key


#: The agent spec behind a bare ``cpu`` seat where no trained agent plays the rules (neither their
#: own nor the agent for any ruleset; where one does, :func:`zilch_web.levels.default_cpu` gives it:
#: ``zilch play`` and the web game use that).
DEFAULT_CPU = "heuristic"

MAX_NAME = 24


class TableError(ValueError):
    """A table that cannot be set up as asked (bad seats, names or agent specs); the message says why."""


@dataclass(frozen=True)
class Seat:
    """One player at the table: a name, and the agent spec if a computer plays this seat."""

    name: str
    cpu: str | None = None

    @property
    def is_cpu(self) -> bool:
        return self.cpu is not None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "cpu": self.cpu}


def parse_players(text: str, default_cpu: str = DEFAULT_CPU) -> list[Seat]:
    """Seats from ``you,cpu`` / ``ann,bob,cpu:heuristic``: ``cpu`` or ``cpu:SPEC`` is a computer
    player (default spec ``default_cpu``), any other name is a human; humans share the keyboard."""
    items = [s.strip() for s in text.split(",")]
    if not text.strip() or any(not s for s in items):
        raise TableError(f"--players {text!r}: give comma-separated names, e.g. you,cpu or ann,bob,cpu:heuristic")
    raw = []
    for s in items:
        if s.lower() == "cpu" or s.lower().startswith("cpu:"):
            spec = s[4:].strip() if ":" in s else default_cpu
            if not spec:
                raise TableError(f"player {s!r}: 'cpu:' needs an agent spec after the colon, e.g. cpu:heuristic")
            raw.append(Seat("", spec))
        else:
            raw.append(Seat(s))
    return name_seats(raw)


def name_seats(seats: Sequence[Seat], default_spec: str = DEFAULT_CPU, strict: bool = True) -> list[Seat]:
    """Check the seats and give unnamed computer players names (``CPU``, or ``CPU 1``, ``CPU 2``;
    a single one playing another spec than ``default_spec`` says which: ``CPU (Easy)`` for a level,
    ``CPU (greedy:500)`` for another agent).

    Names are cleaned (:func:`clean_name`: NFC, no control or invisible characters, spaces made
    one), 1 to :data:`MAX_NAME` characters, and distinct as people see them (:func:`name_key`:
    ignoring case and compatibility forms), so the pass-the-phone screen and the log never leave a
    doubt about who is meant. ``strict=False`` (a stored game rebuilt) only trims: what was accepted
    when the game was made is read back as it was."""
    if not 1 <= len(seats) <= 6:
        raise TableError(f"{len(seats)} players: a game has 1 to 6 players")
    n_anon = sum(1 for s in seats if s.is_cpu and not s.name.strip())
    out, k = [], 0
    for s in seats:
        try:
            name = clean_name(s.name) if strict else " ".join(s.name.split())
        except NameRefused as e:
            raise TableError(str(e)) from None
        if not name:
            if not s.is_cpu:
                raise TableError("every human player needs a name" + (
                    f" (player {len(out) + 1}'s name {s.name!r} is only spaces)" if s.name else ""))
            k += 1
            spec = s.cpu or ""
            name = f"CPU {k}" if n_anon > 1 else "CPU"
            if spec != default_spec and n_anon == 1:
                from zilch_web.levels import level_label

                name = f"CPU ({level_label(spec) or spec})"[:MAX_NAME]
        if len(name) > MAX_NAME:
            raise TableError(f"player name {name!r} is {len(name)} characters long; the most is {MAX_NAME}")
        out.append(Seat(name, s.cpu))
    keys = [name_key(s.name) for s in out]
    dup = next((i for i, key in enumerate(keys) if keys.count(key) > 1), None) if strict else None
    if dup is not None:
        other = next(i for i, key in enumerate(keys) if key == keys[dup] and i != dup)
        same = "" if out[dup].name == out[other].name else f" and {out[other].name!r} (they read the same)"
        raise TableError(f"two players are called {out[dup].name!r}{same}: each player needs a different name")
    return out


#: Agents by (spec, ruleset), the most recently used last; at most :data:`AGENT_CACHE_SIZE` are
#: kept, so a server that meets many custom rulesets does not grow without end.
_AGENT_CACHE: "OrderedDict[tuple[str, Ruleset], Any]" = OrderedDict()
AGENT_CACHE_SIZE = 64
_AGENT_LOCK = threading.Lock()
#: One lock per cached agent: agents keep state between calls (the trained agent's mask buffer,
#: the game table's situation cache), so the web server's request threads take turns with each.
_ACT_LOCKS: dict[int, threading.Lock] = {}


def cpu_agent(spec: str, ruleset: Ruleset) -> Any:
    """The agent for ``spec`` under ``ruleset``, built once per process (solvers build tables).
    Shared by every game of those rules: play it through :func:`cpu_act`, which serialises calls."""
    key = (spec, ruleset)
    with _AGENT_LOCK:
        agent = _AGENT_CACHE.get(key)
        if agent is None:
            from agents.base import make_agent

            agent = make_agent(spec, ruleset)
            _AGENT_CACHE[key] = agent
            _ACT_LOCKS[id(agent)] = threading.Lock()
            while len(_AGENT_CACHE) > AGENT_CACHE_SIZE:
                _, old = _AGENT_CACHE.popitem(last=False)
                # (a game still playing it keeps its lock through cpu_act's lookup of the id; an
                # agent dropped here is rebuilt on its next use)
                _ACT_LOCKS.pop(id(old), None)
        else:
            _AGENT_CACHE.move_to_end(key)
        return agent


@contextmanager
def agent_lock(agent: Any) -> Iterator[None]:
    """Hold ``agent``'s lock, when :func:`cpu_agent` made it (it is shared between games and the
    hint); an agent made elsewhere is not shared and needs none."""
    lock = _ACT_LOCKS.get(id(agent))
    if lock is None:
        yield
        return
    with lock:
        yield


def cpu_act(agent: Any, state: GameState, legal: Sequence[int], rng: np.random.Generator) -> int:
    """``agent.act`` with the agent's lock held: one call at a time per shared agent (a trained
    agent's shared observation mask, written by two threads at once, once made it pick an illegal keep)."""
    with agent_lock(agent):
        return int(agent.act(state, legal, rng))


