"""torchsummary's ``summary(model, input_size)`` tables (``Conv1d-1  [-1, 16, 18]  400``), a
dialect of the generic table reader (:mod:`.dialect`).

torchsummary counts only a module's ``weight`` and ``bias`` attributes, so it prints 0 for
``nn.RNN``, ``nn.GRU`` (and ``nn.LSTM``, where it does not crash on the tuple output), whose
tensors are ``weight_ih_l0`` ...; such a row's count is unknown, not zero, and the printed total
leaves those layers out. Counts are read only from the ``Param #`` column.

It prints a row per call, not per module: a module the forward pass calls twice is two rows
(``Linear-1``, ``Linear-2``) with the same class, output shape and count, and its total counts
it twice. The text cannot tell that from two alike modules, so the answer names such rows and
the count the model may hold instead (:func:`alike`).
"""

from __future__ import annotations

from collections.abc import Sequence

from paramcount.reading.patterns import lazy
from paramcount.reading.tables.dialect import Dialect, numbered, printout
from paramcount.reading.tables.table import Printout, Row
from paramcount.record import replace

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
    read = printout(DIALECT, DIALECT.first(lines, start), scan, rows,
                    total_known=not any(row.note for row in rows))
    said = alike(rows, read.total)
    if said:
        read = replace(read, how="; ".join(filter(None, (read.how, said))))
    return read, scan.end


SHOWN = 4
"""The most groups of alike rows the note names (it counts the rest)."""


def alike(rows: Sequence[Row], total: int | None) -> str:
    """What the answer says of rows that print the same class, output shape and a count above
    zero (``Linear-1``, ``Linear-2``): torchsummary prints a row per call, so each group may be
    one module called again, and the model may hold fewer than the rows add up to (as few as
    ``total`` less all but one row of each group, where the printed ``total`` is known); empty
    where no two rows are alike."""
    groups: dict[tuple[object, ...], list[Row]] = {}
    for row in rows:
        if row.params:
            groups.setdefault((row.type, row.shape, row.outputs, row.params), []).append(row)
    alikes = [group for group in groups.values() if len(group) > 1]
    if not alikes:
        return ""
    fewer = sum((len(group) - 1) * (group[0].params or 0) for group in alikes)
    named = [_names([row.name for row in group]) for group in alikes[:SHOWN]]
    if len(alikes) > SHOWN:
        named.append(f"{len(alikes) - SHOWN} more groups")
    most = max(len(group) for group in alikes)
    calls = "twice as two rows" if most == 2 else "more than once as a row per call"
    head = (f"{named[0]} print the same class, shape and count" if len(alikes) == 1 else
            "rows print the same class, shape and count: " + "; ".join(named))
    least = "" if total is None or len(alikes) == 1 else f" (as few as {total - fewer:,})"
    return (f"{head}: torchsummary prints a module called {calls}, so the model may hold "
            f"{fewer:,} fewer{least}")


def _names(names: Sequence[str]) -> str:
    """``A and B``, ``A, B and C``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
