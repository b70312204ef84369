"""Hostile sizes and names in model files: one error line (exit 2) or an escaped name, never a
traceback, a number formatted whole, or a table a file can break."""

from __future__ import annotations

import json
import pickle
import struct
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CLI
from tests.test_inspect_review import _checkpoint, _int, _tensor, _text

HUGE = 10**5000
"""A number of 5,001 digits: more than Python turns into text (4,300 digits) by default."""
LARGE = 10**4000
"""A number of 4,001 digits: Python reads it, but it is no size."""


def _long(value: int) -> bytes:
    """A LONG4 opcode pushing an int of any size."""
    data = value.to_bytes((value.bit_length() + 8) // 8, "little", signed=True)
    return pickle.LONG4 + struct.pack("<i", len(data)) + data


def safetensors(path: Path, header_text: str, data: bytes = b"") -> Path:
    """A safetensors file with this header text (JSON written by hand where json.dumps
    cannot: numbers of thousands of digits) and data."""
    raw = header_text.encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + data)
    return path


def _pickle_dims(tmp_path: Path, dims: tuple[int, ...]) -> Path:
    """A torch.save-style checkpoint {'w': tensor} whose tensor's size is ``dims``."""
    tensor = _tensor((7,) * len(dims), (1,) * len(dims), 0, 4)
    small = b"(" + b"".join(_int(7) for _ in dims) + pickle.TUPLE
    assert tensor.count(small) == 1
    tensor = tensor.replace(small, b"(" + b"".join(_long(d) for d in dims) + pickle.TUPLE)
    return _checkpoint(tmp_path, pickle.EMPTY_DICT + _text("w") + tensor + pickle.SETITEM, 16)


def _onnx_dims(tmp_path: Path) -> Path:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    tensor = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2**62] * 300)
    graph = helper.make_graph([], "g", [], [], [tensor])
    path = tmp_path / "huge.onnx"
    onnx.save(helper.make_model(graph), str(path))
    return path


