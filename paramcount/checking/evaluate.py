"""Models + expectations (+ what a real framework built) -> outcomes: pure, no printing."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from paramcount.checking.config import Config, Model
from paramcount.checking.locate import Path
from paramcount.checking.measure import Measured, from_layers
from paramcount.record import record


@record
class Problem:
    """One expectation a model does not meet."""

    key: str
    """``total``, ``max_params``, ``max_bytes``, ``params`` (a layer's), ``verify`` or
    ``formula`` (a real recurrent module the formula engine counts differently)."""
    path: Path
    """Where the expectation is written (for file:line annotations)."""
    expected: int
    actual: int | None
    """None when the framework could not build the model (``verify``)."""
    message: str

    @property
    def difference(self) -> int | None:
        """actual − expected (None when there is no actual count)."""
        return None if self.actual is None else self.actual - self.expected


@record
class Check:
    """One expectation a model was held to, met or not."""

    key: str
    expected: int
    actual: int
    passed: bool
    text: str


@record
class Outcome:
    """How one model fared against its expectations."""

    model: Model
    checks: tuple[Check, ...]
    problems: tuple[Problem, ...]
    verified_total: int | None = None
    """What the real framework built, with --verify."""
    verified_layers: tuple[int, ...] | None = None
    measured: Measured | None = None
    """What a factory or file model holds, row by row (None for hand-written layers, whose
    table :attr:`table` makes when it is asked for)."""
    grew: tuple[str, ...] = ()
    """With a failed total or budget: what grew, one line per module."""

    @property
    def total(self) -> int:
        """The model's parameters, as measured."""
        return self.measured.total if self.measured is not None else self.model.total

    @functools.cached_property
    def table(self) -> Measured:
        """What the model holds, row by row."""
        return self.measured if self.measured is not None else from_layers(self.model)

    @property
    def bytes(self) -> int:
        """The parameters' size in the model's dtype."""
        return self.total * self.model.dtype.bytes

    @property
    def passed(self) -> bool:
        """Whether every expectation holds."""
        return not self.problems


def _n(value: int) -> str:
    return f"{value:,}"


def _diff(value: int) -> str:
    return f"+{value:,}" if value > 0 else (f"−{-value:,}" if value < 0 else "±0")


def evaluate(model: Model, verified: Sequence[int] | str | None = None,
             measured: Measured | None = None) -> Outcome:
    """Hold ``model`` to its expectations (and, with ``verified``, to what was really built).

    ``verified`` is the real count of each layer, or why the framework could not build it;
    ``measured`` is what the model holds (hand-written layers are measured here if not given).
    """
    from paramcount.checking.grew import what_grew

    total = measured.total if measured is not None else model.total
    checks: list[Check] = []
    problems: list[Problem] = []
    path = model.path
    if model.total_expected is not None:
        ok = total == model.total_expected
        text = (f"expected total {_n(model.total_expected)} "
                f"({_diff(total - model.total_expected)})")
        checks.append(Check("total", model.total_expected, total, ok, text))
        if not ok:
            problems.append(Problem("total", (*path, "total"), model.total_expected, total,
                                    f"{_n(total)} parameters, {text}"))
    if model.max_params is not None:
        ok = total <= model.max_params
        text = (f"{'within' if ok else 'over'} max_params {_n(model.max_params)} "
                f"({_diff(total - model.max_params)})")
        checks.append(Check("max_params", model.max_params, total, ok, text))
        if not ok:
            problems.append(Problem("max_params", (*path, "max_params"), model.max_params,
                                    total, f"{_n(total)} parameters, {text}"))
    if model.max_bytes is not None:
        size = total * model.dtype.bytes
        ok = size <= model.max_bytes
        text = (f"{_n(size)} bytes as {model.dtype.value} {'within' if ok else 'over'} "
                f"max_bytes {_n(model.max_bytes)} ({_diff(size - model.max_bytes)})")
        checks.append(Check("max_bytes", model.max_bytes, size, ok, text))
        if not ok:
            problems.append(Problem("max_bytes", (*path, "max_bytes"), model.max_bytes, size,
                                    text))
    for layer in _all_layers(model):
        if layer.expected is not None:
            ok = layer.params == layer.expected
            text = (f"{layer.label} {_n(layer.params)}, expected {_n(layer.expected)} "
                    f"({_diff(layer.params - layer.expected)})")
            checks.append(Check("params", layer.expected, layer.params, ok, text))
            if not ok:
                problems.append(Problem("params", (*layer.path, "params"), layer.expected,
                                        layer.params, text))
    verified_total = None
    verified_layers = None
    if isinstance(verified, str):
        problems.append(Problem("verify", model.path, total, None, verified))
    elif verified is not None:
        verified_layers = tuple(verified)
        verified_total = sum(verified_layers)
        for layer, real in zip(model.layers, verified_layers, strict=True):
            if real != layer.params:
                problems.append(Problem(
                    "verify", layer.path, layer.params, real,
                    f"{layer.label}: {model.framework.display_name} built {_n(real)} "
                    f"parameters, the formulas say {_n(layer.params)} "
                    f"({_diff(real - layer.params)})"))
    for row in measured.mismatches if measured is not None else ():
        assert row.formula is not None
        problems.append(Problem(
            "formula", (*path, "factory" if model.factory else "file"), row.formula, row.params,
            f"{row.name}: {row.type} holds {_n(row.params)} parameters, the formulas say "
            f"{_n(row.formula)} ({_diff(row.params - row.formula)})"))
    grew: tuple[str, ...] = ()
    if any(p.key in ("total", "max_params", "max_bytes") for p in problems):
        grew = tuple(what_grew(model, measured or from_layers(model)))
    return Outcome(model, tuple(checks), tuple(problems), verified_total, verified_layers,
                   measured, grew)


def _all_layers(model: Model) -> list:  # type: ignore[type-arg]
    out = []
    stack = list(model.layers)
    while stack:
        layer = stack.pop(0)
        out.append(layer)
        stack[:0] = list(layer.children)
    return out


def evaluate_all(config: Config,
                 verified: Sequence[Sequence[int] | str | None] | None = None,
                 measured: Sequence[Measured | None] | None = None) -> list[Outcome]:
    """The outcome of every model, in file order."""
    n = len(config.models)
    return [evaluate(m, v, s) for m, v, s in zip(config.models, verified or [None] * n,
                                                 measured or [None] * n, strict=True)]
