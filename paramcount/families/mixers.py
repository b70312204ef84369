"""The parts the hybrid families are built from, each a convention: grouped-query attention,
MLPs (gated or not), mixtures of experts, Mamba and Mamba-2 mixers, short convolutions.

Each part is a spec (a record of the widths its tensors have) with ``tensors(prefix, layer)``
(names and shapes as transformers' module registers them: a module's own parameters first, then
its children in the order ``__init__`` creates them), ``count`` in closed form, and a ``read_…``
function that reads the spec back from named tensors, or None where they are not that part.
A part read back writes exactly the tensors it was read from (``tests/test_hybrid_parts.py``);
what the shapes cannot tell (attention heads against head width, for one) is chosen by a hint
and said by the caller. Pure: no framework import.
"""

from __future__ import annotations

from math import gcd

from paramcount.engine.conventions.base import Tensor
from paramcount.engine.conventions.recognition import Shapes, is_shape
from paramcount.families.parts import depthwise_conv, linear, norm, sizes, tensor
from paramcount.families.state import Piece, attention, convolution
from paramcount.record import record

OUT_NAMES = ("o_proj", "out_proj")
"""How an attention's output projection is named (LFM2: ``out_proj``)."""


def _bias_count(bias: bool, rows: int) -> int:
    return rows if bias else 0


@record
class Attention:
    """Grouped-query attention: q (heads·head_dim), k and v (kv_heads·head_dim) from ``width``
    features, o back to ``out``; biases on all four when ``bias`` (on o alone: ``out_bias``);
    RMSNorms over each head's q and k when ``qk_norm`` (LFM2's ``q_layernorm``)."""

    width: int
    heads: int
    kv_heads: int
    head_dim: int
    out: int
    bias: bool = False
    out_name: str = "o_proj"
    qk_norm: bool = False

    def __post_init__(self) -> None:
        sizes(self, "width", "heads", "kv_heads", "head_dim", "out")

    def tensors(self, prefix: str, layer: int) -> list[Tensor]:
        """q, k, v and o (and the q/k norms), in ``named_parameters()`` order."""
        q, kv, w = self.heads * self.head_dim, self.kv_heads * self.head_dim, self.width
        out = linear(prefix + "q_proj.", q, w, self.bias, layer)
        out += linear(prefix + "k_proj.", kv, w, self.bias, layer)
        out += linear(prefix + "v_proj.", kv, w, self.bias, layer)
        out += linear(f"{prefix}{self.out_name}.", self.out, q, self.bias, layer)
        if self.qk_norm:
            out += norm(prefix + "q_layernorm.", self.head_dim, layer)
            out += norm(prefix + "k_layernorm.", self.head_dim, layer)
        return out

    def cache(self) -> tuple[Piece, ...]:
        """Its cache: keys and values, kv_heads·head_dim each per token."""
        return attention(self.kv_heads, self.head_dim)

    @property
    def count(self) -> int:
        """(q + 2·kv)·(width + b) + out·(q + b) + 2·head_dim·qk_norm."""
        q, kv, b = self.heads * self.head_dim, self.kv_heads * self.head_dim, int(self.bias)
        return ((q + 2 * kv) * (self.width + b) + self.out * (q + b)
                + 2 * self.head_dim * int(self.qk_norm))


