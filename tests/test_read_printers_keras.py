"""``paramcount read`` on what Keras 3 and Keras 2 (tf-keras) ``summary()`` really print.

Random Keras models (SimpleRNN, GRU with either ``reset_after``, LSTM, ``Bidirectional`` with
every merge mode, ``TimeDistributed``, Dense, Conv1D, norms; functional encoder–decoders with
two inputs and two outputs, passing states) are built with both Keras versions, printed by
their own ``summary()``, and read back: every recurrent layer exact or honestly ambiguous,
never wrong; totals equal to ``count_params()``; no disagreement claimed while every printed
count is true, one found when a count is changed.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramcount.engine.spec import Cell, Framework, LayerSpec, MergeMode
from paramcount.reading.pipeline import read
from tests.conftest import CLI, have
from tests.printers import (
    KerasPlan,
    Paste,
    Score,
    altered,
    build_keras,
    check,
    keras_plans,
    keras_text,
    tf_keras_prints,
)

pytestmark = [pytest.mark.keras,
              pytest.mark.skipif(not (have("keras") and have("tensorflow") and have("tf_keras")),
                                 reason="needs keras 3, tensorflow and tf-keras")]


REFUSALS = ("single output tensor", "Insufficient console width")
"""What tf-keras' Sequential (a layer with two outputs) and Keras 3's ``summary()`` (a width
too narrow for its table) refuse with."""


def printed(keras: Any, era: int, plan: KerasPlan, width: int | None = None,
            trainable: bool = False) -> Paste | None:
    """``plan`` built with one Keras and printed by its ``summary()``, at the default width or
    ``width`` (a narrow one wraps every cell, a wide one is cropped by the console), with or
    without the Trainable column (None where that Keras refuses the model or the width)."""
    if era == 2 and width is not None and not tf_keras_prints(plan.functional, width,
                                                             trainable):
        return None  # tf-keras would loop for ever
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            model, truth = build_keras(keras, plan)
            return Paste(f"keras{era}", keras_text(model, era, width, trainable), truth)
        except ValueError as error:
            if any(refusal in str(error) for refusal in REFUSALS):
                return None
            raise


@settings(max_examples=10, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(plan=keras_plans(), seed=st.integers(0, 99),
       width=st.one_of(st.none(), st.integers(50, 140)), trainable=st.booleans())
def test_keras_summaries_read_back_never_wrong(eras: dict[int, Any], plan: KerasPlan,
                                               seed: int, width: int | None,
                                               trainable: bool) -> None:
    """Both eras' summary of a random model, at any width, with or without the Trainable
    column: no recurrent layer read wrong, totals equal to Keras', no disagreement claimed; a
    changed count found wherever every row's count is printed."""
    score = Score()
    for era, keras in eras.items():
        paste = printed(keras, era, plan, width, trainable)
        if paste is None:
            continue
        check(paste, score)
        changed = altered(paste, seed)
        if width is None:
            assert changed is not None, paste.text
        if changed is not None:
            assert read(changed).disagreements, (paste.printer, changed)
    assert not score.wrong, score.wrong[0]


