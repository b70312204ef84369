"""The code of a model as the oracle of ``paramcount read``: the Python source a user would post
that builds a random plan's model, spelled at random the way people write it, beside the real
printouts of the model that code builds.

:func:`torch_code` writes a ``class Net(nn.Module)`` for a :class:`tests.printers.TorchPlan`
(``nn.LSTM`` / ``torch.nn.LSTM`` / ``from torch.nn import LSTM``; sizes positional or by
keyword, as literals, ``__init__`` parameters with defaults or module-level constants, a next
layer's input as ``2 * hidden``; every option of the recurrent layers); :func:`keras_code`
writes a Keras model for a :class:`tests.printers.KerasPlan` (``Sequential([...])``,
``model.add(...)`` or the functional API; ``tf.keras.layers.LSTM`` / ``keras.layers.LSTM`` /
``from keras.layers import LSTM``; ``input_shape=`` or ``Input(shape=...)``). The model whose
printouts go beside the code is built by executing that code (our own generated text, never a
user's: exec is the point here, and ``paramcount`` itself never runs a paste), and its truth is
asserted equal to :func:`tests.printers.build_torch`'s / :func:`tests.printers.build_keras`'s,
so the generator cannot drift from the plan. :func:`code_pastes` and
:func:`keras_code_pastes` give the code paste with those printouts, for tests and
``benchmarks/read_accuracy.py``.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from paramcount.engine.spec import Cell, LayerSpec, Nonlinearity
from tests.printers import (
    DUMPS,
    KerasPlan,
    Paste,
    TorchPlan,
    Truth,
    build_keras,
    build_torch,
    dump_text,
    keras_text,
    torchinfo_options,
    torchinfo_text,
)

Draw = Callable[[st.SearchStrategy[Any]], Any]

TORCH_CODE = "code (torch)"
KERAS_CODE = "code (Keras)"


@dataclass
class _Sizes:
    """How the sizes of one generated source are written: literals, ``__init__`` parameters
    with defaults, or module-level constants (each size drawn on its own)."""

    draw: Draw
    styles: tuple[str, ...]
    params: list[tuple[str, int]] = field(default_factory=list)
    constants: list[tuple[str, int]] = field(default_factory=list)

    def size(self, value: int, name: str) -> str:
        """``value`` written as a literal, a parameter ``name`` or a constant ``NAME``."""
        style = self.draw(st.sampled_from(self.styles))
        taken = {n for n, _ in self.params} | {n.lower() for n, _ in self.constants}
        if style == "literal" or name in taken:
            return str(value)
        if style == "param":
            self.params.append((name, value))
            return f"self_{name}"  # resolved by the class writer (self.x or the bare name)
        self.constants.append((name.upper(), value))
        return name.upper()


# -- torch ------------------------------------------------------------------------------------

_TORCH_CELLS = {Cell.RNN: "RNN", Cell.GRU: "GRU", Cell.LSTM: "LSTM"}


def torch_code(plan: TorchPlan, draw: Draw, overridden: bool = False) -> str:
    """The Python source of a ``nn.Module`` that builds ``plan``'s model (its attributes named
    as :func:`tests.printers.build_torch` names them), drawn in one of the spellings people
    use, ending with ``model = Net(...)``; where ``overridden``, perhaps with ``__init__``
    defaults of another model and the true sizes passed (a crop that cuts that last line then
    leaves the code of another model, so posts that crop are composed without it)."""
    imports = draw(st.sampled_from(["nn", "from-torch", "torch.nn", "names"]))
    styles = draw(st.sampled_from([("literal",), ("param",), ("const",),
                                   ("literal", "param", "const")]))
    sizes = _Sizes(draw, styles)
    keywords = draw(st.booleans())
    used: set[str] = {"Module"}

    def cls(name: str) -> str:
        used.add(name)
        return {"nn": f"nn.{name}", "from-torch": f"nn.{name}",
                "torch.nn": f"torch.nn.{name}", "names": name}[imports]

    def call(name: str, positional: list[tuple[str, str]], options: list[str]) -> str:
        by_name = keywords or draw(st.integers(0, 4)) == 0
        args = [f"{key}={value}" if by_name else value for key, value in positional]
        return f"{cls(name)}({', '.join([*args, *options])})"

    body: list[str] = []
    forward: list[str] = []
    if plan.vocab is not None:
        written = sizes.size(plan.width, "embed_dim")
        body.append("self.embedding = " + call("Embedding", [
            ("num_embeddings", sizes.size(plan.vocab, "vocab_size")),
            ("embedding_dim", written)], []))
        forward.append("x = self.embedding(x)")
    else:
        written = sizes.size(plan.width, "input_size")
    firsts = iter(plan.batch_first)
    for index, (kind, value) in enumerate(plan.blocks):
        name = f"{kind}{index}"
        if kind == "rnn":
            spec: LayerSpec = value
            first = next(firsts)
            hidden = sizes.size(spec.hidden_size, f"hidden{index}")
            options = _torch_options(spec, first, draw, keywords)
            positional = [("input_size", written), ("hidden_size", hidden)]
            if (spec.num_layers > 1 and spec.cell is not Cell.RNN and not keywords
                    and draw(st.booleans())):
                positional.append(("num_layers", str(spec.num_layers)))
                options = [o for o in options if not o.startswith("num_layers=")]
            body.append(f"self.{name} = " + call(_TORCH_CELLS[spec.cell], positional, options))
            if first:
                forward.append(draw(st.sampled_from([f"x, _ = self.{name}(x)",
                                                     f"x = self.{name}(x)[0]"])))
            else:
                forward.append(f"x, _ = self.{name}(x.transpose(0, 1))")
                forward.append("x = x.transpose(0, 1)")
            if spec.proj_size or hidden[0].isdigit() or not draw(st.booleans()):
                written = str(spec.directions * spec.output_size)
            else:
                written = f"2 * {hidden}" if spec.bidirectional else hidden
        elif kind in ("linear", "mlp"):
            out = sizes.size(value, f"out{index}")
            linear = call("Linear", [("in_features", written), ("out_features", out)], [])
            if kind == "mlp":
                body.append(f"self.{name} = {cls('Sequential')}({linear}, {cls('ReLU')}())")
            else:
                body.append(f"self.{name} = {linear}")
            forward.append(f"x = self.{name}(x)")
            written = out
        elif kind == "conv":
            out = sizes.size(value[0], f"channels{index}")
            body.append(f"self.{name} = " + call("Conv1d", [
                ("in_channels", written), ("out_channels", out),
                ("kernel_size", str(value[1]))], ["padding='same'"]))
            forward.append(f"x = self.{name}(x.transpose(1, 2)).transpose(1, 2)")
            written = out
        else:
            body.append(f"self.{name} = " + call("LayerNorm", [("normalized_shape", written)],
                                                 []))
            forward.append(f"x = self.{name}(x)")
    if plan.cell is not None:
        spec = plan.cell
        options = [] if spec.bias else ["bias=False"]
        if spec.nonlinearity is Nonlinearity.RELU:
            options.append("nonlinearity='relu'")
        hidden = sizes.size(spec.hidden_size, "cell_size")
        body.append("self.cell = " + call(f"{_TORCH_CELLS[spec.cell]}Cell",
                                          [("input_size", written), ("hidden_size", hidden)],
                                          options))
        if spec.cell is Cell.LSTM:
            forward += ["h, c = self.cell(x[:, -1])", "return h"]
        else:
            forward.append("return self.cell(x[:, -1])")
    else:
        forward.append("return x")
    return _torch_source(imports, sizes, used, body, forward, draw, overridden)


def _torch_options(spec: LayerSpec, batch_first: bool, draw: Draw, keywords: bool
                   ) -> list[str]:
    """The keyword options of one recurrent layer, the defaults sometimes written out."""
    options = []
    if spec.num_layers > 1 or draw(st.integers(0, 5)) == 0:
        options.append(f"num_layers={spec.num_layers}")
    if not spec.bias or draw(st.integers(0, 5)) == 0:
        options.append(f"bias={spec.bias}")
    if batch_first or draw(st.integers(0, 3)) == 0:
        options.append(f"batch_first={batch_first}")
    if spec.bidirectional or draw(st.integers(0, 5)) == 0:
        options.append(f"bidirectional={spec.bidirectional}")
    if spec.proj_size:
        options.append(f"proj_size={spec.proj_size}")
    if spec.nonlinearity is Nonlinearity.RELU:
        options.append(draw(st.sampled_from(["nonlinearity='relu'", 'nonlinearity="relu"'])))
    elif spec.cell is Cell.RNN and draw(st.integers(0, 5)) == 0:
        options.append("nonlinearity='tanh'")
    if draw(st.integers(0, 4)) == 0:
        options.append("dropout=0.0" if spec.num_layers == 1 else "dropout=0.1")
    return draw(st.permutations(options)) if not keywords else options


def _torch_source(imports: str, sizes: _Sizes, used: set[str], body: list[str],
                  forward: list[str], draw: Draw, overridden: bool) -> str:
    """The module text: imports, constants, the class, and the line that builds it."""
    head = {"nn": "import torch\nimport torch.nn as nn\n",
            "from-torch": "import torch\nfrom torch import nn\n",
            "torch.nn": "import torch\n",
            "names": f"import torch\nfrom torch.nn import {', '.join(sorted(used))}\n"}[imports]
    base = {"nn": "nn.Module", "from-torch": "nn.Module", "torch.nn": "torch.nn.Module",
            "names": "Module"}[imports]
    lines = [head]
    if sizes.constants:
        lines += [f"{name} = {value}" for name, value in sizes.constants] + [""]
    name = draw(st.sampled_from(["Net", "Model", "RNNModel", "Seq2Seq"]))
    passing = draw(st.sampled_from(["defaults", "passed", *(["overridden"] * overridden)])) \
        if sizes.params else "defaults"
    if passing == "defaults":  # Net() builds what the defaults say
        params, given = "".join(f", {n}={v}" for n, v in sizes.params), ""
    elif passing == "passed":  # no defaults: Net(8, 16) or Net(hidden=8, ...)
        params = "".join(f", {n}" for n, _ in sizes.params)
        by_name = draw(st.booleans())
        given = ", ".join(f"{n}={v}" if by_name else str(v) for n, v in sizes.params)
    else:  # defaults of another model, the true sizes passed by name
        params = "".join(f", {n}={v + draw(st.integers(1, 9))}" for n, v in sizes.params)
        given = ", ".join(f"{n}={v}" for n, v in sizes.params)
    lines += ["", f"class {name}({base}):", f"    def __init__(self{params}):",
              "        super().__init__()" if draw(st.booleans())
              else f"        super({name}, self).__init__()"]
    lines += [f"        {_resolve(line)}" for line in body]
    lines += ["", "    def forward(self, x):"] + [f"        {line}" for line in forward]
    lines += ["", "", f"model = {name}({given})"]
    return "\n".join(lines) + "\n"


def _resolve(line: str) -> str:
    """A parameter's placeholder (``self_hidden``) as the bare name ``__init__`` reads."""
    return line.replace("self_", "")


