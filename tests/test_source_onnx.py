"""The ONNX file reader against files written by the real onnx package and torch's exporters."""

from __future__ import annotations

import os
import random
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramcount.engine import conventions
from paramcount.engine.spec import Cell, Framework, LayerSpec, Nonlinearity
from paramcount.errors import ParamcountError
from paramcount.files import onnx_file
from tests.conftest import CLI

onnx = pytest.importorskip("onnx")
pytestmark = pytest.mark.onnx

from onnx import TensorProto, helper  # noqa: E402

FLOAT = TensorProto.FLOAT


def init(name: str, dims: list[int], dtype: int = FLOAT) -> Any:
    """An initializer of zeros (the reader never looks at the values)."""
    size = 1
    for d in dims:
        size *= d
    np = pytest.importorskip("numpy")
    from onnx import numpy_helper

    dtypes = {FLOAT: np.float32, TensorProto.FLOAT16: np.float16, TensorProto.INT64: np.int64,
              TensorProto.INT8: np.int8}
    return numpy_helper.from_array(np.zeros(dims, dtypes[dtype]), name)


def constant(output: str, dims: list[int]) -> Any:
    """A Constant node holding a float tensor of ``dims``."""
    return helper.make_node("Constant", [], [output], value=init(output + "_value", dims))


def branch(name: str, constants: list[tuple[str, list[int]]], inner: Any = None) -> Any:
    """A subgraph returning its first Constant, optionally holding another node."""
    nodes = [constant(out, dims) for out, dims in constants]
    if inner is not None:
        nodes.append(inner)
    out = helper.make_tensor_value_info(constants[0][0], FLOAT, constants[0][1])
    return helper.make_graph(nodes, name, [], [out])


def if_node(name: str, cond: str, output: str, then: Any, orelse: Any) -> Any:
    """An If node with the two branches."""
    return helper.make_node("If", [cond], [output], name=name, then_branch=then,
                            else_branch=orelse)


def model_with_everything() -> Any:
    """A model with every kind of weight the reader counts, and recurrent nodes to recognise.

    LSTM (bidirectional, peepholes, 2 layers joined by Transpose + Reshape), GRU with
    linear_before_reset, RNN with Relu, an int64 shape initializer, a float16 initializer,
    Constants (one scalar, one value_floats), an If whose branches hold Constants, and a Loop
    whose body holds a Constant and a nested If with its own Constant.
    """
    h, i = 5, 3
    nodes = [
        helper.make_node("LSTM", ["x", "lstm_W0", "lstm_R0", "lstm_B0", "", "h0", "", "lstm_P0"],
                         ["y0"], name="lstm_l0", hidden_size=h, direction="bidirectional"),
        helper.make_node("Transpose", ["y0"], ["y0t"], perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", ["y0t", "shape"], ["x1"]),
        helper.make_node("LSTM", ["x1", "lstm_W1", "lstm_R1", "lstm_B1", "", "", "", "lstm_P1"],
                         ["y1"], name="lstm_l1", hidden_size=h, direction="bidirectional"),
        helper.make_node("GRU", ["x", "gru_W", "gru_R", "gru_B"], ["g"], name="gru",
                         hidden_size=4, linear_before_reset=1),
        helper.make_node("RNN", ["x", "rnn_W", "rnn_R"], ["r"], name="rnn", hidden_size=2,
                         activations=["Relu"]),
        constant("c_matrix", [2, 3]),
        constant("c_scalar", []),
        helper.make_node("Constant", [], ["c_floats"], value_floats=[1.0, 2.0, 3.0]),
        helper.make_node("Constant", [], ["c_ints"], value_ints=[1, 2, 3]),
        if_node("branching", "cond", "picked",
                branch("then", [("then_c", [4, 4])]), branch("else", [("else_c", [2, 8])])),
        helper.make_node(
            "Loop", ["trip", "cond"], ["loop_out"], name="looping",
            body=helper.make_graph(
                [constant("body_c", [3, 3]),
                 if_node("inner_if", "cond", "inner_out", branch("t2", [("deep_c", [7, 2])]),
                         branch("e2", [("deep_e", [1])])),
                 helper.make_node("Identity", ["cond_in"], ["cond_out"])],
                "body",
                [helper.make_tensor_value_info("iter", TensorProto.INT64, []),
                 helper.make_tensor_value_info("cond_in", TensorProto.BOOL, [])],
                [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, [])],
            ),
        ),
    ]
    initializers = [
        init("lstm_W0", [2, 4 * h, i]), init("lstm_R0", [2, 4 * h, h]),
        init("lstm_B0", [2, 8 * h]), init("lstm_P0", [2, 3 * h]),
        init("lstm_W1", [2, 4 * h, 2 * h]), init("lstm_R1", [2, 4 * h, h]),
        init("lstm_B1", [2, 8 * h]), init("lstm_P1", [2, 3 * h]),
        init("h0", [2, 1, h]),
        init("gru_W", [1, 12, i]), init("gru_R", [1, 12, 4]), init("gru_B", [1, 24]),
        init("rnn_W", [1, 2, i]), init("rnn_R", [1, 2, 2]),
        init("shape", [3], TensorProto.INT64),
        init("half", [6], TensorProto.FLOAT16),
    ]
    graph = helper.make_graph(
        nodes, "everything",
        [helper.make_tensor_value_info("x", FLOAT, [7, 1, i]),
         helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
         helper.make_tensor_value_info("trip", TensorProto.INT64, [])],
        [helper.make_tensor_value_info(n, FLOAT, [None] * rank)
         for n, rank in (("y1", 4), ("g", 4), ("r", 4), ("picked", 2))],
        initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)],
                             producer_name="paramcount-tests")


