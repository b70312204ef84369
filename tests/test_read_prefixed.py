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
from tests.printers_more import PREFIXES, prefixed, torch_more_pastes


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
