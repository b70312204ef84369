"""RG-LRU, Griffin's recurrent block, as transformers builds RecurrentGemma from its config.

Each of the ``num_hidden_layers`` residual layers holds an RMSNorm, a temporal block, another
RMSNorm and a gated MLP (gate, up and down projections ⌊intermediate_size/2⌋ wide, with biases).
The temporal blocks follow ``block_types`` repeated:

- a **recurrent** block: ``linear_y`` and ``linear_x`` (hidden → lru_width, with biases), a
  depthwise causal ``conv_1d`` of ``conv1d_width`` taps with a bias, the RG-LRU — its
  ``recurrent_param`` (one per channel) and its input and recurrent gates, block-diagonal with
  one (lru_width/heads)² block and bias per head — and ``linear_out`` back to hidden;
- a local **attention** block: q over ``num_attention_heads`` heads, k and v over
  ``num_key_value_heads`` (multi-query in RecurrentGemma 2B), each head ⌊hidden/heads⌋ wide,
  biases when ``attention_bias``, and an output projection that always has one.

The model adds the token embedding, a final RMSNorm and an ``lm_head`` tied to the embedding
(``tie_word_embeddings``, True by default, lists it once).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from paramcount.engine.conventions.base import Formula, Symbol, Tensor
from paramcount.engine.conventions.recognition import Shapes, is_shape
from paramcount.errors import SpecError
from paramcount.families.family import RecognisedModel
from paramcount.families.loader import Layout
from paramcount.families.parts import (
    at_most_blocks,
    blocks_under,
    booleans,
    depthwise_conv,
    divides,
    exact,
    found_at,
    linear,
    norm,
    sizes,
    tensor,
)
from paramcount.families.state import LayerState
from paramcount.record import record

NAME = "rglru"
TITLE = "RG-LRU / RecurrentGemma (Griffin)"
REFERENCE = "transformers RecurrentGemmaForCausalLM"

BLOCK_TYPES = ("recurrent", "attention")
DEFAULT_BLOCKS = ("recurrent", "recurrent", "attention")
REPEATS = 100
"""transformers repeats ``block_types`` this many times and cuts it to the layer count."""


@record
class RecurrentGemmaConfig:
    """The options of transformers' ``RecurrentGemmaConfig`` that change the parameter count.

    Defaults are transformers' ("recurrentgemma-2b style", but with as many key/value heads as
    query heads and intermediate_size 7,680: RecurrentGemma 2B's config.json sets 1 and 15,360).
    """

    vocab_size: int = 256000
    hidden_size: int = 2560
    intermediate_size: int = 7680
    num_hidden_layers: int = 26
    num_attention_heads: int = 10
    num_key_value_heads: int | None = None
    lru_width: int | None = None
    conv1d_width: int = 4
    attention_window_size: int = 2048
    """The local attention's window: no parameter, the keys and values it keeps."""
    block_types: tuple[str, ...] = DEFAULT_BLOCKS
    attention_bias: bool = False
    tie_word_embeddings: bool = True

    def __post_init__(self) -> None:
        sizes(self, "vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers",
              "num_attention_heads", "conv1d_width", "attention_window_size")
        sizes(self, *(f for f in ("num_key_value_heads", "lru_width")
                      if getattr(self, f) is not None))
        if self.intermediate_size < 2:
            raise SpecError("{intermediate_size} leaves the MLP no width: it is "
                            "⌊intermediate_size / 2⌋ wide",
                            intermediate_size=self.intermediate_size)
        booleans(self, "attention_bias", "tie_word_embeddings")
        at_most_blocks("num_hidden_layers", self.num_hidden_layers)
        types = self.block_types
        if not (isinstance(types, tuple) and types and all(t in BLOCK_TYPES for t in types)):
            raise SpecError("{block_types} must list 'recurrent' and 'attention' blocks",
                            block_types=types)
        if self.num_hidden_layers > REPEATS * len(types):
            raise SpecError(
                "{num_hidden_layers} is more than 100 × len(block_types): transformers repeats "
                "block_types 100 times", num_hidden_layers=self.num_hidden_layers)
        heads, kv = self.num_attention_heads, self.kv_heads
        if kv > heads:
            raise SpecError("{num_key_value_heads} must not exceed {num_attention_heads}",
                            num_key_value_heads=kv, num_attention_heads=heads)
        divides("num_key_value_heads", kv, "num_attention_heads", heads,
                "each key/value head serves an equal group of query heads")
        if "recurrent" in self.layer_types:
            divides("num_attention_heads", heads, "lru_width", self.width,
                    "the RG-LRU's gates have one block per head")
        if "attention" in self.layer_types and self.head_dim < 1:
            raise SpecError("{num_attention_heads} exceeds {hidden_size}: heads would be "
                            "0 wide", num_attention_heads=heads, hidden_size=self.hidden_size)

    @property
    def kv_heads(self) -> int:
        """``num_key_value_heads``, or ``num_attention_heads`` when unset."""
        return self.num_attention_heads if self.num_key_value_heads is None else (
            self.num_key_value_heads)

    @property
    def width(self) -> int:
        """``lru_width``, or ``hidden_size`` when unset."""
        return self.hidden_size if self.lru_width is None else self.lru_width

    @property
    def head_dim(self) -> int:
        """⌊hidden_size / num_attention_heads⌋, as the config computes it."""
        return self.hidden_size // self.num_attention_heads

    @property
    def layer_types(self) -> tuple[str, ...]:
        """Each layer's temporal block: ``block_types`` repeated, cut to the layer count."""
        return (self.block_types * REPEATS)[: self.num_hidden_layers]


