"""Files written whole or not at all: each is written to a temporary file beside its place and renamed
over it, so an error, a full disk or Ctrl-C while writing leaves the old file (or none), never half of
one. The solved tables, the evaluation's reports and plots, and the CLI's game records are written so."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Callable

__all__ = ["write_text_whole", "write_whole"]


def write_whole(path: str | os.PathLike, write: Callable[[str], object]) -> Path:
    """Call ``write(tmp)`` to write the file's content to the path ``tmp`` (in ``path``'s folder, with
    ``path``'s suffix, so writers that read the format from the name keep it), then rename it to
    ``path``. Raises what ``write`` or the rename raised, leaving no temporary file."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=f".part{path.suffix}", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_text_whole(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` to ``path`` whole or not at all (:func:`write_whole`). Raises OSError."""
    return write_whole(path, lambda tmp: Path(tmp).write_text(text))
