"""``paramcount inspect`` on files saved by the real torch and safetensors: every tensor as the
framework loads it, the recurrent layers recognised as what built them, counts checked."""

from __future__ import annotations

import json
import os
import struct
import zipfile
from pathlib import Path
from typing import Any

import pytest

from paramcount.engine.spec import Cell, Framework, LayerSpec
from paramcount.files.dispatch import read_file
from paramcount.files.inspect import inspect
from tests.conftest import CLI
from tests.docfiles import inspect as makers

torch = pytest.importorskip("torch")
safetensors_torch = pytest.importorskip("safetensors.torch")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every documented file, saved once by the real libraries."""
    directory = tmp_path_factory.mktemp("inspect")
    for _, make in makers.FILES.values():
        make(directory)
    return directory


def loaded(path: Path, key: str | None = None) -> dict[str, Any]:
    """The state dict torch itself loads (weights_only, mmap), optionally under ``key``."""
    state = torch.load(path, weights_only=True, mmap=path.suffix == ".pt"
                       and zipfile.is_zipfile(path))
    return dict(state[key] if key else state)


def as_listed(state: dict[str, Any]) -> list[tuple[str, tuple[int, ...], str]]:
    """(name, shape, dtype) of each tensor, dtypes spelled the numpy way."""
    return [(k, tuple(v.shape), str(v.dtype).removeprefix("torch.")) for k, v in state.items()]


@pytest.mark.parametrize(
    ("name", "key"),
    [("encoder.pt", None), ("checkpoint.pt", "model_state_dict"), ("dataparallel.pt", None),
     ("tied.pt", None), ("legacy.pt", None)],
)
def test_torch_tensors_are_what_torch_loads(files: Path, name: str, key: str | None) -> None:
    """Names, shapes and dtypes, in order, equal torch.load(weights_only=True)'s."""
    listing = read_file(files / name)
    assert [(t.name, t.shape, t.dtype) for t in listing.tensors] == as_listed(
        loaded(files / name, key))
    assert listing.format == ("torch-legacy" if name == "legacy.pt" else "torch")


def test_safetensors_tensors_are_what_safetensors_loads(files: Path) -> None:
    """The header reader agrees with safetensors.safe_open on every name, shape and dtype."""
    from safetensors import safe_open

    listing = read_file(files / "model.safetensors")
    with safe_open(str(files / "model.safetensors"), framework="pt") as handle:
        real = {k: handle.get_slice(k) for k in handle.keys()}  # noqa: SIM118
        expected = {k: (tuple(s.get_shape()), s.get_dtype()) for k, s in real.items()}
    dtypes = {"F32": "float32", "BF16": "bfloat16"}
    assert {t.name: (t.shape, t.dtype) for t in listing.tensors} == {
        k: (shape, dtypes[dtype]) for k, (shape, dtype) in expected.items()}
    assert "metadata: format=pt" in listing.notes


def test_sharded_index_lists_every_shard(files: Path) -> None:
    """A sharded index gives the whole state dict: each tensor once, from its shard."""
    listing = read_file(files / makers.INDEX)
    state = makers._encoder().state_dict()
    assert sorted((t.name, t.shape) for t in listing.tensors) == sorted(
        (k, tuple(v.shape)) for k, v in state.items())
    assert listing.format == "safetensors-sharded"
    assert listing.notes[0].startswith("2 shards, total_size")


def real_total(module: Any) -> int:
    """What the real module counts: sum of numel over parameters()."""
    return sum(p.numel() for p in module.parameters())


@pytest.mark.parametrize(
    ("name", "prefix", "spec", "module"),
    [
        ("encoder.pt", "lstm", LayerSpec(Cell.LSTM, 40, 128, 2, bidirectional=True),
         lambda: torch.nn.LSTM(40, 128, num_layers=2, bidirectional=True)),
        ("checkpoint.pt", "gru", LayerSpec(Cell.GRU, 16, 32), lambda: torch.nn.GRU(16, 32)),
        ("dataparallel.pt", "module", LayerSpec(Cell.GRU, 10, 20, 2),
         lambda: torch.nn.GRU(10, 20, num_layers=2)),
        ("legacy.pt", "", LayerSpec(Cell.RNN, 6, 12, bidirectional=True),
         lambda: torch.nn.RNN(6, 12, bidirectional=True)),
        ("model.safetensors", "cell", LayerSpec(Cell.GRU, 24, 48, single_cell=True),
         lambda: torch.nn.GRUCell(24, 48)),
        ("model.safetensors", "decoder", LayerSpec(Cell.LSTM, 48, 96, proj_size=32),
         lambda: torch.nn.LSTM(48, 96, proj_size=32)),
        (makers.INDEX, "lstm", LayerSpec(Cell.LSTM, 40, 128, 2, bidirectional=True),
         lambda: torch.nn.LSTM(40, 128, num_layers=2, bidirectional=True)),
    ],
    ids=["encoder", "checkpoint", "dataparallel", "legacy", "safetensors-cell",
         "safetensors-proj", "sharded"],
)
def test_recurrent_layers_are_recognised_as_built(
    files: Path, name: str, prefix: str, spec: LayerSpec, module: Any
) -> None:
    """Each file's recurrent layer is recognised as the module that saved it, its count
    equals the real module's, and every tensor passes the engine's check."""
    report = inspect(read_file(files / name))
    layer = next(layer for layer in report.layers if layer.name == prefix)
    assert layer.spec == spec
    assert layer.params == layer.stored == real_total(module())
    assert layer.match and all(c.match for c in layer.checks)


