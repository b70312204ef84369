"""Config data -> validated models: ordered layer stacks with inferred widths and their counts.

The format (documented in the README, "Parameter budgets in CI")::

    dtype = "fp32"                    # optional: default dtype for max_bytes
    framework = "torch"               # optional: default framework of every model

    [models.tagger]
    framework = "torch"               # torch | keras
    input = 32                        # the first layer's input width (not for embeddings)
    total = 1_234_567                 # the exact count expected
    max_params = 2_000_000            # a budget
    max_bytes = 8_000_000             # a budget in bytes of dtype
    dtype = "fp16"
    layers = [
      { kind = "embedding", vocab = 5000, dim = 100, padding_idx = 0 },
      { kind = "lstm", hidden = 128, layers = 2, bidirectional = true, params = 789_504 },
      { kind = "linear", out = 9 },
    ]

Every error is a :class:`ConfigError` located at ``file:line:column`` and naming the key.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, overload

from paramcount import conventions
from paramcount.check.locate import Path
from paramcount.check.source import Source, did_you_mean
from paramcount.errors import ConfigError, SpecError
from paramcount.spec import Cell, DType, Framework, LayerSpec, MergeMode, Nonlinearity

RECURRENT = {"lstm": Cell.LSTM, "gru": Cell.GRU, "rnn": Cell.RNN}
ACTIVATIONS = ("relu", "tanh", "sigmoid", "gelu", "softmax", "elu", "leaky_relu", "silu")
POOL_MODES = ("last", "first", "max", "mean")

COMMON_KEYS = ("kind", "name", "from", "params")
KIND_KEYS: dict[str, tuple[str, ...]] = {
    **{
        kind: ("hidden", "units", "layers", "bidirectional", "bias", "proj", "merge_mode",
               "reset_after", "nonlinearity", "cell", "input", "return_sequences")
        for kind in RECURRENT
    },
    "embedding": ("vocab", "dim", "padding_idx", "mask_zero"),
    "linear": ("out", "units", "bias", "input", "activation"),
    "dense": ("out", "units", "bias", "input", "activation"),
    "time_distributed": ("out", "units", "bias", "input", "activation"),
    "layer_norm": ("bias", "input"),
    "dropout": ("rate",),
    "activation": ("function",),
    **{name: () for name in ACTIVATIONS},
    "pool": ("mode",),
    "attention": ("layers",),
}
KINDS = tuple(KIND_KEYS)
MODEL_KEYS = ("framework", "input", "layers", "factory", "kwargs", "file", "total", "max_params",
              "max_bytes", "dtype", "description", "modules")
SOURCES = ("layers", "factory", "file")
"""The three ways to say what a model is: hand-written layers, the project's code, a file."""
MAX_SIZE = 2**63 - 1
"""The largest size or count a config may state: what the frameworks' int64 sizes hold."""
TOP_KEYS = ("models", "framework", "dtype")
# Whole-model configs are built and counted in PyTorch and Keras only (the layer conventions
# of ONNX, Flax and TF1 have no model builder here).
_FRAMEWORKS = (Framework.TORCH.value, Framework.KERAS.value)
_DTYPES = tuple(d.value for d in DType)
_MERGE_MODES = tuple(m.value for m in MergeMode)
_NONLINEARITIES = tuple(n.value for n in Nonlinearity)


@dataclass(frozen=True)
class Layer:
    """One layer of a model, with its inferred widths and its parameter count."""

    index: int
    kind: str
    path: Path
    """Where the layer is declared (for messages)."""
    input_width: int | None
    """The width it reads; None for an embedding (token ids)."""
    output_width: int
    params: int
    description: str
    """The framework code that builds it, e.g. ``nn.Linear(256, 128)``."""
    name: str | None = None
    expected: int | None = None
    """The layer's ``params`` expectation, if the config states one."""
    spec: LayerSpec | None = None
    """The recurrent stack, for recurrent kinds."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """The validated kind-specific settings (vocab, out, bias, modes, return_sequences...)."""
    children: tuple[Layer, ...] = ()
    """An attention layer's scorer stack."""
    reads: int | None = None
    """The index of the layer it reads when ``from`` names one; None for the previous layer."""
    flat: str | None = None
    """None when its output still has a time axis; else which layer removed it and how."""

    @property
    def label(self) -> str:
        """``layers[2] (lstm)`` or ``layers[2] (encoder)``."""
        return f"layers[{self.index}] ({self.name or self.kind})"


