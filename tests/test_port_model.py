"""``port --model``: a whole tagger into the user's own Keras, torch and Flax models, and back.

The source is a real torch tagger (embedding, conv1d, batch norm, bidirectional LSTM, GRU,
layer norm, linear head) with random weights and running statistics; each ported file is loaded
the one way its framework loads it, and the loaded model must give the torch model's outputs.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from tests import port_models
from tests.conftest import CLI, have

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")

pytestmark = pytest.mark.torch

TOLERANCE = 1e-5


def relative(a: Any, b: Any) -> float:
    """The largest difference of two outputs, relative to the largest output."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    assert a.shape == b.shape
    return float(np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(b)))))


@pytest.fixture(scope="module")
def tagger(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any, Any, Any]:
    """The torch tagger's checkpoint, the model, random token ids and its outputs on them."""
    torch.manual_seed(0)
    model = port_models.torch_tagger()
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.normal_(0, 0.4)
        model.bn.running_mean.normal_()
        model.bn.running_var.uniform_(0.5, 2.0)
    model.eval()
    path = tmp_path_factory.mktemp("tagger") / "tagger.pt"
    torch.save(model.state_dict(), path)
    tokens = np.random.default_rng(0).integers(0, port_models.VOCAB, (3, 7)).astype(np.int64)
    with torch.no_grad():
        expected = model(torch.from_numpy(tokens)).numpy()
    return path, model, tokens, expected


MODELS = "tests.port_models"


@pytest.mark.keras
@pytest.mark.skipif(not have("keras"), reason="needs keras")
def test_torch_to_keras_and_back(cli: CLI, tagger: tuple[Path, Any, Any, Any],
                                 tmp_path: Path) -> None:
    """torch → Keras .weights.h5 (load_weights) → .keras → torch state dict (strict=True)."""
    path, _, tokens, expected = tagger
    weights = tmp_path / "tagger.weights.h5"
    result = cli("port", str(path), "--to", "keras", "--model", f"{MODELS}:keras_tagger",
                 "--out", str(weights))
    assert result.code == 0, result.err
    assert "lstm → sequential/bidirectional: nn.LSTM(12, 16, bidirectional=True)" in result.out
    assert f"model.load_weights('{weights}')" in result.out
    twin = port_models.keras_tagger()
    twin.load_weights(str(weights))
    assert relative(twin(tokens.astype(np.int32), training=False), expected) < TOLERANCE
    saved = tmp_path / "twin.keras"
    with warnings.catch_warnings():  # Keras' own NumPy 2 notice while saving
        warnings.filterwarnings("ignore", "__array__ implementation", DeprecationWarning)
        twin.save(str(saved))
    back = tmp_path / "back.pt"
    result = cli("port", str(saved), "--to", "torch", "--model", f"{MODELS}:torch_tagger",
                 "--out", str(back), "--verify")
    assert result.code == 0, result.err
    assert "Whole model\n  equal: keras " in result.out
    model = port_models.torch_tagger()
    model.load_state_dict(torch.load(back, weights_only=True), strict=True)
    model.eval()
    with torch.no_grad():
        again = model(torch.from_numpy(tokens)).numpy()
    assert relative(again, expected) < TOLERANCE


@pytest.mark.flax
@pytest.mark.skipif(not have("flax"), reason="needs flax")
def test_torch_to_flax_params_tree(cli: CLI, tagger: tuple[Path, Any, Any, Any],
                                   tmp_path: Path) -> None:
    """torch → a Flax msgpack that msgpack_restore reads and the linen module applies."""
    from flax import serialization

    path, _, tokens, expected = tagger
    out = tmp_path / "tagger.msgpack"
    result = cli("port", str(path), "--to", "flax-linen", "--model", f"{MODELS}:flax_tagger",
                 "--out", str(out))
    assert result.code == 0, result.err
    text = " ".join(result.out.split())
    assert "the model's own is not in its parameters: build it with epsilon=1e-05" in text
    assert "lstm → LSTMCell_1: nn.LSTM(12, 16, bidirectional=True) → nn.LSTMCell(16)" in text
    variables = serialization.msgpack_restore(out.read_bytes())
    outputs = port_models.flax_tagger().apply(variables, tokens.astype(np.int32))
    assert relative(outputs, expected) < TOLERANCE


