"""``@record`` behaves as ``@dataclass(frozen=True)`` for everything paramcount uses."""

from __future__ import annotations

import ast
import copy
import dataclasses
import pickle
import subprocess
import sys
from pathlib import Path
from typing import ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paramcount.record import FrozenRecordError, fields, record, replace


@record
class Point:
    """A record with a default and a check after construction."""

    x: int
    y: int
    label: str = "p"

    def __post_init__(self) -> None:
        if self.x < 0:
            raise ValueError("x must not be negative")
        object.__setattr__(self, "label", self.label.strip())


@dataclasses.dataclass(frozen=True)
class Twin:
    """The dataclass a Point stands for."""

    x: int
    y: int
    label: str = "p"

    def __post_init__(self) -> None:
        if self.x < 0:
            raise ValueError("x must not be negative")
        object.__setattr__(self, "label", self.label.strip())


VALUES = st.tuples(st.integers(0, 5), st.integers(-5, 5), st.sampled_from(["p", " q ", ""]))


@given(a=VALUES, b=VALUES)
def test_equality_hash_and_repr_as_a_dataclass(a: tuple[int, int, str],
                                               b: tuple[int, int, str]) -> None:
    """Equal exactly when the dataclass twins are; equal records hash alike; the same repr."""
    assert (Point(*a) == Point(*b)) == (Twin(*a) == Twin(*b))
    if Point(*a) == Point(*b):
        assert hash(Point(*a)) == hash(Point(*b))
    assert repr(Point(*a)).replace("Point", "Twin") == repr(Twin(*a))
    assert Point(*a) != Twin(*a)  # another class is never equal
    assert Point(a[0], y=a[1], label=a[2]) == Point(*a)


def test_defaults_post_init_and_replace() -> None:
    """Defaults fill in, __post_init__ runs on construction and again on replace."""
    assert Point(1, 2).label == "p" and Point(1, 2, " q ").label == "q"
    moved = replace(Point(1, 2, "a"), y=7)
    assert moved == Point(1, 7, "a")
    with pytest.raises(ValueError, match="negative"):
        replace(moved, x=-1)
    assert fields(Point) == fields(moved) == ("x", "y", "label")


@pytest.mark.parametrize(("args", "kwargs", "message"), [
    ((1,), {}, "missing required argument 'y'"),
    ((1, 2, "a", 4), {}, "takes 3 arguments"),
    ((1, 2), {"z": 3}, "unexpected keyword argument 'z'"),
    ((1, 2), {"x": 3}, "several values for 'x'"),
])
def test_wrong_arguments_are_refused(args: tuple[object, ...], kwargs: dict[str, object],
                                     message: str) -> None:
    """Missing, extra, unknown and doubled arguments raise TypeError, as a dataclass's do."""
    with pytest.raises(TypeError, match=message):
        Point(*args, **kwargs)  # type: ignore[arg-type, misc]
    with pytest.raises(TypeError):
        Twin(*args, **kwargs)  # type: ignore[arg-type, misc]


def test_records_of_no_or_one_field() -> None:
    """A record without fields (a convention with only methods) or with one compares and
    hashes like its dataclass twin."""

    @record
    class Empty:
        def name(self) -> str:
            return "empty"

    @record
    class One:
        x: int

    assert Empty() == Empty() and hash(Empty()) == hash(Empty())
    assert repr(Empty()).endswith(".Empty()")
    assert One(1) == One(1) != One(2) and hash(One(1)) == hash(One(1))
    assert repr(One(1)).endswith("One(x=1)")


def test_frozen() -> None:
    """Fields cannot be assigned or deleted."""
    point = Point(1, 2)
    with pytest.raises(FrozenRecordError):
        point.x = 3  # type: ignore[misc]
    with pytest.raises(FrozenRecordError):
        del point.x  # type: ignore[misc]
    assert isinstance(FrozenRecordError("x"), AttributeError)


