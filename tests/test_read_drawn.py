"""The drawn-table machinery under the Keras and Flax dialects (``reading.tables.drawn``) reads
a printer it was never written for once that printer's dialect is declared: a rich table,
drawn by rich at test time with its long names folded over lines and a ``Total`` footer row,
in box characters and in the ASCII rich draws for a console that cannot show them.
"""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from rich.table import Table

from paramcount.reading.tables.dialect import Dialect
from paramcount.reading.tables.drawn import (
    ascii_box,
    box_header,
    box_records,
    row,
)

NAMES = ("encoder.recurrent_layer_with_a_long_name", "decoder.output_projection")
SHAPES = ((2, 30, 64), (2, 30, 5))
COUNTS = (6_720, 330)
DIALECT = Dialect("rich", {"Layer": "name", "Output": "output", "Params": "params"}, join="",
                  total_row=True)
"""The printer declared: its columns' roles, a folded cell's lines joined as they stand, a
``Total`` row at the foot of its box."""


def drawn(ascii_only: bool) -> list[str]:
    """The table as rich prints it into a 40-column console (UTF-8, or ASCII)."""
    table = Table(show_footer=True, show_lines=True)
    table.add_column("Layer", "Total", overflow="fold")
    table.add_column("Output", "")
    table.add_column("Params", f"{sum(COUNTS):,}", justify="right")
    for name, shape, number in zip(NAMES, SHAPES, COUNTS, strict=True):
        table.add_row(name, str(list(shape)), f"{number:,}")
    raw = io.BytesIO()
    console = io.TextIOWrapper(raw, encoding="ascii" if ascii_only else "utf-8",
                               errors="replace")
    Console(file=console, width=40).print(table)
    console.flush()
    return raw.getvalue().decode().splitlines()


@pytest.mark.parametrize("ascii_only", [False, True], ids=["box", "ascii"])
def test_a_declared_dialect_reads_a_rich_table(ascii_only: bool) -> None:
    """Each row's folded name is joined whole, its output shape and count read under their
    columns, the ``Total`` row's count taken as the total, and the bottom border seen."""
    lines = drawn(ascii_only)
    start = next(at for at, line in enumerate(lines) if "Layer" in line)
    view = ascii_box(lines, start) if ascii_only else lines
    titles, body = box_header(view, start, tuple(DIALECT.columns))
    box = box_records(view, titles, body, DIALECT)
    rows = [row(record, at, DIALECT) for record, at in box.records]
    assert [(r.name, r.shape, r.params) for r in rows if r is not None] == list(
        zip(NAMES, SHAPES, COUNTS, strict=True))
    assert (box.total, box.bottom, box.merged) == (sum(COUNTS), True, [])