def oracle(path: Path) -> list[tuple[str, tuple[int, ...], str]]:
    """What onnx itself says: every floating initializer and multi-element floating Constant,
    main graph first, then subgraphs depth first, with onnx's own dtype names."""
    model = onnx.load(str(path), load_external_data=False)
    out: list[tuple[str, tuple[int, ...], str]] = []
    pending = [model.graph]
    while pending:
        graph = pending.pop(0)
        found = []
        for tensor in graph.initializer:
            if tensor.data_type in onnx_file.FLOATING:
                found.append((tensor.name, tuple(tensor.dims),
                              onnx.helper.tensor_dtype_to_np_dtype(tensor.data_type).name))
        subgraphs = []
        for node in graph.node:
            for attribute in node.attribute:
                if attribute.type == onnx.AttributeProto.GRAPH:
                    subgraphs.append(attribute.g)
                subgraphs.extend(attribute.graphs)
            if node.op_type != "Constant":
                continue
            for attribute in node.attribute:
                if attribute.name == "value" and attribute.t.data_type in onnx_file.FLOATING:
                    dims = tuple(attribute.t.dims)
                    if len(dims) and all(dims) and _size(dims) > 1:
                        found.append((node.output[0], dims, "float32"))
                if attribute.name == "value_floats" and len(attribute.floats) > 1:
                    found.append((node.output[0], (len(attribute.floats),), "float32"))
        out += found
        pending[:0] = subgraphs
    return out


def _size(dims: tuple[int, ...]) -> int:
    size = 1
    for d in dims:
        size *= d
    return size


def listed(path: Path) -> list[tuple[str, tuple[int, ...], str]]:
    """The reader's tensors and constants as (name, shape, dtype)."""
    listing = onnx_file.read(path)
    return [(t.name, t.shape, t.dtype or "") for t in listing.tensors + listing.constants]


