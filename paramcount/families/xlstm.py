"""xLSTM as transformers builds it: ``xLSTMForCausalLM`` from ``xLSTMConfig`` (xLSTM 7B's layout).

Every block is an mLSTM block in the xLSTM Large layout (the ``xlstm`` package's
``xlstm_large``, which transformers uses when that package is installed, and copies otherwise):
an RMSNorm, the mLSTM layer — query and key ⌊E·qk_dim_factor⌋ wide, value and output gate
⌊E·v_dim_factor⌋ wide, an input and a forget gate with one value per head (always with a bias),
a multi-head norm and the output projection — then an RMSNorm and a gated feed-forward whose
width is E·ffn_proj_factor rounded up to a multiple of ``ffn_round_up_to_multiple_of``.
``weight_mode='fused'`` stores q, k, v and the output gate as one matrix (and the two gates as
one): the same count under other names. The model adds the embedding, a final RMSNorm and an
``lm_head`` that transformers never ties to the embedding, whatever ``tie_word_embeddings`` says
(and the final norm is there whatever ``add_out_norm`` says).
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
    choice,
    divides,
    exact,
    factor,
    factor_for,
    found_at,
    linear,
    norm,
    round_up,
    sizes,
    tensor,
)
from paramcount.families.state import LayerState
from paramcount.record import record

NAME = "xlstm"
TITLE = "xLSTM (transformers, xLSTM 7B layout)"
REFERENCE = "transformers xLSTMForCausalLM"

WEIGHT_MODES = ("single", "fused")


@record
class XLSTMConfig:
    """The options of transformers' ``xLSTMConfig`` that change the parameter count.

    Defaults are transformers', which are xLSTM 7B's (``NX-AI/xLSTM-7b``).
    """

    vocab_size: int = 50304
    hidden_size: int = 4096
    num_blocks: int = 32
    num_heads: int = 8
    use_bias: bool = False
    qk_dim_factor: float = 0.5
    v_dim_factor: float = 1.0
    ffn_proj_factor: float = 2.667
    ffn_round_up_to_multiple_of: int = 64
    weight_mode: str = "single"

    def __post_init__(self) -> None:
        sizes(self, "vocab_size", "hidden_size", "num_blocks", "num_heads",
              "ffn_round_up_to_multiple_of")
        booleans(self, "use_bias")
        at_most_blocks("num_blocks", self.num_blocks)
        for field in ("qk_dim_factor", "v_dim_factor", "ffn_proj_factor"):
            factor(field, getattr(self, field))
        choice("weight_mode", self.weight_mode, WEIGHT_MODES)
        if self.up_proj_dim < 1:
            raise SpecError("{ffn_proj_factor} leaves the feed-forward no width: "
                            "hidden_size·ffn_proj_factor rounds to 0",
                            ffn_proj_factor=self.ffn_proj_factor)
        why = "each head gets an equal share"
        for field, size in (("qk_dim_factor", self.qk_dim), ("v_dim_factor", self.v_dim)):
            if size < self.num_heads:
                raise SpecError(
                    "{" + field + "} leaves fewer features than {num_heads}: "
                    f"⌊hidden_size·{field}⌋ = {size:,}",
                    **{field: getattr(self, field), "num_heads": self.num_heads},
                )
            divides("num_heads", self.num_heads, field.replace("_factor", ""), size, why)

    @property
    def qk_dim(self) -> int:
        """Query and key width: ``int(hidden_size * qk_dim_factor)``, as the mLSTM layer has it."""
        return int(self.hidden_size * self.qk_dim_factor)

    @property
    def v_dim(self) -> int:
        """Value, output gate and norm width: ``int(hidden_size * v_dim_factor)``."""
        return int(self.hidden_size * self.v_dim_factor)

    @property
    def up_proj_dim(self) -> int:
        """The feed-forward width: hidden_size·ffn_proj_factor rounded up to the multiple."""
        return round_up(self.hidden_size * self.ffn_proj_factor, self.ffn_round_up_to_multiple_of)


Config = XLSTMConfig

ALIASES: dict[str, tuple[str, ...]] = {"num_blocks": ("--layers", "-L")}
"""Names people use for this family's options beside ``--field-name``."""