@dataclass(frozen=True)
class Model:
    """A named model: its layers (or factory, or file), and its expectations."""

    name: str
    path: Path
    framework: Framework
    input_width: int | None
    layers: tuple[Layer, ...]
    dtype: DType
    total_expected: int | None = None
    max_params: int | None = None
    max_bytes: int | None = None
    description: str | None = None
    factory: str | None = None
    """``pkg.module:callable`` that returns the model."""
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    """Keyword arguments passed to the factory."""
    file: str | None = None
    """A model file, as written in the config (relative to the config's folder)."""
    modules_expected: Mapping[str, int] | None = None
    """The per-module counts recorded by ``--update`` (factory and file models)."""

    @property
    def kind(self) -> str:
        """``layers``, ``factory`` or ``file``: how the model is described."""
        return "factory" if self.factory else "file" if self.file else "layers"

    @property
    def total(self) -> int:
        """The number of parameters of every hand-written layer (0 for factory and file models,
        which are counted by ``paramcount.check.measure``)."""
        return sum(layer.params for layer in self.layers)

    @property
    def bytes(self) -> int:
        """The hand-written layers' size in ``dtype``."""
        return self.total * self.dtype.bytes


@dataclass(frozen=True)
class Config:
    """A loaded config: its source and its models, in file order."""

    source: Source
    models: tuple[Model, ...]


class ConfigErrors(ConfigError):
    """Every problem found in one config, each a located ConfigError on its own line."""

    def __init__(self, errors: Sequence[ConfigError]) -> None:
        self.errors: list[ConfigError] = []
        for error in errors:
            self.errors += error.errors if isinstance(error, ConfigErrors) else [error]
        super().__init__("\n".join(str(e) for e in self.errors))


def _raise_all(errors: Sequence[ConfigError]) -> None:
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise ConfigErrors(errors)


_LOST = 0
"""The width given to layers after a layer in error: checked for all but their width."""


class _UnknownWidth(ConfigError):
    """A layer whose input width is unknown (after an earlier layer's error: not reported)."""


class _Table:
    """A mapping from the config, with typed, located accessors."""

    def __init__(self, source: Source, path: Path, data: object, what: str,
                 allowed: Sequence[str]) -> None:
        if not isinstance(data, dict):
            raise source.error(path, f"expected a table ({what}), got {_describe(data)}")
        self.source, self.path, self.data = source, path, data
        _raise_all([
            source.error((*path, key), f"unknown key in {what}; expected one of: "
                                       f"{', '.join(allowed)}." + did_you_mean(key, allowed),
                         at="key")
            for key in data if key not in allowed
        ])

    def __contains__(self, key: str) -> bool:
        return key in self.data

    def error(self, key: str | None, message: str) -> ConfigError:
        path = self.path if key is None else (*self.path, key)
        return self.source.error(path, message)

    def integer(self, key: str, *, minimum: int = 1, what: str = "a positive whole number",
                default: int | None = None, required: bool = False) -> int | None:
        if key not in self.data:
            if required:
                raise self.source.error(self.path, f"missing key '{key}' ({what})")
            return default
        value = self.data[key]
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, f"expected {what}, got {_describe(value)}")
        if value < minimum:
            raise self.error(key, f"expected {what}, got {_int(value)}")
        if value > MAX_SIZE:
            raise self.error(key, f"expected {what} up to 2^63 − 1 (what the frameworks hold), "
                                  f"got {_int(value)}")
        return value

    def required_int(self, key: str, what: str = "a positive whole number") -> int:
        value = self.integer(key, what=what, required=True)
        assert value is not None
        return value

    def boolean(self, key: str, default: bool | None) -> bool | None:
        if key not in self.data:
            return default
        value = self.data[key]
        if not isinstance(value, bool):
            raise self.error(key, f"expected true or false, got {_describe(value)}")
        return value

    @overload
    def choice(self, key: str, choices: Sequence[str], default: str) -> str: ...
    @overload
    def choice(self, key: str, choices: Sequence[str], default: None) -> str | None: ...
    def choice(self, key: str, choices: Sequence[str], default: str | None) -> str | None:
        """The value of ``key``, which must be one of ``choices``, or ``default``."""
        if key not in self.data:
            return default
        value = self.data[key]
        if not isinstance(value, str):
            raise self.error(key, f"expected one of {', '.join(choices)}, got {_describe(value)}")
        if value not in choices:
            raise self.error(
                key,
                f"{_q(value)} is not one of: {', '.join(choices)}." + did_you_mean(value, choices),
            )
        return value

    def text(self, key: str) -> str | None:
        if key not in self.data:
            return None
        value = self.data[key]
        if not isinstance(value, str) or not value:
            raise self.error(key, f"expected a non-empty string, got {_describe(value)}")
        return value

    def choices(self, key: str, choices: Sequence[str], default: tuple[str, ...] | None
                ) -> tuple[str, ...] | None:
        """One choice, or a non-empty list of them."""
        if key not in self.data:
            return default
        value = self.data[key]
        items = value if isinstance(value, list) else [value]
        if not items:
            raise self.error(key, f"expected one of {', '.join(choices)}, or a list of them; "
                                  "got an empty list")
        out = []
        for n, item in enumerate(items):
            where = (*self.path, key, n) if isinstance(value, list) else (*self.path, key)
            if not isinstance(item, str) or item not in choices:
                hint = did_you_mean(item, choices) if isinstance(item, str) else ""
                raise self.source.error(
                    where, f"expected one of {', '.join(choices)}, got {_describe(item)}." + hint
                )
            out.append(item)
        return tuple(out)


