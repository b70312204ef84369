"""``paramcount read`` on tables whose spacing was lost: every run of spaces squeezed to one, as
a page that does not keep a paste's spaces shows a summary (a post written without a code
block, a copy of a rendered page). No column position is left; the cells are told apart by
their forms. The tables are the real printers' (torchinfo, torchsummary, pytorch-model-summary,
Lightning, Keras 3, Keras 2 through tf-keras), squeezed, and read back as :func:`check` scores
them aligned: every layer exact or honestly ambiguous, totals true, no disagreement; a record
whose cells cannot be told apart is named, never read as another.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramcount.reading.pipeline import read
from paramcount.reading.tables.table import collapsed, squeezed_cells
from tests.printers import (
    KerasPlan,
    Paste,
    Score,
    TorchPlan,
    check,
    keras2_old_text,
    keras_built,
    keras_plans,
    keras_text,
    torch_pastes,
    torch_plans,
)
from tests.printers_more import squeeze, torch_more_pastes

SQUEEZABLE = ("torchinfo", "torchsummary", "pytorch-model-summary", "Lightning")
"""The torch printers whose tables are read by their columns (a repr and the dumps keep no
column apart: squeezing their spaces changes nothing they are read by)."""


def test_cells_are_told_apart_by_their_forms() -> None:
    """A shape, several shapes joined by ``, ``, a nested list and a count are each a cell; a
    bracket that does not close is no reading."""
    assert squeezed_cells("[2, 5, 16], [1, 2, 16] 1,248 1,248") == [
        "[2, 5, 16], [1, 2, 16]", "1,248", "1,248"]
    assert squeezed_cells("(None, 10, 32) 3200 ['input_1[0][0]', 'x[0][0]'] Y") == [
        "(None, 10, 32)", "3200", "['input_1[0][0]', 'x[0][0]']", "Y"]
    assert squeezed_cells("[(None, 400, 3)] 0 []") == ["[(None, 400, 3)]", "0", "[]"]
    assert squeezed_cells("(None, 10, 32 3200") is None


def test_a_squeezed_header_is_told_from_an_aligned_one() -> None:
    """Titles one space apart are a squeezed header; two spaces anywhere keep the columns."""
    titles = ("Layer (type)", "Output Shape", "Param #", "Connected to")
    assert collapsed(" Layer (type) Output Shape Param # Connected to ", titles) == list(
        titles)
    assert collapsed("Layer (type)   Output Shape Param #", titles) is None
    assert collapsed("Layer (type) Output Shape Size", titles) is None


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(torch_plans(), st.data())
def test_squeezed_torch_tables_read_as_aligned(plan: TorchPlan, data: st.DataObject) -> None:
    """Random torch models through every table printer, squeezed: no layer wrong, no total
    that is not the truth, no disagreement."""
    score = Score()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pastes = torch_pastes(plan, data.draw) + torch_more_pastes(plan, data.draw)
    for paste in pastes:
        if paste.printer.startswith(SQUEEZABLE):
            check(Paste(paste.printer, squeeze(paste.text), paste.truth, paste.total_printed),
                  score)
    assert not score.wrong, score.wrong[0]


@pytest.mark.keras
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(plan=keras_plans(), era=st.sampled_from([2, 3]), trainable=st.booleans())
def test_squeezed_keras_summaries_read_as_aligned(eras: dict[int, Any], plan: KerasPlan,
                                                  era: int, trainable: bool) -> None:
    """Random Keras models printed by Keras 3 and tf-keras at their default width, squeezed:
    every recurrent layer exact or honestly ambiguous, the total true, no disagreement (a
    cut class, ``(Bidirection`` with ``al)`` on the next line, joined again)."""
    built = keras_built(eras[era], plan)
    if built is None:
        return  # tf-keras' Sequential refuses a layer with two outputs
    model, truth = built
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = keras_text(model, era, show_trainable=trainable)
    score = Score()
    check(Paste(f"keras{era}", squeeze(text), truth), score)
    assert not score.wrong, score.wrong[0]


@pytest.mark.keras
def test_a_record_whose_cells_cannot_be_told_apart_is_named(eras: dict[int, Any]) -> None:
    """tf-keras' functional table at a width that wraps the Bidirectional's count (``320`` /
    ``0``), squeezed: that record is not read as 320; its lines are named, and the total is a
    bound."""
    k = eras[2]
    k.backend.clear_session()
    first = k.Input((10, 8))
    hidden = k.layers.GRU(4)(k.layers.Bidirectional(k.layers.LSTM(16, return_sequences=True))(
        first))
    model = k.Model(first, k.layers.Concatenate()([hidden, k.layers.Dense(3)(hidden)]))
    lines: list[str] = []
    model.summary(line_length=65, print_fn=lambda line, *a, **kw: lines.append(line))
    text = squeeze("\n".join(lines) + "\n")
    shown = text.split("\n")
    record = next(n for n, line in enumerate(shown, 1) if line.startswith(" bidirectional"))
    assert " 320 " in shown[record - 1] and shown[record].split()[-1] == "0", text
    answer = read(text)
    found = answer.models[0]
    assert found.total is None
    assert [u.line for u in found.accounting.unread] == [record, record + 1]
    assert "spacing was lost" in found.bound
    assert not any(layer.params == 320 for layer in found.layers)


@pytest.mark.keras
def test_an_old_keras2_table_squeezed_reads_its_cut_classes(eras: dict[int, Any]) -> None:
    """TF 1.x's table (cells cut at the column's edge, ``bidirectional_1 (Bidirecti``),
    squeezed as a page shows a post written without a code block: every row read, the cut
    classes taken for theirs, the total Keras' own."""
    k = eras[2]
    k.backend.clear_session()
    model = k.Sequential([
        k.layers.Embedding(640, 30, input_length=20),
        k.layers.Bidirectional(k.layers.LSTM(30, return_sequences=True)),
        k.layers.TimeDistributed(k.layers.Dense(10)),
        k.layers.Bidirectional(k.layers.GRU(16))])
    model.build((None, 20))
    text = squeeze(keras2_old_text(model, 65, [.45, .85, 1.]))
    assert " (Bidirection (None, 20, 60) " in text and " (Bidirecti (None, 32) " in text
    answer = read(text)
    found = answer.models[0]
    assert found.accounting.whole and not answer.disagreements
    assert found.total == found.printed_total == model.count_params()
    assert [layer.params for _, layer in answer.recurrent] == [
        model.layers[1].count_params(), model.layers[3].count_params()]


