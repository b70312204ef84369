"""Compute counts against Keras: an unrolled torch layer reproduces Keras' output, FLOPs match.

The Keras cells differ from torch's where it matters for compute: one bias per gate block, the
gate order z, r, h of GRU, and with ``reset_after=False`` the reset gate multiplies h *before*
the recurrent product of the candidate. The unrolled layer follows Keras' own equations with
the real layer's weights, must reproduce its output, and FlopCounterMode counts its matmuls.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from paramcount.analysis.compute import forward
from paramcount.engine.spec import Cell, Framework, LayerSpec

torch = pytest.importorskip("torch")
pytest.importorskip("tensorflow")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
keras = pytest.importorskip("keras")

pytestmark = [pytest.mark.keras, pytest.mark.torch]


def _step(cell: str, reset_after: bool, x: Any, h: Any, c: Any, w: dict[str, Any]) -> Any:
    """One step of Keras' cell equations; returns (h', c')."""
    kernel, recurrent, bias = w["kernel"], w["recurrent_kernel"], w.get("bias")
    units = recurrent.shape[0]
    if cell == "lstm":
        z = torch.matmul(x, kernel) + torch.matmul(h, recurrent)
        if bias is not None:
            z = z + bias
        i, f, g, o = z.split(units, dim=1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        return torch.sigmoid(o) * torch.tanh(c), c
    if cell == "gru":
        b_in = b_rec = None
        if bias is not None:
            b_in, b_rec = (bias[0], bias[1]) if reset_after else (bias, None)
        mx = torch.matmul(x, kernel) + (b_in if b_in is not None else 0)
        x_z, x_r, x_h = mx.split(units, dim=1)
        if reset_after:
            inner = torch.matmul(h, recurrent) + (b_rec if b_rec is not None else 0)
            r_z, r_r, r_h = inner.split(units, dim=1)
            z, r = torch.sigmoid(x_z + r_z), torch.sigmoid(x_r + r_r)
            hh = torch.tanh(x_h + r * r_h)
        else:
            inner = torch.matmul(h, recurrent[:, : 2 * units])
            r_z, r_r = inner.split(units, dim=1)
            z, r = torch.sigmoid(x_z + r_z), torch.sigmoid(x_r + r_r)
            hh = torch.tanh(x_h + torch.matmul(r * h, recurrent[:, 2 * units :]))
        return z * h + (1 - z) * hh, c
    out = torch.matmul(x, kernel) + torch.matmul(h, recurrent)
    return torch.tanh(out + bias if bias is not None else out), c


CASES = [
    ("lstm", {}, None),
    ("lstm", {"use_bias": False}, "sum"),
    ("gru", {}, "concat"),
    ("gru", {"reset_after": False}, "ave"),
    ("gru", {"reset_after": False, "use_bias": False}, None),
    ("rnn", {}, "mul"),
]
IDS = [f"{c}-{'-'.join(f'{k}={v}' for k, v in kw.items())}-{m}" for c, kw, m in CASES]


@pytest.mark.parametrize(("cell", "options", "merge"), CASES, ids=IDS)
def test_keras_unrolled(cell: str, options: dict[str, Any], merge: str | None) -> None:
    """Keras' cell equations with the real weights give its output; matmul FLOPs = 2 × MACs."""
    from torch.utils.flop_counter import FlopCounterMode

    n, t, width, units, layers = 2, 4, 3, 5, 2
    cls = {"lstm": keras.layers.LSTM, "gru": keras.layers.GRU, "rnn": keras.layers.SimpleRNN}
    keras.utils.set_random_seed(0)
    stack = []
    for _ in range(layers):
        layer = cls[cell](units, return_sequences=True, **options)
        stack.append(keras.layers.Bidirectional(layer, merge_mode=merge) if merge else layer)
    model = keras.Sequential([keras.Input((t, width)), *stack])
    x = keras.random.normal((n, t, width), seed=1)
    expected = torch.tensor(keras.ops.convert_to_numpy(model(x)), dtype=torch.float64)

    directions = ["forward", "backward"] if merge else ["forward"]
    flops: dict[tuple[int, str], int] = {}
    layer_input = torch.tensor(keras.ops.convert_to_numpy(x), dtype=torch.float64)
    for index, wrapper in enumerate(stack):
        inner = [wrapper.forward_layer, wrapper.backward_layer] if merge else [wrapper]
        outputs = []
        for direction, rnn in zip(directions, inner, strict=True):
            w = {v.path.split("/")[-1]: torch.tensor(v.numpy(),
                                                     dtype=torch.float64)
                 for v in rnn.weights}
            h = torch.zeros(n, units, dtype=torch.float64)
            c = torch.zeros(n, units, dtype=torch.float64)
            out = torch.zeros(n, t, units, dtype=torch.float64)
            steps = range(t) if direction == "forward" else reversed(range(t))
            reset_after = options.get("reset_after", True)
            with FlopCounterMode(display=False) as counter:
                for step in steps:
                    h, c = _step(cell, reset_after, layer_input[:, step], h, c, w)
                    out[:, step] = h
            flops[(index, direction)] = counter.get_total_flops()
            outputs.append(out)
        if not merge:
            layer_input = outputs[0]
        elif merge == "concat":
            layer_input = torch.cat(outputs, dim=2)
        elif merge == "sum":
            layer_input = outputs[0] + outputs[1]
        elif merge == "ave":
            layer_input = (outputs[0] + outputs[1]) / 2
        else:
            layer_input = outputs[0] * outputs[1]
    assert torch.allclose(layer_input, expected, atol=1e-5)

    spec = LayerSpec(
        Cell(cell), width, units, num_layers=layers, bidirectional=merge is not None,
        bias=options.get("use_bias", True), framework=Framework.KERAS,
        merge_modes=(merge,) if merge else None,  # type: ignore[arg-type]
        reset_after=options.get("reset_after") if cell == "gru" else None,
    )
    compute = forward(spec, seq_len=t, batch=n)
    assert {(r.layer, r.direction.value): r.matmul_flops for r in compute.rows} == flops