@pytest.fixture(scope="module")
def everything(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The model above, checked by onnx.checker and saved with onnx.save."""
    model = model_with_everything()
    onnx.checker.check_model(model)
    path = tmp_path_factory.mktemp("onnx") / "everything.onnx"
    onnx.save(model, str(path))
    return path


def test_tensors_are_what_onnx_reads(everything: Path) -> None:
    """Every floating initializer and multi-element Constant, in subgraphs too, as onnx reads
    them; the int64 shape, the scalar and the integer Constants are left out."""
    assert sorted(listed(everything)) == sorted(oracle(everything))
    names = [name for name, _, _ in listed(everything)]
    assert {"then_c", "else_c", "body_c", "deep_c", "c_matrix", "c_floats", "half"} <= set(names)
    assert not {"shape", "c_scalar", "c_ints", "deep_e"} & set(names)


def test_notes_say_what_was_skipped_and_where(everything: Path) -> None:
    """The listing names the stored state, the Constants, the subgraphs and the int64 skip."""
    listing = onnx_file.read(everything)
    notes = "\n".join(listing.notes)
    assert "1 tensor (10 values) feeds a recurrent node's initial_h" in notes
    assert "inside If 'branching' then_branch" in notes
    assert "inside Loop 'looping' body > If 'inner_if' then_branch" in notes
    assert "not counted: 1 int64 initializer (3 values" in notes
    assert [t.name for t in listing.constants] == ["h0"]
    assert "h0" not in {t.name for t in listing.tensors}
    assert listing.format == "onnx" and listing.source == str(everything)


def test_recurrent_nodes_are_recognised(everything: Path) -> None:
    """The two LSTM nodes join into one stack; GRU and RNN (Relu) are read from W, R and B."""
    found = {r.prefix: r for r in onnx_file.read(everything).recognised}
    assert set(found) == {"lstm_l0", "gru", "rnn"}
    expected = {
        "lstm_l0": LayerSpec(Cell.LSTM, 3, 5, num_layers=2, bidirectional=True, peepholes=True,
                             framework=Framework.ONNX),
        "gru": LayerSpec(Cell.GRU, 3, 4, framework=Framework.ONNX),
        "rnn": LayerSpec(Cell.RNN, 3, 2, bias=False, framework=Framework.ONNX,
                         nonlinearity=Nonlinearity.RELU),
    }
    shapes = {t.name: t.shape for t in onnx_file.read(everything).tensors}
    for prefix, spec in expected.items():
        assert found[prefix].spec == spec
        engine = [t.shape for t in conventions.tensors(spec)]
        assert [shapes[name] for name in found[prefix].names] == engine
    assert found["lstm_l0"].names == ("lstm_W0", "lstm_R0", "lstm_B0", "lstm_P0",
                                      "lstm_W1", "lstm_R1", "lstm_B1", "lstm_P1")


def test_external_data_is_noted_not_read(everything: Path, tmp_path: Path) -> None:
    """A model saved with external data lists the same tensors and names the data file,
    which is never opened (deleting it changes nothing)."""
    model = onnx.load(str(everything))
    path = tmp_path / "external.onnx"
    onnx.save_model(model, str(path), save_as_external_data=True,
                    all_tensors_to_one_file=True, location="weights.bin", size_threshold=0)
    assert sorted(listed(path)) == sorted(oracle(everything))
    (tmp_path / "weights.bin").unlink()
    notes = onnx_file.read(path).notes
    assert any("keep their data in the external file 'weights.bin'" in n for n in notes)


def test_tf2onnx_bias_note_and_quantized_weights(tmp_path: Path) -> None:
    """A tf2onnx LSTM notes B's probably-zero half; int8 weights behind DequantizeLinear
    count, other integer initializers do not, and the scale is listed apart."""
    nodes = [
        helper.make_node("LSTM", ["x", "W", "R", "B"], ["y"], name="lstm", hidden_size=2),
        helper.make_node("DequantizeLinear", ["q", "scale"], ["dq"]),
    ]
    graph = helper.make_graph(
        nodes, "keras", [helper.make_tensor_value_info("x", FLOAT, [4, 1, 3])],
        [helper.make_tensor_value_info("y", FLOAT, [4, 1, 1, 2]),
         helper.make_tensor_value_info("dq", FLOAT, [4, 5])],
        [init("W", [1, 8, 3]), init("R", [1, 8, 2]), init("B", [1, 16]),
         init("q", [4, 5], TensorProto.INT8), init("scale", [])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)],
                              producer_name="tf2onnx")
    onnx.checker.check_model(model)
    path = tmp_path / "keras.onnx"
    onnx.save(model, str(path))
    listing = onnx_file.read(path)
    assert [(t.name, t.dtype) for t in listing.tensors] == [
        ("W", "float32"), ("R", "float32"), ("B", "float32"), ("q", "int8")]
    assert [(t.name, t.dtype) for t in listing.constants] == [("scale", "float32")]
    (lstm,) = listing.recognised
    assert any("second half of B (Rb, 8 values) is probably zeros" in n for n in lstm.notes)


# --- real exports from torch --------------------------------------------------------------


def torch_models() -> dict[str, Any]:
    """Three modules: a stacked bidirectional LSTM with embedding and head, and a GRUCell loop."""
    torch = pytest.importorskip("torch")
    nn = torch.nn

    class Tagger(nn.Module):  # type: ignore[misc]
        """Embedding → 2-layer bidirectional LSTM → Linear."""

        def __init__(self) -> None:
            super().__init__()
            self.emb = nn.Embedding(10, 8)
            self.lstm = nn.LSTM(8, 16, num_layers=2, bidirectional=True)
            self.fc = nn.Linear(32, 3)

        def forward(self, x: Any) -> Any:
            y, _ = self.lstm(self.emb(x))
            return self.fc(y)

    class Stepper(nn.Module):  # type: ignore[misc]
        """A GRUCell unrolled over three steps: the exporter decomposes it into Gemm/Add."""

        def __init__(self) -> None:
            super().__init__()
            self.cell = nn.GRUCell(8, 16)

        def forward(self, x: Any) -> Any:
            h = torch.zeros(x.shape[1], 16)
            for t in range(x.shape[0]):
                h = self.cell(x[t], h)
            return h

    return {"tagger": Tagger().eval(), "stepper": Stepper().eval()}


def export(module: Any, args: tuple[Any, ...], path: Path, dynamo: bool) -> None:
    """torch.onnx.export, its deprecation and tracing warnings silenced for this call only."""
    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, args, str(path), dynamo=dynamo)


@pytest.mark.torch
def test_torch_exports(tmp_path: Path) -> None:
    """torch's exporter: nn.LSTM becomes two LSTM nodes, recognised as nn.LSTM's stack, and
    the trainable total is the module's parameter count; a GRUCell loop, decomposed into Gemm
    and Add, keeps its torch names, so recognition by names finds the nn.GRUCell."""
    torch = pytest.importorskip("torch")
    models = torch_models()
    tagger, stepper = models["tagger"], models["stepper"]
    export(tagger, (torch.zeros(5, 2, dtype=torch.long),), tmp_path / "tagger.onnx", False)
    listing = onnx_file.read(tmp_path / "tagger.onnx")
    assert sum(t.count for t in listing.tensors if t.trainable) == sum(
        p.numel() for p in tagger.parameters())
    (lstm,) = listing.recognised
    assert lstm.spec == LayerSpec(Cell.LSTM, 8, 16, num_layers=2, bidirectional=True,
                                  framework=Framework.ONNX)
    assert conventions.total(lstm.spec.replace(framework=Framework.TORCH)) == sum(
        p.numel() for p in tagger.lstm.parameters())

    export(stepper, (torch.zeros(3, 2, 8),), tmp_path / "stepper.onnx", False)
    tensors = {t.name: t.shape for t in onnx_file.read(tmp_path / "stepper.onnx").tensors}
    for name, parameter in stepper.named_parameters():
        assert tensors[name] == tuple(parameter.shape)
    (cell,) = conventions.recognise(tensors)
    assert (cell.prefix, cell.spec) == ("cell.", LayerSpec(Cell.GRU, 8, 16, single_cell=True))


@pytest.mark.torch
def test_torch_dynamo_export(tmp_path: Path) -> None:
    """torch's default (dynamo) exporter numbers the initializers; the node still tells."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnxscript")
    lstm = torch.nn.LSTM(8, 16, num_layers=2, bidirectional=True).eval()
    export(lstm, (torch.zeros(5, 2, 8),), tmp_path / "dynamo.onnx", True)
    listing = onnx_file.read(tmp_path / "dynamo.onnx")
    (found,) = listing.recognised
    assert found.spec == LayerSpec(Cell.LSTM, 8, 16, num_layers=2, bidirectional=True,
                                   framework=Framework.ONNX)
    assert sum(t.count for t in listing.tensors if t.trainable) == sum(
        p.numel() for p in lstm.parameters())


# --- hostile and broken files ---------------------------------------------------------------


def nested_ifs(depth: int) -> Any:
    """A model whose If nodes nest ``depth`` levels deep."""
    inner = branch("leaf", [("leaf_c", [2, 2])])
    for level in range(depth):
        other = branch(f"other{level}", [(f"e{level}", [2, 2])])
        inner = branch(f"level{level}", [(f"c{level}", [2, 2])],
                       if_node(f"if{level}", "cond", f"o{level}", inner, other))
    graph = helper.make_graph([if_node("top", "cond", "out", inner, inner)], "bomb",
                              [helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
                              [helper.make_tensor_value_info("out", FLOAT, [2, 2])])
    return helper.make_model(graph)


def broken_files(everything: Path) -> Iterator[tuple[str, bytes, str]]:
    """(id, bytes, what the error says) for files the reader must refuse."""
    real = everything.read_bytes()
    yield "empty", b"", "empty file"
    yield "truncated", real[: len(real) // 2], "past the end"
    yield "varint-overflow", b"\x08" + b"\xff" * 11, "longer than 10 bytes"
    yield "length-past-end", b"\x08\x07\x3a\x80\x01abc", "declares 128 bytes"
    yield "group-wire-type", b"\x08\x07\x3b", "wire type 3"
    yield "graph-as-number", b"\x08\x07\x38\x01", "graph (field 7) is varint"
    yield "no-graph", b"\x08\x07", "no graph field"
    yield "text", b"hello, this is not a model\n", "not a valid ONNX model"
    negative = TensorProto(name="t", data_type=FLOAT, dims=[-3])
    graph = helper.make_graph([], "g", [], [], [negative])
    yield "negative-dim", helper.make_model(graph).SerializeToString(), "negative dimension"
    yield "recursion-bomb", recursion_bomb(1_000), "nest deeper than"


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        out.append(value & 0x7F | (0x80 if value > 0x7F else 0))
        value >>= 7
        if not value:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def recursion_bomb(depth: int) -> bytes:
    """A ModelProto, written byte by byte (protobuf itself refuses to build it), whose If
    nodes nest ``depth`` subgraphs deep: graph → node → attribute → graph → ..."""
    graph = b""
    for _ in range(depth):
        attribute = _field(1, b"then_branch") + _varint(20 << 3) + _varint(5) + _field(6, graph)
        graph = _field(1, _field(4, b"If") + _field(5, attribute))
    return _varint(1 << 3) + _varint(10) + _field(7, graph)


@pytest.fixture
def hostile(everything: Path, tmp_path: Path, request: pytest.FixtureRequest) -> tuple[Path, str]:
    """One broken file written to disk, and the words its error must contain."""
    for name, data, words in broken_files(everything):
        if name == request.param:
            path = tmp_path / f"{name}.onnx"
            path.write_bytes(data)
            return path, words
    raise AssertionError(request.param)


BROKEN = ["empty", "truncated", "varint-overflow", "length-past-end", "group-wire-type",
          "graph-as-number", "no-graph", "text", "negative-dim", "recursion-bomb"]


@pytest.mark.parametrize("hostile", BROKEN, indirect=True)
def test_broken_files_are_refused_in_one_line(hostile: tuple[Path, str]) -> None:
    """Each broken file raises ParamcountError (exit 2): one line naming the file and why."""
    path, words = hostile
    with pytest.raises(ParamcountError) as error:
        onnx_file.read(path)
    message = str(error.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    assert words in message and error.value.exit_code == 2


def test_deep_but_allowed_nesting_is_read(tmp_path: Path) -> None:
    """Subgraphs nested MAX_DEPTH levels deep are still read, every level's Constant listed."""
    path = tmp_path / "deep.onnx"
    onnx.save(nested_ifs(onnx_file.MAX_DEPTH - 2), str(path))
    assert sorted(listed(path)) == sorted(oracle(path))


@pytest.mark.parametrize("kind", ["missing", "directory", "fifo"])
def test_unreadable_paths(tmp_path: Path, kind: str) -> None:
    """A missing path, a directory and a named pipe (which would block a reader) are refused
    with one line naming them."""
    path = tmp_path / "absent.onnx" if kind == "missing" else tmp_path
    if kind == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no named pipes here")
        path = tmp_path / "pipe.onnx"
        os.mkfifo(path)
    with pytest.raises(ParamcountError,
                       match=rf"^{path}: (cannot read|is a directory|not a regular file)"):
        onnx_file.read(path)


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=300), seed=st.integers(0, 2**32 - 1))
def test_any_bytes_give_a_listing_or_one_error(tmp_path: Path, data: bytes, seed: int) -> None:
    """Random bytes, and the real model with random bytes flipped or cut, never raise anything
    but ParamcountError."""
    source = model_with_everything().SerializeToString()
    rng = random.Random(seed)
    mutated = bytearray(source)
    for _ in range(rng.randint(1, 8)):
        mutated[rng.randrange(len(mutated))] = rng.randrange(256)
    cut = source[: rng.randrange(len(source))]
    for index, candidate in enumerate((data, bytes(mutated), cut)):
        path = tmp_path / f"candidate{index}.onnx"
        path.write_bytes(candidate)
        try:
            onnx_file.read(path)
        except ParamcountError as error:
            assert "\n" not in str(error)
        os.unlink(path)


def test_the_command_refuses_a_broken_file_in_one_line(cli: CLI, tmp_path: Path) -> None:
    """``paramcount inspect`` on a recursion bomb exits 2 with one ``Error:`` line, no
    traceback."""
    path = tmp_path / "bomb.onnx"
    path.write_bytes(recursion_bomb(200))
    result = cli("inspect", str(path))
    assert result.code == 2 and result.out == ""
    assert result.err.startswith(f"Error: {path}: not a valid ONNX model: subgraphs nest")
    assert result.err.count("\n") == 1


@pytest.mark.torch
@pytest.mark.parametrize("layer", ["lstm-bidir-2", "gru"])
def test_exported_initial_states_are_constants_not_parameters(cli: CLI, tmp_path: Path,
                                                              layer: str) -> None:
    """torch.onnx.export writes zero initial states as Constants feeding initial_h/initial_c:
    inspect's total is the module's own count, the zeros listed apart as constants."""
    import json

    torch = pytest.importorskip("torch")
    module, inputs = {
        "lstm-bidir-2": (torch.nn.LSTM(12, 20, num_layers=2, bidirectional=True), 12),
        "gru": (torch.nn.GRU(4, 15), 4),
    }[layer]
    path = tmp_path / f"{layer}.onnx"
    export(module.eval(), (torch.zeros(5, 1, inputs),), path, False)
    result = cli("inspect", str(path), "--json")
    report = json.loads(result.out)
    expected = sum(p.numel() for p in module.parameters())
    assert report["total"] == report["trainable"] == expected
    assert report["constants"] and all(c["name"] not in {t["name"] for t in report["tensors"]}
                                       for c in report["constants"])
    assert report["recurrent"][0]["params"] == expected


def shared_bias_model() -> Any:
    """A bidirectional LSTM whose W, R and B are joined from per-direction initializers by
    Unsqueeze and Concat, the backward bias_hh shared with the forward one through an
    Identity node, and R's forward half reached through Cast and Reshape."""
    h, i = 3, 2
    nodes = [
        helper.make_node("Constant", [], ["axis0"], value=helper.make_tensor(
            "axis0_value", TensorProto.INT64, [1], [0])),
        helper.make_node("Constant", [], ["r_shape"], value=helper.make_tensor(
            "r_shape_value", TensorProto.INT64, [3], [1, 4 * h, h])),
        helper.make_node("Identity", ["b_hh"], ["b_hh_shared"]),
        helper.make_node("Concat", ["b_ih", "b_hh"], ["b_fwd"], axis=0),
        helper.make_node("Concat", ["b_ih_reverse", "b_hh_shared"], ["b_bwd"], axis=0),
        helper.make_node("Unsqueeze", ["b_fwd", "axis0"], ["b_fwd3"]),
        helper.make_node("Unsqueeze", ["b_bwd", "axis0"], ["b_bwd3"]),
        helper.make_node("Concat", ["b_fwd3", "b_bwd3"], ["B"], axis=0),
        helper.make_node("Unsqueeze", ["w_ih", "axis0"], ["w_fwd3"]),
        helper.make_node("Unsqueeze", ["w_ih_reverse", "axis0"], ["w_bwd3"]),
        helper.make_node("Concat", ["w_fwd3", "w_bwd3"], ["W"], axis=0),
        helper.make_node("Cast", ["w_hh"], ["w_hh_cast"], to=FLOAT),
        helper.make_node("Reshape", ["w_hh_cast", "r_shape"], ["r_fwd3"]),
        helper.make_node("Unsqueeze", ["w_hh_reverse", "axis0"], ["r_bwd3"]),
        helper.make_node("Concat", ["r_fwd3", "r_bwd3"], ["R"], axis=0),
        helper.make_node("LSTM", ["x", "W", "R", "B"], ["y"], name="crnn_lstm", hidden_size=h,
                         direction="bidirectional"),
    ]
    initializers = [init("w_ih", [4 * h, i]), init("w_hh", [4 * h, h]), init("b_ih", [4 * h]),
                    init("b_hh", [4 * h]), init("w_ih_reverse", [4 * h, i]),
                    init("w_hh_reverse", [4 * h, h]), init("b_ih_reverse", [4 * h])]
    graph = helper.make_graph(nodes, "crnn", [helper.make_tensor_value_info("x", FLOAT,
                                                                            [5, 1, i])],
                              [helper.make_tensor_value_info("y", FLOAT, [5, 2, 1, h])],
                              initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_weights_reached_through_identity_and_concat(tmp_path: Path) -> None:
    """The node's W, R and B are traced back to the initializers they are joined from: the
    bidirectional LSTM is recognised, the shared bias named, each initializer counted once."""
    model = shared_bias_model()
    onnx.checker.check_model(model, full_check=True)
    path = tmp_path / "crnn.onnx"
    onnx.save(model, str(path))
    listing = onnx_file.read(path)
    (lstm,) = listing.recognised
    assert lstm.spec == LayerSpec(Cell.LSTM, 2, 3, bidirectional=True, framework=Framework.ONNX)
    assert set(lstm.names) == {t.name for t in listing.tensors}
    assert lstm.composed == (("w_ih", "w_ih_reverse"), ("w_hh", "w_hh_reverse"),
                             ("b_ih", "b_hh", "b_ih_reverse", "b_hh"))
    assert any("'b_hh' is used 2 times" in n for n in lstm.notes)
    assert listing.total == conventions.total(lstm.spec) - 12


@pytest.mark.torch
def test_unfolded_torch_export_with_a_shared_bias(cli: CLI, tmp_path: Path) -> None:
    """torch.onnx.export without constant folding slices, concatenates and unsqueezes the
    torch parameters into W, R and B; a CRNN whose backward bias_hh is the forward one: the
    LSTM is recognised from them and the total is torch's own count."""
    import json

    torch = pytest.importorskip("torch")

    class CRNN(torch.nn.Module):  # type: ignore[misc]
        """Conv2d → bidirectional LSTM (backward bias_hh tied to the forward one) → Linear."""

        def __init__(self) -> None:
            super().__init__()
            self.conv = torch.nn.Conv2d(1, 4, 3, padding=1)
            self.rnn = torch.nn.LSTM(8, 6, bidirectional=True)
            self.rnn.bias_hh_l0_reverse = self.rnn.bias_hh_l0
            self.fc = torch.nn.Linear(12, 5)

        def forward(self, x: Any) -> Any:
            y, _ = self.rnn(self.conv(x).flatten(1, 2).permute(2, 0, 1))
            return self.fc(y)

    model = CRNN().eval()
    path = tmp_path / "crnn.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.zeros(1, 1, 2, 7),), str(path), dynamo=False,
                          do_constant_folding=False)
    report = json.loads(cli("inspect", str(path), "--json").out)
    assert report["total"] == sum(p.numel() for p in model.parameters())
    (lstm,) = report["recurrent"]
    assert (lstm["cell"], lstm["input"], lstm["hidden"], lstm["bidirectional"]) == (
        "lstm", 8, 6, True)
    assert all(t["match"] for t in lstm["tensors"])
    assert lstm["stored"] == lstm["params"] - 24
    assert any("'rnn.bias_hh_l0' is used 2 times" in n for n in lstm["notes"])


@pytest.mark.torch
def test_dynamic_quantized_lstm_made_by_onnxruntime(cli: CLI, tmp_path: Path) -> None:
    """onnxruntime's quantize_dynamic turns an exported bidirectional LSTM into
    com.microsoft DynamicQuantizeLSTM with int8 W and R (and the head into MatMulInteger):
    the layer is recognised, the int8 weights counted, the scales and zero points listed
    apart, and the total is torch's own count."""
    import json

    torch = pytest.importorskip("torch")
    quantization = pytest.importorskip("onnxruntime.quantization")

    class Tagger(torch.nn.Module):  # type: ignore[misc]
        """A bidirectional LSTM and a linear head."""

        def __init__(self) -> None:
            super().__init__()
            self.rnn = torch.nn.LSTM(12, 20, bidirectional=True)
            self.fc = torch.nn.Linear(40, 7)

        def forward(self, x: Any) -> Any:
            y, _ = self.rnn(x)
            return self.fc(y)

    model = Tagger().eval()
    export(model, (torch.zeros(5, 1, 12),), tmp_path / "float.onnx", False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        quantization.quantize_dynamic(str(tmp_path / "float.onnx"), str(tmp_path / "q.onnx"),
                                      weight_type=quantization.QuantType.QInt8)
    ops = {node.op_type for node in onnx.load(str(tmp_path / "q.onnx")).graph.node}
    assert {"DynamicQuantizeLSTM", "MatMulInteger"} <= ops
    report = json.loads(cli("inspect", str(tmp_path / "q.onnx"), "--json").out)
    assert report["total"] == sum(p.numel() for p in model.parameters())
    (lstm,) = report["recurrent"]
    assert (lstm["cell"], lstm["input"], lstm["hidden"], lstm["bidirectional"]) == (
        "lstm", 12, 20, True)
    assert lstm["match"] and lstm["params"] == sum(p.numel() for p in model.rnn.parameters())
    int8 = {t["name"] for t in report["tensors"] if t["dtype"] == "int8"}
    assert len(int8) == 3 and all(name.endswith("_quantized") for name in int8)
    apart = {c["name"] for c in report["constants"]}
    assert {n.replace("_quantized", s) for n in int8 for s in ("_scale", "_zero_point")} <= apart


@pytest.mark.torch
def test_static_quantized_linear_layers_made_by_onnxruntime(cli: CLI, tmp_path: Path) -> None:
    """onnxruntime's quantize_static (QOperator format) writes int8 weights and int32 biases
    for QGemm: counted as parameters, their scales and zero points apart."""
    import json

    torch = pytest.importorskip("torch")
    np = pytest.importorskip("numpy")
    quantization = pytest.importorskip("onnxruntime.quantization")
    model = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.ReLU(),
                                torch.nn.Linear(5, 3)).eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.zeros(1, 6),), str(tmp_path / "float.onnx"),
                          dynamo=False, input_names=["x"])

    class Samples(quantization.CalibrationDataReader):  # type: ignore[misc]
        """Four random inputs to calibrate the activations' ranges."""

        def __init__(self) -> None:
            rng = np.random.default_rng(0)
            self.inputs = iter([{"x": rng.random((1, 6), np.float32)} for _ in range(4)])

        def get_next(self) -> dict[str, Any] | None:
            """The next input, or None when done."""
            return next(self.inputs, None)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        quantization.quantize_static(str(tmp_path / "float.onnx"), str(tmp_path / "q.onnx"),
                                     Samples(), quant_format=quantization.QuantFormat.QOperator,
                                     weight_type=quantization.QuantType.QInt8)
    report = json.loads(cli("inspect", str(tmp_path / "q.onnx"), "--json").out)
    assert report["total"] == sum(p.numel() for p in model.parameters())
    assert {t["dtype"] for t in report["tensors"]} == {"int8", "int32"}
    assert all(c["name"].endswith(("_scale", "_zero_point")) for c in report["constants"])
