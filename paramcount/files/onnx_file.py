"""ONNX model files, read as protobuf wire format without loading a single weight.

A small walker over the wire format (no dependency: the ``onnx`` package is not needed) reads
``ModelProto`` → ``GraphProto`` → initializers (name, dims, data type) and nodes (op type,
inputs, attributes), and follows graph attributes into ``If`` / ``Loop`` / ``Scan`` subgraphs.
Tensor data (``raw_data``, ``float_data``, ...) is skipped by its length, never copied: the file
is memory-mapped, so a large model costs the pages of its headers only. Every length is
checked against its enclosing message, varints are at most 10 bytes, and subgraphs nest at most
:data:`MAX_DEPTH` levels, so a truncated or hostile file is refused with one line.

What is counted: every floating initializer (main graph and subgraphs, sparse ones by their
stored values) and every floating ``Constant`` node holding more than one element (exporters
inline weights that way, inside subgraphs too); integer initializers only where they are the
weights of a quantized operator (``DequantizeLinear``, ``MatMulInteger``, ``QLinearConv``,
onnxruntime's ``DynamicQuantizeLSTM`` and ``QGemm``, ...), whose scales and zero points are
listed apart as constants.
Initializers and Constants fed to a recurrent operator's ``initial_h`` / ``initial_c`` are
stored initial states (an exporter's zeros), no parameter in any framework: they are listed
apart as the listing's ``constants``, outside the total. ``LSTM`` / ``GRU`` / ``RNN`` nodes are
recognised from their W, R, B and P inputs and attributes; a chain of them joined by reshapes
(as exporters write a stacked layer) becomes one multi-layer spec in the ONNX convention.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Iterator
from dataclasses import dataclass, field

from paramcount.engine.conventions.base import Recognised
from paramcount.engine.spec import Cell, Framework, LayerSpec, Nonlinearity
from paramcount.errors import ParamcountError, SpecError
from paramcount.files.limits import bounded, shown_name
from paramcount.files.listing import Listing, NamedTensor

MAX_DEPTH = 32
"""How deeply subgraphs (``If`` branches inside ``Loop`` bodies ...) may nest."""

# TensorProto.DataType -> numpy's spelling (ml_dtypes' for the small floats).
DTYPES = {
    1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64",
    8: "string", 9: "bool", 10: "float16", 11: "float64", 12: "uint32", 13: "uint64",
    14: "complex64", 15: "complex128", 16: "bfloat16", 17: "float8_e4m3fn",
    18: "float8_e4m3fnuz", 19: "float8_e5m2", 20: "float8_e5m2fnuz", 21: "uint4", 22: "int4",
    23: "float4_e2m1fn", 24: "float8_e8m0fnu", 25: "uint2", 26: "int2", 27: "float6_e2m3fn",
    28: "float6_e3m2fn",
}
FLOATING = frozenset({1, 10, 11, 16, 17, 18, 19, 20, 23, 24, 27, 28})
"""The floating data types: their initializers and Constants are weights."""

# Operators whose integer inputs at these positions are quantized weights (QLinearConv's
# int32 bias too), and those of their quantization parameters: scales and zero points.
_QUANTIZED_INPUTS = {
    "DequantizeLinear": (0,),
    "MatMulInteger": (0, 1),
    "ConvInteger": (0, 1),
    "QLinearMatMul": (0, 3),
    "QLinearConv": (0, 3, 8),
    "DynamicQuantizeLSTM": (1, 2),
    "DynamicQuantizeMatMul": (1,),
    "MatMulIntegerToFloat": (1,),
    "QGemm": (0, 3, 6),
}
_QUANTIZATION = {
    "DequantizeLinear": (1, 2),
    "QuantizeLinear": (1, 2),
    "MatMulInteger": (2, 3),
    "ConvInteger": (2, 3),
    "QLinearMatMul": (1, 2, 4, 5, 6, 7),
    "QLinearConv": (1, 2, 4, 5, 6, 7),
    "DynamicQuantizeLSTM": (8, 9, 10, 11),
    "DynamicQuantizeMatMul": (2, 3),
    "MatMulIntegerToFloat": (2, 3, 4, 5),
    "QGemm": (1, 2, 4, 5, 7, 8),
}
_SUFFIXES = ("_scale", "_zero_point")
"""onnxruntime's quantizer names a weight's parameters after it: ``W_quantized`` has
``W_scale`` and ``W_zero_point`` (which may feed a Mul rather than the operator)."""
_RECURRENT = {"RNN": Cell.RNN, "GRU": Cell.GRU, "LSTM": Cell.LSTM}
_QUANTIZED_LSTM = "DynamicQuantizeLSTM"
"""onnxruntime's (com.microsoft) LSTM with 8-bit W and R, stored transposed."""
# Operators an exporter puts between two recurrent nodes of one stack (Y [T, D, N, H] is
# transposed and reshaped to [T, N, D·H]); following them joins the nodes into one stack.
_RESHAPING = frozenset({
    "Transpose", "Reshape", "Squeeze", "Unsqueeze", "Identity", "Dropout", "Cast", "Flatten",
})
_STATE_PATH = _RESHAPING | {"Expand", "Tile"}
_WIRE_NAMES = {0: "varint", 1: "64-bit", 2: "length-delimited", 5: "32-bit"}