def _q(text: str) -> str:
    """A user's string quoted for a one-line message: ``'enc'``, escaped if unprintable."""
    return f"'{text}'" if text.isprintable() and "'" not in text else json.dumps(text)


def _int(value: int) -> str:
    """An integer for a message: in full up to 20 digits, else its first digits and length."""
    if value.bit_length() <= 64:
        return str(value)
    digits = int(value.bit_length() * 0.30103) + 1  # str() refuses over 4,300 digits
    head = str(value)[:12] if value.bit_length() < 10_000 else ""
    if head:
        return f"{head}... (about {digits:,} digits)"
    return f"a number of about {digits:,} digits"


def _describe(value: object) -> str:
    """A value and its TOML/JSON type, for messages: ``string '12k'``."""
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int):
        return f"integer {_int(value)}"
    if isinstance(value, float):
        return f"float {value!r}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"string {shown!r}"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    if value is None:
        return "null"
    return type(value).__name__


def load_config(source: Source) -> Config:
    """Validate every model of ``source`` and compute its layers' counts.

    Every problem is found in one pass: several are raised together as :class:`ConfigErrors`.
    """
    errors: list[ConfigError] = []
    try:
        top = _Table(source, (), source.data, "the config's top level", TOP_KEYS)
    except ConfigError as error:
        errors.append(error)
        top = _Table(source, (), {k: v for k, v in source.data.items() if k in TOP_KEYS}
                     if isinstance(source.data, dict) else {}, "", TOP_KEYS)
    framework = _attempt(errors, lambda: Framework(top.choice("framework", _FRAMEWORKS,
                                                                "torch")), Framework.TORCH)
    dtype = _attempt(errors, lambda: DType(top.choice("dtype", _DTYPES, "fp32")), DType.FP32)
    if "models" not in top:
        _raise_all([*errors, source.error((), "no models: add a [models.NAME] table with a "
                                              "'layers' list or a 'factory'")])
    models_data = source.data["models"]
    if not isinstance(models_data, dict):
        _raise_all([*errors, source.error(("models",), "expected a table of named models "
                                                       "([models.NAME]), got "
                                                       f"{_describe(models_data)}")])
    if not models_data:
        _raise_all([*errors, source.error(("models",), "no models: add a [models.NAME] table "
                                                       "with a 'layers' list or a 'factory'")])
    seen: dict[str, str] = {}
    models = []
    for name, data in models_data.items():
        folded = name.strip().lower()
        if folded in seen:
            errors.append(source.error(("models", name), f"duplicate model name: {_q(name)} "
                                                         f"and {_q(seen[folded])} differ only "
                                                         "in case or spaces", at="key"))
            continue
        if not name.strip():
            errors.append(source.error(("models", name), "a model name must not be empty",
                                       at="key"))
            continue
        if not name.isprintable():
            errors.append(source.error(("models", name), "a model name must be printable, got "
                                                         f"{_q(name)}", at="key"))
            continue
        seen[folded] = name
        try:
            models.append(_model(source, name, data, framework, dtype))
        except ConfigError as error:
            errors.append(error)
    _raise_all(errors)
    return Config(source, tuple(models))


