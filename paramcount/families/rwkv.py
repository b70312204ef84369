"""RWKV, versions 4 to 7: time-mix and channel-mix blocks between an embedding and a head.

Version 4 is transformers' ``RwkvForCausalLM`` (``RwkvConfig``): ``rwkv.embeddings``, blocks
``rwkv.blocks.{i}`` with ``pre_ln`` (block 0 only), ``ln1``, ``ln2``, ``attention`` (time_decay,
time_first, three time_mix vectors, key/value/receptance (A, C), output (C, A)) and
``feed_forward`` (two time_mix vectors, key (F, C), receptance (C, C), value (C, F), F = 4C by
default), then ``rwkv.ln_out`` and ``head`` (untied by default).

Versions 5, 6 and 7 follow BlinkDL's own state dicts (RWKV-LM, ``RWKV-v5/src/model.py`` x052 and
x060, ``RWKV-v7/train_temp/src/model.py`` x070, the names the ``rwkv`` package loads): ``emb``,
``blocks.{i}`` with ``ln1``, ``ln2``, ``ln0`` (block 0 only), ``att`` and ``ffn``, then ``ln_out``
and ``head``. Per version:

- 5 (Eagle, x052): att ``time_mix_k/v/r/g`` (1, 1, C), ``time_decay`` and ``time_faaaa``
  (H, N), receptance/key/value/gate (A, C), output (C, A), ``ln_x`` GroupNorm (A); ffn
  ``time_mix_k/r``, key (F, C), receptance (C, C), value (C, F), F = ⌊3.5C / 32⌋·32.
- 6 (Finch, x060): att ``time_maa_x/w/k/v/r/g`` (1, 1, C), the mixing LoRA ``time_maa_w1``
  (C, 5M) and ``time_maa_w2`` (5, M, C), ``time_decay`` (1, 1, A) with its LoRA
  ``time_decay_w1`` (C, W), ``time_decay_w2`` (W, A), ``time_faaaa`` (H, N), the five
  matrices and ``ln_x``; ffn as 5 with ``time_maa_k/r``. M = 32 and W = 64 (64 and 128 from
  C = 4096).
- 7 (Goose, x070): att ``x_r/w/k/v/a/g`` (1, 1, C), four LoRAs ``w1``/``w2``/``w0`` (decay),
  ``a1``/``a2``/``a0`` (in-context rate), ``v1``/``v2``/``v0`` (value residual), ``g1``/``g2``
  (gate), ``k_k``, ``k_a`` (1, 1, C), ``r_k`` (H, N), receptance/key/value/output (C, C) and
  ``ln_x``; ffn ``x_k``, key (4C, C), value (C, 4C): no receptance.

H = A / N heads of ``head_size`` N; A = ``attention_hidden_size`` (``dim_att``, C by default).
"""

from __future__ import annotations

from collections.abc import Mapping

from paramcount.engine.conventions.base import Formula, Symbol, Tensor
from paramcount.errors import SpecError
from paramcount.families import loader, parts
from paramcount.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from paramcount.families.family import RecognisedModel
    from paramcount.families.state import LayerState

NAME = "rwkv"
TITLE = "RWKV"
REFERENCE = "transformers RwkvForCausalLM (v4), BlinkDL RWKV-LM (v5 to v7)"
ALIASES = {"hidden_size": ("--n-embd",), "num_hidden_layers": ("--n-layer",),
           "attention_hidden_size": ("--dim-att",), "intermediate_size": ("--dim-ffn",),
           "head_size": ("--head-size-a",)}
VERSIONS = (4, 5, 6, 7)
CODE = {5: "x052", 6: "x060", 7: "x070"}


def title(config: RwkvConfig) -> str:
    """``RWKV-7``."""
    return f"RWKV-{config.version}"


def reference(config: RwkvConfig) -> str:
    """The implementation this version's tensors follow."""
    if config.version == 4:
        return "transformers RwkvForCausalLM"
    return f"BlinkDL RWKV-LM {CODE[config.version]}"
HF_FRAME = parts.Frame("rwkv.", "embeddings.weight", ("ln_out.weight", "ln_out.bias"),
                       "head.weight")
BLINK_FRAME = parts.Frame("", "emb.weight", ("ln_out.weight", "ln_out.bias"), "head.weight")


def lora(c: int, factor: float) -> int:
    """RWKV-7's suggested LoRA width: max(32, round(factor·√C / 32)·32)."""
    return max(32, int(round((factor * (c**0.5)) / 32) * 32))