def read_attention(shapes: Shapes, prefix: str, head_dim: int | None = None,
                   rope: bool = False) -> Attention | None:
    """The attention under ``prefix`` (``…self_attn.``), or None. Its q/k norms tell the head
    width; without them ``head_dim`` is taken if it divides q's and k's rows, else the largest
    width that does (heads × width is all the weights hold) — with ``rope``, the largest that
    transformers' rotary embedding accepts (even, or at most 4)."""
    q, k, v = (shapes.get(f"{prefix}{n}_proj.weight") for n in "qkv")
    out_name = next((n for n in OUT_NAMES if f"{prefix}{n}.weight" in shapes), None)
    if out_name is None or not (is_shape(q, 2) and is_shape(k, 2) and k == v):
        return None
    o = shapes[f"{prefix}{out_name}.weight"]
    assert q is not None and k is not None
    if not is_shape(o, 2) or q[1] != k[1] or o[1] != q[0]:
        return None
    qk_norm = shapes.get(prefix + "q_layernorm.weight")
    if qk_norm is not None:
        if not is_shape(qk_norm, 1):
            return None
        head_dim = qk_norm[0]
    elif head_dim is None or q[0] % head_dim or k[0] % head_dim:
        common = gcd(q[0], k[0])
        head_dim = common
        if rope and common > 4 and common % 2:  # odd: its largest divisor of at most 4
            head_dim = max(n for n in (1, 2, 3, 4) if common % n == 0)
    if q[0] % head_dim or k[0] % head_dim:
        return None
    return Attention(q[1], q[0] // head_dim, k[0] // head_dim, head_dim, o[0],
                     prefix + "q_proj.bias" in shapes, out_name, qk_norm is not None)


MLP_STYLES = {
    "gate_up_down": ("gate_proj", "up_proj", "down_proj"),
    "w1_w3_w2": ("w1", "w3", "w2"),
    "gate_up_fused": ("gate_up_proj", "", "down_proj"),
    "up_down": ("", "up_proj", "down_proj"),
}
"""How each model names its MLP's projections: the gate, the up and the down projection (LFM2's
SwiGLU is ``w1``, ``w3``, ``w2``; Zamba2's gate and up are one ``gate_up_proj``; Nemotron-H's
squared-ReLU MLP has no gate)."""


@record
class Mlp:
    """An MLP from ``width`` features through ``inner`` and back: gated (gate and up, then down)
    unless ``style`` is ``up_down``; biases when ``bias``."""

    width: int
    inner: int
    bias: bool = False
    style: str = "gate_up_down"

    def __post_init__(self) -> None:
        sizes(self, "width", "inner")

    def tensors(self, prefix: str, layer: int) -> list[Tensor]:
        """The projections, in ``named_parameters()`` order."""
        gate, up, down = MLP_STYLES[self.style]
        w, i, b = self.width, self.inner, self.bias
        out = []
        if self.style == "gate_up_fused":
            out += linear(f"{prefix}{gate}.", 2 * i, w, b, layer)
        else:
            if gate:
                out += linear(f"{prefix}{gate}.", i, w, b, layer)
            out += linear(f"{prefix}{up}.", i, w, b, layer)
        out += linear(f"{prefix}{down}.", w, i, b, layer)
        return out

    @property
    def count(self) -> int:
        """g·I·(W + b) + I·(W + b) + W·(I + b), g = 1 with a gate."""
        w, i, b = self.width, self.inner, int(self.bias)
        gated = int(self.style != "up_down")
        return (1 + gated) * i * (w + b) + w * (i + b)


def read_mlp(shapes: Shapes, prefix: str, style: str) -> Mlp | None:
    """The MLP of ``style`` under ``prefix``, or None."""
    down = MLP_STYLES[style][2]
    d = shapes.get(f"{prefix}{down}.weight")
    if not is_shape(d, 2):
        return None
    assert d is not None
    return Mlp(d[0], d[1], f"{prefix}{down}.bias" in shapes, style)


MOE_STYLES = ("jamba", "nemotron_h")
"""Jamba's experts are gated (``router``, ``experts.gate_up_proj``, ``experts.down_proj``);
Nemotron-H's are squared-ReLU MLPs (``experts.up_proj``, ``experts.down_proj``, the router
``gate``) beside a shared expert, optionally in a narrower latent space."""


