"""A Hugging Face model folder: ``config.json`` beside ``model.safetensors``, or beside sharded
``*.safetensors`` with their ``model.safetensors.index.json`` (headers only, as any safetensors
file is read), or ``config.json`` alone.

The listing holds the weights' tensors and the parsed ``config.json`` (``Listing.config``);
a folder without weights has no tensors, and :mod:`paramcount.files.inspect` counts it from the
config.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from paramcount.errors import ParamcountError
from paramcount.families.config_json import read_config
from paramcount.files.limits import inside
from paramcount.files.listing import Listing, NamedTensor

CONFIG = "config.json"
INDEX = "model.safetensors.index.json"
SINGLE = "model.safetensors"


def read(path: Path, read_file: Callable[[Path], Listing]) -> Listing:
    """The folder's weights and config, or a one-line error saying what it lacks; each weight
    file is read by ``read_file`` (:func:`paramcount.files.dispatch.read_file`, the door this
    folder came through)."""
    label = str(path)
    config = _config(path / CONFIG)
    weights = [path / INDEX] if (path / INDEX).is_file() else (
        [path / SINGLE] if (path / SINGLE).is_file()
        else sorted(p for p in path.glob("*.safetensors") if p.is_file()))
    if not weights:
        if config is None:
            raise ParamcountError(f"{label}: a folder with neither {CONFIG} nor "
                                  "*.safetensors weights; name a model file in it")
        return Listing(label, "hf-config", (), (f"no weights in the folder: counted from "
                                                f"{CONFIG} alone",), config=config)
    tensors: list[NamedTensor] = []
    notes = []
    formats = []
    for weight in weights:
        inside(path, weight, f"{label}: {weight.name}")
        listing = read_file(weight)
        tensors += listing.tensors
        formats.append(listing.format)
        notes += [f"{weight.name}: {note}" for note in listing.notes]
    if len(weights) > 1:
        notes.insert(0, f"{len(weights)} safetensors files without {INDEX}: all counted")
    if config is None:
        notes.append(f"no {CONFIG}: the tensors alone are recognised")
    kind = "hf-folder-sharded" if any(f.endswith("-sharded") for f in formats) or len(
        weights) > 1 else "hf-folder"
    return Listing(label, kind, tuple(tensors), tuple(notes), config=config)


def _config(path: Path) -> dict[str, object] | None:
    """The folder's ``config.json`` object, None when there is none."""
    return read_config(path) if path.is_file() else None
