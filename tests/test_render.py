"""Renderers against golden files; ``pytest --update-golden`` rewrites them after a review."""

from __future__ import annotations

import re
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


CODE = [re.compile(pattern) for pattern in (
    r"[\w.]+\((?:[^()]|\([^()]*\))*\)",  # a call: nn.LSTM(3200, 1280), LSTM(1280, ...)
    r"\([\d, ]+\)",  # a shape: (5120, 3200)
    r"\[[^\]]*\]",  # a slice: output[-1, :, :1280]
    r"\S*=\d+",  # a keyword: hidden_size=1280
    r"-[\w-]+ [\d.]+\w?",  # a flag in a command line: -i 3200
)]
"""Where a number is code, spelled as the framework or the shell spells it."""


@pytest.mark.parametrize("command", [
    "lstm -i 3200 -H 1280 -L 2 --bidir -f all",
    "gru -i 3200 -H 1280 -L 2 --bidir -f all --markdown",
    "explain lstm -i 3200 -H 1280 -L 2 --bidir",
    "compute lstm -i 3200 -H 1280 -L 2 --bidir -T 1000 -N 2000",
    "memory gru -i 3200 -H 1280 --optimizer adam",
    "shapes lstm -i 3200 -H 1280 -L 2 --bidir",
    "lstm -i 3200 -H 1280 -L 2 --bidir -f tf1 --proj 1100 --peepholes",
    "convlstm --rank 2 -C 3000 -F 1280 -k 3x3 -f all",
])
def test_numbers_in_prose_have_thousands_separators(cli: CLI, command: str) -> None:
    """Every number of four digits or more outside code (calls, shapes, slices, keywords,
    command lines) is written with thousands separators: 3,200 features, 2,560 wide, T = 1,000,
    2·[5,120·(3,200 + 1,280 + 2)]."""
    result = cli(*command.split())
    assert result.code == 0, result.err
    bare = []
    for line in result.out.splitlines():
        prose = line
        for pattern in CODE:
            prose = pattern.sub(" ", prose)
        bare += [line for _ in re.findall(r"(?<![\d,.])\d{4,}(?![\d,.])", prose)]
    assert not bare, bare
