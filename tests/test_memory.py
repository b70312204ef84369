"""Training memory: the accounting, the cuDNN note, bad values, and the real optimizers' state."""

from __future__ import annotations

from typing import Any

import pytest

from paramcount.analysis.memory import Optimizer, cudnn_bias_slots, training_memory
from paramcount.engine.spec import Cell, Framework, LayerSpec
from paramcount.errors import SpecError

SPEC = LayerSpec(Cell.LSTM, 32, 128, num_layers=2, bidirectional=True)  # 561,152, 16 tensors
N = 561_152

TABLE = [
    ("sgd", "fp32", False, 8 * N),
    ("momentum", "fp32", False, 12 * N),
    ("adam", "fp32", False, 16 * N + 4 * 16),
    ("adamw", "bf16", False, 8 * N + 4 * 16),
    ("momentum", "fp16", False, 6 * N),
    ("adam", "bf16", True, 16 * N + 4 * 16),
    ("sgd", "fp16", True, 8 * N),
    ("adam", "fp64", False, 32 * N + 4 * 16),
]


@pytest.mark.parametrize(("optimizer", "dtype", "mixed", "expected"), TABLE,
                         ids=[f"{o}-{d}{'-mixed' if m else ''}" for o, d, m, _ in TABLE])
def test_bytes(optimizer: str, dtype: str, mixed: bool, expected: int) -> None:
    """Weights, gradients, master weights and state add up as formulas.md derives."""
    assert training_memory(SPEC, optimizer, dtype, mixed).bytes == expected


def test_keras_scalars() -> None:
    """Keras optimizers add an int64 iteration and a float32 learning rate, no step per tensor."""
    memory = training_memory(SPEC.replace(framework=Framework.KERAS), "adam")
    keras_total = 2 * (512 * (32 + 128 + 1)) + 2 * (512 * (256 + 128 + 1))
    assert memory.bytes == 16 * keras_total + 12


@pytest.mark.parametrize(
    ("spec", "values"),
    [(LayerSpec(Cell.LSTM, 32, 128, num_layers=2, bias=False), 2 * 512 * 2),
     (LayerSpec(Cell.GRU, 8, 16, num_layers=3, bidirectional=True, bias=False), 2 * 48 * 2 * 3),
     (LayerSpec(Cell.LSTM, 8, 16, proj_size=4, bias=False), 2 * 64),
     (LayerSpec(Cell.LSTM, 8, 16), None),
     (LayerSpec(Cell.LSTM, 8, 16, bias=False, single_cell=True), None),
     (LayerSpec(Cell.LSTM, 8, 16, bias=False, framework=Framework.KERAS), None)],
    ids=["lstm-2-layers", "gru-bidir-3-layers", "lstm-proj", "with-bias", "cell", "keras"],
)
def test_cudnn_bias_slots(spec: LayerSpec, values: int | None) -> None:
    """Only torch layers without biases get the note: 2·G·H·D·L zeroed slots."""
    slots = cudnn_bias_slots(spec)
    assert (slots.values if slots else None) == values


BAD = [
    ({"optimizer": "adamx"}, "optimizer='adamx' is not one of"),
    ({"optimizer": "adam", "dtype": "int8"}, "dtype='int8' weights are not trained"),
    ({"optimizer": "adam", "dtype": "fp32", "mixed_precision": True},
     "dtype='fp32' cannot be the low-precision copy"),
]


@pytest.mark.parametrize(("kwargs", "message"), BAD, ids=["unknown", "int8", "mixed-fp32"])
def test_bad_values(kwargs: dict[str, Any], message: str) -> None:
    """Untrainable or contradictory settings raise SpecError."""
    with pytest.raises(SpecError, match=message):
        training_memory(SPEC, **kwargs)


def _torch_optimizer(torch: Any, name: str, params: Any) -> Any:
    if name == "sgd":
        return torch.optim.SGD(params, lr=0.1)
    if name == "momentum":
        return torch.optim.SGD(params, lr=0.1, momentum=0.9)
    return {"adam": torch.optim.Adam, "adamw": torch.optim.AdamW}[name](params)