class _Invalid(Exception):
    """The wire format is broken at some byte: turned into one ParamcountError by ``read``."""


@dataclass
class _Tensor:
    """A TensorProto's header: everything but its data."""

    name: str = ""
    dims: list[int] = field(default_factory=list)
    data_type: int = 0
    external: str | None = None
    """The external file holding the data, when ``data_location`` is EXTERNAL."""


@dataclass
class _Attribute:
    name: str = ""
    type: int = 0
    i: int | None = None
    s: bytes | None = None
    t: _Tensor | None = None
    floats: int = 0
    """How many values ``floats`` holds (the values themselves are not read)."""
    strings: list[bytes] = field(default_factory=list)
    graphs: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class _Node:
    op_type: str = ""
    domain: str = ""
    name: str = ""
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    attributes: dict[str, _Attribute] = field(default_factory=dict)


@dataclass(frozen=True)
class _Place:
    """Where a subgraph sits: the attribute of a node of its parent graph (each subgraph keeps
    one short label and a reference, so memory per subgraph stays the same at any depth)."""

    parent: _Place | None
    label: str

    def text(self, inner: int = 2) -> str:
        """``If 'a' then_branch > Loop 'b' body``: at most the outermost and the ``inner``
        innermost levels, the rest elided."""
        levels = []
        place: _Place | None = self
        while place is not None:
            levels.append(place.label)
            place = place.parent
        levels.reverse()
        if len(levels) > inner + 1:
            levels = [levels[0], f"… {len(levels) - inner - 1:,} more …", *levels[-inner:]]
        return " > ".join(levels)


@dataclass
class _Graph:
    """A graph's nodes and initializers; ``where`` says which subgraph it is, None for the
    main graph."""

    where: _Place | None
    nodes: list[_Node] = field(default_factory=list)
    initializers: list[_Tensor] = field(default_factory=list)
    sparse: list[tuple[_Tensor, list[int]]] = field(default_factory=list)
    """Sparse initializers: (values tensor, dense dims)."""


class _Wire:
    """Reads protobuf fields from a buffer, checking every length against its message."""

    def __init__(self, data: mmap.mmap | bytes, size: int) -> None:
        self.data, self.size = data, size

    def varint(self, pos: int, end: int) -> tuple[int, int]:
        """The unsigned varint at ``pos`` and the position after it."""
        result = shift = 0
        for index in range(10):
            if pos + index >= end:
                raise _Invalid(f"a number at byte {pos} runs past the end of its message")
            byte = self.data[pos + index]
            result |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return result, pos + index + 1
            shift += 7
        raise _Invalid(f"a number at byte {pos} is longer than 10 bytes (varint overflow)")

    def fields(self, start: int, end: int) -> Iterator[tuple[int, int, int, int]]:
        """(field number, wire type, value or start, end) for each field in [start, end).

        For a varint the value is the number (and end is unused); for a length-delimited field
        it is the start of its bytes and ``end`` their end; fixed fields give their position.
        """
        pos = start
        while pos < end:
            key, pos = self.varint(pos, end)
            number, wire = key >> 3, key & 7
            if number == 0:
                raise _Invalid(f"field number 0 at byte {pos}")
            if wire == 0:
                value, pos = self.varint(pos, end)
                yield number, wire, value, pos
            elif wire == 2:
                length, pos = self.varint(pos, end)
                if length > end - pos:
                    where = "the file (truncated?)" if end == self.size else "its message"
                    raise _Invalid(
                        f"field {number} at byte {pos} declares {length:,} bytes, past the end "
                        f"of {where}: {end - pos:,} bytes left"
                    )
                yield number, wire, pos, pos + length
                pos += length
            elif wire in (1, 5):
                size = 8 if wire == 1 else 4
                if size > end - pos:
                    raise _Invalid(f"field {number} at byte {pos} runs past the end")
                yield number, wire, pos, pos + size
                pos += size
            else:
                raise _Invalid(f"wire type {wire} (protobuf groups) at byte {pos}, which ONNX "
                               "never writes")

    def text(self, start: int, end: int) -> str:
        """A string field's bytes, decoded (undecodable bytes replaced)."""
        return bytes(self.data[start:end]).decode("utf-8", "replace")

    def varints(self, wire: int, value: int, end: int) -> list[int]:
        """A repeated int64 field: one varint, or a packed run of them; as signed values."""
        if wire == 0:
            return [_signed(value)]
        out, pos = [], value
        while pos < end:
            number, pos = self.varint(pos, end)
            out.append(_signed(number))
        return out


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _expect(number: int, wire: int, wanted: int, what: str) -> None:
    if wire != wanted:
        raise _Invalid(
            f"{what} (field {number}) is {_WIRE_NAMES.get(wire, str(wire))}, expected "
            f"{_WIRE_NAMES[wanted]}"
        )