def test_checkpoint_counts_the_model_not_the_optimizer(files: Path) -> None:
    """Adam's moments beside the model are skipped and named; buffers are not trainable."""
    report = inspect(read_file(files / "checkpoint.pt"))
    state = loaded(files / "checkpoint.pt", "model_state_dict")
    assert report.total == sum(v.numel() for v in state.values())
    model = makers._tagger()
    assert report.trainable == real_total(model)
    skipped = next(n for n in report.notes if n.startswith("skipped:"))
    assert "'optimizer_state_dict': optimizer state" in skipped
    assert "exp_avg" in skipped and "'epoch' = 12" in skipped


def test_as_torch_equals_model_parameters(files: Path) -> None:
    """--as torch leaves buffers and tied copies out, as model.parameters() does."""
    report = inspect(read_file(files / "checkpoint.pt"), Framework.TORCH)
    assert report.conversion is not None
    assert report.conversion.total == real_total(makers._tagger())
    whats = [d.what for d in report.conversion.differences]
    assert any("not parameters in PyTorch" in w for w in whats)


def test_tied_and_raw_copies_are_named(files: Path) -> None:
    """Tied weights share storage (one parameter) and WeightDrop's copy is named a duplicate."""
    report = inspect(read_file(files / "tied.pt"), Framework.TORCH)
    tied = {t.name: t.same_as for t in report.listing.tensors}
    assert tied["decoder.weight"] == "encoder.weight"
    assert report.conversion is not None
    deltas = {d.what.split(" ")[0]: d.delta for d in report.conversion.differences}
    assert deltas == {"decoder.weight": -400, "rnn.weight_hh_l0": -256}


def test_dataparallel_prefix_is_noted(files: Path) -> None:
    """A 'module.' prefix on every key is explained with the way to load it."""
    report = inspect(read_file(files / "dataparallel.pt"))
    assert any("nn.DataParallel" in n for n in report.notes)


