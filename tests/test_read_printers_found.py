"""Printers found in the package lists (issue 36, item 2), each run at test time on real
models and its output read back against the framework's own count."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from paramcount.reading.pipeline import read
from tests.conftest import have
from tests.printers import Score, check
from tests.printers_found import HaikuPlan, haiku_paste, haiku_plans

needs_haiku = pytest.mark.skipif(not have("haiku"), reason="needs dm-haiku")


def _only(text: str) -> Any:
    """The answer's one model, and that answer has no disagreement."""
    answer = read(text)
    assert len(answer.models) == 1, [(m.source, m.name) for m in answer.models]
    assert not answer.disagreements
    return answer.models[0]


@needs_haiku
def test_haiku_module_called_every_step_is_counted_once() -> None:
    """An ``hk.LSTM(32)`` unrolled over 7 steps prints 8 ``lstm`` rows and 7 ``lstm/linear``
    rows, each with the whole count: read once each, the exact 6,437, and the answer says
    which modules were called more than once (it read "at least 94,245" before)."""
    paste = haiku_paste(HaikuPlan(16, 7, (("LSTM", 32),), False, 5))
    assert paste.truth.total == 6_437
    model = _only(paste.text)
    assert model.total == 6_437
    assert model.accounting.whole
    assert any("lstm/linear (7 calls)" in note for note in model.notes), model.notes


@needs_haiku
def test_haiku_tensor_cells_are_read_as_tensors() -> None:
    """The ``Module params`` cells (``w: f32[48,128]``) are read as the tensors they are,
    named by haiku's own paths."""
    model = _only(haiku_paste(HaikuPlan(16, 3, (("LSTM", 32),), True, 5)).text)
    assert {(name, shape) for name, shape, _ in model.tensors} == {
        ("lstm/linear/w", (48, 128)), ("lstm/linear/b", (128,)), ("linear/w", (32, 5)),
        ("linear/b", (5,))}


@needs_haiku
def test_haiku_row_count_that_disagrees_is_named() -> None:
    """A ``Param count`` cell changed so the tensors under its module no longer add up to it:
    no exact total, and the answer names the module."""
    text = haiku_paste(HaikuPlan(4, 2, (("GRU", 8),), False, 3)).text
    changed = re.sub(r"(\| linear \(Linear\).*\|\s+)27( \|)", r"\g<1>28\2", text)
    assert changed != text, text
    model = _only(changed)
    assert model.total is None
    assert any("linear" in note and "28" in note for note in model.accounting.cropped), (
        model.accounting)


@needs_haiku
@given(haiku_plans())
@settings(max_examples=4, deadline=None, database=None, phases=[Phase.generate],
          suppress_health_check=list(HealthCheck))
def test_random_haiku_models(plan: HaikuPlan) -> None:
    """Random haiku models, unrolled statically or dynamically, read with the exact total."""
    score = Score()
    check(haiku_paste(plan), score)
    assert not score.wrong, score.wrong
