"""No import circles among paramcount's modules: found statically, every import counted."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def modules(root: Path, package: str) -> dict[str, Path]:
    """Every module of ``package`` under ``root``, by dotted name (a package by its own)."""
    found = {}
    for path in (root / package).rglob("*.py"):
        parts = path.relative_to(root).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules among ``known`` that ``name`` imports anywhere: at the top, inside a
    function, or only for type checking (each is an arrow that has to point one way)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name in known}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([base] if base else [])])
            for alias in node.names:
                target = f"{base}.{alias.name}"
                if target in known:
                    found.add(target)
                elif base in known:
                    found.add(base)
    found.discard(name)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return groups


def circles(root: Path, package: str) -> list[list[str]]:
    """The import circles among ``package``'s modules."""
    known = modules(root, package)
    return cycles({name: imports(name, path, known) for name, path in known.items()})


def test_paramcount_has_no_import_circles() -> None:
    """No module of paramcount reaches itself through imports, lazy or for type checking."""
    assert circles(ROOT, "paramcount") == []


PLANTED = [
    ("top-level", {"a.py": "import pkg.b\n", "b.py": "from pkg import a\n"}, ["a", "b"]),
    ("lazy", {"a.py": "def f():\n    from pkg.b import g\n",
              "b.py": "def g():\n    from pkg.a import f\n"}, ["a", "b"]),
    ("type-checking", {"a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                               "    from pkg.sub.c import C\n",
                       "sub/__init__.py": "", "sub/c.py": "from ..a import f\n"},
     ["a", "sub.c"]),
    ("through-three", {"a.py": "from pkg import b\n", "b.py": "from pkg.c import x\n",
                       "c.py": "from . import a\n"}, ["a", "b", "c"]),
]


@pytest.mark.parametrize(("files", "circle"), [p[1:] for p in PLANTED],
                         ids=[p[0] for p in PLANTED])
def test_a_planted_circle_is_found(tmp_path: Path, files: dict[str, str],
                                   circle: list[str]) -> None:
    """A circle planted in a package is found, whichever way its imports are written."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    for name, text in files.items():
        (tmp_path / "pkg" / name).parent.mkdir(exist_ok=True)
        (tmp_path / "pkg" / name).write_text(text)
    assert circles(tmp_path, "pkg") == [[f"pkg.{name}" for name in circle]]


def test_one_way_imports_are_no_circle(tmp_path: Path) -> None:
    """A chain of imports that never comes back is not a circle."""
    (tmp_path / "pkg").mkdir()
    for name, text in {"__init__.py": "from pkg import a\n", "a.py": "from pkg import b\n",
                       "b.py": "import json\n"}.items():
        (tmp_path / "pkg" / name).write_text(text)
    assert circles(tmp_path, "pkg") == []
