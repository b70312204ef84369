"""The modern recurrent families: name → convention module, each imported when first used.

A family's command line is made from its config record's fields: field ``state_size`` is the
option ``--state-size`` (plus the names people use for it, ``--d-state``), a bool field is a
switch pair ``--use-bias`` / ``--no-use-bias``, and ``--config config.json`` reads Hugging Face's
(or the reference's own) configuration file. No click here: the quick path
(:mod:`paramcount.cli.quick`) and the click commands (:mod:`paramcount.cli.commands.family`)
both read command lines through this table.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from paramcount.errors import ConfigError, SpecError
from paramcount.record import fields, record, replace
from paramcount.usertext import ascii_digits

if TYPE_CHECKING:
    from paramcount.engine.conventions.base import Tensor
    from paramcount.families.family import FamilyConvention, Padding, RecognisedModel
    from paramcount.families.loader import Reading

FAMILIES: dict[str, str] = {
    "jamba": "jamba",
    "bamba": "bamba",
    "zamba2": "zamba2",
    "falcon-h1": "falcon_h1",
    "nemotron-h": "nemotron_h",
    "lfm2": "lfm2",
    "lfm2-moe": "lfm2_moe",
    "qwen3-next": "qwen3_next",
    "qwen3.5": "qwen3_5",
    "qwen3.5-moe": "qwen3_5_moe",
    "granitemoehybrid": "granitemoehybrid",
    "minimax": "minimax",
    "lfm3": "lfm3",
    "olmo-hybrid": "olmo_hybrid",
    "lara-mini": "lara_mini",
    "zamba": "zamba",
    "kimi-linear": "kimi_linear",
    "bailing-hybrid": "bailing_hybrid",
    "zaya": "zaya",
    "qwen4-exp": "qwen4_exp",
    "inkling": "inkling",
    "inkling2": "inkling2",
    "inkling2-loop": "inkling2_loop",
    "glm5-next": "glm5_next",
    "mamba": "mamba",
    "mamba2": "mamba2",
    "rwkv": "rwkv",
    "xlstm": "xlstm",
    "xlstm-lm": "xlstm_lm",
    "rglru": "rglru",
    "minlm": "minlm",
    "mingru": "mingru",
}
"""Command name → module in ``paramcount/families/``. A model recognised first claims its
tensors, so a model comes before the layers it is made of (the hybrids before Mamba-2, minLM
before minGRU)."""

HYBRIDS = ("jamba", "bamba", "zamba2", "falcon-h1", "nemotron-h", "lfm2", "lfm2-moe",
           "qwen3-next", "qwen3.5", "qwen3.5-moe", "granitemoehybrid", "minimax", "lfm3",
           "olmo-hybrid", "lara-mini", "zamba", "kimi-linear", "bailing-hybrid",
           "zaya", "qwen4-exp", "inkling", "inkling2", "inkling2-loop", "glm5-next")
"""The families that mix recurrent mixers with attention, MLPs and experts."""

ALIASES: dict[str, tuple[str, ...]] = {
    "hidden_size": ("--d-model", "--hidden"),
    "num_hidden_layers": ("--layers", "-L"),
    "vocab_size": ("--vocab",),
    "state_size": ("--d-state",),
    "conv_kernel": ("--d-conv",),
    "time_step_rank": ("--dt-rank",),
    "n_groups": ("--ngroups",),
    "head_dim": ("--headdim",),
    "num_heads": ("--heads",),
    "tie_word_embeddings": ("--tie",),
}
"""The names people use for a field beside ``--field-name``, in every family that has it."""

MODEL_TYPES: dict[str, str] = {"mamba": "mamba", "falcon_mamba": "mamba", "mamba2": "mamba2",
                               "rwkv": "rwkv", "rwkv5": "rwkv", "rwkv6": "rwkv",
                               "rwkv7": "rwkv", "rwkv7_fla": "rwkv",
                               "xlstm": "xlstm", "recurrent_gemma": "rglru",
                               "jamba": "jamba", "bamba": "bamba", "zamba2": "zamba2",
                               "falcon_h1": "falcon-h1", "nemotron_h": "nemotron-h",
                               "lfm2": "lfm2", "lfm2_moe": "lfm2-moe",
                               "qwen3_next": "qwen3-next", "qwen3_5_text": "qwen3.5",
                               "qwen3_5_moe_text": "qwen3.5-moe", "qwen3_5": "qwen3.5",
                               "qwen3_5_moe": "qwen3.5-moe",
                               "granitemoehybrid": "granitemoehybrid", "minimax": "minimax",
                               "lfm3": "lfm3", "olmo_hybrid": "olmo-hybrid",
                               "lara_mini": "lara-mini", "zamba": "zamba",
                               "kimi_linear": "kimi-linear",
                               "bailing_hybrid": "bailing-hybrid", "zaya": "zaya",
                               "qwen4_exp_text": "qwen4-exp", "inkling_text": "inkling",
                               "inkling2_text": "inkling2",
                               "inkling2_loop_text": "inkling2-loop",
                               "glm5_next_text": "glm5-next"}
"""A ``config.json``'s ``model_type`` → family (a family's aliases included: Falcon-Mamba is
Mamba; fla's RWKV-7 is RWKV)."""