def exec_torch(code: str) -> Any:
    """The model ``code`` builds: the module-level ``model``. The code is ours (generated by
    :func:`torch_code` in this test), not a user's paste, so running it is what makes it the
    oracle; ``paramcount read`` itself only ever parses it."""
    import torch

    namespace: dict[str, Any] = {"__name__": "generated_torch_code"}
    torch.manual_seed(0)
    exec(compile(code, "<generated torch code>", "exec"), namespace)  # our code, not a paste
    return namespace["model"]


def torch_truth(net: Any, plan: TorchPlan) -> Truth:
    """The truth of ``net`` (built by the generated code): the plan's specs under its
    attribute names, the framework's own per-layer counts and total; asserted equal to
    :func:`tests.printers.build_torch`'s, so the code cannot drift from the plan."""
    _, truth, _ = build_torch(plan)
    counts = tuple(sum(p.numel() for p in getattr(net, n).parameters()) for n in truth.names)
    built = Truth(truth.specs, truth.names, sum(p.numel() for p in net.parameters()), counts)
    assert built == truth, (built, truth)
    for name, spec in zip(truth.names, truth.specs, strict=True):
        module = getattr(net, name)
        if not spec.single_cell:
            assert (module.input_size, module.hidden_size, module.num_layers, module.bias,
                    module.bidirectional, module.proj_size) == (
                spec.input_size, spec.hidden_size, spec.num_layers, spec.bias,
                spec.bidirectional, spec.proj_size), (name, module, spec)
    return built


