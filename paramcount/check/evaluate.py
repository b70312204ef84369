"""Models + expectations (+ what a real framework built) -> outcomes: pure, no printing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from paramcount.check.config import Config, Model
from paramcount.check.locate import Path


@dataclass(frozen=True)
class Problem:
    """One expectation a model does not meet."""

    key: str
    """``total``, ``max_params``, ``max_bytes``, ``params`` (a layer's) or ``verify``."""
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


@dataclass(frozen=True)
class Check:
    """One expectation a model was held to, met or not."""

    key: str
    expected: int
    actual: int
    passed: bool
    text: str


@dataclass(frozen=True)
class Outcome:
    """How one model fared against its expectations."""

    model: Model
    checks: tuple[Check, ...]
    problems: tuple[Problem, ...]
    verified_total: int | None = None
    """What the real framework built, with --verify."""
    verified_layers: tuple[int, ...] | None = None

    @property
    def passed(self) -> bool:
        """Whether every expectation holds."""
        return not self.problems


def _n(value: int) -> str:
    return f"{value:,}"


def _diff(value: int) -> str:
    return f"+{value:,}" if value > 0 else (f"−{-value:,}" if value < 0 else "±0")


def evaluate(model: Model, verified: Sequence[int] | str | None = None) -> Outcome:
    """Hold ``model`` to its expectations (and, with ``verified``, to what was really built).

    ``verified`` is the real count of each layer, or why the framework could not build it.
    """
    total = model.total
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
        size = model.bytes
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
    return Outcome(model, tuple(checks), tuple(problems), verified_total, verified_layers)


def _all_layers(model: Model) -> list:  # type: ignore[type-arg]
    out = []
    stack = list(model.layers)
    while stack:
        layer = stack.pop(0)
        out.append(layer)
        stack[:0] = list(layer.children)
    return out


def evaluate_all(config: Config,
                 verified: Sequence[Sequence[int] | str] | None = None) -> list[Outcome]:
    """The outcome of every model, in file order."""
    if verified is None:
        return [evaluate(m) for m in config.models]
    return [evaluate(m, v) for m, v in zip(config.models, verified, strict=True)]
