"""Buffers told by where a listing was printed from: a ``named_buffers()`` listing, a
``Buffers:`` heading, a state dict beside a ``named_parameters()`` listing of the same model;
each printed by torch at test time."""

from __future__ import annotations

from typing import Any

import pytest

from paramcount.reading.pipeline import read

pytest.importorskip("torch")


def _net(size: int = 32) -> Any:
    """A GRU and a Linear, and a positional table registered as the buffer ``pe``."""
    import torch
    from torch import nn

    class Net(nn.Module):
        """A GRU over inputs plus a fixed positional table, then a Linear."""

        def __init__(self) -> None:
            super().__init__()
            self.gru = nn.GRU(size, 64, batch_first=True)
            self.fc = nn.Linear(64, 10)
            self.register_buffer("pe", torch.zeros(1, 50, size))

        def forward(self, x: Any) -> Any:
            """The GRU's last step through the Linear."""
            return self.fc(self.gru(x + self.get_buffer("pe")[:, :x.shape[1]])[0][:, -1])

    return Net()


def _parameters(net: Any) -> str:
    """``for n, p in net.named_parameters(): print(n, p.shape)``, the loop above its output."""
    return "for n, p in net.named_parameters(): print(n, p.shape)\n" + "".join(
        f"{n} {p.shape}\n" for n, p in net.named_parameters())


def _state(net: Any) -> str:
    """``for k, v in net.state_dict().items(): print(k, v.shape)``, the loop above."""
    return "for k, v in net.state_dict().items(): print(k, v.shape)\n" + "".join(
        f"{k} {v.shape}\n" for k, v in net.state_dict().items())


def _buffers(net: Any, heading: str) -> str:
    """``named_buffers()`` printed under ``heading`` (the loop's line, or a heading)."""
    return heading + "\n" + "".join(f"{n} {b.shape}\n" for n, b in net.named_buffers())


def _total(net: Any) -> int:
    """torch's own count."""
    return sum(p.numel() for p in net.parameters())


@pytest.mark.parametrize("first", [True, False], ids=["parameters-first", "state-dict-first"])
def test_state_dict_beside_named_parameters_tells_its_buffer(first: bool) -> None:
    """A state dict printed beside ``named_parameters()`` of the same model: ``pe``, in the
    first and not the second, is a buffer, named and not counted; both models read exact."""
    net = _net()
    parts = [_parameters(net), _state(net)]
    answer = read("\n".join(parts if first else parts[::-1]))
    shapes = [m for m in answer.models if m.source == "shapes"]
    assert len(shapes) == 2
    assert [m.total for m in shapes] == [_total(net)] * 2
    (state,) = [m for m in shapes if any("named_parameters()" in n for n in m.notes)]
    assert any(note.startswith("pe in the state dict") for note in state.notes)
    assert any("buffer" in note and "not counted" in note for note in state.notes)


@pytest.mark.parametrize("heading", ["for n, b in net.named_buffers(): print(n, b.shape)",
                                     "Buffers:", "## buffers"],
                         ids=["named_buffers-loop", "heading", "markdown-heading"])
def test_a_buffers_listing_joins_the_parameters_above(heading: str) -> None:
    """``named_buffers()`` printed after ``named_parameters()``: one model, its one buffer
    ``pe`` shown and not counted."""
    net = _net()
    answer = read(_parameters(net) + "\n" + _buffers(net, heading))
    (model,) = [m for m in answer.models if m.source == "shapes"]
    assert model.total == _total(net)
    assert any("pe" in note and "not counted" in note for note in model.notes)
    assert model.accounting.whole


@pytest.mark.parametrize("beside", [True, False], ids=["another-models-parameters", "alone"])
def test_a_state_dict_nothing_tells_names_what_it_cannot_tell(beside: bool) -> None:
    """A state dict alone, or beside ``named_parameters()`` of another model (a GRU of another
    width): ``pe`` stays counted, as no listing says it is a buffer, and the answer says a
    buffer under a name of its own cannot be told here."""
    net, other = _net(), _net(16)
    answer = read((_parameters(other) + "\n" if beside else "") + _state(net))
    (state,) = [m for m in answer.models if m.source == "shapes" and any(
        t[0] == "pe" for t in m.tensors)]
    assert state.total == _total(net) + 50 * 32
    assert any("cannot be told from a parameter" in note for note in state.notes)