Config = RecurrentGemmaConfig

ALIASES: dict[str, tuple[str, ...]] = {"num_attention_heads": ("--heads",)}
"""Names people use for this family's options beside ``--field-name``."""


def recurrent_block(config: RecurrentGemmaConfig, layer: int, prefix: str = "") -> list[Tensor]:
    """The recurrent temporal block (``…layers.{layer}.temporal_block.``): linears, conv, RG-LRU."""
    h, w, nh = config.hidden_size, config.width, config.num_attention_heads
    bw = w // nh
    p = prefix
    out = linear(p + "linear_y.", w, h, True, layer)
    out += linear(p + "linear_x.", w, h, True, layer)
    out += linear(p + "linear_out.", h, w, True, layer)
    out += depthwise_conv(p + "conv_1d.", w, config.conv1d_width, True, layer)
    lru = p + "rg_lru."
    out.append(tensor(lru + "recurrent_param", (w,), layer, w, "recurrent_param"))
    for gate in ("input_gate", "recurrent_gate"):
        out.append(tensor(f"{lru}{gate}_weight", (nh, bw, bw), layer, w, f"{gate}_weight"))
        out.append(tensor(f"{lru}{gate}_bias", (nh, bw), layer, w, f"{gate}_bias"))
    return out


def attention_block(config: RecurrentGemmaConfig, layer: int, prefix: str = "") -> list[Tensor]:
    """The local attention temporal block: q, k, v and o projections."""
    h, hd, ab = config.hidden_size, config.head_dim, config.attention_bias
    q, kv = config.num_attention_heads * hd, config.kv_heads * hd
    out = linear(prefix + "q_proj.", q, h, ab, layer)
    out += linear(prefix + "k_proj.", kv, h, ab, layer)
    out += linear(prefix + "v_proj.", kv, h, ab, layer)
    out += linear(prefix + "o_proj.", h, q, True, layer)
    return out


