"""Hypothesis strategies that draw valid LayerSpecs in either convention."""

from __future__ import annotations

from hypothesis import strategies as st

from paramcount.engine.spec import Cell, Framework, LayerSpec, MergeMode, Nonlinearity


@st.composite
def layer_specs(
    draw: st.DrawFn,
    frameworks: tuple[Framework, ...] = (Framework.TORCH, Framework.KERAS),
    max_size: int = 64,
    max_layers: int = 4,
) -> LayerSpec:
    """A random configuration that its framework accepts."""
    framework = draw(st.sampled_from(frameworks))
    cell = draw(st.sampled_from(list(Cell)))
    single = draw(st.booleans()) and draw(st.booleans())
    hidden = draw(st.integers(1, max_size))
    layers = 1 if single else draw(st.integers(1, max_layers))
    bidirectional = False if single else draw(st.booleans())
    proj = 0
    if framework is Framework.TORCH and cell is Cell.LSTM and not single and hidden > 1:
        proj = draw(st.one_of(st.just(0), st.integers(1, hidden - 1)))
    modes = None
    if framework is Framework.KERAS and bidirectional and draw(st.booleans()):
        inner = st.sampled_from([m for m in MergeMode if m is not MergeMode.NONE])
        last = draw(st.sampled_from(list(MergeMode)))
        modes = (*(draw(inner) for _ in range(layers - 1)), last)
    reset_after = None
    if cell is Cell.GRU and framework is Framework.KERAS:
        reset_after = draw(st.sampled_from([None, True, False]))
    nonlinearity = None
    if cell is Cell.RNN:
        nonlinearity = draw(st.sampled_from([None, *Nonlinearity]))
    return LayerSpec(
        cell=cell,
        input_size=draw(st.integers(1, max_size)),
        hidden_size=hidden,
        num_layers=layers,
        bidirectional=bidirectional,
        bias=draw(st.booleans()),
        proj_size=proj,
        framework=framework,
        merge_modes=modes,
        reset_after=reset_after,
        nonlinearity=nonlinearity,
        single_cell=single,
    )