class _Walker:
    """Walks a ModelProto into graphs (main and sub), collecting tensor headers and nodes."""

    def __init__(self, wire: _Wire) -> None:
        self.wire = wire
        self.graphs: list[_Graph] = []
        self.functions: list[_Graph] = []
        self.producer = ""
        self.ir_version: int | None = None

    def model(self, end: int) -> None:
        """Read the ModelProto spanning the whole buffer."""
        main: tuple[int, int] | None = None
        functions = []
        for number, wire, value, stop in self.wire.fields(0, end):
            if number == 1:
                _expect(number, wire, 0, "ir_version")
                self.ir_version = value
            elif number == 2:
                _expect(number, wire, 2, "producer_name")
                self.producer = self.wire.text(value, stop)
            elif number == 7:
                _expect(number, wire, 2, "graph")
                main = (value, stop)
            elif number == 25:
                _expect(number, wire, 2, "functions")
                functions.append((value, stop))
        if self.ir_version is None or main is None:
            missing = "ir_version" if self.ir_version is None else "graph"
            raise _Invalid(f"no {missing} field: not an ONNX ModelProto")
        self.graph(*main, depth=0, where=None)
        for start, stop in functions:
            self.function(start, stop)

    def graph(self, start: int, end: int, depth: int, where: _Place | None) -> None:
        """Read a GraphProto and, through node attributes, its subgraphs."""
        if depth > MAX_DEPTH:
            raise _Invalid(f"subgraphs nest deeper than {MAX_DEPTH} levels "
                           f"({where.text(1) if where else 'the main graph'})")
        found = _Graph(where)
        self.graphs.append(found)
        for number, wire, value, stop in self.wire.fields(start, end):
            if number == 1:
                _expect(number, wire, 2, "node")
                found.nodes.append(self.node(value, stop, depth, where))
            elif number == 5:
                _expect(number, wire, 2, "initializer")
                found.initializers.append(self.tensor(value, stop))
            elif number == 15:
                _expect(number, wire, 2, "sparse_initializer")
                found.sparse.append(self.sparse(value, stop))

    def function(self, start: int, end: int) -> None:
        """Read a model-local FunctionProto's nodes (for their Constants)."""
        found = _Graph(_Place(None, "a function"))
        for number, wire, value, stop in self.wire.fields(start, end):
            if number == 1 and wire == 2:
                name = shown_name(self.wire.text(value, min(stop, value + 200)))[:40]
                found.where = _Place(None, f"function '{name}'")
            elif number == 7:
                _expect(number, wire, 2, "node")
                found.nodes.append(self.node(value, stop, 1, found.where))
        self.functions.append(found)

    def node(self, start: int, end: int, depth: int, where: _Place | None) -> _Node:
        """Read a NodeProto, following graph attributes one level deeper."""
        node = _Node()
        attributes = []
        for number, wire, value, stop in self.wire.fields(start, end):
            if number in (1, 2, 3, 4, 7):
                _expect(number, wire, 2, "a node's string field")
                text = self.wire.text(value, stop)
                if number == 1:
                    node.inputs.append(text)
                elif number == 2:
                    node.outputs.append(text)
                elif number == 3:
                    node.name = text
                elif number == 4:
                    node.op_type = text
                else:
                    node.domain = text
            elif number == 5:
                _expect(number, wire, 2, "attribute")
                attributes.append((value, stop))
        label = shown_name(node.name or node.op_type)[:40]
        for value, stop in attributes:
            attribute = self.attribute(value, stop)
            node.attributes[attribute.name] = attribute
            for index, (g_start, g_end) in enumerate(attribute.graphs):
                suffix = f"[{index}]" if len(attribute.graphs) > 1 else ""
                place = _Place(where, f"{shown_name(node.op_type)[:40]} '{label}' "
                                      f"{shown_name(attribute.name)[:40]}{suffix}")
                self.graph(g_start, g_end, depth + 1, place)
            attribute.graphs = []  # read: their spans are not kept
        return node

    def attribute(self, start: int, end: int) -> _Attribute:
        """Read an AttributeProto: scalars, a tensor header, float count, graph spans."""
        attribute = _Attribute()
        for number, wire, value, stop in self.wire.fields(start, end):
            if number == 1:
                _expect(number, wire, 2, "attribute name")
                attribute.name = self.wire.text(value, stop)
            elif number == 20:
                _expect(number, wire, 0, "attribute type")
                attribute.type = value
            elif number == 3:
                _expect(number, wire, 0, "attribute i")
                attribute.i = _signed(value)
            elif number == 4:
                _expect(number, wire, 2, "attribute s")
                if stop - value <= 256:  # only short strings (direction) are ever read
                    attribute.s = bytes(self.wire.data[value:stop])
            elif number == 5:
                _expect(number, wire, 2, "attribute t")
                attribute.t = self.tensor(value, stop)
            elif number == 7:
                attribute.floats += (stop - value) // 4 if wire == 2 else 1
            elif number == 9:
                _expect(number, wire, 2, "attribute strings")
                if stop - value <= 64 and len(attribute.strings) < 16:  # activations
                    attribute.strings.append(bytes(self.wire.data[value:stop]))
            elif number in (6, 11):
                _expect(number, wire, 2, "attribute graph")
                attribute.graphs.append((value, stop))
        return attribute

    def tensor(self, start: int, end: int) -> _Tensor:
        """Read a TensorProto's name, dims, type and data location, skipping its data."""
        tensor = _Tensor()
        location = ""
        external = False
        for number, wire, value, stop in self.wire.fields(start, end):
            if number == 1:
                tensor.dims += self.wire.varints(wire, value, stop)
            elif number == 2:
                _expect(number, wire, 0, "data_type")
                tensor.data_type = value
            elif number == 8:
                _expect(number, wire, 2, "tensor name")
                tensor.name = self.wire.text(value, stop)
            elif number == 14:
                _expect(number, wire, 0, "data_location")
                external = value == 1
            elif number == 13:
                _expect(number, wire, 2, "external_data")
                key, text = self.entry(value, stop)
                if key == "location":
                    location = text
        if any(d < 0 for d in tensor.dims):
            raise _Invalid(f"tensor '{shown_name(tensor.name)}' has a negative dimension "
                           f"{tensor.dims[:8]}")
        if not bounded(_product(tensor.dims)):
            raise _Invalid(f"tensor '{shown_name(tensor.name)}' has {len(tensor.dims):,} dims "
                           "holding more than 2^63 − 1 elements")
        if external:
            tensor.external = location or "?"
        return tensor

    def sparse(self, start: int, end: int) -> tuple[_Tensor, list[int]]:
        """Read a SparseTensorProto: its values tensor and its dense dims."""
        values, dims = _Tensor(), []
        for number, wire, value, stop in self.wire.fields(start, end):
            if number == 1:
                _expect(number, wire, 2, "sparse values")
                values = self.tensor(value, stop)
            elif number == 3:
                dims += self.wire.varints(wire, value, stop)
        return values, dims

    def entry(self, start: int, end: int) -> tuple[str, str]:
        """A StringStringEntryProto's key and value."""
        key = text = ""
        for number, wire, value, stop in self.wire.fields(start, end):
            if wire == 2 and number in (1, 2):
                if number == 1:
                    key = self.wire.text(value, stop)
                else:
                    text = self.wire.text(value, stop)
        return key, text


