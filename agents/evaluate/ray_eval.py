"""The evaluation's work as Ray tasks: ``zilch eval --ray`` / ``python -m agents.evaluate --ray``.

:func:`agents.evaluate.evaluate` splits a tournament into fixed chunks of deals (and of one-player
games) and reduces their results in task order; :class:`RayRunner` runs those very chunks as Ray
tasks instead of in the local process pool, so a report is the same, number for number, for a seed
whatever runs it (one process, a pool of ``--workers``, a local Ray or a cluster): every game depends
only on the seed, the deal, the seat order and the engine.

Each Ray worker process builds the agents from their specs once, at its first task of an evaluation
(:class:`agents.evaluate._Context`, cached per process under the evaluation's key) and keeps them
for the following tasks. A worker therefore needs what a pool worker needs: this package at the same
version, the checkpoints a ``ppo:PATH`` spec names at the same path, and, for ``optimal-win`` and the
luck adjustment, the game table (shipped in ``agents/solver/game_tables`` for the small presets, else in
the solver cache ``$ZILCH_SOLVER_CACHE`` / ``~/.cache/zilch-rl``; see ``docs/cluster.md``).

Ray is imported here only: nothing else in :mod:`agents` imports it, so an evaluation without
``--ray`` never pays for Ray's import or start-up.
"""

from __future__ import annotations

import collections
import logging
import os
import sys
import time
import uuid
from typing import Any, Iterator, Sequence

#: Tasks in flight per CPU of the Ray cluster: enough to keep every worker busy while the results
#: of earlier tasks travel back, few enough that the results arrive nearly in task order.
IN_FLIGHT_PER_CPU = 2

# The worker side: one context per evaluation, kept per process.
_CONTEXTS: dict[str, Any] = {}


def _context(key: str, box: list) -> Any:
    """This process's context of evaluation ``key`` (built on its first task: the agents, and the
    batched engine's kernels when its tables need them)."""
    ctx = _CONTEXTS.get(key)
    if ctx is None:
        import ray

        from agents.evaluate.play import _Context
        from agents.evaluate.pool import _warm_kernels

        for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            os.environ.setdefault(var, "1")
        ruleset, specs, seed, kernels = ray.get(box[0])
        ctx = _Context(ruleset, specs, seed)
        if kernels:
            _warm_kernels(ruleset)
        if "torch" in sys.modules:
            sys.modules["torch"].set_num_threads(1)
        _CONTEXTS.clear()  # one evaluation at a time per worker: the last one's agents can go
        _CONTEXTS[key] = ctx
    return ctx


def _task(key: str, box: list, task: tuple) -> tuple:
    """One chunk of deals (or of one-player games), as :func:`agents.evaluate._run_task` plays it."""
    from agents.evaluate.play import _run_task

    return _run_task(_context(key, box), task)


class RayRunner:
    """:class:`agents.evaluate._Runner`'s interface on Ray: ``map(tasks)`` yields ``(task, result)``
    in the order of ``tasks``, ``close()``, ``startup_seconds`` and ``workers`` (the cluster's CPUs).

    ``address``: a running Ray cluster (``ray://HOST:10001``, ``HOST:6379`` or ``auto``); None starts a
    local Ray with ``workers`` CPUs for this evaluation (and stops it at :meth:`close`). An already
    initialised Ray (a caller's ``ray.init``) is used as it is.
    """

    def __init__(self, ruleset: Any, specs: Sequence[Any], seed: int, workers: int, kernels: bool = False,
                 address: str | None = None):
        t = time.perf_counter()
        try:
            import ray
        except ImportError:
            from zilch_env.extras import install_command

            raise RuntimeError(f"--ray needs the ray extra: {install_command('ray')}") from None
        self._ray = ray
        self._started = False
        if not ray.is_initialized():
            if address:
                ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
            else:
                ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False,
                         logging_level=logging.WARNING, runtime_env=local_runtime_env())
            self._started = True
        self.workers = int(ray.cluster_resources().get("CPU", workers))
        self._remote = ray.remote(num_cpus=1, max_retries=0)(_task)
        self._key = uuid.uuid4().hex
        self._box = [ray.put((ruleset, list(specs), seed, kernels))]
        self.startup_seconds = time.perf_counter() - t

    def map(self, tasks: Sequence[tuple]) -> Iterator[tuple]:
        """``(task, result)`` in task order, at most ``IN_FLIGHT_PER_CPU`` tasks per CPU in flight."""
        ray = self._ray
        window = max(1, IN_FLIGHT_PER_CPU * self.workers)
        pending: collections.deque = collections.deque()
        it = iter(tasks)
        for task in it:
            pending.append(self._remote.remote(self._key, self._box, task))
            if len(pending) >= window:
                break
        while pending:
            ref = pending.popleft()
            try:
                out = ray.get(ref)
            except ray.exceptions.RayTaskError as e:
                for r in pending:
                    ray.cancel(r)
                cause = e.cause if getattr(e, "cause", None) is not None else e
                raise RuntimeError(f"a Ray task of the evaluation failed: {type(cause).__name__}: {cause}") from None
            task = next(it, None)
            if task is not None:
                pending.append(self._remote.remote(self._key, self._box, task))
            yield out

    def close(self) -> None:
        if self._started:
            self._ray.shutdown()
            self._started = False


def local_runtime_env() -> dict[str, Any]:
    """A local Ray's workers import this checkout's code: its root first on ``PYTHONPATH`` (they
    inherit the caller's environment; this makes the checkout win over any other install)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.environ.get("PYTHONPATH", "")
    return {"env_vars": {"PYTHONPATH": root + (os.pathsep + path if path else "")}}