CLASSES: dict[str, tuple[str, str]] = {
    "MambaConfig": ("mamba", "config"), "MambaForCausalLM": ("mamba", "lm"),
    "MambaModel": ("mamba", "backbone"),
    "FalconMambaConfig": ("mamba", "config"), "FalconMambaForCausalLM": ("mamba", "lm"),
    "FalconMambaModel": ("mamba", "backbone"),
    "Mamba2Config": ("mamba2", "config"), "Mamba2ForCausalLM": ("mamba2", "lm"),
    "Mamba2Model": ("mamba2", "backbone"),
    "RwkvConfig": ("rwkv", "config"), "RwkvForCausalLM": ("rwkv", "lm"),
    "RwkvModel": ("rwkv", "backbone"),
    "xLSTMConfig": ("xlstm", "config"), "xLSTMForCausalLM": ("xlstm", "lm"),
    "xLSTMModel": ("xlstm", "backbone"),
    "RecurrentGemmaConfig": ("rglru", "config"),
    "RecurrentGemmaForCausalLM": ("rglru", "lm"), "RecurrentGemmaModel": ("rglru", "backbone"),
    **{f"{cls}{kind}": (name, built)
       for name, cls in (("jamba", "Jamba"), ("bamba", "Bamba"), ("zamba2", "Zamba2"),
                         ("falcon-h1", "FalconH1"), ("nemotron-h", "NemotronH"),
                         ("lfm2", "Lfm2"), ("lfm2-moe", "Lfm2Moe"),
                         ("qwen3-next", "Qwen3Next"), ("granitemoehybrid", "GraniteMoeHybrid"),
                         ("minimax", "MiniMax"), ("lfm3", "Lfm3"),
                         ("olmo-hybrid", "OlmoHybrid"), ("lara-mini", "LaraMini"),
                         ("zamba", "Zamba"), ("kimi-linear", "KimiLinear"),
                         ("bailing-hybrid", "BailingHybrid"), ("zaya", "Zaya"))
       for kind, built in (("Config", "config"), ("ForCausalLM", "lm"), ("Model", "backbone"))},
    "Qwen3_5TextConfig": ("qwen3.5", "config"), "Qwen3_5ForCausalLM": ("qwen3.5", "lm"),
    "Qwen3_5TextModel": ("qwen3.5", "backbone"),
    "Qwen3_5MoeTextConfig": ("qwen3.5-moe", "config"),
    "Qwen3_5MoeForCausalLM": ("qwen3.5-moe", "lm"),
    "Qwen3_5MoeTextModel": ("qwen3.5-moe", "backbone"),
    "Qwen4ExpTextConfig": ("qwen4-exp", "config"), "Qwen4ExpForCausalLM": ("qwen4-exp", "lm"),
    "Qwen4ExpTextModel": ("qwen4-exp", "backbone"),
    "InklingTextConfig": ("inkling", "config"), "InklingForCausalLM": ("inkling", "lm"),
    "InklingTextModel": ("inkling", "backbone"),
    "Inkling2TextConfig": ("inkling2", "config"), "Inkling2ForCausalLM": ("inkling2", "lm"),
    "Inkling2TextModel": ("inkling2", "backbone"),
    "Inkling2LoopTextConfig": ("inkling2-loop", "config"),
    "Inkling2LoopForCausalLM": ("inkling2-loop", "lm"),
    "Inkling2LoopTextModel": ("inkling2-loop", "backbone"),
    "Glm5NextTextConfig": ("glm5-next", "config"), "Glm5NextTextModel": ("glm5-next", "lm"),
}
"""The reference classes that ``read`` recognises in pasted code and ``config.json``'s
``architectures`` names: family and what it builds (a config, the causal LM, or the backbone
without its head)."""


