"""Bad and hostile files: one ``Error:`` line, exit 2, nothing executed, nothing written."""

from __future__ import annotations

import contextlib
import io
import json
import os
import pickle
import pickletools
import random
import struct
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from paramcount.errors import ParamcountError
from paramcount.files import torch_file
from tests.conftest import CLI
from tests.docfiles.inspect import Exploit, SystemExploit


def assert_refused(cli: CLI, path: Path, *words: str) -> str:
    """``inspect path`` exits 2 with one error line containing ``words``, printing nothing and
    leaving the file's folder as it was."""
    folder = path.parent
    before = sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir())
    result = cli("inspect", str(path))
    after = sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir())
    assert before == after
    assert result.code == 2, result
    assert result.out == ""
    lines = result.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {path}"), result.err
    assert "Traceback" not in result.err
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def saved(tmp_path: Path, name: str, data: bytes) -> Path:
    """``data`` written to ``tmp_path/name``."""
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("protocol", [0, 2, 4, 5])
@pytest.mark.parametrize(
    ("exploit", "global_name"),
    [(Exploit, "builtins.exec"), (SystemExploit, "system")],
    ids=["exec", "os.system"],
)
def test_code_running_pickle_is_refused_and_nothing_runs(
    cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    exploit: Callable[[str], object], global_name: str, protocol: int,
) -> None:
    """A pickle whose unpickling calls exec or os.system is refused naming the global; the
    file it would create does not exist afterwards."""
    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "pwned"
    code = (f"open({str(marker)!r}, 'w').close()" if exploit is Exploit
            else f"touch {marker}")
    path = saved(tmp_path, "model.pt", pickle.dumps({"w": exploit(code)}, protocol=protocol))
    if protocol < 2:  # torch.save never writes these: refused before any unpickling
        assert_refused(cli, path, "not a model file paramcount reads")
    else:
        line = assert_refused(cli, path, "refusing to unpickle", global_name)
        assert "never runs code" in line
    assert not marker.exists()


def test_code_running_object_inside_a_real_torch_zip_is_refused(
    cli: CLI, tmp_path: Path
) -> None:
    """torch.save of a state dict carrying an exploit object: refused, nothing created."""
    torch = pytest.importorskip("torch")
    marker = tmp_path / "pwned"
    state = {"weight": torch.zeros(2), "payload": Exploit(f"open({str(marker)!r}, 'w')")}
    torch.save(state, tmp_path / "evil.pt")
    assert_refused(cli, tmp_path / "evil.pt", "builtins.exec")
    assert not marker.exists()


def test_whole_module_pickle_is_refused_with_the_fix(cli: CLI, tmp_path: Path) -> None:
    """torch.save(model) is refused naming the class, with how to re-save a state dict."""
    torch = pytest.importorskip("torch")
    torch.save(torch.nn.LSTM(3, 4), tmp_path / "whole.pt")
    assert_refused(cli, tmp_path / "whole.pt", "torch.nn.modules.rnn.LSTM", "state_dict()")


def raw_pickle(*ops: bytes) -> bytes:
    """A hand-written protocol-2 pickle of the given opcodes."""
    return b"\x80\x02" + b"".join(ops) + b"."


GLOBALS = [
    ("builtins", "eval"), ("builtins", "getattr"), ("builtins", "__import__"),
    ("subprocess", "Popen"), ("os", "system"), ("copyreg", "_reconstructor"),
    ("torch", "load"), ("torch.serialization", "load"), ("numpy", "load"),
    ("torch._utils", "_rebuild_device_tensor_from_numpy"),
]


@pytest.mark.parametrize(("module", "name"), GLOBALS, ids=[".".join(g) for g in GLOBALS])
def test_every_global_off_the_allow_list_is_refused(
    tmp_path: Path, module: str, name: str
) -> None:
    """A GLOBAL naming anything off the allow-list fails before it is resolved."""
    data = raw_pickle(f"c{module}\n{name}\n".encode(), b"(X\x02\x00\x00\x00idtR")
    with pytest.raises(torch_file.Refused, match=rf"refusing to unpickle {module}\.{name}"):
        torch_file.RestrictedUnpickler(io.BytesIO(data), "x.pt").load()


