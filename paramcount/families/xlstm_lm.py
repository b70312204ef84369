"""xLSTM as the ``xlstm`` package builds it: ``xLSTMLMModel`` / ``xLSTMBlockStack``.

The block stack of the xLSTM paper: ``num_blocks`` residual blocks, those listed in ``slstm_at``
sLSTM blocks and the rest mLSTM blocks, each with a pre-LayerNorm (weight only).

- An **mLSTM block** projects up to an inner width I = E·proj_factor rounded (up, by default) to
  a multiple of 64 (``proj_up`` gives the mLSTM branch and the output gate z, 2I rows), runs a
  causal depthwise conv over the branch, block-diagonal q/k/v projections (blocks of
  ``qkv_proj_blocksize``), the mLSTM cell (an input and a forget gate reading q, k and v: 3I wide,
  one value per head, and a multi-head norm), a learnable skip, and ``proj_down`` back to E. It
  has no feed-forward of its own.
- An **sLSTM block** runs an optional causal conv (``conv1d_kernel_size`` 0 = none), four
  block-diagonal gate projections (one E/NH square per head, no bias), the sLSTM cell's
  recurrent kernel (block-diagonal too: per head 4 gates of head_dim × head_dim, laid out
  (NH, 4·hd, hd) by the ``vanilla`` backend and (NH, hd, 4·hd) by ``cuda``) and its bias (4E),
  a group norm, then a LayerNorm and a gated feed-forward ``proj_up`` (2F) / ``proj_down`` with
  F = E·1.3 rounded up to a multiple of 64 by default.

``xLSTMLMModel`` adds a token embedding and an ``lm_head`` (tied with ``tie_weights``, then
listed once); ``vocab_size=0`` here stands for the bare ``xLSTMBlockStack``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

from paramcount.engine.conventions.base import Formula, Symbol, Tensor
from paramcount.engine.conventions.recognition import Shapes, is_shape
from paramcount.engine.spec import MAX_LAYERS
from paramcount.errors import SpecError
from paramcount.families.family import RecognisedModel
from paramcount.families.parts import (
    at_most_blocks,
    blocks_under,
    booleans,
    choice,
    depthwise_conv,
    divides,
    exact,
    factor,
    factor_for,
    found_at,
    linear,
    norm,
    sizes,
    tensor,
    whole_or_zero,
)
from paramcount.record import fields, record, replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from paramcount.families.state import LayerState

NAME = "xlstm-lm"
TITLE = "xLSTM (xlstm package: mLSTM and sLSTM blocks)"
REFERENCE = "xlstm xLSTMLMModel"

BACKENDS = ("cuda", "vanilla")


def proj_up_dim(width: int, proj_factor: float, up: bool, multiple: int) -> int:
    """``UpProjConfigMixin``'s width: ⌈width·proj_factor / multiple⌉ (or ⌊⌋) · multiple."""
    ratio = proj_factor * width / multiple
    return int((math.ceil(ratio) if up else math.floor(ratio)) * multiple)


