"""``paramcount port`` on real files: what it reads, writes, refuses and proves."""

from __future__ import annotations

import json
import pickle
import re
from pathlib import Path
from typing import Any

import pytest

from paramcount.engine.spec import Cell
from paramcount.porting import layouts
from tests.conftest import CLI, have

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")


@pytest.fixture
def encoder(tmp_path: Path) -> tuple[Path, Any]:
    """A torch checkpoint with an embedding, a 2-layer bidirectional LSTM and a head."""
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(6, 5, num_layers=2, bidirectional=True)
    model = torch.nn.ModuleDict({"embed": torch.nn.Embedding(10, 6), "lstm": lstm,
                                 "head": torch.nn.Linear(10, 2)})
    path = tmp_path / "encoder.pt"
    torch.save(model.state_dict(), path)
    return path, lstm


def test_plan_only_prints_every_target_tensor_and_writes_nothing(
    cli: CLI, encoder: tuple[Path, Any]
) -> None:
    """Without --out the plan is printed, one row per target tensor, and no file appears."""
    path, _ = encoder
    before = set(path.parent.iterdir())
    result = cli("port", str(path), "--to", "keras")
    assert result.code == 0, result.err
    assert "lstm: nn.LSTM(6, 5, num_layers=2, bidirectional=True) → Bidirectional(" in \
        result.out
    assert "lstm/bidirectional_1/backward_lstm_1/lstm_cell/bias" in result.out
    assert result.out.count("lstm_cell/") == 12
    assert set(path.parent.iterdir()) == before


@pytest.mark.onnx
def test_onnx_output_is_a_runnable_graph_equal_to_torch(
    cli: CLI, encoder: tuple[Path, Any], tmp_path: Path
) -> None:
    """A recurrent module alone is a graph that passes onnx.checker and computes what the
    torch LSTM computes (with its final states as outputs)."""
    onnx = pytest.importorskip("onnx")
    from onnx.reference import ReferenceEvaluator

    _, lstm = encoder
    path = tmp_path / "lstm.pt"
    torch.save({f"lstm.{k}": v for k, v in lstm.state_dict().items()}, path)
    out = tmp_path / "encoder.onnx"
    result = cli("port", str(path), "--to", "onnx", "--out", str(out))
    assert result.code == 0, result.err
    model = onnx.load(str(out))
    onnx.checker.check_model(model, full_check=True)
    assert [n.op_type for n in model.graph.node if n.op_type == "LSTM"] == ["LSTM", "LSTM"]
    x = np.random.default_rng(0).standard_normal((7, 2, 6)).astype(np.float32)
    y, h, c = ReferenceEvaluator(model).run(["Y", "Y_h", "Y_c"], {"X": x})
    with torch.no_grad():
        expected, (h_n, c_n) = lstm(torch.from_numpy(x))
    assert np.max(np.abs(y - expected.numpy())) < 1e-5
    assert np.max(np.abs(h - h_n.numpy())) < 1e-5
    assert np.max(np.abs(c - c_n.numpy())) < 1e-5


def _documented_run() -> str:
    """The Python block of docs/port.md that runs a written .onnx file with onnxruntime."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "port.md").read_text()
    blocks = [b for b in re.findall(r"^```python\n(.*?)^```$", text, re.S | re.M)
              if "onnxruntime.InferenceSession" in b]
    assert len(blocks) == 1, blocks
    return blocks[0]


@pytest.mark.onnx
def test_the_documented_onnxruntime_call_runs_the_written_file(
    cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/port.md's own lines run encoder.onnx (one module under ``encoder.``) with
    onnxruntime, feeding ``X`` and reading Y, Y_h, Y_c equal to torch's (the inputs and outputs
    were named ``encoder/X``, ``encoder/Y``)."""
    pytest.importorskip("onnxruntime")
    torch.manual_seed(3)
    lstm = torch.nn.LSTM(8, 16, num_layers=2, bidirectional=True)
    torch.save({f"encoder.{k}": v for k, v in lstm.state_dict().items()},
               tmp_path / "encoder.pt")
    monkeypatch.chdir(tmp_path)
    result = cli("port", "encoder.pt", "--to", "onnx", "--out", "encoder.onnx")
    assert result.code == 0, result.err
    namespace: dict[str, Any] = {}
    exec(_documented_run(), namespace)  # the docs' lines, as they stand
    with torch.no_grad():
        expected, (h_n, c_n) = lstm(torch.from_numpy(namespace["x"]))
    for got, want in zip([namespace[n] for n in ("y", "y_h", "y_c")], (expected, h_n, c_n),
                         strict=True):
        assert np.max(np.abs(got - want.numpy())) < 1e-5


