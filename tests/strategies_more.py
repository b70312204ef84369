"""Hypothesis strategies for the ONNX, Flax and TF1 conventions."""

from __future__ import annotations

from hypothesis import strategies as st

from paramcount.engine.spec import Cell, Framework, LayerSpec, Nonlinearity

MORE = (
    Framework.ONNX,
    Framework.FLAX_LINEN,
    Framework.FLAX_NNX,
    Framework.TF1,
    Framework.TF1_CUDNN,
)
ALWAYS_BIASED = (Framework.FLAX_LINEN, Framework.FLAX_NNX, Framework.TF1, Framework.TF1_CUDNN)


@st.composite
def more_specs(
    draw: st.DrawFn,
    frameworks: tuple[Framework, ...] = MORE,
    max_size: int = 24,
    max_layers: int = 3,
) -> LayerSpec:
    """A random configuration that one of the newer (or legacy) frameworks accepts."""
    framework = draw(st.sampled_from(frameworks))
    cells = [Cell.LSTM, Cell.GRU] if framework is Framework.TF1_CUDNN else list(Cell)
    cell = draw(st.sampled_from(cells))
    can_be_cell = framework not in (Framework.ONNX, Framework.TF1_CUDNN)
    single = can_be_cell and draw(st.booleans()) and draw(st.booleans())
    layers = 1 if single else draw(st.integers(1, max_layers))
    bidirectional = False if single else draw(st.booleans())
    bias = True if framework in ALWAYS_BIASED else draw(st.booleans())
    peepholes = (
        cell is Cell.LSTM and framework in (Framework.ONNX, Framework.TF1) and draw(st.booleans())
    )
    proj = 0
    if framework is Framework.TF1 and cell is Cell.LSTM:
        proj = draw(st.one_of(st.just(0), st.integers(1, max_size)))
    nonlinearity = draw(st.sampled_from([None, *Nonlinearity])) if cell is Cell.RNN else None
    return LayerSpec(
        cell=cell,
        input_size=draw(st.integers(1, max_size)),
        hidden_size=draw(st.integers(1, max_size)),
        num_layers=layers,
        bidirectional=bidirectional,
        bias=bias,
        proj_size=proj,
        framework=framework,
        nonlinearity=nonlinearity,
        single_cell=single,
        peepholes=peepholes,
    )
