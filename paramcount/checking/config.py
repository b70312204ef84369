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

import re
from typing import Any

from paramcount.checking.frames import Frame
from paramcount.checking.layers import _stack, recurrent_count
from paramcount.checking.locate import Path
from paramcount.checking.records import (
    _DTYPES,
    _FRAMEWORKS,
    BUILDERS,
    MAX_SIZE,
    MODEL_KEYS,
    SOURCES,
    TOP_KEYS,
    Config,
    Layer,
    Model,
)
from paramcount.checking.source import Source
from paramcount.checking.table import ConfigErrors, _attempt, _describe, _q, _raise_all, _Table
from paramcount.engine.spec import DType, Framework
from paramcount.errors import ConfigError, SpecError

__all__ = ["BUILDERS", "Config", "ConfigErrors", "Layer", "Model", "load_config",
           "recurrent_count"]


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
    if errors:
        failure = ConfigErrors(errors)
        failure.partial = Config(source, tuple(models))
        raise failure
    return Config(source, tuple(models))

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
    no_input: tuple[int | None, Frame] = (None, ())
    input_width, input_frame = _attempt(errors, lambda: _model_input(table, framework),
                                        no_input)
    input_frame = _attempt(errors, lambda: _sequence_input(table, input_frame),
                           (None, *input_frame))  # its layers read as after one frame
    bad_input = len(errors) > known
    total = _attempt(errors, lambda: table.integer(
        "total", minimum=0, what="a whole number of parameters (the exact total expected)"),
        None)
    max_params = _attempt(errors, lambda: table.budget(
        "max_params", "a budget, a positive whole number of parameters", "parameters"), None)
    max_bytes = _attempt(errors, lambda: table.budget(
        "max_bytes", "a budget, a positive whole number of bytes", "bytes"), None)
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
    if factory and framework not in BUILDERS:
        errors.append(table.error("framework" if "framework" in table else "factory",
                                  f"a factory model is built with torch or keras, not "
                                  f"{framework.value}"))
    no_family: tuple[str | None, Any] = (None, None)
    family, family_config = _attempt(errors, lambda: _family(table), no_family)
    if "config" in table and "family" not in table:
        errors.append(table.error("config", "config is a family model's configuration: add "
                                            "family = \"mamba\" (or mamba2, rwkv)"))
    if family is not None:
        for key in ("input", "kwargs", "modules"):
            if key in table:
                errors.append(table.error(key, f"{key} does not apply to a family model: its "
                                               "config says everything"))
        _raise_all(errors)
        return Model(name, path, framework, None, (), dtype, total, max_params, max_bytes,
                     description, family=family, family_config=family_config)
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
                            input_width, top_level=True, lost=bad_input, frame=input_frame,
                            flat=_input_flat(table, input_frame))
        except ConfigError as error:
            errors.append(error)
    _raise_all(errors)
    return Model(name, path, framework, input_width, tuple(layers), dtype, total, max_params,
                 max_bytes, description, input_frame=input_frame)


def _family(table: _Table) -> tuple[str | None, Any]:
    """``family = "mamba"`` and its ``config = { hidden_size = 768, ... }`` (read as that
    family's config.json is read: the reference's names and defaults)."""
    from paramcount.families import registry as families

    name = table.choice("family", families.names(), None)
    if name is None:
        return None, None
    data = table.data.get("config", {})
    if not isinstance(data, dict):
        raise table.error("config", f"expected a table of {name}'s options (hidden_size = "
                                    f"768, ...), got {_describe(data)}")
    from paramcount.families.config_json import oversized

    problem = oversized(data)
    if problem is not None:
        raise table.error("config", problem)
    try:
        return name, families.family(name).from_hf_config(data)
    except SpecError as error:
        raise table.error("config", str(error).removeprefix("config.json: ")) from None


def _model_input(table: _Table, framework: Framework) -> tuple[int | None, Frame]:
    """``input = 32`` (a width) or ``input = [28, 28, 1]`` (a sample's shape, channels last
    in Keras, first in torch): the channels and the frame."""
    value = table.data.get("input")
    if not isinstance(value, list):
        return table.integer("input", what="the input width, a positive whole number (or a "
                                           "sample's shape, e.g. [28, 28, 1])"), ()
    most = 4 if _first_convlstm(table) is None else 5  # a ConvLSTM3D's: time first
    what = f"a sample's shape: 2 to {most} positive whole numbers, e.g. [28, 28, 1]"
    if not 2 <= len(value) <= most:
        raise table.error("input", f"expected {what}, got {len(value)} numbers")
    for n, item in enumerate(value):
        if isinstance(item, bool) or not isinstance(item, int) or not 0 < item <= MAX_SIZE:
            raise table.source.error((*table.path, "input", n),
                                     f"expected {what}, got {_describe(item)}")
    if framework is Framework.TORCH:
        return value[0], tuple(value[1:])
    return value[-1], tuple(value[:-1])


def _first_convlstm(table: _Table) -> dict[str, Any] | None:
    """The model's first layer when it is a convlstm (whose input is a sequence of frames)."""
    layers = table.data.get("layers")
    first = layers[0] if isinstance(layers, list) and layers else None
    return first if isinstance(first, dict) and first.get("kind") == "convlstm" else None


def _sequence_input(table: _Table, frame: Frame) -> Frame:
    """The input of a model that starts with a convlstm, time axis first: ``input = [40, 40,
    1]`` is one frame of a sequence of unknown length, (None, 40, 40); with the convlstm's
    ``rank``, ``input = [20, 64, 64, 3]`` is 20 frames of 64×64 (Keras' own Input shape)."""
    first = _first_convlstm(table)
    if not frame or first is None:
        return frame
    rank = first.get("rank")
    where = (*table.path, "layers", 0, "rank")
    if rank is None:
        if len(frame) <= 2:
            return (None, *frame)
        raise table.error("input", _ambiguous_input(table.data["input"]))
    if isinstance(rank, bool) or rank not in (1, 2, 3):
        raise table.source.error(where, f"expected 1, 2 or 3 (ConvLSTM1D, 2D, 3D), got "
                                        f"{_describe(rank)}")
    if len(frame) == rank:
        return (None, *frame)
    if len(frame) == rank + 1:
        return frame
    raise table.error("input", f"a ConvLSTM{rank}D reads frames of {rank} spatial "
                               f"ax{'es' if rank > 1 else 'is'}, channels last: give input = "
                               f"[...] with {rank + 1} numbers (one frame) or {rank + 2} (time "
                               f"first), not {len(frame) + 1}")


def _ambiguous_input(value: list[int]) -> str:
    """Why ``input`` with 4 numbers before a convlstm needs the convlstm's ``rank``."""
    steps, *spatial, _ = value
    return (f"before a convlstm, input = [{', '.join(map(str, value))}] is {steps} frames of "
            f"{'×'.join(map(str, spatial))} (ConvLSTM{len(spatial)}D) or one frame of "
            f"{'×'.join(map(str, value[:-1]))} (ConvLSTM{len(spatial) + 1}D): say which with "
            f"rank = {len(spatial)} or rank = {len(spatial) + 1} on the convlstm")


def _input_flat(table: _Table, frame: Frame) -> str | None:
    """Whether a model's input has a time axis: not for one sample of frames (an image),
    unless its first layer is a ConvLSTM, which reads a sequence of them."""
    if not frame:
        return None
    layers = table.data.get("layers")
    first = layers[0] if isinstance(layers, list) and layers else None
    if isinstance(first, dict) and first.get("kind") == "convlstm":
        return None
    return "the model's input is one sample of frames (input = [...]), not a sequence"


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
