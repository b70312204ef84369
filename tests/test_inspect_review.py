"""Review of ``paramcount inspect``: bugs found by using and attacking it, each pinned here."""

from __future__ import annotations

import io
import json
import pickle
import struct
import zipfile
from pathlib import Path

import pytest

from paramcount.errors import ParamcountError
from paramcount.files import torch_file
from tests.conftest import CLI


def _text(value: str) -> bytes:
    """A SHORT_BINUNICODE opcode pushing ``value``."""
    data = value.encode()
    return pickle.SHORT_BINUNICODE + bytes([len(data)]) + data


def _global(module: str, name: str) -> bytes:
    """A GLOBAL opcode pushing ``module.name``."""
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def _int(value: int) -> bytes:
    """A LONG1 opcode pushing a (possibly huge or negative) int."""
    data = value.to_bytes((value.bit_length() + 8) // 8, "little", signed=True)
    return pickle.LONG1 + bytes([len(data)]) + data


def _ints(values: tuple[int, ...]) -> bytes:
    """A tuple of ints: a MARK, LONG1 opcodes, TUPLE."""
    return b"(" + b"".join(_int(v) for v in values) + pickle.TUPLE


def _tensor(shape: tuple[int, ...], stride: tuple[int, ...], offset: int, numel: int) -> bytes:
    """``torch._utils._rebuild_tensor_v2`` of a FloatStorage holding ``numel`` elements."""
    storage = (b"(" + _text("storage") + _global("torch", "FloatStorage") + _text("0")
               + _text("cpu") + pickle.BININT + struct.pack("<i", numel) + pickle.TUPLE
               + pickle.BINPERSID)
    return (_global("torch._utils", "_rebuild_tensor_v2") + b"(" + storage + _int(offset)
            + _ints(shape) + _ints(stride) + pickle.NEWFALSE
            + _global("collections", "OrderedDict") + pickle.EMPTY_TUPLE + pickle.REDUCE
            + pickle.TUPLE + pickle.REDUCE)


def _checkpoint(tmp_path: Path, body: bytes, storage_bytes: int = 0) -> Path:
    """A torch.save-style zip whose data.pkl is the protocol-2 pickle of ``body``."""
    path = tmp_path / "model.pt"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("archive/data.pkl", b"\x80\x02" + body + pickle.STOP)
        archive.writestr("archive/data/0", b"\0" * storage_bytes)
    return path


def _one_error_line(cli: CLI, *args: str) -> str:
    """Run ``paramcount ARGS``, assert exit 2 with one ``Error:`` line, and return it."""
    result = cli(*args)
    assert result.code == 2, result
    lines = result.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.err
    return lines[0]


def test_what_the_weights_cannot_tell_is_printed(cli: CLI, tmp_path: Path) -> None:
    """An nn.RNN's note (tanh or relu cannot be told) reaches the table, not only the JSON."""
    torch = pytest.importorskip("torch")
    torch.save(torch.nn.RNN(6, 8, num_layers=3, nonlinearity="relu").state_dict(),
               tmp_path / "rnn.pt")
    result = cli("inspect", str(tmp_path / "rnn.pt"))
    assert result.code == 0
    assert "(top level): a plain RNN's nonlinearity (tanh or relu) is not stored" in result.out


def test_data_parallel_is_said_once(cli: CLI, tmp_path: Path) -> None:
    """A `module.` prefix is explained once for the file, not again for the layer."""
    torch = pytest.importorskip("torch")
    torch.save(torch.nn.DataParallel(torch.nn.LSTM(3, 4)).state_dict(), tmp_path / "dp.pt")
    result = cli("inspect", str(tmp_path / "dp.pt"))
    assert result.code == 0
    assert result.out.count("nn.DataParallel") == 1, result.out


@pytest.mark.parametrize("value", [_global("torch", "device"), _text("x")],
                         ids=["callable", "string"])
def test_build_cannot_shadow_a_state_dicts_methods(
    cli: CLI, tmp_path: Path, value: bytes
) -> None:
    """BUILD setting an OrderedDict's `items` attribute cannot crash the reader."""
    body = (_global("collections", "OrderedDict") + pickle.EMPTY_TUPLE + pickle.REDUCE
            + b"}" + _text("items") + value + pickle.SETITEM + pickle.BUILD)
    path = _checkpoint(tmp_path, body)
    result = cli("inspect", str(path))
    assert result.code == 0, result
    assert "0 parameters" in result.out


@pytest.mark.parametrize("target", [("torch", "FloatStorage"), ("torch._utils",
                                    "_rebuild_tensor_v2"), ("torch", "float32")],
                         ids=["storage", "function", "dtype"])
def test_build_cannot_change_an_allowed_global(tmp_path: Path, target: tuple[str, str]) -> None:
    """BUILD on an allow-listed stand-in is refused, so no file changes what the next reads."""
    before = repr(torch_file.ALLOWED[target])
    body = (_global(*target) + b"}" + _text("dtype") + _text("int8") + pickle.SETITEM
            + pickle.BUILD)
    with pytest.raises(ParamcountError, match=r"^.*model\.pt: a pickle sets the state"):
        torch_file.read(_checkpoint(tmp_path, body))
    assert repr(torch_file.ALLOWED[target]) == before


def test_bytearray_is_never_built_from_a_length() -> None:
    """bytearray(n) would allocate what the file asks; only bytes (or text) are accepted."""
    make = torch_file.ALLOWED[("builtins", "bytearray")]
    assert make(b"ab") == bytearray(b"ab")
    assert make("\xff", "latin1") == bytearray(b"\xff")
    with pytest.raises(ParamcountError, match="not the way a pickle spells bytes"):
        make(10**6)


def test_a_pickle_of_millions_of_values_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Walking the structure has a budget; past it the file is refused, naming it."""
    monkeypatch.setattr(torch_file, "MAX_ITEMS", 1000)
    body = pickle.EMPTY_LIST + pickle.MARK + b"}" * 2000 + pickle.APPENDS
    with pytest.raises(ParamcountError, match=r"model\.pt: its pickle holds over 1,000"):
        torch_file.read(_checkpoint(tmp_path, body))


def test_walk_names_nested_tensors_by_their_paths() -> None:
    """Tensors deep in dicts and lists keep their own dotted paths, in order."""
    stub = torch_file.TensorStub(None, 0, (1,), (1,), "float32")
    tree = {"a": {"b": [1, stub], "c": {"d": stub}}, "e": [stub]}
    assert [name for name, _ in torch_file._Structure().walk(tree, "")] == ["a.b.1", "a.c.d", "e.0"]


@pytest.mark.parametrize(("shape", "stride", "offset", "words"), [
    ((10**12,), (1,), 0, "needs 4,000,000,000,000 bytes"),
    ((4,), (1,), -5, "not a tensor torch.save writes"),
    ((2, 5), (5, 1), 1, "needs 44 bytes"),
], ids=["huge", "negative-offset", "offset-past-end"])
def test_tensor_reaching_past_its_storage_is_refused(
    cli: CLI, tmp_path: Path, shape: tuple[int, ...], stride: tuple[int, ...], offset: int,
    words: str,
) -> None:
    """A shape that its 10-element storage cannot hold is refused, as torch.load refuses it."""
    body = b"}" + _text("w") + _tensor(shape, stride, offset, 10) + pickle.SETITEM
    line = _one_error_line(cli, "inspect", str(_checkpoint(tmp_path, body, 40)))
    assert words in line and "'w'" in line


def test_tensor_filling_its_storage_is_read(cli: CLI, tmp_path: Path) -> None:
    """The same hand-made tensor within its storage reads as its shape says."""
    body = b"}" + _text("w") + _tensor((2, 5), (5, 1), 0, 10) + pickle.SETITEM
    result = cli("inspect", "--json", str(_checkpoint(tmp_path, body, 40)))
    assert result.code == 0, result
    assert json.loads(result.out)["total"] == 10


def test_real_views_and_offsets_pass_the_storage_check(tmp_path: Path) -> None:
    """Views torch.save writes (offsets, transposes, slices sharing a storage) are accepted."""
    torch = pytest.importorskip("torch")
    base = torch.arange(24.0)
    state = {"t": base.view(4, 6).t(), "tail": base[20:], "step": base[1::3]}
    torch.save(state, tmp_path / "views.pt")
    listing = torch_file.read(tmp_path / "views.pt")
    assert {t.name: t.shape for t in listing.tensors} == {
        k: tuple(v.shape) for k, v in state.items()}


def test_damaged_zip_directory_is_one_line(cli: CLI, tmp_path: Path) -> None:
    """A zip whose end record is intact but whose central directory is not: exit 2."""
    torch = pytest.importorskip("torch")
    buffer = io.BytesIO()
    torch.save({"w": torch.zeros(2)}, buffer)
    data = buffer.getvalue()
    at = data.index(b"PK\x01\x02")
    path = tmp_path / "model.keras.pt"
    path.write_bytes(data[:at] + b"XX" + data[at + 2:])
    assert "damaged zip archive" in _one_error_line(cli, "inspect", str(path))


def test_newline_in_a_file_name_stays_one_line(cli: CLI, tmp_path: Path) -> None:
    """An error naming a file whose name holds a newline is still one line."""
    path = tmp_path / "bad\nname.pt"
    path.write_bytes(b"not a model")
    assert "bad\\nname.pt" in _one_error_line(cli, "inspect", str(path))


def test_empty_tensor_listed_after_one_at_the_same_offset(cli: CLI, tmp_path: Path) -> None:
    """safetensors orders by (begin, end): an empty tensor at 0 after one at [0, 8] is valid."""
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    header = json.dumps({"b": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                         "a": {"dtype": "F32", "shape": [0], "data_offsets": [0, 0]}}).encode()
    path = tmp_path / "model.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header + b"\0" * 8)
    loaded = safetensors_numpy.load_file(str(path))
    result = cli("inspect", "--json", str(path))
    assert result.code == 0, result
    assert {t["name"]: tuple(t["shape"]) for t in json.loads(result.out)["tensors"]} == {
        k: v.shape for k, v in loaded.items()}


def test_one_layer_is_not_plural(cli: CLI, tmp_path: Path) -> None:
    """A real load error between 1 and 3 layers says `has 1 layer`, not `1 layers`."""
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as error:
        torch.nn.LSTM(4, 8, num_layers=3).load_state_dict(torch.nn.LSTM(4, 8).state_dict())
    path = tmp_path / "error.txt"
    path.write_text(f"RuntimeError: {error.value}\n")
    result = cli("inspect", "--error", str(path))
    assert result.code == 0, result
    assert "has 1 layer;" in result.out and "has 3 layers" in result.out
    assert "1 layers" not in result.out


def test_four_bit_safetensors_take_half_a_byte_each(cli: CLI, tmp_path: Path) -> None:
    """safetensors F4 holds 4 bits per element: 6 values in 3 bytes, and the bytes say so."""
    header = json.dumps({"w": {"dtype": "F4", "shape": [2, 3], "data_offsets": [0, 3]}})
    path = tmp_path / "model.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header.encode() + b"\0" * 3)
    result = cli("inspect", "--json", str(path))
    assert result.code == 0, result
    data = json.loads(result.out)
    assert (data["total"], data["bytes"]) == (6, 3)


@pytest.mark.parametrize(("dtype", "count", "size"), [
    ("int4", 5, 3), ("uint4", 4, 2), ("float4_e2m1fn", 3, 2), ("int2", 5, 2), ("uint2", 8, 2),
])
def test_sub_byte_onnx_dtypes_have_sizes(dtype: str, count: int, size: int) -> None:
    """The packed ONNX types the ONNX reader names (INT4, FLOAT4E2M1, INT2) have byte sizes."""
    from paramcount.files.inspect import tensor_bytes
    from paramcount.files.listing import NamedTensor

    assert tensor_bytes(NamedTensor("w", (count,), dtype)) == size