@record
class RwkvConfig:
    """An RWKV model: transformers' ``RwkvConfig`` names, with BlinkDL's for versions 5 to 7
    (``n_embd`` is ``hidden_size``, ``dim_att`` ``attention_hidden_size``, ``dim_ffn``
    ``intermediate_size``); "auto" takes the reference's default."""

    version: int = 4
    vocab_size: int = 50277
    hidden_size: int = 4096
    num_hidden_layers: int = 32
    attention_hidden_size: int | str = "auto"
    intermediate_size: int | str = "auto"
    head_size: int | str = "auto"
    tie_word_embeddings: bool = False
    mix_lora: int | str = "auto"
    decay_lora: int | str = "auto"
    aaa_lora: int | str = "auto"
    mv_lora: int | str = "auto"
    gate_lora: int | str = "auto"

    def __post_init__(self) -> None:
        if self.version not in VERSIONS:
            raise SpecError("{version} must be 4, 5, 6 or 7", version=self.version)
        parts.sizes(self, "vocab_size", "hidden_size", "num_hidden_layers")
        parts.at_most_blocks("num_hidden_layers", self.num_hidden_layers)
        parts.booleans(self, "tie_word_embeddings")
        c, v = self.hidden_size, self.version
        ffn = 4 * c if v in (4, 7) else int((c * 3.5) // 32 * 32)
        defaults = {"attention_hidden_size": c, "intermediate_size": ffn, "head_size": 64,
                    "mix_lora": 64 if c >= 4096 else 32,
                    "decay_lora": (128 if c >= 4096 else 64) if v == 6 else lora(c, 2.5),
                    "aaa_lora": lora(c, 2.5), "mv_lora": lora(c, 1.7), "gate_lora": lora(c, 5)}
        used = {"attention_hidden_size", "intermediate_size", *USED_LORAS[v]}
        if v >= 5:
            used.add("head_size")
        for name, default in defaults.items():
            value = getattr(self, name)
            if name not in used:
                if value != "auto":
                    raise SpecError("{" + name + f"}} is not an option of RWKV-{v}",
                                    **{name: value})
            elif value == "auto":
                self.__dict__[name] = default
            elif not parts.is_int(value) or value <= 0:
                raise SpecError("{" + name + "} must be a positive integer or 'auto'",
                                **{name: value})
        if self.intermediate_size == 0:
            raise SpecError("{intermediate_size} 'auto' is ⌊3.5·{hidden_size} / 32⌋·32 = 0: "
                            "give it", intermediate_size="auto", hidden_size=c)
        if v >= 5 and int(self.attention_hidden_size) % int(self.head_size):
            raise SpecError("{attention_hidden_size} must be a multiple of {head_size}",
                            attention_hidden_size=self.attention_hidden_size,
                            head_size=self.head_size)
        if v == 7 and self.attention_hidden_size != c:
            raise SpecError("RWKV-7's time-mix is C wide: {attention_hidden_size} must equal "
                            "{hidden_size}", attention_hidden_size=self.attention_hidden_size,
                            hidden_size=c)
        if v >= 5 and self.tie_word_embeddings:
            raise SpecError("{tie_word_embeddings} is not an option of RWKV-" + str(v)
                            + ": its head is its own", tie_word_embeddings=True)

    @property
    def heads(self) -> int:
        """H = A / N (versions 5 to 7; 0 for version 4)."""
        return int(self.attention_hidden_size) // self.head_size if isinstance(
            self.head_size, int) else 0


USED_LORAS = {4: (), 5: (), 6: ("mix_lora", "decay_lora"),
              7: ("decay_lora", "aaa_lora", "mv_lora", "gate_lora")}

Config = RwkvConfig
LORAS = ("mix_lora", "decay_lora", "aaa_lora", "mv_lora", "gate_lora")


def width(config: RwkvConfig, name: str) -> int:
    """A LoRA's width, 0 where the version has none ("auto" stays for those)."""
    value = getattr(config, name)
    return value if isinstance(value, int) else 0


def _ints(config: RwkvConfig) -> tuple[int, int, int, int, int]:
    """C, A, F, H, N."""
    return (config.hidden_size, int(config.attention_hidden_size), int(config.intermediate_size),
            config.heads, width(config, "head_size"))


