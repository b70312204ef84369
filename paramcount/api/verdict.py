"""What the verifying calls share: the FLOP check of each forward pass, the verdict of the
real layers as error lines and an exit code, and :class:`Verified`, the base of the results
that carry it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from paramcount.api.result import Result

if TYPE_CHECKING:
    from paramcount.analysis.compute import Compute
    from paramcount.verify import Outcome
    from paramcount.verify.flops import FlopOutcome


def check_flops(
    computes: Sequence[Compute | None], skip_missing: bool
) -> list[FlopOutcome | None] | None:
    """Measure each asked-for forward pass with the real layer's FLOP counter (None if none);
    ``skip_missing`` records a framework that is not installed instead of raising."""
    if not any(computes):
        return None
    from paramcount.errors import BackendUnavailable
    from paramcount.verify import check_flops as measure
    from paramcount.verify.flops import FlopUnchecked

    outcomes: list[FlopOutcome | None] = []
    for compute in computes:
        if compute is None:
            outcomes.append(None)
            continue
        try:
            outcomes.append(measure(compute))
        except BackendUnavailable as error:
            if not skip_missing:
                raise
            outcomes.append(FlopUnchecked(compute.spec.framework, str(error)))
    return outcomes


def problems(outcomes: Sequence[Outcome] | None,
             flops: Sequence[FlopOutcome | None] | None = None) -> list[str]:
    """One line per disagreement of the real layers (parameters, then MACs)."""
    if outcomes is None:
        return []
    from paramcount.render.verification import flop_verdict
    from paramcount.verify import problems as parameter_problems
    from paramcount.verify.flops import FlopCheck

    lines = list(parameter_problems(outcomes))
    lines += [flop_verdict(flop).removeprefix("✗ ") for flop in flops or ()
              if isinstance(flop, FlopCheck) and not flop.match]
    return lines


def exit_code(outcomes: Sequence[Outcome] | None,
              flops: Sequence[FlopOutcome | None] | None = None) -> int:
    """1 where the parameters or the MACs disagree, 3 where no framework could be asked, else
    0 (also unverified)."""
    if outcomes is None:
        return 0
    from paramcount.verify import exit_code as parameter_code
    from paramcount.verify.flops import FlopCheck

    code = parameter_code(outcomes)
    if any(isinstance(flop, FlopCheck) and not flop.match for flop in flops or ()):
        code = 1
    return code


class Verified(Result):
    """A result of layers that may have been checked against their real frameworks: their
    disagreements as error lines and the command's exit code (none unverified)."""

    outcomes: tuple[Outcome, ...] | None
    flops: tuple[FlopOutcome | None, ...] | None = None

    @property
    def problems(self) -> list[str]:
        """One line per real layer that disagrees on the parameters or the MACs."""
        return problems(self.outcomes, self.flops)

    @property
    def exit_code(self) -> int:
        """The command's exit code: 1 where a real layer disagrees, 3 where none was found."""
        return exit_code(self.outcomes, self.flops)

    def _outcome(self, k: int) -> Outcome | None:
        return self.outcomes[k] if self.outcomes else None