def names() -> list[str]:
    """Every family's command name, in the registry's order."""
    return list(FAMILIES)


def family(name: str) -> FamilyConvention:
    """The convention module of family ``name``."""
    module: FamilyConvention = importlib.import_module(
        f"paramcount.families.{FAMILIES[name]}")
    return module


def config_class(name: str) -> type:
    """The config record class of family ``name``."""
    kind: type = family(name).Config  # type: ignore[attr-defined]
    return kind


@record
class Option:
    """One command-line option of a family: the field it sets and how it is spelled."""

    field: str
    kind: str
    """``int``, ``bool``, ``int | str``, ``float``, ``str``, ``tuple[int, ...]`` or
    ``tuple[str, ...]`` (a comma-separated list): the field's annotation, ``… | None`` read as
    its type (the option left out keeps the default None)."""
    names: tuple[str, ...]
    """``--state-size`` first, then aliases; a bool's ``--no-…`` is ``off``."""
    default: object
    off: str = ""

    @property
    def label(self) -> str:
        """The main spelling: ``--state-size``."""
        return self.names[0]


def options(name: str) -> list[Option]:
    """The options of family ``name``'s command, one per config field."""
    kind = config_class(name)
    annotations = kind.__dict__.get("__annotations__", {})  # noqa: RUF063 (inspect is slow)
    made = []
    for field in fields(kind):
        flag = "--" + field.replace("_", "-")
        spelled = (flag, *ALIASES.get(field, ()))
        extra = getattr(family(name), "ALIASES", {}).get(field, ())
        typed = str(annotations[field]).removesuffix(" | None")
        made.append(Option(field, typed, (*spelled, *extra), kind.__dict__.get(field),
                           f"--no-{field.replace('_', '-')}" if typed == "bool" else ""))
    return made


def value_of(option: Option, text: str) -> object:
    """``text`` read for ``option``'s field, or SpecError naming the option."""
    if option.kind in ("int", "int | str"):
        from paramcount.engine.counts import CountError, parse_int

        if option.kind == "int | str" and not ascii_digits(text[:1]):
            return text
        try:
            return parse_int(text)
        except CountError as error:
            raise SpecError("{" + option.field + "}: " + error.template,
                            **{option.field: text}) from None
    if option.kind == "float":
        try:
            return float(text)
        except ValueError:
            raise SpecError("{" + option.field + "} must be a number",
                            **{option.field: text}) from None
    if option.kind == "tuple[int, ...]":
        items = [item.strip() for item in text.split(",") if item.strip()]
        from paramcount.errors import shown

        if not all(ascii_digits(item) for item in items):
            raise SpecError("{" + option.field + "} must be whole numbers separated by commas",
                            **{option.field: shown(text)})
        if any(len(item.lstrip("0")) > 19 or int(item) > 2**63 - 1 for item in items):
            raise SpecError("{" + option.field + "}: each number must be at most 2^63 − 1 "
                            "(what the frameworks hold)", **{option.field: shown(text)})
        return tuple(int(item) for item in items)
    if option.kind == "tuple[str, ...]":
        return tuple(item.strip() for item in text.split(",") if item.strip())
    return text


def label_for(name: str) -> Any:
    """A SpecError label naming a family's fields as its command spells them."""
    spelled = {o.field: o.label for o in options(name)}

    def label(field: str, value: object) -> str:
        return f"{spelled[field]} {value}" if field in spelled else f"{field}={value!r}"

    return label


