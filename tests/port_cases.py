"""Random port sources for the port tests: a side in any convention, and its random weights."""

from __future__ import annotations

import random
from typing import Any

from paramcount.engine import conventions
from paramcount.engine.spec import Cell, Framework, LayerSpec, Nonlinearity
from paramcount.porting.layouts import Side
from paramcount.porting.plan import TargetOptions

ALWAYS_BIASED = (Framework.FLAX_LINEN, Framework.FLAX_NNX, Framework.TF1, Framework.TF1_CUDNN)
RUNNABLE = (Framework.TORCH, Framework.KERAS, Framework.ONNX, Framework.FLAX_LINEN,
            Framework.FLAX_NNX)
"""The conventions whose real layers run here (TF1's do not install next to TensorFlow 2)."""


def random_side(rng: random.Random, framework: Framework, cell: Cell | None = None,
                max_size: int = 5, max_layers: int = 3) -> Side:
    """A random stack in ``framework``'s convention, as a file would hold it."""
    cell = cell or rng.choice([c for c in Cell
                               if not (framework is Framework.TF1_CUDNN and c is Cell.RNN)])
    single = framework not in (Framework.ONNX, Framework.TF1_CUDNN) and rng.random() < 0.15
    hidden = rng.randint(2, max_size)
    proj = 0
    if cell is Cell.LSTM and not single and framework in (Framework.TORCH, Framework.TF1) \
            and rng.random() < 0.3:
        proj = rng.randint(1, hidden - 1)
    peepholes = cell is Cell.LSTM and framework in (Framework.ONNX, Framework.TF1) and \
        rng.random() < 0.3
    reset_after = True
    spec_reset_after = None
    if cell is Cell.GRU:
        if framework is Framework.KERAS:
            reset_after = spec_reset_after = rng.random() < 0.6
        elif framework is Framework.ONNX:
            reset_after = rng.random() < 0.6
        elif framework is Framework.TF1:
            reset_after = False
    spec = LayerSpec(
        cell=cell,
        input_size=rng.randint(1, max_size),
        hidden_size=hidden,
        num_layers=1 if single else rng.randint(1, max_layers),
        bidirectional=not single and rng.random() < 0.5,
        bias=framework in ALWAYS_BIASED or rng.random() < 0.75,
        proj_size=proj,
        framework=framework,
        reset_after=spec_reset_after,
        nonlinearity=rng.choice(list(Nonlinearity)) if cell is Cell.RNN else None,
        single_cell=single,
        peepholes=peepholes,
    )
    forget_bias = rng.choice([1.0, 0.5, 0.0]) if framework is Framework.TF1 else 0.0
    return Side(spec, reset_after=reset_after, forget_bias=forget_bias)


def random_arrays(side: Side, seed: int) -> dict[str, Any]:
    """Random non-zero float32 weights and biases for every tensor of ``side``."""
    import numpy as np

    rng = np.random.default_rng(seed)
    return {side.name(t): (rng.standard_normal(t.shape) * 0.5).astype(np.float32)
            for t in conventions.tensors(side.spec)}


def options_for(side: Side) -> TargetOptions:
    """The target options that make ``side`` itself the target of a port back to it."""
    spec = side.spec
    return TargetOptions(
        side.framework,
        reset_after=spec.reset_after if side.framework is Framework.KERAS else None,
        linear_before_reset=side.reset_after if side.framework is Framework.ONNX else None,
        merge_modes=spec.merge_modes,
        forget_bias=side.forget_bias if side.framework is Framework.TF1 else 1.0,
    )
