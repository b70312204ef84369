"""Check the ONNX convention against the real onnx package, two independent ways.

:func:`graph_tensors` builds the stack as an ONNX graph with ``onnx.helper`` — one operator node
per layer, its weights as initializers with paramcount's names and shapes — checks it with
``onnx.checker`` and runs it with ``onnx.reference.ReferenceEvaluator``: a wrong width makes the
operator's matmuls fail, and the output must be [T, N, D·H]. :func:`torch_export_tensors`
exports the same layer from PyTorch with ``torch.onnx.export`` and reads back the initializers
that feed each node's W, R and B inputs (the exporter's own names are numbered,
``onnx::LSTM_376``, so they are reported under paramcount's ``layer{l}/W`` names).

:func:`version` and :func:`tensors` make this module the ``--verify`` backend of ``-f onnx``
(registered in ``paramcount.verify``). Imports of onnx, numpy and torch happen inside the
functions, only when called.
"""

from __future__ import annotations

import importlib.util
import io
import warnings
from typing import Any

from paramcount.engine import conventions
from paramcount.engine.spec import Cell, Framework, LayerSpec
from paramcount.errors import BackendUnavailable, ConfigError, SpecError

Named = list[tuple[str, tuple[int, ...]]]
"""(name, shape) pairs, in the order the graph holds them."""

OPSET = 22
_OP = {Cell.RNN: "RNN", Cell.LSTM: "LSTM", Cell.GRU: "GRU"}
_ROLES = ("W", "R", "B")
_STEPS = 2


def _require(module: str, extra: str) -> Any:
    try:
        return __import__(module)
    except ImportError:
        raise BackendUnavailable(module, extra) from None


def _onnx_spec(spec: LayerSpec) -> LayerSpec:
    if spec.framework is not Framework.ONNX:
        spec = spec.replace(framework=Framework.ONNX)
    return spec


def build_model(spec: LayerSpec) -> Any:
    """An ONNX model of the stack whose initializers are paramcount's tensors (zeros)."""
    onnx = _require("onnx", "onnx")
    np = _require("numpy", "onnx")
    from onnx import TensorProto, helper, numpy_helper

    spec = _onnx_spec(spec)
    d, h = spec.directions, spec.hidden_size
    tensors = conventions.tensors(spec)
    initializers = [
        numpy_helper.from_array(np.zeros(t.shape, dtype=np.float32), t.name) for t in tensors
    ]
    nodes = []
    current = "X"
    for layer in range(spec.num_layers):
        names = {t.role: t.name for t in tensors if t.layer == layer}
        # B and P are where they must be exactly when the config asks for them; a missing or
        # extra one is a KeyError or an AssertionError, reported as a mismatch.
        if not spec.bias and "B" in names:
            raise AssertionError(f"layer {layer} has a B initializer although bias is off")
        inputs = [current, names["W"], names["R"], names["B"] if spec.bias else ""]
        if spec.peepholes:
            inputs += ["", "", "", names["P"]]
        attributes: dict[str, Any] = {"hidden_size": h}
        if spec.bidirectional:
            attributes["direction"] = "bidirectional"
        # activations=['Relu'] would not change the count, and the reference evaluator runs
        # only the default Tanh, so the graph keeps the default.
        y = f"Y{layer}"
        nodes.append(helper.make_node(_OP[spec.cell], inputs, [y], **attributes))
        # Y [T, D, N, H] -> [T, N, D, H] -> [T, N, D·H], as exporters do between layers.
        nodes.append(helper.make_node("Transpose", [y], [f"{y}t"], perm=[0, 2, 1, 3]))
        nodes.append(helper.make_node(
            "Constant", [], [f"{y}shape"],
            value=numpy_helper.from_array(np.array([0, 0, -1], dtype=np.int64)),
        ))
        current = f"H{layer}"
        nodes.append(helper.make_node("Reshape", [f"{y}t", f"{y}shape"], [current]))
    graph = helper.make_graph(
        nodes,
        "paramcount",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [_STEPS, 1, spec.input_size])],
        [helper.make_tensor_value_info(current, TensorProto.FLOAT, [_STEPS, 1, d * h])],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    onnx.checker.check_model(model, full_check=True)
    return model


def version() -> str:
    """The installed onnx version, e.g. ``1.23.2``."""
    return str(_require("onnx", "onnx").__version__)