def block_tensors(config: XLSTMConfig, layer: int, prefix: str = "") -> list[Tensor]:
    """One mLSTM block (``backbone.blocks.{layer}.`` in the model), in named_parameters order."""
    e, b, nh = config.hidden_size, config.use_bias, config.num_heads
    q, v, f = config.qk_dim, config.v_dim, config.up_proj_dim
    p = f"{prefix}{layer}."
    m = p + "mlstm_layer."
    out = norm(p + "norm_mlstm.", e, layer, bias=b)
    if config.weight_mode == "single":
        for name, rows in (("q", q), ("k", q), ("v", v), ("ogate_preact", v)):
            out += linear(f"{m}{name}.", rows, e, b, layer)
        out += linear(m + "igate_preact.", nh, e, True, layer)
        out += linear(m + "fgate_preact.", nh, e, True, layer)
    else:
        out += linear(m + "qkv_opreact.", 2 * q + 2 * v, e, b, layer)
        out += linear(m + "ifgate_preact.", 2 * nh, e, True, layer)
    out += norm(m + "multihead_norm.", nh * (v // nh), layer, bias=b)
    out += linear(m + "out_proj.", e, v, b, layer)
    out += norm(p + "norm_ffn.", e, layer, bias=b)
    if config.weight_mode == "single":
        out += linear(p + "ffn.proj_up_gate.", f, e, b, layer)
        out += linear(p + "ffn.proj_up.", f, e, b, layer)
    else:
        out += linear(p + "ffn.proj_up_gate_z.", 2 * f, e, b, layer)
    out += linear(p + "ffn.proj_down.", e, f, b, layer)
    return out


def tensors(config: XLSTMConfig) -> list[Tensor]:
    """Every parameter of ``xLSTMForCausalLM``, named and ordered as its named_parameters()."""
    e, n = config.hidden_size, config.num_blocks
    out = [tensor("backbone.embeddings.weight", (config.vocab_size, e), -1, config.vocab_size,
                  "embeddings")]
    for layer in range(n):
        out += block_tensors(config, layer, "backbone.blocks.")
    out += norm("backbone.out_norm.", e, -1)
    out += linear("lm_head.", config.vocab_size, e, False, -1)
    return out


def state(config: XLSTMConfig) -> tuple[LayerState, ...]:
    """What each block keeps between tokens (``xLSTMCache``): the mLSTM's matrix memory C
    (heads × qk × v head widths), its normaliser n (heads × qk) and stabiliser m (heads)."""
    from paramcount.families.state import Piece

    h = config.num_heads
    qk, v = config.qk_dim // h, config.v_dim // h
    pieces = (Piece("C", fixed=h * qk * v), Piece("n", fixed=h * qk), Piece("m", fixed=h))
    return tuple(LayerState(i, "mlstm", pieces) for i in range(config.num_blocks))


def formula(config: XLSTMConfig) -> Formula:
    """V·E + N·[E·(2Q + 3Vd + 3F + 2) + Vd + 2·NH·(E + 1) + b·(2Q + 3Vd + 2F + 4E)] + E + V·E."""
    vocab, e, n, nh = config.vocab_size, config.hidden_size, config.num_blocks, config.num_heads
    q, v, f, b = config.qk_dim, config.v_dim, config.up_proj_dim, int(config.use_bias)
    symbols = (
        Symbol("V", vocab, "vocab_size"),
        Symbol("E", e, "hidden_size (the embedding and every block's width)"),
        Symbol("N", n, "num_blocks"),
        Symbol("NH", nh, "num_heads: one input and one forget gate value per head"),
        Symbol("Q", q, f"query and key width, ⌊E·qk_dim_factor⌋ = ⌊{e:,}·{config.qk_dim_factor}⌋"),
        Symbol("Vd", v, f"value width, ⌊E·v_dim_factor⌋ = ⌊{e:,}·{config.v_dim_factor}⌋"),
        Symbol("F", f, f"feed-forward width, E·{config.ffn_proj_factor} rounded up to a "
                       f"multiple of {config.ffn_round_up_to_multiple_of}"),
        Symbol("b", b, "1 with use_bias, 0 without"),
    )
    block = (e * (2 * q + 3 * v + 3 * f + 2) + v + 2 * nh * (e + 1)
             + b * (2 * q + 3 * v + 2 * f + 4 * e))
    terms = (
        (f"{vocab}·{e}", vocab * e),
        (f"{n}·[{e}·(2·{q} + 3·{v} + 3·{f} + 2) + {v} + 2·{nh}·({e} + 1) + "
         f"{b}·(2·{q} + 3·{v} + 2·{f} + 4·{e})]", n * block),
        (f"{e}", e),
        (f"{vocab}·{e}", vocab * e),
    )
    return Formula(
        "V·E + N·[E·(2Q + 3Vd + 3F + 2) + Vd + 2·NH·(E + 1) + b·(2Q + 3Vd + 2F + 4E)] + E + V·E",
        symbols,
        terms,
    )


LAYOUT = Layout("transformers xLSTMConfig", frozenset({
    "vocab_size", "hidden_size", "embedding_dim", "num_hidden_layers", "num_blocks",
    "num_heads", "use_bias", "norm_reduction_force_float32", "add_out_norm", "norm_eps",
    "qk_dim_factor", "v_dim_factor", "chunkwise_kernel", "sequence_kernel", "step_kernel",
    "mode", "chunk_size", "return_last_states", "autocast_kernel_dtype", "eps",
    "inference_state_dtype", "ffn_proj_factor", "ffn_round_up_to_multiple_of",
    "gate_soft_cap", "output_logit_soft_cap", "weight_mode", "max_inference_chunksize"}))
"""transformers' ``xLSTMConfig`` (5.x): its fields."""


def from_hf_config(data: Mapping[str, object]) -> XLSTMConfig:
    """The config transformers' ``xLSTMConfig`` reads from ``config.json`` (defaults included).

    ``hidden_size`` falls back to ``embedding_dim`` and ``num_blocks`` to ``num_hidden_layers``
    only when they are null; transformers builds the embedding and the blocks ``embedding_dim``
    wide and the final norm and head ``hidden_size`` wide, so a config where the two differ
    describes a model that cannot run, and is refused.
    """
    hidden = data.get("hidden_size", 4096)
    embedding = data.get("embedding_dim", None)
    hidden = hidden if hidden is not None else embedding
    embedding = embedding if embedding is not None else hidden
    if embedding != hidden:
        raise SpecError(
            "{embedding_dim} and {hidden_size} differ (hidden_size is 4096 when config.json does "
            "not set it): transformers' xLSTM builds its blocks embedding_dim wide and its head "
            "hidden_size wide, which cannot run; set both",
            embedding_dim=embedding, hidden_size=hidden,
        )
    layers = data.get("num_hidden_layers", 32)
    blocks = data.get("num_blocks", None)
    return XLSTMConfig(
        vocab_size=data.get("vocab_size", 50304),  # type: ignore[arg-type]
        hidden_size=hidden,  # type: ignore[arg-type]
        num_blocks=blocks if blocks is not None else layers,  # type: ignore[arg-type]
        num_heads=data.get("num_heads", 8),  # type: ignore[arg-type]
        use_bias=data.get("use_bias", False),  # type: ignore[arg-type]
        qk_dim_factor=data.get("qk_dim_factor", 0.5),  # type: ignore[arg-type]
        v_dim_factor=data.get("v_dim_factor", 1.0),  # type: ignore[arg-type]
        ffn_proj_factor=data.get("ffn_proj_factor", 2.667),  # type: ignore[arg-type]
        ffn_round_up_to_multiple_of=data.get(  # type: ignore[arg-type]
            "ffn_round_up_to_multiple_of", 64),
        weight_mode=data.get("weight_mode", "single"),  # type: ignore[arg-type]
    )


_EMBEDDINGS = re.compile(r"(?P<prefix>.*)backbone\.embeddings\.weight")
_ROOTS = ("backbone.", "lm_head.")


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``xLSTMForCausalLM`` among ``shapes`` (``backbone.…`` and ``lm_head.weight``)."""
    return found_at(shapes, _EMBEDDINGS, 2, lambda m, shape: _recognise_at(
        shapes, m["prefix"], shape))


def _recognise_at(shapes: Shapes, prefix: str, embeddings: tuple[int, ...]) -> (
    RecognisedModel | None
):
    """The model whose tensors under ``prefix`` are exactly those in ``shapes``, or None."""
    vocab, e = embeddings
    p = f"{prefix}backbone.blocks."
    blocks = blocks_under(shapes, p)
    fused = f"{p}0.mlstm_layer.qkv_opreact.weight" in shapes
    gates = shapes.get(f"{p}0.mlstm_layer.{'ifgate' if fused else 'igate'}_preact.weight")
    out_proj = shapes.get(f"{p}0.mlstm_layer.out_proj.weight")
    down = shapes.get(f"{p}0.ffn.proj_down.weight")
    rows = shapes.get(f"{p}0.mlstm_layer.{'qkv_opreact' if fused else 'q'}.weight")
    if not (blocks and is_shape(gates, 2) and is_shape(out_proj, 2) and is_shape(down, 2)
            and is_shape(rows, 2)):
        return None
    assert gates is not None and out_proj is not None and down is not None and rows is not None
    v, f = out_proj[1], down[1]
    nh = gates[0] // 2 if fused else gates[0]
    q = (rows[0] - 2 * v) // 2 if fused else rows[0]
    multiple = next(m for m in (64, 32, 16, 8, 4, 2, 1) if f % m == 0)
    if round_up(e * 2.667, 64) == f:
        ffn_factor, multiple = 2.667, 64
    else:
        ffn_factor = factor_for(f, e, lambda x: round_up(e * x, multiple), f / e)
    try:
        config = XLSTMConfig(
            vocab_size=vocab, hidden_size=e, num_blocks=blocks, num_heads=nh,
            use_bias=f"{p}0.norm_mlstm.bias" in shapes,
            qk_dim_factor=factor_for(q, e, lambda x: int(e * x), 0.5),
            v_dim_factor=factor_for(v, e, lambda x: int(e * x), 1.0),
            ffn_proj_factor=ffn_factor, ffn_round_up_to_multiple_of=multiple,
            weight_mode="fused" if fused else "single",
        )
    except SpecError:
        return None
    names = exact(shapes, prefix, _ROOTS, tensors(config))
    if names is None:
        return None
    notes = [
        "qk_dim_factor, v_dim_factor and ffn_proj_factor are not stored, only the widths they "
        f"give (q/k {q:,}, v {v:,}, feed-forward {f:,} of hidden {e:,}); any factors giving "
        "the same widths build the same model",
        "tie_word_embeddings does not matter: transformers' xLSTM never ties lm_head",
    ]
    return RecognisedModel(prefix, NAME, config, names, tuple(notes))