@record
class XLSTMLMConfig:
    """``xLSTMLMModelConfig`` flattened: the stack's options, then the mLSTM block's
    (``mlstm_block.mlstm.*``), the sLSTM block's (``slstm_block.slstm.*``) and its feed-forward's
    (``slstm_block.feedforward.*``), with the package's defaults.
    """

    vocab_size: int = 0
    embedding_dim: int = 128
    num_blocks: int = 1
    slstm_at: tuple[int, ...] = ()
    add_post_blocks_norm: bool = True
    bias: bool = False
    tie_weights: bool = False
    mlstm_num_heads: int = 4
    mlstm_proj_factor: float = 2.0
    mlstm_conv1d_kernel_size: int = 4
    mlstm_qkv_proj_blocksize: int = 4
    mlstm_round_proj_up_dim_up: bool = True
    mlstm_round_proj_up_to_multiple_of: int = 64
    slstm_num_heads: int = 4
    slstm_conv1d_kernel_size: int = 4
    slstm_group_norm_weight: bool = True
    slstm_backend: str = "cuda"
    feedforward: bool = True
    feedforward_proj_factor: float = 1.3
    feedforward_bias: bool = False
    feedforward_round_proj_up_dim_up: bool = True
    feedforward_round_proj_up_to_multiple_of: int = 64

    def __post_init__(self) -> None:
        whole_or_zero("vocab_size", self.vocab_size)
        sizes(self, "embedding_dim", "num_blocks", "mlstm_num_heads", "mlstm_conv1d_kernel_size",
              "mlstm_qkv_proj_blocksize", "mlstm_round_proj_up_to_multiple_of",
              "slstm_num_heads", "feedforward_round_proj_up_to_multiple_of")
        whole_or_zero("slstm_conv1d_kernel_size", self.slstm_conv1d_kernel_size)
        at_most_blocks("num_blocks", self.num_blocks)
        booleans(self, "add_post_blocks_norm", "bias", "tie_weights", "mlstm_round_proj_up_dim_up",
                 "slstm_group_norm_weight", "feedforward", "feedforward_bias",
                 "feedforward_round_proj_up_dim_up")
        factor("mlstm_proj_factor", self.mlstm_proj_factor)
        factor("feedforward_proj_factor", self.feedforward_proj_factor)
        choice("slstm_backend", self.slstm_backend, BACKENDS)
        if self.tie_weights and not self.vocab_size:
            raise SpecError("{tie_weights} needs a vocab_size: the bare block stack has no "
                            "embedding to tie", tie_weights=self.tie_weights)
        at = self.slstm_at
        if not (isinstance(at, tuple) and all(isinstance(i, int) and not isinstance(i, bool)
                                              for i in at)
                and list(at) == sorted(set(at)) and all(0 <= i < self.num_blocks for i in at)):
            raise SpecError("{slstm_at} must list block indices in increasing order, each "
                            "from 0 to num_blocks - 1", slstm_at=at)
        if self.has_mlstm:
            self._check_mlstm()
        if self.has_slstm:
            divides("slstm_num_heads", self.slstm_num_heads, "embedding_dim", self.embedding_dim,
                    "the sLSTM splits its width into equal heads")
            if self.feedforward and self.ffn_dim < 1:
                raise SpecError("{feedforward_proj_factor} leaves the feed-forward no width",
                                feedforward_proj_factor=self.feedforward_proj_factor)

    def _check_mlstm(self) -> None:
        inner = self.inner_dim
        if inner < 1:
            raise SpecError("{mlstm_proj_factor} leaves the mLSTM no inner width",
                            mlstm_proj_factor=self.mlstm_proj_factor)
        heads = inner // self.mlstm_qkv_proj_blocksize
        if heads < 1 or inner % heads:
            raise SpecError(
                "{mlstm_qkv_proj_blocksize} must split the inner width " + f"{inner:,} "
                "(embedding_dim·mlstm_proj_factor, rounded) into equal blocks",
                mlstm_qkv_proj_blocksize=self.mlstm_qkv_proj_blocksize)
        divides("mlstm_num_heads", self.mlstm_num_heads, "inner_dim", inner,
                "the mLSTM cell splits its inner width into equal heads")

    @property
    def hidden_size(self) -> int:
        """The width every block reads and writes: ``embedding_dim``."""
        return self.embedding_dim

    @property
    def has_mlstm(self) -> bool:
        """Whether any block is an mLSTM block."""
        return len(self.slstm_at) < self.num_blocks

    @property
    def has_slstm(self) -> bool:
        """Whether any block is an sLSTM block."""
        return bool(self.slstm_at)

    @property
    def inner_dim(self) -> int:
        """The mLSTM block's inner width I."""
        return proj_up_dim(self.embedding_dim, self.mlstm_proj_factor,
                           self.mlstm_round_proj_up_dim_up, self.mlstm_round_proj_up_to_multiple_of)

    @property
    def ffn_dim(self) -> int:
        """The sLSTM block's feed-forward width F."""
        return proj_up_dim(self.embedding_dim, self.feedforward_proj_factor,
                           self.feedforward_round_proj_up_dim_up,
                           self.feedforward_round_proj_up_to_multiple_of)

    @property
    def qkv_heads(self) -> int:
        """How many blocks the q, k and v projections have: I // qkv_proj_blocksize."""
        return self.inner_dim // self.mlstm_qkv_proj_blocksize