def tensors(config: RecurrentGemmaConfig) -> list[Tensor]:
    """Every parameter of ``RecurrentGemmaForCausalLM``, as its named_parameters() lists them."""
    h, v, m = config.hidden_size, config.vocab_size, config.intermediate_size // 2
    out = [tensor("model.embed_tokens.weight", (v, h), -1, v, "embed_tokens")]
    for layer, kind in enumerate(config.layer_types):
        p = f"model.layers.{layer}."
        out += norm(p + "temporal_pre_norm.", h, layer)
        make = recurrent_block if kind == "recurrent" else attention_block
        out += make(config, layer, p + "temporal_block.")
        out += norm(p + "channel_pre_norm.", h, layer)
        out += linear(p + "mlp_block.gate_proj.", m, h, True, layer)
        out += linear(p + "mlp_block.up_proj.", m, h, True, layer)
        out += linear(p + "mlp_block.down_proj.", h, m, True, layer)
    out += norm("model.final_norm.", h, -1)
    if not config.tie_word_embeddings:
        out += linear("lm_head.", v, h, False, -1)
    return out


def state(config: RecurrentGemmaConfig) -> tuple[LayerState, ...]:
    """What each layer keeps between tokens: a recurrent block its conv's last K − 1 inputs
    and the RG-LRU state (float32), lru_width each; a local attention block its keys and
    values of the last attention_window_size − 1 tokens."""
    from paramcount.families.state import Piece, attention, convolution

    recurrent = (convolution(config.width, config.conv1d_width - 1),
                 Piece("rg_lru", fixed=config.width, dtype="fp32"))
    local = attention(config.kv_heads, config.head_dim, config.attention_window_size - 1)
    return tuple(LayerState(i, "attention", local) if kind == "attention" else
                 LayerState(i, "rg-lru", recurrent)
                 for i, kind in enumerate(config.layer_types))


def formula(config: RecurrentGemmaConfig) -> Formula:
    """V·H + R·[3WH + H + W·(K + 6 + 2W/NH)] + A·[2·hd·H·(NH + KV) + H + ab·hd·(NH + 2KV)]
    + L·(3H + 3MH + 2M) + H + (1 − t)·V·H."""
    v, h, w, k = config.vocab_size, config.hidden_size, config.width, config.conv1d_width
    nh, kv, hd, ab = config.num_attention_heads, config.kv_heads, config.head_dim, int(
        config.attention_bias)
    m, n, t = config.intermediate_size // 2, config.num_hidden_layers, int(
        config.tie_word_embeddings)
    r = config.layer_types.count("recurrent")
    a = n - r
    bw = w // nh
    symbols = [
        Symbol("V", v, "vocab_size"),
        Symbol("H", h, "hidden_size"),
        Symbol("L", n, "num_hidden_layers, each with two RMSNorms and the MLP"),
        Symbol("M", m, "MLP width, ⌊intermediate_size / 2⌋"),
    ]
    parts, terms = ["V·H"], [(f"{v}·{h}", v * h)]
    if r:
        symbols += [Symbol("R", r, "recurrent (RG-LRU) blocks"), Symbol("W", w, "lru_width"),
                    Symbol("K", k, "conv1d_width"),
                    Symbol("NH", nh, "num_attention_heads: the RG-LRU gates' blocks")]
        parts.append("R·[3·W·H + H + W·(K + 6 + 2·W/NH)]")
        terms.append((f"{r}·[3·{w}·{h} + {h} + {w}·({k} + 6 + 2·{bw})]",
                      r * (3 * w * h + h + w * (k + 6 + 2 * bw))))
    if a:
        if not r:
            symbols.append(Symbol("NH", nh, "num_attention_heads"))
        symbols += [Symbol("A", a, "local attention blocks"),
                    Symbol("KV", kv, "num_key_value_heads"),
                    Symbol("hd", hd, "head width, ⌊H / NH⌋"),
                    Symbol("ab", ab, "1 with attention_bias, 0 without")]
        parts.append("A·[2·hd·H·(NH + KV) + H + ab·hd·(NH + 2·KV)]")
        terms.append((f"{a}·[2·{hd}·{h}·({nh} + {kv}) + {h} + {ab}·{hd}·({nh} + 2·{kv})]",
                      a * (2 * hd * h * (nh + kv) + h + ab * hd * (nh + 2 * kv))))
    symbols.append(Symbol("t", t, "1 with tie_word_embeddings (lm_head is the embedding)"))
    parts += ["L·(3·H + 3·M·H + 2·M)", "H", "(1 − t)·V·H"]
    terms += [(f"{n}·(3·{h} + 3·{m}·{h} + 2·{m})", n * (3 * h + 3 * m * h + 2 * m)),
              (f"{h}", h), (f"(1 − {t})·{v}·{h}", (1 - t) * v * h)]
    return Formula(" + ".join(parts), tuple(symbols), tuple(terms))