VERIFY_LIMIT = 50_000_000
"""The largest stack verified: ONNX graphs hold real arrays (the rules do not depend on size)."""


def tensors(spec: LayerSpec) -> Named:
    """The ``--verify`` backend: what ONNX itself says the layer's inputs are.

    The graph built from paramcount's tensors is checked and run (every shape must fit the
    operator). Names, order and which optional inputs exist then come from outside paramcount:
    from what ``torch.onnx.export`` writes when torch is installed and there are no peepholes,
    otherwise from the operator schema's input names at each position.
    """
    spec = _onnx_spec(spec)
    total = sum(t.count for t in conventions.tensors(spec))
    if total > VERIFY_LIMIT:
        raise ConfigError(
            f"verifying ONNX builds real weights, and this stack has {total:,} parameters "
            f"(the limit is {VERIFY_LIMIT:,}); verify a smaller one, the rules do not depend "
            "on size, or pick other frameworks with --framework"
        )
    model = build_model(spec)
    run_graph(spec, model)
    if not spec.peepholes and importlib.util.find_spec("torch") is not None:
        return torch_export_tensors(spec)
    return schema_tensors(spec, model)


def schema_tensors(spec: LayerSpec, model: Any) -> Named:
    """Each layer node's initializers, named by the ONNX operator schema's input names."""
    from onnx import defs

    inputs = [i.name for i in defs.get_schema(_OP[spec.cell], OPSET).inputs]
    dims = dict(initializer_tensors(model))
    recurrent = [n for n in model.graph.node if n.op_type == _OP[spec.cell]]
    return [
        (f"layer{layer}/{inputs[position]}", dims[name])
        for layer, node in enumerate(recurrent)
        for position, name in enumerate(node.input)
        if name in dims
    ]


def initializer_tensors(model: Any) -> Named:
    """Every initializer of ``model``: its name and dims."""
    return [(i.name, tuple(int(n) for n in i.dims)) for i in model.graph.initializer]


def graph_tensors(spec: LayerSpec) -> Named:
    """Build, check and run the stack in ONNX; return its initializers."""
    spec = _onnx_spec(spec)
    model = build_model(spec)
    run_graph(spec, model)
    return initializer_tensors(model)


def run_graph(spec: LayerSpec, model: Any) -> None:
    """Run ``model`` with onnx.reference: every weight must fit its operator, and Y be D·H wide."""
    np = _require("numpy", "onnx")
    from onnx.reference import ReferenceEvaluator

    x = np.zeros((_STEPS, 1, spec.input_size), dtype=np.float32)
    outputs: Any = ReferenceEvaluator(model).run(None, {"X": x})
    y = outputs[0]
    expected = (_STEPS, 1, spec.directions * spec.hidden_size)
    if tuple(y.shape) != expected:
        raise AssertionError(f"ONNX output {tuple(y.shape)} is not {expected}")


def torch_export_tensors(spec: LayerSpec) -> Named:
    """Export the same torch layer with torch.onnx.export; its W/R/B initializers, renamed."""
    onnx = _require("onnx", "onnx")
    torch = _require("torch", "torch")
    spec = _onnx_spec(spec)
    if spec.peepholes:
        raise SpecError("{peepholes}: torch layers have no peepholes to export", peepholes=True)
    layer_class = getattr(torch.nn, _OP[spec.cell])
    kwargs: dict[str, Any] = {
        "num_layers": spec.num_layers,
        "bidirectional": spec.bidirectional,
        "bias": spec.bias,
    }
    if spec.cell is Cell.RNN and spec.nonlinearity is not None:
        kwargs["nonlinearity"] = spec.nonlinearity.value
    module = layer_class(spec.input_size, spec.hidden_size, **kwargs)
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            module, (torch.zeros(_STEPS, 1, spec.input_size),), buffer, dynamo=False
        )
    model = onnx.load_from_string(buffer.getvalue())
    dims = dict(initializer_tensors(model))
    out: Named = []
    recurrent = [n for n in model.graph.node if n.op_type == _OP[spec.cell]]
    for layer, node in enumerate(recurrent):
        for role, name in zip(_ROLES, list(node.input)[1:4], strict=True):
            if name:
                out.append((f"layer{layer}/{role}", dims[name]))
    return out