def test_allow_list_names_no_code_runner() -> None:
    """Everything the allow-list resolves is a stand-in defined here or a harmless builtin."""
    harmless = {set, frozenset, complex, slice, bytearray, tuple}
    import collections

    for (module, name), target in torch_file.ALLOWED.items():
        assert (target in harmless or target is collections.OrderedDict
                or getattr(target, "__module__", "") == torch_file.__name__
                or isinstance(target, (torch_file.StorageType, torch_file.TorchDtype))), (
            module, name)


def test_legacy_pickle_without_torch_magic_is_refused(cli: CLI, tmp_path: Path) -> None:
    """A plain pickle that torch.save did not write is not read as a checkpoint."""
    path = saved(tmp_path, "plain.pt", pickle.dumps({"a": 1}, protocol=2))
    assert_refused(cli, path, "torch.save did not write")


def header_file(tmp_path: Path, header: object, data: bytes = b"", length: int | None = None,
                raw: bytes | None = None) -> Path:
    """A safetensors file with the given header (JSON-encoded unless ``raw``)."""
    body = raw if raw is not None else json.dumps(header).encode()
    size = len(body) if length is None else length
    return saved(tmp_path, "model.safetensors", struct.pack("<Q", size) + body + data)


ENTRY = {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}
SAFETENSORS_CASES = [
    ("length-past-end", dict(header={"w": ENTRY}, data=b"\0" * 24, length=10**9),
     "larger than the file"),
    ("not-json", dict(header=None, raw=b"{not json at all}"), "not valid JSON"),
    ("not-utf8", dict(header=None, raw=b"{\xff\xfe}"), "not valid JSON"),
    ("a-list", dict(header=[1, 2], data=b""), "must be a JSON object"),
    ("deep-json", dict(header=None, raw=b"[" * 100_000 + b"]" * 100_000), "not valid JSON"),
    ("bad-dtype", dict(header={"w": {**ENTRY, "dtype": "F33"}}, data=b"\0" * 24),
     "dtype 'F33'"),
    ("negative-shape", dict(header={"w": {**ENTRY, "shape": [2, -3]}}, data=b"\0" * 24),
     "not a list of whole numbers"),
    ("float-shape", dict(header={"w": {**ENTRY, "shape": [2.0, 3]}}, data=b"\0" * 24),
     "not a list of whole numbers"),
    ("wrong-size", dict(header={"w": {**ENTRY, "data_offsets": [0, 20]}}, data=b"\0" * 24),
     "needs 24"),
    ("past-data", dict(header={"w": {**ENTRY, "data_offsets": [8, 32]}}, data=b"\0" * 24),
     "past the file's data"),
    ("reversed-offsets", dict(header={"w": {**ENTRY, "data_offsets": [24, 0]}}),
     "begin <= end"),
    ("overlapping", dict(header={"a": ENTRY, "b": ENTRY}, data=b"\0" * 48),
     "overlapping or gapped"),
    ("metadata-not-object", dict(header={"__metadata__": [1], "w": ENTRY}, data=b"\0" * 24),
     "__metadata__ must be an object"),
]


@pytest.mark.parametrize(("case", "kwargs", "words"), SAFETENSORS_CASES,
                         ids=[c[0] for c in SAFETENSORS_CASES])
def test_bad_safetensors_headers_are_refused(
    cli: CLI, tmp_path: Path, case: str, kwargs: dict[str, object], words: str
) -> None:
    """Every header field is validated before use; each fault is named."""
    path = header_file(tmp_path, **kwargs)  # type: ignore[arg-type]
    assert_refused(cli, path, words)


