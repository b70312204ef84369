"""The indented JSON writer writes what ``json.dumps(indent=2, ensure_ascii=False)`` writes."""

from __future__ import annotations

import doctest
import json
from enum import IntEnum, StrEnum

from hypothesis import given
from hypothesis import strategies as st

from paramcount.render import indented_json
from paramcount.render.indented_json import indented

SCALARS = (st.none() | st.booleans() | st.integers() | st.floats()
           | st.text(alphabet=st.characters(codec="utf-8")))
KEYS = st.text() | st.integers() | st.booleans() | st.none() | st.floats()
VALUES = st.recursive(
    SCALARS,
    lambda inner: (st.lists(inner, max_size=4) | st.lists(inner, max_size=3).map(tuple)
                   | st.dictionaries(st.text(), inner, max_size=4)
                   | st.dictionaries(KEYS, inner, max_size=3)),
    max_leaves=30,
)


def stdlib(data: object) -> str:
    """What the standard library writes."""
    return json.dumps(data, indent=2, ensure_ascii=False)


@given(VALUES)
def test_same_text_as_the_standard_library(data: object) -> None:
    """Any JSON-like value (NaN, infinities, non-string keys and tuples included) is written
    as ``json.dumps`` writes it."""
    assert indented(data) == stdlib(data)


class Colour(StrEnum):
    """A string enum."""

    RED = "red"


class Size(IntEnum):
    """A whole-number enum."""

    LARGE = 3


def test_subclasses_are_written_as_their_base() -> None:
    """A str or int enum is written as json writes it: its value."""
    data = {"colour": Colour.RED, "size": Size.LARGE, "sizes": (Size.LARGE, 1.5)}
    assert indented(data) == stdlib(data)


def test_what_json_refuses_is_refused_alike() -> None:
    """A value json cannot write raises json's own error."""
    try:
        stdlib({"a": [object()]})
    except TypeError as expected:
        try:
            indented({"a": [object()]})
        except TypeError as error:
            assert str(error) == str(expected)
        else:
            raise AssertionError("no error") from None


def test_docstring_example() -> None:
    """The module's example runs."""
    assert doctest.testmod(indented_json).failed == 0
