"""Compute counts against torch: an unrolled layer reproduces nn.LSTM/GRU/RNN, and its FLOPs match.

The unrolled layer runs the documented cell equations step by step with ``nn.Linear`` ops and
the real module's weights; ``torch.utils.flop_counter.FlopCounterMode`` counts its matmul FLOPs
(2 per multiply-accumulate), which must equal paramcount's ``matmul_flops`` exactly, per layer
and direction. Packed batches run only the real time steps, as ``pack_padded_sequence`` does.
"""

from __future__ import annotations

from typing import Any

import pytest

from paramcount.analysis.compute import forward
from paramcount.engine.conventions import Direction
from paramcount.engine.spec import Cell, LayerSpec

torch = pytest.importorskip("torch")
nn = torch.nn

pytestmark = pytest.mark.torch

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _linear(weight: Any, bias: Any | None) -> Any:
    """An nn.Linear holding a copy of ``weight`` (out, in) and ``bias``."""
    out_features, in_features = weight.shape
    layer = nn.Linear(in_features, out_features, bias=bias is not None, dtype=weight.dtype)
    with torch.no_grad():
        layer.weight.copy_(weight)
        if bias is not None:
            layer.bias.copy_(bias)
    return layer


def _step(mode: str, x_part: Any, h_part: Any, h: Any, c: Any | None) -> tuple[Any, Any | None]:
    """One step of the documented cell equations, from the input and recurrent products."""
    if mode == "LSTM":
        i, f, g, o = (x_part + h_part).chunk(4, dim=1)
        i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
        c = f * c + i * g
        return o * torch.tanh(c), c
    if mode == "GRU":
        x_r, x_z, x_n = x_part.chunk(3, dim=1)
        h_r, h_z, h_n = h_part.chunk(3, dim=1)
        r, z = torch.sigmoid(x_r + h_r), torch.sigmoid(x_z + h_z)
        n = torch.tanh(x_n + r * h_n)
        return (1 - z) * n + z * h, None
    act = torch.tanh if mode == "RNN_TANH" else torch.relu
    return act(x_part + h_part), None


def unrolled(
    module: Any, x: Any, lengths: list[int] | None, flops: dict[tuple[int, str], int]
) -> Any:
    """Run ``module`` (batch_first) step by step with nn.Linear ops; record FLOPs per direction."""
    from torch.utils.flop_counter import FlopCounterMode

    mode = module.mode
    hidden, proj = module.hidden_size, module.proj_size
    width = proj or hidden
    n, t = x.shape[0], x.shape[1]
    lens = torch.tensor(lengths if lengths is not None else [t] * n)
    layer_input = x
    for layer in range(module.num_layers):
        outputs = []
        for d, direction in enumerate(list(Direction)[: 2 if module.bidirectional else 1]):
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            p = dict(module.named_parameters())
            bias = module.bias
            lin_ih = _linear(p["weight_ih" + sfx], p["bias_ih" + sfx] if bias else None)
            lin_hh = _linear(p["weight_hh" + sfx], p["bias_hh" + sfx] if bias else None)
            lin_hr = _linear(p["weight_hr" + sfx], None) if proj else None
            h = torch.zeros(n, width, dtype=x.dtype)
            c = torch.zeros(n, hidden, dtype=x.dtype)
            out = torch.zeros(n, t, width, dtype=x.dtype)
            with FlopCounterMode(display=False) as counter:
                for step in range(t) if d == 0 else reversed(range(t)):
                    active = (lens > step).nonzero().squeeze(1)
                    h_new, c_new = _step(
                        mode, lin_ih(layer_input[active, step]), lin_hh(h[active]), h[active],
                        c[active] if mode == "LSTM" else None,
                    )
                    if lin_hr is not None:
                        h_new = lin_hr(h_new)
                    h = h.index_copy(0, active, h_new)
                    if c_new is not None:
                        c = c.index_copy(0, active, c_new)
                    out[active, step] = h_new
            flops[(layer, direction.value)] = counter.get_total_flops()
            outputs.append(out)
        layer_input = torch.cat(outputs, dim=2)
    return layer_input


def real(module: Any, x: Any, lengths: list[int] | None) -> Any:
    """The real module's output (batch_first), packed when ``lengths`` is given."""
    from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    if lengths is None:
        return module(x)[0]
    packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
    out, _ = pad_packed_sequence(module(packed)[0], batch_first=True, total_length=x.shape[1])
    return out