@pytest.mark.keras
@pytest.mark.skipif(not have("keras"), reason="needs keras")
def test_a_model_with_another_structure_is_refused(cli: CLI, tagger: tuple[Path, Any, Any, Any],
                                                   tmp_path: Path) -> None:
    """A model whose layers differ from the source's names the layer without a counterpart."""
    path, *_ = tagger
    out = tmp_path / "w.weights.h5"
    result = cli("port", str(path), "--to", "keras", "--model", f"{MODELS}:keras_tagger",
                 "--kwargs", '{"hidden": 8}', "--out", str(out))
    assert result.code == 2
    assert result.err.startswith("Error: the source's lstm (nn.LSTM(12, 16, "
                                 "bidirectional=True)) has no counterpart in the model (its "
                                 "layers: sequential/embedding (Embedding(20, 8)), "), result.err
    assert "sequential/bidirectional (Bidirectional(LSTM(8)) on 12 features)" in result.err
    assert not out.exists()


@pytest.mark.parametrize(("model", "kwargs", "message"), [
    pytest.param("tests.port_models", None, "expected module:function", id="no-function"),
    pytest.param("tests.port_models:nothing", None, "has no attribute 'nothing'", id="missing"),
    pytest.param(f"{MODELS}:torch_tagger", "[1]", "expected a JSON object", id="kwargs-list"),
    pytest.param(f"{MODELS}:torch_tagger", "{hidden", "not JSON", id="kwargs-bad"),
    pytest.param(f"{MODELS}:torch_tagger", '{"size": 3}', "raised TypeError", id="raises"),
])
def test_bad_models_are_one_line(cli: CLI, tagger: tuple[Path, Any, Any, Any], model: str,
                                 kwargs: str | None, message: str) -> None:
    """A factory that cannot be found, parsed or called is one error line, exit 2."""
    path, *_ = tagger
    args = ["port", str(path), "--to", "keras", "--model", model]
    result = cli(*args, *(["--kwargs", kwargs] if kwargs else []))
    assert result.code == 2
    assert result.err.count("\n") == 1 and message in result.err, result.err


def test_weights_h5_needs_the_model(cli: CLI, tagger: tuple[Path, Any, Any, Any],
                                    tmp_path: Path) -> None:
    """A Keras .weights.h5 is written only into the user's model: without --model, refused."""
    path, *_ = tagger
    result = cli("port", str(path), "--to", "keras", "--out", str(tmp_path / "w.weights.h5"))
    assert result.code == 2
    assert "give that model with --model module:function" in result.err


@pytest.mark.onnx
@pytest.mark.skipif(not have("onnxruntime"), reason="needs onnxruntime")
def test_torch_to_one_onnx_graph(cli: CLI, tagger: tuple[Path, Any, Any, Any],
                                 tmp_path: Path) -> None:
    """torch → one .onnx graph of the whole tagger, which onnxruntime runs to torch's outputs,
    and back to a state dict the torch tagger loads with strict=True."""
    import onnxruntime

    path, _, tokens, expected = tagger
    out = tmp_path / "tagger.onnx"
    result = cli("port", str(path), "--to", "onnx", "--out", str(out))
    assert result.code == 0, result.err
    text = " ".join(result.out.split())
    assert "conv: stride 1 and 'same' padding (k // 2), which the file does not store" in text
    session = onnxruntime.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    assert relative(session.run(["Y"], {"X": tokens})[0], expected) < TOLERANCE
    back = tmp_path / "back.pt"
    result = cli("port", str(out), "--to", "torch", "--out", str(back))
    assert result.code == 0, result.err
    state = torch.load(back, weights_only=True)
    model = port_models.torch_tagger()
    model.load_state_dict(state, strict=True)
    original = torch.load(path, weights_only=True)
    assert [k for k in state if not torch.equal(state[k], original[k])] == \
        ["bn.num_batches_tracked"]  # a training counter ONNX does not keep; all else bit-exact


def test_layers_that_do_not_chain_write_no_graph(cli: CLI, tmp_path: Path) -> None:
    """An .onnx of layers whose widths do not connect is refused, naming both, and not written."""
    pytest.importorskip("onnx")
    model = torch.nn.ModuleDict({"lstm": torch.nn.LSTM(4, 6), "head": torch.nn.Linear(5, 2)})
    path = tmp_path / "m.pt"
    torch.save(model.state_dict(), path)
    out = tmp_path / "m.onnx"
    result = cli("port", str(path), "--to", "onnx", "--out", str(out))
    assert (result.code, result.err) == (2, "Error: --out .onnx builds the model the layers "
                                            "make in the file's order, and head reads 5 where "
                                            "lstm gives 6: write .npz or .safetensors\n")
    assert not out.exists()


