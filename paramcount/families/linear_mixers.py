"""The linear-attention mixers the newer hybrids are built from, each a part as in
:mod:`paramcount.families.mixers`: Gated DeltaNet (Qwen3-Next's fused projections, Qwen3.5's
separate ones, OLMo Hybrid's), Kimi Delta Attention (Kimi Linear's and Ling's) and MiniMax's
lightning attention.

Each part is a spec with ``tensors(prefix, layer)`` (names and shapes as transformers' module
registers them: its own parameters first, then its children in the order ``__init__`` creates
them), ``count`` in closed form and a ``read_…`` function that reads the spec back from named
tensors, or None where they are not that part. Pure: no framework import.
"""

from __future__ import annotations

from paramcount.engine.conventions.base import Tensor
from paramcount.engine.conventions.recognition import Shapes, is_shape
from paramcount.families.parts import depthwise_conv, linear, norm, sizes, tensor
from paramcount.families.state import Piece, convolution
from paramcount.record import record

DELTANET_STYLES = ("fused", "split", "olmo")
"""How a Gated DeltaNet names its input projections: Qwen3-Next's ``in_proj_qkvz`` and
``in_proj_ba`` (``fused``), Qwen3.5's ``in_proj_qkv``, ``in_proj_z``, ``in_proj_b`` and
``in_proj_a`` (``split``), OLMo Hybrid's ``q_proj``, ``k_proj``, ``v_proj``, ``a_proj``,
``b_proj``, the gate ``g_proj``, then ``o_proj``, the conv and the norm ``o_norm``
(``olmo``: ``A_log`` before ``dt_bias``)."""


@record
class GatedDeltaNet:
    """A Gated DeltaNet mixer: ``dt_bias`` and ``A_log`` (one per value head), a depthwise
    conv (no bias) over q, k and v (2·Hk·dk + Hv·dv channels), the input projections (q, k, v,
    the output gate z (Hv·dv), and b and a (one per value head each)), a gated RMSNorm over a
    value head (dv) and ``out_proj`` (D, Hv·dv), without biases; named and ordered as
    ``style`` says (:data:`DELTANET_STYLES`)."""

    width: int
    key_heads: int
    value_heads: int
    key_dim: int
    value_dim: int
    kernel: int
    style: str = "fused"

    def __post_init__(self) -> None:
        sizes(self, "width", "key_heads", "value_heads", "key_dim", "value_dim", "kernel")

    @property
    def keys(self) -> int:
        """Hk·dk: the width of q and of k."""
        return self.key_heads * self.key_dim

    @property
    def values(self) -> int:
        """Hv·dv: the width of v and of the gate z."""
        return self.value_heads * self.value_dim

    @property
    def conv_dim(self) -> int:
        """2·Hk·dk + Hv·dv: the channels of q, k and v the convolution mixes."""
        return 2 * self.keys + self.values

    def tensors(self, prefix: str, layer: int) -> list[Tensor]:
        """dt_bias and A_log, then the conv, the projections, the norm and out_proj in the
        order the style's module creates them."""
        d, h, c, v = self.width, self.value_heads, self.conv_dim, self.values
        if self.style == "olmo":
            out = [tensor(prefix + name, (h,), layer, d, name) for name in ("A_log", "dt_bias")]
            for name, rows in (("q", self.keys), ("k", self.keys), ("v", v), ("a", h), ("b", h),
                               ("g", v)):
                out += linear(f"{prefix}{name}_proj.", rows, d, False, layer)
            out += linear(prefix + "o_proj.", d, v, False, layer)
            out += depthwise_conv(prefix + "conv1d.", c, self.kernel, False, layer)
            return out + norm(prefix + "o_norm.", self.value_dim, layer)
        out = [tensor(prefix + name, (h,), layer, d, name) for name in ("dt_bias", "A_log")]
        out += depthwise_conv(prefix + "conv1d.", c, self.kernel, False, layer)
        tail = norm(prefix + "norm.", self.value_dim, layer)
        tail += linear(prefix + "out_proj.", d, v, False, layer)
        if self.style == "fused":
            out += linear(prefix + "in_proj_qkvz.", c + v, d, False, layer)
            out += linear(prefix + "in_proj_ba.", 2 * h, d, False, layer)
            return out + tail
        out += tail
        out += linear(prefix + "in_proj_qkv.", c, d, False, layer)
        out += linear(prefix + "in_proj_z.", v, d, False, layer)
        out += linear(prefix + "in_proj_b.", h, d, False, layer)
        out += linear(prefix + "in_proj_a.", h, d, False, layer)
        return out

    def cache(self) -> tuple[Piece, ...]:
        """Its cache: the conv's last K inputs (q, k and v: C channels) and each value head's
        recurrent state (dk, dv), Hv·dk·dv in all, float32 whatever the model's dtype (as
        transformers' delta rule leaves it)."""
        return (convolution(self.conv_dim, self.kernel),
                Piece("recurrent", fixed=self.value_heads * self.key_dim * self.value_dim,
                      dtype="fp32"))

    @property
    def count(self) -> int:
        """2·Hv + C·K + (C + Hv·dv + 2·Hv)·D + dv + D·Hv·dv, C = 2·Hk·dk + Hv·dv."""
        d, h, c, v = self.width, self.value_heads, self.conv_dim, self.values
        return 2 * h + c * self.kernel + (c + v + 2 * h) * d + self.value_dim + d * v


