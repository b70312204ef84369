"""``paramcount read`` on code rewritten in ways that keep its meaning (issue 36): trailing
comments, blank lines, names changed, calls broken over lines and quotes swapped, keyword ↔
positional arguments, a size hoisted into a constant, the code split into two fences with prose
between, ``print(model)`` added, and all of them at once (:mod:`tests.metamorphic`). Every code
paste the suite names and code generated at random for torch and Keras plans must give the
same models with the same totals as the code as written."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramcount.errors import ParamcountError
from paramcount.reading.pipeline import read
from tests.metamorphic import REWRITES, Rewrite, named_pastes
from tests.printers import KerasPlan, TorchPlan, keras_plans, torch_plans
from tests.printers_code import keras_code, torch_code

GENERATED = settings(max_examples=12, deadline=None, database=None, derandomize=True,
                     suppress_health_check=list(HealthCheck))
"""The same generated code on every run."""

NAMED = named_pastes()


def models(text: str) -> Any:
    """What ``read`` finds in ``text``'s code: each model's total, bound and layer counts, in
    order (or the error's kind, where it finds nothing)."""
    try:
        answer = read(text)
    except ParamcountError as error:
        return type(error).__name__
    return [(m.total, m.at_least, sorted(str(layer.params) for layer in m.layers))
            for m in answer.models if m.source == "code"]


def _same_under_every_rewrite(code: str) -> None:
    """Each rewrite of ``code`` reads as ``code`` does."""
    expected = models(code)
    for name, rewrite in REWRITES.items():
        rewritten = rewrite(code)
        assert models(rewritten) == expected, (name, code, rewritten)


def test_the_suite_names_code_pastes() -> None:
    """The pastes are found: the suite holds well over a hundred of them."""
    assert len(NAMED) > 100, sorted(NAMED)


@pytest.mark.parametrize("code", NAMED.values(), ids=NAMED.keys())
def test_named_paste_reads_the_same_rewritten(code: str) -> None:
    """A code paste the suite names reads the same under every rewrite."""
    _same_under_every_rewrite(code)


@pytest.mark.parametrize("rewrite", REWRITES.values(), ids=REWRITES.keys())
def test_each_rewrite_changes_the_text(rewrite: Rewrite) -> None:
    """Every rewrite changes some paste (a rewrite that changes nothing tests nothing)."""
    assert any(rewrite(code) != code for code in NAMED.values())


@GENERATED
@given(torch_plans(), st.data())
def test_generated_torch_code_reads_the_same_rewritten(plan: TorchPlan,
                                                       data: st.DataObject) -> None:
    """Generated torch code (:func:`tests.printers_code.torch_code`) reads the same under
    every rewrite."""
    _same_under_every_rewrite(torch_code(plan, data.draw, overridden=True))


@GENERATED
@given(keras_plans(), st.data())
def test_generated_keras_code_reads_the_same_rewritten(plan: KerasPlan,
                                                       data: st.DataObject) -> None:
    """Generated Keras code (:func:`tests.printers_code.keras_code`) reads the same under
    every rewrite."""
    _same_under_every_rewrite(keras_code(plan, data.draw))
