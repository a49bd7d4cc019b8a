"""The web game (``zilch serve``) and the game table both games stand on.

* :mod:`zilch_web.table` — a game of the engine with named seats (people or computer players),
  its story as events, seeded computer moves, and saving/rebuilding (also used by ``zilch play``).
* :mod:`zilch_web.dice` — the stored games' dice: keyed SplitMix64, the same on every library version.
* :mod:`zilch_web.store` — games in SQLite, updated by version (compare-and-swap); storage faults
  as clear errors; expiry.
* :mod:`zilch_web.limits` — new games per client, how long games are kept, the hints' budget.
* :mod:`zilch_web.hint_worker` — hints solved in worker processes, off the request path.
* :mod:`zilch_web.hints` — the best move by the exact turn solver, with expected values.
* :mod:`zilch_web.app` — the FastAPI app: the JSON API and the phone pages in ``static/``.
"""

from zilch_web.table import Seat, Table, TableError
from zilch_web.seats import parse_players

__all__ = ["Seat", "Table", "TableError", "create_app", "parse_players"]


def create_app(*args, **kwargs):
    """:func:`zilch_web.app.create_app` (imported on use, so the terminal game needs no FastAPI)."""
    from zilch_web.app import create_app as _create

    return _create(*args, **kwargs)