def test_copies_and_pickles() -> None:
    """copy, deepcopy and pickle give equal records."""
    point = Point(1, 2, "a")
    assert copy.copy(point) == copy.deepcopy(point) == pickle.loads(pickle.dumps(point)) == point


def test_the_count_path_loads_no_dataclasses() -> None:
    """The reason records exist: the count path starts without dataclasses (and so without
    inspect, ast, dis, tokenize)."""
    code = ("import sys, paramcount.record, paramcount.engine.spec, paramcount.engine.report\n"
            "print(sorted({'dataclasses', 'inspect', 'ast'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_what_records_do_not_do_is_refused() -> None:
    """ClassVar fields and inherited fields, which a dataclass handles and a record does not,
    are refused when the class is made, not mishandled later."""
    with pytest.raises(TypeError, match="plain fields only"):
        @record
        class WithClassVar:
            x: int
            limit: ClassVar[int] = 3

    with pytest.raises(TypeError, match="plain fields only"):
        @record
        class Child(Point):
            z: int = 0


def test_one_replace_and_fields_for_records_and_dataclasses() -> None:
    """``replace`` and ``fields`` take a dataclass as they take a record (so a class may turn
    from one into the other without its callers changing), and refuse anything else."""
    moved = replace(Twin(1, 2, "a"), y=7)
    assert moved == Twin(1, 7, "a") and fields(Twin) == fields(moved) == ("x", "y", "label")
    with pytest.raises(ValueError, match="negative"):
        replace(moved, x=-1)
    with pytest.raises(TypeError, match="record or a dataclass"):
        replace((1, 2), x=3)
    with pytest.raises(TypeError, match="record or a dataclass"):
        fields(3)


def dataclass_copies(source: str) -> list[str]:
    """Where ``source`` copies or lists fields with ``dataclasses`` itself (``replace`` or
    ``fields`` named through the module, any alias of it, or imported from it), which raises
    TypeError at run time on a record: ``paramcount.record``'s take both kinds."""
    tree = ast.parse(source)
    aliases = {a.asname or a.name for node in ast.walk(tree) if isinstance(node, ast.Import)
               for a in node.names if a.name == "dataclasses"}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "dataclasses":
            found += [f"{node.lineno}: from dataclasses import {a.name}" for a in node.names
                      if a.name in ("replace", "fields")]
        elif (isinstance(node, ast.Attribute) and node.attr in ("replace", "fields")
              and isinstance(node.value, ast.Name) and node.value.id in aliases):
            found.append(f"{node.lineno}: {node.value.id}.{node.attr}")
    return found


@pytest.mark.parametrize(("source", "found"), [
    ("import dataclasses\nx = dataclasses.replace(y, a=1)\n", ["2: dataclasses.replace"]),
    ("import dataclasses as dc\nfor f in dc.fields(y): pass\n", ["2: dc.fields"]),
    ("def f():\n    from dataclasses import dataclass, replace\n",
     ["2: from dataclasses import replace"]),
    ("from dataclasses import fields as names\n", ["1: from dataclasses import fields"]),
    ("import dataclasses\nfrom paramcount.record import replace\nreplace(y)\n"
     "dataclasses.is_dataclass(y)\n'a'.replace('a', 'b')\n", []),
], ids=["module", "alias", "imported", "imported-as", "allowed"])
def test_a_planted_dataclass_copy_is_found(source: str, found: list[str]) -> None:
    """The scan below finds ``dataclasses.replace``/``fields`` however named, and lets other
    ``dataclasses`` names and other ``replace`` methods be."""
    assert dataclass_copies(source) == found


def test_paramcount_copies_with_its_own_replace() -> None:
    """No module of paramcount but ``record`` calls ``dataclasses.replace`` or ``fields``: each
    copies with ``paramcount.record.replace``, which takes records and dataclasses alike."""
    root = Path(__file__).resolve().parent.parent / "paramcount"
    found = {str(path.relative_to(root)): copies for path in sorted(root.rglob("*.py"))
             if path.name != "record.py" or path.parent != root
             if (copies := dataclass_copies(path.read_text(encoding="utf-8")))}
    assert found == {}