Config = XLSTMLMConfig

ALIASES: dict[str, tuple[str, ...]] = {
    "num_blocks": ("--layers", "-L"), "embedding_dim": ("--d-model", "--hidden")}
"""Names people use for this family's options beside ``--field-name``."""


def _headwise(prefix: str, heads: int, width: int, bias: bool, layer: int) -> list[Tensor]:
    """``LinearHeadwiseExpand(width, heads)``: weight (heads, w/heads, w/heads), bias (width,)."""
    role = prefix.rstrip(".").rsplit(".", 1)[-1]
    size = width // heads
    out = [tensor(prefix + "weight", (heads, size, size), layer, width, role)]
    if bias:
        out.append(tensor(prefix + "bias", (width,), layer, width, role + ".bias"))
    return out


def mlstm_block(config: XLSTMLMConfig, layer: int, prefix: str = "") -> list[Tensor]:
    """One mLSTM block's tensors (``blocks.{layer}.`` in the stack)."""
    e, i, b, nh = config.embedding_dim, config.inner_dim, config.bias, config.mlstm_num_heads
    p = f"{prefix}{layer}."
    x = p + "xlstm."
    out = norm(p + "xlstm_norm.", e, layer)
    out.append(tensor(x + "learnable_skip", (i,), layer, i, "learnable_skip"))
    out += linear(x + "proj_up.", 2 * i, e, b, layer)
    for name in ("q_proj", "k_proj", "v_proj"):
        out += _headwise(f"{x}{name}.", config.qkv_heads, i, b, layer)
    out += depthwise_conv(x + "conv1d.conv.", i, config.mlstm_conv1d_kernel_size, True, layer)
    out += linear(x + "mlstm_cell.igate.", nh, 3 * i, True, layer)
    out += linear(x + "mlstm_cell.fgate.", nh, 3 * i, True, layer)
    out += norm(x + "mlstm_cell.outnorm.", i, layer)
    out += linear(x + "proj_down.", e, i, b, layer)
    return out


def slstm_block(config: XLSTMLMConfig, layer: int, prefix: str = "") -> list[Tensor]:
    """One sLSTM block's tensors (``blocks.{layer}.`` in the stack)."""
    e, nh = config.embedding_dim, config.slstm_num_heads
    hd = e // nh
    p = f"{prefix}{layer}."
    x = p + "xlstm."
    out = norm(p + "xlstm_norm.", e, layer)
    if config.slstm_conv1d_kernel_size:
        out += depthwise_conv(x + "conv1d.conv.", e, config.slstm_conv1d_kernel_size, True, layer)
    for gate in ("fgate", "igate", "zgate", "ogate"):
        out += _headwise(f"{x}{gate}.", nh, e, False, layer)
    kernel = (nh, 4 * hd, hd) if config.slstm_backend == "vanilla" else (nh, hd, 4 * hd)
    out.append(tensor(x + "slstm_cell._recurrent_kernel_", kernel, layer, e, "recurrent_kernel"))
    out.append(tensor(x + "slstm_cell._bias_", (4 * e,), layer, e, "bias"))
    out += norm(x + "group_norm.", e, layer, weight=config.slstm_group_norm_weight)
    if config.feedforward:
        f, fb = config.ffn_dim, config.feedforward_bias
        out += norm(p + "ffn_norm.", e, layer)
        out += linear(p + "ffn.proj_up.", 2 * f, e, fb, layer)
        out += linear(p + "ffn.proj_down.", e, f, fb, layer)
    return out


def tensors(config: XLSTMLMConfig) -> list[Tensor]:
    """Every parameter of ``xLSTMLMModel`` (or the bare ``xLSTMBlockStack`` when vocab_size=0)."""
    lm = config.vocab_size > 0
    stack = "xlstm_block_stack." if lm else ""
    out = []
    for layer in range(config.num_blocks):
        make = slstm_block if layer in config.slstm_at else mlstm_block
        out += make(config, layer, stack + "blocks.")
    if config.add_post_blocks_norm:
        out += norm(stack + "post_blocks_norm.", config.embedding_dim, -1)
    if lm:
        v, e = config.vocab_size, config.embedding_dim
        out.append(tensor("token_embedding.weight", (v, e), -1, v, "token_embedding"))
        if not config.tie_weights:
            out += linear("lm_head.", v, e, False, -1)
    return out


