"""The house by capability: each package imports only the packages below it, found statically.

The table here is the one ``docs/layout.md`` shows and each package's docstring names; the
imports are walked as ``tests/test_import_cycles.py`` walks them (at the top, inside a function,
or only for type checking).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.test_import_cycles import cycles, imports, modules

ROOT = Path(__file__).resolve().parent.parent

FLOOR = {"errors", "record", "atomic", "_version", "quiet", "filekind", "usertext"}
"""The top-level shared modules: anyone may import them, and they import only each other."""

ENTRY = {"__main__": {"cli"}}
"""Top-level modules that are doors in: ``python -m paramcount`` goes to the command line."""

FACE = "paramcount"
"""The library's face (``paramcount/__init__.py``): for users; no module of paramcount imports
it, and it never imports ``cli`` (``import paramcount`` loads no click)."""

ALLOWED: dict[str, set[str]] = {
    "engine": set(),
    "families": {"engine"},
    "analysis": {"engine", "families"},
    "verify": {"engine", "analysis"},
    "files": {"engine", "families", "verify"},
    "factories": {"engine", "files", "verify"},
    "reading": {"engine", "families", "files"},
    "checking": {"engine", "families", "files", "factories"},
    "porting": {"engine", "files", "factories", "verify"},
    "live": {"engine", "families", "files"},
    "render": {"engine", "families", "analysis", "verify", "files", "factories", "reading",
               "checking", "porting", "live"},
    "api": {"engine", "families", "analysis", "verify", "files", "factories", "reading",
            "checking", "porting", "live", "render"},
    "web": {"engine", "families", "api", "render"},
    "cli": {"engine", "families", "analysis", "verify", "files", "factories", "reading",
            "checking", "porting", "live", "render", "api", "web"},
}
"""Each package of paramcount and the packages it may import (the floor aside)."""

MOST_TOP_LEVEL_MODULES = 12
MOST_LINES = 1000


def owner(module: str) -> str:
    """The package or top-level module of paramcount that ``module`` belongs to
    (``paramcount`` itself for the face)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def wrong_way(root: Path, package: str, allowed: dict[str, set[str]],
              floor: set[str], entry: dict[str, set[str]]) -> list[str]:
    """Every import in ``package`` that crosses from one of its parts to another the table does
    not allow, as ``importer -> imported`` lines."""
    known = modules(root, package)
    found = []
    for name, path in sorted(known.items()):
        source = owner(name)
        for target in sorted(imports(name, path, known)):
            goal = owner(target)
            if goal == source and target != package:
                continue
            if target == package:
                ok = False
            elif source in floor:
                ok = goal in floor
            elif goal in floor:
                ok = True
            elif source == package:
                ok = goal != "cli"
            elif source in entry:
                ok = goal in entry[source]
            else:
                ok = goal in allowed.get(source, set())
            if not ok:
                found.append(f"{name} -> {target}")
    return found


def test_every_import_points_down() -> None:
    """No module of paramcount imports a package its own package may not: nothing upward, nothing
    into ``cli``, and nothing imports the library face."""
    assert wrong_way(ROOT, "paramcount", ALLOWED, FLOOR, ENTRY) == []


def test_the_table_points_one_way() -> None:
    """The allowed imports themselves form no circle, so they give the packages an order."""
    assert cycles({name: set(targets) for name, targets in ALLOWED.items()}) == []


def test_every_part_of_paramcount_is_in_the_table() -> None:
    """Each folder of ``paramcount/`` is a package in the table and each top-level module is
    the face, an entry or the floor: a new one is placed on purpose."""
    top = ROOT / "paramcount"
    folders = {p.name for p in top.iterdir() if p.is_dir() and p.name != "__pycache__"}
    files = {p.stem for p in top.glob("*.py")} - {"__init__"}
    assert folders == set(ALLOWED)
    assert files <= FLOOR | set(ENTRY)
    assert all((top / name / "__init__.py").is_file() for name in folders)


