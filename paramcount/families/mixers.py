"""The parts the hybrid families are built from, each a convention: grouped-query attention,
MLPs (gated or not), mixtures of experts (ZAYA's behind an MLP router too), Mamba (Jamba's,
Zamba's multi-head) and Mamba-2 mixers, short convolutions, ZAYA's convolutional CCA attention.

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
    RMSNorms over each head's q and k when ``qk_norm`` (LFM2's ``q_layernorm``, Qwen's
    ``q_norm``: ``norm_name``); with ``gated``, q_proj also makes the output gate (2·heads·
    head_dim rows: Qwen3-Next, Qwen3.5); a sliding ``window`` > 0 (no parameter) bounds what
    its cache keeps."""

    width: int
    heads: int
    kv_heads: int
    head_dim: int
    out: int
    bias: bool = False
    out_name: str = "o_proj"
    qk_norm: bool = False
    norm_name: str = "layernorm"
    gated: bool = False
    window: int = 0

    def __post_init__(self) -> None:
        sizes(self, "width", "heads", "kv_heads", "head_dim", "out")

    def tensors(self, prefix: str, layer: int) -> list[Tensor]:
        """q, k, v and o (and the q/k norms), in ``named_parameters()`` order."""
        q, kv, w = self.heads * self.head_dim, self.kv_heads * self.head_dim, self.width
        out = linear(prefix + "q_proj.", q * (1 + int(self.gated)), w, self.bias, layer)
        out += linear(prefix + "k_proj.", kv, w, self.bias, layer)
        out += linear(prefix + "v_proj.", kv, w, self.bias, layer)
        out += linear(f"{prefix}{self.out_name}.", self.out, q, self.bias, layer)
        if self.qk_norm:
            out += norm(f"{prefix}q_{self.norm_name}.", self.head_dim, layer)
            out += norm(f"{prefix}k_{self.norm_name}.", self.head_dim, layer)
        return out

    def cache(self) -> tuple[Piece, ...]:
        """Its cache: keys and values, kv_heads·head_dim each per token (a sliding window's
        last window − 1 tokens at most, as transformers' ``DynamicSlidingWindowLayer`` keeps
        them)."""
        return attention(self.kv_heads, self.head_dim, max(self.window - 1, 0))

    @property
    def count(self) -> int:
        """(g·q + 2·kv)·(width + b) + out·(q + b) + 2·head_dim·qk_norm, g = 2 when gated."""
        q, kv, b = self.heads * self.head_dim, self.kv_heads * self.head_dim, int(self.bias)
        g = 1 + int(self.gated)
        return ((g * q + 2 * kv) * (self.width + b) + self.out * (q + b)
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


@record
class LatentAttention:
    """Multi-head latent attention (MLA, Kimi Linear's): q from D (``q_proj`` (H·(n + r), D))
    or through a low rank ``q_lora`` (``q_a_proj``, ``q_a_layernorm``, ``q_b_proj``), k and v
    through ``kv_a_proj_with_mqa`` (kv_lora + r, D), ``kv_a_layernorm`` and ``kv_b_proj``
    (H·(n + v), kv_lora), then ``o_proj`` (D, H·v); ``bias`` on q_a, kv_a and o (n: the
    no-rope part of a q/k head, r: its rope part, 0 where the model has none (GLM-5-Next's);
    v: a value head); with ``gate`` (Ling's), a head-wise output gate ``g_proj`` (H, D) last,
    without bias."""

    width: int
    heads: int
    nope: int
    rope: int
    value: int
    kv_lora: int
    q_lora: int | None = None
    bias: bool = False
    gate: bool = False

    def __post_init__(self) -> None:
        sizes(self, "width", "heads", "nope", "value", "kv_lora")
        if self.rope:
            sizes(self, "rope")

    def tensors(self, prefix: str, layer: int) -> list[Tensor]:
        """q (or its low-rank pair and norm), kv_a, its norm, kv_b, o (and the gate)."""
        d, h, b = self.width, self.heads, self.bias
        q = h * (self.nope + self.rope)
        if self.q_lora is None:
            out = linear(prefix + "q_proj.", q, d, False, layer)
        else:
            out = linear(prefix + "q_a_proj.", self.q_lora, d, b, layer)
            out += norm(prefix + "q_a_layernorm.", self.q_lora, layer)
            out += linear(prefix + "q_b_proj.", q, self.q_lora, False, layer)
        out += linear(prefix + "kv_a_proj_with_mqa.", self.kv_lora + self.rope, d, b, layer)
        out += norm(prefix + "kv_a_layernorm.", self.kv_lora, layer)
        out += linear(prefix + "kv_b_proj.", h * (self.nope + self.value), self.kv_lora, False,
                      layer)
        out += linear(prefix + "o_proj.", d, h * self.value, b, layer)
        return out + (linear(prefix + "g_proj.", h, d, False, layer) if self.gate else [])

    def cache(self) -> tuple[Piece, ...]:
        """Its cache: the compressed latent (kv_lora) as the keys and the rope part of k (r)
        as the values, one head each per token, as transformers' Kimi Linear caches them
        (expanded per head only when attending)."""
        return (Piece("keys", per_token=self.kv_lora), Piece("values", per_token=self.rope))

    @property
    def count(self) -> int:
        """The sum of those projections and norms (the tensors' own closed forms)."""
        d, h, b = self.width, self.heads, int(self.bias)
        q = h * (self.nope + self.rope)
        lora = self.q_lora
        q_part = q * d if lora is None else lora * (d + b) + lora + q * lora
        return (q_part + (self.kv_lora + self.rope) * (d + b) + self.kv_lora
                + h * (self.nope + self.value) * self.kv_lora + d * (h * self.value + b)
                + h * d * int(self.gate))


def read_latent_attention(shapes: Shapes, prefix: str, no_rope: bool = False
                          ) -> LatentAttention | None:
    """The latent attention under ``prefix`` (``…self_attn.``), or None. The weights hold only
    heads × widths: the fewest heads whose widths fit q (H·(n + r)), kv_b (H·(n + v)) and o
    (H·v) at once (with a gate, its rows are the heads); with ``no_rope``, r is 0 (the model
    has no rope part) and nothing else."""
    kv_a, kv_b, o = (shapes.get(prefix + n) for n in (
        "kv_a_proj_with_mqa.weight", "kv_b_proj.weight", "o_proj.weight"))
    q = shapes.get(prefix + "q_proj.weight") or shapes.get(prefix + "q_b_proj.weight")
    g = shapes.get(prefix + "g_proj.weight")
    if not (is_shape(kv_a, 2) and is_shape(kv_b, 2) and is_shape(o, 2) and is_shape(q, 2)
            and (g is None or is_shape(g, 2))):
        return None
    assert kv_a is not None and kv_b is not None and o is not None and q is not None
    lora, rope = kv_b[1], kv_a[0] - kv_b[1]
    heads = next((h for h in (range(1, o[1] + 1) if g is None else (g[0],))
                  if h and o[1] % h == 0 and q[0] % h == 0 and q[0] // h > rope
                  and kv_b[0] == q[0] - h * rope + o[1]), None)
    if heads is None or (rope != 0 if no_rope else rope < 1):
        return None
    q_lora = q[1] if prefix + "q_b_proj.weight" in shapes else None
    return LatentAttention(o[0], heads, q[0] // heads - rope, rope, o[1] // heads, lora, q_lora,
                           prefix + "o_proj.bias" in shapes, g is not None)


MLP_STYLES = {
    "gate_up_down": ("gate_proj", "up_proj", "down_proj"),
    "w1_w3_w2": ("w1", "w3", "w2"),
    "gate_up_fused": ("gate_up_proj", "", "down_proj"),
    "up_down": ("", "up_proj", "down_proj"),
    "input_output": ("input_linear", "", "output_linear"),
}
"""How each model names its MLP's projections: the gate, the up and the down projection (LFM2's
SwiGLU is ``w1``, ``w3``, ``w2``; Zamba2's gate and up are one ``gate_up_proj``, Granite 4.0's
shared MLP's one ``input_linear``; Nemotron-H's squared-ReLU MLP has no gate)."""


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
        if self.style in ("gate_up_fused", "input_output"):
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


MOE_STYLES = ("jamba", "nemotron_h", "lfm2_moe", "qwen_next", "mixtral", "lara", "kimi")
"""Jamba's experts are gated (``router``, ``experts.gate_up_proj``, ``experts.down_proj``);
Nemotron-H's are squared-ReLU MLPs (``experts.up_proj``, ``experts.down_proj``, the router
``gate``) beside a shared expert, optionally in a narrower latent space; LFM2-MoE's are gated,
the router ``gate`` after them; Qwen3-Next's and Qwen3.5's are gated, the router ``gate``
first, then a gated ``shared_expert`` ``shared_inner`` wide and its ``shared_expert_gate``
(1, D); MiniMax's (Mixtral's layout) the router ``gate`` first and nothing shared; Lara
Mini's the experts, the router ``gate``, then a gated ``shared_expert`` without a gate of its
own; Kimi Linear's the same, its shared experts ``shared_experts``."""


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
        return (2 if self.style == "nemotron_h" else 3) * self.inner * self.reads

    def tensors(self, prefix: str, layer: int) -> list[Tensor]:
        """The router, the experts' stacked weights, the shared expert and latent projections."""
        e, i, d, r = self.experts, self.inner, self.width, self.reads
        if self.style != "nemotron_h":
            gated = [tensor(prefix + "experts.gate_up_proj", (e, 2 * i, d), layer, d,
                            "experts.gate_up_proj"),
                     tensor(prefix + "experts.down_proj", (e, d, i), layer, i,
                            "experts.down_proj")]
            router = tensor(prefix + ("router" if self.style == "jamba" else "gate") + ".weight",
                            (e, d), layer, d, "router")
            if self.style == "lfm2_moe":
                return [*gated, router]
            if self.style in ("lara", "kimi"):
                name = "shared_expert." if self.style == "lara" else "shared_experts."
                return [*gated, router, *Mlp(d, self.shared_inner).tensors(prefix + name, layer)]
            if self.style in ("jamba", "mixtral"):
                return [router, *gated]
            return [router, *gated, *Mlp(d, self.shared_inner).tensors(
                prefix + "shared_expert.", layer), *linear(
                prefix + "shared_expert_gate.", 1, d, False, layer)]
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
        """E·(expert) + E·D (router) [+ shared expert (and its gate, D) + latent projections]."""
        total = self.experts * (self.per_expert + self.width)
        if self.style in ("qwen_next", "lara", "kimi"):
            total += Mlp(self.width, self.shared_inner).count + self.width * (
                self.style == "qwen_next")
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
    if prefix + "experts.gate_up_proj" in shapes:  # gated, the router named gate
        kimi = prefix + "shared_experts.down_proj.weight" in shapes
        gate, shared = shapes.get(prefix + "gate.weight"), shapes.get(
            prefix + ("shared_experts" if kimi else "shared_expert") + ".down_proj.weight")
        if not is_shape(gate, 2) or (shared is not None and not is_shape(shared, 2)):
            return None
        assert gate is not None
        if shared is None:
            first = next((n for n in shapes if n.startswith(prefix)), "")
            style = "mixtral" if first == prefix + "gate.weight" else "lfm2_moe"
            return Experts(gate[1], down[2], down[0], top_k, style)
        style = "kimi" if kimi else "qwen_next" if prefix + "shared_expert_gate.weight" in (
            shapes) else "lara"
        return Experts(gate[1], down[2], down[0], top_k, style, shared[1])
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
class ZambaMamba:
    """Zamba's (v1) Mamba mixer, split into ``heads`` heads over the inner width E: each head's
    x_proj, dt_proj (with its bias), A_log and D stacked (``x_proj_weight`` (H, R + 2N, E/H),
    ``dt_proj_weight`` (H, E/H, R), ``dt_proj_bias`` (H, E/H), ``A_log`` (H, E/H, N), ``D``
    (H, E/H)), then the conv over E, ``in_proj`` (2E, D) and ``out_proj`` (D, E); ``bias`` on
    the two projections."""

    width: int
    inner: int
    heads: int
    state: int
    rank: int
    kernel: int
    conv_bias: bool = True
    bias: bool = False

    def __post_init__(self) -> None:
        sizes(self, "width", "inner", "heads", "state", "rank", "kernel")

    def tensors(self, prefix: str, layer: int) -> list[Tensor]:
        """The stacked per-head tensors, then the conv, in_proj and out_proj."""
        d, e, h, n, r = self.width, self.inner, self.heads, self.state, self.rank
        w = e // h
        out = [tensor(prefix + name, shape, layer, d, name) for name, shape in (
            ("x_proj_weight", (h, r + 2 * n, w)), ("dt_proj_weight", (h, w, r)),
            ("dt_proj_bias", (h, w)), ("A_log", (h, w, n)), ("D", (h, w)))]
        out += depthwise_conv(prefix + "conv1d.", e, self.kernel, self.conv_bias, layer)
        out += linear(prefix + "in_proj.", 2 * e, d, self.bias, layer)
        out += linear(prefix + "out_proj.", d, e, self.bias, layer)
        return out

    def cache(self) -> tuple[Piece, ...]:
        """Its cache: the conv's last K inputs (E channels) and each head's SSM state
        (E/H)·N, E·N in all (float32 whatever the model's dtype, as transformers keeps it)."""
        return (convolution(self.inner, self.kernel),
                Piece("ssm", fixed=self.inner * self.state, dtype="fp32"))

    @property
    def count(self) -> int:
        """(R + 2N)·E + E·(R + 1) + E·(N + 1) + E·(K + c) + 2E·(D + b) + D·(E + b)."""
        d, e, n, r, b = self.width, self.inner, self.state, self.rank, int(self.bias)
        return ((r + 2 * n) * e + e * (r + 1) + e * (n + 1)
                + e * (self.kernel + int(self.conv_bias)) + 2 * e * (d + b) + d * (e + b))


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


@record
class CcaAttention:
    """ZAYA's compressed convolutional attention (``ZayaAttention``): ``o_proj`` (D, H·hd),
    then ``qkv_proj`` (``ZayaCCAProjection``: ``q_proj`` (H·hd, D), ``k_proj`` (Hkv·hd, D),
    ``v_proj_current`` and ``v_proj_delayed`` (⌊Hkv·hd / 2⌋, D) each, biases on all five with
    ``bias``; a depthwise conv over q and k, ``conv_qk_depthwise`` (C, 1, t0), and a grouped one,
    one group per head, ``conv_qk_grouped`` (C, hd, t1), both with biases, C = (H + Hkv)·hd),
    then ``qk_norm.temp`` (Hkv); a sliding ``window`` > 0 (no parameter) bounds what its cache
    keeps."""

    width: int
    heads: int
    kv_heads: int
    head_dim: int
    time0: int
    time1: int
    bias: bool = False
    window: int = 0

    def __post_init__(self) -> None:
        sizes(self, "width", "heads", "kv_heads", "head_dim", "time0", "time1")

    @property
    def channels(self) -> int:
        """C = (H + Hkv)·hd: q and k, which the convolutions mix."""
        return (self.heads + self.kv_heads) * self.head_dim

    def tensors(self, prefix: str, layer: int) -> list[Tensor]:
        """o_proj, the projections, the two convolutions and the key scale."""
        d, b, c, hd = self.width, self.bias, self.channels, self.head_dim
        q, kv = self.heads * hd, self.kv_heads * hd
        out = linear(prefix + "o_proj.", d, q, b, layer)
        cca = prefix + "qkv_proj."
        for name, rows in (("q_proj", q), ("k_proj", kv), ("v_proj_current", kv // 2),
                           ("v_proj_delayed", kv // 2)):
            out += linear(f"{cca}{name}.", rows, d, b, layer)
        out += depthwise_conv(cca + "conv_qk_depthwise.", c, self.time0, True, layer)
        out += [tensor(cca + "conv_qk_grouped.weight", (c, hd, self.time1), layer, c,
                       "conv_qk_grouped"),
                tensor(cca + "conv_qk_grouped.bias", (c,), layer, c, "conv_qk_grouped.bias")]
        return [*out, tensor(prefix + "qk_norm.temp", (self.kv_heads,), layer, d, "temp")]

    def cache(self) -> tuple[Piece, ...]:
        """Its cache: keys and values (Hkv·hd each per token, the last window − 1 at most where
        sliding), the convolutions' last t0 + t1 − 2 inputs of q and k (C channels) and the
        delayed value of the last token (⌊Hkv·hd / 2⌋), as transformers' hybrid cache layers keep
        them."""
        return (*attention(self.kv_heads, self.head_dim, max(self.window - 1, 0)),
                convolution(self.channels, self.time0 + self.time1 - 2),
                Piece("recurrent", fixed=self.kv_heads * self.head_dim // 2))

    @property
    def count(self) -> int:
        """D·(H·hd + b) + (H·hd + Hkv·hd + 2·⌊Hkv·hd / 2⌋)·(D + b) + C·(t0 + 1) + C·(hd·t1 + 1)
        + Hkv."""
        d, b, c, hd = self.width, int(self.bias), self.channels, self.head_dim
        q, kv = self.heads * hd, self.kv_heads * hd
        return (d * (q + b) + (q + kv + 2 * (kv // 2)) * (d + b) + c * (self.time0 + 1)
                + c * (hd * self.time1 + 1) + self.kv_heads)


def read_cca(shapes: Shapes, prefix: str) -> CcaAttention | None:
    """ZAYA's CCA attention under ``prefix`` (``…self_attn.``), or None: the grouped conv tells
    a head's width, q and k the heads."""
    q, k, depthwise, grouped = (shapes.get(f"{prefix}qkv_proj.{n}.weight") for n in (
        "q_proj", "k_proj", "conv_qk_depthwise", "conv_qk_grouped"))
    if not (is_shape(q, 2) and is_shape(k, 2) and is_shape(depthwise, 3)
            and is_shape(grouped, 3)):
        return None
    assert q is not None and k is not None and depthwise is not None and grouped is not None
    hd = grouped[1]
    if q[0] % hd or k[0] % hd:
        return None
    return CcaAttention(q[1], q[0] // hd, k[0] // hd, hd, depthwise[2], grouped[2],
                        prefix + "qkv_proj.q_proj.bias" in shapes)


@record
class RoutedExperts:
    """ZAYA's mixture of experts (``ZayaSparseMoeBlock``): the router ``gate`` (with ``eda``,
    every layer but the first, ``router_states_scale`` (R) first; ``down_proj`` (R, D) with
    bias; ``router_mlp``: an RMSNorm (R), ``fc1`` and ``fc2`` (R, R) with biases, ``out_proj``
    (E + 1, R): the experts and a class that skips them), then the stacked gated experts
    ``experts.gate_up_proj`` (E, 2I, D) and ``experts.down_proj`` (E, D, I); one expert per
    token."""

    width: int
    inner: int
    experts: int
    router: int
    eda: bool = True

    def __post_init__(self) -> None:
        sizes(self, "width", "inner", "experts", "router")

    def tensors(self, prefix: str, layer: int) -> list[Tensor]:
        """The router, then the experts."""
        d, r, e, i = self.width, self.router, self.experts, self.inner
        gate = prefix + "gate."
        out = [tensor(gate + "router_states_scale", (r,), layer, r, "router_states_scale")
               ] if self.eda else []
        out += linear(gate + "down_proj.", r, d, True, layer)
        out += norm(gate + "router_mlp.norm.", r, layer)
        out += linear(gate + "router_mlp.fc1.", r, r, True, layer)
        out += linear(gate + "router_mlp.fc2.", r, r, True, layer)
        out += linear(gate + "router_mlp.out_proj.", e + 1, r, False, layer)
        return out + Experts(d, i, e, 1, "lfm2_moe").tensors(prefix, layer)[:2]  # no router

    @property
    def count(self) -> int:
        """R·eda + R·(D + 1) + R + 2·R·(R + 1) + (E + 1)·R + E·3·I·D."""
        d, r = self.width, self.router
        return (r * int(self.eda) + r * (d + 1) + r + 2 * r * (r + 1) + (self.experts + 1) * r
                + self.experts * 3 * self.inner * d)

    @property
    def active(self) -> int:
        """What one token uses: the router and one expert."""
        return self.count - (self.experts - 1) * 3 * self.inner * self.width


def read_routed_experts(shapes: Shapes, prefix: str) -> RoutedExperts | None:
    """ZAYA's mixture of experts under ``prefix`` (``…mlp.``), or None."""
    down, router = (shapes.get(prefix + n) for n in ("experts.down_proj",
                                                      "gate.down_proj.weight"))
    if not (is_shape(down, 3) and is_shape(router, 2)):
        return None
    assert down is not None and router is not None
    return RoutedExperts(down[1], down[2], down[0], router[0],
                         prefix + "gate.router_states_scale" in shapes)


@record
class DepthwiseConv:
    """A causal depthwise convolution added to its input (Inkling's
    ``InklingShortConvolution``): ``conv1d`` of ``kernel`` taps over ``width`` channels, no
    bias, no projection."""

    width: int
    kernel: int

    def __post_init__(self) -> None:
        sizes(self, "width", "kernel")

    def tensors(self, prefix: str, layer: int) -> list[Tensor]:
        """The conv's weight (width, 1, kernel)."""
        return depthwise_conv(prefix + "conv1d.", self.width, self.kernel, False, layer)

    def cache(self) -> tuple[Piece, ...]:
        """Its cache: the last K inputs (width channels), in float32 whatever the model's
        dtype (the module computes in float32, as transformers keeps it)."""
        return (Piece("conv", fixed=self.width * self.kernel, dtype="fp32"),)

    @property
    def count(self) -> int:
        """C·K."""
        return self.width * self.kernel