def state(config: XLSTMLMConfig) -> tuple[LayerState, ...]:
    """What each block keeps between tokens, as the package's ``step`` returns it: an mLSTM
    block its conv's last K inputs of the inner width I and the cell's C (NH × DH × DH),
    n (NH × DH) and m (NH), DH = I / NH; an sLSTM block its conv's last K inputs of E (none
    without a conv) and the cell's h, c, n and m, E each. All in the model's dtype."""
    from paramcount.families.state import LayerState, Piece, convolution

    made = []
    for layer in range(config.num_blocks):
        if layer in config.slstm_at:
            e, k = config.embedding_dim, config.slstm_conv1d_kernel_size
            conv = (convolution(e, k),) if k else ()
            made.append(LayerState(layer, "slstm", (
                *conv, *(Piece(name, fixed=e) for name in ("h", "c", "n", "m")))))
        else:
            i, nh = config.inner_dim, config.mlstm_num_heads
            dh = i // nh
            made.append(LayerState(layer, "mlstm", (
                convolution(i, config.mlstm_conv1d_kernel_size), Piece("C", fixed=nh * dh * dh),
                Piece("n", fixed=nh * dh), Piece("m", fixed=nh))))
    return tuple(made)


def formula(config: XLSTMLMConfig) -> Formula:
    """M·mLSTM + S·sLSTM + n·E + V·E·(2 − t), each block's closed form spelled out."""
    e, i, nh = config.embedding_dim, config.inner_dim, config.mlstm_num_heads
    b, k = int(config.bias), config.mlstm_conv1d_kernel_size
    qkv = i // config.qkv_heads if config.has_mlstm else 0
    s_count = len(config.slstm_at)
    m_count = config.num_blocks - s_count
    symbols = [Symbol("E", e, "embedding_dim")]
    terms = []
    parts = []
    if m_count:
        symbols += [
            Symbol("M", m_count, "mLSTM blocks"),
            Symbol("I", i, f"mLSTM inner width: E·{config.mlstm_proj_factor} rounded to a "
                           f"multiple of {config.mlstm_round_proj_up_to_multiple_of}"),
            Symbol("B", qkv, "q/k/v block size: I / ⌊I / qkv_proj_blocksize⌋"),
            Symbol("NHm", nh, "mLSTM heads (one input and one forget gate value each)"),
            Symbol("K", k, "mLSTM conv1d_kernel_size"),
            Symbol("b", b, "1 with bias, 0 without"),
        ]
        block = (e + i + 2 * i * e + 3 * i * qkv + i * (k + 1)
                 + 2 * nh * (3 * i + 1) + i + i * e + b * (2 * i + 3 * i + e))
        parts.append("M·[E + I + 2I·E + 3I·B + I·(K + 1) + 2·NHm·(3I + 1) + I + I·E "
                     "+ b·(5I + E)]")
        terms.append((f"{m_count}·[{e} + {i} + 2·{i}·{e} + 3·{i}·{qkv}"
                       f" + {i}·({k} + 1) + 2·{nh}·(3·{i} + 1) + {i} + {i}·{e} + "
                       f"{b}·(5·{i} + {e})]", m_count * block))
    if s_count:
        nhs, ks = config.slstm_num_heads, config.slstm_conv1d_kernel_size
        g = int(config.slstm_group_norm_weight)
        f, fb, ff = config.ffn_dim, int(config.feedforward_bias), int(config.feedforward)
        hd = e // nhs
        symbols += [
            Symbol("S", s_count, "sLSTM blocks"),
            Symbol("NHs", nhs, "sLSTM heads, each hd = E/NHs wide"),
            Symbol("Ks", ks, "sLSTM conv1d_kernel_size (0: no conv)"),
            Symbol("g", g, "1 with group_norm_weight, 0 without"),
            Symbol("f", ff, "1 with the sLSTM block's feed-forward, 0 without"),
            Symbol("F", f, f"feed-forward width: E·{config.feedforward_proj_factor} rounded to a "
                           f"multiple of {config.feedforward_round_proj_up_to_multiple_of}"),
            Symbol("fb", fb, "1 with the feed-forward's bias, 0 without"),
        ]
        conv = e * (ks + 1) if ks else 0
        block = (e + conv + 4 * e * hd + 4 * e * hd + 4 * e + g * e
                 + ff * (e + 3 * f * e + fb * (2 * f + e)))
        parts.append("S·[E + [Ks > 0]·E·(Ks + 1) + 8·E·E/NHs + 4E + g·E "
                     "+ f·(E + 3F·E + fb·(2F + E))]")
        conv_text = f"{e}·({ks} + 1)" if ks else "0"
        terms.append((f"{s_count}·[{e} + {conv_text} + 8·{e}·{hd} + 4·{e} + {g}·{e} + "
                      f"{ff}·({e} + 3·{f}·{e} + {fb}·(2·{f} + {e}))]", s_count * block))
    if config.add_post_blocks_norm:
        parts.append("E")
        terms.append((f"{e}", e))
    if config.vocab_size:
        v, t = config.vocab_size, int(config.tie_weights)
        symbols += [Symbol("V", v, "vocab_size"),
                    Symbol("t", t, "1 with tie_weights (lm_head is the embedding), 0 without")]
        parts.append("V·E·(2 − t)")
        terms.append((f"{v}·{e}·(2 − {t})", v * e * (2 - t)))
    return Formula(" + ".join(parts), tuple(symbols), tuple(terms))


