"""Hints solved in worker processes: a solve that takes long, or holds the interpreter's lock in
compiled code, never stalls the server's other requests, and is stopped at its time budget.

A worker is a ``spawn``-ed process (no copy of the server's threads and locks), at a lower
scheduling priority than the server (:data:`NICE`), that rebuilds the
game from its saved form (:meth:`zilch_web.table.Table.to_saved`) and answers
:func:`zilch_web.hints.hint_for` without the win chances (the server adds those from the solved game
it already holds). Solved turns stay cached in the worker between hints. :class:`HintPool` keeps up
to ``workers`` of them; a hint waits at most ``queue_seconds`` for one (else :class:`HintBusy`); a
worker that does not answer within the budget is killed (:class:`HintTimeout`) and a fresh one is
started for the next hint. Starting a worker (importing the engine and the solver) is not counted in
the budget.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import threading
from typing import Any

#: How much lower the workers' scheduling priority is than the server's (``os.nice``): a solve takes
#: the processor only when the server's requests leave it free.
NICE = 10
#: Seconds a new worker may take to start (import the engine and the solver) before it is given up.
START_SECONDS = 120.0


class HintBusy(RuntimeError):
    """Every worker is solving another hint."""


class HintTimeout(RuntimeError):
    """The solve ran past its time budget and was stopped."""


class HintFailed(RuntimeError):
    """The worker answered with an error: ``kind`` is ``"unavailable"`` (no hint for this position,
    the message says why), ``"rules"`` (values the solver cannot hold) or ``"error"``."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def _serve(conn: Any) -> None:  # pragma: no cover - runs in the worker process
    """The worker's loop: ``saved`` in, ``("ok", hint)`` or ``(kind, message)`` out."""
    from zilch_web.hints import HintUnavailable, hint_for
    from zilch_web.table import Table


    try:
        from agents.solver import warm_up

        warm_up()  # compile or load the solver's kernels before the first budget starts
    except Exception:
        pass
    conn.send(("ready", None))
    while True:
        try:
            saved = conn.recv()
        except (EOFError, OSError):
            return
        try:
            table = Table.from_saved(saved)
            conn.send(("ok", hint_for(table, win=False)))
        except HintUnavailable as e:
            conn.send(("unavailable", str(e)))
        except (ValueError, OverflowError, RecursionError) as e:
            conn.send(("rules", f"{type(e).__name__}: {e}"))
        except Exception as e:
            conn.send(("error", f"{type(e).__name__}: {e}"))


class _Worker:
    def __init__(self, ctx: Any):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child,), daemon=True, name="zilch-hint-worker")
        self.proc.start()
        child.close()
        try:  # lower the worker's priority at once, before it imports anything: moves get the processor first
            os.setpriority(os.PRIO_PROCESS, self.proc.pid, os.getpriority(os.PRIO_PROCESS, 0) + NICE)
        except (AttributeError, OSError):  # pragma: no cover - not on this system
            pass
        try:
            started = self.conn.poll(START_SECONDS)
            if started:
                self.conn.recv()
        except (EOFError, OSError) as e:  # the worker died while starting (an import failed, out of memory)
            self.kill()
            raise HintFailed("error", f"the hint worker stopped while starting ({type(e).__name__})") from None
        if not started:
            self.kill()
            raise HintFailed("error", f"the hint worker did not start within {START_SECONDS:.0f} s")

    def ask(self, saved: dict[str, Any], seconds: float) -> Any:
        try:
            self.conn.send(saved)
            if not self.conn.poll(seconds):
                raise HintTimeout(f"the hint took longer than {seconds:g} s to solve and was stopped")
            return self.conn.recv()
        except (EOFError, OSError) as e:  # the worker died (killed, out of memory)
            raise HintFailed("error", f"the hint worker stopped ({type(e).__name__}); the next hint starts "
                             "another") from None

    def alive(self) -> bool:
        return self.proc.is_alive()

    def kill(self) -> None:
        try:
            self.proc.kill()
            self.proc.join(5)
        except Exception:  # pragma: no cover
            pass
        try:
            self.conn.close()
        except Exception:  # pragma: no cover
            pass


