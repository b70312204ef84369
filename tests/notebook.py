"""The notebook of docs/summary.ipynb: its cells, executed in a real Jupyter kernel.

``python -m tests.notebook`` writes docs/summary.ipynb, executed (the committed copy);
tests/test_notebook.py executes the same cells afresh and checks what Jupyter shows.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "docs" / "summary.ipynb"
KERNEL = "paramcount-docs"

CELLS: list[tuple[str, str]] = [
    ("markdown", "# `paramcount.summary` in a notebook\n\n"
                 "The model in hand, summarised without an input and without running it: "
                 "exact totals (tied weights once, frozen parameters and buffers apart), every "
                 "recurrent layer recognised with its configuration, the rest by module, "
                 "every tensor. The tables below are plain HTML: they read the same on GitHub "
                 "as in Jupyter."),
    ("code", "from torch import nn\n\n"
             "import paramcount"),
    ("code", "class Tagger(nn.Module):\n"
             "    def __init__(self):\n"
             "        super().__init__()\n"
             "        self.embed = nn.Embedding(1000, 64)\n"
             "        self.encoder = nn.LSTM(64, 128, num_layers=2, bidirectional=True,\n"
             "                               proj_size=32, batch_first=True)\n"
             "        self.norm = nn.LayerNorm(64)\n"
             "        self.head = nn.Linear(64, 1000)\n"
             "        self.head.weight = self.embed.weight  # tied\n\n"
             "    def forward(self, tokens, lengths):\n"
             "        raise NotImplementedError('summary never calls forward')\n\n"
             "model = Tagger()\n"
             "paramcount.summary(model)"),
    ("code", "result = paramcount.summary(model)\n"
             "result.total == sum(p.numel() for p in model.parameters()), result.total"),
    ("code", "[(layer.name, layer.description, layer.command) for layer in result.recurrent]"),
    ("markdown", "Every command has its library call; each result shows itself the same way."),
    ("code", "paramcount.read('''\n"
             "rnn = nn.GRU(input_size=40, hidden_size=256, num_layers=3, bidirectional=True)\n"
             "''')"),
]
"""(cell type, source) of every cell, in order."""


def notebook() -> Any:
    """The notebook, not yet executed."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(source) if kind == "markdown"
                else nbformat.v4.new_code_cell(source) for kind, source in CELLS]
    for number, cell in enumerate(nb.cells):
        cell.id = f"cell-{number}"  # stable, so that a rewrite changes only what changed
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    return nb


def execute(nb: Any, timeout: int = 300) -> Any:
    """``nb`` executed by a kernel of this interpreter, with this checkout importable."""
    from nbclient import NotebookClient

    with tempfile.TemporaryDirectory() as home:
        spec = Path(home) / "kernels" / KERNEL
        spec.mkdir(parents=True)
        (spec / "kernel.json").write_text(json.dumps({
            "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "paramcount", "language": "python",
            "env": {"PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "3"}}))
        before = os.environ.get("JUPYTER_PATH")
        os.environ["JUPYTER_PATH"] = home
        try:
            NotebookClient(nb, kernel_name=KERNEL, timeout=timeout,
                           resources={"metadata": {"path": str(ROOT)}}).execute()
        finally:
            if before is None:
                os.environ.pop("JUPYTER_PATH", None)
            else:
                os.environ["JUPYTER_PATH"] = before
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    return nb


def html_outputs(nb: Any) -> list[str]:
    """The HTML every code cell displayed, in order ('' for a cell that showed none)."""
    shown = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        html = [out["data"]["text/html"] for out in cell.get("outputs", ())
                if out.get("output_type") in ("execute_result", "display_data")
                and "text/html" in out.get("data", {})]
        shown.append("".join(html))
    return shown


def main() -> None:
    """Write docs/summary.ipynb, executed."""
    import nbformat

    nb = execute(notebook())
    for cell in nb.cells:  # nothing of the run that changes between runs
        cell.get("metadata", {}).pop("execution", None)
    text = nbformat.writes(nb)
    NOTEBOOK.write_text(text if text.endswith("\n") else text + "\n")


if __name__ == "__main__":
    main()
