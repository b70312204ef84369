"""``config.json`` values read as the class that loads the file reads them.

A value's type is checked as the reference's strict config class checks it: an int field takes
an int (not a bool, not a float), a bool field a bool; a missing key takes the reference's
default. A wrong value is a :class:`~paramcount.errors.SpecError` naming the option.

Which class loads a file is named by the file: its ``model_type`` and ``architectures``
(transformers' classes), or, where it names none, the original repository's own layout
(mamba_ssm's ``d_model`` / ``n_layer`` / ``ssm_cfg``). The :class:`Reading` says which class
read it, the keys of another layout that class ignored, and any key paramcount does not know
that may change the size: named, never dropped.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

from paramcount.errors import SpecError
from paramcount.record import fields, record
from paramcount.usertext import shown_text

TYPE_CHECKING = False  # typing is for the type checker only
if TYPE_CHECKING:
    from typing import Any, TypeVar

    C = TypeVar("C")


def is_int(value: object) -> bool:
    """Whether ``value`` is an int and not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


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


# ---- which class loads a config.json, and what it leaves unread ----------------------------


@record
class Layout:
    """One class that loads a ``config.json``: its name, and the keys it reads."""

    name: str
    """How the answer names it: ``transformers MambaConfig``, ``mamba_ssm MambaConfig``."""
    keys: frozenset[str]
    """Every key it takes: its fields and their aliases (``attribute_map``)."""


@record
class Reading:
    """A ``config.json`` read: the config, who read it, and what the answer must say."""

    config: Any
    loader: str
    """The class that loads the file, as :attr:`Layout.name` spells it."""
    notes: tuple[str, ...] = ()
    """Keys the loader ignored (another layout's, named with the value it read instead) and
    keys paramcount does not know that may change the size."""
    base: bool = False
    """The file names a base model class (``MambaModel``, ``xLSTMModel``): no head."""


MAMBA_SSM = Layout("mamba_ssm MambaConfig", frozenset({
    "d_model", "d_intermediate", "n_layer", "vocab_size", "ssm_cfg", "attn_layer_idx",
    "attn_cfg", "rms_norm", "residual_in_fp32", "fused_add_norm", "pad_vocab_size_multiple",
    "tie_embeddings"}))
"""mamba_ssm's own ``MambaConfig`` (its ``config.json`` beside ``pytorch_model.bin``), for
Mamba and Mamba-2 stacks alike (``ssm_cfg``'s ``layer``)."""

SSM_CFG = {
    "Mamba1": frozenset({"layer", "d_state", "d_conv", "expand", "dt_rank", "dt_min", "dt_max",
                         "dt_init", "dt_scale", "dt_init_floor", "conv_bias", "bias",
                         "use_fast_path"}),
    "Mamba2": frozenset({"layer", "d_state", "d_conv", "conv_init", "expand", "headdim",
                         "d_ssm", "ngroups", "A_init_range", "D_has_hdim", "rmsnorm",
                         "norm_before_gate", "dt_min", "dt_max", "dt_init_floor", "dt_limit",
                         "bias", "conv_bias", "chunk_size", "use_mem_eff_path"}),
}
"""The keyword arguments of mamba_ssm's ``Mamba`` and ``Mamba2`` mixers (``ssm_cfg``)."""


def unread_ssm(ssm: Mapping[str, object], layer: str) -> list[str]:
    """Size-bearing keys of ``ssm_cfg`` that mamba_ssm's ``layer`` mixer does not take."""
    unknown = [f"{key}={_short(value)}" for key, value in ssm.items()
               if key not in SSM_CFG[layer] and size_bearing(key, value)]
    if not unknown:
        return []
    return [f"ssm_cfg keys mamba_ssm's {layer} does not take and paramcount does not know "
            f"(counted without them): {', '.join(unknown)}"]


PRETRAINED = frozenset({
    "architectures", "chunk_size_feed_forward", "dtype", "torch_dtype", "id2label", "label2id",
    "is_encoder_decoder", "output_hidden_states", "output_attentions", "problem_type",
    "return_dict", "transformers_version", "model_type", "_name_or_path", "name_or_path",
    "auto_map", "num_labels", "use_cache", "pad_token_id", "bos_token_id", "eos_token_id",
    "tie_word_embeddings", "_commit_hash", "tokenizer_class", "finetuning_task"})
"""What every transformers config reads (``PreTrainedConfig``'s fields and the keys it takes
apart), none of which shapes a recurrent family's parameters beyond ``tie_word_embeddings``."""

_SIZE_WORDS = re.compile(
    r"size|dim|layer|head|rank|vocab|expand|width|kernel|group|factor|lora|intermediate|ffn"
    r"|mlp|expert|embd|embed|block|ratio|state|conv|bias|tie|norm|proj|^n_|^num_|^d_|_n$")
_HARMLESS = re.compile(
    r"token_id|max_position|context_length|eps|epsilon|dropout|init|range|scale|theta|cap"
    r"|rope|window|chunk|max_length|min_length|num_beams|num_return|fp32|float32|kernel_type"
    r"|_kernel$|^(sequence|step|chunkwise)_kernel|use_cache|fused|num_labels")


def size_bearing(key: str, value: object) -> bool:
    """Whether an unknown key may change the parameters: a number, list or object under a
    name that says size, count, width, bias or tying (not a token id, an epsilon, a rate)."""
    if value is None or isinstance(value, str):
        return False
    return bool(_SIZE_WORDS.search(key.lower())) and not _HARMLESS.search(key.lower())


def unread(data: Mapping[str, object], layout: Layout, others: tuple[Layout, ...] = (),
           said: Mapping[str, object] | None = None) -> list[str]:
    """What the answer must say about the keys ``layout`` does not read: another layout's
    keys it ignored (with the value it read instead, from ``said``: other key → what the
    loader read), and size-bearing keys no layout knows."""
    notes = []
    ignored = []
    for other in others:
        for key in other.keys:
            if key in data and key not in layout.keys and key not in PRETRAINED:
                text = f"{shown_text(key)}={_short(data[key])}"
                if said and key in said:
                    text += f" (it reads {said[key]})"
                ignored.append(text)
    if ignored:
        names = " / ".join(o.name for o in others)
        notes.append(f"{layout.name} ignores {names}'s keys: "
                     + ", ".join(sorted(ignored)))
    known = layout.keys.union(PRETRAINED, *(o.keys for o in others))
    unknown = [f"{shown_text(key)}={_short(value)}" for key, value in data.items()
               if key not in known and size_bearing(key, value)]
    if unknown:
        notes.append(f"config.json keys {layout.name} does not read and paramcount does not "
                     f"know (counted without them): {', '.join(unknown)}")
    return notes


def _short(value: object) -> str:
    """A value as JSON-ish text, cut at 40 characters."""
    return shown_text(value if isinstance(value, int) else repr(value), 40)


def named_by(data: Mapping[str, object], model_types: Collection[str],
             classes: Collection[str]) -> bool:
    """Whether the file names this loader: its ``model_type`` or one of its
    ``architectures``."""
    if data.get("model_type") in model_types:
        return True
    architectures = data.get("architectures")
    return isinstance(architectures, list) and any(a in classes for a in architectures)


def base_class(data: Mapping[str, object], bases: Collection[str]) -> bool:
    """Whether ``architectures`` names only base model classes (no head)."""
    architectures = data.get("architectures")
    return (isinstance(architectures, list) and bool(architectures)
            and all(a in bases for a in architectures))