@record
class Experts:
    """A mixture of ``experts`` MLPs ``inner`` wide (each token routed to ``top_k``), the router,
    and in Nemotron-H a shared expert ``shared_inner`` wide and the latent projections."""

    width: int
    inner: int
    experts: int
    top_k: int
    style: str = "jamba"
    shared_inner: int = 0
    latent: int | None = None
    bias: bool = False
    """The shared expert's and the latent projections' biases (``mlp_bias``)."""

    def __post_init__(self) -> None:
        sizes(self, "width", "inner", "experts", "top_k")

    @property
    def reads(self) -> int:
        """What each expert reads: the latent width, or the model's."""
        return self.width if self.latent is None else self.latent

    @property
    def per_expert(self) -> int:
        """One expert's parameters."""
        return (3 if self.style == "jamba" else 2) * self.inner * self.reads

    def tensors(self, prefix: str, layer: int) -> list[Tensor]:
        """The router, the experts' stacked weights, the shared expert and latent projections."""
        e, i, d, r = self.experts, self.inner, self.width, self.reads
        if self.style == "jamba":
            return [tensor(prefix + "router.weight", (e, d), layer, d, "router"),
                    tensor(prefix + "experts.gate_up_proj", (e, 2 * i, d), layer, d,
                           "experts.gate_up_proj"),
                    tensor(prefix + "experts.down_proj", (e, d, i), layer, i,
                           "experts.down_proj")]
        out = [tensor(prefix + "experts.up_proj", (e, i, r), layer, r, "experts.up_proj"),
               tensor(prefix + "experts.down_proj", (e, r, i), layer, i, "experts.down_proj"),
               tensor(prefix + "gate.weight", (e, d), layer, d, "router")]
        out += Mlp(d, self.shared_inner, self.bias, "up_down").tensors(
            prefix + "shared_experts.", layer)
        if self.latent is not None:
            out += linear(prefix + "fc1_latent_proj.", self.latent, d, self.bias, layer)
            out += linear(prefix + "fc2_latent_proj.", d, self.latent, self.bias, layer)
        return out

    @property
    def count(self) -> int:
        """E·(expert) + E·D (router) [+ shared expert + latent projections]."""
        total = self.experts * (self.per_expert + self.width)
        if self.style == "nemotron_h":
            total += Mlp(self.width, self.shared_inner, self.bias, "up_down").count
            if self.latent is not None:
                b = int(self.bias)
                total += self.latent * (self.width + b) + self.width * (self.latent + b)
        return total

    @property
    def active(self) -> int:
        """What one token uses: all but the ``experts − top_k`` experts it is not routed to."""
        return self.count - max(self.experts - self.top_k, 0) * self.per_expert


def read_experts(shapes: Shapes, prefix: str, top_k: int) -> Experts | None:
    """The mixture of experts under ``prefix``, or None (``top_k`` is not in the weights)."""
    down = shapes.get(prefix + "experts.down_proj")
    if not is_shape(down, 3):
        return None
    assert down is not None
    if prefix + "router.weight" in shapes:
        router = shapes[prefix + "router.weight"]
        if not is_shape(router, 2):
            return None
        return Experts(router[1], down[2], down[0], top_k, "jamba")
    gate, shared = shapes.get(prefix + "gate.weight"), shapes.get(
        prefix + "shared_experts.down_proj.weight")
    if not (is_shape(gate, 2) and is_shape(shared, 2)):
        return None
    assert gate is not None and shared is not None
    latent = down[1] if prefix + "fc1_latent_proj.weight" in shapes else None
    return Experts(gate[1], down[2], down[0], top_k, "nemotron_h", shared[1], latent,
                   prefix + "shared_experts.down_proj.bias" in shapes)


