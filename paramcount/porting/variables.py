"""Setting a Keras model's variables to the ported arrays, one array at a time.

An array is let go once assigned, so a model takes no more memory than its own variables and
the array being assigned; on TensorFlow a large array goes in a few rows at a time.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def assign(model: Any, arrays: Iterable[tuple[str, Any]]) -> Any:
    """A Keras model with each variable set to the array named by its path, one array at a
    time (each is let go once assigned)."""
    variables = {variable.path: variable for variable in model.weights}
    for name, array in arrays:
        if name not in variables:
            raise AssertionError(f"the model holds no variable {name} (or it came twice)")
        assign_array(variables.pop(name), array)
    if variables:
        raise AssertionError(f"nothing was ported to the model's {', '.join(variables)}")
    return model


CHUNK = 1 << 22
"""The bytes of an array assigned to a TensorFlow variable at once (4 MiB)."""


def assign_array(variable: Any, array: Any) -> None:
    """Set a Keras variable to ``array``; on TensorFlow a few rows at a time, which it copies
    into the variable in place (assigned whole, it first makes a tensor of all of it)."""
    import numpy as np

    value: Any = getattr(variable, "value", None)
    rows = len(array) if array.ndim else 0
    if rows < 2 or array.nbytes <= CHUNK or type(value).__module__.split(".")[0] != \
            "tensorflow" or tuple(value.shape) != array.shape:
        variable.assign(array)
        return
    step = max(1, CHUNK * rows // array.nbytes)
    for start in range(0, rows, step):
        part = np.ascontiguousarray(array[start:start + step], dtype=value.dtype.as_numpy_dtype)
        value[start:start + step].assign(part)