def _att(config: RwkvConfig) -> list[tuple[str, tuple[int, ...]]]:
    """The time-mix block's tensors, named as the version's reference names them."""
    c, a, _, h, n = _ints(config)
    row = (1, 1, c)
    v = config.version
    if v == 4:
        own = [("time_decay", (a,)), ("time_first", (a,)), ("time_mix_key", row),
               ("time_mix_value", row), ("time_mix_receptance", row)]
        return [*own, ("key.weight", (a, c)), ("value.weight", (a, c)),
                ("receptance.weight", (a, c)), ("output.weight", (c, a))]
    if v == 5:
        own = [*((f"time_mix_{x}", row) for x in "kvrg"), ("time_decay", (h, n)),
               ("time_faaaa", (h, n))]
    elif v == 6:
        m, w = int(config.mix_lora), int(config.decay_lora)
        own = [*((f"time_maa_{x}", row) for x in "xwkvrg"), ("time_maa_w1", (c, 5 * m)),
               ("time_maa_w2", (5, m, c)), ("time_decay", (1, 1, a)),
               ("time_decay_w1", (c, w)), ("time_decay_w2", (w, a)), ("time_faaaa", (h, n))]
    else:
        own = [(f"x_{x}", row) for x in "rwkvag"]
        for key, width in (("w", config.decay_lora), ("a", config.aaa_lora),
                           ("v", config.mv_lora)):
            own += [(f"{key}1", (c, int(width))), (f"{key}2", (int(width), c)), (f"{key}0", row)]
        own += [("g1", (c, int(config.gate_lora))), ("g2", (int(config.gate_lora), c)),
                ("k_k", row), ("k_a", row), ("r_k", (h, n))]
    matrices = [("receptance.weight", (a, c)), ("key.weight", (a, c)), ("value.weight", (a, c)),
                ("output.weight", (c, a))]
    if v in (5, 6):
        matrices.append(("gate.weight", (a, c)))
    return [*own, *matrices, ("ln_x.weight", (a,)), ("ln_x.bias", (a,))]


def _ffn(config: RwkvConfig) -> list[tuple[str, tuple[int, ...]]]:
    """The channel-mix block's tensors."""
    c, _, f, _, _ = _ints(config)
    row = (1, 1, c)
    mixes = {4: ["time_mix_key", "time_mix_receptance"], 5: ["time_mix_k", "time_mix_r"],
             6: ["time_maa_k", "time_maa_r"], 7: ["x_k"]}[config.version]
    out = [(name, row) for name in mixes] + [("key.weight", (f, c))]
    if config.version < 7:
        out.append(("receptance.weight", (c, c)))
    return [*out, ("value.weight", (c, f))]


def block_tensors(config: RwkvConfig, layer: int) -> list[Tensor]:
    """One block's tensors: its norms, time-mix and channel-mix."""
    c = config.hidden_size
    norms = [(f"{ln}.{p}", (c,)) for ln in ("ln1", "ln2") for p in ("weight", "bias")]
    first = [(f"{'pre_ln' if config.version == 4 else 'ln0'}.{p}", (c,))
             for p in ("weight", "bias")] if layer == 0 else []
    att, ffn = ("attention.", "feed_forward.") if config.version == 4 else ("att.", "ffn.")
    shapes = ([*first, *norms] if config.version == 4 else [*norms, *first]) + [
        (att + name, shape) for name, shape in _att(config)] + [
        (ffn + name, shape) for name, shape in _ffn(config)]
    return parts.block(f"{frame(config).backbone}blocks.{layer}.", shapes, layer, c)


def frame(config: RwkvConfig) -> parts.Frame:
    """transformers' names for version 4, BlinkDL's for the others."""
    return HF_FRAME if config.version == 4 else BLINK_FRAME


def tensors(config: RwkvConfig) -> list[Tensor]:
    """Every parameter, in the reference's ``named_parameters()`` order."""
    blocks = [t for i in range(config.num_hidden_layers) for t in block_tensors(config, i)]
    return parts.causal_lm(config.vocab_size, config.hidden_size, blocks,
                        config.tie_word_embeddings, frame(config))


