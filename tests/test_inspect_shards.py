"""Shards named by an index, and the weights of a model folder, are regular files inside the
folder, each read once, and the header entries read in all are bounded (issue 30, items 5, 6)."""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import pytest

from paramcount.errors import ParamcountError
from paramcount.files.dispatch import MAX_ENTRIES, read_file


def write_shard(path: Path, names: list[str]) -> Path:
    """A safetensors file (made here by its format's definition: a length, a JSON header, the
    bytes) holding one float32 per name."""
    header = {name: {"dtype": "F32", "shape": [1], "data_offsets": [4 * n, 4 * n + 4]}
              for n, name in enumerate(names)}
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + b"\0" * (4 * len(names)))
    return path


def write_index(folder: Path, weight_map: dict[str, str]) -> Path:
    """``model.safetensors.index.json`` with ``weight_map``."""
    path = folder / "model.safetensors.index.json"
    path.write_text(json.dumps({"weight_map": weight_map}))
    return path


def test_a_shard_linked_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    """A shard that is a symbolic link leading out of the model folder is not read."""
    outside = write_shard(tmp_path / "secret.safetensors", ["private.weight"])
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "a.safetensors").symlink_to(outside)
    index = write_index(folder, {"private.weight": "a.safetensors"})
    with pytest.raises(ParamcountError, match="leads out of the model folder"):
        read_file(index)


def test_a_shard_linked_inside_the_folder_is_read(tmp_path: Path) -> None:
    """A link to a file inside the folder is fine; the file is read once for both names."""
    write_shard(tmp_path / "real.safetensors", ["a.weight", "b.weight"])
    (tmp_path / "alias.safetensors").symlink_to("real.safetensors")
    index = write_index(tmp_path, {"a.weight": "real.safetensors",
                                   "b.weight": "alias.safetensors"})
    listing = read_file(index)
    assert sorted(t.name for t in listing.tensors) == ["a.weight", "b.weight"]


def test_a_shard_that_is_a_folder_is_refused(tmp_path: Path) -> None:
    """A shard that is a folder (even a model folder) is not read as one."""
    nested = tmp_path / "nested.safetensors"
    nested.mkdir()
    write_shard(nested / "model.safetensors", ["x.weight"])
    index = write_index(tmp_path, {"x.weight": "nested.safetensors"})
    with pytest.raises(ParamcountError, match="is a folder, not a regular file"):
        read_file(index)


def test_folders_of_links_are_not_read_exponentially(tmp_path: Path) -> None:
    """8 levels of folders whose index names 4 links to the next level: refused at the first
    link (it is a folder), not read 4^8 times."""
    level = tmp_path / "level8"
    level.mkdir()
    write_shard(level / "model.safetensors", ["w"])
    for depth in range(7, -1, -1):
        upper = tmp_path / f"level{depth}"
        upper.mkdir()
        for n in range(4):
            (upper / f"s{n}.safetensors").symlink_to(level)
        write_index(upper, {f"w{n}": f"s{n}.safetensors" for n in range(4)})
        level = upper
    with pytest.raises(ParamcountError, match="not a regular file"):
        read_file(level / "model.safetensors.index.json")


def test_the_same_shard_under_many_names_is_read_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hard links of one shard named by the index are read once."""
    import paramcount.files.safetensors_file as safetensors_file

    write_shard(tmp_path / "s0.safetensors", [f"t{n}" for n in range(10)])
    for n in range(1, 10):
        os.link(tmp_path / "s0.safetensors", tmp_path / f"s{n}.safetensors")
    index = write_index(tmp_path, {f"t{n}": f"s{n}.safetensors" for n in range(10)})
    reads: list[Path] = []
    real = safetensors_file.read
    monkeypatch.setattr(safetensors_file, "read", lambda p, *a: reads.append(p) or real(p, *a))
    assert len(read_file(index).tensors) == 10
    assert len(reads) == 1


def test_a_folder_weight_linked_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    """A folder's ``*.safetensors`` that links out of it is refused too."""
    outside = write_shard(tmp_path / "secret.safetensors", ["private.weight"])
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "model.safetensors").symlink_to(outside)
    with pytest.raises(ParamcountError, match="leads out of the model folder"):
        read_file(folder)


def test_the_header_entries_read_in_all_are_bounded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Shards whose headers hold more entries in all than the stated limit are refused once
    the limit is passed, naming it (here with the limit lowered to 50)."""
    import paramcount.files.dispatch as dispatch

    monkeypatch.setattr(dispatch, "MAX_ENTRIES", 50)
    for n in range(10):
        write_shard(tmp_path / f"s{n}.safetensors", [f"t{n}"] + [f"x{n}.{k}" for k in range(9)])
    index = write_index(tmp_path, {f"t{n}": f"s{n}.safetensors" for n in range(10)})
    with pytest.raises(ParamcountError, match="over 50 header entries in all"):
        read_file(index)
    assert MAX_ENTRIES >= 1_000_000
