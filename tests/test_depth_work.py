"""Work linear in the layers: a stack 10× as deep costs 10× the steps, counted, not timed.

Times are measured by ``benchmarks/depth_speed.py``; here the steps that were quadratic are
counted: how often a tensor's attributes are read.
"""

from __future__ import annotations

import gc
from collections.abc import Callable

import pytest
from hypothesis import given, settings

from paramcount.analysis import compare as compare_module
from paramcount.engine.conventions.base import Tensor
from paramcount.engine.convlstm_report import ConvLSTMSpec, build_conv_report
from paramcount.engine.report import build_report
from paramcount.engine.spec import Cell, Framework, LayerSpec
from tests.conftest import CLI
from tests.strategies import layer_specs


def _steps(monkeypatch: pytest.MonkeyPatch, work: Callable[[], object]) -> int:
    """How many times ``work`` reads an attribute of a tensor."""
    calls = [0]

    def counted(tensor: Tensor, name: str) -> object:
        calls[0] += 1
        return object.__getattribute__(tensor, name)

    with monkeypatch.context() as patch:
        patch.setattr(Tensor, "__getattribute__", counted)
        work()
    return calls[0]


def _aligned(layers: int) -> Callable[[], object]:
    """Align a stack of ``layers`` with one a layer shorter (what compare shows)."""
    reports = [build_report(LayerSpec(Cell.LSTM, 4, 4, num_layers=n))
               for n in (layers, layers - 1)]
    return lambda: compare_module.align(reports)


def _conv(layers: int) -> Callable[[], object]:
    """A bidirectional ConvLSTM2D stack's report, in Keras and Flax (convlstm -f all)."""
    return lambda: [
        build_conv_report(ConvLSTMSpec(2, 3, 4, (3, 3), num_layers=layers, bidirectional=True,
                                       framework=framework)).layers
        for framework in (Framework.KERAS, Framework.FLAX_LINEN)
    ]


@pytest.mark.parametrize("work", [_aligned, _conv], ids=["compare-align", "convlstm-report"])
def test_ten_times_the_layers_is_ten_times_the_steps(
    monkeypatch: pytest.MonkeyPatch, work: Callable[[int], Callable[[], object]]
) -> None:
    """Aligning two deep stacks and a ConvLSTM stack's per-layer table take steps linear in the
    layers (both scanned every tensor once per layer: 100× the steps at 10× the layers)."""
    base = _steps(monkeypatch, work(40))
    deep = _steps(monkeypatch, work(400))
    assert deep <= 10.5 * base, (base, deep)


@pytest.mark.parametrize("args", [
    ["lstm", "-i", "3", "-H", "4"],
    ["compare", "lstm -i 3 -H 4", "gru -i 3 -H 4"],
], ids=["quick", "click"])
def test_the_console_process_freezes_what_it_imported(cli: CLI, args: list[str]) -> None:
    """``paramcount`` (``run(freeze=True)``) moves the loaded modules' objects out of the
    garbage collector's way before the work starts, on the quick path and through click;
    ``run`` called as a library function leaves the collector alone."""
    from paramcount.cli.main import run

    gc.unfreeze()
    try:
        assert cli(*args).code == 0 and gc.get_freeze_count() == 0
        assert run(args, freeze=True) == 0 and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


@settings(max_examples=40, deadline=None)
@given(layer_specs(max_size=8, max_layers=20))
def test_the_report_depth_table_is_the_tables_it_is_cut_from(spec: LayerSpec) -> None:
    """A bidirectional report's depth rows (1…max(L, 4) up to 12, then L) and its limit, now
    cut from one table, equal the tables and the limit built at each depth on their own."""
    from paramcount.engine.report import DEPTH_ROWS, depth_limit, depth_table

    if spec.single_cell:
        spec = spec.replace(single_cell=False)
    if not spec.bidirectional:
        spec = spec.replace(bidirectional=True)
    report = build_report(spec)
    shown = min(max(spec.num_layers, 4), DEPTH_ROWS)
    expected = depth_table(spec, shown)
    if spec.num_layers > DEPTH_ROWS:
        expected += depth_table(spec, spec.num_layers)[-1:]
    assert report.depth == expected
    assert report.depth_limit == depth_limit(spec)