def _section(data: Mapping[str, object], key: str) -> Mapping[str, object] | None:
    """A nested config section (``mlstm_block`` …), None when null, {} when absent."""
    value = data.get(key, {})
    if value is None or isinstance(value, Mapping):
        return value
    raise SpecError("{" + key + "} must be a mapping of options or null", **{key: value})


def from_hf_config(data: Mapping[str, object]) -> XLSTMLMConfig:
    """The config ``xLSTMLMModelConfig`` reads from its nested dict (the ``model:`` section of
    the package's experiment YAML), with the dataclasses' defaults.

    A missing ``mlstm_block`` or ``slstm_block`` is the default block config; a null one is
    none (no mLSTM block means every block is an sLSTM block, as the package decides). The
    flattened names of this record (``mlstm_num_heads``, ``feedforward_proj_factor``, …), as
    the command spells them, are read too, and win over the nested values.
    """
    model = data.get("model")
    if isinstance(model, Mapping):
        data = model
    nested = _nested(data)
    flat = {key: value for key, value in data.items() if key in _FLAT}
    return replace(nested, **flat) if flat else nested


_FLAT = frozenset(fields(XLSTMLMConfig)) - {"vocab_size", "embedding_dim", "num_blocks",
                                             "slstm_at", "add_post_blocks_norm", "bias",
                                             "tie_weights"}
"""The record's fields that the package's nested dict spells otherwise."""


