"""Docs that cannot drift: every fenced code block of README.md and docs/*.md is run here, or marked
as not runnable with the reason.

How a block is treated, by its language and the HTML comment on the line right before it:

- ``<!-- not run: REASON -->``: not run (a listing, a citation, an install, a server, hours of
  training). Every block of another language than python, sh and toml must be so marked.
- ``<!-- run with: OLD => NEW; OLD2 => NEW2 -->``: run after replacing each literal OLD (which must
  occur in the block) by NEW: how a block with a long budget runs here on a tiny one.
- ``python``: executed; the blocks of one file run in order in one namespace (a block may use what an
  earlier block of its file imported).
- ``sh``: every command (``\\`` continues a line, ``#`` starts a comment) starting with ``zilch`` runs
  in this process through ``zilch_cli.main``, one starting with ``python`` as a child process; any
  other command needs the block to be marked not run. Each must succeed.
- ``toml``: read as a ruleset (``zilch_env.loads_ruleset``).

Everything runs in a temporary working folder (so ``--out`` and ``--record`` paths land there), with
the solvers' cache there too; ``python SCRIPT.py`` names a script of the repository.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\S*)\s*$")
NOT_RUN = re.compile(r"^<!-- not run: (.+\S) -->$")
RUN_WITH = re.compile(r"^<!-- run with: (.+\S) -->$")
RUNNABLE = ("python", "sh", "toml")


@dataclass
class Block:
    path: Path
    line: int  # of the opening fence, from 1
    lang: str
    code: str
    marker: str  # the comment line before the fence, or ""

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    @property
    def not_run(self) -> str | None:
        m = NOT_RUN.match(self.marker)
        return m.group(1) if m else None

    def runnable_code(self, tmp: Path) -> str:
        m = RUN_WITH.match(self.marker)
        code = self.code
        if m:
            for pair in m.group(1).split(";"):
                old, sep, new = pair.strip().partition(" => ")
                assert sep, f"{self.where}: 'run with' takes OLD => NEW pairs, got {pair!r}"
                assert old in code, f"{self.where}: 'run with' replaces {old!r}, which the block no longer has"
                code = code.replace(old, new.replace("{tmp}", str(tmp)))
        return code


def blocks(path: Path) -> list[Block]:
    out, lines, i = [], path.read_text().splitlines(), 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start = i
        i += 1
        while i < len(lines) and lines[i].rstrip() != "```":
            i += 1
        assert i < len(lines), f"{path.name}:{start + 1}: a code block that never closes"
        marker = lines[start - 1].strip() if start else ""
        out.append(Block(path, start + 1, m.group(1), "\n".join(lines[start + 1:i]) + "\n", marker))
        i += 1
    return out


ALL = [b for p in DOCS for b in blocks(p)]


def test_every_block_is_run_or_marked_with_a_reason():
    assert len(ALL) > 20  # the parser finds the blocks
    unmarked = [b.where for b in ALL if b.lang not in RUNNABLE and b.not_run is None]
    assert not unmarked, f"blocks of no runnable language, not marked '<!-- not run: REASON -->': {unmarked}"
    bad = [b.where for b in ALL if b.marker.startswith("<!--") and not (NOT_RUN.match(b.marker)
                                                                        or RUN_WITH.match(b.marker))]
    assert not bad, f"a comment before a block that is neither 'not run: REASON' nor 'run with: ...': {bad}"
    for b in ALL:
        if b.lang == "sh" and b.not_run is None:
            for cmd in commands(b.code):
                assert cmd[0] in ("zilch", "python"), (
                    f"{b.where}: '{' '.join(cmd)}' is neither a zilch nor a python command: run it here or "
                    f"mark the block '<!-- not run: REASON -->'")


def commands(code: str) -> list[list[str]]:
    text = re.sub(r"\\\n\s*", " ", code)
    return [argv for line in text.splitlines() if (argv := shlex.split(line, comments=True))]


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ZILCH_SOLVER_CACHE", str(tmp_path / "solver-cache"))
    monkeypatch.setenv("ZILCH_PROGRESS_SECONDS", "3600")
    return tmp_path


def _run_zilch(argv: list[str], where: str) -> None:
    import zilch_cli

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = zilch_cli.main(argv[1:])
        except SystemExit as e:  # --help
            code = e.code or 0
    assert code == 0, f"{where}: {' '.join(argv)} exited {code}\n{out.getvalue()[-2000:]}\n{err.getvalue()[-2000:]}"
    assert out.getvalue(), f"{where}: {' '.join(argv)} printed nothing"


def _run_python(argv: list[str], where: str, cwd: Path) -> None:
    args = list(argv[1:])
    if args and args[0].endswith(".py") and not os.path.isabs(args[0]):
        args[0] = str(ROOT / args[0])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"{where}: {' '.join(argv)} exited {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"


@pytest.mark.parametrize("path", DOCS, ids=[str(p.relative_to(ROOT)) for p in DOCS])
def test_the_blocks_of_a_page_run(path, workdir):
    import zilch_env

    namespace: dict = {"__name__": "__docs__"}
    for b in blocks(path):
        if b.not_run is not None or b.lang not in RUNNABLE:
            continue
        code = b.runnable_code(workdir)
        if b.lang == "python":
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(code, b.where, "exec"), namespace)
        elif b.lang == "toml":
            zilch_env.loads_ruleset(code)
        else:
            for argv in commands(code):
                if argv[0] == "zilch":
                    _run_zilch(argv, b.where)
                else:
                    _run_python(argv, b.where, workdir)


def test_the_readme_stays_a_manual_of_at_most_3500_words():
    words = len((ROOT / "README.md").read_text().split())  # as wc -w counts them
    assert words <= 3500, f"README.md has {words} words: move detail to docs/"


def test_the_docs_links_between_pages_resolve():
    for path in DOCS:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text()):
            if "://" in target:
                continue
            assert (path.parent / target).exists(), f"{path.relative_to(ROOT)} links to {target}, which is missing"
