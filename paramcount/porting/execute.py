"""Evaluate a plan's expressions with numpy, one target tensor at a time.

numpy is imported when a function here is called. Sources are fetched by name through a
callback, so only the tensors a target needs are read, and nothing is kept after its target is
made.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from paramcount.porting.expr import (
    Add,
    Concat,
    Expr,
    Gates,
    Permute,
    Rows,
    Shift,
    Source,
    Take,
    Transpose,
    Zeros,
)

Fetch = Callable[[str], Any]
"""name -> numpy array of a source tensor."""


def evaluate(expr: Expr, fetch: Fetch, dtype: Any) -> Any:
    """The array ``expr`` describes, contiguous, in the sources' dtype (``dtype`` for zeros)."""
    import numpy as np

    return np.ascontiguousarray(_eval(expr, fetch, dtype))


def _eval(expr: Expr, fetch: Fetch, dtype: Any) -> Any:
    import numpy as np

    if isinstance(expr, Source):
        array = fetch(expr.name)
        if tuple(array.shape) != expr.shape:
            raise AssertionError(f"{expr.name}: read {tuple(array.shape)}, planned {expr.shape}")
        return array
    if isinstance(expr, Zeros):
        return np.zeros(expr.shape, dtype=expr.dtype or dtype)
    if isinstance(expr, Permute):
        return _eval(expr.arg, fetch, dtype).transpose(expr.axes)
    if isinstance(expr, Transpose):
        return _eval(expr.arg, fetch, dtype).T
    if isinstance(expr, Take):
        return _eval(expr.arg, fetch, dtype)[expr.index]
    if isinstance(expr, Rows):
        return _eval(expr.arg, fetch, dtype)[expr.start:expr.stop]
    if isinstance(expr, Gates):
        array = _eval(expr.arg, fetch, dtype)
        block = array.shape[0] // len(expr.order)
        return np.concatenate([array[k * block:(k + 1) * block] for k in expr.order])
    if isinstance(expr, Add):
        total = np.array(_eval(expr.args[0], fetch, dtype), copy=True)
        for arg in expr.args[1:]:
            total += _eval(arg, fetch, dtype)
        return total
    if isinstance(expr, Shift):
        array = np.array(_eval(expr.arg, fetch, dtype), copy=True)
        array[expr.start:expr.stop] += array.dtype.type(expr.value)
        return array
    if isinstance(expr, Concat):
        return np.concatenate([_eval(a, fetch, dtype) for a in expr.args])
    return np.stack([_eval(a, fetch, dtype) for a in expr.args])
