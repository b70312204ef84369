"""``paramcount.summary`` in a real Jupyter kernel (nbclient + ipykernel): the HTML it shows,
and docs/summary.ipynb holding that notebook, executed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import have
from tests.notebook import CELLS, NOTEBOOK, execute, html_outputs, notebook

pytestmark = pytest.mark.skipif(
    not all(have(m) for m in ("nbclient", "nbformat", "ipykernel", "torch")),
    reason="needs nbclient, nbformat, ipykernel and torch")


@pytest.fixture(scope="module")
def executed() -> Any:
    """The notebook's cells, executed once in a fresh kernel of this interpreter."""
    return execute(notebook())


def test_summary_shows_html_tables(executed: Any) -> None:
    """The live model's summary is displayed as HTML tables, no script, with its exact count
    and its recurrent layer recognised; the model's forward (which raises) never ran."""
    shown = html_outputs(executed)
    summary = shown[1]
    assert summary.startswith('<div class="paramcount">') and "<table>" in summary
    assert "<script" not in summary
    assert "nn.LSTM(64, 128, num_layers=2, bidirectional=True, proj_size=32)" in summary
    assert "paramcount lstm -i 64 -H 128 -L 2 --bidir --proj 32" in summary
    results = [out for cell in executed.cells if cell.cell_type == "code"
               for out in cell.outputs if out.get("output_type") == "execute_result"]
    total = json.loads(results[1]["data"]["text/plain"].replace("(", "[").replace(")", "]")
                       .replace("True", "true"))
    assert total[0] is True and f"{total[1]:,} parameters" in summary
    assert not [out for cell in executed.cells for out in cell.get("outputs", ())
                if out.get("output_type") == "error"]
    assert "<table>" in shown[-1] and "nn.GRU(40, 256, num_layers=3, bidirectional=True)" \
        in shown[-1]


def test_docs_hold_the_notebook_executed(executed: Any) -> None:
    """docs/summary.ipynb has these cells and shows what they show now (``python -m
    tests.notebook`` rewrites it)."""
    import nbformat

    committed = nbformat.read(NOTEBOOK, as_version=4)
    assert [(c.cell_type, c.source) for c in committed.cells] == CELLS
    assert html_outputs(committed) == html_outputs(executed)
