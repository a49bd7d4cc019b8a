"""The worker pool and the progress display.

Chunks of work run in ``spawn`` worker processes (or, with ``ray``, as Ray tasks through
:mod:`agents.evaluate.ray_eval`) and come back in order; the progress bar counts games as chunks finish.
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence
import os
import sys
import time

import numpy as np

from zilch_env import Policy, Ruleset

from agents.evaluate.config import WORKER_START_TIMEOUT
from agents.progress import Progress
from agents.evaluate.play import _Context, _run_task


_WORKER: _Context | None = None


def _warm_kernels(ruleset: Ruleset) -> None:
    """Compile (or load from numba's cache) the batched engine's kernels: one tiny game."""
    from zilch_env.engine.batched import KernelAgent

    from agents.evaluate.tournament import play_games

    play_games(ruleset, [KernelAgent("random")] * 2, np.zeros((1, 2), np.int64), seed=0, dice_slots=True)


def _init_worker(ruleset: Ruleset, specs: Sequence[str | Policy], seed: int, ready: Any, kernels: bool) -> None:
    """Pool initializer: build the agents (and the batched engine's kernels when tables need them),
    with one thread of linear algebra per process (the processes are the parallelism), then report
    ``("ready", pid)`` or ``("error", text)``."""
    global _WORKER
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ[var] = "1"
    try:
        _WORKER = _Context(ruleset, specs, seed)
        if kernels:
            _warm_kernels(ruleset)
        if "torch" in sys.modules:
            sys.modules["torch"].set_num_threads(1)
    except BaseException as e:
        ready.put(("error", f"{type(e).__name__}: {e}"))
        raise
    ready.put(("ready", os.getpid()))


def _worker_task(task: tuple) -> tuple:
    assert _WORKER is not None
    return _run_task(_WORKER, task)


class _Runner:
    """Runs tasks in order, in this process (``workers == 1``) or in a ``spawn`` pool."""

    def __init__(self, ruleset: Ruleset, specs: Sequence[str | Policy], seed: int, workers: int,
                 agents: Sequence[Policy], kernels: bool = False, luck: Any = None):
        self.workers = workers
        self.pool = None
        t = time.perf_counter()
        if workers == 1:
            self.ctx = _Context(ruleset, specs, seed, agents, luck)
            if kernels:
                _warm_kernels(ruleset)
        else:
            import multiprocessing as mp
            import queue

            ctx = mp.get_context("spawn")
            ready = ctx.Queue()
            self.pool = ctx.Pool(workers, _init_worker, (ruleset, list(specs), seed, ready, kernels))
            # Wait until every worker has built its agents, so that the games are timed alone and a
            # worker that cannot build an agent stops the run with its message.
            started = 0
            while started < workers:
                try:
                    status, what = ready.get(timeout=WORKER_START_TIMEOUT)
                except queue.Empty:
                    self.close()
                    raise RuntimeError(f"the worker processes did not start within {WORKER_START_TIMEOUT} s") from None
                if status == "error":
                    self.close()
                    raise RuntimeError(f"a worker process could not build the agents: {what}")
                started += 1
        self.startup_seconds = time.perf_counter() - t

    def map(self, tasks: Sequence[tuple]) -> Iterator[tuple]:
        """``(task, result)`` in the order of ``tasks``."""
        if self.pool is None:
            for t in tasks:
                yield _run_task(self.ctx, t)
        else:
            yield from self.pool.imap(_worker_task, tasks, chunksize=1)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()
            self.pool = None


class _Progress:
    """The evaluation's progress on stderr (:class:`agents.progress.Progress`: bars on a terminal, a
    line every few seconds in a log), a task per key with its rate, or nothing."""

    def __init__(self, enabled: bool):
        self.bar = Progress(enabled)
        self.tasks: dict[str, int] = {}
        self.done: dict[str, int] = {}
        self.t0: dict[str, float] = {}

    def add(self, key: str, description: str, total: int | None) -> None:
        """A task of ``total`` steps; ``None`` for one of unknown length."""
        if self.bar.enabled and total != 0:
            self.tasks[key] = self.bar.add(description, total=total)
            self.done[key] = 0
            self.t0[key] = time.perf_counter()

    def remove(self, key: str) -> None:
        if key in self.tasks:
            self.bar.remove(self.tasks.pop(key))

    def advance(self, key: str, n: int, unit: str) -> None:
        if key in self.tasks:
            self.done[key] += n
            dt = time.perf_counter() - self.t0[key]
            self.bar.update(self.tasks[key], advance=n,
                            info=f"{self.done[key] / dt:,.0f} {unit}/s" if dt > 0 else "")

    def close(self) -> None:
        self.bar.close()
