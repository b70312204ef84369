"""Review of ``paramcount port``: hostile and careless inputs found by trying them."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.conftest import CLI, have

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")


@pytest.fixture
def lstm_pt(tmp_path: Path) -> Path:
    """A small torch LSTM state dict on disk."""
    torch.manual_seed(0)
    path = tmp_path / "lstm.pt"
    torch.save(torch.nn.LSTM(4, 8).state_dict(), path)
    return path


def test_npz_with_an_object_array_is_one_line_and_never_unpickled(
    cli: CLI, tmp_path: Path
) -> None:
    """An .npz whose tensor is an object array is refused in one line, not a traceback."""
    path = tmp_path / "objects.npz"
    objects = np.empty((32, 4), dtype=object)
    objects[:] = 1
    np.savez(path, weight_ih_l0=objects, weight_hh_l0=np.zeros((32, 8), np.float32),
             bias_ih_l0=np.zeros(32, np.float32), bias_hh_l0=np.zeros(32, np.float32))
    out = tmp_path / "out.npz"
    result = cli("port", str(path), "--to", "keras", "--out", str(out))
    assert result.code == 2
    assert result.err.startswith(f"Error: {path}: ")
    assert "weight_ih_l0" in result.err and "object" in result.err
    assert result.err.count("\n") == 1
    assert not out.exists()


def test_a_tensor_that_fails_to_read_later_is_one_line(cli: CLI, tmp_path: Path) -> None:
    """A member whose data is damaged (found only when read) is one line, exit 2."""
    path = tmp_path / "damaged.npz"
    state = torch.nn.LSTM(64, 64).state_dict()  # members larger than zipfile's read-ahead
    np.savez(path, **{k: v.numpy() for k, v in state.items()})
    raw = bytearray(path.read_bytes())
    header = raw.find(b"weight_ih_l0.npy")
    end = raw.find(b"\x93NUMPY", header)
    end = raw.find(b"\n", end) + 1  # the array's header line ends here; its data follows
    raw[end:end + 16] = b"\xff" * 16  # the zip's CRC no longer matches
    path.write_bytes(bytes(raw))
    result = cli("port", str(path), "--to", "keras", "--out", str(tmp_path / "o.npz"))
    assert result.code == 2, result.err
    assert result.err.startswith(f"Error: {path}: ")
    assert result.err.count("\n") == 1


@pytest.mark.parametrize(("suffix", "to"), [(".safetensors", "keras"), (".npz", "onnx")])
def test_out_over_the_source_is_refused_and_the_source_is_untouched(
    cli: CLI, tmp_path: Path, lstm_pt: Path, suffix: str, to: str
) -> None:
    """--out naming the source file itself (directly or by a link) exits 2 and changes nothing."""
    state = torch.load(lstm_pt, weights_only=True)
    path = tmp_path / f"lstm{suffix}"
    if suffix == ".npz":
        np.savez(path, **{k: v.numpy() for k, v in state.items()})
    else:
        safetensors_torch = pytest.importorskip("safetensors.torch")
        safetensors_torch.save_file(state, path)
    before = path.read_bytes()
    link = tmp_path / f"link{suffix}"
    link.symlink_to(path)
    for out in (path, link, Path(os.path.relpath(path))):
        result = cli("port", str(path), "--to", to, "--out", str(out))
        assert result.code == 2, (out, result.err)
        assert "is the source" in result.err
        assert result.err.count("\n") == 1
        assert path.read_bytes() == before
    assert link.is_symlink()


def test_a_whole_pickled_model_is_refused_without_advice_to_unpickle_it(
    cli: CLI, tmp_path: Path
) -> None:
    """torch.save(model) is refused, and the message does not suggest weights_only=False."""
    path = tmp_path / "whole.pt"
    torch.save(torch.nn.LSTM(4, 8), path)
    result = cli("port", str(path), "--to", "keras")
    assert result.code == 2
    assert "weights_only" not in result.err
    assert "state_dict" in result.err
    assert result.err.count("\n") == 1


def test_written_files_have_the_usual_permissions(
    cli: CLI, tmp_path: Path, lstm_pt: Path
) -> None:
    """A new output gets the umask's permissions; a replaced one keeps its own."""
    fresh = tmp_path / "fresh.npz"
    old = os.umask(0o022)
    try:
        assert cli("port", str(lstm_pt), "--to", "keras", "--out", str(fresh)).code == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o644
    existing = tmp_path / "shared.npz"
    existing.write_bytes(b"old")
    existing.chmod(0o664)
    assert cli("port", str(lstm_pt), "--to", "keras", "--out", str(existing)).code == 0
    assert stat.S_IMODE(existing.stat().st_mode) == 0o664
    assert existing.read_bytes() != b"old"


