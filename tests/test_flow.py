"""The pure flow claims of ``paramcount shapes``: shapes, h_n order, equal slices, h_0 entry."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paramcount.analysis.flow import keras_flow, torch_flow
from paramcount.engine.conventions import Direction
from paramcount.engine.spec import Cell, LayerSpec
from tests.conftest import CLI

SHAPES = [
    ("q4-time-major", LayerSpec(Cell.RNN, 25, 50, 4, True), 3, 7, False,
     {"input": (7, 3, 25), "output": (7, 3, 100), "h_n": (8, 3, 50)}),
    ("q4-batch-first", LayerSpec(Cell.RNN, 25, 50, 4, True), 3, 7, True,
     {"input": (3, 7, 25), "output": (3, 7, 100), "h_n": (8, 3, 50)}),
    ("lstm-proj", LayerSpec(Cell.LSTM, 10, 20, 3, True, proj_size=5), 2, 4, True,
     {"input": (2, 4, 10), "output": (2, 4, 10), "h_n": (6, 2, 5), "c_n": (6, 2, 20)}),
    ("gru-uni", LayerSpec(Cell.GRU, 8, 16, 2), 1, 9, False,
     {"input": (9, 1, 8), "output": (9, 1, 16), "h_n": (2, 1, 16)}),
]


@pytest.mark.parametrize(("spec", "n", "t", "batch_first", "expected"),
                         [s[1:] for s in SHAPES], ids=[s[0] for s in SHAPES])
def test_torch_shapes(spec: LayerSpec, n: int, t: int, batch_first: bool,
                      expected: dict[str, tuple[int, ...]]) -> None:
    """Input, output, h_n (and c_n, H wide even with proj_size) have the framework's shapes."""
    flow = torch_flow(spec, n, t, batch_first)
    assert {s.name: s.shape for s in flow.shapes} == expected


@pytest.mark.parametrize(
    ("batch_first", "claims"),
    [
        (False, ["output[-1, :, :50] == h_n[-2]", "output[0, :, 50:] == h_n[-1]"]),
        (True, ["output[:, -1, :50] == h_n[-2]", "output[:, 0, 50:] == h_n[-1]"]),
    ],
    ids=["time-major", "batch-first"],
)
def test_bidirectional_slices(batch_first: bool, claims: list[str]) -> None:
    """The last forward step and the first backward step are the last layer's h_n entries."""
    flow = torch_flow(LayerSpec(Cell.RNN, 25, 50, 4, True), 3, 7, batch_first)
    assert [c.text for c in flow.slices] == claims
    assert [(c.time, c.start, c.stop, c.index) for c in flow.slices] == [
        (6, 0, 50, -2), (0, 50, None, -1)
    ]


def test_projected_slices_use_p() -> None:
    """With proj_size the output columns per direction are P wide."""
    flow = torch_flow(LayerSpec(Cell.LSTM, 10, 20, 2, True, proj_size=5), 2, 4, True)
    assert [c.text for c in flow.slices] == [
        "output[:, -1, :5] == h_n[-2]", "output[:, 0, 5:] == h_n[-1]"
    ]


def test_unidirectional_slice() -> None:
    """Unidirectional: the last step's output is h_n[-1]."""
    flow = torch_flow(LayerSpec(Cell.GRU, 8, 16, 2), 1, 9)
    assert [c.text for c in flow.slices] == ["output[-1, :, :] == h_n[-1]"]


@given(
    layers=st.integers(1, 6),
    bidirectional=st.booleans(),
    seq_len=st.integers(1, 50),
)
def test_h_n_order(layers: int, bidirectional: bool, seq_len: int) -> None:
    """h_n is ordered [l0 fwd, l0 bwd, l1 fwd, …]; backward h_0 enters at t = T − 1."""
    spec = LayerSpec(Cell.LSTM, 3, 4, layers, bidirectional)
    flow = torch_flow(spec, 2, seq_len)
    d = spec.directions
    assert [s.index for s in flow.slots] == list(range(d * layers))
    for slot in flow.slots:
        assert slot.layer == slot.index // d
        assert slot.direction is list(Direction)[slot.index % d]
        backward = slot.direction is Direction.BACKWARD
        assert slot.step == (seq_len - 1 if backward else 0)
        assert slot.last_step == (0 if backward else seq_len - 1)


KERAS = [
    ("concat", ("concat",), ["input", "output", "forward_h", "forward_c", "backward_h",
                             "backward_c"], (2, 5, 8)),
    ("sum", ("sum",), ["input", "output", "forward_h", "forward_c", "backward_h", "backward_c"],
     (2, 5, 4)),
    ("none", ("none",), ["input", "output[0]", "output[1]", "forward_h", "forward_c",
                         "backward_h", "backward_c"], (2, 5, 4)),
]


@pytest.mark.parametrize(("modes", "names", "output"), [k[1:] for k in KERAS],
                         ids=[k[0] for k in KERAS])
def test_keras_return_state(modes: tuple[str, ...], names: list[str],
                            output: tuple[int, ...]) -> None:
    """Keras Bidirectional with return_state returns the output, then each direction's states."""
    spec = LayerSpec(Cell.LSTM, 3, 4, bidirectional=True, framework="keras",
                     merge_modes=modes)  # type: ignore[arg-type]
    flow = keras_flow(spec, 2, 5)
    assert [s.name for s in flow.shapes] == names
    assert flow.shapes[1].shape == output
    assert [s.index for s in flow.slots] == [0, 2]


def test_shapes_command_without_verify(cli: CLI) -> None:
    """Without --verify, shapes prints the claims and imports no framework."""
    result = cli("shapes", "rnn", "-i", "25", "-H", "50", "-L", "4", "--bidir",
                 "--batch", "3", "--seq-len", "7", "--batch-first")
    assert result.code == 0, result.err
    assert "output[:, -1, :50] == h_n[-2]" in result.out
    assert "h_n     (8, 3, 50)" in result.out
    assert "✓" not in result.out


BAD = [
    ("cell", ["lstm", "-i", "3", "-H", "4", "--cell"], "drop --cell"),
    ("all", ["lstm", "-i", "3", "-H", "4", "-f", "all"],
     "'all': this command answers for one framework at a time; give one of torch, keras"),
    ("onnx", ["lstm", "-i", "3", "-H", "4", "-f", "onnx"],
     "'onnx' is not one of torch, keras (ONNX is not available to this command)"),
    ("peepholes", ["lstm", "-i", "3", "-H", "4", "--peepholes"], "--peepholes: peepholes are"),
    ("batch-zero", ["lstm", "-i", "3", "-H", "4", "--batch", "0"], "--batch"),
    ("seq-zero", ["lstm", "-i", "3", "-H", "4", "--seq-len", "0"], "--seq-len"),
    ("format", ["lstm", "-i", "3", "-H", "4", "--format", "yaml"], "'yaml' is not one of"),
]


@pytest.mark.parametrize("command", ["shapes", "trace"])
@pytest.mark.parametrize(("args", "message"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input(cli: CLI, command: str, args: list[str], message: str) -> None:
    """Bad input to shapes and trace is one line on stderr and exit 2."""
    result = cli(command, *args)
    assert result.code == 2, result.out
    assert message in result.err
    assert result.err.count("\n") == 1
