"""What a model file holds, explained: ``Listing`` -> :class:`InspectReport`.

Tensors grouped by module, totals per dtype, trainable against not, every recurrent layer
recognised and checked tensor by tensor against the formula engine with the ``paramcount``
command that reproduces it, and, on request, the count in another framework's convention with
every difference named. Pure: no framework, no click, no rich.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from paramcount.engine import conventions
from paramcount.engine.conventions.base import Recognised
from paramcount.engine.spec import Cell, Framework, LayerSpec
from paramcount.errors import ParamcountError, SpecError
from paramcount.families.family import Padding, RecognisedModel
from paramcount.files.listing import Listing, NamedTensor
from paramcount.record import record, replace

if TYPE_CHECKING:
    from paramcount.families.loader import Reading

BITS: dict[str, int] = {
    "bool": 8, "uint8": 8, "int8": 8, "qint8": 8, "quint8": 8, "quint4x2": 8, "quint2x4": 8,
    "float8_e4m3fn": 8, "float8_e5m2": 8, "float8_e4m3fnuz": 8, "float8_e5m2fnuz": 8,
    "float8_e8m0fnu": 8, "float4_e2m1fn_x2": 8, "float6_e2m3fn": 6, "float6_e3m2fn": 6,
    "float4_e2m1fn": 4, "int4": 4, "uint4": 4, "int2": 2, "uint2": 2,
    "int16": 16, "uint16": 16, "float16": 16, "bfloat16": 16, "complex32": 32,
    "int32": 32, "uint32": 32, "float32": 32, "qint32": 32,
    "int64": 64, "uint64": 64, "float64": 64, "complex64": 64, "complex128": 128,
    "string": 0,
}
"""Bits per element of each dtype (numpy's spelling); a dtype missing here has no size."""

AS_FRAMEWORKS = (Framework.TORCH, Framework.KERAS, Framework.ONNX)
"""The conventions ``--as`` converts a file's count to."""


def tensor_bytes(tensor: NamedTensor) -> int | None:
    """The bytes a tensor's elements take, or None when its dtype is unknown."""
    bits = BITS.get(tensor.dtype or "")
    return None if bits is None else (tensor.count * bits + 7) // 8


def module_of(name: str) -> str:
    """The module a tensor belongs to: its name up to the last ``.`` or ``/``."""
    cut = max(name.rfind("."), name.rfind("/"))
    return name[:cut] if cut > 0 else ""


@record
class Module:
    """The tensors sharing one module path, in the file's order."""

    name: str
    tensors: tuple[NamedTensor, ...]

    @property
    def count(self) -> int:
        """Elements in the module's tensors."""
        return sum(t.count for t in self.tensors)


@record
class DtypeTotal:
    """Tensors, elements and bytes of one dtype."""

    dtype: str | None
    tensors: int
    params: int
    bytes: int | None


@record
class Check:
    """One tensor the engine expects against the file's tensor paired with it."""

    expected: str
    expected_shape: tuple[int, ...]
    name: str | None
    shape: tuple[int, ...] | None
    part: bool | None = None
    """For one of the tensors the expected one is computed from (an ONNX node's B joined
    from two biases): whether together they hold its values; None for a tensor stored whole."""

    @property
    def match(self) -> bool:
        """Whether the file holds a tensor of exactly the expected shape here (or, for a
        part, whether the parts together hold the expected tensor's values)."""
        return self.part if self.part is not None else self.shape == self.expected_shape


@record
class Layer:
    """A recognised recurrent layer, described, counted by the engine and checked."""

    name: str
    """The module path (``encoder.lstm``), without the trailing separator; ``""`` at the top."""
    description: str
    params: int
    """The engine's count."""
    stored: int
    """The elements of the file's tensors it accounts for."""
    checks: tuple[Check, ...]
    command: str
    notes: tuple[str, ...]
    spec: LayerSpec

    @property
    def tensors_match(self) -> bool:
        """Whether every tensor and the total agree with the engine."""
        return self.params == self.stored and all(c.match for c in self.checks)

    @property
    def match(self) -> bool:
        """Whether every tensor and the total agree with the engine."""
        return self.tensors_match


@record
class Claim:
    """One value of a folder's ``config.json`` against what the tensors say."""

    field: str
    config: object
    tensors: object

    @property
    def match(self) -> bool:
        """Whether the config says what the tensors hold."""
        return self.config == self.tensors


@record
class FamilyModel:
    """A recognised model of a modern recurrent family (Mamba, …), counted by its convention,
    checked tensor by tensor, and against the folder's ``config.json`` where there is one:
    what it is, how it is said, its counts and checks (the fields :class:`Layer` has mean the
    same here; a record inherits none)."""

    name: str
    family: str
    config: Any
    description: str
    command: str
    params: int
    stored: int
    checks: tuple[Check, ...]
    claims: tuple[Claim, ...]
    notes: tuple[str, ...]
    padding: tuple[Padding, ...] = ()
    """What the file stores beyond the parameters' own shapes, as the family's checkpoint
    does (Inkling 2's head padded to ``vocab_size`` rows): stored, not parameters."""
    at_most: str = ""
    """Where ``params`` is only an upper bound, why (a tensor the checkpoint may store padded,
    its parameter's width not told by the tensors nor settled by a config.json); empty where
    it is exact."""

    @property
    def exact(self) -> bool:
        """Whether ``params`` is the model's count, not an upper bound."""
        return not self.at_most

    @property
    def tensors_match(self) -> bool:
        """Whether every tensor agrees with the engine and the file's tensors hold the
        parameters and the stored padding, nothing else."""
        return self.params + sum(p.count for p in self.padding) == self.stored and all(
            c.match for c in self.checks)

    @property
    def match(self) -> bool:
        """Whether every tensor, the total and every config claim agree with the engine."""
        return self.tensors_match and all(c.match for c in self.claims)


@record
class Difference:
    """One reason the count in another convention differs from the literal count."""

    what: str
    delta: int


@record
class Conversion:
    """The file's count in another framework's convention, with every difference named."""

    framework: Framework
    literal: int
    differences: tuple[Difference, ...]

    @property
    def total(self) -> int:
        """The literal count plus every difference."""
        return self.literal + sum(d.delta for d in self.differences)


@record
class InspectReport:
    """Everything ``paramcount inspect`` says about one file."""

    listing: Listing
    modules: tuple[Module, ...]
    dtypes: tuple[DtypeTotal, ...]
    layers: tuple[Layer, ...]
    notes: tuple[str, ...]
    conversion: Conversion | None = None
    families: tuple[FamilyModel, ...] = ()

    @property
    def total(self) -> int:
        """Every element of every tensor in the file's model part."""
        return self.listing.total

    @property
    def bytes(self) -> int:
        """The bytes of every tensor whose dtype is known."""
        return sum(d.bytes or 0 for d in self.dtypes)

    @property
    def trainable(self) -> int:
        """Elements of the tensors that are parameters."""
        return sum(t.count for t in self.listing.tensors if t.trainable)

    @property
    def non_trainable(self) -> int:
        """Elements of buffers and non-trainable weights."""
        return self.total - self.trainable


def inspect(listing: Listing, as_framework: Framework | None = None) -> InspectReport:
    """Explain a listing: modules, dtype totals, recurrent layers, family models, notes (and
    ``--as``)."""
    made = not listing.tensors and listing.config is not None
    listing = from_config(listing)
    modules: dict[str, list[NamedTensor]] = {}
    for tensor in listing.tensors:
        modules.setdefault(module_of(tensor.name), []).append(tensor)
    # tensors made from a config.json are its family model's: no recurrent layer among them
    layers = () if made else tuple(_layer(listing, r) for r in recognised(listing))
    notes = (*listing.notes, *_notes(listing, layers))
    if _PREFIXES["module."] in notes:  # said once for the file, not again for each layer
        from paramcount.engine.conventions import pytorch

        layers = tuple(replace(layer, notes=tuple(
            n for n in layer.notes if n != pytorch.DATA_PARALLEL)) for layer in layers)
    claimed = {c.name for layer in layers for c in layer.checks if c.name}
    report = InspectReport(
        listing,
        tuple(Module(name, tuple(ts)) for name, ts in modules.items()),
        _dtypes(listing.tensors),
        layers,
        notes,
        families=family_models(listing, claimed),
    )
    if as_framework is None:
        return report
    return replace(report, conversion=convert(report, as_framework))


def from_config(listing: Listing) -> Listing:
    """A folder with only ``config.json``: the tensors its family's model would hold."""
    if listing.tensors or listing.config is None:
        return listing
    from paramcount.families import registry as families

    name = families.family_of(listing.config)
    if name is None:
        kind = listing.config.get("model_type")
        reason = families.why_not(kind)
        if reason is not None:
            raise ParamcountError(f"{listing.source}: no weights, and config.json's model_type "
                                  f"{kind!r} is not a model paramcount models ({reason}); "
                                  + families.VIA_HINT)
        raise ParamcountError(f"{listing.source}: no weights, and config.json describes no "
                              f"model paramcount counts from a config (model_type {kind!r}; "
                              f"families: {', '.join(families.names())}); "
                              + families.VIA_HINT)
    try:
        reading = families.load(name, listing.config)
    except SpecError as error:
        raise ParamcountError(f"{listing.source}/config.json: {error}") from None
    tensors = tuple(NamedTensor(t.name, t.shape, None, True, None)  # every field: the quick
                    for t in families.tensors(name, reading.config, reading.base))  # way in
    said = f"config.json read as {reading.loader}"
    if reading.base:
        said += " (a base model class: no head)"
    return replace(listing, tensors=tensors,
                   notes=(*listing.notes, said, *reading.notes))


def _wrapper_command(listing: Listing, family: str, config: Any) -> str:
    """The command that counts a vision-language model found in ``listing``: the family's on
    the folder's ``config.json`` where one was read, else ``inspect`` of the source again (no
    option gives a vision tower)."""
    from pathlib import Path

    from paramcount.families.command import command_line

    folder = Path(listing.source)
    if listing.config is not None and folder.is_dir():
        return command_line(family, config, str(folder / "config.json"))
    return f"paramcount inspect {listing.source}"


def family_models(listing: Listing, claimed: set[str]) -> tuple[FamilyModel, ...]:
    """Every family model among the tensors no recurrent layer claimed, each checked."""
    from paramcount.families import registry as families
    from paramcount.families.command import command_line as family_command

    shapes = {t.name: t.shape for t in listing.tensors if t.name not in claimed}
    if not shapes:
        return ()
    said = None
    if listing.config is not None:
        said = families.family_of(listing.config)
    found = []
    # a config-only folder's tensors are its family's own model, which from_config wrote: not
    # looked for among them, but taken as they are (its config.json settles the rest)
    reading = None
    if said is not None and listing.format == "hf-config":
        reading = families.load(said, listing.config or {})
        models = [RecognisedModel("", said, reading.config, tuple(shapes), base=reading.base)]
    else:
        models = families.recognise(shapes)
    for model in models:
        claims: tuple[Claim, ...] = ()
        config, notes = model.config, list(model.notes)
        if said == model.family and listing.config is not None:
            config, claims, notes = _claims(model, listing.config, shapes, notes, reading)
        expected, padding, padded = layout(model, config, shapes)
        checks = tuple(Check(name, shape, name if name in shapes else None, shapes.get(name),
                             None) for name, shape in expected)
        params = sum(math.prod(s) for _, s in expected) - padded
        notes += [stored_padding(p) for p in padding]
        at_most = "" if claims and all(c.match for c in claims) else model.at_most
        if at_most:
            notes.append(f"at most {params:,} parameters: {at_most}")
        notes += _shares(model.family, config, params)
        description = families.describe(model.family, config)
        command = family_command(model.family, config)
        if hasattr(config, "vision"):  # a vision-language model: no option gives its tower
            command = _wrapper_command(listing, model.family, config)
        if model.base:
            description = description.replace("ForCausalLM(", "Model(", 1)
            command += " --base"
        found.append(FamilyModel(
            name=model.prefix.rstrip("./"), family=model.family, config=config,
            description=description,
            params=params,
            stored=sum(math.prod(shapes[n]) for n in model.names),
            checks=checks, command=command, notes=tuple(notes), claims=claims,
            padding=padding, at_most=at_most))
    return tuple(found)


def _shares(family: str, config: Any, total: int) -> list[str]:
    """A hybrid's parameters by kind of part and, with experts, what a token uses (as its
    family command shows them), as one note; nothing for the other families."""
    from paramcount.families.report import kinds

    shares, active = kinds(family, config, total)
    if not shares:
        return []
    text = ", ".join(f"{kind} {100 * n / total:.1f}%" for kind, n in shares)
    active_text = "" if active is None else (
        f"; {active:,} active per token (the experts it is not routed to left out)")
    return [f"shares: {text}{active_text}"]


def layout(model: RecognisedModel, config: Any, shapes: Mapping[str, tuple[int, ...]]
           ) -> tuple[list[tuple[str, tuple[int, ...]]], tuple[Padding, ...], int]:
    """The tensors ``model`` of ``config`` holds, as the file names them, with the shapes the
    file may hold them in; the padding the file stores beyond its parameters' shapes (a
    padded tensor may be stored padded, or as the parameter); and how many values of the
    expected tensors are padding, not parameters."""
    from paramcount.families import registry as families

    pads = {p.name: p for p in families.padding(model.family, config)} if model.saved else {}
    expected, padding, padded = [], [], 0
    for t in families.tensors(model.family, config, model.base, model.saved):
        name, shape = model.prefix + t.name, t.shape
        pad = pads.get(t.name)
        if pad is not None and shapes.get(name) == pad.shape:
            shape = pad.shape  # stored as the parameter: no padding
        elif pad is not None:
            padded += pad.count
            if shapes.get(name) == pad.stored:
                padding.append(replace(pad, name=name))
        expected.append((name, shape))
    return expected, tuple(padding), padded


def stored_padding(pad: Padding) -> str:
    """What ``inspect`` says of stored padding: which tensor, its shape and the parameter's,
    how many values are padding and why."""
    return (f"{pad.name} is stored as {_shape(pad.stored)}, the parameter is "
            f"{_shape(pad.shape)}: {pad.count:,} stored values are padding, not parameters "
            f"({pad.why})")


def _shape(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def _claims(model: RecognisedModel, data: dict[str, Any], shapes: Mapping[str, tuple[int, ...]],
            notes: list[str], reading: Reading | None = None
            ) -> tuple[Any, tuple[Claim, ...], list[str]]:
    """The config.json's values against the recognised config, field by field (``reading``:
    the config.json already read, where it was).

    Where the config describes exactly the tensors found, it settles what the tensors cannot
    tell (Mamba-2's n_groups against state_size, Inkling 2's head stored padded, …) and its
    config is the answer.
    """
    from paramcount.families import registry as families
    from paramcount.record import fields

    family, found, base = model.family, model.config, model.base
    try:
        reading = reading or families.load(family, data)
    except SpecError as error:
        return found, (), [*notes, f"config.json cannot be read as a {family} config: {error}"]
    said = reading.config
    read_as = [f"config.json read as {reading.loader}", *reading.notes]
    if said == found:
        same = True
    elif model.saved and (families.padding(family, said) or families.padding(family, found)):
        same = layout(model, said, shapes)[0] == layout(model, found, shapes)[0]
    else:
        same = [(t.name, t.shape) for t in families.tensors(family, said, base)] == [
            (t.name, t.shape) for t in families.tensors(family, found, base)]
    if same:
        claims = tuple(Claim(f, getattr(said, f), getattr(said, f)) for f in fields(said))
        return said, claims, ["config.json describes exactly these tensors (what the tensors "
                              "alone cannot tell is taken from it)", *read_as]
    claims = tuple(Claim(f, getattr(said, f), getattr(found, f)) for f in fields(said))
    return found, claims, [*notes, *read_as, *(disagreement(c) for c in claims if not c.match)]


def disagreement(claim: Claim) -> str:
    """What a config.json value the tensors contradict is called, by ``inspect`` and ``check``:
    ``config.json says state_size=32, the tensors hold 16``."""
    return f"config.json says {claim.field}={claim.config!r}, the tensors hold {claim.tensors!r}"


def recognised(listing: Listing) -> list[Recognised]:
    """The layers the reader recognised, then those the tensor names and shapes reveal."""
    from paramcount.files import loose_names  # (its patterns compiled only for weights)

    claimed = {name for r in listing.recognised for name in r.names}
    shapes = {t.name: t.shape for t in listing.tensors if t.name not in claimed}
    found = list(listing.recognised) + conventions.recognise(shapes)
    claimed.update(name for r in found for name in r.names)
    found += loose_names.recognise({n: s for n, s in shapes.items() if n not in claimed})
    order = {t.name: k for k, t in enumerate(listing.tensors)}
    return sorted(found, key=lambda r: min((order.get(n, len(order)) for n in r.names),
                                           default=len(order)))


def _dtypes(tensors: Sequence[NamedTensor]) -> tuple[DtypeTotal, ...]:
    groups: dict[str | None, list[NamedTensor]] = {}
    for tensor in tensors:
        groups.setdefault(tensor.dtype, []).append(tensor)
    out = []
    for dtype, members in groups.items():
        sizes = [tensor_bytes(t) for t in members]
        known = None if any(s is None for s in sizes) else sum(s or 0 for s in sizes)
        out.append(DtypeTotal(dtype, len(members), sum(t.count for t in members), known))
    return tuple(out)


def _role(name: str) -> str:
    return re.split(r"[./]", name)[-1]


def _layer(listing: Listing, found: Recognised) -> Layer:
    """A recognised layer with each engine tensor paired with the file's and compared."""
    from paramcount.engine.commandline import command_line

    by_name = {t.name: t for t in listing.tensors}
    mine = [by_name[n] for n in found.names if n in by_name]
    unused = list(mine)
    checks = []
    if found.composed:
        for expected, parts in zip(conventions.tensors(found.spec), found.composed,
                                   strict=False):
            held = sum(by_name[n].count for n in parts if n in by_name)
            joint = "" if not found.prefix or found.prefix.endswith(("/", ".")) else "/"
            checks += [Check(found.prefix + joint + expected.name, expected.shape, n,
                             by_name[n].shape, held == expected.count)
                       for n in dict.fromkeys(parts) if n in by_name]
        unused = []
    for expected in conventions.tensors(found.spec)[len(found.composed):]:
        full = found.prefix + expected.name
        pick = next((t for t in unused if t.name == full), None)
        if pick is None:
            pick = next((t for t in unused if _role(t.name) == _role(full)
                         and t.shape == expected.shape), None)
        if pick is None and unused:
            pick = unused[0]
        if pick is not None:
            unused.remove(pick)
        checks.append(Check(full, expected.shape, pick.name if pick else None,
                            pick.shape if pick else None))
    checks += [Check("", (), t.name, t.shape) for t in unused]
    return Layer(
        name=found.prefix.rstrip("./_-:"),
        spec=found.spec,
        description=conventions.describe(found.spec),
        params=conventions.total(found.spec),
        stored=sum(t.count for t in mine),
        checks=tuple(checks),
        command=command_line(found.spec),
        notes=found.notes,
    )


_PREFIXES = {
    "module.": "every name starts with 'module.': saved from nn.DataParallel or "
               "DistributedDataParallel; a bare model loads it after "
               "{k.removeprefix('module.'): v for k, v in state.items()}",
    "_orig_mod.": "every name starts with '_orig_mod.': saved from a torch.compile'd model; "
                  "the uncompiled model loads it without that prefix",
}

_RECURRENT_WORDS = re.compile(r"weight_ih|weight_hh|recurrent_kernel")


def _notes(listing: Listing, layers: Sequence[Layer]) -> list[str]:
    """What the core notices: prefixes, tied and duplicated tensors, unexplained RNN names."""
    notes = []
    names = [t.name for t in listing.tensors]
    for prefix, text in _PREFIXES.items():
        if names and all(n.startswith(prefix) for n in names):
            notes.append(text)
    for tensor in listing.tensors:
        if tensor.same_as:
            notes.append(f"{tensor.name} is stored as the same data as {tensor.same_as} "
                         "(tied weights: one parameter under two names)")
    for raw, copy in raw_copies(listing.tensors):
        notes.append(f"{copy.name} sits beside {raw.name}: AWD-LSTM's WeightDrop keeps the raw "
                     "weights and a dropped copy, the same weights twice")
    claimed = {c.name for layer in layers for c in layer.checks}
    if stray := [n for n in names if n not in claimed and _RECURRENT_WORDS.search(n)
                 and not n.endswith("_raw")]:
        notes.append(f"{len(stray)} tensors named like recurrent weights match no layer the "
                     f"conventions know: {', '.join(stray[:3])}" + (" ..." if len(stray) > 3
                                                                     else ""))
    if any(not t.trainable for t in listing.tensors):
        buffers = sorted({_role(t.name) for t in listing.tensors if not t.trainable})
        notes.append("not trainable (buffers or non-trainable weights): " + ", ".join(buffers))
    return notes


def raw_copies(tensors: Iterable[NamedTensor]) -> list[tuple[NamedTensor, NamedTensor]]:
    """(``X_raw``, ``X``) pairs of equal shape: WeightDrop's raw weights and their copy."""
    by_name = {t.name: t for t in tensors}
    return [
        (raw, by_name[raw.name[:-4]])
        for raw in by_name.values()
        if raw.name.endswith("_raw") and raw.name[:-4] in by_name
        and by_name[raw.name[:-4]].shape == raw.shape
    ]


def convert(report: InspectReport, target: Framework) -> Conversion:
    """The count in ``target``'s convention beside the literal one, each difference named."""
    differences: list[Difference] = []
    tensors = report.listing.tensors
    for tensor in tensors:
        if tensor.same_as:
            differences.append(Difference(
                f"{tensor.name} is the same data as {tensor.same_as} (tied): counted once",
                -tensor.count))
    for raw, copy in raw_copies(tensors):
        if not copy.same_as:
            differences.append(Difference(
                f"{copy.name} repeats {raw.name} (WeightDrop's copy): counted once",
                -copy.count))
    differences += _buffers(tensors, target)
    differences += [Difference(f"{pad.name}: {pad.count:,} values of padding stored beyond the "
                               f"parameter's {_shape(pad.shape)} ({pad.why}): not parameters",
                               -pad.count) for model in report.families for pad in model.padding]
    for layer in report.layers:
        differences += _recurrent(layer, target)
    return Conversion(target, report.total, tuple(differences))


def _buffers(tensors: Sequence[NamedTensor], target: Framework) -> list[Difference]:
    buffers = [t for t in tensors if not t.trainable and not t.same_as]
    if not buffers:
        return []
    if target is Framework.TORCH:
        roles = ", ".join(sorted({_role(t.name) for t in buffers}))
        return [Difference(
            f"{len(buffers)} buffers or non-trainable weights ({roles}) are not parameters in "
            "PyTorch (model.parameters() leaves them out)", -sum(t.count for t in buffers))]
    counters = [t for t in buffers if _role(t.name) == "num_batches_tracked"]
    if not counters:
        return []
    where = ("Keras' BatchNormalization has no such counter (its moving_mean and "
             "moving_variance count as non-trainable weights)" if target is Framework.KERAS
             else "an exported ONNX graph does not keep it (running statistics become "
                  "initializers)")
    return [Difference(f"{len(counters)} num_batches_tracked counters: {where}",
                       -sum(t.count for t in counters))]


_BIAS_WORDS = {
    Framework.TORCH: "two bias vectors per gate block (bias_ih and bias_hh)",
    Framework.ONNX: "two bias vectors per gate block in B (Wb and Rb)",
    Framework.KERAS: "one bias vector per gate block",
}


def converted_spec(spec: LayerSpec, target: Framework) -> LayerSpec:
    """The same layer in ``target``'s convention; SpecError where it has no equivalent."""
    changes: dict[str, object] = {"framework": target}
    if target is not Framework.KERAS:
        changes["merge_modes"] = None
    if spec.cell is Cell.GRU:
        changes["reset_after"] = None if target is not Framework.KERAS else (
            True if spec.framework is not Framework.KERAS else spec.reset_after)
    return spec.replace(**changes)


def _recurrent(layer: Layer, target: Framework) -> list[Difference]:
    spec = layer.spec
    if spec.framework is target:
        return []
    where = layer.name or "the top-level layer"
    try:
        other = converted_spec(spec, target)
    except SpecError as error:
        return [Difference(f"{where}: {layer.description} has no {target.display_name} "
                           f"equivalent ({error}); counted as stored", 0)]
    delta = conventions.total(other) - layer.stored
    if delta == 0:
        return []
    return [Difference(f"{where}: {layer.description} is {conventions.describe(other)} in "
                       f"{target.display_name}: {_why(spec, other)}", delta)]


def _why(spec: LayerSpec, other: LayerSpec) -> str:
    """The layout rule behind a recurrent layer's different count in another convention."""
    def words(s: LayerSpec) -> str:
        if s.framework is Framework.KERAS and s.cell is Cell.GRU and s.reset_after:
            return "two bias vectors per gate block (reset_after=True)"
        return _BIAS_WORDS.get(s.framework, "its own bias layout")

    source, target = spec.framework.display_name, other.framework.display_name
    text = f"{words(other)} in {target}, {words(spec)} in {source}"
    if spec.framework is Framework.ONNX and other.framework is Framework.KERAS:
        text += " (B's second half is zeros when the file was exported from Keras)"
    if spec.framework is Framework.KERAS and other.framework is Framework.ONNX:
        text += " (a Keras export fills Rb with zeros)"
    return text