CASES = [
    # cell, kwargs, N, T, lengths
    ("lstm", {}, 2, 4, None),
    ("lstm", {"num_layers": 2, "bidirectional": True}, 3, 5, None),
    ("lstm", {"num_layers": 3, "bidirectional": True, "proj_size": 3}, 2, 4, None),
    ("lstm", {"num_layers": 2, "bias": False, "proj_size": 2}, 2, 3, None),
    ("gru", {"num_layers": 2, "bidirectional": True}, 2, 4, None),
    ("gru", {"bias": False}, 3, 3, None),
    ("rnn", {"nonlinearity": "tanh", "num_layers": 2}, 2, 3, None),
    ("rnn", {"nonlinearity": "relu", "bidirectional": True, "bias": False}, 2, 3, None),
    ("lstm", {"num_layers": 2, "bidirectional": True}, 3, 6, [6, 3, 1]),
    ("lstm", {"bidirectional": True, "proj_size": 2}, 3, 5, [2, 5, 4]),
    ("gru", {"num_layers": 2, "bidirectional": True, "bias": False}, 4, 5, [5, 5, 2, 1]),
    ("rnn", {"nonlinearity": "tanh", "bidirectional": True}, 2, 4, [1, 3]),
]
IDS = [
    f"{c}-" + "-".join(f"{k}={v}" for k, v in kw.items()) + f"-N{n}T{t}" + ("-packed" if ls else "")
    for c, kw, n, t, ls in CASES
]


def _module(cell: str, kwargs: dict[str, Any], input_size: int, hidden: int) -> Any:
    kwargs = dict(kwargs)
    nonlinearity = kwargs.pop("nonlinearity", None)
    torch.manual_seed(0)
    if cell == "rnn":
        return nn.RNN(input_size, hidden, nonlinearity=nonlinearity, batch_first=True,
                      dtype=torch.float64, **kwargs)
    cls = nn.LSTM if cell == "lstm" else nn.GRU
    return cls(input_size, hidden, batch_first=True, dtype=torch.float64, **kwargs)


def _spec(cell: str, kwargs: dict[str, Any], input_size: int, hidden: int) -> LayerSpec:
    return LayerSpec(Cell(cell), input_size, hidden, **kwargs)


@pytest.mark.parametrize(("cell", "kwargs", "n", "t", "lengths"), CASES, ids=IDS)
def test_unrolled_layer_is_the_real_computation(
    cell: str, kwargs: dict[str, Any], n: int, t: int, lengths: list[int] | None
) -> None:
    """The step-by-step nn.Linear layer gives the real module's output with its weights."""
    module = _module(cell, kwargs, 3, 5)
    x = torch.randn(n, t, 3, dtype=torch.float64)
    with torch.no_grad():
        expected = real(module, x, lengths)
        actual = unrolled(module, x, lengths, {})
    assert actual.shape == expected.shape
    assert torch.allclose(actual, expected, atol=1e-10)


@pytest.mark.parametrize(("cell", "kwargs", "n", "t", "lengths"), CASES, ids=IDS)
def test_matmul_flops_match_flop_counter(
    cell: str, kwargs: dict[str, Any], n: int, t: int, lengths: list[int] | None
) -> None:
    """FlopCounterMode's matmul FLOPs of the unrolled layer equal 2 × paramcount's MACs."""
    input_size, hidden = 7, 6
    module = _module(cell, kwargs, input_size, hidden)
    x = torch.randn(n, t, input_size, dtype=torch.float64)
    measured: dict[tuple[int, str], int] = {}
    with torch.no_grad():
        unrolled(module, x, lengths, measured)
    compute = forward(_spec(cell, kwargs, input_size, hidden), seq_len=t, batch=n,
                      lengths=lengths)
    assert {(r.layer, r.direction.value): r.matmul_flops for r in compute.rows} == measured
    assert compute.matmul_flops == sum(measured.values())


@pytest.mark.parametrize(
    ("cls", "cell", "mode"),
    [("LSTMCell", "lstm", "LSTM"), ("GRUCell", "gru", "GRU"), ("RNNCell", "rnn", "RNN_TANH")],
    ids=["lstm-cell", "gru-cell", "rnn-cell"],
)
def test_single_cell_steps(cls: str, cell: str, mode: str) -> None:
    """T calls of nn.LSTMCell/GRUCell/RNNCell: unrolled output and FLOPs match the real cell."""
    from torch.utils.flop_counter import FlopCounterMode

    torch.manual_seed(0)
    real_cell = getattr(nn, cls)(4, 5, dtype=torch.float64)
    x = torch.randn(3, 6, 4, dtype=torch.float64)
    lin_ih = _linear(real_cell.weight_ih, real_cell.bias_ih)
    lin_hh = _linear(real_cell.weight_hh, real_cell.bias_hh)
    h = torch.zeros(3, 5, dtype=torch.float64)
    c = torch.zeros(3, 5, dtype=torch.float64)
    state: Any = (h, c) if mode == "LSTM" else h
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        for step in range(6):
            h, c_new = _step(mode, lin_ih(x[:, step]), lin_hh(h), h, c)
            c = c_new if c_new is not None else c
    with torch.no_grad():
        for step in range(6):
            state = real_cell(x[:, step], state)
    expected = state[0] if mode == "LSTM" else state
    assert torch.allclose(h, expected, atol=1e-10)
    spec = LayerSpec(Cell(cell), 4, 5, single_cell=True)
    assert counter.get_total_flops() == forward(spec, seq_len=6, batch=3).matmul_flops