def block_formula(config: RwkvConfig) -> tuple[str, int]:
    """One block's closed form (norms + time-mix + channel-mix) and its value; block 0's extra
    LayerNorm (2C) is a term of the model's formula."""
    c, a, f, h, n = _ints(config)
    m, w, da, dv, dg = (width(config, name) for name in LORAS)
    lo = w + da + dv + dg
    ffn = 2 * c + 2 * f * c + c * c
    forms = {
        4: ("4C + (2A + 3C + 4A·C) + (2C + 2F·C + C·C)", 2 * a + 3 * c + 4 * a * c + ffn),
        5: ("4C + (4C + 2H·N + 5A·C + 2A) + (2C + 2F·C + C·C)",
            4 * c + 2 * h * n + 5 * a * c + 2 * a + ffn),
        6: ("4C + (6C + 10C·M + A + C·W + W·A + H·N + 5A·C + 2A) + (2C + 2F·C + C·C)",
            6 * c + 10 * c * m + a + c * w + w * a + h * n + 5 * a * c + 2 * a + ffn),
        7: ("4C + (6C + 2C·(Dw + Da + Dv + Dg) + 5C + H·N + 4C·C + 2C) + (C + 2F·C)",
            6 * c + 2 * c * lo + 5 * c + h * n + 4 * c * c + 2 * c + c + 2 * f * c),
    }
    text, value = forms[config.version]
    return text, 4 * c + value


def state(config: RwkvConfig) -> tuple[LayerState, ...]:
    """What each layer keeps between tokens. RWKV-4 (transformers' ``RwkvModel``): the
    attention's and the feed-forward's last input (the model's dtype), and the WKV numerator,
    denominator and running maximum (float32), hidden_size each. RWKV-5 to 7 (the ``rwkv``
    package's state, three tensors a layer): the time-mix's and the channel-mix's last input
    (token shift, C each, the model's dtype) and the WKV matrix state, H heads of N × N
    (float32)."""
    from paramcount.families.state import LayerState, Piece

    d = config.hidden_size
    if config.version == 4:
        pieces = (Piece("attention input", fixed=d), Piece("ffn input", fixed=d),
                  *(Piece(name, fixed=d, dtype="fp32")
                    for name in ("numerator", "denominator", "maximum")))
    else:
        n = width(config, "head_size")
        pieces = (Piece("att shift", fixed=d), Piece("wkv", fixed=config.heads * n * n,
                                                     dtype="fp32"),
                  Piece("ffn shift", fixed=d))
    return tuple(LayerState(i, "rwkv", pieces) for i in range(config.num_hidden_layers))


def formula(config: RwkvConfig) -> Formula:
    """V·C + L·[block] + 2C (block 0's extra LayerNorm) + 2C (ln_out) + V·C (the head)."""
    c, a, f, h, n = _ints(config)
    v, layers = config.vocab_size, config.num_hidden_layers
    symbolic, per_block = block_formula(config)
    symbols = [Symbol("V", v, "vocab_size"), Symbol("C", c, "hidden_size (n_embd)"),
               Symbol("L", layers, "num_hidden_layers (n_layer)"),
               Symbol("A", a, "attention_hidden_size (dim_att)"),
               Symbol("F", f, "intermediate_size (dim_ffn)")]
    if config.version >= 5:
        symbols += [Symbol("H", h, "heads = A / N"), Symbol("N", n, "head_size")]
    if config.version == 6:
        symbols += [Symbol("M", int(config.mix_lora), "time-mix LoRA width (D_MIX_LORA)"),
                    Symbol("W", int(config.decay_lora), "decay LoRA width (D_DECAY_LORA)")]
    if config.version == 7:
        symbols += [Symbol("Dw", int(config.decay_lora), "decay LoRA (D_DECAY_LORA)"),
                    Symbol("Da", int(config.aaa_lora), "in-context rate LoRA (D_AAA_LORA)"),
                    Symbol("Dv", int(config.mv_lora), "value residual LoRA (D_MV_LORA)"),
                    Symbol("Dg", int(config.gate_lora), "gate LoRA (D_GATE_LORA)")]
    terms = [(f"{v}·{c}", v * c), (f"{layers}·{per_block}", layers * per_block),
             (f"2·{c}", 2 * c), (f"2·{c}", 2 * c)]
    whole = f"V·C + L·[{symbolic}] + 2C + 2C"
    if not config.tie_word_embeddings:
        terms.append((f"{v}·{c}", v * c))
        whole += " + V·C"
    return Formula(whole, tuple(symbols), tuple(terms))


TRANSFORMERS = loader.Layout("transformers RwkvConfig", frozenset({
    "vocab_size", "context_length", "max_position_embeddings", "hidden_size",
    "num_hidden_layers", "attention_hidden_size", "intermediate_size", "layer_norm_epsilon",
    "rescale_every", "version"}))
