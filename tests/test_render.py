"""Renderers against golden files; ``pytest --update-golden`` rewrites them after a review."""

from __future__ import annotations

from pathlib import Path

import pytest

from paramcount.render.document import shape, signed, size
from tests.conftest import CLI

GOLDEN = Path(__file__).resolve().parent / "golden"

CASES = [
    ("torch-bilstm-2.md", ["lstm", "-i", "32", "-H", "128", "-L", "2", "--bidir", "--markdown"]),
    ("torch-bilstm-2.json", ["lstm", "-i", "32", "-H", "128", "-L", "2", "--bidir", "--json"]),
    ("keras-bilstm.md", ["lstm", "-i", "28", "-H", "128", "--bidir", "-f", "keras",
                         "--markdown"]),
    ("keras-gru-merge.txt", ["gru", "-i", "13", "-H", "20", "-L", "3", "--bidir", "-f", "keras",
                             "--merge-mode", "concat,sum,none", "--no-reset-after"]),
    ("torch-lstm-proj.txt", ["lstm", "-i", "64", "-H", "512", "-L", "3", "--proj", "256",
                             "--dtype", "bf16"]),
    ("torch-rnn-cell.txt", ["rnn", "-i", "10", "-H", "20", "--cell", "--no-bias"]),
    ("all-frameworks.md", ["gru", "-i", "8", "-H", "16", "-L", "2", "--bidir", "-f", "all",
                           "--markdown"]),
]


@pytest.mark.parametrize(("golden", "args"), CASES, ids=[c[0] for c in CASES])
def test_output_matches_golden(cli: CLI, update_golden: bool, golden: str,
                               args: list[str]) -> None:
    """Each renderer's output is exactly the reviewed golden file."""
    result = cli(*args)
    assert result.code == 0, result.err
    path = GOLDEN / golden
    if update_golden:
        path.write_text(result.out)
    assert result.out == path.read_text()


@pytest.mark.parametrize(
    ("value", "text"),
    [((512, 32), "(512, 32)"), ((64,), "(64,)"), ((2, 3, 4), "(2, 3, 4)")],
    ids=["matrix", "vector", "cube"],
)
def test_shape_looks_like_the_framework_prints_it(value: tuple[int, ...], text: str) -> None:
    """Shapes print as Python tuples, as torch.Size and keras do."""
    assert shape(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [(999, "999 B"), (2_244_608, "2.24 MB"), (999_995, "1.00 MB"), (4 * 10**18, "4.00 EB"),
     (10**400, "1.00e400 B")],
    ids=["bytes", "megabytes", "rounds-up-a-prefix", "exabytes", "beyond-prefixes"],
)
def test_size_in_decimal_units(value: int, text: str) -> None:
    """Byte sizes use decimal units."""
    assert size(value) == text


def test_signed_uses_a_real_minus() -> None:
    """Differences carry their sign, with a typographic minus."""
    assert (signed(5), signed(-1024), signed(0)) == ("+5", "−1,024", "0")
