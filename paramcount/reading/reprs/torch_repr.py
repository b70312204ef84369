"""``print(model)`` of a torch module, read as the layer calls it prints (never evaluated).

``Net(`` then ``(name): Class(args)`` lines, nested modules indented under theirs, then ``)``;
or one module on one line (``LSTM(32, 128, num_layers=2, bidirectional=True)``). torch ≥ 2
folds repeated modules of a ``ModuleList`` or ``Sequential`` into one line,
``(1-2): 2 x GRU(60, 30)`` or ``(0-23): 24 x Block(`` over the first copy's lines: each copy
is counted. A line that is none of these is named unread; a repr without its closing ``)`` is
a crop, never summed as a whole model (:mod:`paramcount.reading.accounting`). A flop
counter's figures before a module's arguments (ptflops, calflops) are read past
(:mod:`.generic`).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from paramcount.engine.layers import CONTAINERS, TORCH_SIGNATURES, torch_free
from paramcount.reading.accounting import Accounting, Unread
from paramcount.reading.code.python_code import Block, Call, Step, layer_call
from paramcount.reading.patterns import lazy
from paramcount.reading.reprs.generic import (
    Tree,
    listed,
    parameters_figure,
    parameters_share,
    repeats,
    walk,
)
from paramcount.reading.tables.table import Printout
from paramcount.record import replace


def read(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """A ``print(model)`` repr: ``Net(`` then ``(name): Class(...)`` lines, then ``)``, its
    tree found by :func:`.generic.walk`; each module line read as the torch call it prints."""
    tree = walk(lines, start)
    if tree is None:
        return None
    end = repeats(lines, tree, True) if tree.closed else tree.end
    if end == tree.end:
        return _printout(lines, start, tree)
    return _printout(lines, start, replace(tree, end=end), "read as the model's repr; the "
                     "modules listed after it by name are the same modules again, not counted "
                     "twice")


def read_listed(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """A listing of a model's modules (``named_modules()``, ``modules()``, ``children()``,
    printed as a list or one a line), found by :func:`.generic.listed`, read as the repr it
    holds."""
    found = listed(lines, start, _known)
    if found is None:
        return None
    tree, how = found
    return _printout(lines, start, tree, how)


def may_list(line: str) -> bool:
    """Whether ``line`` may start a listing of modules (a cheap test before reading one):
    ``[`` (a list), `` Net(`` (the model's empty name in a loop), ``emb Embedding(...)``."""
    first = line[:1]
    if first == "[":
        return True
    if first == " ":
        return line[1:2].isupper() and line.rstrip().endswith("(")
    return first.isalpha() and " " in line and line.rstrip().endswith((")", "("))


def _known(cls: str) -> bool:
    """Whether ``cls`` is a torch module paramcount knows (a layer, a container, or one without
    parameters), as a listing of modules without a repr's landmarks must show."""
    base = _underneath(cls)
    return base in TORCH_SIGNATURES or base in CONTAINERS or torch_free(base)


def _printout(lines: Sequence[str], start: int, tree: Tree, how: str = ""
              ) -> tuple[Printout, int] | None:
    """The printout of a repr ``tree`` headed at ``lines[start]``: each module line read as the
    torch call it prints."""
    steps: list[Step] = []
    unread = list(tree.unread)
    calls: dict[tuple[int, str, str], Call] = {}
    """Each line's call, read once: a folded repeat's further copies are copies of it."""
    for module in tree.modules:
        if module.cls in _SAME_TENSORS:
            continue  # holds the module's weight as it was, in its shape: no tensor added
        if module.opens and not module.rest:
            if module.cls in _OWN_PARAMETERS:
                steps.append(Step(_unknown(module.cls, module.line), module.path))
            continue
        key = (module.line, module.cls, module.rest)  # a list's modules share one line
        call = calls.get(key)
        if call is not None:
            steps.append(Step(replace(call), module.path))
            continue
        call = _call(f"{_underneath(module.cls)}({module.rest}", module.line)
        if call is None:
            unread.append(Unread(module.line, lines[module.line - 1].rstrip(),
                                 _why(module.cls, module.rest)))
            # kept as a module paramcount cannot count, so no total is claimed without it
            call = _unknown(module.cls, module.line)
        calls[key] = call
        steps.append(Step(call, module.path))
    if not steps:
        return None
    unread.sort(key=lambda u: u.line)
    block = Block(tree.root, "repr", start + 1, tuple(steps))
    accounting = Accounting.span(start + 1, tree.end, unread,
                                 () if tree.closed else ("no closing `)`",))
    figures = tree.figures
    figure = parameters_figure(figures) if figures is not None else None
    share = parameters_share(figures) if figures is not None else None
    if share is not None and float(share) < 100:
        accounting = accounting + Accounting(cropped=(
            f"its printer figures the modules it shows at {share}% of the model's parameters: "
            "the rest are the model's own, which no repr line shows",))
    packed = sorted({m.cls for m in tree.modules if m.cls.startswith(_WRAPPED[0])})
    if packed:
        how = "; ".join(filter(None, (how, (
            f"{', '.join(packed)} read as the float layers whose weights they pack: counted "
            "here, though `model.parameters()` lists none of them (`paramcount.summary` shows "
            "them as packed weights)"))))
    return Printout("repr", tree.root, start + 1, tree.end, block=block,
                    rounded_total=figure, accounting=accounting, how=how), tree.end


_WRAPPED = ("DynamicQuantized", "Parametrized")
"""The prefixes torch puts on a layer's class: ``quantize_dynamic``'s ``DynamicQuantizedLSTM``
(the same weights, packed), a parametrization's ``ParametrizedLinear`` (its tensors under
``parametrizations``)."""
_SAME_TENSORS = frozenset({"_SpectralNorm"})
"""Parametrizations that keep the weight as it was (``original``, the same shape) and add only
buffers."""
_ADDS = {"_WeightNorm": "weight_norm's magnitude `original0`, whose size depends on its `dim`, "
                        "which the repr does not show"}
"""Parametrizations that add tensors the repr does not size."""


def _underneath(cls: str) -> str:
    """The layer a wrapped class holds: ``DynamicQuantizedLSTM`` → ``LSTM``."""
    for prefix in _WRAPPED:
        if cls.startswith(prefix) and cls[len(prefix):len(prefix) + 1].isupper():
            return cls[len(prefix):]
    return cls


def _why(cls: str, rest: str) -> str:
    """Why a module line was not read: a class paramcount does not count, or arguments cut
    off or not Python."""
    if cls in _ADDS:
        return f"{cls} adds {_ADDS[cls]}"
    try:
        ast.parse(f"{cls}({rest}", mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return f"the arguments of {cls} could not be read (cut off, or not Python)"
    return f"{cls} is a module paramcount does not count"


_OWN_PARAMETERS = frozenset({"MultiheadAttention"})
"""torch containers that hold parameters of their own, which ``print(model)`` does not show."""


def _unknown(cls: str, line: int) -> Call:
    """A repr line's module that cannot be read or counted, as a bare call of its class."""
    return Call(f"nn.{cls}", f"torch.nn.{cls}", (), (), line)


def _call(text: str, line: int) -> Call | None:
    """A repr line's ``Class(args)`` read as a torch call (never evaluated)."""
    value = layer_call(text, line)
    if value is not None:
        return Call(f"nn.{value.name}", f"torch.nn.{value.name}", value.args, value.kwargs,
                    line)
    return None


_SINGLE = ("LSTM", "GRU", "RNN")
_ONE_MODULE = lazy(r"(LSTM|GRU|RNN|LSTMCell|GRUCell|RNNCell)\([0-9]++, [0-9]++"
                         r"(?:, \w++=[^,()=]++)*+\)")


def read_single(line: str, index: int) -> tuple[Printout, int] | None:
    """``print(lstm)`` of one module: ``LSTM(32, 128, num_layers=2, bidirectional=True)``."""
    if not line.startswith(_SINGLE) or (match := _ONE_MODULE.fullmatch(line.rstrip())) is None:
        return None
    call = _call(line.strip(), index + 1)
    if call is None:
        return None
    block = Block(match.group(1), "repr", index + 1, (Step(call, ""),))
    return Printout("repr", match.group(1), index + 1, index + 1, block=block,
                    accounting=Accounting.span(index + 1, index + 1)), index + 1