def test_short_safetensors_is_refused(cli: CLI, tmp_path: Path) -> None:
    """A .safetensors file shorter than its 8-byte length prefix is named as such."""
    assert_refused(cli, saved(tmp_path, "tiny.safetensors", b"\x01\x02"), "too short")


def test_empty_random_directory_and_missing_paths(cli: CLI, tmp_path: Path) -> None:
    """Empty, random, missing, a directory, a FIFO: each one line naming the problem."""
    assert_refused(cli, saved(tmp_path, "empty.pt", b""), "an empty file")
    noise = random.Random(0).randbytes(4096).replace(b"\x80", b"\0").replace(b"PK", b"pk")
    assert_refused(cli, saved(tmp_path, "noise.bin", noise), "not a model file paramcount reads")
    assert_refused(cli, saved(tmp_path, "notes.txt", b"hello, world\n"), "it reads safetensors")
    assert_refused(cli, tmp_path / "absent.pt", "no such file")
    (tmp_path / "folder").mkdir()
    assert_refused(cli, tmp_path / "folder", "a folder")
    os.mkfifo(tmp_path / "pipe")
    assert_refused(cli, tmp_path / "pipe", "not a regular file")


def test_random_pickle_bytes_are_a_damaged_pickle(cli: CLI, tmp_path: Path) -> None:
    """Bytes that start like a pickle but are garbage give one line, not a traceback."""
    garbage = b"\x80\x02" + random.Random(1).randbytes(200)
    assert_refused(cli, saved(tmp_path, "garbage.pt", garbage), "damaged or truncated pickle")


