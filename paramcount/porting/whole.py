"""Proof of a whole-model port: the source model and the user's target model, run side by side.

The target is the user's model (``--model``) holding the ported weights. The source is a model
too only where one can be built: a ``.keras`` file is its own model (``keras.saving.load_model``,
in safe mode), and a checkpoint's model comes from ``--source-model module:function``, into which
the checkpoint is loaded as its framework loads it (``load_state_dict(strict=True)``). Both run
in inference mode (batch norms on their running statistics) on the same random example, laid out
as each reads it (:mod:`paramcount.porting.inputs`: token ids, or features channels first or last,
sized by what the models declare and ``--input-shape``); their outputs must agree within 1e-5 of
the largest output.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from paramcount.engine.spec import Framework
from paramcount.porting.inputs import (
    FREE,
    Example,
    InputError,
    Layout,
    flax_layout,
    keras_layout,
    random_batch,
    torch_layout,
    what_to_pass,
)
from paramcount.porting.model import ModelError, TargetModel, build
from paramcount.porting.verify import TOLERANCE


@dataclass(frozen=True)
class Runner:
    """One whole model, ready to run: input array -> output array, its runtime, and how it
    reads its input."""

    run: Callable[[Any], Any]
    label: str
    layout: Layout


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


def compare_models(source: Runner, target: Runner, example: Example, seed: int,
                   given: Layout) -> ModelComparison:
    """Run both on one random batch of ``example``, each in its layout, and measure the largest
    difference relative to the largest output; InputError, saying which ``--input-shape``
    (in ``given``, the source's layout) would tell, where a model cannot run on it."""
    import numpy as np

    batch = random_batch(example, seed)
    outputs = []
    for which, runner in (("source", source), ("target", target)):
        x = runner.layout.arrange(batch)
        try:
            outputs.append(np.asarray(runner.run(x), dtype=np.float64))
        except Exception as error:  # the user's model on the input port made: one line
            from paramcount.factories.factory import one_line

            raise InputError(
                f"the {which} model ({runner.label}) raised {one_line(error)} on the test "
                f"input {tuple(x.shape)} port built for it (a size no model declares is "
                f"{FREE}); give --input-shape {what_to_pass(example, given)} (one example "
                "without the batch axis, as the source model reads it)") from None
    a, b = outputs
    if a.shape != b.shape and source.layout.channels_first != target.layout.channels_first \
            and a.ndim >= 3 and a.ndim == b.ndim:  # channels first and last, the same values
        first_a = source.layout.channels_first
        moved = np.moveaxis(a if first_a else b, 1, -1)
        if moved.shape == (b if first_a else a).shape:
            a, b = (moved, b) if first_a else (a, moved)
    if a.shape != b.shape:
        raise ModelError(f"the source model gives {a.shape} and the target model {b.shape} on "
                         f"an input {tuple(batch.shape)}: they do not compute the same "
                         "function")
    scale = max(1.0, float(np.max(np.abs(a))) if a.size else 1.0)
    return ModelComparison(source.label, target.label, float(np.max(np.abs(a - b))) / scale)


def _first(output: Any) -> Any:
    """A model's output, or the first of several (a recurrent layer's output and states)."""
    while isinstance(output, tuple | list):
        output = output[0]
    return output


def target_runner(model: TargetModel, arrays: dict[str, Any], first: Any) -> Runner:
    """The user's model holding the ported ``arrays``, loaded as its framework loads weights
    (``first``: the source's first layer, which says a torch model's layout)."""
    if model.framework is Framework.TORCH:
        return _torch_runner(model.model, arrays, first)
    if model.framework is Framework.KERAS:
        from paramcount.porting.variables import assign

        return _keras_runner(assign(model.model, arrays.items()))
    import flax

    from paramcount.porting.write import nest

    variables = nest(arrays.items())
    return Runner(lambda x: model.model.apply(variables, x), f"flax {flax.__version__}",
                  flax_layout())


def _torch_runner(module: Any, state: dict[str, Any], first: Any) -> Runner:
    import torch

    module.load_state_dict({k: torch.as_tensor(v) for k, v in state.items()}, strict=True)
    module.eval()

    def run(x: Any) -> Any:
        with torch.no_grad():
            return _first(module(torch.from_numpy(x))).numpy()

    return Runner(run, f"torch {torch.__version__}", torch_layout(first))


def _keras_runner(model: Any) -> Runner:
    import keras

    def run(x: Any) -> Any:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "__array__ implementation", DeprecationWarning)
            return _first(model(x.astype("int32") if x.dtype.kind == "i" else x,
                                training=False))

    return Runner(run, f"keras {keras.__version__}", keras_layout(model))


def source_runner(path: str, fmt: str, factory: str | None, kwargs: dict[str, Any],
                  fetch: Callable[[str], Any], names: list[str], first: Any
                  ) -> Runner | None:
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
    return _torch_runner(built.model, {name: fetch(name) for name in names}, first)