def read_gated_deltanet(shapes: Shapes, prefix: str, key_dim: int | None = None
                        ) -> GatedDeltaNet | None:
    """The Gated DeltaNet under ``prefix`` (``…linear_attn.``), or None. Its norm tells the
    value head's width and ``A_log`` the value heads; the keys' heads against their width is
    what the weights cannot tell: ``key_dim`` if it divides Hk·dk, else one head."""
    olmo = prefix + "o_norm.weight" in shapes
    a, conv, out, gate_norm = (shapes.get(prefix + n) for n in (
        "A_log", "conv1d.weight", "o_proj.weight" if olmo else "out_proj.weight",
        "o_norm.weight" if olmo else "norm.weight"))
    if not (is_shape(a, 1) and is_shape(conv, 3) and is_shape(out, 2)
            and is_shape(gate_norm, 1)):
        return None
    assert a is not None and conv is not None and out is not None and gate_norm is not None
    heads, value_dim = a[0], gate_norm[0]
    keys2 = conv[0] - heads * value_dim
    if keys2 < 2 or keys2 % 2 or out[1] != heads * value_dim:
        return None
    keys = keys2 // 2
    if key_dim is None or keys % key_dim:
        key_dim = keys
    style = "olmo" if olmo else "fused" if prefix + "in_proj_qkvz.weight" in shapes else "split"
    return GatedDeltaNet(out[0], keys // key_dim, heads, key_dim, value_dim, conv[2], style)


@record
class LightningAttention:
    """MiniMax's lightning attention: an RMSNorm over the heads' output (H·hd), ``qkv_proj``
    (3·H·hd, D), ``out_proj`` (D, H·hd) and ``output_gate`` (H·hd, D), without biases (its
    decay rates are buffers, not parameters)."""

    width: int
    heads: int
    head_dim: int

    def __post_init__(self) -> None:
        sizes(self, "width", "heads", "head_dim")

    def tensors(self, prefix: str, layer: int) -> list[Tensor]:
        """The norm, then qkv_proj, out_proj and output_gate."""
        d, inner = self.width, self.heads * self.head_dim
        out = norm(prefix + "norm.", inner, layer)
        out += linear(prefix + "qkv_proj.", 3 * inner, d, False, layer)
        out += linear(prefix + "out_proj.", d, inner, False, layer)
        out += linear(prefix + "output_gate.", inner, d, False, layer)
        return out

    def cache(self) -> tuple[Piece, ...]:
        """Its cache: each head's key-value state (hd, hd), H·hd² in all (no convolution)."""
        return (Piece("kv", fixed=self.heads * self.head_dim * self.head_dim),)

    @property
    def count(self) -> int:
        """H·hd·(1 + 5D): the norm, q, k, v, the output and its gate."""
        return self.heads * self.head_dim * (1 + 5 * self.width)


def read_lightning(shapes: Shapes, prefix: str, head_dim: int | None = None
                   ) -> LightningAttention | None:
    """The lightning attention under ``prefix``, or None; the weights hold only heads × width:
    ``head_dim`` if it divides them, else one head."""
    qkv, gate_norm = shapes.get(prefix + "qkv_proj.weight"), shapes.get(prefix + "norm.weight")
    if not (is_shape(qkv, 2) and is_shape(gate_norm, 1)):
        return None
    assert qkv is not None and gate_norm is not None
    inner = gate_norm[0]
    if qkv[0] != 3 * inner:
        return None
    if head_dim is None or inner % head_dim:
        head_dim = inner
    return LightningAttention(qkv[1], inner // head_dim, head_dim)


KDA_STYLES = ("kimi", "bailing", "glm5")
"""Kimi Linear's KDA gates through low ranks (``f_a_proj``, ``f_b_proj``, ``g_a_proj``,
``g_b_proj``; ``A_log`` (1, 1, H, 1) after ``dt_bias``); GLM-5-Next's the same with ``A_log``
(H); Ling's (``BailingHybridDeltaAttention``)
at full rank (``forget_gate.f_proj`` (H·hd, D) after ``A_log`` (H) and ``dt_bias``, the output
gate ``g_proj`` (H·hd, D) last, after ``o_norm`` and ``o_proj``)."""


@record
class KimiDeltaAttention:
    """Kimi Delta Attention (KDA): q, k, v (H·hd, D each), a depthwise conv over the three
    (3·H·hd channels, no bias), the forget gate (``forget_gate``: ``dt_bias`` (H·hd), ``A_log``
    (1, 1, H, 1), a low-rank ``f_a_proj`` (hd, D) and ``f_b_proj`` (H·hd, hd)), ``b_proj``
    (H, D), the output gate's low-rank ``g_a_proj`` (hd, D) and ``g_b_proj`` (H·hd, hd), the
    gated ``o_norm`` (hd) and ``o_proj`` (D, H·hd), without biases; the gates at full rank in
    ``style`` ``bailing``, ``A_log`` (H) in ``glm5`` (:data:`KDA_STYLES`)."""

    width: int
    heads: int
    head_dim: int
    kernel: int
    style: str = "kimi"

    def __post_init__(self) -> None:
        sizes(self, "width", "heads", "head_dim", "kernel")

    def tensors(self, prefix: str, layer: int) -> list[Tensor]:
        """q, k, v, the conv, the forget gate, b, the output gate, the norm and o_proj."""
        d, h, hd = self.width, self.heads, self.head_dim
        inner = h * hd
        out = []
        for name in "qkv":
            out += linear(f"{prefix}{name}_proj.", inner, d, False, layer)
        out += depthwise_conv(prefix + "conv1d.", 3 * inner, self.kernel, False, layer)
        gate = prefix + "forget_gate."
        if self.style == "bailing":
            out += [tensor(gate + "A_log", (h,), layer, d, "A_log"),
                    tensor(gate + "dt_bias", (inner,), layer, d, "dt_bias")]
            out += linear(gate + "f_proj.", inner, d, False, layer)
            out += linear(prefix + "b_proj.", h, d, False, layer)
            out += norm(prefix + "o_norm.", hd, layer)
            out += linear(prefix + "o_proj.", d, inner, False, layer)
            return out + linear(prefix + "g_proj.", inner, d, False, layer)
        out += [tensor(gate + "dt_bias", (inner,), layer, d, "dt_bias"),
                tensor(gate + "A_log", (h,) if self.style == "glm5" else (1, 1, h, 1), layer,
                       d, "A_log")]
        out += linear(gate + "f_a_proj.", hd, d, False, layer)
        out += linear(gate + "f_b_proj.", inner, hd, False, layer)
        out += linear(prefix + "b_proj.", h, d, False, layer)
        out += linear(prefix + "g_a_proj.", hd, d, False, layer)
        out += linear(prefix + "g_b_proj.", inner, hd, False, layer)
        out += norm(prefix + "o_norm.", hd, layer)
        return out + linear(prefix + "o_proj.", d, inner, False, layer)

    def cache(self) -> tuple[Piece, ...]:
        """Its cache: the conv's last K inputs (q, k and v: 3·H·hd channels) and each head's
        recurrent state (hd, hd), H·hd² in all, float32 whatever the model's dtype (as
        transformers keeps it)."""
        inner = self.heads * self.head_dim
        return (convolution(3 * inner, self.kernel),
                Piece("recurrent", fixed=inner * self.head_dim, dtype="fp32"))

    @property
    def count(self) -> int:
        """3·C·D + 3·C·K + C + H + H·D + hd + D·C and the gates: 2·(hd·D + C·hd) at low rank
        (Kimi), 2·C·D at full rank (Ling), C = H·hd."""
        d, h, hd = self.width, self.heads, self.head_dim
        c = h * hd
        gates = 2 * c * d if self.style == "bailing" else 2 * (hd * d + c * hd)
        return 3 * c * d + 3 * c * self.kernel + c + h + gates + h * d + hd + d * c


def read_kda(shapes: Shapes, prefix: str) -> KimiDeltaAttention | None:
    """The Kimi Delta Attention under ``prefix`` (``…self_attn.``), of either style, or None:
    its ``o_norm`` tells a head's width, ``A_log`` the heads."""
    a, conv, o_norm, q = (shapes.get(prefix + n) for n in (
        "forget_gate.A_log", "conv1d.weight", "o_norm.weight", "q_proj.weight"))
    if not ((is_shape(a, 4) or is_shape(a, 1)) and is_shape(conv, 3) and is_shape(o_norm, 1)
            and is_shape(q, 2)):
        return None
    assert a is not None and conv is not None and o_norm is not None and q is not None
    if len(a) == 1:
        style = "glm5" if prefix + "forget_gate.f_a_proj.weight" in shapes else "bailing"
        return KimiDeltaAttention(q[1], a[0], o_norm[0], conv[2], style)
    return KimiDeltaAttention(q[1], a[2], o_norm[0], conv[2])