def build(name: str, values: Mapping[str, object], config_file: str | None = None) -> Any:
    """Family ``name``'s config: from ``config_file`` if given, then the options given."""
    return build_reading(name, values, config_file).config


def build_reading(name: str, values: Mapping[str, object],
                  config_file: str | None = None) -> Reading:
    """Family ``name``'s config and what its ``config.json`` left unread: from
    ``config_file`` if given, then the options given."""
    from paramcount.families.loader import Reading

    kind = config_class(name)
    if config_file is None:
        return Reading(kind(**values), family(name).REFERENCE)
    reading = from_config_file(name, config_file)
    if not values:
        return reading
    if options_of(reading.config) is not reading.config:  # a vision-language config: the
        return replace(reading, config=changed_to(reading.config, **values))  # decoder's
    base = {field: getattr(reading.config, field) for field in fields(reading.config)}
    return replace(reading, config=kind(**{**base, **values}))


def options_of(config: Any) -> Any:
    """The record whose fields are the family's options: a vision-language config's decoder
    config (its tower has none), else ``config`` itself."""
    return getattr(config, "text", config)


def changed_to(config: Any, **changes: object) -> Any:
    """``config`` with options changed (a vision-language config's in its decoder, but
    ``tie_word_embeddings``, the wrapper's own: transformers reads the head's tie there)."""
    if options_of(config) is config:
        return replace(config, **changes)
    tie = {"tie_word_embeddings": changes.pop("tie_word_embeddings")} if (
        "tie_word_embeddings" in changes) else {}
    return replace(config, text=replace(config.text, **changes), **tie)


def from_config_file(name: str, path: str) -> Reading:
    """Family ``name``'s reading of a ``config.json`` file (ConfigError for a file of another
    model type: see :func:`refuse_other`)."""
    from paramcount.families.config_json import read_config

    data = read_config(path)
    refuse_other(name, data, path)
    return load(name, data)


WRAPPERS = {"Qwen3_5ForConditionalGeneration": "qwen3.5",
            "Qwen3_5MoeForConditionalGeneration": "qwen3.5-moe"}
"""The vision-language classes whose ``config.json`` a family reads (its ``load_wrapper``):
not in :data:`CLASSES`, which ``read`` takes for the family's own classes."""

STEMS: dict[str, tuple[str, ...]] = {"rwkv": ("Rwkv5", "Rwkv6", "RWKV5", "RWKV6", "RWKV7")}
"""Class-name stems a family's files name in ``architectures`` beside its :data:`CLASSES`'
(the hub's RWKV-5 / RWKV-6 conversions, flash-linear-attention's RWKV-7)."""

_HEAD = r"(For[A-Z]\w*|LMHeadModel|PreTrainedModel|Model)$"
"""A transformers class name's head (compiled when first used: most commands never do)."""


def stem(cls: str) -> str:
    """``Lfm2Moe`` from ``Lfm2MoeForCausalLM``: a transformers class name without its head."""
    return re.sub(_HEAD, "", cls)


def family_of_class(cls: str) -> str | None:
    """The family whose model an ``architectures`` entry names (``Lfm2ForCausalLM`` → lfm2,
    ``RWKV7ForCausalLM`` → rwkv), or None: a class of a model no family is."""
    if cls in CLASSES:
        return CLASSES[cls][0]
    if cls in WRAPPERS:
        return WRAPPERS[cls]
    found = stem(cls)
    for name in FAMILIES:
        if found in STEMS.get(name, ()):
            return name
    for known, (name, built) in CLASSES.items():
        if built == "config" and known.removesuffix("Config") == found:
            return name
    return None


