"""Verification: build the real framework layer and compare every tensor with the engine's.

One backend module per framework, imported only when asked for; each imports its framework
inside its functions and raises :class:`~paramcount.errors.BackendUnavailable` (exit code 3)
when it is not installed. :func:`compare` is pure and shared.

May import: ``paramcount.engine``, ``paramcount.analysis`` (the flow and compute a real run is
held to).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from paramcount.engine import conventions
from paramcount.engine.conventions import Tensor
from paramcount.engine.report import Report
from paramcount.engine.spec import Framework, LayerSpec
from paramcount.errors import BackendUnavailable, ParamcountError
from paramcount.verify.compare import (
    RealTensor,
    TensorCheck,
    Unverified,
    Verification,
    compare,
    refused,
)

if TYPE_CHECKING:
    from paramcount.analysis.compute import Compute
    from paramcount.verify.flops import FlopOutcome

__all__ = [
    "Outcome",
    "RealTensor",
    "TensorCheck",
    "Unverified",
    "Verification",
    "backend",
    "check_flops",
    "compare",
    "exit_code",
    "problems",
    "verify",
    "verify_reports",
]

Outcome = Verification | Unverified

_BACKENDS = {
    Framework.TORCH: "paramcount.verify.torch_backend",
    Framework.KERAS: "paramcount.verify.keras_backend",
    Framework.ONNX: "paramcount.verify.onnx_backend",
    Framework.FLAX_LINEN: "paramcount.verify.flax_backend",
    Framework.FLAX_NNX: "paramcount.verify.flax_backend",
}
_NO_BACKEND = (
    "{framework} cannot be verified here: TensorFlow 1's layers do not install next to "
    "TensorFlow 2, so this convention is tested against the published formulas instead"
)


class Backend(Protocol):
    """What a backend module provides: see torch_backend.py and keras_backend.py."""

    def version(self) -> str: ...
    def tensors(self, spec: LayerSpec) -> list[RealTensor]: ...


def backend(framework: Framework) -> Backend:
    """The backend module of ``framework`` (its framework is not imported yet)."""
    if framework not in _BACKENDS:
        raise BackendUnavailable(
            framework.value, "", _NO_BACKEND.format(framework=framework.display_name)
        )
    module: Backend = importlib.import_module(_BACKENDS[framework])
    return module


def verifiable(num_layers: int, bidirectional: bool) -> None:
    """Refuse (exit 2, the limit named) a stack too deep to build for a verification."""
    from paramcount.verify.proof import MAX_VERIFIED_LAYERS, check_depth

    check_depth(num_layers, bidirectional, MAX_VERIFIED_LAYERS, "build and verify",
                "a verification", "what it checks")


def verify(
    spec: LayerSpec,
    expected: Sequence[Tensor] | None = None,
    formula_total: int | None = None,
) -> Verification:
    """Build ``spec``'s real layer and compare it with the engine, tensor by tensor.

    ``expected`` defaults to the engine's tensors (and ``formula_total`` to its closed form).
    Raises BackendUnavailable when the framework is not installed, ConfigError for a stack
    deeper than ``MAX_VERIFIED_LAYERS``; a framework that refuses to build the layer is a
    mismatch, reported in the result.
    """
    verifiable(spec.num_layers, spec.bidirectional)
    if expected is None:
        expected = conventions.tensors(spec)
        formula_total = conventions.formula(spec).total
    real = backend(spec.framework)
    version = real.version()
    try:
        actual = real.tensors(spec)
    except ParamcountError:  # a missing package or a config the backend cannot check
        raise
    except Exception as error:
        return refused(spec.framework, version, expected, error)
    return compare(spec.framework, version, expected, actual, formula_total)


def verify_reports(reports: Sequence[Report], skip_missing: bool = False) -> list[Outcome]:
    """Verify each report against its framework; with ``skip_missing``, note absent ones."""
    outcomes: list[Outcome] = []
    for report in reports:
        try:
            outcomes.append(verify(report.spec, report.tensors, report.formula.total))
        except BackendUnavailable as error:
            if not skip_missing:
                raise
            outcomes.append(Unverified(report.spec.framework, str(error)))
    return outcomes


def exit_code(outcomes: Sequence[Outcome]) -> int:
    """1 if any framework disagrees, 3 if none could be asked, else 0."""
    if any(isinstance(o, Verification) and not o.match for o in outcomes):
        return 1
    if all(isinstance(o, Unverified) for o in outcomes):
        return 3
    return 0


def problems(outcomes: Sequence[Outcome]) -> list[str]:
    """One line per framework that disagrees, or per framework missing when none was asked."""
    lines = [_disagreement(o) for o in outcomes if isinstance(o, Verification) and not o.match]
    if exit_code(outcomes) == 3:
        lines += [o.reason for o in outcomes if isinstance(o, Unverified)]
    return lines


def _disagreement(verification: Verification) -> str:
    v = verification
    if v.refused is not None:
        return f"{v.label} refused to build what the formula engine counted: {v.refused}"
    return (
        f"{v.label} disagrees with the formula engine on {len(v.differences)} of "
        f"{len(v.checks)} tensors (real total {v.actual_total:,}, counted {v.expected_total:,})"
    )


def check_flops(compute: Compute) -> FlopOutcome:
    """Measure ``compute``'s matmul FLOPs with the real layer, where a FLOP counter exists.

    Only PyTorch has one; for another framework the result says why nothing was measured.
    Raises BackendUnavailable when torch is not installed.
    """
    from paramcount.verify.flops import COUNTER, FlopUnchecked

    if compute.spec.framework is not Framework.TORCH:
        return FlopUnchecked(
            compute.spec.framework,
            f"MACs are measured with PyTorch's FLOP counter only; {COUNTER} cannot run a "
            f"{compute.spec.framework.display_name} layer (its parameters are verified)",
        )
    from paramcount.verify.torch_flops import measure

    return measure(compute)
