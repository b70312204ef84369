"""torchsummary's ``summary(model, input_size)`` tables (``Conv1d-1  [-1, 16, 18]  400``), a
dialect of the generic table reader (:mod:`.dialect`).

torchsummary counts only a module's ``weight`` and ``bias`` attributes, so it prints 0 for
``nn.RNN``, ``nn.GRU`` (and ``nn.LSTM``, where it does not crash on the tuple output), whose
tensors are ``weight_ih_l0`` ...; such a row's count is unknown, not zero, and the printed total
leaves those layers out. Counts are read only from the ``Param #`` column.
"""

from __future__ import annotations

from collections.abc import Sequence

from paramcount.reading.patterns import lazy
from paramcount.reading.tables.dialect import Dialect, numbered, printout
from paramcount.reading.tables.table import Printout, Row

DIALECT = Dialect(
    "torchsummary", {"Layer (type)": "label", "Output Shape": "output", "Param #": "params"},
    after=lazy(r"\s*((Non-)?[Tt]rainable params|Input size|Forward/backward|"
                     r"Params size|Estimated Total|-{5,})"),
    label=lazy(r"(?P<type>\w+)-(?P<index>[0-9]+)"))
"""Its columns; the footer under its ``Total params``; its rows labelled ``Class-N``."""
UNCOUNTED = frozenset({"RNN", "GRU", "LSTM", "RNNCell", "GRUCell", "LSTMCell",
                       "MultiheadAttention"})
"""torch classes whose tensors are not named ``weight`` and ``bias``: torchsummary prints 0."""


def read(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """A torchsummary table whose right-aligned header is at ``start`` (0-based)."""
    rows, scan = numbered(lines, start, DIALECT)
    if not rows:
        return None
    rows = [Row(row.name, row.type, row.shape, None, row.line, outputs=row.outputs, note=(
        f"torchsummary counts only .weight and .bias, so it prints 0 for {row.type}; its "
        "count is not in the table")) if row.type in UNCOUNTED and row.params == 0 else row
        for row in rows]
    return printout(DIALECT, DIALECT.first(lines, start), scan, rows,
                    total_known=not any(row.note for row in rows)), scan.end
