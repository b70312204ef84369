"""The pure core of ``inspect``: the command line that reproduces a layer, dtype sizes, and
``--as`` conversions checked against the real torch modules."""

from __future__ import annotations

import contextlib
import io
import json
import shlex

import pytest
from hypothesis import given, settings

from paramcount.cli.main import run
from paramcount.engine import conventions
from paramcount.engine.commandline import command_line
from paramcount.engine.spec import Cell, Framework, LayerSpec
from paramcount.files.inspect import convert, inspect, module_of, tensor_bytes
from paramcount.files.listing import Listing, NamedTensor
from tests.strategies import layer_specs
from tests.strategies_more import more_specs


def counted_by_cli(command: str) -> int:
    """The total that running ``command`` (a ``paramcount`` line) prints as JSON."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert run([*shlex.split(command)[1:], "--json"]) == 0
    data = json.loads(out.getvalue())
    return int(data["total"])


@settings(max_examples=150, deadline=None)
@given(spec=layer_specs() | more_specs())
def test_command_line_reproduces_every_spec(spec: LayerSpec) -> None:
    """The command printed for a layer, run, counts exactly that layer, in any convention."""
    assert counted_by_cli(command_line(spec)) == conventions.total(spec)


def engine_listing(spec: LayerSpec, prefix: str = "") -> Listing:
    """The tensors the engine writes for ``spec``, as a reader would list them."""
    return Listing("x", "test", tuple(
        NamedTensor(prefix + t.name, t.shape, "float32") for t in conventions.tensors(spec)))


TO_TORCH = [
    LayerSpec(Cell.GRU, 7, 5, 2, bidirectional=True, framework=Framework.KERAS,
              reset_after=False),
    LayerSpec(Cell.GRU, 7, 5, framework=Framework.KERAS),
    LayerSpec(Cell.LSTM, 3, 9, 3, bidirectional=True, framework=Framework.KERAS),
    LayerSpec(Cell.RNN, 4, 6, framework=Framework.KERAS),
    LayerSpec(Cell.LSTM, 3, 9, 2, bidirectional=True, framework=Framework.ONNX),
    LayerSpec(Cell.GRU, 3, 9, framework=Framework.ONNX, bias=False),
]


@pytest.mark.parametrize("spec", TO_TORCH, ids=[conventions.describe(s) for s in TO_TORCH])
def test_as_torch_is_the_real_torch_module(spec: LayerSpec) -> None:
    """A Keras or ONNX layer counted the PyTorch way equals the real nn module's count, and
    the difference is named by the bias layouts."""
    torch = pytest.importorskip("torch")
    report = inspect(engine_listing(spec, "enc/"), Framework.TORCH)
    assert report.conversion is not None
    module = getattr(torch.nn, spec.cell.value.upper())(
        spec.input_size, spec.hidden_size, num_layers=spec.num_layers, bias=spec.bias,
        bidirectional=spec.bidirectional)
    assert report.conversion.total == sum(p.numel() for p in module.parameters())
    for difference in report.conversion.differences:
        assert "bias" in difference.what


def test_onnx_to_keras_names_the_zero_half() -> None:
    """ONNX's B counted the Keras way drops one bias vector per gate block, and says that
    half is zeros when the model came from Keras."""
    spec = LayerSpec(Cell.LSTM, 3, 4, framework=Framework.ONNX)
    conversion = convert(inspect(engine_listing(spec)), Framework.KERAS)
    (difference,) = conversion.differences
    assert difference.delta == -16
    assert "zeros when the file was exported from Keras" in difference.what


def test_projection_has_no_keras_equivalent() -> None:
    """A layer another framework cannot build is counted as stored, with the reason."""
    spec = LayerSpec(Cell.LSTM, 3, 4, proj_size=2)
    conversion = convert(inspect(engine_listing(spec)), Framework.KERAS)
    (difference,) = conversion.differences
    assert difference.delta == 0 and "has no Keras equivalent" in difference.what


@pytest.mark.parametrize(
    ("name", "module"),
    [("encoder.lstm.weight_ih_l0", "encoder.lstm"), ("lstm/lstm_cell/kernel", "lstm/lstm_cell"),
     ("bias", ""), ("/Constant_output_0", ""), ("onnx::LSTM_12", "")],
)
def test_module_of(name: str, module: str) -> None:
    """A tensor's module is its name up to the last '.' or '/'."""
    assert module_of(name) == module


@pytest.mark.parametrize(
    ("dtype", "shape", "expected"),
    [("float32", (3, 5), 60), ("bfloat16", (7,), 14), ("bool", (9,), 9),
     ("float6_e2m3fn", (3,), 3), ("int64", (), 8), (None, (4,), None), ("weird", (4,), None)],
)
def test_tensor_bytes(dtype: str | None, shape: tuple[int, ...], expected: int | None) -> None:
    """Bytes follow the dtype's width (rounded up for sub-byte types); unknown is None."""
    assert tensor_bytes(NamedTensor("t", shape, dtype)) == expected


def test_unknown_dtype_leaves_bytes_unknown() -> None:
    """A dtype without a known size is listed with null bytes, and left out of the total."""
    listing = Listing("x", "test", (NamedTensor("a", (2,), "float32"),
                                    NamedTensor("b", (3,), "mystery")))
    report = inspect(listing)
    assert [(d.dtype, d.bytes) for d in report.dtypes] == [("float32", 8), ("mystery", None)]
    assert report.bytes == 8


ROLES = ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_hr_l0",
         "weight_ih_l1", "weight_hh_l1_reverse", "weight_ih", "weight_hh", "bias_ih",
         "weight_hh_l0_raw", "running_mean", "num_batches_tracked",
         "lstm_cell/kernel", "lstm_cell/recurrent_kernel", "lstm_cell/bias",
         "forward_gru/gru_cell/kernel", "backward_gru/gru_cell/bias", "layer0/W", "layer0/R",
         "layer0/B", "cell/ii/kernel", "cell/hf/bias", "kernel", "bias")


def test_any_listing_is_explained_without_crashing() -> None:
    """Whatever names and shapes a hostile file claims (empty, zero-sized, mismatched
    recurrent-looking tensors), inspect and every --as conversion return a report."""
    from hypothesis import strategies as st

    names = st.tuples(st.sampled_from(["", "rnn.", "a.b.", "m/", "module."]),
                      st.sampled_from(ROLES)).map("".join)
    shapes = st.lists(st.integers(0, 9), max_size=3).map(tuple)
    tensors = st.lists(st.tuples(names, shapes), max_size=12, unique_by=lambda t: t[0])

    @settings(max_examples=300, deadline=None)
    @given(tensors=tensors)
    def check(tensors: list[tuple[str, tuple[int, ...]]]) -> None:
        listing = Listing("x", "test", tuple(NamedTensor(n, s, "float32") for n, s in tensors))
        report = inspect(listing)
        assert report.total == sum(t.count for t in listing.tensors)
        for framework in (Framework.TORCH, Framework.KERAS, Framework.ONNX):
            convert(report, framework)

    check()
