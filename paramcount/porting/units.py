"""The common layers a port carries beside the recurrent ones: Linear/Dense, Embedding, Conv, norms.

Each convention names a layer's tensors its own way (torch ``weight``, Keras ``kernel``, Flax
``params/…/kernel``) and lays some out differently: a Dense kernel is a Linear weight transposed,
and a Keras or Flax convolution kernel is (k…, in, out) where torch's and ONNX's is
(out, in, k…), whatever the layers' channels-first or channels-last data format. A :class:`Unit`
is one such layer as a file holds it; :func:`recognise` finds them among the tensors no recurrent
layer took, and :func:`plan_rows` makes the target's tensors as expressions over the source's,
through torch's layout. Pure: nothing here touches an array.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from paramcount.engine.spec import Framework
from paramcount.porting.expr import Expr, Shape, Source, Zeros, permute, transpose
from paramcount.record import replace


class Kind(StrEnum):
    """What a common layer is."""

    LINEAR = "linear"
    EMBEDDING = "embedding"
    CONV = "conv"
    BATCHNORM = "batchnorm"
    NORM = "norm"
    """A scale (and a shift) without running statistics: LayerNorm, GroupNorm, RMSNorm."""


WEIGHT, BIAS, MEAN, VAR, COUNT = "weight", "bias", "running_mean", "running_var", \
    "num_batches_tracked"
"""The canonical roles: torch's names."""

_TORCH_ROLES = {Kind.LINEAR: (WEIGHT, BIAS), Kind.EMBEDDING: (WEIGHT,),
                Kind.CONV: (WEIGHT, BIAS), Kind.BATCHNORM: (WEIGHT, BIAS, MEAN, VAR, COUNT),
                Kind.NORM: (WEIGHT, BIAS)}
_KERAS_LEAVES = {
    Kind.LINEAR: {WEIGHT: "kernel", BIAS: "bias"},
    Kind.EMBEDDING: {WEIGHT: "embeddings"},
    Kind.CONV: {WEIGHT: "kernel", BIAS: "bias"},
    Kind.BATCHNORM: {WEIGHT: "gamma", BIAS: "beta", MEAN: "moving_mean", VAR: "moving_variance"},
    Kind.NORM: {WEIGHT: "gamma", BIAS: "beta"},
}
_FLAX_LEAVES = {
    Kind.LINEAR: {WEIGHT: "params/kernel", BIAS: "params/bias"},
    Kind.EMBEDDING: {WEIGHT: "params/embedding"},
    Kind.CONV: {WEIGHT: "params/kernel", BIAS: "params/bias"},
    Kind.BATCHNORM: {WEIGHT: "params/scale", BIAS: "params/bias", MEAN: "batch_stats/mean",
                     VAR: "batch_stats/var"},
    Kind.NORM: {WEIGHT: "params/scale", BIAS: "params/bias"},
}
LEAVES: dict[Framework, dict[Kind, dict[str, str]]] = {
    Framework.TORCH: {k: {r: r for r in roles} for k, roles in _TORCH_ROLES.items()},
    Framework.ONNX: {k: {r: r for r in roles if r != COUNT} for k, roles in
                     _TORCH_ROLES.items()},
    Framework.KERAS: _KERAS_LEAVES,
    Framework.FLAX_LINEN: _FLAX_LEAVES,
}
"""Each convention's leaf name of each canonical role; a convention missing here has none."""

_CHANNELS_LAST = (Framework.KERAS, Framework.FLAX_LINEN)
"""Dense kernels (in, out) and convolution kernels (k…, in, out)."""