"""transformers' ``RwkvConfig`` (version 4; ``max_position_embeddings`` is its alias of
``context_length``); ``version`` is paramcount's own key for versions 5 to 7."""
HUB = loader.Layout("RWKV hub RwkvConfig (rwkv5 / rwkv6)",
                    TRANSFORMERS.keys | {"head_size", "head_size_divisor", "num_attention_heads"})
"""The ``RWKV/rwkv-5-world`` and ``rwkv-6-world`` repositories' own config classes."""
FLA = loader.Layout("fla RWKV7Config", frozenset({
    "attn_mode", "hidden_size", "hidden_ratio", "intermediate_size", "num_hidden_layers",
    "head_dim", "num_heads", "decay_low_rank_dim", "gate_low_rank_dim", "a_low_rank_dim",
    "v_low_rank_dim", "hidden_act", "max_position_embeddings", "norm_first", "norm_bias",
    "norm_eps", "attn", "initializer_range", "fuse_norm", "fuse_cross_entropy", "vocab_size",
    "value_dim", "fuse_linear_cross_entropy", "use_l2warp"}))
"""flash-linear-attention's ``RWKV7Config`` (``model_type`` "rwkv7"; "rwkv7_fla" lately)."""
FLA_TYPES = ("rwkv7", "rwkv7_fla")


def from_hf_config(data: Mapping[str, object]) -> RwkvConfig:
    """A ``config.json`` read as the class it names reads it (see :func:`load`)."""
    config: RwkvConfig = load(data).config
    return config


def load(data: Mapping[str, object]) -> loader.Reading:
    """A ``config.json``: transformers' ``RwkvConfig`` (``model_type`` "rwkv", version 4),
    the hub's RWKV-5 / RWKV-6 configs (``model_type`` "rwkv5", "rwkv6", the same keys and
    ``head_size``), fla's ``RWKV7Config`` (``model_type`` "rwkv7": ``head_dim`` and the LoRA
    widths ``decay_low_rank_dim``, ``a_low_rank_dim``, ``v_low_rank_dim``,
    ``gate_low_rank_dim``, fla's defaults where they are missing), or a ``version`` key."""
    kind = data.get("model_type", "rwkv")
    if kind in FLA_TYPES:
        return _from_fla(data)
    version = {"rwkv": 4, "rwkv5": 5, "rwkv6": 6, "rwkv7": 7}.get(str(kind), 4)
    values = {"version": data.get("version", version)}
    for key in ("vocab_size", "hidden_size", "num_hidden_layers", "attention_hidden_size",
                "intermediate_size", "head_size", "tie_word_embeddings"):
        if data.get(key) is not None:
            values[key] = data[key]
    layout = TRANSFORMERS if kind == "rwkv" and values["version"] == 4 else HUB
    config = _config(values)
    base = loader.base_class(data, ("RwkvModel",))
    return loader.Reading(config, layout.name, tuple(loader.unread(data, layout)), base)


def _config(values: Mapping[str, object]) -> RwkvConfig:
    """``RwkvConfig(**values)``, a refusal worded as the file's."""
    try:
        return RwkvConfig(**values)  # type: ignore[arg-type]
    except SpecError as error:
        raise SpecError("config.json: " + error.template, **error.values) from None