@record
class Mamba:
    """Jamba's Mamba (v1) mixer: in_proj (2E, D), a depthwise conv over E channels, x_proj
    (R + 2N, E), dt_proj (E, R) with a bias, A_log (E, N), D (E), out_proj (D, E), and RMSNorms
    over dt (R), B and C (N) when ``inner_norms``."""

    width: int
    inner: int
    state: int
    rank: int
    kernel: int
    conv_bias: bool = True
    bias: bool = False
    inner_norms: bool = True

    def __post_init__(self) -> None:
        sizes(self, "width", "inner", "state", "rank", "kernel")

    def tensors(self, prefix: str, layer: int) -> list[Tensor]:
        """A_log and D, then the conv, the projections and the norms."""
        d, e, n, r = self.width, self.inner, self.state, self.rank
        out = [tensor(prefix + "A_log", (e, n), layer, d, "A_log"),
               tensor(prefix + "D", (e,), layer, d, "D")]
        out += depthwise_conv(prefix + "conv1d.", e, self.kernel, self.conv_bias, layer)
        out += linear(prefix + "in_proj.", 2 * e, d, self.bias, layer)
        out += linear(prefix + "x_proj.", r + 2 * n, e, False, layer)
        out += linear(prefix + "dt_proj.", e, r, True, layer)
        out += linear(prefix + "out_proj.", d, e, self.bias, layer)
        if self.inner_norms:
            out += norm(prefix + "dt_layernorm.", r, layer)
            out += norm(prefix + "b_layernorm.", n, layer)
            out += norm(prefix + "c_layernorm.", n, layer)
        return out

    def cache(self) -> tuple[Piece, ...]:
        """Its cache: the conv's last K inputs (E channels) and the SSM state E·N (float32
        whatever the model's dtype, as transformers keeps it)."""
        return (convolution(self.inner, self.kernel),
                Piece("ssm", fixed=self.inner * self.state, dtype="fp32"))

    @property
    def count(self) -> int:
        """E·(N + 1 + K + c) + 2E·(D + b) + (R + 2N)·E + E·(R + 1) + D·(E + b) [+ R + 2N]."""
        d, e, n, r, b = self.width, self.inner, self.state, self.rank, int(self.bias)
        return (e * (n + 1 + self.kernel + int(self.conv_bias)) + 2 * e * (d + b)
                + (r + 2 * n) * e + e * (r + 1) + d * (e + b)
                + (r + 2 * n) * int(self.inner_norms))


def read_mamba(shapes: Shapes, prefix: str) -> Mamba | None:
    """Jamba's Mamba mixer under ``prefix``, or None."""
    a, conv, x, dt, inp = (shapes.get(prefix + n) for n in (
        "A_log", "conv1d.weight", "x_proj.weight", "dt_proj.weight", "in_proj.weight"))
    if not (is_shape(a, 2) and is_shape(conv, 3) and is_shape(x, 2) and is_shape(dt, 2)
            and is_shape(inp, 2)):
        return None
    assert a is not None and conv is not None and dt is not None and inp is not None
    return Mamba(inp[1], a[0], a[1], dt[1], conv[2], prefix + "conv1d.bias" in shapes,
                 prefix + "in_proj.bias" in shapes, prefix + "dt_layernorm.weight" in shapes)