_T = TypeVar("_T")


def _attempt(errors: list[ConfigError], get: Callable[[], _T], default: _T) -> _T:
    """``get()``, or ``default`` with its error noted (so that checking goes on)."""
    try:
        return get()
    except ConfigError as error:
        errors.append(error)
        return default


_TARGET = re.compile(r"[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*:[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*")


def _model(source: Source, name: str, data: object, framework: Framework,
           dtype: DType) -> Model:
    path: Path = ("models", name)
    errors: list[ConfigError] = []
    try:
        table = _Table(source, path, data, f"model {_q(name)}", MODEL_KEYS)
    except ConfigError as error:
        if not isinstance(data, dict):
            raise
        errors.append(error)
        table = _Table(source, path, {k: v for k, v in data.items() if k in MODEL_KEYS}, "",
                       MODEL_KEYS)
    framework = _attempt(errors, lambda: Framework(table.choice("framework", _FRAMEWORKS,
                                                                framework.value)), framework)
    dtype = _attempt(errors, lambda: DType(table.choice("dtype", _DTYPES, dtype.value)), dtype)
    known = len(errors)
    input_width = _attempt(errors, lambda: table.integer(
        "input", what="the input width, a positive whole number"), None)
    bad_input = len(errors) > known
    total = _attempt(errors, lambda: table.integer(
        "total", minimum=0, what="a whole number of parameters (the exact total expected)"),
        None)
    max_params = _attempt(errors, lambda: table.integer(
        "max_params", what="a budget, a positive whole number of parameters"), None)
    max_bytes = _attempt(errors, lambda: table.integer(
        "max_bytes", what="a budget, a positive whole number of bytes"), None)
    description = _attempt(errors, lambda: table.text("description"), None)
    given = [key for key in SOURCES if key in table]
    if not given:
        errors.append(source.error(path, "missing key 'layers' (an array of layer tables), "
                                         "'factory' (\"package.module:function\") or 'file'"))
    elif len(given) > 1:
        errors.append(table.error(given[1], f"give one of {', '.join(SOURCES)}, not "
                                            f"{' and '.join(given)}"))
    factory = _attempt(errors, lambda: _factory(table), None)
    file = _attempt(errors, lambda: table.text("file"), None)
    kwargs: dict[str, Any] = {}
    if "kwargs" in table:
        if "factory" not in table:
            errors.append(table.error("kwargs", "kwargs are passed to a factory: add "
                                                "factory = \"package.module:function\""))
        elif not isinstance(table.data["kwargs"], dict):
            errors.append(table.error("kwargs", "expected a table of keyword arguments, got "
                                                f"{_describe(table.data['kwargs'])}"))
        else:
            kwargs = dict(table.data["kwargs"])
    modules = _attempt(errors, lambda: _modules(table), None)
    if modules is not None and "layers" in table:
        errors.append(table.error("modules", "modules records the counts of a factory or file "
                                             "model; hand-written layers state theirs as "
                                             "params = N"))
    if factory or file:
        if "input" in table:
            errors.append(table.error("input", "input describes hand-written layers; a "
                                               f"{'factory' if factory else 'file'} model "
                                               "knows its own"))
        _raise_all(errors)
        return Model(name, path, framework, None, (), dtype, total, max_params, max_bytes,
                     description, factory=factory, kwargs=kwargs, file=file,
                     modules_expected=modules)
    layers: list[Layer] = []
    if "layers" in table:
        try:
            layers = _stack(source, (*path, "layers"), table.data["layers"], framework,
                            input_width, top_level=True, lost=bad_input)
        except ConfigError as error:
            errors.append(error)
    _raise_all(errors)
    return Model(name, path, framework, input_width, tuple(layers), dtype, total, max_params,
                 max_bytes, description)


def _factory(table: _Table) -> str | None:
    target = table.text("factory")
    if target is not None and not _TARGET.fullmatch(target):
        raise table.error("factory", f"expected \"package.module:function\", got "
                                     f"{_describe(target)}")
    return target