def _from_fla(data: Mapping[str, object]) -> loader.Reading:
    """fla's ``RWKV7Config``, counted as BlinkDL's RWKV-7 of the same sizes."""
    for key, plain in (("attn", None), ("norm_bias", True), ("norm_first", True)):
        if data.get(key, plain) != plain:
            raise SpecError("config.json: {" + key + "} makes a model paramcount's RWKV-7 "
                            "(BlinkDL's layout) does not count", **{key: data[key]})
    c = loader.integer(data, "hidden_size", 2048)
    head = data.get("head_dim", 64)
    heads = data.get("num_heads")
    if head is None and isinstance(heads, int) and not isinstance(heads, bool) and heads > 0 \
            and c % heads == 0:
        head = c // heads
    dims = data.get("value_dim")
    if dims is not None and any(d != c for d in (dims if isinstance(dims, list) else [dims])):
        raise SpecError("config.json: {value_dim} other than hidden_size is not counted",
                        value_dim=dims)
    ffn = data.get("intermediate_size")
    if ffn is None:
        ratio = data.get("hidden_ratio")
        if isinstance(ratio, bool) or not isinstance(ratio, int | float) or ratio <= 0:
            ratio = 4
        ffn = 32 * ((int(c * ratio) + 31) // 32)
    config = _config({
        "version": 7, "vocab_size": data.get("vocab_size", 32000), "hidden_size": c,
        "num_hidden_layers": data.get("num_hidden_layers", 24), "head_size": head,
        "intermediate_size": ffn,
        "tie_word_embeddings": data.get("tie_word_embeddings", False),
        "decay_lora": data.get("decay_low_rank_dim", 64),
        "aaa_lora": data.get("a_low_rank_dim", 64), "mv_lora": data.get("v_low_rank_dim", 16),
        "gate_lora": data.get("gate_low_rank_dim", 128)})
    layer0 = 2 * c * int(config.mv_lora) + c
    total = sum(t.count for t in tensors(config))
    notes = [*loader.unread(data, FLA),
             f"counted as BlinkDL's RWKV-7 state dict (blocks.{{i}}.att…); fla's "
             f"RWKV7ForCausalLM builds no value-residual LoRA in layer 0 (v0, v1, v2: "
             f"2·C·Dv + C = {layer0:,}), so it holds {total - layer0:,}"]
    return loader.Reading(config, FLA.name, tuple(notes),
                          loader.base_class(data, ("RWKV7Model",)))


def recognise(shapes: Mapping[str, tuple[int, ...]]) -> list[RecognisedModel]:
    """Every RWKV model among ``shapes``, of any version, checked exactly."""
    found = parts.recognise_models(NAME, shapes, "attention.time_decay", _propose_hf, tensors,
                                HF_FRAME, "blocks")
    for marker in ("att.time_decay", "att.w0"):
        found += parts.recognise_models(NAME, shapes, marker, _propose_blink, tensors, BLINK_FRAME,
                                     "blocks")
    return found


def _common(shapes: Mapping[str, tuple[int, ...]], root: str, layers: int, names: tuple[
        str, str, str]) -> dict[str, object] | None:
    """The sizes every version's tensors tell: from the embeddings, block 0's time-mix key and
    channel-mix key (``names``, as the reference names them)."""
    att, ffn, emb = (shapes.get(root + name) for name in names)
    if not (parts.rank2(att) and parts.rank2(ffn) and parts.rank2(emb)):
        return None
    assert att and ffn and emb
    return {"vocab_size": emb[0], "hidden_size": att[1], "num_hidden_layers": layers,
            "attention_hidden_size": att[0], "intermediate_size": ffn[0]}


def _propose_hf(shapes: Mapping[str, tuple[int, ...]], root: str,
                layers: int) -> tuple[RwkvConfig, list[str]] | None:
    """Version 4 under transformers' names."""
    values = _common(shapes, root, layers, ("blocks.0.attention.key.weight",
                                            "blocks.0.feed_forward.key.weight",
                                            "embeddings.weight"))
    config = None if values is None else parts.build(RwkvConfig, version=4, **values,
                                                  tie_word_embeddings=True)
    return None if config is None else (config, [])


def _propose_blink(shapes: Mapping[str, tuple[int, ...]], root: str,
                   layers: int) -> tuple[RwkvConfig, list[str]] | None:
    """Versions 5 to 7 under BlinkDL's names."""
    block = f"{root}blocks.0."
    values = _common(shapes, root, layers, ("blocks.0.att.key.weight", "blocks.0.ffn.key.weight",
                                            "emb.weight"))
    if values is None:
        return None
    heads = shapes.get(block + ("att.r_k" if block + "att.r_k" in shapes else "att.time_faaaa"))
    if heads is None or len(heads) != 2:
        return None
    values["head_size"] = heads[1]
    if block + "att.w0" in shapes:
        values["version"] = 7
        for name, tensor in (("decay_lora", "w1"), ("aaa_lora", "a1"), ("mv_lora", "v1"),
                             ("gate_lora", "g1")):
            shape = shapes.get(f"{block}att.{tensor}")
            if not parts.rank2(shape):
                return None
            assert shape
            values[name] = shape[1]
    elif block + "att.time_maa_w1" in shapes:
        mix, decay = shapes[block + "att.time_maa_w1"], shapes.get(block + "att.time_decay_w1")
        if len(mix) != 2 or mix[1] % 5 or not parts.rank2(decay):
            return None
        assert decay
        values.update(version=6, mix_lora=mix[1] // 5, decay_lora=decay[1])
    else:
        values["version"] = 5
    config = parts.build(RwkvConfig, **values)
    return None if config is None else (config, [])