def _index(tmp_path: Path, total: str, shard: str = "model.safetensors") -> Path:
    safetensors(tmp_path / "model.safetensors", json.dumps(
        {"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}), b"\0" * 4)
    path = tmp_path / "model.safetensors.index.json"
    path.write_text('{"metadata": {"total_size": ' + total + '}, "weight_map": {"w": '
                    + json.dumps(shard) + "}}")
    return path


HOSTILE: dict[str, tuple[Callable[[Path], Path], str]] = {
    "pickle-dim-5001-digits": (lambda p: _pickle_dims(p, (3, HUGE)), "2^63"),
    "pickle-dim-4001-digits": (lambda p: _pickle_dims(p, (3, LARGE)), "2^63"),
    "pickle-dims-product": (lambda p: _pickle_dims(p, (2**62, 2**62)), "2^63"),
    "onnx-dims-product": (_onnx_dims, "2^63"),
    "safetensors-dim-5001-digits": (lambda p: safetensors(
        p / "m.safetensors", '{"w": {"dtype": "F32", "shape": [1' + "0" * 5000
        + '], "data_offsets": [0, 4]}}', b"\0" * 4), "not valid JSON"),
    "safetensors-dim-4001-digits": (lambda p: safetensors(
        p / "m.safetensors", '{"w": {"dtype": "F32", "shape": [' + "9" * 4001
        + '], "data_offsets": [0, 4]}}', b"\0" * 4), "2^63"),
    "safetensors-offset-4001-digits": (lambda p: safetensors(
        p / "m.safetensors", '{"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, '
        + "9" * 4001 + "]}}", b"\0" * 4), "2^63"),
    "index-total-size-5001-digits": (lambda p: _index(p, "1" + "0" * 5000), "not valid JSON"),
    "index-total-size-4001-digits": (lambda p: _index(p, "9" * 4001), "total_size"),
    "index-shard-with-nul": (lambda p: _index(p, "4", "model\0.safetensors"), "NUL byte"),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_sizes_exit_2_in_one_short_line(cli: CLI, tmp_path: Path, case: str) -> None:
    """Each file, made here, is refused with one error line of at most 200 characters past
    its path, naming the rule; nothing is printed on stdout."""
    make, words = HOSTILE[case]
    path = make(tmp_path)
    result = cli("inspect", str(path))
    assert (result.code, result.out) == (2, ""), result
    (line,) = result.err.splitlines()
    assert line.startswith("Error: ") and "Traceback" not in result.err
    assert words in line, line
    assert len(line.replace(str(path), "")) <= 200, line


@pytest.mark.parametrize("name", ["w\u202eevil", "a\rb", "two\nlines", "tab\tbed\x1b[31m"],
                         ids=["rtl-override", "carriage-return", "line-feed", "escape-code"])
def test_names_from_files_are_escaped(cli: CLI, tmp_path: Path, name: str) -> None:
    """A safetensors name holding a right-to-left override, a CR, a LF or an escape code is
    shown escaped: the table keeps its lines, and the name reads as stored."""
    header = json.dumps({name: {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                         "ok": {"dtype": "F32", "shape": [3], "data_offsets": [8, 20]}})
    path = safetensors(tmp_path / "m.safetensors", header, b"\0" * 20)
    result = cli("inspect", str(path))
    assert result.code == 0
    assert all(c.isprintable() for line in result.out.splitlines() for c in line)
    assert repr(name)[1:-1] in result.out
    plain = cli("inspect", str(path)).out.splitlines()
    rows = [line for line in plain if "(2,)" in line or "(3,)" in line]
    assert len(rows) == 2
    assert json.loads(cli("inspect", str(path), "--json").out)["tensors"][0]["name"] == name


def test_a_deep_onnx_nesting_error_is_short(cli: CLI, tmp_path: Path) -> None:
    """Subgraphs nested past the limit, each with a long name: the error names the first and
    the last level, within 200 characters."""
    from tests.test_source_onnx import _field, _varint

    graph = b""
    for level in range(40):
        attribute = _field(1, b"then_branch") + _varint(20 << 3) + _varint(5) + _field(6, graph)
        graph = _field(1, _field(3, f"a_rather_long_node_name_{level}".encode())
                       + _field(4, b"If") + _field(5, attribute))
    path = tmp_path / "deep.onnx"
    path.write_bytes(_varint(1 << 3) + _varint(10) + _field(7, graph))
    result = cli("inspect", str(path))
    (line,) = result.err.splitlines()
    assert result.code == 2 and "nest deeper than" in line
    assert len(line.replace(str(path), "")) <= 200, line


def sparse_legacy(path: Path, size: int) -> Path:
    """A legacy (pre-1.6) torch.save stream whose model pickle is one BINBYTES8 declaring
    ``size`` bytes, the file a hole of that size (nothing on disk)."""
    from paramcount.files.torch_file import LEGACY_PROTOCOL, MAGIC_NUMBER

    head = b"".join(pickle.dumps(v, protocol=2) for v in (
        MAGIC_NUMBER, LEGACY_PROTOCOL, {"protocol_version": LEGACY_PROTOCOL}))
    with path.open("wb") as stream:
        stream.write(head + b"\x80\x04" + pickle.BINBYTES8 + struct.pack("<Q", size))
        stream.truncate(len(head) + 11 + size)
    return path


def test_a_sparse_legacy_pickle_is_capped_like_a_zip_one(cli: CLI, tmp_path: Path) -> None:
    """A 2 GB BINBYTES8 in a legacy checkpoint is refused before it is read: the legacy
    pickles get the zip data.pkl's limit."""
    path = sparse_legacy(tmp_path / "legacy.pt", 2 * 2**30)
    result = cli("inspect", str(path))
    assert result.code == 2 and result.out == ""
    assert "268,435,456" in result.err and result.err.count("\n") == 1


def shared_nones(path: Path, keys: int, length: int) -> Path:
    """A torch.save-style checkpoint whose data.pkl has ``keys`` top-level keys sharing one
    list of ``length`` Nones (pickle memoises the list: written once)."""
    import zipfile

    shared = [None] * length
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("archive/data.pkl",
                         pickle.dumps({f"k{i}": shared for i in range(keys)}, protocol=2))
    return path


def test_a_shared_list_is_walked_once(cli: CLI, tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """100 keys sharing a list of 20,000 Nones: the file's walks enter the list once (every
    entry the walks look at is counted), not once per key and again to describe it."""
    from paramcount.files import torch_file

    entries = 0
    real = torch_file._children

    def counted(item: object, where: str) -> object:
        nonlocal entries
        for pair in real(item, where):  # type: ignore[arg-type]
            entries += 1
            yield pair

    monkeypatch.setattr(torch_file, "_children", counted)
    path = shared_nones(tmp_path / "shared.pt", 100, 20_000)
    result = cli("inspect", str(path))
    assert result.code == 0 and "0 parameters" in result.out
    assert entries < 2 * 20_000


def test_check_does_not_pass_a_file_without_tensors(cli: CLI, tmp_path: Path) -> None:
    """A config's ``file =`` naming a checkpoint with no model tensors is a located error
    (exit 2), never a pass with 0 parameters."""
    shared_nones(tmp_path / "shared.pt", 3, 10)
    config = tmp_path / "models.toml"
    config.write_text('[models.empty]\nfile = "shared.pt"\nmax_params = 1_000\n')
    result = cli("check", str(config))
    assert (result.code, result.out) == (2, "")
    assert "models.empty.file: shared.pt holds no model tensors" in result.err


def if_tree(depth: int, name_length: int) -> bytes:
    """A ModelProto, written byte by byte, whose If nodes branch into a full binary tree
    ``depth`` levels deep (2^depth − 1 subgraphs, within the nesting limit), each subgraph
    holding a float Constant and each node a name ``name_length`` characters long."""
    from tests.test_source_onnx import _field, _varint

    def constant(output: bytes) -> bytes:
        tensor = (_varint(1 << 3) + _varint(2) + _varint(1 << 3) + _varint(2) + _varint(2 << 3)
                  + _varint(1) + _field(8, output + b"_v") + _field(9, b"\0" * 16))
        attribute = _field(1, b"value") + _varint(20 << 3) + _varint(4) + _field(5, tensor)
        return _field(1, _field(2, output) + _field(4, b"Constant") + _field(5, attribute))

    def graph(level: int, tag: bytes) -> bytes:
        nodes = constant(b"c" + tag)
        if level:
            branches = b"".join(
                _field(5, _field(1, which) + _varint(20 << 3) + _varint(5)
                       + _field(6, graph(level - 1, tag + side)))
                for side, which in ((b"0", b"then_branch"), (b"1", b"else_branch")))
            nodes += _field(1, _field(1, b"cond") + _field(2, b"o" + tag)
                            + _field(3, b"n" * name_length + tag) + _field(4, b"If") + branches)
        return nodes

    return _varint(1 << 3) + _varint(8) + _field(7, graph(depth, b""))


def test_a_tree_of_if_subgraphs_is_summed_up_in_one_short_note(tmp_path: Path) -> None:
    """511 subgraphs with 2,000-character node names: every Constant is counted, and where
    they sit is one note of a few hundred characters, not one note per subgraph each as long
    as its path."""
    from paramcount.files import onnx_file

    path = tmp_path / "tree.onnx"
    path.write_bytes(if_tree(8, 2000))
    listing = onnx_file.read(path)
    assert len(listing.tensors) == 511 and listing.total == 511 * 4
    (where,) = [n for n in listing.notes if "subgraphs" in n]
    assert "510 tensors (2,040 values) inside 510 subgraphs" in where
    assert sum(len(n) for n in listing.notes) < 600


def test_a_name_in_an_error_line_is_escaped(cli: CLI, tmp_path: Path) -> None:
    """A pickle naming a global with a right-to-left override and an escape code: the
    refusal is one line in which they are escaped, never written raw to the terminal."""
    from tests.test_inspect_review import _global

    body = _global("evil\u202emod", "na\x1b[2Jme") + pickle.EMPTY_TUPLE + pickle.REDUCE
    result = cli("inspect", str(_checkpoint(tmp_path, body)))
    assert result.code == 2 and result.out == ""
    (line,) = result.err.splitlines()
    assert "evil\\u202emod.na\\x1b[2Jme" in line
    assert all(c.isprintable() for c in line)


def test_hdf5_dataset_past_2_63_elements(cli: CLI, tmp_path: Path) -> None:
    """A Keras .h5 whose weight dataset (chunked, never written) is 2^40 × 2^40: refused in
    one line naming the file, as the other readers refuse such sizes."""
    h5py = pytest.importorskip("h5py")
    path = tmp_path / "huge.h5"
    with h5py.File(path, "w") as h5:
        weights = h5.create_group("model_weights")
        weights.attrs["layer_names"] = [b"dense"]
        layer = weights.create_group("dense")
        layer.attrs["weight_names"] = [b"dense/kernel:0"]
        layer.create_dataset("dense/kernel:0", shape=(2**40, 2**40), dtype="f4",
                             chunks=(1, 1))
    result = cli("inspect", str(path))
    assert (result.code, result.out) == (2, "")
    (line,) = result.err.splitlines()
    assert line.startswith(f"Error: {path}: dataset") and "2^63" in line