def test_the_top_level_keeps_at_most_a_dozen_modules() -> None:
    """``paramcount/`` holds at most a dozen modules of its own; everything else is in a package."""
    assert len(list((ROOT / "paramcount").glob("*.py"))) <= MOST_TOP_LEVEL_MODULES


def may_import(docstring: str) -> set[str]:
    """The packages a docstring's ``May import:`` paragraph names (the floor not counted)."""
    _, marker, rest = docstring.partition("May import:")
    assert marker, "no 'May import:' in the docstring"
    paragraph = rest.split("\n\n")[0]
    return set(re.findall(r"paramcount\.(\w+)", paragraph)) - FLOOR


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_each_package_names_what_it_may_import(package: str) -> None:
    """Each package's docstring says what it does and names, after ``May import:``, exactly the
    packages the table allows it."""
    tree = ast.parse((ROOT / "paramcount" / package / "__init__.py").read_text(encoding="utf-8"))
    docstring = ast.get_docstring(tree)
    assert docstring, f"paramcount/{package}/__init__.py has no docstring"
    assert may_import(docstring) == ALLOWED[package]


def test_every_package_says_what_it_does() -> None:
    """Every ``__init__.py`` under ``paramcount/``, sub-packages included, has a docstring."""
    bare = [str(path.relative_to(ROOT)) for path in sorted((ROOT / "paramcount").rglob(
        "__init__.py")) if not ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))]
    assert bare == []


def layout_table(text: str) -> dict[str, set[str]]:
    """The package rows of ``docs/layout.md``: the package in the first column, what it may
    import (as ``pkg/``) in the last."""
    rows = {}
    for line in text.splitlines():
        match = re.match(r"\|\s*`(\w+)/`\s*\|", line)
        if match:
            rows[match.group(1)] = set(re.findall(r"`(\w+)/`", line.rsplit("|", 2)[1]))
    return rows


def test_the_documented_map_is_the_table() -> None:
    """``docs/layout.md`` lists every package with exactly the imports the table allows it."""
    assert layout_table((ROOT / "docs" / "layout.md").read_text(encoding="utf-8")) == ALLOWED


def test_no_module_passes_a_thousand_lines() -> None:
    """Every module of paramcount is at most 1,000 lines long."""
    long = {
        str(path.relative_to(ROOT)): count
        for path in sorted((ROOT / "paramcount").rglob("*.py"))
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > MOST_LINES
    }
    assert long == {}


PLANTED = [
    ("upward", {"low/a.py": "from pkg.high import b\n", "high/b.py": ""},
     ["pkg.low.a -> pkg.high.b"]),
    ("lazy-upward", {"low/a.py": "def f():\n    from ..high.b import g\n", "high/b.py": ""},
     ["pkg.low.a -> pkg.high.b"]),
    ("type-checking", {"low/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                   "    import pkg.high.b\n", "high/b.py": ""},
     ["pkg.low.a -> pkg.high.b"]),
    ("the-face", {"low/a.py": "from pkg import thing\n"}, ["pkg.low.a -> pkg"]),
    ("floor-up", {"base.py": "from pkg.low import a\n", "low/a.py": ""}, ["pkg.base -> pkg.low.a"]),
    ("downward", {"high/b.py": "from pkg.low.a import f\nfrom pkg import base\n",
                  "low/a.py": "from . import c\n", "low/c.py": "", "base.py": ""}, []),
]


@pytest.mark.parametrize(("files", "wrong"), [p[1:] for p in PLANTED], ids=[p[0] for p in PLANTED])
def test_a_planted_import_is_judged(tmp_path: Path, files: dict[str, str],
                                    wrong: list[str]) -> None:
    """An import planted in a package is found when it points the wrong way, however written,
    and let be when it points down."""
    for folder in ("pkg", "pkg/low", "pkg/high"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("")
    for name, text in files.items():
        (tmp_path / "pkg" / name).write_text(text)
    allowed = {"low": set(), "high": {"low"}}
    assert wrong_way(tmp_path, "pkg", allowed, {"base"}, {}) == wrong