def torch_example(plan: TorchPlan) -> Any:
    """An input ``plan``'s model runs on (token ids, or features)."""
    import torch

    return (torch.zeros(2, 3, dtype=torch.long) if plan.vocab is not None
            else torch.zeros(2, 3, plan.width))


def code_pastes(plan: TorchPlan, draw: Draw) -> list[Paste]:
    """The code paste of ``plan`` (label ``code (torch)``) and real printouts of the model that
    executing it builds: ``print(model)``, torchinfo, a ``named_parameters()`` dump."""
    code = torch_code(plan, draw)
    net = exec_torch(code)
    truth = torch_truth(net, plan)
    example = torch_example(plan)
    pastes = [Paste(TORCH_CODE, code, truth), Paste("print(model)", str(net) + "\n", truth)]
    pastes.append(Paste("torchinfo", torchinfo_text(net, example, draw(torchinfo_options())),
                        truth))
    style = draw(st.sampled_from(sorted(DUMPS)))
    pastes.append(Paste("named_parameters()", dump_text(net, style), truth))
    return pastes


# -- Keras ------------------------------------------------------------------------------------

_KERAS_CELLS = {Cell.RNN: "SimpleRNN", Cell.GRU: "GRU", Cell.LSTM: "LSTM"}


def keras_code(plan: KerasPlan, draw: Draw) -> str:
    """The Python source of a Keras 3 model that builds ``plan``'s model: ``Sequential([...])``,
    ``model.add(...)`` lines or the functional API (always functional for an encoder–decoder),
    drawn in one of the spellings people use, ending with ``model`` built."""
    imports = draw(st.sampled_from(["tf.keras", "keras", "from-tf", "names"]))
    styles = draw(st.sampled_from([("literal",), ("const",), ("literal", "const")]))
    sizes = _Sizes(draw, styles)
    used: set[str] = set()

    def cls(name: str) -> str:
        used.add(name)
        return {"tf.keras": f"tf.keras.layers.{name}", "keras": f"keras.layers.{name}",
                "from-tf": f"layers.{name}", "names": name}[imports]

    def rnn(cell: Cell, units: str, bias: bool, reset_after: bool | None,
            extra: list[str]) -> str:
        options = [f"units={units}" if draw(st.integers(0, 3)) == 0 else units]
        if not bias or draw(st.integers(0, 4)) == 0:
            options.append(f"use_bias={bias}")
        if reset_after is not None and (not reset_after or draw(st.integers(0, 3)) == 0):
            options.append(f"reset_after={reset_after}")
        return f"{cls(_KERAS_CELLS[cell])}({', '.join([*options, *extra])})"

    shape = "(4,)" if plan.vocab is not None else f"(4, {sizes.size(plan.width, 'features')})"
    chain: list[str] = []
    if plan.vocab is not None:
        chain.append(f"{cls('Embedding')}({sizes.size(plan.vocab, 'vocab_size')}, "
                     f"{sizes.size(plan.width, 'embed_dim')})")
    for index, (kind, value) in enumerate(plan.blocks):
        if kind == "rnn":
            cell, units, bias, reset_after, wrapper = value
            inner = rnn(cell, sizes.size(units, f"units{index}"), bias, reset_after,
                        ["return_sequences=True"])
            if wrapper is None:
                chain.append(inner)
            else:
                mode = "None" if wrapper == "none" else repr(wrapper)
                merge = "" if wrapper == "concat" and draw(st.booleans()) else \
                    f", merge_mode={mode}"
                chain.append(f"{cls('Bidirectional')}({inner}{merge})")
        elif kind == "dense":
            chain.append(f"{cls('Dense')}({sizes.size(value, f'dense{index}')})")
        elif kind == "td":
            chain.append(f"{cls('TimeDistributed')}({cls('Dense')}"
                         f"({sizes.size(value, f'dense{index}')}))")
        elif kind == "conv":
            chain.append(f"{cls('Conv1D')}({sizes.size(value, f'filters{index}')}, 2, "
                         "padding='same')")
        elif kind == "ln":
            chain.append(f"{cls('LayerNormalization')}()")
        else:
            chain.append(f"{cls('BatchNormalization')}()")
    lines: list[str] = []
    if plan.functional:
        assert plan.decoder is not None
        cell, units, width = plan.decoder
        size = sizes.size(units, "latent_dim")
        lines.append(f"encoder_inputs = {cls('Input')}(shape={shape})")
        tensor = "encoder_inputs"
        if chain and draw(st.booleans()):
            lines.append("x = encoder_inputs")
            tensor = "x"
        for layer in chain:
            lines.append(f"x = {layer}({tensor})")
            tensor = "x"
        encoder = rnn(cell, size, True, None, ["return_state=True"])
        states = "state_h, state_c" if cell is Cell.LSTM else "state_h"
        lines.append(f"_, {states} = {encoder}({tensor})")
        lines.append(f"decoder_inputs = {cls('Input')}(shape=(3, "
                     f"{sizes.size(width, 'decoder_features')}))")
        decoder = rnn(cell, size, True, None, ["return_sequences=True", "return_state=True"])
        if draw(st.booleans()):
            lines.append(f"decoded = {decoder}(decoder_inputs, initial_state=[{states}])[0]")
        else:
            lines.append(f"decoded, {', '.join('_' for _ in states.split(', '))} = "
                         f"{decoder}(decoder_inputs, initial_state=[{states}])")
        model = "tf.keras.Model" if imports == "tf.keras" else (
            "Model" if imports == "names" else "keras.Model")
        used.add("Model")
        lines.append(f"model = {model}([encoder_inputs, decoder_inputs], "
                     f"[{cls('Dense')}(2)(decoded), {cls('Dense')}(1)(state_h)])")
    else:
        sequential = "tf.keras.Sequential" if imports == "tf.keras" else (
            "Sequential" if imports == "names" else "keras.Sequential")
        used.add("Sequential")
        given = draw(st.sampled_from(["Input", "input_shape"]))
        if given == "input_shape" and not chain[0].endswith(")"):
            given = "Input"
        if given == "Input":
            chain.insert(0, f"{cls('Input')}(shape={shape})")
        else:
            comma = "" if chain[0].endswith("()") else ", "
            chain[0] = chain[0][:-1] + f"{comma}input_shape={shape})"
        if draw(st.booleans()):
            lines.append(f"model = {sequential}([")
            lines += [f"    {layer}," for layer in chain]
            lines.append("])")
        else:
            lines.append(f"model = {sequential}()")
            lines += [f"model.add({layer})" for layer in chain]
    head = {"tf.keras": "import tensorflow as tf\n",
            "keras": "import keras\n",
            "from-tf": "from tensorflow import keras\nfrom tensorflow.keras import layers\n",
            "names": _keras_names(used)}[imports]
    constants = [f"{name} = {value}" for name, value in sizes.constants]
    return "\n".join([head, *constants, *([""] if constants else []), *lines]) + "\n"


