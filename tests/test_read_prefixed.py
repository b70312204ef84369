"""``paramcount read`` on printouts whose every line carries a prefix, as posts carry them:
indented four spaces or a tab (a Markdown code block written by indentation, the way Stack
Overflow posts were written before fences), quoted (``> ``, a Markdown quote), or commented out
in the code they were pasted with (``# Total params: 618``). The real printers' outputs of
random models, each prefixed, are read back as :func:`check` scores them bare.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramcount.engine.spec import Cell
from paramcount.reading.pipeline import read
from tests.printers import (
    KerasPlan,
    Paste,
    Score,
    TorchPlan,
    check,
    keras_built,
    keras_plans,
    keras_text,
    torch_pastes,
    torch_plans,
)
from tests.printers_more import PREFIXES, Post, check_post, prefixed, torch_more_pastes


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(torch_plans(), st.data(), st.sampled_from(PREFIXES))
def test_prefixed_torch_printouts_read_as_bare(plan: TorchPlan, data: st.DataObject,
                                               prefix: str) -> None:
    """Every torch printer's paste of a random model, prefixed: no layer wrong, no total that
    is not the truth, no disagreement."""
    score = Score()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pastes = torch_pastes(plan, data.draw) + torch_more_pastes(plan, data.draw)
    for paste in pastes:
        check(Paste(paste.printer, prefixed(paste.text, prefix), paste.truth,
                    paste.total_printed), score)
    assert not score.wrong, score.wrong[0]


@pytest.mark.keras
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(plan=keras_plans(), era=st.sampled_from([2, 3]), prefix=st.sampled_from(PREFIXES))
def test_prefixed_keras_summaries_read_as_bare(eras: dict[int, Any], plan: KerasPlan, era: int,
                                               prefix: str) -> None:
    """Random Keras models' summaries (Keras 3 and tf-keras), prefixed: read as bare."""
    built = keras_built(eras[era], plan)
    if built is None:
        return  # tf-keras' Sequential refuses a layer with two outputs
    model, truth = built
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = keras_text(model, era)
    score = Score()
    check(Paste(f"keras{era}", prefixed(text, prefix), truth), score)
    assert not score.wrong, score.wrong[0]


NARROW_PLANS = [
    (2, 30, KerasPlan(False, 18, 9, (("rnn", (Cell.LSTM, 8, False, None, "sum")),))),
    (2, 45, KerasPlan(False, None, 3, (("rnn", (Cell.GRU, 5, True, False, None)),
                                       ("dense", 2)))),
    (2, 70, KerasPlan(True, 12, 4, (("rnn", (Cell.RNN, 3, True, None, "concat")),),
                      (Cell.LSTM, 4, 2))),
    (3, 40, KerasPlan(False, 18, 9, (("rnn", (Cell.LSTM, 8, False, None, "sum")),))),
]
"""Narrow summaries, whose header cells wrap (``Layer (typ`` / ``e)``): tf-keras' Sequential
and functional tables and Keras 3's box."""


@pytest.mark.keras
@pytest.mark.parametrize("prefix", PREFIXES, ids=repr)
@pytest.mark.parametrize(("era", "width", "plan"), NARROW_PLANS,
                         ids=["keras2-30", "keras2-45", "keras2-functional-70", "keras3-40"])
def test_prefixed_narrow_keras_summaries_read_as_bare(eras: dict[int, Any], era: int,
                                                      width: int, plan: KerasPlan,
                                                      prefix: str) -> None:
    """A narrow Keras summary (its header wrapped), prefixed: read as bare, its total whole (a
    commented-out narrow tf-keras table was "nothing countable found")."""
    built = keras_built(eras[era], plan)
    assert built is not None
    model, truth = built
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = keras_text(model, era, width)
    score = Score()
    answer = check(Paste(f"keras{era}", prefixed(text, prefix), truth), score)
    assert not score.wrong, score.wrong[0]
    assert [m.total for m in answer.models] == [truth.total]


@pytest.mark.keras
def test_commented_narrow_keras_2_table_beside_a_cropped_keras_3_one(
        eras: dict[int, Any]) -> None:
    """The post ``benchmarks/read_accuracy.py --quick`` scored wrong: a narrow tf-keras summary
    commented out, prose, and the Keras 3 summary of the same model cropped above its rows,
    fenced, the whole pasted flush left. The commented table is read whole (it was "nothing
    countable found"), the crop named, no total but the truth."""
    plan = NARROW_PLANS[0][2]
    built = [keras_built(eras[era], plan) for era in (2, 3)]
    assert built[0] is not None and built[1] is not None
    (old, truth), (new, _) = built[0], built[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        commented = prefixed(keras_text(old, 2, 30), "# ").rstrip("\n").split("\n")
        boxed = keras_text(new, 3, None, True).rstrip("\n").split("\n")
    cropped = boxed[next(i for i, line in enumerate(boxed) if line.startswith("┡")):]
    prose = "Hi all, I am confused by the parameter count of my model."
    lines = [*commented, "", prose, "", "```", *cropped, "```", ""]
    spans = ((1, len(commented)), (len(commented) + 5, len(commented) + 4 + len(cropped)))
    post = Post("\n".join(line.lstrip() for line in lines),
                (Paste("Keras 2 summary()", "\n".join(commented), truth),
                 Paste("Keras 3 summary()", "\n".join(cropped), truth)),
                (False, True), "Keras 2 prefixed '# ', crop top of Keras 3, fence, flush",
                spans, (0, 0))
    score = Score()
    answer = check_post(post, score)
    assert not score.wrong, score.wrong[0]
    assert answer is not None
    assert [m.total for m in answer.models] == [truth.total]
    assert any("cut off above its header" in note for note in answer.notes)


def test_output_commented_out_under_its_code_is_the_code_s_printout() -> None:
    """Code, then its ``print(model)`` output commented out below it: both read, they agree,
    and a commented-out layer of the code itself is not counted."""
    from torch import nn

    net = nn.Sequential(nn.Embedding(50, 8), nn.LSTM(8, 4, num_layers=2))
    shown = "\n".join("# " + line for line in str(net).split("\n"))
    paste = ("import torch.nn as nn\n"
             "model = nn.Sequential(nn.Embedding(50, 8), nn.LSTM(8, 4, num_layers=2))\n"
             "# model.add_module('extra', nn.GRU(4, 4))\n"
             "print(model)\n" + shown + "\n")
    answer = read(paste)
    totals = sorted((m.source, m.total) for m in answer.models)
    count = sum(p.numel() for p in net.parameters())
    assert totals == [("code", count), ("repr", count)]
    assert not answer.disagreements
