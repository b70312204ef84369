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

from paramcount.record import HOT, FrozenRecordError, field, fields, record, replace


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


@pytest.mark.parametrize(("args", "kwargs"), [
    ((1,), {}), ((1, 2, "a", 4), {}), ((1, 2), {"z": 3}), ((1, 2), {"x": 3}), ((), {}),
], ids=["missing", "too-many", "unknown", "twice", "two-missing"])
def test_wrong_arguments_are_refused(args: tuple[object, ...], kwargs: dict[str, object]) -> None:
    """Missing, extra, unknown and doubled arguments raise the TypeError a dataclass's raise, in
    its words."""
    with pytest.raises(TypeError) as error:
        Point(*args, **kwargs)  # type: ignore[arg-type, misc]
    with pytest.raises(TypeError) as twin:
        Twin(*args, **kwargs)  # type: ignore[arg-type, misc]
    assert str(error.value).replace("Point", "Twin") == str(twin.value)


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


@record
class Tagged:
    """A record whose fields use :func:`paramcount.record.field`'s options."""

    x: int
    origin: object = field(default=None, compare=False, repr=False)
    note: str = field(default="", compare=False)
    given: int = field(kw_only=True)
    label: str = field(default="t", kw_only=True)


@dataclasses.dataclass(frozen=True)
class TaggedTwin:
    """The dataclass a Tagged stands for."""

    x: int
    origin: object = dataclasses.field(default=None, compare=False, repr=False)
    note: str = dataclasses.field(default="", compare=False)
    given: int = dataclasses.field(kw_only=True)
    label: str = dataclasses.field(default="t", kw_only=True)


TAGGED = st.tuples(st.integers(0, 2), st.sampled_from([None, "a"]), st.sampled_from(["", "n"]),
                   st.integers(0, 2), st.sampled_from(["t", "u"]))


@given(a=TAGGED, b=TAGGED)
def test_field_options_as_a_dataclass(a: tuple[int, object, str, int, str],
                                      b: tuple[int, object, str, int, str]) -> None:
    """compare=False leaves a field out of equality and hashing, repr=False out of the repr,
    and kw_only takes it by keyword alone, as ``dataclasses.field`` does."""
    def made(kind: type[Tagged] | type[TaggedTwin], x: int, origin: object, note: str,
             given: int, label: str) -> Tagged | TaggedTwin:
        return kind(x, origin, note, given=given, label=label)

    assert (made(Tagged, *a) == made(Tagged, *b)) == (made(TaggedTwin, *a) == made(TaggedTwin, *b))
    if made(Tagged, *a) == made(Tagged, *b):
        assert hash(made(Tagged, *a)) == hash(made(Tagged, *b))
    assert repr(made(Tagged, *a)).replace("Tagged", "TaggedTwin") == repr(made(TaggedTwin, *a))
    assert fields(Tagged) == fields(TaggedTwin) == ("x", "origin", "note", "given", "label")
    assert replace(made(Tagged, *a), given=9) == made(Tagged, *a[:3], 9, a[4])


@pytest.mark.parametrize(("args", "kwargs"), [
    ((1,), {}), ((1, None, "", 2), {}), ((1, None, "", 2), {"given": 2}),
], ids=["kw-only-missing", "kw-only-by-position", "kw-only-by-position-and-keyword"])
def test_keyword_only_fields_are_refused_by_position(args: tuple[object, ...],
                                                     kwargs: dict[str, object]) -> None:
    """A keyword-only field given by position, or not given, raises the TypeError a
    dataclass's raises; the class keeps each default as a class attribute, and none where a
    field has none."""
    with pytest.raises(TypeError) as error:
        Tagged(*args, **kwargs)  # type: ignore[misc]
    with pytest.raises(TypeError) as twin:
        TaggedTwin(*args, **kwargs)  # type: ignore[misc]
    assert str(error.value).replace("Tagged", "TaggedTwin") == str(twin.value)
    assert Tagged.label == TaggedTwin.label == "t" and not hasattr(Tagged, "given")


def test_a_class_built_often_gets_compiled_methods_that_behave_alike() -> None:
    """After ``HOT`` records of a class, its ``__init__``, ``__eq__`` and ``__hash__`` are
    compiled for its fields; records built before and after compare, hash, print and refuse
    wrong arguments alike, and ``__post_init__`` still runs."""

    @record
    class Often:
        x: int
        y: int = 2
        tag: str = field(default="", compare=False, kw_only=True)

        def __post_init__(self) -> None:
            if self.x < 0:
                raise ValueError("x must not be negative")

    early = [Often(1), Often(1, 3), Often(x=1, tag="a"), Often(1, y=3)]
    generic = Often.__init__
    for _ in range(HOT):
        Often(0)
    assert Often.__init__ is not generic
    late = [Often(1), Often(1, 3), Often(x=1, tag="a"), Often(1, y=3)]
    assert early == late and [hash(r) for r in early] == [hash(r) for r in late]
    assert [repr(r) for r in early] == [repr(r) for r in late]
    assert early[0] == early[2] and hash(early[0]) == hash(early[2])  # tag is not compared
    with pytest.raises(ValueError, match="negative"):
        Often(-1)
    with pytest.raises(TypeError, match="positional arguments but 4 were given"):
        Often(1, 2, "t")  # type: ignore[misc]
    with pytest.raises(FrozenRecordError):
        late[0].x = 5  # type: ignore[misc]


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

    with pytest.raises(TypeError, match="keyword-only fields come after"):
        @record
        class Scattered:
            x: int = field(default=0, kw_only=True)
            y: int = 0


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