def _keras_names(used: set[str]) -> str:
    """``from keras.layers import ...`` (and ``from keras.models import ...``)."""
    layers = sorted(used - {"Model", "Sequential"})
    models = sorted(used & {"Model", "Sequential"})
    return (f"from keras.layers import {', '.join(layers)}\n"
            f"from keras.models import {', '.join(models)}\n")


def exec_keras(code: str) -> Any:
    """The model ``code`` builds: the module-level ``model``. The code is ours (generated by
    :func:`keras_code` in this test), not a user's paste, so running it is what makes it the
    oracle; ``paramcount read`` itself only ever parses it."""
    import keras

    keras.backend.clear_session()  # layer names numbered afresh: the summary is the same text
    namespace: dict[str, Any] = {"__name__": "generated_keras_code"}  # on every run
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(code, "<generated Keras code>", "exec"), namespace)  # ours, not a paste
    return namespace["model"]


def keras_truth(model: Any, plan: KerasPlan) -> Truth:
    """The truth of ``model`` (built by the generated code), asserted equal in specs, per-layer
    counts and total to :func:`tests.printers.build_keras`'s (names are Keras' own, numbered
    by its session, so they are the built model's)."""
    import keras

    from tests.printers import _keras_truth

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, truth = build_keras(keras, plan)
    recurrent = [layer for layer in _layers(model) if _recurrent(layer)]
    built = _keras_truth(model, recurrent)
    assert (built.specs, built.counts, built.total) == (truth.specs, truth.counts,
                                                        truth.total), (built, truth)
    return built


def _layers(model: Any) -> list[Any]:
    """The model's layers in order (Sequential and functional alike)."""
    return [layer for layer in model.layers if type(layer).__name__ != "InputLayer"]


def _recurrent(layer: Any) -> bool:
    """Whether a Keras layer is recurrent (Bidirectional included)."""
    return type(layer).__name__ in ("SimpleRNN", "GRU", "LSTM", "Bidirectional")


def keras_code_pastes(plan: KerasPlan, draw: Draw) -> list[Paste]:
    """The code paste of ``plan`` (label ``code (Keras)``) and the Keras 3 ``summary()`` of the
    model that executing it builds."""
    code = keras_code(plan, draw)
    model = exec_keras(code)
    truth = keras_truth(model, plan)
    with contextlib.redirect_stdout(io.StringIO()):
        summary = keras_text(model, 3)
    return [Paste(KERAS_CODE, code, truth), Paste("keras3", summary, truth)]


__all__ = ["KERAS_CODE", "TORCH_CODE", "code_pastes", "exec_keras", "exec_torch",
           "keras_code", "keras_code_pastes", "torch_code"]