def test_torch_reader_reads_only_the_pickle(files: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading a checkpoint opens data.pkl and no data/N entry (tensor bytes stay unread)."""
    opened: list[str] = []
    real_open = zipfile.ZipFile.open

    def spy(self: zipfile.ZipFile, name: Any, *args: Any, **kwargs: Any) -> Any:
        opened.append(name if isinstance(name, str) else name.filename)
        return real_open(self, name, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "open", spy)
    read_file(files / "encoder.pt")
    assert opened == ["encoder/data.pkl"]


def test_sparse_multi_gigabyte_safetensors_reads_the_header_only(tmp_path: Path) -> None:
    """A 4 GB (sparse) safetensors file is read from its header: shapes right, no data read."""
    header = json.dumps({"big": {"dtype": "F32", "shape": [32768, 32768],
                                 "data_offsets": [0, 4 * 32768**2]}}).encode()
    path = tmp_path / "big.safetensors"
    with path.open("wb") as stream:
        stream.write(struct.pack("<Q", len(header)) + header)
        stream.truncate(8 + len(header) + 4 * 32768**2)
    listing = read_file(path)
    assert [(t.name, t.shape, t.count) for t in listing.tensors] == [
        ("big", (32768, 32768), 32768**2)]
    assert os.stat(path).st_blocks * 512 < 1_000_000  # still sparse: nothing was written


def test_cli_reports_every_file(cli: CLI, files: Path) -> None:
    """Several files give {"files": [...]} with each file's totals."""
    result = cli("inspect", str(files / "legacy.pt"), str(files / "model.safetensors"),
                 "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert [f["format"] for f in data["files"]] == ["torch-legacy", "safetensors"]
    assert [f["total"] for f in data["files"]] == [480, 45_216]
    assert data["files"][1]["recurrent"][1]["command"] == (
        "paramcount lstm -i 48 -H 96 --proj 32")


def test_as_keras_matches_real_keras_count_params(files: Path) -> None:
    """--as keras equals count_params() of the same models built in Keras."""
    keras = pytest.importorskip("keras")
    tagger = keras.Sequential([keras.Input((3, 16)), keras.layers.GRU(32),
                               keras.layers.BatchNormalization(), keras.layers.Dense(5)])
    encoder = keras.Sequential([
        keras.Input((7,)), keras.layers.Embedding(1000, 40),
        keras.layers.Bidirectional(keras.layers.LSTM(128, return_sequences=True)),
        keras.layers.Bidirectional(keras.layers.LSTM(128)), keras.layers.Dense(10)])
    for name, model in (("checkpoint.pt", tagger), ("encoder.pt", encoder)):
        conversion = inspect(read_file(files / name), Framework.KERAS).conversion
        assert conversion is not None
        assert conversion.total == model.count_params(), name


def test_onnx_export_counts_as_the_torch_module(cli: CLI, tmp_path: Path) -> None:
    """A torch LSTM exported to ONNX is recognised as an ONNX LSTM whose engine check passes,
    and --as torch gives back the module's parameters()."""
    pytest.importorskip("onnx")
    import warnings

    module = torch.nn.LSTM(10, 20, num_layers=2, bidirectional=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, (torch.zeros(5, 1, 10),), str(tmp_path / "lstm.onnx"),
                          dynamo=False)
    result = cli("inspect", str(tmp_path / "lstm.onnx"), "--as", "torch", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    (layer,) = data["recurrent"]
    assert (layer["framework"], layer["cell"], layer["input"], layer["hidden"],
            layer["layers"], layer["bidirectional"]) == ("onnx", "lstm", 10, 20, 2, True)
    assert layer["match"] and layer["params"] == real_total(module)
    assert data["as"]["total"] == real_total(module)


def test_lightning_style_checkpoint_with_plain_data(tmp_path: Path) -> None:
    """A checkpoint carrying argparse, numpy, pathlib and datetime values beside its
    'state_dict' is read: those become inert stand-ins, named among the skipped entries."""
    import argparse
    import datetime

    numpy = pytest.importorskip("numpy")
    gru = torch.nn.GRU(4, 8)
    torch.save({
        "state_dict": {f"model.{k}": v for k, v in gru.state_dict().items()},
        "hyper_parameters": argparse.Namespace(lr=0.1, hidden=8),
        "best": numpy.float64(0.5), "history": numpy.zeros(3),
        "path": Path("/runs/x"), "when": datetime.datetime(2024, 1, 1),
        "optimizer_states": [{"state": {}, "param_groups": []}], "epoch": 3,
    }, tmp_path / "run.ckpt")
    report = inspect(read_file(tmp_path / "run.ckpt"))
    assert report.total == real_total(gru)
    assert [layer.name for layer in report.layers] == ["model"]
    skipped = next(n for n in report.notes if n.startswith("skipped:"))
    for text in ("'hyper_parameters': argparse.Namespace", "'optimizer_states': optimizer",
                 "'epoch' = 3", "datetime.datetime"):
        assert text in skipped, skipped


def build_torch(spec: LayerSpec) -> Any:
    """The real torch module for a torch-convention spec."""
    nn = torch.nn
    name = {Cell.RNN: "RNN", Cell.LSTM: "LSTM", Cell.GRU: "GRU"}[spec.cell]
    if spec.single_cell:
        return getattr(nn, name + "Cell")(spec.input_size, spec.hidden_size, bias=spec.bias)
    options: dict[str, Any] = {"num_layers": spec.num_layers, "bias": spec.bias,
                               "bidirectional": spec.bidirectional}
    if spec.proj_size:
        options["proj_size"] = spec.proj_size
    if spec.nonlinearity is not None:
        options["nonlinearity"] = spec.nonlinearity.value
    return getattr(nn, name)(spec.input_size, spec.hidden_size, **options)


def test_random_saved_layers_are_read_and_recognised_as_built() -> None:
    """For random torch layers saved by torch.save (zip or legacy, bare or inside a training
    checkpoint, float32 or bfloat16), the reader lists exactly what torch loads and recognises
    the layer that saved it, with the real module's count."""
    import tempfile

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from tests.strategies import layer_specs

    @settings(max_examples=30, deadline=None)
    @given(spec=layer_specs(frameworks=(Framework.TORCH,), max_size=12, max_layers=3),
           legacy=st.booleans(), nested=st.booleans(), half=st.booleans(),
           prefix=st.sampled_from(["", "encoder.rnn.", "module."]))
    def check(spec: LayerSpec, legacy: bool, nested: bool, half: bool, prefix: str) -> None:
        module = build_torch(spec)
        if half:
            module = module.to(torch.bfloat16)
        state = {prefix + k: v for k, v in module.state_dict().items()}
        saved: Any = {"epoch": 1, "model_state_dict": state,
                      "optimizer": {"state": {}, "param_groups": []}} if nested else state
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "layer.pt"
            torch.save(saved, path, _use_new_zipfile_serialization=not legacy)
            listing = read_file(path)
        assert [(t.name, t.shape, t.dtype) for t in listing.tensors] == as_listed(state)
        (layer,) = inspect(listing).layers
        assert layer.name == prefix.rstrip(".")
        assert layer.spec.replace(nonlinearity=None) == spec.replace(nonlinearity=None)
        assert layer.params == layer.stored == real_total(module)

    check()


def test_sharded_torch_bin_index(tmp_path: Path) -> None:
    """A pytorch_model.bin.index.json over two torch.save shards reads like one state dict."""
    state = torch.nn.GRU(5, 7, num_layers=2).state_dict()
    names = list(state)
    shards = {"pytorch_model-00001-of-00002.bin": names[:3],
              "pytorch_model-00002-of-00002.bin": names[3:]}
    for shard, keys in shards.items():
        torch.save({k: state[k] for k in keys}, tmp_path / shard)
    index = {"weight_map": {k: shard for shard, keys in shards.items() for k in keys}}
    (tmp_path / "pytorch_model.bin.index.json").write_text(json.dumps(index))
    report = inspect(read_file(tmp_path / "pytorch_model.bin.index.json"))
    assert report.listing.format == "torch-sharded"
    assert [(t.name, t.shape) for t in report.listing.tensors] == [
        (k, tuple(v.shape)) for k, v in state.items()]
    (layer,) = report.layers
    assert layer.spec == LayerSpec(Cell.GRU, 5, 7, 2)


@pytest.mark.parametrize("suffix", [".keras", ".h5"])
def test_keras_file_as_torch_matches_the_real_torch_modules(
    cli: CLI, tmp_path: Path, suffix: str
) -> None:
    """A Keras model saved by model.save is inspected with its config's words, and --as torch
    equals parameters() of the same layers built in torch."""
    keras = pytest.importorskip("keras")
    pytest.importorskip("h5py")
    import warnings

    model = keras.Sequential([
        keras.Input((5, 9)),
        keras.layers.Bidirectional(keras.layers.GRU(16, return_sequences=True),
                                   merge_mode="sum"),
        keras.layers.LSTM(8), keras.layers.BatchNormalization(), keras.layers.Dense(3)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.save(tmp_path / f"classifier{suffix}")
    result = cli("inspect", str(tmp_path / f"classifier{suffix}"), "--as", "torch", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["total"] == model.count_params()
    assert [layer["layer"] for layer in data["recurrent"]] == [
        "Bidirectional(GRU(16), merge_mode='sum') on 9 features", "LSTM(8) on 16 features"]
    nn = torch.nn
    torch_modules = [nn.GRU(9, 16, bidirectional=True), nn.LSTM(16, 8), nn.BatchNorm1d(8),
                     nn.Linear(8, 3)]
    assert data["as"]["total"] == sum(real_total(m) for m in torch_modules)


def test_quantized_tensors_keep_their_dtype(tmp_path: Path) -> None:
    """Per-tensor and per-channel quantized tensors are listed with their shapes and qint
    dtypes, as torch loads them."""
    import warnings

    with warnings.catch_warnings():  # quantized tensor creation is deprecated in torch 2.13
        warnings.simplefilter("ignore", UserWarning)
        state = {
            "q": torch.quantize_per_tensor(torch.randn(3, 4), 0.1, 2, torch.qint8),
            "qc": torch.quantize_per_channel(torch.randn(3, 4), torch.tensor([0.1, 0.2, 0.3]),
                                             torch.tensor([0, 1, 2]), 0, torch.quint8),
        }
        torch.save(state, tmp_path / "q.pt")
        expected = as_listed(loaded(tmp_path / "q.pt"))
    listing = read_file(tmp_path / "q.pt")
    assert [(t.name, t.shape, t.dtype) for t in listing.tensors] == expected


def test_checkpoint_without_model_tensors(cli: CLI, tmp_path: Path) -> None:
    """A checkpoint holding only optimizer state and an epoch counts 0 and says why."""
    torch.save({"epoch": 1, "optimizer": {"state": {}, "param_groups": []}}, tmp_path / "o.pt")
    result = cli("inspect", str(tmp_path / "o.pt"))
    assert result.code == 0
    assert result.out.splitlines()[1] == "0 parameters: no model tensors in it"
    assert "'optimizer': optimizer state" in result.out
    data = json.loads(cli("inspect", str(tmp_path / "o.pt"), "--json").out)
    assert (data["total"], data["tensors"], data["recurrent"]) == (0, [], [])