def test_unreadable_file(cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file that cannot be opened is named with the reason (permission faked for root)."""
    path = saved(tmp_path, "locked.pt", b"\x80\x02}.")
    path.chmod(0)
    if os.geteuid() == 0:  # root reads any file: make opening it fail as it would for a user
        real_open = Path.open

        def denied(self: Path, *args: Any, **kwargs: Any) -> Any:
            if self == path:
                raise PermissionError(13, "Permission denied", str(self))
            return real_open(self, *args, **kwargs)

        monkeypatch.setattr(Path, "open", denied)
    assert_refused(cli, path, "Permission denied")


def torch_zip(path: Path, pickled: bytes, compress: int = zipfile.ZIP_STORED) -> Path:
    """A zip laid out like torch.save's with the given data.pkl."""
    with zipfile.ZipFile(path, "w", compression=compress) as archive:
        archive.writestr(f"{path.stem}/data.pkl", pickled)
        archive.writestr(f"{path.stem}/byteorder", "little")
    return path


def test_zip_bomb_is_refused_before_inflating(
    cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A data.pkl declaring more than the limit is refused from the zip directory alone."""
    monkeypatch.setattr(torch_file, "MAX_PICKLE", 64 * 1024)
    path = torch_zip(tmp_path / "bomb.pt", b"\0" * 10**6, zipfile.ZIP_DEFLATED)
    assert path.stat().st_size < 10_000
    assert_refused(cli, path, "declares 1,000,000 bytes", "limit")


def test_zip_bomb_lying_about_its_size_is_cut_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A data.pkl that inflates past the limit whatever it declares is read no further."""
    monkeypatch.setattr(torch_file, "MAX_PICKLE", 64 * 1024)
    path = torch_zip(tmp_path / "liar.pt", b"\0" * 10**6, zipfile.ZIP_DEFLATED)
    real_getinfo = zipfile.ZipFile.getinfo

    def lying(self: zipfile.ZipFile, name: str) -> zipfile.ZipInfo:
        info = real_getinfo(self, name)
        info.file_size = 100
        return info

    monkeypatch.setattr(zipfile.ZipFile, "getinfo", lying)
    with pytest.raises(ParamcountError, match=r"inflates past|damaged"):
        torch_file.read(path)


def test_truncated_zip_and_foreign_zips(cli: CLI, tmp_path: Path) -> None:
    """Half a zip, a zip of something else and a TorchScript archive are each named."""
    good = torch_zip(tmp_path / "good.pt", pickle.dumps({}, protocol=2))
    half = saved(tmp_path, "half.pt", good.read_bytes()[: good.stat().st_size // 2])
    assert_refused(cli, half, "truncated or damaged zip")
    with zipfile.ZipFile(tmp_path / "other.pt", "w") as archive:
        archive.writestr("readme.txt", "hi")
    assert_refused(cli, tmp_path / "other.pt", "not a torch.save checkpoint")
    with zipfile.ZipFile(tmp_path / "script.pt", "w") as archive:
        archive.writestr("script/data.pkl", b"")
        archive.writestr("script/constants.pkl", b"")
    assert_refused(cli, tmp_path / "script.pt", "TorchScript")


@pytest.mark.parametrize(
    ("index", "words"),
    [({"weight_map": {"w": "../secret.safetensors"}}, "not a file name beside the index"),
     ({"weight_map": {"w": "/etc/passwd"}}, "not a file name beside the index"),
     ({"metadata": {}}, "weight_map"),
     ({"weight_map": {"w": 3}}, "weight_map"),
     ({"weight_map": {"w": "absent.safetensors"}}, "no such file"),
     ({"weight_map": {"w": "model.safetensors.index.json"}}, "is itself an index")],
    ids=["parent", "absolute", "no-map", "bad-map", "missing-shard", "itself"],
)
def test_bad_sharded_index(cli: CLI, tmp_path: Path, index: object, words: str) -> None:
    """An index pointing outside its folder, or malformed, is refused in one line."""
    path = saved(tmp_path, "model.safetensors.index.json", json.dumps(index).encode())
    result = cli("inspect", str(path))
    assert result.code == 2 and result.out == "" and len(result.err.splitlines()) == 1
    assert words in result.err


def test_index_naming_a_tensor_its_shard_lacks(cli: CLI, tmp_path: Path) -> None:
    """The index and its shard must agree on which tensors the shard holds."""
    header_file(tmp_path, {"w": ENTRY}, data=b"\0" * 24)
    index = {"weight_map": {"w": "model.safetensors", "v": "model.safetensors"}}
    path = saved(tmp_path, "x.safetensors.index.json", json.dumps(index).encode())
    assert_refused(cli, path, "'v' in model.safetensors, which does not hold it")


def test_deeply_nested_pickle_is_handled(tmp_path: Path) -> None:
    """A pickle nesting 100,000 lists is read without a RecursionError escaping."""
    data = b"\x80\x02" + b"]" * 100_000 + b"a" * 99_999 + b"."
    pickletools.genops(data)  # well-formed
    nested = saved(tmp_path, "deep.pt", data)
    with pytest.raises(ParamcountError):
        torch_file.read(nested)


@pytest.mark.parametrize("name", ["legacy.pt", "encoder.pt", "model.safetensors"])
def test_mutated_real_files_fail_cleanly(tmp_path: Path, name: str) -> None:
    """Real files with random bytes flipped or cut short are read or refused with a
    ParamcountError, never another exception."""
    pytest.importorskip("torch")
    pytest.importorskip("safetensors")
    from paramcount.files.dispatch import read_file
    from tests.docfiles import inspect as makers

    makers.FILES[name][1](tmp_path)
    original = (tmp_path / name).read_bytes()
    if name == "encoder.pt":  # mutate the pickle inside the zip, not the tensor data
        with zipfile.ZipFile(tmp_path / name) as archive:
            pickled = archive.read("encoder/data.pkl")
    rng = random.Random(name)
    for attempt in range(150):
        data = bytearray(pickled if name == "encoder.pt" else original)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(min(len(data), 2048))] = rng.randrange(256)
        if attempt % 5 == 0:
            data = data[: rng.randrange(1, len(data))]
        target = tmp_path / f"m{attempt}{Path(name).suffix}"
        if name == "encoder.pt":
            torch_zip(target, bytes(data))
        else:
            target.write_bytes(bytes(data))
        with contextlib.suppress(ParamcountError):
            read_file(target)