@pytest.mark.keras
@pytest.mark.skipif(not have("keras"), reason="needs keras")
@pytest.mark.parametrize(("epsilon", "code"), [pytest.param(0.5, 1, id="other-epsilon")])
def test_verify_runs_both_whole_models(cli: CLI, tagger: tuple[Path, Any, Any, Any],
                                       tmp_path: Path, epsilon: float, code: int) -> None:
    """--verify runs the source's model (--source-model) and the user's: a twin that differs
    writes nothing (an equal one: the round trip above)."""
    path, *_ = tagger
    out = tmp_path / "w.weights.h5"
    result = cli("port", str(path), "--to", "keras", "--model", f"{MODELS}:keras_tagger",
                 "--kwargs", f'{{"epsilon": {epsilon}}}', "--source-model",
                 f"{MODELS}:torch_tagger", "--source-kwargs", '{"hidden": 16}', "--verify",
                 "--out", str(out))
    assert result.code == code, result.err
    assert out.exists() == (code == 0)
    verdict = "equal" if code == 0 else "DIFFERENT"
    assert f"Whole model\n  {verdict}: torch " in result.out
    if code:
        assert "nothing written" in result.err


@pytest.mark.keras
@pytest.mark.skipif(not have("keras"), reason="needs keras")
def test_torch_to_a_keras_model_without_a_twin(cli: CLI, tagger: tuple[Path, Any, Any, Any],
                                               tmp_path: Path) -> None:
    """Without --model, a .keras built from the file's layers, which load_model opens."""
    from paramcount.verify.keras_backend import load

    keras = load()
    path, _, tokens, expected = tagger
    out = tmp_path / "tagger.keras"
    result = cli("port", str(path), "--to", "keras", "--out", str(out))
    assert result.code == 0, result.err
    assert f"model = keras.saving.load_model('{out}')" in result.out
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "__array__ implementation", DeprecationWarning)
        model = keras.saving.load_model(str(out))
    assert relative(model(tokens.astype(np.int32), training=False), expected) < TOLERANCE


def _saved(tmp_path: Path, modules: dict[str, Any]) -> Path:
    path = tmp_path / "source.pt"
    torch.manual_seed(1)
    torch.save(torch.nn.ModuleDict(modules).state_dict(), path)
    return path


@pytest.mark.keras
@pytest.mark.skipif(not have("keras"), reason="needs keras")
@pytest.mark.parametrize(("modules", "kwargs", "rows"), [
    pytest.param(lambda: {"fwd": torch.nn.LSTM(4, 6), "bwd": torch.nn.LSTM(4, 6)},
                 '{"layers": 1}', ["fwd + bwd → sequential/bidirectional: "],
                 id="two-unidirectional-one-bidirectional"),
    pytest.param(lambda: {"rnn": torch.nn.LSTM(4, 6, num_layers=2, bidirectional=True)},
                 '{"layers": 2}', ["weight_ih_l1_reverse"], id="stack-separate-layers"),
    pytest.param(lambda: {"cell": torch.nn.GRUCell(4, 6)},
                 '{"cell": "GRU", "bidirectional": false}', ["weight_ih"], id="cell-one-layer"),
])
def test_structural_ports_into_the_model(cli: CLI, tmp_path: Path, modules: Any, kwargs: str,
                                         rows: list[str]) -> None:
    """Layers that split what the model joins (or the reverse) port direction by direction."""
    path = _saved(tmp_path, modules())
    out = tmp_path / "w.weights.h5"
    result = cli("port", str(path), "--to", "keras", "--model", f"{MODELS}:keras_pair",
                 "--kwargs", kwargs, "--out", str(out))
    assert result.code == 0, result.err
    assert all(row in result.out for row in rows), result.out
    model = port_models.keras_pair(**json.loads(kwargs))
    model.load_weights(str(out))
    state = torch.load(path, weights_only=True)
    x = np.random.default_rng(2).standard_normal((2, 5, 4)).astype(np.float32)
    got = np.asarray(model(x))
    with torch.no_grad():
        if "fwd.weight_ih_l0" in state:
            fwd, bwd = torch.nn.LSTM(4, 6, batch_first=True), torch.nn.LSTM(4, 6, batch_first=True)
            fwd.load_state_dict({k[4:]: v for k, v in state.items() if k.startswith("fwd.")})
            bwd.load_state_dict({k[4:]: v for k, v in state.items() if k.startswith("bwd.")})
            t = torch.from_numpy(x)
            expected = torch.cat([fwd(t)[0], bwd(t.flip(1))[0].flip(1)], -1).numpy()
        elif "cell.weight_ih" in state:
            cell = torch.nn.GRUCell(4, 6)
            cell.load_state_dict({k[5:]: v for k, v in state.items()})
            h, steps = torch.zeros(2, 6), []
            for step in range(5):
                h = cell(torch.from_numpy(x[:, step]), h)
                steps.append(h)
            expected = torch.stack(steps, 1).numpy()
        else:
            rnn = torch.nn.LSTM(4, 6, num_layers=2, bidirectional=True, batch_first=True)
            rnn.load_state_dict({k[4:]: v for k, v in state.items()})
            expected = rnn(torch.from_numpy(x))[0].numpy()
    assert relative(got, expected) < TOLERANCE