@pytest.mark.onnx
def test_several_modules_keep_their_prefixes_apart(cli: CLI, tmp_path: Path) -> None:
    """Two recurrent modules alone are one graph whose inputs and outputs carry their module's
    prefix, each computing what its torch module does."""
    onnx = pytest.importorskip("onnx")
    from onnx.reference import ReferenceEvaluator

    torch.manual_seed(4)
    modules = {"encoder": torch.nn.GRU(3, 4), "decoder": torch.nn.LSTM(5, 2)}
    path = tmp_path / "two.pt"
    torch.save(torch.nn.ModuleDict(modules).state_dict(), path)
    out = tmp_path / "two.onnx"
    assert cli("port", str(path), "--to", "onnx", "--out", str(out)).code == 0
    model = onnx.load(str(out))
    assert sorted(i.name for i in model.graph.input) == ["decoder/X", "encoder/X"]
    assert sorted(o.name for o in model.graph.output) == [
        "decoder/Y", "decoder/Y_c", "decoder/Y_h", "encoder/Y", "encoder/Y_h"]
    rng = np.random.default_rng(5)
    feeds = {"encoder/X": rng.standard_normal((6, 2, 3)).astype(np.float32),
             "decoder/X": rng.standard_normal((6, 2, 5)).astype(np.float32)}
    y_enc, y_dec = ReferenceEvaluator(model).run(["encoder/Y", "decoder/Y"], feeds)
    with torch.no_grad():
        assert np.max(np.abs(y_enc - modules["encoder"](
            torch.from_numpy(feeds["encoder/X"]))[0].numpy())) < 1e-5
        assert np.max(np.abs(y_dec - modules["decoder"](
            torch.from_numpy(feeds["decoder/X"]))[0].numpy())) < 1e-5


def test_safetensors_output_names_match_the_convention(
    cli: CLI, encoder: tuple[Path, Any], tmp_path: Path
) -> None:
    """A .safetensors output holds one array per target tensor, named as the JSON count does."""
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    path, _ = encoder
    out = tmp_path / "encoder.safetensors"
    assert cli("port", str(path), "--to", "flax-linen", "--out", str(out)).code == 0
    loaded = safetensors_numpy.load_file(str(out))
    counted = json.loads(cli("lstm", "-i", "6", "-H", "5", "-L", "2", "--bidir", "-f",
                             "flax-linen", "--json").out)
    expected = {t["name"].replace("params/", "params/lstm/", 1): tuple(t["shape"])
                for t in counted["tensors"]}
    expected |= {"params/embed/embedding": (10, 6), "params/head/kernel": (10, 2),
                 "params/head/bias": (2,)}
    assert {k: v.shape for k, v in loaded.items()} == expected


def test_torch_round_trip_through_npz_loads_with_strict(
    cli: CLI, encoder: tuple[Path, Any], tmp_path: Path
) -> None:
    """torch -> ONNX arrays (.npz) -> torch (.pt) loads into nn.LSTM with strict=True, exactly."""
    pytest.importorskip("onnx")
    path, lstm = encoder
    there, back = tmp_path / "there.npz", tmp_path / "back.pt"
    assert cli("port", str(path), "--to", "onnx", "--out", str(there)).code == 0
    result = cli("port", str(there), "--from", "onnx", "--to", "torch", "--out", str(back))
    assert result.code == 0, result.err
    state = torch.load(back, weights_only=True)
    fresh = torch.nn.LSTM(6, 5, num_layers=2, bidirectional=True)
    fresh.load_state_dict({k.removeprefix("lstm."): v for k, v in state.items()
                           if k.startswith("lstm.")}, strict=True)
    for name, value in lstm.state_dict().items():
        assert torch.equal(fresh.state_dict()[name], value), name


def test_verify_reports_the_largest_difference(cli: CLI, encoder: tuple[Path, Any]) -> None:
    """--verify runs both layers and prints how close they came; exit 0 within 1e-5."""
    pytest.importorskip("onnx")
    path, _ = encoder
    result = cli("port", str(path), "--to", "onnx", "--verify")
    assert result.code == 0, result.err
    assert "equal: torch " in result.out and "(tolerance 1e-05)" in result.out