@settings(max_examples=12, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(plan=keras_plans(), width=st.integers(30, 70), trainable=st.booleans())
def test_narrow_summaries_wrap_their_header_cells(eras: dict[int, Any], plan: KerasPlan,
                                                  width: int, trainable: bool) -> None:
    """A narrow summary stacks its header cells' fragments (tf-keras: ``Pa`` / ``ra`` / ``m``
    / ``#``; Keras 3: ``Par…`` / ``#``): they are joined into the titles, so every recurrent
    layer's count is read, equal to ``count_params()`` (unknown only where Keras 3 cut the
    count itself to ``…``), and none is read wrong."""
    for era, keras in eras.items():
        paste = printed(keras, era, plan, width, trainable)
        if paste is None:
            continue
        score = Score()
        answer = check(paste, score)
        lines = paste.text.split("\n")
        for (_, layer), count in zip(answer.recurrent, paste.truth.counts, strict=True):
            assert layer.line is not None
            cut = era == 3 and "…" in lines[layer.line - 1].split("│")[3]
            assert layer.printed == (None if cut else count), paste.text
        assert not score.wrong, score.wrong[0]


ENCODER_DECODER = KerasPlan(True, None, 15, (("rnn", (Cell.LSTM, 256, True, None, None)),),
                            (Cell.LSTM, 256, 20))


@pytest.mark.parametrize("era", [2, 3])
def test_encoder_decoder_with_return_state(eras: dict[int, Any], era: int) -> None:
    """A classic encoder–decoder: multi-line output shapes, ``Connected to``, states passed;
    every recurrent layer found and sized from the widths its inputs print."""
    paste = printed(eras[era], era, ENCODER_DECODER)
    assert paste is not None
    if era == 2:
        assert "[(None, 256)," in paste.text and "Connected to" in paste.text
    score = Score()
    answer = check(paste, score)
    assert score.counts[paste.printer, "exact"] == 3, paste.text
    specs = [layer.spec for _, layer in answer.recurrent]
    assert specs[1] == LayerSpec(Cell.LSTM, 256, 256, framework=Framework.KERAS)
    assert specs[2] == LayerSpec(Cell.LSTM, 20, 256, framework=Framework.KERAS)


def test_keras2_wraps_names_and_eight_digit_counts(eras: dict[int, Any]) -> None:
    """tf-keras cuts ``name (Type)`` and a count wider than its column onto the next lines;
    both are put back together, and the count is read whole."""
    plan = KerasPlan(True, None, 3000, (("rnn", (Cell.GRU, 1024, True, False, "concat")),),
                     (Cell.RNN, 2, 1))
    paste = printed(eras[2], 2, plan)
    assert paste is not None
    big = paste.truth.counts[0]
    assert big >= 10_000_000 and str(big) not in paste.text  # wrapped across two lines
    assert f"{paste.truth.names[0]} (Bidirectional)" not in paste.text  # the cell wrapped
    answer = check(paste, Score())
    layer = next(x for _, x in answer.recurrent)
    assert (layer.name, layer.printed) == (paste.truth.names[0], big)
    assert layer.spec is not None and layer.spec.reset_after is False


@pytest.mark.parametrize("merge", ["concat", "sum", "mul", "ave", "none"])
def test_bidirectional_merge_modes(eras: dict[int, Any], merge: str) -> None:
    """Every merge mode, as Keras 3 prints it: the hidden size from the output width, the
    merge mode named where the width tells it, the three that keep H named together."""
    plan = KerasPlan(False, None, 6, (("rnn", (Cell.LSTM, 4, True, None, merge)),))
    paste = printed(eras[3], 3, plan)
    assert paste is not None
    score = Score()
    answer = check(paste, score)
    assert score.counts[paste.printer, "exact"] + score.counts[
        paste.printer, "ambiguous"] == 1
    (layer,) = [x for _, x in answer.recurrent]
    if merge in ("sum", "mul", "ave") and layer.spec is not None:
        assert layer.spec.merge_modes == (MergeMode.SUM,)
        assert any("sum, mul or ave" in note for note in layer.notes)


@pytest.mark.parametrize("era", [2, 3])
def test_the_command_reads_both_eras(eras: dict[int, Any], era: int, cli: CLI,
                                     tmp_path: Path) -> None:
    """``paramcount read FILE --json`` on each era's summary of the encoder–decoder: exit 0,
    every recurrent layer sized, the model's total."""
    paste = printed(eras[era], era, ENCODER_DECODER)
    assert paste is not None
    path = tmp_path / "summary.txt"
    path.write_text(paste.text)
    result = cli("read", str(path), "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert [(r["input"], r["hidden"], r["params"]) for r in data["recurrent"]] == [
        (spec.input_size, spec.hidden_size, count)
        for spec, count in zip(paste.truth.specs, paste.truth.counts, strict=True)]
    assert data["models"][0]["total"] == paste.truth.total


def test_a_functional_table_cropped_at_a_column_edge_takes_no_row_above(
        eras: dict[int, Any]) -> None:
    """Keras 3's functional table cropped by the console: where the crop falls just after a
    column's edge the header still ends with ``┃``, but its Connected to column is gone; no
    layer's input is then taken from the row above (the decoder reads the encoder's output,
    not the Input row printed above it). Every width from 50 to 140 is printed."""
    plan = KerasPlan(True, 12, 10, (("rnn", (Cell.GRU, 7, True, True, "sum")),),
                     (Cell.GRU, 1, 5))
    edges = 0
    for width in range(50, 141):
        paste = printed(eras[3], 3, plan, width)
        assert paste is not None
        header = next(line for line in paste.text.splitlines() if "Layer (type)" in line)
        if "Connected" not in paste.text and header.rstrip().endswith("┃"):
            edges += 1
        score = Score()
        check(paste, score)
        assert not score.wrong, score.wrong[0]
    assert edges, "no width cropped the table at a column's edge"
