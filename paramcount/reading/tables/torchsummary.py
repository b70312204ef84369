"""torchsummary's ``summary(model, input_size)`` tables (``Conv1d-1  [-1, 16, 18]  400``).

torchsummary counts only a module's ``weight`` and ``bias`` attributes, so it prints 0 for
``nn.RNN``, ``nn.GRU`` (and ``nn.LSTM``, where it does not crash on the tuple output), whose
tensors are ``weight_ih_l0`` ...; such a row's count is unknown, not zero, and the printed total
leaves those layers out. Counts are read only from the ``Param #`` column.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from paramcount.reading.accounting import Accounting
from paramcount.reading.tables.table import (
    NO_TOTAL,
    Printout,
    Row,
    count,
    first_shape,
    footer,
    row_cells,
)

_ROW = re.compile(r"(?P<type>\w+)-(?P<index>[0-9]+)")
_AFTER = re.compile(r"\s*((Non-)?[Tt]rainable params|Input size|Forward/backward|Params size|"
                    r"Estimated Total|-{5,})")
UNCOUNTED = frozenset({"RNN", "GRU", "LSTM", "RNNCell", "GRUCell", "LSTMCell",
                       "MultiheadAttention"})
"""torch classes whose tensors are not named ``weight`` and ``bias``: torchsummary prints 0."""
_LIMIT = 200_000


def read(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """A torchsummary table whose right-aligned header is at ``start`` (0-based)."""
    first = start - 1 if start and lines[start - 1].startswith("---") else start
    rows: list[Row] = []
    total = None
    index = start + 1
    while index < len(lines) and index - start < _LIMIT:
        line = lines[index]
        if (ended := footer(lines, index, _AFTER)) is not None:
            index, total = ended
            break
        stripped = line.strip()
        if not stripped or set(stripped) <= {"=", "-"}:
            index += 1
            continue
        cells = row_cells(line, 3)
        label = _ROW.fullmatch(cells[0]) if len(cells) == 3 else None
        if label is None:
            break
        kind = label.group("type")
        params = count(cells[2])
        note = ""
        if kind in UNCOUNTED and params == 0:
            params = None
            note = (f"torchsummary counts only .weight and .bias, so it prints 0 for {kind}; "
                    "its count is not in the table")
        rows.append(Row(f"{kind}-{label.group('index')}", kind, first_shape(cells[1]), params,
                        index + 1, outputs=(), note=note))
        index += 1
    if not rows:
        return None
    known = not any(row.note for row in rows)
    accounting = Accounting.span(first + 1, index, cropped=() if total is not None else (
        NO_TOTAL,))
    return Printout("torchsummary", "model", first + 1, index, tuple(rows), total,
                    total_known=known, accounting=accounting), index