class HintPool:
    """Up to ``workers`` hint worker processes, started when first needed."""

    def __init__(self, workers: int = 1, queue_seconds: float = 2.0):
        self.workers = workers
        self.queue_seconds = queue_seconds
        self._slots = threading.BoundedSemaphore(workers)
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
        self._ctx = mp.get_context("spawn")
        self._warming = threading.Event()  # set while warm() starts a worker: a hint waits for it
        self._warmed = threading.Event()
        self.started = 0  #: workers started so far (a killed one is replaced)
        self.killed = 0

    def solve(self, saved: dict[str, Any], seconds: float) -> dict[str, Any]:
        """The hint of the saved game (no win chances), solved within ``seconds``."""
        if not self._slots.acquire(timeout=self.queue_seconds):
            raise HintBusy(f"every hint worker ({self.workers}) is busy with another hint")
        try:
            if self._warming.is_set():
                self._warmed.wait(START_SECONDS)
            with self._lock:
                worker = self._idle.pop() if self._idle else None
            if worker is None or not worker.alive():
                worker = _Worker(self._ctx)
                self.started += 1
            try:
                answer = worker.ask(saved, seconds)
            except BaseException:
                worker.kill()
                self.killed += 1
                raise
            self._keep(worker)
        finally:
            self._slots.release()
        kind, value = answer
        if kind != "ok":
            raise HintFailed(kind, value)
        return value

    def warm(self) -> None:
        """Start one worker now unless one is idle (the server does at start, in the background)."""
        with self._lock:
            if self._idle or self._warming.is_set():
                return
            self._warming.set()
            self._warmed.clear()
        try:
            w = _Worker(self._ctx)
            self.started += 1
            self._keep(w)
        except Exception:  # pragma: no cover - the first hint tries again
            pass
        finally:
            self._warming.clear()
            self._warmed.set()

    def _keep(self, worker: _Worker) -> None:
        """Put a worker back among the idle ones (at most ``workers`` are kept)."""
        with self._lock:
            if len(self._idle) < self.workers:
                self._idle.append(worker)
                return
        worker.kill()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for w in idle:
            w.kill()


_POOLS: dict[tuple[int, float], HintPool] = {}
_POOLS_LOCK = threading.Lock()


def shared_pool(workers: int, queue_seconds: float) -> HintPool:
    """One pool per (workers, queue) in a process: apps made by tests share their workers."""
    with _POOLS_LOCK:
        pool = _POOLS.get((workers, queue_seconds))
        if pool is None:
            pool = _POOLS[(workers, queue_seconds)] = HintPool(workers, queue_seconds)
        return pool


def _close_all() -> None:  # pragma: no cover - at exit
    for pool in list(_POOLS.values()):
        pool.close()


import atexit

atexit.register(_close_all)


class HintService:
    """The web hint: size check, then the solve in a worker within the budget, then the win chances
    in the server (from the solved game it holds); every refusal an :class:`~zilch_web.requests_in.ApiError`."""

    #: Positions whose solve ran out of time, remembered (at most this many) so asking again is answered at once.
    REMEMBER = 1024

    def __init__(self, limits: Any):
        self.limits = limits
        self.pool = shared_pool(limits.hint_workers, limits.hint_queue_seconds)
        self._too_slow: dict[Any, str] = {}
        self._lock = threading.Lock()

    def answer(self, table: Any) -> dict[str, Any]:
        from zilch_web.hints import HintUnavailable, add_win_chances, check_size, solve_key
        from zilch_web.requests_in import ApiError

        try:
            check_size(table)
            key = solve_key(table)
        except HintUnavailable as e:
            raise ApiError(409, "no_hint", str(e)) from None
        except (ValueError, OverflowError, RecursionError) as e:
            raise ApiError(409, "no_hint", f"the turn solver cannot value these rules ({type(e).__name__}: {e})") from None
        with self._lock:
            slow = self._too_slow.get(key)
        if slow is not None:
            raise ApiError(409, "no_hint", slow)
        seconds = self.limits.hint_seconds
        try:
            hint = self.pool.solve(table.to_saved(), seconds)
        except HintBusy as e:
            raise ApiError(503, "hint_busy", f"{e}; ask again in a few seconds",
                           headers={"Retry-After": "5"}) from None
        except HintTimeout:
            why = (f"no hint under these rules: solving them takes longer than this server allows for a hint "
                   f"({seconds:g} s)")
            with self._lock:
                self._too_slow[key] = why
                while len(self._too_slow) > self.REMEMBER:
                    self._too_slow.pop(next(iter(self._too_slow)))
            raise ApiError(503, "hint_timeout", why + "; it was stopped") from None
        except HintFailed as e:
            if e.kind == "unavailable":
                raise ApiError(409, "no_hint", str(e)) from None
            if e.kind == "rules":
                raise ApiError(409, "no_hint", f"the turn solver cannot value these rules ({e})") from None
            raise ApiError(503, "hint_failed", f"the hint could not be worked out ({e})",
                           headers={"Retry-After": "5"}) from None
        return add_win_chances(table, hint)
