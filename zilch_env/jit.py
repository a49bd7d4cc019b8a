"""How the engine's compiled code is compiled and cached: one switch, read once at import, and one
cache folder per setting.

The small rule functions of :mod:`zilch_env.rules.primitives` and the batched engine's helpers are
``numba.njit(inline=INLINE)``. By default (``"never"``) each helper is compiled once and called: the
first use of the fast engine compiles in well under half a minute. ``ZILCH_NUMBA_INLINE=always``
lets numba inline them into every kernel that calls them: about twice the fused engine's speed, for
several times the compile time, since each kernel types the helpers' code again
(``bench/compile_time.py`` measures both). Both give the same games.

The turn flow's helpers, and the batch kernels that allocate nothing, are compiled without numba's
reference counting (``_nrt=False``): with it, every call that passes arrays increments and
decrements their counts with atomic instructions, which took about two thirds of the engine's time
(the fused engine is three to four times faster without; the arrays outlive every kernel call, the
caller holds them). A kernel that allocates (``np.empty``) keeps it and hands its buffers to such a
helper.

Numba's cache does not tell the two compilations apart, so each setting has a folder of its own:
:func:`cache_dir` is ``$NUMBA_CACHE_DIR`` (else ``$XDG_CACHE_HOME/zilch-rl/numba``, else
``~/.cache/zilch-rl/numba``) followed by ``inline-always`` or ``inline-never`` and a hash of the
source (:func:`source_key`); every kernel of the project (the engine's and the solvers') is cached
there. Numba checks only the file of the function it loads, while a kernel's compiled code holds the
helpers it calls from other files and the constants it reads (the packed rule layout): the hash of
every source file they may come from gives a changed source a fresh folder, so a kernel never runs
with a helper or a constant of an older source. The first use of the fast engine with an empty cache
says so on stderr, once (:func:`announce_compile`).
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

__all__ = ["INLINE", "INLINE_CHOICES", "announce_compile", "cache_dir", "njit", "source_key"]

#: The values ``ZILCH_NUMBA_INLINE`` may take.
INLINE_CHOICES = ("always", "never")
#: The setting the engine compiles with unless ``ZILCH_NUMBA_INLINE`` says otherwise.
DEFAULT_INLINE = "never"


def _inline() -> str:
    raw = os.environ.get("ZILCH_NUMBA_INLINE", DEFAULT_INLINE).strip() or DEFAULT_INLINE
    if raw not in INLINE_CHOICES:
        raise ValueError(f"ZILCH_NUMBA_INLINE={raw!r}: one of {', '.join(INLINE_CHOICES)} "
                         f"(never, the default: quick to compile; always: numba inlines the rule helpers, faster to run)")
    return raw


#: ``numba.njit``'s ``inline`` for the engine's helpers: ``"always"`` or ``"never"``.
INLINE = _inline()


def njit(fn=None, **options):
    """``numba.njit`` for every compiled function of the project, whose calls from other compiled
    functions type their constant arguments as plain values (``1`` as ``int64``, ``True`` as
    ``bool``).

    Numba compiles a function once per argument types, and a constant argument has a type of its own
    (``Literal[int](1)``): under ``numba.njit`` a helper called with ``0`` in one place, ``1`` in
    another and a variable in a third is compiled three times. The solvers' turn DPs take several
    seconds each to compile, and their callers pass constants for the lane count and the flags; with
    plain types each is compiled once (a first two-player game solve compiles in about 60% of the
    time). Calls from Python already pass plain types."""
    import numba
    from numba.core import types

    def plain(f):
        dispatcher = numba.njit(**options)(f)
        typed = getattr(dispatcher, "get_call_template", None)
        if typed is None:  # NUMBA_DISABLE_JIT=1: numba gives the Python function back
            return dispatcher

        def get_call_template(args, kws):
            return typed(tuple(types.unliteral(a) for a in args), {k: types.unliteral(v) for k, v in kws.items()})

        dispatcher.get_call_template = get_call_template
        return dispatcher

    return plain if fn is None else plain(fn)


def source_key(package: Path | None = None) -> str:
    """12 hex digits of a SHA-256 of the source files the compiled kernels come from: every module
    of ``zilch_env`` and of the solvers (``agents/solver``, and ``agents/learned.py``), read from where
    the package is (``package``: the ``zilch_env`` folder of a checkout or an installed wheel, this
    one by default), by path and content."""
    here = (package or Path(__file__)).resolve()
    here = here if here.is_dir() else here.parent
    agents = here.parent / "agents"
    files = sorted(here.rglob("*.py")) + sorted((agents / "solver").glob("*.py")) + [agents / "learned.py"]
    h = hashlib.sha256()
    for f in files:
        if f.is_file():
            h.update(f.relative_to(here.parent).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:12]


def cache_dir() -> Path:
    """The folder numba caches this setting's compiled kernels of this source in."""
    base = os.environ.get("NUMBA_CACHE_DIR", "").strip()
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
        base = str(Path(xdg) / "zilch-rl" / "numba" if xdg else Path.home() / ".cache" / "zilch-rl" / "numba")
    return Path(base) / f"inline-{INLINE}-{_SOURCE_KEY}"


def _use_cache_dir() -> None:
    """Point numba's cache at :func:`cache_dir` before any kernel of the project is decorated (numba
    picks a function's cache folder when it is decorated)."""
    from numba.core import config

    config.CACHE_DIR = str(cache_dir())


_SOURCE_KEY = source_key()
_use_cache_dir()

_announced = False


def announce_compile(module_file: str, what: str = "the fast engine") -> None:
    """One line on stderr, once per process, when ``module_file``'s kernels have no cache yet: the
    first call compiles them (tens of seconds), and a user should know why it waits and where the
    result goes."""
    global _announced
    if _announced:
        return
    _announced = True
    stem = Path(module_file).stem
    folder = cache_dir()
    if folder.is_dir() and any(folder.glob(f"*/{stem}.*.nbi")):
        return
    print(f"zilch-rl: compiling {what} once (ZILCH_NUMBA_INLINE={INLINE}); it is cached in {folder}",
          file=sys.stderr, flush=True)