@pytest.mark.keras
@pytest.mark.skipif(not have("keras"), reason="needs keras")
def test_an_ambiguous_match_is_refused_with_the_choices(cli: CLI, tmp_path: Path) -> None:
    """Two source layers that fit two of the model's, out of step, are refused naming both."""
    path = _saved(tmp_path, {"a": torch.nn.Linear(4, 4), "b": torch.nn.Linear(4, 4)})
    result = cli("port", str(path), "--to", "keras", "--model", f"{MODELS}:keras_dense")
    assert result.code == 2
    assert result.err == (
        "Error: the source's a (nn.Linear(4, 4)) could be the model's sequential/dense "
        "(Dense(4) on 4 features) or sequential/dense_1 (Dense(4) on 4 features), and their "
        "order does not say which: make the model's layers follow the source's order\n")


@pytest.mark.keras
@pytest.mark.skipif(not have("keras"), reason="needs keras")
def test_a_layer_short_of_a_tensor_names_the_tensor(cli: CLI, tmp_path: Path) -> None:
    """A model whose Dense lacks only the Linear's bias names that bias and the Dense (it said
    the whole Linear had no counterpart)."""
    path = tmp_path / "crnn.pt"
    torch.save(port_models.torch_crnn().state_dict(), path)
    result = cli("port", str(path), "--to", "keras", "--model", f"{MODELS}:keras_crnn",
                 "--kwargs", '{"bias": false}')
    assert (result.code, result.err) == (2, (
        "Error: the source's out.bias (7,) has no counterpart: the model's dense (Dense(7) on "
        "16 features) is the same layer without a bias; give both the same tensors\n"))


@pytest.mark.keras
@pytest.mark.skipif(not have("keras"), reason="needs keras")
def test_a_recurrent_layer_without_biases_names_them(cli: CLI, tmp_path: Path) -> None:
    """A torch LSTM with biases into a Keras LSTM without: the biases are named."""
    path = _saved(tmp_path, {"rnn": torch.nn.LSTM(4, 6)})
    result = cli("port", str(path), "--to", "keras", "--model", f"{MODELS}:keras_pair",
                 "--kwargs", '{"bidirectional": false, "bias": false}')
    assert result.code == 2
    assert result.err.startswith("Error: the source's rnn.bias_ih_l0, rnn.bias_hh_l0 have no "
                                 "counterpart: the model's sequential/lstm (LSTM(6"), result.err
    assert result.err.endswith("is the same layer without biases; give both the same "
                               "tensors\n"), result.err


@pytest.mark.parametrize(("extra", "message"), [
    pytest.param([], "nothing in Keras maps 1 tensor of", id="unmapped-tensor"),
    pytest.param(["--hidden", "7"], "with --hidden 6, not --hidden 7", id="expected-size"),
    pytest.param(["--proj"], "projection", id="no-weights-make-it"),
])
def test_what_the_source_decides_comes_before_the_model(cli: CLI, tmp_path: Path,
                                                        extra: list[str], message: str) -> None:
    """A refusal the source alone decides (a tensor no layer holds, a size the user expected)
    is said before the model is built: its factory, which raises, is never called."""
    lstm = torch.nn.LSTM(4, 6, proj_size=3 if extra == ["--proj"] else 0)
    state = {f"rnn.{k}": v for k, v in lstm.state_dict().items()}
    if not extra:
        state["stray"] = torch.zeros(3)
    extra = [] if extra == ["--proj"] else extra
    path = tmp_path / "m.pt"
    torch.save(state, path)
    args = ["port", str(path), "--to", "keras", "--model", f"{MODELS}:never_built", *extra]
    result = cli(*args)
    assert result.code == 2
    assert message in result.err and "built before" not in result.err, result.err
