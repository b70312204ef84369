"""paramcount: exact parameter counts of recurrent layers, explained tensor by tensor.

>>> import paramcount
>>> paramcount.count("lstm", 32, 128, num_layers=2, bidirectional=True).total
561152
>>> paramcount.count("lstm", 28, 128, bidirectional=True, framework="keras").total
160768
"""

from __future__ import annotations

from collections.abc import Sequence

from paramcount._version import __version__
from paramcount.engine.conventions import Direction, Formula, Tensor
from paramcount.engine.report import Report, build_report
from paramcount.engine.spec import Cell, DType, Framework, LayerSpec, MergeMode, Nonlinearity
from paramcount.errors import BackendUnavailable, ConfigError, Mismatch, ParamcountError, SpecError

__all__ = [
    "BackendUnavailable",
    "Cell",
    "ConfigError",
    "DType",
    "Direction",
    "Formula",
    "Framework",
    "LayerSpec",
    "MergeMode",
    "Mismatch",
    "Nonlinearity",
    "ParamcountError",
    "Report",
    "SpecError",
    "Tensor",
    "__version__",
    "count",
]


def count(
    cell: Cell | str,
    input_size: int,
    hidden_size: int,
    *,
    num_layers: int = 1,
    bidirectional: bool = False,
    bias: bool = True,
    proj_size: int = 0,
    framework: Framework | str = Framework.TORCH,
    merge_mode: MergeMode | str | Sequence[MergeMode | str] | None = None,
    reset_after: bool | None = None,
    nonlinearity: Nonlinearity | str | None = None,
    single_cell: bool = False,
    peepholes: bool = False,
    dtype: DType | str = DType.FP32,
) -> Report:
    """Count the parameters of a recurrent layer stack and explain them tensor by tensor."""
    modes = None
    if merge_mode is not None:
        modes = (
            (merge_mode,) if isinstance(merge_mode, str)
            else tuple(merge_mode) if isinstance(merge_mode, (list, tuple))
            else merge_mode  # LayerSpec says why it is not a merge mode
        )
    spec = LayerSpec(
        cell=cell,  # type: ignore[arg-type]  # coerced and validated by LayerSpec
        input_size=input_size,
        hidden_size=hidden_size,
        num_layers=num_layers,
        bidirectional=bidirectional,
        bias=bias,
        proj_size=proj_size,
        framework=framework,  # type: ignore[arg-type]
        merge_modes=modes,  # type: ignore[arg-type]
        reset_after=reset_after,
        nonlinearity=nonlinearity,  # type: ignore[arg-type]
        single_cell=single_cell,
        peepholes=peepholes,
    )
    try:
        dtype = DType(dtype)
    except ValueError:
        raise SpecError(
            "{dtype} is not one of: " + ", ".join(d.value for d in DType), dtype=dtype
        ) from None
    return build_report(spec, dtype)
