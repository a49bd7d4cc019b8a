"""The shape of the code, checked: the layers' imports point one way, no import cycle, no module
imports another package's private module, and no module is longer than a reader can hold.

Every ``import`` statement counts, wherever it stands (in a function, under ``TYPE_CHECKING``), so a
cycle cannot hide behind a lazy import.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("zilch_env", "agents", "train", "zilch_cli", "zilch_web")
MAX_LINES = 600
#: Which of the project's packages each package may import (``zilch_env`` none of the others).
MAY_IMPORT = {
    "zilch_env": set(),
    "agents": {"zilch_env"},
    "train": {"zilch_env", "agents"},
    "zilch_cli": {"zilch_env", "agents", "zilch_web"},
    "zilch_web": {"zilch_env", "agents"},
}


def _modules() -> dict[str, Path]:
    mods = {}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            mods[".".join(parts)] = path
    return mods


MODULES = _modules()


def _imports(name: str) -> list[tuple[str, str | None]]:
    """``(module imported, name imported from it or None)`` for every import of module ``name``,
    relative imports resolved; a ``from M import sub`` of a submodule counts as importing ``M.sub``."""
    path = MODULES[name]
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [(a.name, None) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            base = node.module or ""
            if node.level:
                up = package[: len(package) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            for a in node.names:
                sub = f"{base}.{a.name}"
                out.append((sub, None) if sub in MODULES else (base, a.name))
    return out


def _project_module(dotted: str) -> str | None:
    while dotted and dotted not in MODULES:
        dotted = dotted.rpartition(".")[0]
    return dotted or None


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for m in MODULES:
        for target, _ in _imports(m):
            t = _project_module(target)
            if t and t != m:
                graph[m].add(t)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_checker_sees_a_cycle():
    """The cycle finder itself: a two-module cycle and a three-module one are found, a chain is not."""
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": set()}) == [["a", "b"]]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_no_import_cycle():
    cycles = _cycles(_graph())
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_layers_import_one_way():
    wrong = []
    for m in MODULES:
        pkg = m.split(".")[0]
        for target, _ in _imports(m):
            other = target.split(".")[0]
            if other in PACKAGES and other != pkg and other not in MAY_IMPORT[pkg]:
                wrong.append(f"{m} imports {target}")
    assert not wrong, wrong


#: The layers inside ``zilch_env``: each may import those listed for it (and the package's own
#: top-level modules: ``zilch_env.jit``, ``zilch_env.extras``). The engine and the players stand side
#: by side (the many-game view seats the built-in agents; the agents' kernels read the engine's state).
INSIDE_ZILCH_ENV = {
    "rules": set(),
    "engine": {"rules", "players"},
    "players": {"rules", "engine"},
    "envs": {"rules", "engine", "players"},
}


def test_zilch_envs_layers_import_one_way():
    wrong = []
    for m in MODULES:
        parts = m.split(".")
        if parts[0] != "zilch_env" or len(parts) < 3:
            continue
        for target, _ in _imports(m):
            t = (_project_module(target) or "").split(".")
            if len(t) >= 2 and t[0] == "zilch_env" and t[1] in INSIDE_ZILCH_ENV and t[1] != parts[1]:
                if t[1] not in INSIDE_ZILCH_ENV[parts[1]]:
                    wrong.append(f"{m} imports {'.'.join(t)}")
    assert not wrong, wrong


def test_no_module_imports_another_packages_private_module():
    wrong = []
    for m in MODULES:
        for target, name in _imports(m):
            if target.split(".")[0] not in PACKAGES or target.split(".")[0] == m.split(".")[0]:
                continue
            private = [p for p in target.split(".") if p.startswith("_") and not p.startswith("__")]
            if private or (name and name.startswith("_") and not name.startswith("__")):
                wrong.append(f"{m} imports {target}" + (f".{name}" if name else ""))
    assert not wrong, wrong


@pytest.mark.parametrize("folder", ["zilch_env/rules", "zilch_env/engine", "zilch_env/envs", "agents/solver",
                                    "agents/evaluate"])
def test_the_layers_are_folders(folder):
    assert (ROOT / folder / "__init__.py").is_file()


def test_no_module_over_the_limit():
    long = {m: n for m, p in MODULES.items() if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def test_tests_mirror_the_layout():
    """Each test folder under tests/ names a folder of the code."""
    for folder in (ROOT / "tests").rglob("*"):
        if folder.is_dir() and any(folder.glob("test_*.py")) and folder != ROOT / "tests":
            code = ROOT / folder.relative_to(ROOT / "tests")
            assert code.is_dir(), f"{folder.relative_to(ROOT)} mirrors no folder of the code"