EPS: dict[tuple[Framework, Kind], float] = {
    (Framework.TORCH, Kind.BATCHNORM): 1e-5, (Framework.TORCH, Kind.NORM): 1e-5,
    (Framework.ONNX, Kind.BATCHNORM): 1e-5, (Framework.ONNX, Kind.NORM): 1e-5,
    (Framework.KERAS, Kind.BATCHNORM): 1e-3, (Framework.KERAS, Kind.NORM): 1e-3,
    (Framework.FLAX_LINEN, Kind.BATCHNORM): 1e-5, (Framework.FLAX_LINEN, Kind.NORM): 1e-6,
}
"""The default epsilon of each convention's norms (what a file that does not store it had)."""

MOMENTUM = {Framework.TORCH: 0.1, Framework.ONNX: 0.1, Framework.KERAS: 0.01,
            Framework.FLAX_LINEN: 0.01}
"""Batch norms' default momentum in torch's sense: the new batch's weight in the running
statistics (Keras and Flax write 1 − this: ``momentum=0.99``)."""


@dataclass(frozen=True)
class Unit:
    """One common layer as a file holds it: its kind and each role's tensor name and shape."""

    kind: Kind
    framework: Framework
    prefix: str
    """The layer's path before its tensors' leaf names (``head.``, ``dense/``, ``Dense_0/``)."""
    tensors: tuple[tuple[str, str, Shape], ...]
    """(canonical role, name in the file, shape in the file), in the convention's order."""
    eps: float | None = None
    """The norm's epsilon, when the file or the model says it."""
    momentum: float | None = None
    """A batch norm's momentum in torch's sense, when the file or the model says it."""
    alternatives: tuple[Kind, ...] = ()
    """Other kinds the same tensors would fit (a torch weight (n, d) without a bias)."""

    @property
    def roles(self) -> dict[str, tuple[str, Shape]]:
        """Canonical role -> (name in the file, shape in the file)."""
        return {role: (name, shape) for role, name, shape in self.tensors}

    @property
    def names(self) -> tuple[str, ...]:
        """The file's names of this layer's tensors."""
        return tuple(name for _, name, _ in self.tensors)

    def canonical(self, role: str) -> Shape:
        """The role's shape in torch's layout."""
        shape = self.roles[role][1]
        return _layout(self.kind, self.framework, role, shape, inverse=True)

    @property
    def rank(self) -> int:
        """A convolution's spatial dimensions (1, 2 or 3); 0 for other kinds."""
        return len(self.canonical(WEIGHT)) - 2 if self.kind is Kind.CONV else 0

    def describe(self) -> str:
        """The layer as its framework writes it: ``nn.Linear(10, 2)``, ``Dense(2) on 10 …``."""
        return describe(self.kind, self.framework, self._sizes())

    def _sizes(self) -> tuple[int, ...]:
        if self.kind in (Kind.LINEAR, Kind.EMBEDDING, Kind.CONV):
            weight = self.canonical(WEIGHT)
            if self.kind is Kind.EMBEDDING:
                return weight
            return (weight[1], weight[0], *weight[2:])
        role = WEIGHT if WEIGHT in self.roles else MEAN
        return self.canonical(role)


def describe(kind: Kind, framework: Framework, sizes: tuple[int, ...]) -> str:
    """How ``framework`` spells a layer of ``kind`` with these sizes (torch's order)."""
    width = "×".join(str(s) for s in sizes)
    if framework is Framework.ONNX:
        return {Kind.LINEAR: f"ONNX Gemm({sizes[0]} → {sizes[-1]})" if len(sizes) == 2 else "",
                Kind.EMBEDDING: f"ONNX Gather({width})",
                Kind.CONV: f"ONNX Conv({sizes[0]} → {sizes[1]}, kernel {sizes[2:]})"
                if len(sizes) > 2 else "",
                Kind.BATCHNORM: f"ONNX BatchNormalization({width})",
                Kind.NORM: f"ONNX LayerNormalization({width})"}[kind]
    torch = framework is Framework.TORCH
    if kind is Kind.LINEAR:
        return f"nn.Linear({sizes[0]}, {sizes[1]})" if torch else \
            f"{_flax('Dense', framework)}({sizes[1]}) on {sizes[0]} features"
    if kind is Kind.EMBEDDING:
        return f"nn.Embedding({width.replace('×', ', ')})" if torch else \
            f"{_flax('Embedding', framework)}({sizes[0]}, {sizes[1]})"
    if kind is Kind.CONV:
        rank, kernel = len(sizes) - 2, sizes[2:]
        size = kernel[0] if len(set(kernel)) == 1 else kernel
        if torch:
            return f"nn.Conv{rank}d({sizes[0]}, {sizes[1]}, kernel_size={size})"
        if framework is Framework.FLAX_LINEN:
            return f"nn.Conv({sizes[1]}, {kernel}) on {sizes[0]} channels"
        return f"Conv{rank}D({sizes[1]}, {size}) on {sizes[0]} channels"
    if kind is Kind.BATCHNORM:
        return f"nn.BatchNorm…({width})" if torch else \
            f"{_flax('BatchNormalization', framework)} on {width} features"
    return f"nn.LayerNorm({width})" if torch else \
        f"{_flax('LayerNormalization', framework)} on {width} features"