def test_verify_fails_on_a_wrong_port(cli: CLI, encoder: tuple[Path, Any],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A port with a wrong gate order is caught by --verify: exit 1 and one error line."""
    pytest.importorskip("onnx")
    monkeypatch.setitem(layouts._ONNX, Cell.LSTM, layouts.CANONICAL[Cell.LSTM])
    path, _ = encoder
    result = cli("port", str(path), "--to", "onnx", "--verify")
    assert result.code == 1
    assert "DIFFERENT: torch" in result.out
    assert result.err.startswith("Error: the ported layer computes something else")
    assert result.err.count("\n") == 1


def test_json_plan(cli: CLI, encoder: tuple[Path, Any]) -> None:
    """--json gives the documented paramcount.port/1 object."""
    path, _ = encoder
    data = json.loads(cli("port", str(path), "--to", "keras", "--json").out)
    assert data["schema"] == "paramcount.port/1" and data["to"] == "keras"
    (module,) = data["modules"]
    assert module["prefix"] == "lstm." and module["target"]["prefix"] == "lstm/"
    bias = module["tensors"][2]
    assert bias == {"name": "lstm/bidirectional/forward_lstm/lstm_cell/bias", "shape": [20],
                    "sources": ["lstm.bias_ih_l0", "lstm.bias_hh_l0"],
                    "operations": ["sum"], "exact": False}


def test_refusal_is_one_line_and_writes_nothing(cli: CLI, tmp_path: Path) -> None:
    """A torch GRU into Keras reset_after=False is refused (exit 2) naming exact targets."""
    path = tmp_path / "gru.pt"
    torch.save(torch.nn.GRU(3, 4).state_dict(), path)
    out = tmp_path / "gru.npz"
    out.write_bytes(b"keep me")
    result = cli("port", str(path), "--to", "keras", "--no-reset-after", "--out", str(out))
    assert result.code == 2
    assert result.err == (
        "Error: the source GRU applies its reset gate after the recurrent matmul, and Keras "
        "GRU(reset_after=False) applies it before: no weights make them equal; exact targets: "
        "--to keras --reset-after, --to onnx --linear-before-reset, --to flax-linen, "
        "--to tf1-cudnn\n"
    )
    assert out.read_bytes() == b"keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gru.npz", "gru.pt"]


class _Payload:
    """A pickle that would create a file if it were ever unpickled with code execution."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (self.marker,))


def test_hostile_checkpoint_runs_nothing(cli: CLI, tmp_path: Path) -> None:
    """A checkpoint whose pickle calls a function is refused, and the function never runs."""
    marker = tmp_path / "ran"
    path = tmp_path / "evil.pt"
    torch.save({"weight_ih_l0": torch.zeros(4, 2), "x": _Payload(marker)}, path)
    assert not marker.exists()
    result = cli("port", str(path), "--to", "keras")
    assert result.code == 2
    assert result.err.startswith(f"Error: {path}: it holds Python objects besides tensors (")
    assert result.err.count("\n") == 1
    assert not marker.exists()


def _safetensors(header: dict[str, Any], data: bytes) -> bytes:
    """A safetensors file's bytes: the header's length, the header, the data."""
    text = json.dumps(header).encode()
    return len(text).to_bytes(8, "little") + text + data


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bad.safetensors", b"\xff" * 20, "is larger than the file (20 bytes)"),
        ("big.safetensors", _safetensors({"w": {"dtype": "F32", "shape": [1000000],
                                                "data_offsets": [0, 4000000]}}, b"\0" * 4),
         "'w': data_offsets [0, 4000000] end past the file's data"),
        ("dtype.safetensors", _safetensors({"w": {"dtype": "PICKLE", "shape": [1],
                                                  "data_offsets": [0, 4]}}, b"\0" * 4),
         "'w' has dtype 'PICKLE', not one of"),
        ("json.safetensors", (4).to_bytes(8, "little") + b"[1,2", "the safetensors header is "
         "not valid JSON"),
        ("bad.npz", b"not a zip", "cannot read it as npz"),
        ("bad.onnx", b"\x01\x02garbage", "cannot read it as onnx"),
        ("weights.txt", b"", "cannot tell the format from '.txt'"),
    ],
    ids=["safetensors", "safetensors-range", "safetensors-dtype", "safetensors-json", "npz",
         "onnx", "suffix"],
)
def test_damaged_files_are_one_line(cli: CLI, tmp_path: Path, name: str, content: bytes,
                                    message: str) -> None:
    """Damaged or unknown files: exit 2, one line on stderr, no traceback."""
    if name.endswith(".onnx"):
        pytest.importorskip("onnx")
    path = tmp_path / name
    path.write_bytes(content)
    result = cli("port", str(path), "--to", "torch")
    assert result.code == 2
    assert message in result.err and result.err.count("\n") == 1


