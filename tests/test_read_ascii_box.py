"""``paramcount read`` on Keras 3 summaries drawn in ASCII: rich draws ``+---+`` edges, ``|``
bars and ``|---+---|`` rules where the console cannot show box characters (an ASCII or cp1252
console, a log piped on Windows). Random Keras models printed by Keras 3 itself into such a
console are read back as :func:`check` scores the box-drawn tables: every recurrent layer
exact or honestly ambiguous, totals true, no disagreement.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramcount.reading.pipeline import read
from tests.conftest import have
from tests.printers import KerasPlan, Paste, Score, build_keras, check, keras_plans

pytestmark = [pytest.mark.keras,
              pytest.mark.skipif(not have("keras"), reason="needs keras 3")]


@pytest.fixture(scope="module")
def keras3() -> Iterator[Any]:
    """Keras 3, imported once, quietly."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import keras
    yield keras


def ascii_summary(model: Any, line_length: int | None = None,
                  show_trainable: bool = False) -> str:
    """``model.summary()`` as Keras 3 prints it into a console whose encoding is ASCII."""
    raw = io.BytesIO()
    console = io.TextIOWrapper(raw, encoding="ascii", errors="replace")
    with contextlib.redirect_stdout(console):
        model.summary(line_length=line_length, show_trainable=show_trainable)
    console.flush()
    return raw.getvalue().decode("ascii")


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(plan=keras_plans(), width=st.sampled_from([None, 70, 120]), trainable=st.booleans())
def test_ascii_keras3_summaries_read_as_box_drawn(keras3: Any, plan: KerasPlan,
                                                  width: int | None, trainable: bool) -> None:
    """Random Keras models in Keras 3's ASCII table, at several widths (a narrow one wraps
    cells), with or without the Trainable column: read as the box-drawn table is."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, truth = build_keras(keras3, plan)
        try:
            text = ascii_summary(model, width, trainable)
        except ValueError as error:
            if "Insufficient console width" in str(error):
                return
            raise
    assert "+--" in text and "┃" not in text
    score = Score()
    check(Paste("keras3 ascii", text, truth), score)
    assert not score.wrong, score.wrong[0]


def test_an_ascii_table_is_read_line_for_line(keras3: Any) -> None:
    """A Bidirectional LSTM then a GRU in the ASCII table: both rows read on their own lines,
    the total Keras' own, nothing unread."""
    model = keras3.Sequential([keras3.Input((5, 3)),
                               keras3.layers.Bidirectional(keras3.layers.LSTM(
                                   4, return_sequences=True)),
                               keras3.layers.GRU(2)])
    text = ascii_summary(model)
    answer = read(text)
    found = answer.models[0]
    assert found.accounting.whole and found.total == model.count_params()
    lines = text.split("\n")
    names = [layer.name for layer in model.layers]
    assert [lines[layer.line - 1].split("|")[1].split()[0] for _, layer in answer.recurrent] == (
        names)