@pytest.mark.keras
def test_a_squeezed_record_wrapped_with_its_trainable_flag(eras: dict[int, Any]) -> None:
    """tf-keras' functional table with the Trainable column, squeezed: a record whose shapes
    and sources both wrap (``[(None, 3, 1),`` … ``'simple_rnn[0][1]']``, the ``Y`` on its
    first line) is joined cell by cell and read."""
    k = eras[2]
    k.backend.clear_session()
    first, second = k.Input((4, 1)), k.Input((3, 1))
    encoder = k.layers.SimpleRNN(1, return_state=True)
    states = encoder(k.layers.TimeDistributed(k.layers.Dense(1))(first))[1:]
    decoded = k.layers.SimpleRNN(1, return_sequences=True, return_state=True)(
        second, initial_state=list(states))[0]
    model = k.Model([first, second], [k.layers.Dense(2)(decoded)])
    lines: list[str] = []
    model.summary(show_trainable=True, print_fn=lambda line, *a, **kw: lines.append(line))
    text = squeeze("\n".join(lines) + "\n")
    assert re.search(r"\[\(None, 3, 1\), \d+ \['input_\d+\[0\]\[0\]', Y", text), text
    answer = read(text)
    found = answer.models[0]
    assert found.accounting.whole, found.bound
    assert found.total == model.count_params()
    assert len(answer.recurrent) == 2