@record
class Mamba2:
    """A Mamba-2 mixer: dt_bias, A_log and D (one per head), a depthwise conv over x, B and C
    (E + 2·G·N channels), in_proj (E + conv + H, D), the gated RMSNorm (E) when ``gated_norm``,
    out_proj (D, E); ``bias`` on in_proj, ``out_bias`` on out_proj."""

    width: int
    inner: int
    heads: int
    groups: int
    state: int
    kernel: int
    conv_bias: bool = True
    bias: bool = False
    out_bias: bool = False
    gated_norm: bool = True

    def __post_init__(self) -> None:
        sizes(self, "width", "inner", "heads", "groups", "state", "kernel")

    @property
    def conv_dim(self) -> int:
        """E + 2·G·N: the channels of x, B and C."""
        return self.inner + 2 * self.groups * self.state

    def tensors(self, prefix: str, layer: int) -> list[Tensor]:
        """The per-head vectors, then the conv, in_proj, the norm and out_proj."""
        d, e, h, c = self.width, self.inner, self.heads, self.conv_dim
        out = [tensor(prefix + name, (h,), layer, d, name) for name in ("dt_bias", "A_log", "D")]
        out += depthwise_conv(prefix + "conv1d.", c, self.kernel, self.conv_bias, layer)
        out += linear(prefix + "in_proj.", e + c + h, d, self.bias, layer)
        if self.gated_norm:
            out += norm(prefix + "norm.", e, layer)
        out += linear(prefix + "out_proj.", d, e, self.out_bias, layer)
        return out

    def cache(self) -> tuple[Piece, ...]:
        """Its cache: the conv's last K inputs (x, B and C) and the SSM state H·P·N = E·N
        (float32 whatever the model's dtype, as transformers keeps it)."""
        return (convolution(self.conv_dim, self.kernel),
                Piece("ssm", fixed=self.inner * self.state, dtype="fp32"))

    @property
    def count(self) -> int:
        """3H + C·(K + c) + (E + C + H)·(D + b) + E·n + D·(E + b')."""
        d, e, h, c = self.width, self.inner, self.heads, self.conv_dim
        return (3 * h + c * (self.kernel + int(self.conv_bias))
                + (e + c + h) * (d + int(self.bias)) + e * int(self.gated_norm)
                + d * (e + int(self.out_bias)))


def read_mamba2(shapes: Shapes, prefix: str, groups: int = 1) -> Mamba2 | None:
    """The Mamba-2 mixer under ``prefix``, or None; the weights hold only groups × state, read
    with ``groups`` where it divides."""
    heads, conv, inp, out = (shapes.get(prefix + n) for n in (
        "dt_bias", "conv1d.weight", "in_proj.weight", "out_proj.weight"))
    if not (is_shape(heads, 1) and is_shape(conv, 3) and is_shape(inp, 2) and is_shape(out, 2)):
        return None
    assert heads is not None and conv is not None and inp is not None and out is not None
    e, d = out[1], out[0]
    twice = conv[0] - e
    if twice <= 0 or twice % 2:
        return None
    product = twice // 2
    if product % groups:
        groups = 1
    return Mamba2(d, e, heads[0], groups, product // groups, conv[2],
                  prefix + "conv1d.bias" in shapes, prefix + "in_proj.bias" in shapes,
                  prefix + "out_proj.bias" in shapes, prefix + "norm.weight" in shapes)


@record
class ShortConv:
    """LFM2's gated short convolution: in_proj (3D, D) makes B, C and x, a depthwise conv of
    ``kernel`` taps (``conv_L_cache``), out_proj (D, D); biases on all three when ``bias``."""

    width: int
    kernel: int
    bias: bool = False

    def __post_init__(self) -> None:
        sizes(self, "width", "kernel")

    def tensors(self, prefix: str, layer: int) -> list[Tensor]:
        """The conv, in_proj and out_proj."""
        d, b = self.width, self.bias
        out = depthwise_conv(prefix + "conv.", d, self.kernel, b, layer)
        out += linear(prefix + "in_proj.", 3 * d, d, b, layer)
        out += linear(prefix + "out_proj.", d, d, b, layer)
        return out

    def cache(self) -> tuple[Piece, ...]:
        """Its cache: the conv's last K inputs (D channels)."""
        return (convolution(self.width, self.kernel),)

    @property
    def count(self) -> int:
        """D·(K + b) + 3D·(D + b) + D·(D + b)."""
        d, b = self.width, int(self.bias)
        return d * (self.kernel + b) + 3 * d * (d + b) + d * (d + b)


def read_short_conv(shapes: Shapes, prefix: str) -> ShortConv | None:
    """LFM2's short convolution under ``prefix``, or None."""
    conv = shapes.get(prefix + "conv.weight")
    if not is_shape(conv, 3):
        return None
    assert conv is not None
    return ShortConv(conv[0], conv[2], prefix + "conv.bias" in shapes)