def _nested(data: Mapping[str, object]) -> XLSTMLMConfig:
    """The config from the package's nested dict."""
    mlstm_block = _section(data, "mlstm_block")
    slstm_block = _section(data, "slstm_block")
    mlstm = _section(mlstm_block, "mlstm") if mlstm_block is not None else None
    slstm = _section(slstm_block, "slstm") if slstm_block is not None else None
    ffn = _section(slstm_block, "feedforward") if slstm_block is not None else None
    blocks = data.get("num_blocks", 1)
    at = data.get("slstm_at", [])
    if mlstm_block is None or at == "all":
        at = list(range(blocks)) if isinstance(blocks, int) and blocks <= MAX_LAYERS else []
    if not isinstance(at, list | tuple):
        raise SpecError("{slstm_at} must be a list of block indices or 'all'", slstm_at=at)
    if at and slstm_block is None:
        raise SpecError("{slstm_at} names sLSTM blocks but slstm_block is null", slstm_at=at)
    m, s, f = mlstm or {}, slstm or {}, ffn or {}
    return XLSTMLMConfig(
        vocab_size=_vocab(data.get("vocab_size", -1)),
        embedding_dim=data.get("embedding_dim", 128),  # type: ignore[arg-type]
        num_blocks=blocks,  # type: ignore[arg-type]
        slstm_at=_indices(at),
        add_post_blocks_norm=data.get("add_post_blocks_norm", True),  # type: ignore[arg-type]
        bias=data.get("bias", False),  # type: ignore[arg-type]
        tie_weights=data.get("tie_weights", False),  # type: ignore[arg-type]
        mlstm_num_heads=m.get("num_heads", 4),  # type: ignore[arg-type]
        mlstm_proj_factor=m.get("proj_factor", 2.0),  # type: ignore[arg-type]
        mlstm_conv1d_kernel_size=m.get("conv1d_kernel_size", 4),  # type: ignore[arg-type]
        mlstm_qkv_proj_blocksize=m.get("qkv_proj_blocksize", 4),  # type: ignore[arg-type]
        mlstm_round_proj_up_dim_up=m.get("round_proj_up_dim_up", True),  # type: ignore[arg-type]
        mlstm_round_proj_up_to_multiple_of=m.get(  # type: ignore[arg-type]
            "round_proj_up_to_multiple_of", 64),
        slstm_num_heads=s.get("num_heads", 4),  # type: ignore[arg-type]
        slstm_conv1d_kernel_size=s.get("conv1d_kernel_size", 4),  # type: ignore[arg-type]
        slstm_group_norm_weight=s.get("group_norm_weight", True),  # type: ignore[arg-type]
        slstm_backend=s.get("backend", "cuda"),  # type: ignore[arg-type]
        feedforward=slstm_block is None or ffn is not None,
        feedforward_proj_factor=f.get("proj_factor", 1.3),  # type: ignore[arg-type]
        feedforward_bias=f.get("bias", False),  # type: ignore[arg-type]
        feedforward_round_proj_up_dim_up=f.get(  # type: ignore[arg-type]
            "round_proj_up_dim_up", True),
        feedforward_round_proj_up_to_multiple_of=f.get(  # type: ignore[arg-type]
            "round_proj_up_to_multiple_of", 64),
    )


def _indices(at: list[object] | tuple[object, ...]) -> tuple[int, ...]:
    """``slstm_at`` in order, once each, as the package's block map reads it (others kept as
    they are, for the record to refuse)."""
    numbers = [i for i in at if isinstance(i, int) and not isinstance(i, bool)]
    if len(numbers) == len(at):
        return tuple(sorted(set(numbers)))
    return tuple(at)  # type: ignore[arg-type]


def _vocab(value: object) -> int:
    """``vocab_size`` as the record has it: the package's unset -1 is the bare stack (0)."""
    return 0 if value == -1 else value  # type: ignore[return-value]