def test_a_cell_after_a_conv_lists_the_width_of_its_channels() -> None:
    """A GRUCell after a Conv1d in pytorch-model-summary's table: the row above prints
    (batch, channels, length), so its last axis is no width; the fit of the truth, 5 channels
    without biases, is listed beside the default options' fit (18 = 3·(3+1+2) = 3·(5+1))."""
    pytest.importorskip("pytorch_model_summary")
    import torch
    from pytorch_model_summary import summary
    from torch import nn

    class Net(nn.Module):
        """A Conv1d, then a GRUCell reading its channels at the last step."""

        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv1d(1, 5, 1)
            self.cell = nn.GRUCell(5, 1, bias=False)

        def forward(self, x: Any) -> Any:
            """The cell reads the convolution's channels, transposed."""
            return self.cell(self.conv(x.transpose(1, 2)).transpose(1, 2)[:, -1])

    text = summary(Net(), torch.zeros(2, 3, 1))
    for shown in (text, squeeze(text)):
        layer = next(layer for _, layer in read(shown).recurrent)
        assert layer.solution is not None
        assert "nn.GRUCell(5, 1, bias=False)" in [fit.text for fit in layer.solution.choices]


@pytest.mark.keras
def test_a_narrow_squeezed_table_names_what_it_could_not_read(eras: dict[int, Any]) -> None:
    """tf-keras' table at a width that wraps ``Param #`` and the counts, squeezed: records
    whose cells cannot be told apart are named, the printed total is kept, no count is
    claimed that is not the layer's, and no total is claimed as exact."""
    k = eras[2]
    k.backend.clear_session()
    first = k.Input((10, 8))
    hidden = k.layers.GRU(4)(k.layers.Bidirectional(k.layers.LSTM(16, return_sequences=True))(
        first))
    model = k.Model(first, k.layers.Concatenate()([hidden, k.layers.Dense(3)(hidden)]))
    lines: list[str] = []
    model.summary(line_length=65, print_fn=lambda line, *a, **kw: lines.append(line))
    text = squeeze("\n".join(lines) + "\n")
    assert " Par Connected to" in text  # the header's count cell wrapped: ``Par`` / ``am``
    answer = read(text)
    found = answer.models[0]
    assert found.total is None and found.printed_total == model.count_params()
    assert "spacing was lost" in found.bound
    truth = {layer.name: layer.count_params() for layer in model.layers}
    assert all(layer.params == truth[layer.name] for layer in found.layers
               if layer.params is not None)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(torch_plans(), st.data(), st.sampled_from(["\xa0", "\u202f", "\u2007"]))
def test_spaces_a_web_page_puts_read_as_spaces(plan: TorchPlan, data: st.DataObject,
                                              space: str) -> None:
    """Every torch printer's paste with its spaces turned into a page's no-break (or narrow,
    or figure) spaces, as a copy from a rendered notebook has them: read as with spaces."""
    score = Score()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pastes = torch_pastes(plan, data.draw) + torch_more_pastes(plan, data.draw)
    for paste in pastes:
        check(Paste(paste.printer, paste.text.replace(" ", space), paste.truth,
                    paste.total_printed), score)
    assert not score.wrong, score.wrong[0]


def test_code_copied_with_no_break_spaces_and_a_byte_order_mark_is_read() -> None:
    """Code with its indentation in no-break spaces and a byte-order mark before it."""
    code = ("\ufeffimport torch.nn as nn\nclass Net(nn.Module):\n    def __init__(self):\n"
            "        super().__init__()\n        self.rnn = nn.GRU(10, 20)\n")
    answer = read(code.replace(" ", "\xa0"))
    assert [(m.source, m.total) for m in answer.models] == [("code", 3 * 20 * (10 + 20 + 2))]


@pytest.mark.keras
def test_a_class_cut_to_a_letter_is_told_by_the_name_keras_gave_the_layer(
        eras: dict[int, Any]) -> None:
    """TF 1.x's table at a width that cuts ``bidirectional_29 (Bidirectional)`` to
    ``bidirectional_29 (B``: ``B`` may be Bidirectional or BatchNormalization, and the name
    Keras gave the layer says which (it was left a class of no count, the LSTM not found)."""
    k = eras[2]
    k.backend.clear_session()
    model = k.Sequential([k.layers.Embedding(5, 4, input_length=4),
                          k.layers.Bidirectional(k.layers.LSTM(4, use_bias=False,
                                                               return_sequences=True),
                                                 name="bidirectional_29")])
    model.build((None, 4))
    text = keras2_old_text(model, 50, [.45, .85, 1.])
    assert re.search(r"bidirectional_29 \(B\s", text), text
    answer = read(text)
    (layer,) = [layer for _, layer in answer.recurrent]
    assert layer.params == model.layers[1].count_params()
    assert answer.models[0].total == model.count_params()