def _modules(table: _Table) -> dict[str, int] | None:
    if "modules" not in table:
        return None
    data = table.data["modules"]
    if not isinstance(data, dict):
        raise table.error("modules", f"expected a table of module names and counts, got "
                                     f"{_describe(data)}")
    out = {}
    for key, value in data.items():
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SIZE:
            raise table.source.error((*table.path, "modules", key),
                                     f"expected a whole number of parameters, got "
                                     f"{_describe(value)}")
        out[key] = value
    return out


def _stack(source: Source, path: Path, data: object, framework: Framework,
           input_width: int | None, *, top_level: bool, flat: str | None = None,
           lost: bool = False) -> list[Layer]:
    """The layers of one stack, widths inferred from each previous layer (or ``from``).

    A layer's error does not stop the others being checked; the layers after it are checked
    for what does not depend on its width.
    """
    if not isinstance(data, list):
        raise source.error(path, f"expected an array of layer tables, got {_describe(data)}")
    if not data:
        raise source.error(path, "expected at least one layer, got an empty array")
    errors: list[ConfigError] = []
    tables: list[_Table | None] = []
    for n, item in enumerate(data):
        try:
            tables.append(_Table(source, (*path, n), item, f"layer {n}",
                                 _allowed(source, (*path, n), item)))
        except ConfigError as error:
            errors.append(error)
            tables.append(None)
    kinds = [str(t.data["kind"]) if t is not None else "?" for t in tables]
    layers: list[Layer] = []
    names: dict[str, int] = {}
    width = _LOST if lost else input_width
    for n, table in enumerate(tables):
        if table is None:
            lost, width = True, _LOST
            continue
        try:
            layer = _one(source, table, n, kinds, framework, width, flat, names, layers,
                         top_level)
        except _UnknownWidth as error:
            errors.append(error)
            lost, width = True, _LOST
            continue
        except ConfigError as error:
            errors.append(error)
            lost, width = True, _LOST
            continue
        flat = layer.flat
        if layer.name is not None:
            names[layer.name] = n
        layers.append(layer)
        width = layer.output_width
    _raise_all(errors)
    return layers


def _one(source: Source, table: _Table, n: int, kinds: list[str], framework: Framework,
         width: int | None, flat: str | None, names: dict[str, int], layers: list[Layer],
         top_level: bool) -> Layer:
    """One layer of a stack, read from ``table`` (``from`` resolved against ``names``)."""
    reads: int | None = None
    source_name = table.text("from")
    if source_name is not None:
        if source_name not in names:
            raise table.error(
                "from",
                f"no earlier layer is named {_q(source_name)}"
                + (f"; earlier names: {', '.join(map(_q, names))}." if names else
                   " (give a layer a name = \"...\" first).")
                + did_you_mean(source_name, names),
            )
        reads = names[source_name]
        width = layers[[layer.index for layer in layers].index(reads)].output_width
        flat = layers[[layer.index for layer in layers].index(reads)].flat
    if flat is not None and kinds[n] in _SEQUENCE_READERS:
        raise table.error("kind", f"this {kinds[n]} layer reads a sequence, but its input "
                                  f"has no time axis any more: {flat}")
    layer = _layer(source, table, n, kinds[n], framework, width,
                   following=kinds[n + 1:], first=(n == 0 and top_level))
    after = _flat_after(layer, flat)
    if after != layer.flat:
        layer = _replace(layer, flat=after)
    if layer.name is not None and layer.name in names:
        raise table.error("name", f"duplicate layer name {_q(layer.name)} (also "
                                  f"layers[{names[layer.name]}])")
    if reads is not None:
        layer = _replace(layer, reads=reads)
    return layer


def _flat_after(layer: Layer, flat: str | None) -> str | None:
    """Whether (and why) ``layer``'s output has lost the time axis, given its input's."""
    if layer.kind in ("pool", "attention"):
        return f"{layer.label} pools over time"
    if layer.spec is not None:
        if layer.spec.framework is Framework.KERAS and not layer.options["return_sequences"]:
            return f"{layer.label} returns only its last state (return_sequences = false)"
        return None
    if layer.kind == "embedding":
        return None
    return flat