def _flax(keras_name: str, framework: Framework) -> str:
    if framework is not Framework.FLAX_LINEN:
        return keras_name
    return "nn." + {"Dense": "Dense", "Embedding": "Embed", "BatchNormalization": "BatchNorm",
                    "LayerNormalization": "LayerNorm"}[keras_name]


def _conv_axes(rank: int, inverse: bool) -> tuple[int, ...]:
    """torch (out, in, k…) -> (k…, in, out), or back when ``inverse``."""
    if inverse:  # (k1..kr, in, out) -> (out, in, k1..kr)
        return (rank + 1, rank, *range(rank))
    return (*range(2, rank + 2), 1, 0)


def _layout(kind: Kind, framework: Framework, role: str, shape: Shape, inverse: bool) -> Shape:
    """``shape`` (torch's layout) in ``framework``'s, or back when ``inverse``."""
    if role != WEIGHT or framework not in _CHANNELS_LAST:
        return shape
    if kind is Kind.LINEAR:
        return tuple(reversed(shape))
    if kind is Kind.CONV:
        axes = _conv_axes(len(shape) - 2, inverse)
        return tuple(shape[a] for a in axes)
    return shape


def to_canonical(unit: Unit, role: str) -> Expr:
    """The role's tensor of ``unit`` in torch's layout."""
    name, shape = unit.roles[role]
    expr: Expr = Source(name, shape)
    if role != WEIGHT or unit.framework not in _CHANNELS_LAST:
        return expr
    if unit.kind is Kind.LINEAR:
        return transpose(expr)
    if unit.kind is Kind.CONV:
        return permute(expr, _conv_axes(len(shape) - 2, inverse=True),
                       "kernel (k…, in, out) → (out, in, k…)")
    return expr


def from_canonical(kind: Kind, framework: Framework, role: str, expr: Expr) -> Expr:
    """A canonical (torch-layout) tensor laid out as ``framework`` keeps it."""
    if role != WEIGHT or framework not in _CHANNELS_LAST:
        return expr
    if kind is Kind.LINEAR:
        return transpose(expr)
    if kind is Kind.CONV:
        return permute(expr, _conv_axes(len(expr.shape) - 2, inverse=False),
                       "kernel (out, in, k…) → (k…, in, out)")
    return expr


def file_name(framework: Framework, prefix: str, leaf: str) -> str:
    """A tensor's name: the prefix, then the leaf; Flax's collection (``params/``) first."""
    if framework is Framework.FLAX_LINEN:
        collection, _, rest = leaf.partition("/")
        return f"{collection}/{prefix}{rest}"
    return prefix + leaf