def read(path: str | os.PathLike[str]) -> Listing:
    """The weights of an ONNX model file and the recurrent operators among its nodes.

    Raises ParamcountError (exit 2) with one line naming the file for a path that cannot be
    read and for anything that is not a well-formed ONNX ModelProto.
    """
    source = os.fspath(path)
    walker = _walk(source)
    return _listing(source, walker)


def _walk(source: str) -> _Walker:
    try:
        if os.path.exists(source) and not os.path.isdir(source) and not os.path.isfile(source):
            raise ParamcountError(f"{source}: not a regular file")
        with open(source, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size == 0:
                raise ParamcountError(f"{source}: empty file, not an ONNX model")
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
                walker = _Walker(_Wire(data, size))
                try:
                    walker.model(size)
                except _Invalid as error:
                    raise ParamcountError(
                        f"{source}: not a valid ONNX model: {error}"
                    ) from None
                except RecursionError:
                    raise ParamcountError(
                        f"{source}: not a valid ONNX model: nested too deeply"
                    ) from None
    except IsADirectoryError:
        raise ParamcountError(f"{source}: is a directory, not an ONNX model file") from None
    except OSError as error:
        raise ParamcountError(f"{source}: cannot read: {error.strerror or error}") from None
    return walker


@dataclass
class _Found:
    """What the walk yields for the listing: tensors by name and the notes so far."""

    tensors: list[NamedTensor] = field(default_factory=list)
    shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _listing(source: str, walker: _Walker) -> Listing:
    found = _Found()
    graphs = walker.graphs + walker.functions
    quantized = {
        node.inputs[i]
        for graph in graphs for node in graph.nodes
        for i in _QUANTIZED_INPUTS.get(node.op_type, ()) if i < len(node.inputs)
    }
    states = _initial_states(graphs)
    scales = {
        node.inputs[i]
        for graph in graphs for node in graph.nodes
        for i in _QUANTIZATION.get(node.op_type, ()) if i < len(node.inputs) and node.inputs[i]
    } | {name.removesuffix("_quantized") + suffix for name in quantized
         if name.endswith("_quantized") for suffix in _SUFFIXES}
    skipped: dict[str, list[int]] = {}
    constant_names = {
        node.outputs[0] for graph in graphs for node in graph.nodes
        if node.op_type == "Constant" and node.outputs
    }
    external: dict[str, int] = {}
    in_subgraphs: list[tuple[_Place, int, int]] = []
    constants: list[NamedTensor] = []
    for graph in graphs:
        for tensor, shape, weight in _weights(graph, quantized, states | scales, skipped,
                                              found.notes):
            named = NamedTensor(tensor.name, shape, DTYPES.get(tensor.data_type))
            found.shapes.setdefault(tensor.name, shape)
            if not weight:
                constants.append(named)
                continue
            found.tensors.append(named)
            if tensor.external is not None:
                external[tensor.external] = external.get(tensor.external, 0) + 1
            if graph.where is not None:
                if not in_subgraphs or in_subgraphs[-1][0] is not graph.where:
                    in_subgraphs.append((graph.where, 0, 0))
                place, number, values = in_subgraphs[-1]
                in_subgraphs[-1] = (place, number + 1, values + named.count)
    if fixed := [t for t in constants if t.name in scales]:
        found.notes.append(
            f"{_plural(len(fixed), 'quantization parameter')} (scales and zero points, "
            f"{sum(t.count for t in fixed):,} values) listed apart as constants: they map the "
            "stored integers to real values and are no parameter of the model"
        )
    if states_held := [t for t in constants if t.name not in scales]:
        values = sum(t.count for t in states_held)
        found.notes.append(
            f"{_plural(len(states_held), 'tensor')} ({values:,} values) "
            + ("feeds" if len(states_held) == 1 else "feed")
            + " a recurrent node's initial_h or initial_c: a stored initial state (an "
            "exporter's zeros), no parameter in any framework, listed apart as a constant and "
            f"left out of the total (a model that learns its initial state has {values:,} "
            "more)"
        )
    inlined = [t for t in found.tensors if t.name in constant_names]
    if inlined:
        found.notes.append(
            f"{_plural(len(inlined), 'floating Constant node')} counted "
            f"({sum(t.count for t in inlined):,} values): exporters inline weights as "
            "Constants, though a Constant may also be a fixed input"
        )
    if len(in_subgraphs) <= 5:
        found.notes += [f"{_plural(number, 'tensor')} ({values:,} values) inside {where.text()}"
                        for where, number, values in in_subgraphs]
    else:
        found.notes.append(
            f"{_plural(sum(n for _, n, _ in in_subgraphs), 'tensor')} "
            f"({sum(v for _, _, v in in_subgraphs):,} values) inside "
            f"{len(in_subgraphs):,} subgraphs (If branches, Loop and Scan bodies), the first "
            f"inside {in_subgraphs[0][0].text()}")
    for location, number in external.items():
        found.notes.append(
            f"{_plural(number, 'initializer')} "
            + ("keeps its" if number == 1 else "keep their") + " data in the external file "
            f"{location!r} (not read: shapes come from the model file)"
        )
    for dtype, (number, values) in sorted(
        (d, (len(v), sum(v))) for d, v in skipped.items()
    ):
        found.notes.append(
            f"not counted: {_plural(number, dtype + ' initializer')} ({values:,} values: "
            "shapes, indices and other non-weights)"
        )
    recognised = _recognise(walker, found)
    return Listing(source, "onnx", tuple(found.tensors), tuple(found.notes), tuple(recognised),
                   constants=tuple(constants))


def _initial_states(graphs: list[_Graph]) -> set[str]:
    """The values fed, through reshapes, expands and tiles only, to a recurrent node's
    initial_h or initial_c: stored initial states, not weights."""
    producers = {output: node for graph in graphs for node in graph.nodes
                 for output in node.outputs if output}
    states = set()
    for graph in graphs:
        for node in graph.nodes:
            if node.op_type not in _RECURRENT and node.op_type != _QUANTIZED_LSTM:
                continue
            for index in (5, 6):
                name = node.inputs[index] if index < len(node.inputs) else ""
                for _ in range(16):
                    if not name:
                        break
                    states.add(name)
                    source = producers.get(name)
                    if source is None or source.op_type not in _STATE_PATH or not source.inputs:
                        break
                    name = source.inputs[0]
    return states


def _plural(number: int, noun: str) -> str:
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


def _weights(
    graph: _Graph, quantized: set[str], states: set[str], skipped: dict[str, list[int]],
    notes: list[str],
) -> Iterator[tuple[_Tensor, tuple[int, ...], bool]]:
    """The weight tensors of one graph: initializers, sparse initializers, Constants."""
    for tensor in graph.initializers:
        shape = tuple(tensor.dims)
        if tensor.data_type in FLOATING or (tensor.name in quantized | states and
                                            tensor.data_type):
            yield tensor, shape, tensor.name not in states
        else:
            dtype = DTYPES.get(tensor.data_type, f"type-{tensor.data_type}")
            skipped.setdefault(dtype, []).append(_product(shape))
    for values, dims in graph.sparse:
        if values.data_type in FLOATING:
            notes.append(
                f"sparse initializer {values.name!r}: {_product(values.dims):,} stored values of "
                f"a dense {list(dims)} tensor (counted as stored)"
            )
            yield values, tuple(values.dims), True
    for node in graph.nodes:
        if node.op_type != "Constant" or node.domain not in ("", "ai.onnx"):
            continue
        name = node.outputs[0] if node.outputs else node.name
        trainable = name not in states
        value = node.attributes.get("value")
        floats = node.attributes.get("value_floats")
        if value is not None and value.t is not None:
            tensor = value.t
            if tensor.data_type in FLOATING and _product(tensor.dims) > 1:
                yield _Tensor(name, tensor.dims, tensor.data_type, tensor.external), tuple(
                    tensor.dims), trainable
        elif floats is not None and floats.floats > 1:
            yield _Tensor(name, [floats.floats], 1), (floats.floats,), trainable


def _product(dims: list[int] | tuple[int, ...]) -> int:
    result = 1
    for d in dims:
        result *= d
    return result


@dataclass
class _Layer:
    """One recurrent node, read: its spec (one layer) and the names it accounts for."""

    node: _Node
    graph: _Graph
    spec: LayerSpec
    names: list[str]
    notes: list[str]
    direction: str
    composed: list[tuple[str, ...]] = field(default_factory=list)
    """For each of W, R, B, P the node reads, the stored tensors it is computed from (one
    name, the input itself, when it is stored as it is)."""
    traced: bool = False
    """Whether some of them are computed, not stored as the node reads them."""


def _recognise(walker: _Walker, found: _Found) -> list[Recognised]:
    out = []
    for graph in walker.graphs:
        layers = []
        tracer = _Tracer(graph, found.shapes)
        for node in graph.nodes:
            if (node.op_type in _RECURRENT and node.domain in ("", "ai.onnx")) or (
                    node.op_type == _QUANTIZED_LSTM and node.domain == "com.microsoft"):
                layer = _read_layer(node, graph, found, walker.producer, tracer)
                if layer is not None:
                    layers.append(layer)
        for stack in _stacks(graph, layers):
            first = stack[0]
            spec = first.spec.replace(num_layers=len(stack))
            notes = list(dict.fromkeys(n for layer in stack for n in layer.notes))
            if len(stack) > 1:
                nodes = ", ".join(repr(layer.node.name) for layer in stack)
                notes.insert(0, f"{len(stack)} nodes joined by reshapes: {nodes}")
            names = tuple(dict.fromkeys(name for layer in stack for name in layer.names))
            composed = tuple(parts for layer in stack for parts in layer.composed)
            traced = any(layer.traced for layer in stack)
            out.append(Recognised(first.node.name or first.node.op_type, spec, names,
                                  tuple(notes), composed if traced else ()))
    return out


_PASSING = frozenset({"Identity", "Cast", "Unsqueeze", "Squeeze", "Reshape", "Transpose",
                      "Flatten", "Slice"})
"""Operators whose first input's values pass to their output, reshaped, reordered or cut;
``Concat`` joins several."""


class _Tracer:
    """Follows a recurrent node's weight input back through Identity, Cast, Unsqueeze,
    Squeeze, Reshape, Transpose, Slice, Concat and Constant nodes to the stored tensors it is
    computed from; each node's answer is kept, so a graph is traced in linear time."""

    def __init__(self, graph: _Graph, shapes: dict[str, tuple[int, ...]]) -> None:
        self.shapes = shapes
        self.producers = {output: node for node in graph.nodes for output in node.outputs
                          if output}
        self.known: dict[str, list[tuple[str, bool]] | None] = {}

    def sources(self, name: str) -> list[str] | None:
        """The stored tensors ``name`` is made of, one entry per use (a tensor cut into
        slices and joined again counts once); None when something else computes it."""
        pieces = self._trace(name, 0)
        return None if pieces is None else _joined(pieces)

    def _trace(self, name: str, depth: int) -> list[tuple[str, bool]] | None:
        """(stored tensor, whether a slice of it) for each piece of ``name``."""
        if name in self.shapes:
            return [(name, False)]
        if name in self.known:
            return self.known[name]
        node = self.producers.get(name)
        found: list[tuple[str, bool]] | None = None
        if node is not None and depth < 64:
            if node.op_type in _PASSING and node.inputs:
                inner = self._trace(node.inputs[0], depth + 1)
                found = inner if inner is None or node.op_type != "Slice" else [
                    (piece, True) for piece, _ in inner]
            elif node.op_type == "Concat" and node.inputs:
                parts = [self._trace(i, depth + 1) for i in node.inputs]
                if all(part is not None for part in parts):
                    found = [(n, False) for n in _joined(
                        [piece for part in parts for piece in part or ()])]
        self.known[name] = found
        return found


def _joined(pieces: list[tuple[str, bool]]) -> list[str]:
    """The tensors of a join: every whole use, and each sliced tensor once (the exporter
    cuts a tensor into gate blocks and joins them reordered)."""
    out: list[str] = []
    sliced: set[str] = set()
    for name, partial in pieces:
        if partial:
            if name in sliced:
                continue
            sliced.add(name)
        out.append(name)
    return out


def _read_layer(node: _Node, graph: _Graph, found: _Found, producer: str,
                tracer: _Tracer) -> _Layer | None:
    """The spec of one LSTM / GRU / RNN node, or None (with a note) when its weights do not
    say."""
    cell = _RECURRENT.get(node.op_type, Cell.LSTM)
    label = f"{node.op_type} node '{shown_name(node.name or '(unnamed)')}'"
    inputs = node.inputs + [""] * (8 - len(node.inputs))
    direction = node.attributes.get("direction")
    text = direction.s.decode("utf-8", "replace") if direction and direction.s else "forward"
    d = 2 if text == "bidirectional" else 1
    hidden = node.attributes.get("hidden_size")
    g = cell.gates
    given = hidden.i if hidden is not None and hidden.i is not None and hidden.i > 0 else None
    composed: list[tuple[str, ...]] = []
    traced: dict[int, tuple[int, ...] | None] = {}
    for index in (1, 2, 3, 7):
        if not inputs[index] or (index == 7 and cell is not Cell.LSTM):
            continue
        parts = [inputs[index]] if inputs[index] in found.shapes else tracer.sources(
            inputs[index])
        if parts is None:
            traced[index] = None
            continue
        composed.append(tuple(parts))
        traced[index] = found.shapes[parts[0]] if parts == [inputs[index]] else _layout(
            index, sum(_product(found.shapes[n]) for n in parts), d, g, given)
    w, r, b, p = (traced.get(i) for i in (1, 2, 3, 7))
    quantized = node.op_type == _QUANTIZED_LSTM
    if quantized and w is not None and r is not None and len(w) == len(r) == 3:
        w, r = (w[0], w[2], w[1]), (r[0], r[2], r[1])  # stored [D, I, 4H] and [D, H, 4H]
    if w is None or r is None:
        found.notes.append(f"{label}: its W or R is computed at run time, not stored; "
                           "not recognised")
        return None
    h = given if given is not None else (r[2] if len(r) == 3 else 0)
    if (len(w) != 3 or len(r) != 3 or w[0] != d or r[0] != d or w[1] != g * h
            or r[1:] != (g * h, h)):
        found.notes.append(
            f"{label}: W {list(w)} and R {list(r)} do not fit {node.op_type} with "
            f"hidden_size={h} and direction={text!r}; not recognised"
        )
        return None
    names = list(dict.fromkeys(n for parts in composed for n in parts))
    notes = _sharing(label, composed, found.shapes)
    if inputs[3]:
        if b != (d, 2 * g * h):
            found.notes.append(f"{label}: B {b and list(b)} is not [{d}, {2 * g * h}]; "
                               "not recognised")
            return None
        notes += _bias_note(node, cell, producer, d * g * h)
    if inputs[7] and cell is Cell.LSTM and p != (d, 3 * h):
        found.notes.append(f"{label}: P {p and list(p)} is not [{d}, {3 * h}]; "
                           "not recognised")
        return None
    if text == "reverse":
        notes.append(f"{label} runs in reverse (direction='reverse'): one direction's weights")
    nonlinearity = None
    activations = node.attributes.get("activations")
    if activations is not None and activations.strings:
        names_seen = {s.decode("utf-8", "replace").lower() for s in activations.strings}
        if cell is Cell.RNN and names_seen == {"relu"}:
            nonlinearity = Nonlinearity.RELU
        elif not (cell is Cell.RNN and names_seen == {"tanh"}):
            notes.append(f"{label} uses activations {sorted(names_seen)} (the count does not "
                         "depend on them)")
    try:
        spec = LayerSpec(cell, w[2], h, bidirectional=d == 2, bias=bool(inputs[3]),
                         peepholes=bool(inputs[7]) and cell is Cell.LSTM,
                         framework=Framework.ONNX, nonlinearity=nonlinearity)
    except SpecError as error:
        found.notes.append(f"{label}: not recognised ({error})")
        return None
    stored = [(inputs[i],) for i in (1, 2, 3, 7) if inputs[i] and (i != 7 or cell is Cell.LSTM)]
    if quantized:
        notes.append(
            f"{label} (com.microsoft, onnxruntime's dynamic quantization): an ONNX LSTM whose W "
            "and R are stored transposed as 8-bit integers ([D, I, 4H], [D, H, 4H]), counted "
            "as parameters of one byte each; their scales and zero points are listed apart")
    return _Layer(node, graph, spec, names, notes, text, composed,
                  quantized or composed != stored)


def _layout(index: int, count: int, d: int, g: int,
            hidden: int | None) -> tuple[int, ...] | None:
    """The shape a computed W, R, B or P must have to hold ``count`` values, from the node's
    hidden_size and direction (None when it cannot: no hidden_size, or no whole width)."""
    if hidden is None:
        return None
    gh = g * hidden
    if index == 1:
        return (d, gh, count // (d * gh)) if count % (d * gh) == 0 else None
    return {2: (d, gh, hidden), 3: (d, 2 * gh), 7: (d, 3 * hidden)}[index] if count == {
        2: d * gh * hidden, 3: d * 2 * gh, 7: d * 3 * hidden}[index] else None


def _sharing(label: str, composed: list[tuple[str, ...]],
             shapes: dict[str, tuple[int, ...]]) -> list[str]:
    """Notes on weights computed from stored tensors, and on tensors used twice."""
    notes = []
    if any(len(parts) > 1 for parts in composed):
        notes.append(f"{label}: its weights are computed from {sum(map(len, composed))} stored "
                     "tensors (through Concat, Slice, Unsqueeze, Identity ...), traced back "
                     "and counted as stored")
    uses: dict[str, int] = {}
    for parts in composed:
        for name in parts:
            uses[name] = uses.get(name, 0) + 1
    for name, times in uses.items():
        if times > 1:
            notes.append(f"{label}: {name!r} is used {times} times (one tensor shared, "
                         f"{_product(shapes[name]):,} values stored once): the file holds "
                         f"{(times - 1) * _product(shapes[name]):,} fewer than the layer reads")
    return notes


def _bias_note(node: _Node, cell: Cell, producer: str, half: int) -> list[str]:
    """The zero half of B a Keras layer exported by tf2onnx carries (one bias per gate)."""
    if "tf2onnx" not in producer and "keras2onnx" not in producer:
        return []
    before_reset = node.attributes.get("linear_before_reset")
    if cell is Cell.GRU and before_reset is not None and before_reset.i:
        return []
    return [
        f"exported by {producer}: a Keras {node.op_type} has one bias per gate, so the second "
        f"half of B (Rb, {half:,} values) is probably zeros and Keras counts {half:,} fewer "
        "(paramcount does not read weight data to check)"
    ]


def _stacks(graph: _Graph, layers: list[_Layer]) -> list[list[_Layer]]:
    """Group recurrent nodes into stacks: a node whose X comes, through reshapes only, from
    the previous node's Y and whose configuration continues it joins that stack."""
    producers = {output: node for node in graph.nodes for output in node.outputs if output}
    by_node = {id(layer.node): layer for layer in layers}
    stacks: list[list[_Layer]] = []
    stack_of: dict[int, list[_Layer]] = {}
    for layer in layers:
        previous = _feeding_layer(layer.node, producers, by_node)
        if previous is not None and id(previous.node) in stack_of:
            stack = stack_of[id(previous.node)]
            if (stack[-1] is previous and previous.direction == layer.direction
                    and _continues(previous.spec, layer.spec)):
                stack.append(layer)
                stack_of[id(layer.node)] = stack
                continue
        stack = [layer]
        stacks.append(stack)
        stack_of[id(layer.node)] = stack
    return stacks


def _feeding_layer(node: _Node, producers: dict[str, _Node],
                   by_node: dict[int, _Layer]) -> _Layer | None:
    name = node.inputs[0] if node.inputs else ""
    for _ in range(16):
        source = producers.get(name)
        if source is None:
            return None
        if id(source) in by_node:
            return by_node[id(source)] if source.outputs[:1] == [name] else None
        if source.op_type not in _RESHAPING or not source.inputs:
            return None
        name = source.inputs[0]
    return None


def _continues(below: LayerSpec, above: LayerSpec) -> bool:
    """Whether ``above`` is the next layer of ``below``'s stack in the ONNX convention."""
    return (above.cell is below.cell and above.hidden_size == below.hidden_size
            and above.bidirectional == below.bidirectional and above.bias == below.bias
            and above.peepholes == below.peepholes and above.nonlinearity == below.nonlinearity
            and above.input_size == below.directions * below.hidden_size)