_NORM = re.compile(r"(?P<prefix>.*?)(?P<stack>xlstm_block_stack\.)?blocks\.0\.xlstm_norm\.weight")


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``xLSTMLMModel`` or ``xLSTMBlockStack`` among ``shapes``."""
    return found_at(shapes, _NORM, 1, lambda m, shape: _recognise_at(
        shapes, m["prefix"], bool(m["stack"]), shape[0]))


def _recognise_at(shapes: Shapes, prefix: str, lm: bool, e: int) -> RecognisedModel | None:
    """The model or stack under ``prefix`` whose tensors are exactly those found, or None."""
    stack = prefix + ("xlstm_block_stack." if lm else "")
    start = stack + "blocks."
    count = blocks_under(shapes, start)
    slstm_at = tuple(i for i in range(count) if f"{start}{i}.xlstm.slstm_cell._bias_" in shapes)
    fields: dict[str, object] = {"embedding_dim": e, "num_blocks": count, "slstm_at": slstm_at}
    mlstm = next((i for i in range(count) if i not in slstm_at), None)
    if mlstm is not None:
        fields.update(_mlstm_fields(shapes, f"{start}{mlstm}.xlstm.", e))
    if slstm_at:
        fields.update(_slstm_fields(shapes, f"{start}{slstm_at[0]}.", e))
    fields["add_post_blocks_norm"] = stack + "post_blocks_norm.weight" in shapes
    if lm:
        embedding = shapes.get(prefix + "token_embedding.weight")
        if not is_shape(embedding, 2):
            return None
        assert embedding is not None
        fields["vocab_size"] = embedding[0]
        fields["tie_weights"] = prefix + "lm_head.weight" not in shapes
    try:
        config = XLSTMLMConfig(**fields)  # type: ignore[arg-type]
    except (SpecError, TypeError):
        return None
    roots = ("xlstm_block_stack.", "token_embedding.", "lm_head.") if lm else (
        "blocks.", "post_blocks_norm.")
    names = exact(shapes, prefix, roots, tensors(config))
    if names is None:
        return None
    notes = ["proj_factor is not stored, only the width it gives; any factor (and rounding) "
             "giving the same width builds the same blocks"]
    if lm and config.tie_weights:
        notes.append("no lm_head.weight: read as tie_weights=True (the head is the embedding)")
    return RecognisedModel(prefix, NAME, config, names, tuple(notes))


def _width(width: int, e: int, default: float) -> tuple[float, int]:
    """A (proj_factor, round_proj_up_to_multiple_of) that rounds E·factor up to ``width``."""
    if proj_up_dim(e, default, True, 64) == width:
        return default, 64
    multiple = 64 if width % 64 == 0 else 1
    return factor_for(width, e, lambda f: proj_up_dim(e, f, True, multiple), width / e), multiple


def _mlstm_fields(shapes: Shapes, x: str, e: int) -> dict[str, object]:
    """The mLSTM options an mLSTM block's tensors tell (under ``x`` = ``blocks.{i}.xlstm.``)."""
    skip, gate, q, conv = (shapes.get(x + n) for n in (
        "learnable_skip", "mlstm_cell.igate.weight", "q_proj.weight", "conv1d.conv.weight"))
    if not (is_shape(skip, 1) and is_shape(gate, 2) and is_shape(q, 3) and is_shape(conv, 3)):
        return {"mlstm_num_heads": 0}
    assert skip is not None and gate is not None and q is not None and conv is not None
    i = skip[0]
    proj_factor, multiple = _width(i, e, 2.0)
    return {
        "mlstm_num_heads": gate[0], "mlstm_conv1d_kernel_size": conv[2],
        "mlstm_qkv_proj_blocksize": _blocksize(i, q[0]), "bias": x + "proj_up.bias" in shapes,
        "mlstm_proj_factor": proj_factor, "mlstm_round_proj_up_to_multiple_of": multiple,
    }


def _blocksize(inner: int, heads: int) -> int:
    """A qkv_proj_blocksize b with inner // b == heads: the default 4 if it does, else the
    smallest, ⌊inner / (heads + 1)⌋ + 1."""
    return 4 if inner // 4 == heads else inner // (heads + 1) + 1


def _slstm_fields(shapes: Shapes, p: str, e: int) -> dict[str, object]:
    """The sLSTM and feed-forward options an sLSTM block's tensors tell (under ``blocks.{i}.``)."""
    kernel = shapes.get(p + "xlstm.slstm_cell._recurrent_kernel_")
    conv = shapes.get(p + "xlstm.conv1d.conv.weight")
    down = shapes.get(p + "ffn.proj_down.weight")
    if not is_shape(kernel, 3):
        return {"slstm_num_heads": 0}
    assert kernel is not None
    heads, rows, cols = kernel
    fields: dict[str, object] = {
        "slstm_num_heads": heads,
        "slstm_backend": "vanilla" if rows == 4 * cols else "cuda",
        "slstm_conv1d_kernel_size": conv[2] if conv is not None and is_shape(conv, 3) else 0,
        "slstm_group_norm_weight": p + "xlstm.group_norm.weight" in shapes,
        "feedforward": down is not None,
    }
    if down is not None and is_shape(down, 2):
        proj_factor, multiple = _width(down[1], e, 1.3)
        fields["feedforward_proj_factor"] = proj_factor
        fields["feedforward_round_proj_up_to_multiple_of"] = multiple
        fields["feedforward_bias"] = p + "ffn.proj_down.bias" in shapes
    return fields
