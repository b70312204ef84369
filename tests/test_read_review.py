"""``paramcount read`` review: hostile arithmetic, layers the reader must not drop silently."""

from __future__ import annotations

from paramcount.read import read
from paramcount.sources.python_code import MAX_REPEAT


def test_repeated_squaring_stays_small() -> None:
    """``a = a * a`` repeated is not evaluated past a few hundred bits: the size that needs it
    is listed as unresolved, with no ``--set`` hint for an expression."""
    text = ("import torch.nn as nn\na = 2**64\n" + "a = a * a\n" * 6
            + "lstm = nn.LSTM(a % 7 + 1, 8)\n")
    answer = read(text)
    assert answer.models[0].layers[0].params is None
    assert answer.unresolved and all("--set" not in m.hint for m in answer.unresolved)


def test_list_repetition_is_bounded_not_truncated() -> None:
    """A list repeated past the unrolling limit is unresolved (no MemoryError from nested
    repeats, and never silently cut to fewer layers)."""
    nested = "import torch.nn as nn\na = [1] * 1000\nb = a * 1000\nlstm = nn.LSTM(len(b), 8)\n"
    assert read(nested).models[0].layers[0].params is None
    many = (f"import torch.nn as nn\nstack = nn.Sequential(*[nn.LSTM(4, 4)] * {MAX_REPEAT + 1})\n"
            "net = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 4))\n")
    answer = read(many)
    assert all(len(m.layers) != MAX_REPEAT for m in answer.models)