def target_unit(source: Unit, framework: Framework, prefix: str,
                kind: Kind | None = None) -> Unit | None:
    """The same layer in ``framework``'s convention under ``prefix``; None where it has none."""
    kind = kind or source.kind
    leaves = LEAVES.get(framework, {}).get(kind)
    if leaves is None:
        return None
    held = dict(source.roles)
    tensors = []
    for role, leaf in leaves.items():
        if role not in held and not (role == COUNT and MEAN in held):
            continue
        shape = () if role == COUNT else _layout(kind, framework, role,
                                                   source.canonical(role), inverse=False)
        tensors.append((role, file_name(framework, prefix, leaf), shape))
    return Unit(kind, framework, prefix, tuple(tensors), source.eps, source.momentum)


def plan_rows(source: Unit, target: Unit) -> list[tuple[str, Shape, Expr]]:
    """Each target tensor (name, shape) and how it is made from the source's tensors."""
    held = source.roles
    made = []
    for role, name, shape in target.tensors:
        if role in held:
            expr = from_canonical(target.kind, target.framework, role,
                                  to_canonical(source, role))
        elif role == COUNT:
            expr = Zeros((), "zeros (batches seen in training: not in the source)", "int64")
        else:  # a bug in a layout, never the user's input
            raise AssertionError(f"{name}: no source for {role}")
        if expr.shape != shape:
            raise AssertionError(f"{name}: made {expr.shape}, needs {shape}")
        made.append((name, shape, expr))
    return made


def left_out(source: Unit, target: Unit) -> list[str]:
    """The source tensors the target has no slot for (torch's batch counter in Keras)."""
    kept = {role for role, _, _ in target.tensors}
    return [name for role, name, _ in source.tensors if role not in kept]


# ----------------------------------------------------------------------------- recognition


def _split(framework: Framework, name: str) -> tuple[str, str] | None:
    """(prefix, leaf) of a tensor's name in ``framework``'s convention."""
    if framework is Framework.FLAX_LINEN:
        collection, _, rest = name.partition("/")
        if collection not in ("params", "batch_stats") or "/" not in rest:
            return None
        path, _, leaf = rest.rpartition("/")
        return path + "/", f"{collection}/{leaf}"
    separator = "." if framework is Framework.TORCH else "/"
    if framework is Framework.KERAS:
        name = name.partition(":")[0]
    if framework is Framework.ONNX and name.rfind(".") > name.rfind("/"):
        separator = "."  # torch.onnx.export keeps the state dict's names
    path, found, leaf = name.rpartition(separator)
    return (path + separator if found else "", leaf)


def _fits(kind: Kind, shapes: dict[str, Shape]) -> bool:
    """Whether canonical roles -> shapes are a layer of ``kind``."""
    weight = shapes.get(WEIGHT)
    bias = shapes.get(BIAS)
    if kind in (Kind.LINEAR, Kind.EMBEDDING, Kind.CONV):
        if weight is None:
            return False
        dims = {Kind.LINEAR: (2,), Kind.EMBEDDING: (2,), Kind.CONV: (3, 4, 5)}[kind]
        return len(weight) in dims and (bias is None or bias == (weight[0],))
    if kind is Kind.BATCHNORM:
        mean, var = shapes.get(MEAN), shapes.get(VAR)
        if mean is None or mean != var or len(mean) != 1:
            return False
        count = shapes.get(COUNT)
        return all(s in (None, mean) for s in (weight, bias)) and count in (None, ())
    if weight is None or len(weight) != 1:  # a bias alone is some layer's whose weight is not
        return False                          # named (torch.onnx.export's MatMul weights)
    return (bias is None or weight == bias) and MEAN not in shapes


_ORDER = (Kind.LINEAR, Kind.CONV, Kind.EMBEDDING, Kind.BATCHNORM, Kind.NORM)


