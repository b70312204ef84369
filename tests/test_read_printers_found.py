"""Printers found in the package lists (issue 36, item 2), each run at test time on real
models and its output read back against the framework's own count."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from paramcount.reading.pipeline import read
from paramcount.reading.solve import same_configuration as same
from tests.conftest import have
from tests.printers import Paste, Score, check, torch_plans
from tests.printers_found import (
    TABLES,
    EquinoxPlan,
    HaikuPlan,
    deepspeed_text,
    equinox_paste,
    equinox_plans,
    haiku_paste,
    haiku_plans,
    table_text,
    torch_found_pastes,
    torchtnt_text,
)

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
    assert any("lstm/linear (7 rows)" in note for note in model.notes), model.notes


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




# -- the table libraries of count_parameters snippets -----------------------------------------

def _stack() -> Any:
    """An LSTM(16, 32, num_layers=2, bidirectional=True) and a Linear(64, 5)."""
    from torch import nn

    class Net(nn.Module):
        """A stacked bidirectional LSTM, then a Linear."""

        def __init__(self) -> None:
            super().__init__()
            self.lstm = nn.LSTM(16, 32, num_layers=2, bidirectional=True)
            self.fc = nn.Linear(64, 5)

        def forward(self, x: Any) -> Any:
            """The LSTM's outputs through the Linear."""
            return self.fc(self.lstm(x)[0])

    return Net()


@pytest.mark.parametrize("style", TABLES)
def test_count_parameters_table_libraries(style: str) -> None:
    """texttable's and terminaltables' tables of the snippet give the exact total and the
    stacked LSTM's configuration (read from its tensors' counts or shapes)."""
    pytest.importorskip("torch")
    module = "texttable" if style.startswith("texttable") else "terminaltables"
    if not have(module):
        pytest.skip(f"needs {module}")
    from paramcount.engine.spec import Cell, LayerSpec

    net = _stack()
    model = _only(table_text(net, style))
    assert model.total == sum(p.numel() for p in net.parameters())
    (layer,) = [layer for layer in model.layers if layer.recurrent]
    assert layer.spec is not None and same(
        layer.spec, LayerSpec(Cell.LSTM, 16, 32, num_layers=2, bidirectional=True))




# -- equinox's print of a module --------------------------------------------------------------

needs_equinox = pytest.mark.skipif(not have("equinox"), reason="needs equinox")
_EQUINOX = EquinoxPlan(16, (("LSTMCell", 32, True), ("GRUCell", 8, False)), 1, True)


@needs_equinox
@pytest.mark.parametrize("pprint", [True, False], ids=["tree_pprint", "print"])
def test_equinox_module_is_read_as_its_arrays(pprint: bool) -> None:
    """``eqx.tree_pprint(model)`` and ``print(model)`` (it said "nothing countable found"):
    every array a tensor named by its field path, the exact total, and no torch layer claimed
    from equinox's ``weight_ih`` / ``weight_hh`` names."""
    paste = equinox_paste(EquinoxPlan(16, _EQUINOX.cells, 1, pprint))
    model = _only(paste.text)
    assert model.total == paste.truth.total
    assert model.accounting.whole
    assert not [layer for layer in model.layers if layer.recurrent]
    names = {name for name, _, _ in model.tensors}
    assert {"cells.0.weight_ih", "cells.0.bias", "cells.1.weight_hh",
            "head.layers.1.weight"} <= names, names


@needs_equinox
def test_equinox_module_cut_is_a_bound() -> None:
    """The print cut before its closing parenthesis: no exact total, the crop named."""
    text = equinox_paste(_EQUINOX).text
    model = _only(text[:text.index("head=")] + "\n")
    assert model.total is None
    assert model.accounting.cropped


# -- DeepSpeed's flops profiler -----------------------------------------------------------------

@pytest.mark.skipif(not have("deepspeed"), reason="needs deepspeed")
@pytest.mark.parametrize("bidirectional", [False, True], ids=["lstm", "bilstm"])
def test_deepspeed_profile_is_read_as_its_repr(bidirectional: bool) -> None:
    """DeepSpeed's detailed profile (``LSTM(6.4 K = 94.05% Params, 0 MACs = 0% MACs, 0 s = 0%
    latency, 0 FLOPS, 16, 32, batch_first=True)``, said "nothing countable found") is read as
    the repr it prints: the exact total and the LSTM's configuration."""
    import torch
    from torch import nn

    from paramcount.engine.spec import Cell, LayerSpec

    class Net(nn.Module):
        """An LSTM read at every step, then a Linear."""

        def __init__(self) -> None:
            super().__init__()
            self.lstm = nn.LSTM(16, 32, batch_first=True, bidirectional=bidirectional)
            self.fc = nn.Linear(64 if bidirectional else 32, 5)

        def forward(self, x: Any) -> Any:
            """The LSTM's outputs through the Linear."""
            return self.fc(self.lstm(x)[0])

    net = Net()
    model = _only(deepspeed_text(net, torch.zeros(1, 7, 16)))
    assert model.total == sum(p.numel() for p in net.parameters())
    (layer,) = [layer for layer in model.layers if layer.recurrent]
    assert layer.spec is not None and same(layer.spec, LayerSpec(
        Cell.LSTM, 16, 32, bidirectional=bidirectional))


# -- torchtnt's module summary ------------------------------------------------------------------

@pytest.mark.skipif(not have("torchtnt"), reason="needs torchtnt")
@pytest.mark.parametrize("exact", [True, False], ids=["exact-counts", "rounded"])
def test_torchtnt_module_summary(exact: bool) -> None:
    """torchtnt's summary (``Name | Type | # Parameters | ...`` without outer bars, said
    "nothing countable found"): with exact counts, the exact total; rounded (``6.4 K``, as
    ``print`` shows it), the LSTM's row named unread and a bound no higher than the truth."""
    import torch

    net = _stack()
    truth = sum(p.numel() for p in net.parameters())
    model = _only(torchtnt_text(net, torch.zeros(7, 1, 16), exact))
    if exact:
        assert model.total == truth
    else:
        assert model.total is None
        assert any("rounded" in unread.reason for unread in model.accounting.unread)
        assert model.at_least is not None and model.at_least <= truth


# -- random models ---------------------------------------------------------------------------

_RANDOM: dict[str, tuple[tuple[str, ...], Callable[[Any], list[Paste]]]] = {
    "haiku": (("haiku",), lambda draw: [haiku_paste(draw(haiku_plans()))]),
    "equinox": (("equinox",), lambda draw: [equinox_paste(draw(equinox_plans()))]),
    "table libraries, DeepSpeed, torchtnt": (("torch", "texttable", "terminaltables",
                                              "deepspeed", "torchtnt"),
                        lambda draw: torch_found_pastes(draw(torch_plans()), draw)),
}
"""Each found printer's random pastes, and the packages they need."""


@pytest.mark.parametrize("printer", sorted(_RANDOM))
@given(data=st.data())
@settings(max_examples=4, deadline=None, database=None, phases=[Phase.generate],
          suppress_health_check=list(HealthCheck))
def test_random_models(printer: str, data: st.DataObject) -> None:
    """Random models in each found printer's forms (haiku unrolled statically or
    dynamically, equinox printed either way, the table libraries' tables of random torch
    models) are read with no wrong layer or total."""
    needs, make = _RANDOM[printer]
    if not all(have(module) for module in needs):
        pytest.skip(f"needs {', '.join(needs)}")
    score = Score()
    for paste in make(data.draw):
        check(paste, score)
    assert not score.wrong, score.wrong