def _replace(layer: Layer, **changes: Any) -> Layer:
    import dataclasses

    return dataclasses.replace(layer, **changes)


def _allowed(source: Source, path: Path, item: object) -> tuple[str, ...]:
    """The keys a layer table may have, from its kind (validated here)."""
    if not isinstance(item, dict):
        raise source.error(path, f"expected a layer table, got {_describe(item)}")
    if "kind" not in item:
        raise source.error(path, f"missing key 'kind'; expected one of: {', '.join(KINDS)}")
    kind = item["kind"]
    if not isinstance(kind, str):
        raise source.error((*path, "kind"), f"expected a layer kind (one of: "
                                            f"{', '.join(KINDS)}), got {_describe(kind)}")
    if kind not in KIND_KEYS:
        raise source.error((*path, "kind"), f"unknown layer kind {_q(kind)}; expected one of: "
                                            f"{', '.join(KINDS)}." + did_you_mean(kind, KINDS))
    return (*COMMON_KEYS, *KIND_KEYS[kind])


_SEQUENCE_READERS = (*RECURRENT, "time_distributed", "pool", "attention")
_SHAPE_KEEPERS = ("linear", "dense", "layer_norm", "dropout", "activation", *ACTIVATIONS)


def _sequence_reader(following: Sequence[str]) -> str | None:
    """The first later layer that needs a sequence (through layers that keep the shape)."""
    for kind in following:
        if kind in _SEQUENCE_READERS:
            return kind
        if kind not in _SHAPE_KEEPERS:
            return None
    return None