def recognise(shapes: dict[str, Shape], framework: Framework
              ) -> tuple[list[Unit], list[str]]:
    """The common layers among ``shapes`` (name -> shape) in ``framework``'s names, and the names
    that are none of them."""
    leaves = LEAVES.get(framework)
    if leaves is None:
        return [], list(shapes)
    groups: dict[str, dict[str, tuple[str, Shape]]] = {}
    unread: list[str] = []
    for name, shape in shapes.items():
        split = _split(framework, name)
        if split is None:
            unread.append(name)
            continue
        groups.setdefault(split[0], {})[split[1]] = (name, shape)
    units: list[Unit] = []
    for prefix, held in groups.items():
        kinds = []
        for kind in _ORDER:
            roles = {leaf: role for role, leaf in leaves[kind].items()}
            if not set(held) <= set(roles):
                continue
            canonical = {roles[leaf]: _layout(kind, framework, roles[leaf], shape, inverse=True)
                         for leaf, (_, shape) in held.items()}
            if _fits(kind, canonical):
                kinds.append(kind)
        if not kinds:
            unread += [name for name, _ in held.values()]
            continue
        roles = {leaf: role for role, leaf in leaves[kinds[0]].items()}
        order = list(leaves[kinds[0]])
        tensors = sorted(((roles[leaf], name, shape) for leaf, (name, shape) in held.items()),
                         key=lambda t: order.index(t[0]))
        units.append(Unit(kinds[0], framework, prefix, tuple(tensors),
                          alternatives=tuple(kinds[1:])))
    return units, unread


def named_by(unit: Unit) -> Unit:
    """An ambiguous torch weight (n, d) read as an Embedding when its name says so."""
    if Kind.EMBEDDING in unit.alternatives and "emb" in unit.prefix.lower():
        return replace(unit, kind=Kind.EMBEDDING, alternatives=())
    return unit


def settings_notes(source: Unit, target: Unit, target_said: bool | None = False
                   ) -> Iterable[str]:
    """What a norm's target must be built with to compute the same: epsilon, momentum.

    ``target_said``: the target's values are its model's (True), the framework's defaults
    (False), or unknown (None: a Flax model's parameters do not hold them).
    """
    if source.kind not in (Kind.BATCHNORM, Kind.NORM):
        return
    where = source.prefix.rstrip("./") or "(top level)"
    eps, have = effective_eps(source), effective_eps(target)
    stored = "" if source.eps is not None else \
        f" ({source.framework.display_name}'s default: the file does not store it)"
    if target_said is None:
        yield (f"{where}: epsilon {eps:g} in the source{stored}; the model's own is not in "
               f"its parameters: build it with {_eps_option(target.framework)}={eps:g}")
        return
    if eps != have:
        told = "the model's" if target_said else "the default"
        yield (f"{where}: epsilon {eps:g} in the source{stored}, {have:g} in "
               f"{target.framework.display_name} ({told}): build it with "
               f"{_eps_option(target.framework)}={eps:g}")
    if source.kind is Kind.BATCHNORM:
        momentum, wanted = effective_momentum(source), effective_momentum(target)
        if momentum != wanted:
            yield (f"{where}: {_momentum(source.framework, momentum)} in the source is "
                   f"{_momentum(target.framework, momentum)} in "
                   f"{target.framework.display_name}, whose "
                   f"{'model has' if target_said else 'default is'} "
                   f"{_momentum(target.framework, wanted)}; it matters only in training")


def effective_eps(unit: Unit) -> float:
    """A norm's epsilon: as its file or model says, else its framework's default."""
    if unit.eps is not None:
        return unit.eps
    return EPS.get((unit.framework, unit.kind), 1e-5)


def effective_momentum(unit: Unit) -> float:
    """A batch norm's momentum in torch's sense: as said, else its framework's default."""
    return unit.momentum if unit.momentum is not None else MOMENTUM.get(unit.framework, 0.1)


def _eps_option(framework: Framework) -> str:
    return "epsilon" if framework in _CHANNELS_LAST else "eps"


def _momentum(framework: Framework, torch_momentum: float) -> str:
    if framework in _CHANNELS_LAST:
        return f"momentum={1 - torch_momentum:g}"
    return f"momentum={torch_momentum:g}"