def test_no_layer(cli: CLI, tmp_path: Path) -> None:
    """A checkpoint without a tensor is an error naming the file."""
    path = tmp_path / "empty.pt"
    torch.save({}, path)
    result = cli("port", str(path), "--to", "keras")
    assert (result.code, result.err) == (2, f"Error: {path}: no layer found that port maps\n")


def test_tf1_checkpoint_folds_forget_bias(cli: CLI, tmp_path: Path) -> None:
    """A TF1 LSTMCell (.npz of its variables) becomes nn.LSTM with forget_bias folded in."""
    rng = np.random.default_rng(0)
    kernel = rng.standard_normal((3 + 4, 16)).astype(np.float32)
    bias = rng.standard_normal(16).astype(np.float32)
    path = tmp_path / "tf1.npz"
    np.savez(path, **{"rnn/lstm_cell/kernel": kernel, "rnn/lstm_cell/bias": bias})
    out = tmp_path / "w.pt"
    result = cli("port", str(path), "--from", "tf1", "--to", "torch", "--input", "3",
                 "--hidden", "4", "--forget-bias", "1.0", "--out", str(out))
    assert result.code == 0, result.err
    assert "forget gate +1 (forget_bias)" in result.out
    state = torch.load(out, weights_only=True)
    i, j, f, o = np.split(bias, 4)
    assert np.array_equal(state["bias_ih_l0"].numpy(), np.concatenate([i, f + 1, j, o]))
    assert np.array_equal(state["weight_ih_l0"].numpy()[4:8], kernel[:3, 8:12].T)
    wrong = cli("port", str(path), "--from", "tf1", "--to", "torch", "--hidden", "8")
    assert (wrong.code, wrong.err) == (
        2, "Error: the file holds a layer with --hidden 4, not --hidden 8\n")
    unproved = cli("port", str(path), "--from", "tf1", "--to", "torch", "--verify")
    assert unproved.code == 3 and "cannot be run here" in unproved.err


@pytest.mark.keras
@pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")
@pytest.mark.skipif(not (have("keras") and have("tensorflow") and have("h5py")),
                    reason="needs keras")
def test_keras_file_to_torch(cli: CLI, tmp_path: Path) -> None:
    """A saved .keras (and legacy .h5) model's recurrent layers port, proved, each under its
    name; weights without a configuration and hard_sigmoid gates are refused."""
    from paramcount.verify.keras_backend import load

    keras = load()
    model = keras.Sequential([
        keras.Input((5, 3)),
        # names given: Keras numbers unnamed layers across the whole session
        keras.layers.Bidirectional(keras.layers.LSTM(4, return_sequences=True, name="lstm"),
                                   name="bidirectional"),
        keras.layers.GRU(2, return_sequences=True, name="gru"),
        keras.layers.SimpleRNN(3, activation="relu", name="simple_rnn"),
        keras.layers.Dense(1, name="dense"),
    ])
    rng = np.random.default_rng(0)
    model.set_weights([rng.standard_normal(w.shape).astype(np.float32) * 0.5
                       for w in model.get_weights()])
    path = tmp_path / "tagger.keras"
    model.save(path)
    out = tmp_path / "tagger.safetensors"
    result = cli("port", str(path), "--to", "torch", "--out", str(out), "--verify")
    assert result.code == 0, result.out + result.err
    assert result.out.count("equal: keras") == 3
    from safetensors.numpy import load_file

    state = {k: torch.from_numpy(v) for k, v in load_file(str(out)).items()}
    torch.nn.LSTM(3, 4, bidirectional=True).load_state_dict(
        {k.removeprefix("bidirectional."): v for k, v in state.items()
         if k.startswith("bidirectional.")}, strict=True)
    torch.nn.GRU(8, 2).load_state_dict(
        {k.removeprefix("gru."): v for k, v in state.items() if k.startswith("gru.")},
        strict=True)
    legacy = tmp_path / "tagger.h5"
    model.save(legacy)
    result = cli("port", str(legacy), "--to", "onnx", "--verify")
    assert result.code == 0, result.out + result.err
    assert result.out.count("equal: keras") == 3
    weights_only = tmp_path / "tagger.weights.h5"
    model.save_weights(weights_only)
    refused = cli("port", str(weights_only), "--to", "torch")
    assert refused.code == 2 and "holds weights only (model.save_weights)" in refused.err
    hard = keras.Sequential([keras.Input((5, 3)),
                             keras.layers.LSTM(4, recurrent_activation="hard_sigmoid",
                                               name="old")])
    hard_path = tmp_path / "old.keras"
    hard.save(hard_path)
    refused = cli("port", str(hard_path), "--to", "torch")
    assert refused.code == 2 and "recurrent_activation='hard_sigmoid'" in refused.err