LAYOUT = Layout("transformers RecurrentGemmaConfig", frozenset({
    "num_hidden_layers", "vocab_size", "hidden_size", "intermediate_size",
    "num_attention_heads", "lru_width", "attention_window_size", "sliding_window",
    "conv1d_width", "logits_soft_cap", "rms_norm_eps", "hidden_activation", "rope_parameters",
    "rope_theta", "partial_rotary_factor", "block_types", "_block_types", "attention_dropout",
    "num_key_value_heads", "attention_bias", "w_init_variance_scale", "final_w_init_variance_scale",
    "embeddings_scale_by_sqrt_dim", "head_dim"}))
"""transformers' ``RecurrentGemmaConfig`` (5.x): its fields, ``sliding_window`` (its alias
of ``attention_window_size``), the rotary keys it takes apart, ``head_dim`` (which it
computes as hidden_size / num_attention_heads whatever the file says) and the older
``_block_types`` (see :func:`from_hf_config`)."""
BACKBONE = "model."


def from_hf_config(data: Mapping[str, object]) -> RecurrentGemmaConfig:
    """The config ``RecurrentGemmaConfig`` reads from ``config.json``, defaults included.

    transformers reads ``block_types``; RecurrentGemma's published config.json holds
    ``_block_types``, which transformers before 5 read and 5 ignores. Where the two readings
    differ the answer depends on the version, so that config is refused rather than guessed.
    """
    types = data.get("block_types", DEFAULT_BLOCKS)
    old = data.get("_block_types")
    if "block_types" not in data and old is not None and _tuple(old) != DEFAULT_BLOCKS:
        raise SpecError(
            "{_block_types} differs from the default block_types, and transformers before "
            "version 5 reads it where 5 ignores it; write block_types in config.json",
            _block_types=old)
    return RecurrentGemmaConfig(
        vocab_size=data.get("vocab_size", 256000),  # type: ignore[arg-type]
        hidden_size=data.get("hidden_size", 2560),  # type: ignore[arg-type]
        intermediate_size=data.get("intermediate_size", 7680),  # type: ignore[arg-type]
        num_hidden_layers=data.get("num_hidden_layers", 26),  # type: ignore[arg-type]
        num_attention_heads=data.get("num_attention_heads", 10),  # type: ignore[arg-type]
        num_key_value_heads=data.get("num_key_value_heads"),  # type: ignore[arg-type]
        lru_width=data.get("lru_width"),  # type: ignore[arg-type]
        conv1d_width=data.get("conv1d_width", 4),  # type: ignore[arg-type]
        attention_window_size=data.get(  # type: ignore[arg-type]
            "attention_window_size", data.get("sliding_window", 2048)),
        block_types=_tuple(types),
        attention_bias=data.get("attention_bias", False),  # type: ignore[arg-type]
        tie_word_embeddings=data.get("tie_word_embeddings", True),  # type: ignore[arg-type]
    )


def _tuple(value: object) -> tuple[str, ...]:
    """A list from config.json as a tuple (anything else as it is, for the record to refuse)."""
    return tuple(value) if isinstance(value, list | tuple) else value  # type: ignore[return-value]


