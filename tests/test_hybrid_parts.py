"""The hybrids' parts as conventions: random spec → named tensors → spec read back, which writes
the same tensors; each part's closed form equals its tensors."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paramcount.families import linear_mixers, mixers, streams

small = st.integers(1, 6)
bools = st.booleans()


@st.composite
def attention(draw: st.DrawFn) -> mixers.Attention:
    """A random grouped-query attention."""
    return mixers.Attention(draw(small), draw(small), draw(small), draw(small), draw(small),
                            draw(bools), draw(st.sampled_from(mixers.OUT_NAMES)), draw(bools))


@st.composite
def mlp(draw: st.DrawFn) -> mixers.Mlp:
    """A random MLP of any style."""
    return mixers.Mlp(draw(small), draw(small), draw(bools),
                      draw(st.sampled_from(list(mixers.MLP_STYLES))))


@st.composite
def experts(draw: st.DrawFn) -> mixers.Experts:
    """A random mixture of experts (Jamba's, LFM2-MoE's, Qwen3-Next's with a shared expert,
    or Nemotron-H's with a shared expert and a latent width)."""
    style = draw(st.sampled_from(mixers.MOE_STYLES))
    if style in ("jamba", "lfm2_moe", "mixtral"):
        return mixers.Experts(draw(small), draw(small), draw(small), draw(small), style)
    if style in ("qwen_next", "lara", "kimi"):
        return mixers.Experts(draw(small), draw(small), draw(small), draw(small), style,
                              draw(small))
    return mixers.Experts(draw(small), draw(small), draw(small), draw(small), style,
                          draw(small), draw(st.one_of(st.none(), small)), draw(bools))


@st.composite
def mamba(draw: st.DrawFn) -> mixers.Mamba:
    """A random Jamba Mamba mixer."""
    return mixers.Mamba(draw(small), draw(small), draw(small), draw(small), draw(small),
                        draw(bools), draw(bools), draw(bools))


@st.composite
def mamba2(draw: st.DrawFn) -> mixers.Mamba2:
    """A random Mamba-2 mixer."""
    return mixers.Mamba2(draw(small), draw(small), draw(small), draw(small), draw(small),
                         draw(small), draw(bools), draw(bools), draw(bools), draw(bools))


@st.composite
def short_conv(draw: st.DrawFn) -> mixers.ShortConv:
    """A random LFM2 short convolution."""
    return mixers.ShortConv(draw(small), draw(small), draw(bools))


@st.composite
def latent_attention(draw: st.DrawFn) -> mixers.LatentAttention:
    """A random latent attention (q through a low rank or not; Ling's output gate or not)."""
    return mixers.LatentAttention(draw(small), draw(small), draw(small), draw(small),
                                  draw(small), draw(small), draw(st.one_of(st.none(), small)),
                                  draw(bools), draw(bools))


@st.composite
def latent_attention_no_rope(draw: st.DrawFn) -> mixers.LatentAttention:
    """A random latent attention without a rope part (GLM-5-Next's), q through a low rank."""
    return mixers.LatentAttention(draw(small), draw(small), draw(small), 0, draw(small),
                                  draw(small), draw(small), draw(bools))


@st.composite
def kda(draw: st.DrawFn) -> linear_mixers.KimiDeltaAttention:
    """A random Kimi Delta Attention of each style (Kimi's, Ling's, GLM-5-Next's)."""
    return linear_mixers.KimiDeltaAttention(draw(small), draw(small), draw(small), draw(small),
                                            draw(st.sampled_from(linear_mixers.KDA_STYLES)))


@st.composite
def cca(draw: st.DrawFn) -> mixers.CcaAttention:
    """A random ZAYA CCA attention."""
    kv = draw(small)
    return mixers.CcaAttention(draw(small), kv * draw(small), kv, draw(small), draw(small),
                               draw(small), draw(bools))


@st.composite
def routed_experts(draw: st.DrawFn) -> mixers.RoutedExperts:
    """A random ZAYA mixture of experts (its first layer's router, or another's)."""
    return mixers.RoutedExperts(draw(small), draw(small), draw(small), draw(small), draw(bools))


PARTS: dict[str, tuple[Any, Any]] = {
    "attention": (attention(), lambda shapes: mixers.read_attention(shapes, "p.")),
    "mlp": (mlp(), None),
    "experts": (experts(), None),
    "mamba": (mamba(), lambda shapes: mixers.read_mamba(shapes, "p.")),
    "mamba2": (mamba2(), lambda shapes: mixers.read_mamba2(shapes, "p.")),
    "short_conv": (short_conv(), lambda shapes: mixers.read_short_conv(shapes, "p.")),
    "latent_attention": (latent_attention(),
                         lambda shapes: mixers.read_latent_attention(shapes, "p.")),
    "latent_attention_no_rope": (latent_attention_no_rope(), lambda shapes: (
        mixers.read_latent_attention(shapes, "p.", no_rope=True))),
    "kda": (kda(), lambda shapes: linear_mixers.read_kda(shapes, "p.")),
    "cca": (cca(), lambda shapes: mixers.read_cca(shapes, "p.")),
    "routed_experts": (routed_experts(),
                       lambda shapes: mixers.read_routed_experts(shapes, "p.")),
}
"""Each part's strategy and reader (MLPs and experts are read with what the caller knows:
their style, and the experts a token uses)."""


def read(name: str, spec: Any, shapes: dict[str, tuple[int, ...]]) -> Any:
    """The part ``name`` read back from ``shapes``."""
    if name == "mlp":
        return mixers.read_mlp(shapes, "p.", spec.style)
    if name == "experts":
        return mixers.read_experts(shapes, "p.", spec.top_k)
    return PARTS[name][1](shapes)


@pytest.mark.parametrize("name", list(PARTS))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_part_read_back_writes_the_same_tensors(name: str, data: st.DataObject) -> None:
    """spec → tensors → spec read back → the same names and shapes, in order; the closed form
    equals the tensors' sum."""
    spec = data.draw(PARTS[name][0])
    written = [(t.name, t.shape) for t in spec.tensors("p.", 0)]
    assert spec.count == sum(t.count for t in spec.tensors("p.", 0))
    back = read(name, spec, dict(written))
    assert back is not None
    assert [(t.name, t.shape) for t in back.tensors("p.", 0)] == written


@settings(max_examples=40, deadline=None)
@given(spec=experts())
def test_active_experts_leave_out_the_experts_a_token_skips(spec: mixers.Experts) -> None:
    """Active parameters: the total less (experts − top_k) experts, never below the rest."""
    idle = max(spec.experts - spec.top_k, 0) * spec.per_expert
    assert spec.active == spec.count - idle
    assert spec.count - spec.experts * spec.per_expert <= spec.active <= spec.count


@st.composite
def stream_parts(draw: st.DrawFn) -> Any:
    """A random GLM-5-Next hyper-connection, or latent attention with its DSA indexer (or a
    shared layer's, without)."""
    if draw(bools):
        return streams.HyperConnection(draw(small), draw(small))
    return streams.SparseIndexedAttention(draw(latent_attention_no_rope()), draw(small),
                                          draw(small), draw(small), draw(bools))


@settings(max_examples=60, deadline=None)
@given(spec=stream_parts())
def test_a_stream_parts_closed_form_is_its_tensors(spec: Any) -> None:
    """GLM-5-Next's hyper-connection and indexed latent attention: the closed form equals the
    tensors' sum, and the indexer's tensors are there only on a full layer."""
    written = spec.tensors("p.", 0)
    assert spec.count == sum(t.count for t in written)
    if isinstance(spec, streams.SparseIndexedAttention):
        assert any(".indexer." in t.name for t in written) == spec.full


def test_a_part_that_is_not_there_is_not_read() -> None:
    """Missing or malformed tensors read as nothing."""
    assert mixers.read_attention({"p.q_proj.weight": (4, 2)}, "p.") is None
    assert mixers.read_mamba2({"p.dt_bias": (2, 2)}, "p.") is None
    assert mixers.read_short_conv({"p.conv.weight": (4, 3)}, "p.") is None
    assert mixers.read_experts({"p.experts.down_proj": (2, 3)}, "p.", 1) is None
    assert mixers.read_latent_attention({"p.kv_b_proj.weight": (4, 2)}, "p.") is None
    assert mixers.read_cca({"p.qkv_proj.q_proj.weight": (4, 2)}, "p.") is None
    assert mixers.read_routed_experts({"p.experts.down_proj": (2, 3, 4)}, "p.") is None