def test_pickle_module_is_never_used_to_load(monkeypatch: pytest.MonkeyPatch,
                                             cli: CLI, encoder: tuple[Path, Any]) -> None:
    """Loading goes through torch's weights_only unpickler, not pickle.load."""
    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("pickle.load was called")

    monkeypatch.setattr(pickle, "load", forbidden)
    path, _ = encoder
    assert cli("port", str(path), "--to", "onnx").code == 0


@pytest.mark.parametrize(
    ("out", "message"),
    [("x.onnx", "a .onnx file holds ONNX weights; write Keras tensors to .npz or .safetensors"),
     ("x.h5", "port writes .npz, .safetensors, .pt, .onnx, .weights.h5, .keras, .msgpack files"),
     ("missing/x.npz", "no such directory")],
    ids=["onnx-for-keras", "suffix", "directory"],
)
def test_bad_destinations_are_refused_before_reading(
    cli: CLI, encoder: tuple[Path, Any], tmp_path: Path, out: str, message: str
) -> None:
    """--out is checked first: exit 2, one line, nothing written."""
    path, _ = encoder
    result = cli("port", str(path), "--to", "keras", "--out", str(tmp_path / out))
    assert result.code == 2 and message in result.err and result.err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["encoder.pt"]


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--forget-bias", "nan"], "Invalid value for '--forget-bias': nan is not a finite"),
     (["--seed", "-1"], "Invalid value for '--seed'"),
     (["--to", "caffe"], "Invalid value for '--to'")],
    ids=["forget-bias", "seed", "framework"],
)
def test_bad_options_are_one_line(cli: CLI, encoder: tuple[Path, Any], args: list[str],
                                  message: str) -> None:
    """Options that make no sense are refused with one line, exit 2."""
    path, _ = encoder
    result = cli("port", str(path), *(["--to", "keras"] if "--to" not in args else []), *args)
    assert result.code == 2 and message in result.err and result.err.count("\n") == 1


@pytest.mark.onnx
def test_torch_onnx_export_ports_back_bit_for_bit(cli: CLI, tmp_path: Path) -> None:
    """A GRU exported by torch.onnx.export (numbered initializers, chained nodes) ports back
    to the exact state dict it came from, and --verify agrees."""
    pytest.importorskip("onnx")
    import warnings

    torch.manual_seed(0)
    gru = torch.nn.GRU(3, 4, num_layers=2, bidirectional=True)
    exported = tmp_path / "exported.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the exporter's notes about its legacy path
        torch.onnx.export(gru, (torch.zeros(5, 1, 3),), str(exported), dynamo=False)
    back = tmp_path / "back.pt"
    result = cli("port", str(exported), "--to", "torch", "--verify", "--out", str(back))
    assert result.code == 0, result.err
    assert "onnx::GRU_" in result.out
    state = torch.load(back, weights_only=True)
    assert list(state) == list(gru.state_dict())
    assert all(torch.equal(state[k], v) for k, v in gru.state_dict().items())