def refuse_other(name: str, data: Mapping[str, object], path: str) -> None:
    """Refuse (ConfigError, one line) a ``config.json`` that family ``name`` would count as a
    class it is not: a ``model_type`` or an ``architectures`` class of another family (naming
    the command that counts it) or of no family (saying it is not modelled). A file that names
    neither is read as ``name``'s, as before."""
    model_type = data.get("model_type")
    named: list[tuple[str, str | None]] = []
    if isinstance(model_type, str) and model_type:
        named.append((f"model_type {model_type!r}", MODEL_TYPES.get(model_type)))
    architectures = data.get("architectures")
    if isinstance(architectures, list):
        named += [(f"architectures {cls!r}", family_of_class(cls))
                  for cls in architectures if isinstance(cls, str)]
    elif not named:
        found = family_of(data)  # mamba_ssm's own file: its ssm_cfg's layer
        named = [] if found is None else [("its ssm_cfg", found)]
    for said, found in named:
        if found == name:
            continue
        if found is not None:
            raise ConfigError(f"{path}: describes a {family(found).TITLE} model ({said}), "
                              f"which 'paramcount {name}' does not count (count it with "
                              f"'paramcount {found} --config {path}')")
        reason = why_not(model_type)
        because = f" ({reason})" if reason else ""
        raise ConfigError(f"{path}: {said} is not a model paramcount models{because}, so "
                          f"'paramcount {name}' does not count it ({VIA_HINT})")


def why_not(model_type: object) -> str | None:
    """Why paramcount does not count ``model_type`` (a vision-language wrapper, a mixer not
    modelled yet), or None where it does not know it as one with a recurrent mixer."""
    from paramcount.families.unmodelled import why_not as reason

    return reason(model_type) if isinstance(model_type, str) else None


VIA_HINT = ("with transformers installed, add '--via transformers' to count it as "
            "transformers builds it, on the meta device")
"""What a refusal of a model type no family models offers instead."""


def load(name: str, data: Mapping[str, object]) -> Reading:
    """A ``config.json`` object read as family ``name``'s loading class reads it: the config,
    that class, the keys it left unread, and whether it is a base model class (no head)."""
    from paramcount.families.loader import Reading, base_class, unread

    module = family(name)
    wrapper = getattr(module, "load_wrapper", None)
    wrapped: Reading | None = wrapper(data) if wrapper is not None else None
    if wrapped is not None:
        return wrapped
    own = getattr(module, "load", None)
    if own is not None:
        reading: Reading = own(data)
        return reading
    config = module.from_hf_config(data)
    layout = getattr(module, "LAYOUT", None)
    notes = () if layout is None else tuple(unread(data, layout))
    base = base_class(data, [c for c, (f, built) in CLASSES.items()
                             if f == name and built == "backbone"])
    return Reading(config, layout.name if layout else module.REFERENCE, notes, base)


def family_of(data: Mapping[str, object]) -> str | None:
    """The family a ``config.json`` object describes, by its ``model_type`` (a model type no
    family models: None), else its ``architectures`` or, for mamba_ssm's own files, its
    ``ssm_cfg``; None if it names none of them."""
    model_type = data.get("model_type")
    if isinstance(model_type, str) and model_type:
        return MODEL_TYPES.get(model_type)  # the class it names is what loads it, or none
    architectures = data.get("architectures")
    if isinstance(architectures, list):
        for name in architectures:
            if isinstance(name, str) and name in CLASSES:
                return CLASSES[name][0]
    if "d_model" in data and "n_layer" in data:
        ssm = data.get("ssm_cfg")
        layer = ssm.get("layer", "Mamba1") if isinstance(ssm, Mapping) else "Mamba1"
        return {"Mamba1": "mamba", "Mamba2": "mamba2"}.get(str(layer))
    return None


def base_class_name(name: str) -> str:
    """Family ``name``'s base model class (``MambaModel``), or "" where it has none."""
    return next((c for c, (f, built) in CLASSES.items() if f == name and built == "backbone"),
                "")


def has_base(name: str) -> bool:
    """Whether family ``name``'s reference has a base model class (``--base``)."""
    return bool(base_class_name(name))