@pytest.mark.onnx
@pytest.mark.parametrize("modules", [("encoder",), ("encoder", "decoder")])
def test_torch_to_onnx_and_back_keeps_the_module_names(
    cli: CLI, tmp_path: Path, modules: tuple[str, ...]
) -> None:
    """torch → .onnx → torch gives back the same state-dict keys, bit for bit."""
    pytest.importorskip("onnx")
    torch.manual_seed(1)
    model = torch.nn.ModuleDict({name: torch.nn.LSTM(4, 8, num_layers=2, bidirectional=True)
                                 for name in modules})
    source, graph, back = tmp_path / "m.pt", tmp_path / "m.onnx", tmp_path / "back.pt"
    torch.save(model.state_dict(), source)
    assert cli("port", str(source), "--to", "onnx", "--out", str(graph)).code == 0
    result = cli("port", str(graph), "--to", "torch", "--out", str(back))
    assert result.code == 0, result.err
    state = torch.load(back, weights_only=True)
    assert sorted(state) == sorted(model.state_dict())
    assert all(torch.equal(state[k], v) for k, v in model.state_dict().items())


def test_a_keras_archive_with_a_zip_bomb_config_is_refused(cli: CLI, tmp_path: Path) -> None:
    """A .keras whose config.json inflates more than 100:1 is refused as inspect refuses it."""
    import zipfile

    path = tmp_path / "bomb.keras"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("config.json", "{}" + " " * 4 * 2**20)
        archive.writestr("model.weights.h5", b"")
    result = cli("port", str(path), "--to", "torch")
    assert result.code == 2
    assert "zip bomb" in result.err
    assert result.err.count("\n") == 1


@pytest.mark.onnx
def test_verify_from_safetensors_prints_no_warning(
    cli: CLI, tmp_path: Path, lstm_pt: Path
) -> None:
    """--verify on a .safetensors source (read-only arrays) warns about nothing."""
    pytest.importorskip("onnx")
    safetensors_torch = pytest.importorskip("safetensors.torch")
    path = tmp_path / "lstm.safetensors"
    safetensors_torch.save_file(torch.load(lstm_pt, weights_only=True), path)
    result = cli("port", str(path), "--to", "onnx", "--verify")
    assert result.code == 0, result.err
    assert result.err == ""


def test_an_rnn_nonlinearity_note_says_what_the_port_assumed(
    cli: CLI, tmp_path: Path
) -> None:
    """The note on a torch RNN says it is ported as tanh and how to say relu, not a count."""
    path = tmp_path / "rnn.pt"
    torch.save(torch.nn.RNN(4, 8, nonlinearity="relu").state_dict(), path)
    assumed = cli("port", str(path), "--to", "onnx")
    assert assumed.code == 0, assumed.err
    assert "ported as tanh" in assumed.out and "--nonlinearity relu" in assumed.out
    assert "the count" not in assumed.out
    told = cli("port", str(path), "--to", "onnx", "--nonlinearity", "relu")
    assert told.code == 0, told.err
    assert "Notes" not in told.out and "activations=['Relu']" in told.out


@pytest.mark.keras
@pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")
@pytest.mark.skipif(not (have("keras") and have("tensorflow") and have("h5py")),
                    reason="needs keras")