@pytest.mark.onnx
def test_onnx_external_data_outside_the_model_is_refused(cli: CLI, tmp_path: Path) -> None:
    """An ONNX initializer whose data points at an absolute path is refused, not read."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    tensor = numpy_helper.from_array(np.zeros((1, 4, 3), np.float32), "W")
    tensor.ClearField("raw_data")
    tensor.data_location = TensorProto.EXTERNAL
    for key, value in (("location", "/etc/passwd"), ("offset", "0"), ("length", "48")):
        entry = tensor.external_data.add()
        entry.key, entry.value = key, value
    path = tmp_path / "evil.onnx"
    onnx.save(helper.make_model(helper.make_graph([], "g", [], [], [tensor])), str(path))
    result = cli("port", str(path), "--to", "torch")
    assert result.code == 2
    assert "should be a relative path" in result.err and result.err.count("\n") == 1


def test_bfloat16_safetensors_are_widened_exactly(cli: CLI, tmp_path: Path) -> None:
    """A bfloat16 checkpoint in safetensors ports with its values widened to float32 exactly."""
    safetensors_torch = pytest.importorskip("safetensors.torch")
    torch.manual_seed(0)
    state = {k: v.to(torch.bfloat16) for k, v in torch.nn.RNN(3, 4).state_dict().items()}
    path = tmp_path / "rnn.safetensors"
    safetensors_torch.save_file(state, str(path))
    out = tmp_path / "rnn.npz"
    assert cli("port", str(path), "--to", "keras", "--out", str(out)).code == 0
    kernel = np.load(out)["simple_rnn/simple_rnn_cell/kernel"]
    assert kernel.dtype == np.float32
    assert np.array_equal(kernel, state["weight_ih_l0"].float().numpy().T)


def test_reset_after_describes_a_keras_source_without_bias(cli: CLI, tmp_path: Path) -> None:
    """Keras GRU weights without bias do not say reset_after: --no-reset-after tells, and then
    only ports that reset before the matmul are exact; with a bias the file decides."""
    rng = np.random.default_rng(0)
    path = tmp_path / "gru.npz"
    np.savez(path, **{"gru/gru_cell/kernel": rng.standard_normal((3, 12)).astype(np.float32),
                      "gru/gru_cell/recurrent_kernel":
                          rng.standard_normal((4, 12)).astype(np.float32)})
    assumed = cli("port", str(path), "--to", "torch")
    assert assumed.code == 0 and "reset_after=True" in assumed.out
    told = cli("port", str(path), "--to", "torch", "--no-reset-after")
    assert told.code == 2 and "--to onnx --no-linear-before-reset" in told.err
    np.savez(path, **{"gru/gru_cell/kernel": np.zeros((3, 12), np.float32),
                      "gru/gru_cell/recurrent_kernel": np.zeros((4, 12), np.float32),
                      "gru/gru_cell/bias": np.zeros((2, 12), np.float32)})
    contradicted = cli("port", str(path), "--to", "onnx", "--no-reset-after")
    assert (contradicted.code, contradicted.err) == (
        2, "Error: the file's GRU gru has reset_after=True (its bias says so), not "
           "--no-reset-after\n")


def test_checks_take_the_torch_words_as_the_count_commands_do(
    cli: CLI, encoder: tuple[Path, Any]
) -> None:
    """--input-size, --hidden-size, --num-layers, --bidirectional and --proj-size are the
    same checks as -i, -H, -L, --bidir and --proj, as on lstm/gru/rnn."""
    path, _ = encoder
    short = cli("port", str(path), "--to", "keras", "-i", "6", "-H", "5", "-L", "2",
                "--bidir", "--proj", "0", "--json")
    long = cli("port", str(path), "--to", "keras", "--input-size", "6", "--hidden-size", "5",
               "--num-layers", "2", "--bidirectional", "--proj-size", "0", "--json")
    assert short.code == long.code == 0, long.err
    assert long.out == short.out
    wrong = cli("port", str(path), "--to", "keras", "--hidden-size", "7")
    assert wrong.code == 2 and wrong.err.count("\n") == 1


def test_framework_names_people_type(cli: CLI, encoder: tuple[Path, Any]) -> None:
    """--to and --from take pytorch, tensorflow and tf.keras as -f does everywhere."""
    path, _ = encoder
    assert cli("port", str(path), "--to", "tensorflow", "--json").out == \
        cli("port", str(path), "--to", "keras", "--json").out
    assert cli("port", str(path), "--from", "pytorch", "--to", "tf.keras", "--json").out == \
        cli("port", str(path), "--from", "torch", "--to", "keras", "--json").out
    wrong = cli("port", str(path), "--to", "all")
    assert wrong.code == 2 and wrong.err.count("\n") == 1