def tensors(name: str, config: Any, base: bool = False, saved: bool = False) -> list[Tensor]:
    """Family ``name``'s tensors of ``config``: the causal LM's, or with ``base`` the base
    model class's (``MambaModel``: no head, and the names without the backbone's prefix);
    with ``saved``, named as its checkpoint is (a hybrid's ``saved_tensors``)."""
    key = (name, config, base, saved)
    if key in _MADE:
        return list(_MADE[key])
    module = family(name)
    writes = getattr(module, "saved_tensors", None) if saved else None
    saved = writes is not None
    made: list[Tensor] = writes(config) if writes is not None else module.tensors(config)
    if len(_MADE) > 16:
        _MADE.clear()
    if not base:
        _MADE[key] = tuple(made)
        return made
    prefix = getattr(module, "SAVED_BACKBONE", "") if saved else ""
    prefix = prefix or backbone(name, config)
    frame = getattr(family(name), "frame", None)
    head = frame(config).head if frame is not None else "lm_head.weight"
    made = [replace(t, name=t.name[len(prefix):]) for t in made
            if t.name.startswith(prefix) and t.name != head]
    if saved and hasattr(module, "saved_base"):  # the checkpoint renames some names only under
        made = module.saved_base(made)  # the causal LM's prefix (Ling's word_embeddings)
    _MADE[key] = tuple(made)
    return made


def padding(name: str, config: Any) -> tuple[Padding, ...]:
    """What family ``name``'s checkpoint of ``config`` stores beyond its parameters' own shapes
    (its ``stored_padding``, named as :func:`tensors` with ``saved`` names them): none for most
    families."""
    pads = getattr(family(name), "stored_padding", None)
    return () if pads is None else tuple(pads(config))


_MADE: dict[tuple[str, Any, bool, bool], tuple[Tensor, ...]] = {}
"""The last few models' tensors: ``inspect`` asks for the same config's several times (the
config.json's, the recognised one's, their comparison)."""


def backbone(name: str, config: Any) -> str:
    """The prefix the causal LM puts before its base model's tensors (``backbone.``)."""
    module = family(name)
    frame = getattr(module, "frame", None)
    if frame is not None:
        prefix: str = frame(config).backbone
        return prefix
    prefix = getattr(module, "BACKBONE", "backbone.")
    return prefix


def recognise(shapes: Mapping[str, tuple[int, ...]],
              chosen: Sequence[str] | None = None) -> list[RecognisedModel]:
    """Every family model among named tensors, each tensor claimed once, in source order:
    causal LMs, then base model classes (no head)."""
    claimed: set[str] = set()
    found = []
    chosen = chosen or names()
    # every family's causal LMs first: a base model class read under a prefix may hold the
    # same tensors as another family's causal LM (NemotronHModel under "backbone." with a head
    # beside it is Mamba2ForCausalLM), and the causal LM is the plainer reading
    for model in (m for name in chosen for m in family(name).recognise(shapes)):
        if claimed.isdisjoint(model.names):
            claimed.update(model.names)
            found.append(model)
    rest = {n: s for n, s in shapes.items() if n not in claimed}
    for model in (m for name in chosen if rest and has_base(name)
                  for m in base_models(name, rest)):
        if claimed.isdisjoint(model.names):
            claimed.update(model.names)
            found.append(model)
    order = {name: i for i, name in enumerate(shapes)}
    found.sort(key=lambda model: min(order.get(n, len(order)) for n in model.names))
    return found


BASES: dict[str, tuple[str, str, str, tuple[str, ...]]] = {
    "mamba": ("backbone.", "embeddings.weight", "lm_head.weight",
              ("embeddings.", "layers.", "norm_f.")),
    "mamba2": ("backbone.", "embeddings.weight", "lm_head.weight",
               ("embeddings.", "layers.", "norm_f.")),
    "rwkv": ("rwkv.", "embeddings.weight", "head.weight", ("embeddings.", "blocks.", "ln_out.")),
    "xlstm": ("backbone.", "embeddings.weight", "lm_head.weight",
              ("embeddings.", "blocks.", "out_norm.")),
    "rglru": ("model.", "embed_tokens.weight", "lm_head.weight",
              ("embed_tokens.", "layers.", "final_norm.")),
    **{name: ("model.", "embed_tokens.weight", "lm_head.weight",
              ("embed_tokens.", "layers.", "final_layernorm."))
       for name in ("jamba", "bamba", "zamba2", "falcon-h1", "zamba")},
    **{name: ("model.", "embed_tokens.weight", "lm_head.weight",
              ("embed_tokens.", "layers.", "embedding_norm.")) for name in (
        "lfm2", "lfm2-moe", "lfm3")},
    **{name: ("model.", "embed_tokens.weight", "lm_head.weight",
              ("embed_tokens.", "layers.", "norm.")) for name in (
        "qwen3-next", "qwen3.5", "qwen3.5-moe", "granitemoehybrid", "minimax",
        "olmo-hybrid", "lara-mini", "kimi-linear", "bailing-hybrid", "inkling")},
    "zaya": ("model.", "embed_tokens.weight", "lm_head.weight",
             ("input_hidden_states_", "embed_tokens.", "layers.", "norm.")),
    **{name: ("model.", "embed_tokens.weight", "lm_head.weight",
              ("embed_tokens.", "layers.", "norm.", "final_input.", "message_input."))
       for name in ("inkling2", "inkling2-loop")},
    "nemotron-h": ("model.", "embeddings.weight", "lm_head.weight",
                   ("embeddings.", "layers.", "norm_f.")),
    "qwen4-exp": ("model.", "embed_tokens.weight", "lm_head.weight",
                  ("embed_tokens.", "layers.", "hyper_connection_mixer.")),
}
"""Each family's causal LM around its base model class: the base model's prefix, its
embeddings' name (the first tensor it lists), the head's name, and the base model's
top-level modules (what a base model found at a prefix may claim)."""


