"""What an evaluation is asked to do (:class:`EvalConfig`) and the fixed sizes of its work.

The chunk sizes are constants, not derived from the number of workers, so that the work, and
therefore every result, is the same however many processes share it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence
import os

from zilch_env import Policy, Ruleset


#: The schema of ``report.json``. 2 adds, per result row, ``luck_adjusted`` and ``luck_sd_reduction``
#: (None when the luck adjustment is off) and ``config.luck``; every field of 1 is unchanged. 3 adds
#: ``score_share_t`` per row, ``games_played`` per table and in ``timing``, ``config.fair_share``, and
#: ``config.orders`` is the kind played (``auto`` resolved); every field of 2 is unchanged.
REPORT_FORMAT = "zilch-rl/eval/3"


REPORT_FORMAT = "zilch-rl/eval/2"
#: Deals per unit of work. Fixed (not derived from the number of workers) so that the work, and
#: therefore every result, is the same however many processes share it.
CHUNK_DEALS = 25


CHUNK_DEALS = 25
#: Deals per unit of work on the batched engine (many games stepped at once pay off in big batches).
BATCH_CHUNK_DEALS = 512


BATCH_CHUNK_DEALS = 512
#: One-player games per unit of work of the solo measure.
SOLO_CHUNK_GAMES = 16


SOLO_CHUNK_GAMES = 16
#: A one-player game is cut after this many turns (an agent that rarely banks might never finish).
SOLO_MAX_TURNS = 1000


SOLO_MAX_TURNS = 1000
#: A game with more decisions than this is an agent bug (a game of sane agents takes a few hundred).
MAX_DECISIONS = 1_000_000


MAX_DECISIONS = 1_000_000
#: Seconds a worker process may take to start and build its agents (a solver agent may solve first).
WORKER_START_TIMEOUT = 3600


WORKER_START_TIMEOUT = 3600
#: The default number of worker processes: every core.
DEFAULT_WORKERS = os.cpu_count() or 1


@dataclass
class EvalConfig:
    """What to evaluate. ``agents`` are specs (``"greedy"``, ``"ppo:PATH"``) or agent objects."""

    agents: Sequence[str | Policy]
    """The agents, by spec (see :func:`agents.base.make_agent`) or as objects."""
    ruleset: Ruleset | str = "zonk"
    """The rules: a :class:`Ruleset`, a preset name or a TOML path."""
    games: int = 2000
    """Games per table, rounded up to a whole number of deals (one deal = one game per seat order)."""
    seed: int = 0
    """Seed of every deal's dice and every agent's decisions."""
    workers: int = DEFAULT_WORKERS
    """Worker processes; 1 plays in this process. The results do not depend on it."""
    players: int = 2
    """Players per game (2 to 6)."""
    orders: str = "auto"
    """Seat orders of each deal: ``rotations`` (N orders), ``permutations`` (N! orders) or ``auto``:
    permutations up to 4 players, rotations beyond (:func:`agents.evaluate.dice.order_kind`)."""
    solo_turns: int = 20000
    """On-board turns of the solo measure per agent; 0 skips it."""
    anchor: str | None = None
    """The agent rated 0; default ``random`` if it plays, else the mean rating is 1500."""
    engine: str = "auto"
    """``auto``: tables of agents the batched engine plays in its kernels go there; ``single``: every
    game on the single-game engine."""
    luck: str = "auto"
    """Luck-adjusted results (see the module docstring): ``on`` (every table; an error when
    impossible), ``off``, or ``auto``: for two players when a game table is stored for the rules
    (never solved here), in the tables the batched engine does not play."""
    ray: bool = False
    """Run the chunks as Ray tasks (:mod:`agents.evaluate.ray_eval`) instead of ``workers`` processes; the
    results are the same."""
    address: str | None = None
    """With ``ray``: the Ray cluster to use; None starts a local Ray with ``workers`` CPUs."""


LUCK_MODES = ("auto", "on", "off")


ENGINES = ("auto", "single")