TORCH_CASES = [
    (LayerSpec(Cell.LSTM, 6, 8, num_layers=2, bidirectional=True), "fp32"),
    (LayerSpec(Cell.LSTM, 6, 8, num_layers=2, proj_size=3, bias=False), "bf16"),
    (LayerSpec(Cell.GRU, 5, 7, bidirectional=True), "fp16"),
    (LayerSpec(Cell.RNN, 5, 7, num_layers=3), "fp64"),
]


@pytest.mark.torch
@pytest.mark.filterwarnings("ignore:LSTM with projections is not supported with oneDNN")
@pytest.mark.parametrize("optimizer", [o.value for o in Optimizer])
@pytest.mark.parametrize(("spec", "dtype"), TORCH_CASES,
                         ids=["lstm-bidir-fp32", "lstm-proj-bf16", "gru-fp16", "rnn-fp64"])
def test_matches_torch_optimizers(spec: LayerSpec, dtype: str, optimizer: str) -> None:
    """After one step of the real optimizer, weights, grads and state take exactly these bytes."""
    torch = pytest.importorskip("torch")
    torch_dtype = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16,
                   "fp64": torch.float64}[dtype]
    cls = {Cell.LSTM: torch.nn.LSTM, Cell.GRU: torch.nn.GRU, Cell.RNN: torch.nn.RNN}[spec.cell]
    extra = {"proj_size": spec.proj_size} if spec.proj_size else {}
    module = cls(spec.input_size, spec.hidden_size, num_layers=spec.num_layers,
                 bidirectional=spec.bidirectional, bias=spec.bias, dtype=torch_dtype, **extra)
    opt = _torch_optimizer(torch, optimizer, module.parameters())
    x = torch.randn(3, 2, spec.input_size, dtype=torch_dtype)
    module(x)[0].float().sum().backward()
    opt.step()

    def nbytes(tensors: Any) -> int:
        return sum(t.numel() * t.element_size() for t in tensors)

    lines = {line.name: line.bytes for line in training_memory(spec, optimizer, dtype).lines}
    assert lines["parameters"] == nbytes(module.parameters())
    assert lines["gradients"] == nbytes(p.grad for p in module.parameters())
    state = [v for s in opt.state.values() for v in s.values() if torch.is_tensor(v)]
    assert lines.get("optimizer state", 0) + lines.get("step counters", 0) == nbytes(state)


@pytest.mark.keras
@pytest.mark.parametrize("optimizer", [o.value for o in Optimizer])
def test_matches_keras_optimizers(optimizer: str) -> None:
    """A built Keras optimizer's variables take exactly the state and scalar bytes counted."""
    keras = pytest.importorskip("keras")
    layer = keras.layers.Bidirectional(keras.layers.GRU(7, return_sequences=True))
    model = keras.Sequential([keras.Input((4, 5)), layer, keras.layers.LSTM(3)])
    opt = {
        "sgd": lambda: keras.optimizers.SGD(),
        "momentum": lambda: keras.optimizers.SGD(momentum=0.9),
        "adam": lambda: keras.optimizers.Adam(),
        "adamw": lambda: keras.optimizers.AdamW(),
    }[optimizer]()
    opt.build(model.trainable_variables)
    size = {"float32": 4, "int64": 8}
    measured = sum(
        int(keras.ops.size(v)) * size[str(v.dtype)] for v in opt.variables
    )
    gru = LayerSpec(Cell.GRU, 5, 7, bidirectional=True, framework=Framework.KERAS)
    lstm = LayerSpec(Cell.LSTM, 14, 3, framework=Framework.KERAS)
    counted = 0
    for spec in (gru, lstm):
        lines = {line.name: line.bytes for line in training_memory(spec, optimizer).lines}
        counted += lines.get("optimizer state", 0)
    assert measured == counted + 12