def test_a_keras_merge_the_target_lacks_is_noted(cli: CLI, tmp_path: Path) -> None:
    """A Bidirectional(merge_mode='sum') ported to torch says that the sum is the user's."""
    from paramcount.verify.keras_backend import load

    keras = load()
    inputs = keras.Input((None, 4))
    layer = keras.layers.Bidirectional(keras.layers.GRU(8, name="gru"), merge_mode="sum",
                                       name="enc")
    path = tmp_path / "summed.keras"
    keras.Model(inputs, layer(inputs)).save(path)
    result = cli("port", str(path), "--to", "torch")
    assert result.code == 0, result.err
    assert "enc: Keras adds its two directions' outputs (merge_mode='sum'); PyTorch " \
        "returns them side by side" in " ".join(result.out.split())


def test_a_stacked_lstm_through_flax_linen_and_back_keeps_its_names(
    cli: CLI, tmp_path: Path
) -> None:
    """torch → flax-linen .npz → torch gives back the original keys (weights bit for bit)."""
    torch.manual_seed(2)
    model = torch.nn.ModuleDict({"encoder": torch.nn.LSTM(4, 8, num_layers=2,
                                                          bidirectional=True)})
    source, arrays, back = tmp_path / "m.pt", tmp_path / "m.npz", tmp_path / "back.pt"
    torch.save(model.state_dict(), source)
    assert cli("port", str(source), "--to", "flax-linen", "--out", str(arrays)).code == 0
    result = cli("port", str(arrays), "--from", "flax-linen", "--to", "torch",
                 "--out", str(back))
    assert result.code == 0, result.err
    state, original = torch.load(back, weights_only=True), model.state_dict()
    assert sorted(state) == sorted(original)
    assert all(torch.equal(state[k], v) for k, v in original.items() if "weight" in k)


def test_a_stacked_cudnn_lstm_reads_its_second_layer(cli: CLI, tmp_path: Path) -> None:
    """The second Bidirectional(CuDNNLSTM) of a stack (forward_cu_dnnlstm_1) ports back."""
    torch.manual_seed(3)
    lstm = torch.nn.LSTM(4, 8, num_layers=2, bidirectional=True)
    source, arrays, back = tmp_path / "m.pt", tmp_path / "m.npz", tmp_path / "back.pt"
    torch.save(lstm.state_dict(), source)
    assert cli("port", str(source), "--to", "tf1-cudnn", "--out", str(arrays)).code == 0
    result = cli("port", str(arrays), "--from", "tf1-cudnn", "--to", "torch",
                 "--out", str(back))
    assert result.code == 0, result.err
    state = torch.load(back, weights_only=True)
    for key, value in lstm.state_dict().items():  # each Keras layer is its own module
        layer = "bidirectional_1" if "_l1" in key else "bidirectional"
        assert torch.equal(state[f"{layer}.{key.replace('_l1', '_l0')}"], value), key


@pytest.mark.parametrize(("module", "name"), [("numpy", "w.npz"), ("h5py", "m.keras"),
                                              ("h5py", "m.h5")])
def test_a_missing_reader_names_the_port_extra(
    cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str, name: str
) -> None:
    """Without numpy or h5py, port exits 3 and names the extra that installs them."""
    import sys

    path = tmp_path / name
    path.write_bytes(b"")
    monkeypatch.setitem(sys.modules, module, None)  # importing it now raises ImportError
    result = cli("port", str(path), "--to", "torch")
    assert result.code == 3, result.err
    assert "pip install 'paramcount[port]'" in result.err


@pytest.mark.onnx
def test_a_port_verify_disproves_is_not_written(
    cli: CLI, tmp_path: Path, lstm_pt: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With --verify and --out, a port whose outputs differ exits 1 and writes nothing."""
    pytest.importorskip("onnx")
    from paramcount.engine.spec import Cell
    from paramcount.porting import layouts

    monkeypatch.setitem(layouts._ONNX, Cell.LSTM, layouts.CANONICAL[Cell.LSTM])
    out = tmp_path / "wrong.onnx"
    result = cli("port", str(lstm_pt), "--to", "onnx", "--out", str(out), "--verify")
    assert result.code == 1
    assert not out.exists()
    assert "not written" in result.out
    assert result.err.rstrip().endswith("; nothing written")