_EMBED = re.compile(r"(?P<prefix>.*)model\.embed_tokens\.weight")
_ROOTS = ("model.", "lm_head.")


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``RecurrentGemmaForCausalLM`` among ``shapes``."""
    return found_at(shapes, _EMBED, 2, lambda m, shape: _recognise_at(
        shapes, m["prefix"], shape))


def _period(types: list[str]) -> tuple[str, ...]:
    """The shortest block_types whose repetition gives ``types`` (the default when it does)."""
    if [DEFAULT_BLOCKS[i % 3] for i in range(len(types))] == types:
        return DEFAULT_BLOCKS
    for size in range(1, len(types) + 1):
        if all(types[i] == types[i % size] for i in range(len(types))):
            return tuple(types[:size])
    return tuple(types)


def _recognise_at(shapes: Shapes, prefix: str, embed: tuple[int, ...]) -> RecognisedModel | None:
    """The model under ``prefix`` whose tensors are exactly those found, or None."""
    v, h = embed
    start = f"{prefix}model.layers."
    n = blocks_under(shapes, start)
    types = ["recurrent" if f"{start}{i}.temporal_block.rg_lru.recurrent_param" in shapes
             else "attention" for i in range(n)]
    gate = shapes.get(f"{start}0.mlp_block.gate_proj.weight")
    if not n or not is_shape(gate, 2):
        return None
    assert gate is not None
    m = gate[0]
    notes = []
    fields: dict[str, object] = {
        "vocab_size": v, "hidden_size": h, "num_hidden_layers": n,
        "intermediate_size": 7680 if m == 3840 else 2 * m, "block_types": _period(types),
        "tie_word_embeddings": f"{prefix}lm_head.weight" not in shapes,
    }
    notes.append(f"intermediate_size read as 2·{m:,}; {2 * m + 1:,} builds the same MLP")
    heads: list[int] = []
    if "recurrent" in types:
        lru = f"{start}{types.index('recurrent')}.temporal_block."
        gates, conv = shapes.get(lru + "rg_lru.input_gate_weight"), shapes.get(
            lru + "conv_1d.weight")
        if not (is_shape(gates, 3) and is_shape(conv, 3)):
            return None
        assert gates is not None and conv is not None
        w = gates[0] * gates[1]
        fields.update(conv1d_width=conv[2], lru_width=None if w == h else w)
        heads = [gates[0]]
    if "attention" in types:
        att = f"{start}{types.index('attention')}.temporal_block."
        q, k = shapes.get(att + "q_proj.weight"), shapes.get(att + "k_proj.weight")
        if not (is_shape(q, 2) and is_shape(k, 2)):
            return None
        assert q is not None and k is not None
        fields["attention_bias"] = att + "q_proj.bias" in shapes
        if not heads:
            heads = sorted((nh for nh in range(1, h + 1) if nh * (h // nh) == q[0]),
                           key=lambda nh: (nh != 10, nh))
    matched = [config for config in (_build(fields, nh, k if "attention" in types else None)
                                     for nh in heads) if config is not None
               and exact(shapes, prefix, _ROOTS, tensors(config)) is not None]
    if not matched:
        return None
    config = matched[0]
    names = exact(shapes, prefix, _ROOTS, tensors(config))
    assert names is not None
    if len(matched) > 1:
        notes.append("num_attention_heads is not told by attention weights alone (heads × head "
                     f"width is): read as {config.num_attention_heads}; "
                     + ", ".join(str(c.num_attention_heads) for c in matched[1:])
                     + " give the same tensors")
    if len(config.block_types) > 1 or n < 2:
        notes.append("block_types read as the shortest pattern that repeats into the layers")
    return RecognisedModel(prefix, NAME, config, names, tuple(notes))


def _build(fields: dict[str, object], heads: int, k: tuple[int, ...] | None) -> (
    RecurrentGemmaConfig | None
):
    """The config with ``heads`` query heads (and the key/value heads ``k``'s rows then mean)."""
    chosen = dict(fields, num_attention_heads=heads)
    if k is not None:
        hd = fields["hidden_size"] // heads  # type: ignore[operator]
        if not hd or k[0] % hd:
            return None
        kv = k[0] // hd
        chosen["num_key_value_heads"] = None if kv == heads else kv
    try:
        return RecurrentGemmaConfig(**chosen)  # type: ignore[arg-type]
    except (SpecError, TypeError):
        return None
