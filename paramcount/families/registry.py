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
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from paramcount.errors import ConfigError, SpecError
from paramcount.record import fields, record

if TYPE_CHECKING:
    from paramcount.families.family import FamilyConvention, RecognisedModel

FAMILIES: dict[str, str] = {
    "jamba": "jamba",
    "bamba": "bamba",
    "zamba2": "zamba2",
    "falcon-h1": "falcon_h1",
    "nemotron-h": "nemotron_h",
    "lfm2": "lfm2",
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

HYBRIDS = ("jamba", "bamba", "zamba2", "falcon-h1", "nemotron-h", "lfm2")
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

MODEL_TYPES: dict[str, str] = {"mamba": "mamba", "mamba2": "mamba2", "rwkv": "rwkv",
                               "rwkv5": "rwkv", "rwkv6": "rwkv", "rwkv7": "rwkv",
                               "xlstm": "xlstm", "recurrent_gemma": "rglru",
                               "jamba": "jamba", "bamba": "bamba", "zamba2": "zamba2",
                               "falcon_h1": "falcon-h1", "nemotron_h": "nemotron-h",
                               "lfm2": "lfm2"}
"""A ``config.json``'s ``model_type`` → family."""


CLASSES: dict[str, tuple[str, str]] = {
    "MambaConfig": ("mamba", "config"), "MambaForCausalLM": ("mamba", "lm"),
    "MambaModel": ("mamba", "backbone"),
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
                         ("lfm2", "Lfm2"))
       for kind, built in (("Config", "config"), ("ForCausalLM", "lm"), ("Model", "backbone"))},
}
"""The reference classes that ``read`` recognises in pasted code: family and what it builds
(a config, the causal LM, or the backbone without its head)."""


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

        if option.kind == "int | str" and not text[:1].isdigit():
            return text
        try:
            return parse_int(text)
        except CountError as error:
            raise SpecError("{" + option.field + "}: " + str(error),
                            **{option.field: text}) from None
    if option.kind == "float":
        try:
            return float(text)
        except ValueError:
            raise SpecError("{" + option.field + "} must be a number",
                            **{option.field: text}) from None
    if option.kind == "tuple[int, ...]":
        items = [item.strip() for item in text.split(",") if item.strip()]
        if not all(item.isdigit() for item in items):
            raise SpecError("{" + option.field + "} must be whole numbers separated by commas",
                            **{option.field: text})
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
    kind = config_class(name)
    base: dict[str, object] = {}
    if config_file is not None:
        loaded = from_config_file(name, config_file)
        base = {field: getattr(loaded, field) for field in fields(loaded)}
    return kind(**{**base, **values})


def from_config_file(name: str, path: str) -> Any:
    """Family ``name``'s config from a ``config.json`` file."""
    from paramcount.families.config_json import read_config

    data = read_config(path)
    found = family_of(data)
    if found is not None and found != name:
        raise ConfigError(f"{path}: describes a {family(found).TITLE} model (count it with "
                          f"'paramcount {found} --config {path}')")
    return family(name).from_hf_config(data)


def family_of(data: Mapping[str, object]) -> str | None:
    """The family a ``config.json`` object describes, by its ``model_type`` or, for mamba_ssm's
    own files, its ``ssm_cfg``; None if it names none of them."""
    model_type = data.get("model_type")
    if isinstance(model_type, str) and model_type in MODEL_TYPES:
        return MODEL_TYPES[model_type]
    if "d_model" in data and "n_layer" in data:
        ssm = data.get("ssm_cfg")
        layer = ssm.get("layer", "Mamba1") if isinstance(ssm, Mapping) else "Mamba1"
        return {"Mamba1": "mamba", "Mamba2": "mamba2"}.get(str(layer))
    return None


def recognise(shapes: Mapping[str, tuple[int, ...]],
              chosen: Sequence[str] | None = None) -> list[RecognisedModel]:
    """Every family model among named tensors, each tensor claimed once, in source order."""
    claimed: set[str] = set()
    found = []
    for name in chosen or names():
        for model in family(name).recognise(shapes):
            if claimed.isdisjoint(model.names):
                claimed.update(model.names)
                found.append(model)
    order = {name: i for i, name in enumerate(shapes)}
    found.sort(key=lambda model: min(order.get(n, len(order)) for n in model.names))
    return found


def changed(config: Any) -> dict[str, object]:
    """The fields of ``config`` that its class's default would not give, the other fields
    as they are (``time_step_rank`` 48 is the default "auto" for hidden_size 768)."""
    values = {f: getattr(config, f) for f in fields(config)}
    kind = type(config)
    out = {}
    for field, value in values.items():
        others = {k: v for k, v in values.items() if k != field}
        try:
            default = getattr(kind(**others), field)
        except (SpecError, TypeError):
            default = None
        if field not in kind.__dict__ or default != value:
            out[field] = value
    return out


def describe(name: str, config: Any) -> str:
    """``MambaForCausalLM(hidden_size=768, num_hidden_layers=24)``: the reference's class and
    the options that differ from its defaults."""
    cls = family(name).REFERENCE.split()[-1]
    return f"{cls}({', '.join(f'{k}={v!r}' for k, v in changed(config).items())})"


def command_line(name: str, config: Any) -> str:
    """The ``paramcount`` command that counts ``config`` (options only where not default)."""
    spelled = {o.field: o for o in options(name)}
    words = ["paramcount", name]
    for field, value in changed(config).items():
        option = spelled[field]
        if option.kind == "bool":
            words.append(option.label if value else option.off)
        elif isinstance(value, tuple):
            words += [option.label, ",".join(str(item) for item in value)]
        else:
            words += [option.label, str(value)]
    return " ".join(words)
