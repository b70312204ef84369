"""Proof of a whole-model port: the source model and the user's target model, run side by side.

The target is the user's model (``--model``) holding the ported weights. The source is a model
too only where one can be built: a ``.keras`` file is its own model (``keras.saving.load_model``,
in safe mode), and a checkpoint's model comes from ``--source-model module:function``, into which
the checkpoint is loaded as its framework loads it (``load_state_dict(strict=True)``). Both run
in inference mode (batch norms on their running statistics) on the same random input: token ids
when the first layer is an embedding, else normal floats [N, T, features]; their outputs must
agree within 1e-5 of the largest output.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from paramcount.engine.spec import Framework
from paramcount.port.model import ModelError, TargetModel, build, example_input
from paramcount.port.verify import TOLERANCE

Runner = Callable[[Any], Any]
"""Input array -> output array."""


@dataclass(frozen=True)
class ModelComparison:
    """How close the two whole models came: the largest difference relative to the output."""

    source: str
    target: str
    difference: float

    @property
    def ok(self) -> bool:
        """Whether the outputs agree within :data:`TOLERANCE` of the largest output."""
        return self.difference <= TOLERANCE


def random_input(first: Any, seed: int) -> Any:
    """Random input for a model whose first layer is ``first``, shaped as ``example_input``."""
    import numpy as np

    from paramcount.port.units import Kind, Unit

    rng = np.random.default_rng(seed)
    shape = (3, 7, *example_input(first).shape[2:])
    if isinstance(first, Unit) and first.kind is Kind.EMBEDDING:
        return rng.integers(0, first.canonical("weight")[0], shape[:2]).astype(np.int64)
    return rng.standard_normal(shape).astype(np.float32)


def compare_models(source: tuple[Runner, str], target: tuple[Runner, str], x: Any
                   ) -> ModelComparison:
    """Run both on ``x`` and measure the largest difference relative to the largest output."""
    import numpy as np

    a = np.asarray(source[0](x), dtype=np.float64)
    b = np.asarray(target[0](x), dtype=np.float64)
    if a.shape != b.shape:
        raise ModelError(f"the source model gives {a.shape} and the target model {b.shape} on "
                         f"an input {x.shape}: they do not compute the same function")
    scale = max(1.0, float(np.max(np.abs(a))) if a.size else 1.0)
    return ModelComparison(source[1], target[1], float(np.max(np.abs(a - b))) / scale)


def _first(output: Any) -> Any:
    """A model's output, or the first of several (a recurrent layer's output and states)."""
    while isinstance(output, tuple | list):
        output = output[0]
    return output


def target_runner(model: TargetModel, arrays: dict[str, Any]) -> tuple[Runner, str]:
    """The user's model holding the ported ``arrays``, loaded as its framework loads weights."""
    if model.framework is Framework.TORCH:
        return _torch_runner(model.model, arrays)
    if model.framework is Framework.KERAS:
        from paramcount.port.write import assign

        return _keras_runner(assign(model.model, arrays))
    import flax

    from paramcount.port.write import nest

    variables = nest(arrays.items())
    return (lambda x: model.model.apply(variables, x), f"flax {flax.__version__}")


def _torch_runner(module: Any, state: dict[str, Any]) -> tuple[Runner, str]:
    import torch

    module.load_state_dict({k: torch.as_tensor(v) for k, v in state.items()}, strict=True)
    module.eval()

    def run(x: Any) -> Any:
        with torch.no_grad():
            return _first(module(torch.from_numpy(x))).numpy()

    return run, f"torch {torch.__version__}"


def _keras_runner(model: Any) -> tuple[Runner, str]:
    import keras

    def run(x: Any) -> Any:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "__array__ implementation", DeprecationWarning)
            return _first(model(x.astype("int32") if x.dtype.kind == "i" else x,
                                training=False))

    return run, f"keras {keras.__version__}"


def source_runner(path: str, fmt: str, factory: str | None, kwargs: dict[str, Any],
                  fetch: Callable[[str], Any], names: list[str], first: Any
                  ) -> tuple[Runner, str] | None:
    """The source as a model, or None where none can be built (a checkpoint, no factory)."""
    if fmt in ("keras", "keras-h5"):
        if factory is not None:
            raise ModelError(f"--source-model builds the model of a torch checkpoint; {path} "
                             "is its own model")
        from paramcount.verify.keras_backend import load

        keras = load()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = keras.saving.load_model(path, compile=False, safe_mode=True)
        return _keras_runner(model)
    if factory is None:
        return None
    if fmt != "torch":
        raise ModelError(f"--source-model builds the model of a torch checkpoint, and {path} "
                         f"is {fmt}")
    built = build(factory, kwargs, Framework.TORCH, first, "--source-model")
    return _torch_runner(built.model, {name: fetch(name) for name in names})