def base_models(name: str, shapes: Mapping[str, tuple[int, ...]]) -> list[RecognisedModel]:
    """Family ``name``'s base models (``xLSTMModel``: no head, names without ``backbone.``)
    among ``shapes``: each is the causal LM recognised from its tensors with the backbone's
    prefix put back and a head beside them, then the head taken away."""
    if name not in BASES:
        return []
    prefix, embeddings, head, modules = BASES[name]
    found = []
    for key, shape in shapes.items():
        if not key.endswith(embeddings) or len(shape) != 2:
            continue
        root = key[: len(key) - len(embeddings)]
        if (root and not root.endswith(".")) or root.endswith(prefix):
            continue  # another name, or a causal LM's own backbone
        inner = {prefix + n[len(root):]: s for n, s in shapes.items()
                 if n.startswith(root) and n[len(root):].startswith(modules)}
        # with a head beside it (an untied causal LM), else as it is: a causal LM whose head is
        # tied (Zamba2's shared blocks are tied only with tie_word_embeddings)
        for given in ({**inner, head: shape}, inner):
            models = [m for m in family(name).recognise(given)
                      if not m.prefix and (head in m.names) == (head in given)]
            for model in models:
                names_ = tuple(root + n[len(prefix):] for n in model.names if n != head)
                notes = (*model.notes, "no head: the base model class "
                         f"{base_class_name(name)}, counted without it")
                found.append(replace(model, prefix=root, names=names_, notes=notes, base=True))
            if models:
                break
    return found


def changed(config: Any) -> dict[str, object]:
    """The fields of ``config`` that its class's default would not give, the other fields
    as they are (``time_step_rank`` 48 is the default "auto" for hidden_size 768)."""
    if config in _CHANGED:
        return dict(_CHANGED[config])
    values = {f: getattr(config, f) for f in fields(config)}
    kind = type(config)
    out = {}
    for field, value in values.items():
        if field not in kind.__dict__:  # no default: always said
            out[field] = value
            continue
        if value == kind.__dict__[field]:  # the default as written: built from it, the same
            continue
        others = {k: v for k, v in values.items() if k != field}
        try:
            default = getattr(kind(**others), field)
        except (SpecError, TypeError):
            default = None
        if default != value:
            out[field] = value
    if len(_CHANGED) > 16:
        _CHANGED.clear()
    _CHANGED[config] = tuple(out.items())
    return out


_CHANGED: dict[Any, tuple[tuple[str, object], ...]] = {}
"""The last few configs' :func:`changed` fields: a model's description and its command both
ask (each field's default is a config built and validated anew)."""


def describe(name: str, config: Any) -> str:
    """``MambaForCausalLM(hidden_size=768, num_hidden_layers=24)``: the reference's class and
    the options that differ from its defaults."""
    module = family(name)
    cls = getattr(module, "reference", lambda _: module.REFERENCE)(config).split()[-1]
    return f"{cls}({', '.join(f'{k}={v!r}' for k, v in changed(config).items())})"
