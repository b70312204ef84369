"""A whole model as one runnable ONNX graph: the file's layers run one after another.

A checkpoint holds weights, not the code that calls them, so the graph is the one model its
layers make when each reads the previous one's output, in the file's order, which is how
sequence models are usually written (and how torch orders a state dict: by module creation).
Between layers the tensor is [N, T, features]; convolutions and batch norms read it channels
first, recurrent layers time first, as ONNX's operators want. What the file cannot say is
assumed and listed (a convolution's padding and stride, a norm's epsilon), and a chain whose
widths do not connect is refused rather than guessed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from paramcount.engine.spec import Cell
from paramcount.errors import ParamcountError
from paramcount.porting.layouts import Side
from paramcount.porting.plan import ModulePlan, UnitPlan
from paramcount.porting.units import Kind, Unit, effective_eps, effective_momentum

Layer = ModulePlan | UnitPlan

Arrays = Iterable[tuple[str, Any]]
"""(target name, numpy array) pairs, made lazily."""


class ChainError(ParamcountError):
    """Layers that do not connect into one model."""


def widths(layer: Layer) -> tuple[int | None, int]:
    """What a layer reads and gives along its last axis (None: token ids)."""
    if isinstance(layer, ModulePlan):
        spec = layer.target.spec
        return spec.input_size, spec.directions * (spec.proj_size or spec.hidden_size)
    unit = layer.target
    weight = unit.canonical("weight") if "weight" in unit.roles else \
        unit.canonical("running_mean")
    if unit.kind is Kind.EMBEDDING:
        return None, weight[1]
    if unit.kind in (Kind.LINEAR, Kind.CONV):
        return weight[1], weight[0]
    return weight[0], weight[0]


def check_chain(layers: Sequence[Layer], suffix: str) -> list[str]:
    """ChainError where a layer does not read what the one before gives; else the assumptions
    (``suffix``: the written model's, ``.onnx`` or ``.keras``)."""
    assumed = [f"the {suffix} model runs the layers one after another in the file's order "
               "(input [N, T] token ids or [N, T, features], output [N, T, features]), its "
               "norms with the source's epsilon and momentum"]
    previous: Layer | None = None
    for layer in layers:
        reads, _ = widths(layer)
        if previous is not None and reads != widths(previous)[1]:
            raise ChainError(
                f"--out {suffix} builds the model the layers make in the file's order, and "
                f"{_where(layer)} reads {reads if reads is not None else 'token ids'} where "
                f"{_where(previous)} gives {widths(previous)[1]}: write .npz or .safetensors")
        if isinstance(layer, UnitPlan) and layer.target.kind is Kind.CONV:
            if layer.target.rank != 1:
                raise ChainError(f"--out {suffix}: {_where(layer)} is a {layer.target.rank}-D "
                                 "convolution; the graph runs sequences [N, T, features]: "
                                 "write .npz or .safetensors")
            assumed.append(f"{_where(layer)}: stride 1 and 'same' padding (k // 2), which the "
                           "file does not store")
        previous = layer
    return assumed


def _where(layer: Layer) -> str:
    return layer.source.prefix.rstrip("./") or "(top level)"


def chain_model(layers: Sequence[Layer], arrays: Any) -> Any:
    """The ONNX model: input ``X`` ([N, T] token ids or [N, T, F] floats), output ``Y``."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper


    values = dict(arrays)
    initializers = [numpy_helper.from_array(np.ascontiguousarray(a), n)
                    for n, a in values.items()]
    nodes: list[Any] = []
    first, _ = widths(layers[0])
    x_type = helper.make_tensor_value_info(
        "X", TensorProto.INT64 if first is None else TensorProto.FLOAT,
        ["N", "T"] if first is None else ["N", "T", first])
    current = "X"
    for index, layer in enumerate(layers):
        step = f"step{index}/"
        if isinstance(layer, ModulePlan):
            roles = {r.name[len(layer.target.prefix):]: r.name for r in layer.rows}
            nodes.append(helper.make_node("Transpose", [current], [step + "tnc"],
                                          perm=[1, 0, 2]))
            y, _ = recurrent_nodes(layer.target, roles, step + "tnc", nodes)
            nodes.append(helper.make_node("Transpose", [y], [step + "out"], perm=[1, 0, 2]))
        else:
            _unit_nodes(layer.target, effective_eps(layer.source), current, step, nodes)
        current = step + "out"
    nodes.append(helper.make_node("Identity", [current], ["Y"]))
    _, last = widths(layers[-1])
    y_type = helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["N", "T", last])
    graph = helper.make_graph(nodes, "paramcount_port", [x_type], [y_type], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 10
    onnx.checker.check_model(model, full_check=True)
    return model


def _unit_nodes(unit: Unit, eps: float, x: str, step: str, nodes: list[Any]) -> None:
    """The nodes of one common layer, reading ``x`` [N, T, F] and giving ``{step}out``; a norm
    with the source's ``eps``."""
    from onnx import helper

    roles = {role: name for role, name, _ in unit.tensors}
    out = step + "out"
    if unit.kind is Kind.EMBEDDING:
        nodes.append(helper.make_node("Gather", [roles["weight"], x], [out], axis=0))
    elif unit.kind is Kind.LINEAR:
        nodes.append(helper.make_node("Transpose", [roles["weight"]], [step + "w"],
                                      perm=[1, 0]))
        product = out if "bias" not in roles else step + "product"
        nodes.append(helper.make_node("MatMul", [x, step + "w"], [product]))
        if "bias" in roles:
            nodes.append(helper.make_node("Add", [product, roles["bias"]], [out]))
    elif unit.kind is Kind.NORM:
        inputs = [x, roles["weight"]] + ([roles["bias"]] if "bias" in roles else [])
        nodes.append(helper.make_node("LayerNormalization", inputs, [out], axis=-1,
                                      epsilon=eps))
    else:  # channels first for Conv and BatchNormalization, and back
        nodes.append(helper.make_node("Transpose", [x], [step + "nct"], perm=[0, 2, 1]))
        if unit.kind is Kind.CONV:
            k = unit.canonical("weight")[2]
            inputs = [step + "nct", roles["weight"]] + (
                [roles["bias"]] if "bias" in roles else [])
            nodes.append(helper.make_node("Conv", inputs, [step + "y"],
                                          pads=[k // 2, (k - 1) // 2]))
        else:
            nodes.append(helper.make_node(
                "BatchNormalization", [step + "nct", roles["weight"], roles["bias"],
                                       roles["running_mean"], roles["running_var"]],
                [step + "y"], epsilon=eps))
        nodes.append(helper.make_node("Transpose", [step + "y"], [out], perm=[0, 2, 1]))


def keras_model(layers: Sequence[Layer], arrays: Any) -> Any:
    """A Keras Sequential of the layers in the file's order, holding the ported weights (each
    assigned as it comes, so that no more than one array is held beside the model)."""
    from paramcount.verify.keras_backend import load

    keras = load()
    keras.backend.clear_session()
    first, _ = widths(layers[0])
    made: list[tuple[Any, list[str]]] = []
    for layer in layers:
        made += _keras_layers(keras, layer)
    with _made_as_zeros(keras, [k for k, _ in made]):
        model = keras.Sequential(
            [keras.Input((None,), dtype="int32") if first is None else
             keras.Input((None, first)), *(k for k, _ in made)])
    variables = {name: variable for built, names in made
                 for variable, name in zip(built.weights, names, strict=True)}
    from paramcount.porting.variables import assign_array

    for name, array in arrays:
        assign_array(variables.pop(name), array)
    if variables:
        raise AssertionError(f"nothing was ported to {', '.join(variables)}")
    return model


@contextlib.contextmanager
def _made_as_zeros(keras: Any, layers: list[Any]) -> Iterator[None]:
    """Within: ``layers`` (and the layers and cells they hold) make their variables as zeros,
    which the ported values then replace; after, their own initialisers are back, so that the
    saved configuration is theirs. (A random initialisation would be thrown away, and in
    TensorFlow costs about half the weights' size in memory that stays taken.)"""
    swapped: list[tuple[Any, str, Any]] = []
    seen: set[int] = set()
    stack = list(layers)
    while stack:
        layer = stack.pop()
        if id(layer) in seen:
            continue
        seen.add(id(layer))
        for name, value in list(vars(layer).items()):
            if name.endswith("initializer") and isinstance(value,
                                                           keras.initializers.Initializer):
                swapped.append((layer, name, value))
                setattr(layer, name, keras.initializers.Zeros())
            elif isinstance(value, keras.layers.Layer):
                stack.append(value)
    try:
        yield
    finally:
        for layer, name, value in swapped:
            setattr(layer, name, value)


def _name(prefix: str, index: int | None = None) -> str:
    base = prefix.strip("/").replace("/", "_") or "layer"
    return base if index is None else f"{base}_{index}"


def _keras_layers(keras: Any, layer: Layer) -> list[tuple[Any, list[str]]]:
    """The Keras layers of one planned layer, each with the names of its weights, in order."""
    from paramcount.engine import conventions
    from paramcount.engine.spec import Cell, MergeMode

    made: list[tuple[Any, list[str]]] = []
    if isinstance(layer, UnitPlan):
        unit = layer.target
        roles = unit.roles
        names = [name for _, name, _ in unit.tensors]
        eps = effective_eps(layer.source)
        weight = unit.canonical("weight") if "weight" in roles else ()
        if unit.kind is Kind.EMBEDDING:
            built = keras.layers.Embedding(weight[0], weight[1], name=_name(unit.prefix))
        elif unit.kind is Kind.LINEAR:
            built = keras.layers.Dense(weight[0], use_bias="bias" in roles,
                                       name=_name(unit.prefix))
        elif unit.kind is Kind.CONV:
            built = keras.layers.Conv1D(weight[0], weight[2], padding="same",
                                        use_bias="bias" in roles, name=_name(unit.prefix))
        elif unit.kind is Kind.BATCHNORM:
            built = keras.layers.BatchNormalization(
                epsilon=eps, momentum=1 - effective_momentum(layer.source), scale="weight" in roles,
                center="bias" in roles, name=_name(unit.prefix))
        else:
            built = keras.layers.LayerNormalization(epsilon=eps, scale="weight" in roles,
                                                    center="bias" in roles,
                                                    name=_name(unit.prefix))
        return [(built, names)]
    side = layer.target
    spec = side.spec
    kind = {Cell.RNN: "SimpleRNN", Cell.LSTM: "LSTM", Cell.GRU: "GRU"}[spec.cell]
    options: dict[str, Any] = {"use_bias": spec.bias, "return_sequences": True}
    if spec.cell is Cell.GRU:
        options["reset_after"] = bool(spec.reset_after)
    if spec.cell is Cell.RNN and spec.nonlinearity is not None:
        options["activation"] = spec.nonlinearity.value
    tensors = conventions.tensors(spec)
    modes = spec.merge_modes or (MergeMode.CONCAT,)
    for index in range(spec.num_layers):
        names = [side.name(t) for t in tensors if t.layer == index]
        name = _name(side.prefix, index if spec.num_layers > 1 else None)
        named = {} if spec.bidirectional else {"name": name}
        built = getattr(keras.layers, kind)(spec.hidden_size, **options, **named)
        if spec.bidirectional:
            mode = modes[min(index, len(modes) - 1)]
            built = keras.layers.Bidirectional(
                built, merge_mode=None if mode is MergeMode.NONE else mode.value, name=name)
        made.append((built, names))
    return made


OPSET = 22
_OP = {Cell.RNN: "RNN", Cell.LSTM: "LSTM", Cell.GRU: "GRU"}


def onnx_model(
    modules: list[tuple[Side, dict[str, str]]], arrays: Arrays, states: bool = False
) -> Any:
    """A runnable ONNX model: per module, input ``X`` [T, N, I] and one node per layer.

    Outputs are ``Y`` [T, N, D·H] (the last layer's, directions side by side), ``Y_h`` and
    (LSTM) ``Y_c`` [L·D, N, H] ordered like torch's h_n. With ``states``, each module also takes
    ``initial_h`` and ``initial_c`` [L·D, N, H] (to verify with non-zero initial states).
    One module's inputs and outputs are named so, whatever its prefix; several modules' take
    their module's prefix (``encoder/X``, ``decoder/X``), which keeps them apart. Each module is
    its side and a map from the convention's names (``layer0/W``) to the arrays' names.
    """
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    values = dict(arrays)
    initializers = [numpy_helper.from_array(np.ascontiguousarray(a, dtype=np.float32), n)
                    for n, a in values.items()]
    nodes: list[Any] = []
    inputs: list[Any] = []
    outputs: list[Any] = []
    for side, roles in modules:
        spec, prefix = side.spec, side.prefix
        d, h, n_layers = spec.directions, spec.hidden_size, spec.num_layers
        lstm = spec.cell is Cell.LSTM
        outer = prefix if len(modules) > 1 else ""

        def name(text: str, prefix: str = outer) -> str:
            return prefix + text

        dtype = TensorProto.FLOAT
        inputs.append(helper.make_tensor_value_info(name("X"), dtype, ["T", "N",
                                                                       spec.input_size]))
        state_names = ["initial_h", "initial_c"] if lstm else ["initial_h"]
        if states:
            inputs += [helper.make_tensor_value_info(name(s), dtype, [n_layers * d, "N", h])
                       for s in state_names]
        current, finals = recurrent_nodes(side, roles, name("X"), nodes, states, outer)
        if current != name("Y"):
            nodes.append(helper.make_node("Identity", [current], [name("Y")]))
        outputs.append(helper.make_tensor_value_info(name("Y"), dtype, ["T", "N", d * h]))
        for final, parts in finals.items():
            if parts:
                nodes.append(helper.make_node("Concat", parts, [name(final)], axis=0))
                outputs.append(helper.make_tensor_value_info(name(final), dtype,
                                                             [n_layers * d, "N", h]))
    graph = helper.make_graph(nodes, "paramcount_port", inputs, outputs, initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 10
    onnx.checker.check_model(model, full_check=True)
    return model


def recurrent_nodes(side: Side, roles: dict[str, str], x: str, nodes: list[Any],
                    states: bool = False, outer: str | None = None
                    ) -> tuple[str, dict[str, list[str]]]:
    """One recurrent node per layer of ``side`` reading ``x`` [T, N, I], appended to ``nodes``.

    Returns the output's name ([T, N, D·H]) and each layer's final states' names (``Y_h``,
    ``Y_c``); with ``states`` each layer reads its slice of ``initial_h`` / ``initial_c``
    (under the prefix ``outer``, the side's own when None).
    """
    from onnx import helper

    spec, prefix = side.spec, side.prefix
    d, h, n_layers = spec.directions, spec.hidden_size, spec.num_layers
    lstm = spec.cell is Cell.LSTM
    state_names = ["initial_h", "initial_c"] if lstm else ["initial_h"]

    def name(text: str) -> str:
        return prefix + text

    current = x
    finals: dict[str, list[str]] = {"Y_h": [], "Y_c": []}
    for layer in range(n_layers):
        node_inputs = [current, roles[f"layer{layer}/W"], roles[f"layer{layer}/R"],
                       roles.get(f"layer{layer}/B", ""), ""]
        if states:
            for state in state_names:
                sliced = name(f"{state}{layer}")
                given = (side.prefix if outer is None else outer) + state
                nodes.append(helper.make_node(
                    "Slice", [given, _const(nodes, sliced + "_start", [layer * d]),
                              _const(nodes, sliced + "_stop", [(layer + 1) * d]),
                              _const(nodes, sliced + "_axis", [0])], [sliced]))
                node_inputs.append(sliced)
        else:
            node_inputs += [""] * len(state_names)
        if f"layer{layer}/P" in roles:
            node_inputs += [roles[f"layer{layer}/P"]] if lstm else []
        while node_inputs and not node_inputs[-1]:
            node_inputs.pop()
        attributes: dict[str, Any] = {"hidden_size": h}
        if spec.bidirectional:
            attributes["direction"] = "bidirectional"
        if spec.cell is Cell.RNN and spec.nonlinearity is not None:
            attributes["activations"] = [spec.nonlinearity.value.capitalize()] * d
        if spec.cell is Cell.GRU and side.reset_after:
            attributes["linear_before_reset"] = 1
        y = name(f"Y{layer}")
        node_outputs = [y, name(f"Y_h{layer}")] + ([name(f"Y_c{layer}")] if lstm else [])
        finals["Y_h"].append(name(f"Y_h{layer}"))
        if lstm:
            finals["Y_c"].append(name(f"Y_c{layer}"))
        nodes.append(helper.make_node(_OP[spec.cell], node_inputs, node_outputs,
                                      name=name(f"layer{layer}"), **attributes))
        # Y [T, D, N, H] -> [T, N, D, H] -> [T, N, D·H], what the next layer reads.
        nodes.append(helper.make_node("Transpose", [y], [y + "t"], perm=[0, 2, 1, 3]))
        current = name("Y") if layer == n_layers - 1 else name(f"H{layer}")
        nodes.append(helper.make_node(
            "Reshape", [y + "t", _const(nodes, name(f"shape{layer}"), [0, 0, -1])],
            [current]))
    return current, finals


def _const(nodes: list[Any], name: str, values: list[int]) -> str:
    import numpy as np
    from onnx import helper, numpy_helper

    nodes.append(helper.make_node("Constant", [], [name], value=numpy_helper.from_array(
        np.array(values, dtype=np.int64), name)))
    return name
