"""What ``read`` answers grows linearly with the paste: a ``parameters()`` dump of thousands of
alike layers that cannot stack (issue 30, item 11)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import CLI
from tests.printers import dump_text

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.torch


def alike(n: int) -> str:
    """``parameters()`` shapes (printed by torch) of ``n`` nn.LSTM(8, 16) in a row: alike,
    and unable to stack (each reads 8, the one before it gives 16)."""
    with torch.device("meta"):
        net = torch.nn.Sequential(*(torch.nn.LSTM(8, 16) for _ in range(n)))
    return dump_text(net, "bare")


def answer_size(cli: CLI, tmp_path: Path, n: int) -> int:
    """The length of ``read --json``'s answer for ``n`` such layers."""
    path = tmp_path / f"dump{n}.txt"
    path.write_text(alike(n))
    result = cli("read", str(path), "--json")
    assert result.code in (0, 1), result.err
    return len(result.out)


def test_notes_of_a_long_chain_of_alike_layers_grow_linearly(cli: CLI, tmp_path: Path) -> None:
    """Each member's note names its chain in a bounded number of words: 8× the layers is at
    most about 8× the JSON (it was 8² ×: every note listed the whole chain)."""
    small, large = answer_size(cli, tmp_path, 40), answer_size(cli, tmp_path, 320)
    assert large <= 10 * small, (small, large)
