"""Checks of the values the batched engine's API takes (issue 41): whole numbers given as arrays or
lists (actions, rows, seats, dice keys), and a batch's size against the memory of this machine.

Each check raises ``ValueError`` naming the argument, the bad value and what is allowed, before any
array is made from it: a float action is not truncated, a digit string is not read as a number, a
number beyond the array's integers is not an ``OverflowError``, and a batch beyond memory is refused
with the figure instead of a ``MemoryError``.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

INT64 = (-(2**63), 2**63 - 1)
UINT64 = (0, 2**64 - 1)


def _show(values: Any) -> str:
    text = repr(values)
    return text if len(text) <= 80 else text[:77] + "..."


def whole_numbers(name: str, values: Any, lo: int, hi: int, dtype: Any = np.int64) -> np.ndarray:
    """``values`` (a number, a list or an array) as an array of ``dtype``, each a whole number from
    ``lo`` to ``hi``; else a ValueError naming ``name``. Arrays already of ``dtype`` pass unchecked
    beyond their kind (the fast path of a step)."""
    if isinstance(values, np.ndarray) and values.dtype == dtype:
        return values
    try:
        a = np.asarray(values)
    except (OverflowError, ValueError, TypeError):
        a = np.asarray(values, dtype=object) if not isinstance(values, (str, bytes)) else np.asarray([values])
    if a.size == 0:
        return np.zeros(a.shape, dtype=dtype)
    kind = a.dtype.kind
    if kind in "iu" and isinstance(values, (list, tuple)) and any(isinstance(v, (bool, np.bool_)) for v in values):
        # ([0, False] makes an int array)
        raise ValueError(f"{name} = {_show(values)}: a boolean is not a whole number; {name} are whole "
                         f"numbers from {lo} to {hi}")
    if kind == "O":
        bad = next((v for v in a.reshape(-1) if isinstance(v, (bool, np.bool_))
                    or not isinstance(v, (int, np.integer))), None)
        if bad is not None:
            raise ValueError(f"{name} = {_show(values)}: {bad!r} is not a whole number; {name} are whole "
                             f"numbers from {lo} to {hi} (ints, not floats, strings or booleans)")
    elif kind not in "iu":
        what = {"f": "floats", "U": "strings", "S": "bytes", "b": "booleans", "c": "complex numbers"}.get(kind, a.dtype)
        raise ValueError(f"{name} = {_show(values)}: {what}, not whole numbers; {name} are whole numbers "
                         f"from {lo} to {hi} (a float is not rounded, a string is not read)")
    flat = a.reshape(-1)
    low, high = flat.min(), flat.max()
    if int(low) < lo or int(high) > hi:
        bad = low if int(low) < lo else high
        raise ValueError(f"{name} = {_show(values)}: {int(bad)} is out of range; {name} are whole numbers "
                         f"from {lo} to {hi}")
    return a.astype(dtype) if kind != "O" else np.array([int(v) for v in flat], dtype=dtype).reshape(a.shape)


def available_memory() -> int:
    """Bytes of memory this machine can give now (``MemAvailable``; else all of it)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 1 << 40


def check_batch_memory(what: str, count: int, bytes_each: int) -> None:
    """Refuse ``count`` items of ``bytes_each`` bytes beyond half the memory available now, with the
    figures, instead of failing in the middle of making them."""
    need, have = count * bytes_each, available_memory()
    if need > have // 2:
        raise ValueError(f"{what} = {count:,}: needs about {_bytes(need)} of memory ({bytes_each:,} bytes "
                         f"each) and this machine has {_bytes(have)} available; at most "
                         f"{max(1, have // 2 // bytes_each):,} here (run smaller batches one after another)")


def _bytes(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if n < 1024 or unit == "PB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1024
    return f"{n} B"