def _layer(source: Source, t: _Table, index: int, kind: str, framework: Framework,
           width: int | None, *, following: Sequence[str], first: bool) -> Layer:
    name = t.text("name")
    if name is not None and not name.isprintable():
        raise t.error("name", f"a layer name must be printable, got {_q(name)}")
    expected = t.integer("params", minimum=0,
                         what="a whole number of parameters (the layer's exact count)")
    keras = framework is Framework.KERAS

    def base(**kw: Any) -> Layer:
        return Layer(index=index, kind=kind, path=t.path, name=name, expected=expected, **kw)

    if kind == "embedding":
        if not first:
            raise t.error("kind", "an embedding reads token ids, so it must be the first "
                                  "layer of a model")
        if width is not None and width != _LOST:
            raise source.error((*t.path[:-2], "input"),
                               "a model that starts with an embedding reads token ids: "
                               "remove 'input' (the embedding's dim sets the width)")
        vocab = t.required_int("vocab", "the vocabulary size, a positive whole number")
        dim = t.required_int("dim", "the embedding width, a positive whole number")
        padding = None
        if "padding_idx" in t:
            if keras:
                raise t.error("padding_idx", "padding_idx is a torch option; Keras spells it "
                                             "mask_zero = true")
            padding = t.integer("padding_idx", minimum=-vocab,
                                what=f"an index from {-vocab} to {vocab - 1}")
            assert padding is not None
            if padding >= vocab:
                raise t.error("padding_idx", f"expected an index from {-vocab} to {vocab - 1} "
                                             f"(torch: padding_idx must be within "
                                             f"num_embeddings), got {padding}")
        mask_zero = t.boolean("mask_zero", None)
        if mask_zero is not None and not keras:
            raise t.error("mask_zero", "mask_zero is a Keras option; torch spells it "
                                       "padding_idx = 0")
        if keras:
            text = f"Embedding({vocab}, {dim}" + (", mask_zero=True" if mask_zero else "") + ")"
        else:
            text = f"nn.Embedding({vocab}, {dim}" + (
                f", padding_idx={padding}" if padding is not None else "") + ")"
        return base(input_width=None, output_width=dim, params=vocab * dim, description=text,
                    options={"vocab": vocab, "dim": dim, "padding_idx": padding,
                             "mask_zero": bool(mask_zero)})

    if kind in RECURRENT:
        width = _input(t, width, kind)
        hidden = _alias(t, "hidden", "units", "the hidden size, a positive whole number")
        num_layers = t.integer("layers", default=1, what="a positive whole number of layers")
        proj = t.integer("proj", minimum=0, default=0, what="a projection size (0 for none)")
        modes = t.choices("merge_mode", _MERGE_MODES, None)
        nonlinearity = t.choice("nonlinearity", _NONLINEARITIES, None)
        return_sequences = t.boolean("return_sequences", None)
        if return_sequences is not None and not keras:
            raise t.error("return_sequences", "return_sequences is a Keras option: a torch "
                                              "recurrent layer always returns the sequence")
        reader = _sequence_reader(following)
        needs_sequence = reader is not None
        if return_sequences is False and reader is not None:
            raise t.error("return_sequences", f"a later layer ({reader}) reads a sequence: "
                                              "return_sequences must be true")
        try:
            spec = LayerSpec(
                cell=RECURRENT[kind], input_size=width, hidden_size=hidden,
                num_layers=num_layers or 1, bidirectional=bool(t.boolean("bidirectional", False)),
                bias=bool(t.boolean("bias", True)), proj_size=proj or 0, framework=framework,
                merge_modes=tuple(MergeMode(m) for m in modes) if modes else None,
                reset_after=t.boolean("reset_after", None),
                nonlinearity=Nonlinearity(nonlinearity) if nonlinearity else None,
                single_cell=bool(t.boolean("cell", False)),
            )
        except SpecError as error:
            field_name = next(iter(error.values), None)
            key = _SPEC_KEYS.get(field_name or "")
            raise (t.error(key, error.render(_config_label)) if key and key in t
                   else t.error(None, error.render(_config_label))) from None
        if following and spec.merge_modes and spec.merge_modes[-1] is MergeMode.NONE:
            raise t.error("merge_mode", "merge_mode none returns two tensors, and the next "
                                        f"layer ({following[0]}) reads one")
        if spec.single_cell:
            out = spec.hidden_size
        elif keras and spec.bidirectional and spec.merge_modes:
            out = spec.merge_modes[-1].width_factor * spec.hidden_size
        else:
            out = spec.directions * spec.output_size
        return base(input_width=width, output_width=out,
                    params=recurrent_count(spec),
                    description=conventions.describe(spec), spec=spec,
                    options={"return_sequences": bool(return_sequences if return_sequences
                                                      is not None else needs_sequence)})

    if kind in ("linear", "dense", "time_distributed"):
        if kind == "time_distributed" and not keras:
            raise t.error("kind", "time_distributed is a Keras wrapper; a torch nn.Linear "
                                  "already applies to every time step (use kind = \"linear\")")
        width = _input(t, width, kind)
        out = _alias(t, "out", "units", "the output width, a positive whole number")
        bias = bool(t.boolean("bias", True))
        activation = t.choice("activation", ACTIVATIONS, None)
        if activation is not None and not keras:
            raise t.error("activation", "activation is a Keras option: a torch nn.Linear has "
                                        "none (add a layer after it, e.g. { kind = \"relu\" })")
        if keras:
            args = [str(out)] + ([f"activation='{activation}'"] if activation else []) + (
                [] if bias else ["use_bias=False"])
            text = f"Dense({', '.join(args)})"
            if kind == "time_distributed":
                text = f"TimeDistributed({text})"
        else:
            text = f"nn.Linear({width}, {out}" + ("" if bias else ", bias=False") + ")"
        return base(input_width=width, output_width=out, params=width * out + out * bias,
                    description=text, options={"out": out, "bias": bias,
                                               "activation": activation})

    if kind == "layer_norm":
        width = _input(t, width, kind)
        bias = bool(t.boolean("bias", True))
        text = (f"LayerNormalization({'' if bias else 'center=False'})" if keras
                else f"nn.LayerNorm({width}" + ("" if bias else ", bias=False") + ")")
        return base(input_width=width, output_width=width, params=width * (1 + bias),
                    description=text, options={"bias": bias})

    width = _needs_width(t, width, kind)
    if kind == "attention":
        children = _stack(source, (*t.path, "layers"), t.data.get("layers"), framework, width,
                          top_level=False) if "layers" in t else None
        if children is None:
            raise t.error(None, "missing key 'layers' (the scorer: layers that map each time "
                                "step to one score)")
        if children[-1].flat is not None:
            raise source.error(children[-1].path, "the attention scorer must keep the time "
                                                  "axis (one score per time step), but "
                                                  f"{children[-1].flat}")
        if children[-1].output_width != 1:
            raise source.error(children[-1].path, f"the attention scorer must end in width 1 "
                                                  f"(one score per time step), got "
                                                  f"{children[-1].output_width}")
        return base(input_width=width, output_width=width,
                    params=sum(c.params for c in children),
                    description="attention pooling: softmax over time of "
                                + " → ".join(c.description for c in children),
                    children=tuple(children))
    if kind == "pool":
        modes = t.choices("mode", POOL_MODES, None)
        if modes is None:
            raise t.error(None, f"missing key 'mode' (one of {', '.join(POOL_MODES)}, or a "
                                "list of them, concatenated)")
        return base(input_width=width, output_width=width * len(modes), params=0,
                    description="concat(" + ", ".join(modes) + ") pooling over time"
                    if len(modes) > 1 else f"{modes[0]} pooling over time",
                    options={"modes": modes})
    if kind == "dropout":
        rate = t.data.get("rate", 0.5)
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate < 1:
            raise t.error("rate", f"expected a rate from 0 to below 1, got {_describe(rate)}")
        return base(input_width=width, output_width=width, params=0,
                    description=f"Dropout({rate})", options={"rate": float(rate)})
    function = kind
    if kind == "activation":
        function = t.choice("function", ACTIVATIONS, None) or ""
        if not function:
            raise t.error(None, f"missing key 'function' (one of {', '.join(ACTIVATIONS)})")
    return base(input_width=width, output_width=width, params=0, description=function,
                options={"function": function})


