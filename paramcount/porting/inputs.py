"""The test input of a whole-model ``--verify``: one example, laid out as each model reads it.

A model's input is described once, framework-free (:class:`Example`: token ids, or features of
some width along sizes such as time or height and width), from what the source's first layer
reads, the input shape each model declares (a Keras model's ``Input``) and ``--input-shape``.
Each model then gets it in its framework's layout (:class:`Layout`): channels first for a torch
convolution or batch norm, last for Keras (unless its layers say ``channels_first``) and Flax.
Where the sizes cannot be known (a torch model declares none) a free size is 7; a model that
cannot run on the result is refused with the ``--input-shape`` that would tell it.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from typing import Any

from paramcount.errors import ParamcountError
from paramcount.porting.units import Kind, Unit

FREE = 7
"""The size given to a time or spatial axis that neither model nor option fixes."""

BATCH = 3
"""The test batch."""


class InputError(ParamcountError):
    """A test input that cannot be built, or that a model cannot read."""


@dataclass(frozen=True)
class Example:
    """One input example without its batch axis, framework-free: token ids along ``sizes``, or
    ``channels`` features at each point of ``sizes`` (time, or a convolution's spatial axes)."""

    tokens: bool
    channels: int | None
    sizes: tuple[int | None, ...]
    vocabulary: int = 1

    def fixed(self) -> Example:
        """The same example with every free size set to :data:`FREE`."""
        return Example(self.tokens, self.channels,
                       tuple(FREE if s is None else s for s in self.sizes), self.vocabulary)


@dataclass(frozen=True)
class Layout:
    """How one model reads its input: its framework, where its channels stand, and the shape it
    declares (without the batch axis, in its own layout), if any."""

    name: str
    channels_first: bool
    declared: tuple[int | None, ...] | None = None

    def shape(self, example: Example) -> tuple[int | None, ...]:
        """``example`` without its batch axis, as this model reads it."""
        if example.tokens or example.channels is None:
            return example.sizes
        if self.channels_first:
            return (example.channels, *example.sizes)
        return (*example.sizes, example.channels)

    def arrange(self, array: Any) -> Any:
        """A batch made channels last (``[N, *sizes, C]``) laid out as this model reads it."""
        import numpy as np

        if self.channels_first and array.ndim >= 3:
            return np.ascontiguousarray(np.moveaxis(array, -1, 1))
        return array


def parse_shape(text: str) -> tuple[int, ...]:
    """``--input-shape 1,32,100`` (or ``1x32x100``): positive whole numbers."""
    parts = [p.strip() for p in re.split(r"[,x×]", text.strip())]
    if not parts or any(not p.isdigit() or len(p) > 9 or int(p) < 1 for p in parts):
        raise InputError(f"--input-shape {text}: expected sizes such as 1,32,100 (one example "
                         "without the batch axis, each a whole number from 1 to 999999999)")
    return tuple(int(p) for p in parts)


def first_reads(first: Any) -> Example:
    """What the source's first layer reads: token ids, or features along time or a
    convolution's spatial axes, their sizes free."""
    if isinstance(first, Unit):
        if first.kind is Kind.EMBEDDING:
            return Example(True, None, (None,), first.canonical("weight")[0])
        if first.kind is Kind.CONV:
            return Example(False, first.canonical("weight")[1], (None,) * first.rank)
        role = "weight" if "weight" in first.roles else "running_mean"
        width = first.canonical(role)[-1] if first.kind is Kind.LINEAR else \
            first.canonical(role)[0]
        return Example(False, width, (None,))
    if first is None:
        return Example(False, 1, (None,))
    return Example(False, first.spec.input_size, (None,))


def torch_layout(first: Any) -> Layout:
    """A torch model's: channels first when its first layer is a convolution or batch norm
    (``[N, C, L]``), else ``[N, T, features]``; torch models declare no shape."""
    channels_first = isinstance(first, Unit) and first.kind in (Kind.CONV, Kind.BATCHNORM)
    return Layout("torch", channels_first)


def keras_layout(model: Any) -> Layout:
    """A Keras model's: the shape its ``Input`` declares, channels last unless a layer with
    weights says ``data_format='channels_first'``."""
    import keras

    inputs = None
    with contextlib.suppress(AttributeError, ValueError):  # a subclassed model declares none
        inputs = model.inputs
    declared = None
    if inputs:
        if len(inputs) > 1:
            raise InputError(f"the Keras model takes {len(inputs)} inputs; --verify runs "
                             "models of one input")
        declared = tuple(None if d is None else int(d) for d in inputs[0].shape[1:])
    channels_first = False
    stack = list(getattr(model, "layers", []))
    while stack:
        layer = stack.pop(0)
        if isinstance(layer, keras.Model):
            stack[:0] = list(layer.layers)
            continue
        data_format = getattr(layer, "data_format", None)
        if layer.weights and data_format is not None:
            channels_first = data_format == "channels_first"
            break
    return Layout("keras", channels_first, declared)


def flax_layout() -> Layout:
    """A Flax linen model's: channels last, no declared shape."""
    return Layout("flax", False)


def _from_layout(reads: Example, shape: tuple[int | None, ...], layout: Layout, what: str
                 ) -> tuple[int | None, ...]:
    """The sizes of ``shape`` (one example in ``layout``), checked against what the first
    layer reads (``what`` names where the shape came from)."""
    if reads.tokens:
        return shape
    first = layout.channels_first
    channels = (shape[0] if first else shape[-1]) if shape else None
    if not shape or channels not in (None, reads.channels):
        raise InputError(f"{what} {_spell(shape)} does not {'start with' if first else 'end in'} "
                         f"the {reads.channels} {'channels' if first else 'features'} the "
                         f"source's first layer reads ({layout.name} puts channels "
                         f"{'first' if first else 'last'})")
    return shape[1:] if layout.channels_first else shape[:-1]


def plan(reads: Example, layouts: list[Layout], given: tuple[int, ...] | None,
         given_layout: Layout) -> Example:
    """The example both models read: ``reads``' sizes fixed by ``given`` (``--input-shape``, in
    ``given_layout``) and by each declared shape; InputError where they disagree."""
    sizes: tuple[int | None, ...] | None = None
    said = ""
    sources: list[tuple[tuple[int | None, ...], Layout, str]] = []
    if given is not None:
        sources.append((given, given_layout, "--input-shape"))
    sources += [(layout.declared, layout, f"the {layout.name} model's declared input")
                for layout in layouts if layout.declared is not None]
    for shape, layout, what in sources:
        found = _from_layout(reads, shape, layout, what)
        if sizes is None:
            sizes, said = found, what
            continue
        if len(found) != len(sizes) or any(a is not None and b is not None and a != b
                                           for a, b in zip(found, sizes, strict=False)):
            raise InputError(f"{said} gives the sizes {_spell(sizes)} and {what} "
                             f"{_spell(found)}: they disagree")
        sizes = tuple(a if a is not None else b for a, b in zip(sizes, found, strict=True))
    return Example(reads.tokens, reads.channels, reads.sizes if sizes is None else sizes,
                   reads.vocabulary).fixed()


def random_batch(example: Example, seed: int) -> Any:
    """A random batch of ``example``, channels last: token ids below the vocabulary, or
    normal floats."""
    import numpy as np

    rng = np.random.default_rng(seed)
    sizes = tuple(int(s) for s in example.sizes if s is not None)
    if example.tokens:
        return rng.integers(0, example.vocabulary, (BATCH, *sizes)).astype(np.int64)
    channels = example.channels or 1
    return rng.standard_normal((BATCH, *sizes, channels)).astype(np.float32)


def what_to_pass(example: Example, layout: Layout) -> str:
    """The ``--input-shape`` that says ``example``'s sizes in ``layout``, its sizes named."""
    names = {1: ("T",), 2: ("H", "W"), 3: ("D", "H", "W")}.get(
        len(example.sizes), tuple(f"S{i}" for i in range(len(example.sizes))))
    named = Example(example.tokens, example.channels, tuple(None for _ in names))
    shape = layout.shape(named)
    letters = iter(names)
    return ",".join(str(d) if d is not None else next(letters) for d in shape)


def _spell(shape: tuple[int | None, ...]) -> str:
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + \
        ("," if len(shape) == 1 else "") + ")"
