"""``config.json`` values read as the class that loads the file reads them.

A value's type is checked as the reference's strict config class checks it: an int field takes
an int (not a bool, not a float), a bool field a bool; a missing key takes the reference's
default. A wrong value is a :class:`~paramcount.errors.SpecError` naming the option.
"""

from __future__ import annotations

from collections.abc import Mapping

from paramcount.errors import SpecError
from paramcount.families.parts import is_int
from paramcount.record import fields

TYPE_CHECKING = False  # typing is for the type checker only
if TYPE_CHECKING:
    from typing import TypeVar

    C = TypeVar("C")


def integer(data: Mapping[str, object], key: str, default: int) -> int:
    """``data[key]`` as an int (the default when missing), or SpecError."""
    value = data.get(key, default)
    if not is_int(value):
        raise SpecError(f"config.json: {{{key}}} must be an integer", **{key: value})
    assert isinstance(value, int)
    return value


def boolean(data: Mapping[str, object], key: str, default: bool) -> bool:
    """``data[key]`` as a bool (the default when missing), or SpecError."""
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise SpecError(f"config.json: {{{key}}} must be true or false", **{key: value})
    return value


def mapping(data: Mapping[str, object], key: str) -> Mapping[str, object]:
    """``data[key]`` as an object ({} when missing or null), or SpecError."""
    value = data.get(key) or {}
    if not isinstance(value, Mapping):
        raise SpecError(f"config.json: {{{key}}} must be an object", **{key: value})
    return value


def rank_value(data: Mapping[str, object], key: str) -> int | str:
    """A time step rank: an int or "auto" (the default)."""
    value = data.get(key, "auto")
    if value == "auto" or is_int(value):
        assert isinstance(value, int | str)
        return value
    raise SpecError(f"config.json: {{{key}}} must be an integer or 'auto'", **{key: value})


def padded_vocab(data: Mapping[str, object], default: int, multiple: int) -> int:
    """mamba_ssm's vocabulary: ``vocab_size`` rounded up to ``pad_vocab_size_multiple``."""
    vocab = integer(data, "vocab_size", default)
    step = integer(data, "pad_vocab_size_multiple", multiple)
    if step <= 0:
        raise SpecError("config.json: {pad_vocab_size_multiple} must be a positive integer",
                        pad_vocab_size_multiple=step)
    return vocab + (-vocab) % step


def mamba_ssm(data: Mapping[str, object], layer: str) -> Mapping[str, object]:
    """The ``ssm_cfg`` of mamba_ssm's ``config.json`` for a stack of ``layer`` mixers only
    (``Mamba1``, ``Mamba2``), or SpecError naming what makes it another model."""
    ssm = mapping(data, "ssm_cfg")
    kind = ssm.get("layer", "Mamba1")
    if kind != layer:
        family = {"Mamba1": "mamba", "Mamba2": "mamba2"}.get(str(kind), "")
        hint = f" (count it with 'paramcount {family}')" if family else ""
        raise SpecError("config.json: ssm_cfg {layer} is not " + repr(layer) + hint,
                        layer=kind)
    if data.get("d_intermediate", 0) or data.get("attn_layer_idx"):
        raise SpecError("config.json: {attn_layer_idx} and d_intermediate make a hybrid with "
                        "attention or MLP blocks, which this family does not count",
                        attn_layer_idx=data.get("attn_layer_idx"))
    if data.get("rms_norm", True) is not True:
        raise SpecError("config.json: {rms_norm} false (LayerNorm) is not supported: "
                        "transformers' port has RMSNorm only", rms_norm=data.get("rms_norm"))
    return ssm


def read(kind: type[C], data: Mapping[str, object]) -> C:
    """A config record from transformers' ``config.json`` keys: each field from the key of its
    own name, its default where the key is missing."""
    values = {name: data[name] for name in fields(kind) if name in data}
    try:
        return kind(**values)
    except SpecError as error:
        raise SpecError("config.json: " + error.template, **error.values) from None