def recurrent_count(spec: LayerSpec) -> int:
    """The parameters of a recurrent spec, in closed form (the tests prove it equals the sum of
    ``conventions.tensors``; this is ~20× faster, which matters for files of 10,000 models)."""
    gh, h = spec.gate_rows, spec.hidden_size
    if spec.framework not in (Framework.TORCH, Framework.KERAS):
        return sum(t.count for t in conventions.tensors(spec))
    if spec.framework is Framework.TORCH:
        per_bias = 2 * int(spec.bias)
        if spec.single_cell:
            return gh * (spec.input_size + h + per_bias)
        hr, p = spec.output_size, spec.proj_size
        return spec.directions * sum(gh * (width + hr + per_bias) + p * h
                                     for width in conventions.input_widths(spec))
    biases = (2 if spec.cell is Cell.GRU and spec.reset_after else 1) * int(spec.bias)
    if spec.single_cell:
        return gh * (spec.input_size + h + biases)
    return spec.directions * sum(gh * (width + h + biases)
                                 for width in conventions.input_widths(spec))


_SPEC_KEYS = {
    "input_size": "input", "hidden_size": "hidden", "num_layers": "layers",
    "proj_size": "proj", "merge_modes": "merge_mode", "reset_after": "reset_after",
    "nonlinearity": "nonlinearity", "single_cell": "cell", "bidirectional": "bidirectional",
    "bias": "bias",
}


def _config_label(field_name: str, value: object) -> str:
    """Name a LayerSpec field as the config spells it: ``proj = 128``."""
    key = _SPEC_KEYS.get(field_name, field_name)
    if isinstance(value, bool):
        return f"{key} = {str(value).lower()}"
    if isinstance(value, str) and field_name != "merge_modes":
        return f"{key} = \"{value}\""
    return f"{key} = {value}"


def _alias(t: _Table, key: str, alias: str, what: str) -> int:
    if key in t and alias in t:
        raise t.error(alias, f"give '{key}' or '{alias}', not both (they are the same setting)")
    return t.required_int(alias if alias in t else key, what)


def _input(t: _Table, width: int | None, kind: str) -> int:
    """The width a layer reads: the previous layer's, checked against an explicit ``input``."""
    explicit = t.integer("input", what="the input width, a positive whole number")
    if explicit is not None and width not in (None, _LOST) and explicit != width:
        raise t.error("input", f"widths do not chain: this {kind} reads {explicit}, but the "
                               f"layer before it outputs {width}")
    if explicit is not None:
        return explicit
    return _needs_width(t, width, kind)


def _needs_width(t: _Table, width: int | None, kind: str) -> int:
    if width == _LOST:
        return 1
    if width is None:
        raise _UnknownWidth(str(t.error(None, f"the {kind} layer's input width is unknown: set "
                                              "'input' on the model (or on its first layer), "
                                              "or start with an embedding")))
    return width

