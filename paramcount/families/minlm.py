"""minLM, mingru-pytorch's language model: ``minLM(num_tokens=, dim=, depth=, …)``.

A token embedding, then ``depth`` residual layers, each: an optional causal depthwise conv
(``enable_conv``: a depthwise conv of ``conv_kernel_size`` taps and a pointwise conv, both with
biases), an RMSNorm, a minGRU (or minLSTM with ``use_lstm``) with ``expansion_factor=expansion``
(so with its ``to_out`` projection unless expansion is 1), an RMSNorm and a feed-forward
(Linear dim → int(dim·ff_mult) → dim, with biases); then a final RMSNorm and an untied,
bias-free ``to_logits``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from paramcount.engine.conventions.base import Formula, Symbol, Tensor
from paramcount.engine.conventions.recognition import Shapes, is_shape
from paramcount.errors import SpecError
from paramcount.families.family import RecognisedModel
from paramcount.families.mingru import MinGRUConfig, layer_tensors, projection_name, read_layer
from paramcount.families.parts import (
    at_most_blocks,
    blocks_under,
    booleans,
    exact,
    factor,
    factor_for,
    found_at,
    linear,
    norm,
    sizes,
    tensor,
)
from paramcount.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from paramcount.families.state import LayerState

NAME = "minlm"
TITLE = "minLM (mingru-pytorch's minGRU / minLSTM language model)"
REFERENCE = "mingru-pytorch minLM"


@record
class MinLMConfig:
    """``minLM``'s keyword arguments that change the count, with its defaults.

    The reference requires ``num_tokens``, ``dim`` and ``depth``; 256, 512 and 6 are its
    ``train.py``'s values.
    """

    num_tokens: int = 256
    dim: int = 512
    depth: int = 6
    ff_mult: float = 4.0
    expansion: float = 1.5
    conv_kernel_size: int = 3
    use_lstm: bool = False
    enable_conv: bool = False

    def __post_init__(self) -> None:
        sizes(self, "num_tokens", "dim", "depth", "conv_kernel_size")
        factor("ff_mult", self.ff_mult)
        factor("expansion", self.expansion)
        booleans(self, "use_lstm", "enable_conv")
        at_most_blocks("depth", self.depth)
        if int(self.dim * self.expansion) < 1:
            raise SpecError("{expansion} leaves the minGRU no inner width: int(dim·expansion) "
                            "is 0", expansion=self.expansion)
        if self.ff_dim < 1:
            raise SpecError("{ff_mult} leaves the feed-forward no width: int(dim·ff_mult) is 0",
                            ff_mult=self.ff_mult)

    @property
    def hidden_size(self) -> int:
        """The width every layer reads and writes: ``dim``."""
        return self.dim

    @property
    def layer(self) -> MinGRUConfig:
        """Each layer's minGRU / minLSTM."""
        return MinGRUConfig(self.dim, self.expansion, None, self.use_lstm)

    @property
    def ff_dim(self) -> int:
        """The feed-forward's width, ``int(dim * ff_mult)``."""
        return int(self.dim * self.ff_mult)


Config = MinLMConfig

ALIASES: dict[str, tuple[str, ...]] = {
    "num_tokens": ("--vocab",), "depth": ("--layers", "-L"), "dim": ("--d-model",)}
"""Names people use for this family's options beside ``--field-name``."""


def block_tensors(config: MinLMConfig, layer: int, prefix: str = "layers.") -> list[Tensor]:
    """Layer ``layer``'s tensors: conv, norm, minGRU, norm, feed-forward."""
    d, f = config.dim, config.ff_dim
    p = f"{prefix}{layer}."
    out = []
    if config.enable_conv:
        out.append(tensor(p + "0.net.0.weight", (d, 1, config.conv_kernel_size), layer, d,
                          "conv (depthwise)"))
        out.append(tensor(p + "0.net.0.bias", (d,), layer, d, "conv (depthwise).bias"))
        out.append(tensor(p + "0.net.1.weight", (d, d, 1), layer, d, "conv (pointwise)"))
        out.append(tensor(p + "0.net.1.bias", (d,), layer, d, "conv (pointwise).bias"))
    out += norm(p + "1.", d, layer, role="norm")
    out += layer_tensors(config.layer, layer, p + "2.")
    out += norm(p + "3.", d, layer, role="ff_norm")
    out += linear(p + "4.0.", f, d, True, layer, role="ff (in)")
    out += linear(p + "4.2.", d, f, True, layer, role="ff (out)")
    return out


def tensors(config: MinLMConfig) -> list[Tensor]:
    """Every parameter of ``minLM``, as its named_parameters() lists them."""
    v, d = config.num_tokens, config.dim
    out = [tensor("token_emb.weight", (v, d), -1, v, "token_emb")]
    for layer in range(config.depth):
        out += block_tensors(config, layer)
    out += norm("norm.", d, -1)
    out += linear("to_logits.", v, d, False, -1)
    return out


def state(config: MinLMConfig) -> tuple[LayerState, ...]:
    """What each layer keeps between tokens: its minGRU's (minLSTM's) last hidden state,
    int(dim·expansion) wide (``return_prev_hiddens``), and with ``enable_conv`` its causal
    conv's last K − 1 inputs of dim (the conv pads K − 1 on the left); the model's dtype."""
    from paramcount.families.state import LayerState, Piece, convolution

    conv = (convolution(config.dim, config.conv_kernel_size - 1),) if config.enable_conv else ()
    hidden = Piece("hidden", fixed=config.layer.dim_inner)
    kind = "minlstm" if config.use_lstm else "mingru"
    return tuple(LayerState(i, kind, (*conv, hidden)) for i in range(config.depth))


def state_notes(config: MinLMConfig) -> tuple[str, ...]:
    """With ``enable_conv``: mingru-pytorch itself keeps no state (``can_cache`` is False), so
    the figure is what a step-by-step decoder would keep."""
    if not config.enable_conv:
        return ()
    return ("mingru-pytorch keeps no state for a model with enable_conv (can_cache is False: "
            "each token re-reads the whole sequence); this is what a step-by-step decoder "
            "keeps: each layer's hidden state and its conv's last K − 1 inputs.",)


def formula(config: MinLMConfig) -> Formula:
    """2·V·d + L·[c·(d·(k + 1) + d² + d) + 2d + G·Di·d + p·d·Di + 2·F·d + F + d] + d."""
    layer = config.layer
    v, d, n, f = config.num_tokens, config.dim, config.depth, config.ff_dim
    g, di, p = layer.gates, layer.dim_inner, int(layer.projects)
    c, k = int(config.enable_conv), config.conv_kernel_size
    symbols = (
        Symbol("V", v, "num_tokens"),
        Symbol("d", d, "dim"),
        Symbol("L", n, "depth"),
        Symbol("c", c, "1 with enable_conv, 0 without"),
        Symbol("k", k, "conv_kernel_size"),
        Symbol("G", g, "minGRU 2 (hidden, gate), minLSTM 3 (hidden, f, i)"),
        Symbol("Di", di, f"inner width, int(d·expansion) = int({d:,}·{config.expansion})"),
        Symbol("p", p, "1 with the minGRU's to_out (expansion ≠ 1)"),
        Symbol("F", f, f"feed-forward width, int(d·ff_mult) = int({d:,}·{config.ff_mult})"),
    )
    per = c * (d * (k + 1) + d * d + d) + 2 * d + g * di * d + p * d * di + 2 * f * d + f + d
    terms = (
        (f"2·{v}·{d}", 2 * v * d),
        (f"{n}·[{c}·({d}·({k} + 1) + {d}² + {d}) + 2·{d} + {g}·{di}·{d} + {p}·{d}·{di} + "
         f"2·{f}·{d} + {f} + {d}]", n * per),
        (f"{d}", d),
    )
    return Formula("2·V·d + L·[c·(d·(k + 1) + d² + d) + 2d + G·Di·d + p·d·Di + 2·F·d + F + d] + d",
                   symbols, terms)


def from_hf_config(data: Mapping[str, object]) -> MinLMConfig:
    """``minLM``'s keyword arguments, with its defaults (for num_tokens, dim and depth, which
    the reference requires, the command's)."""
    return MinLMConfig(
        num_tokens=data.get("num_tokens", 256),  # type: ignore[arg-type]
        dim=data.get("dim", 512),  # type: ignore[arg-type]
        depth=data.get("depth", 6),  # type: ignore[arg-type]
        ff_mult=data.get("ff_mult", 4),  # type: ignore[arg-type]
        expansion=data.get("expansion", 1.5),  # type: ignore[arg-type]
        conv_kernel_size=data.get("conv_kernel_size", 3),  # type: ignore[arg-type]
        use_lstm=data.get("use_lstm", False),  # type: ignore[arg-type]
        enable_conv=data.get("enable_conv", False),  # type: ignore[arg-type]
    )


_EMBEDDING = re.compile(r"(?P<prefix>.*)token_emb\.weight")
_ROOTS = ("token_emb.", "layers.", "norm.", "to_logits.")


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``minLM`` among ``shapes``."""
    return found_at(shapes, _EMBEDDING, 2, lambda m, shape: _recognise_at(
        shapes, m["prefix"], shape))


def _recognise_at(shapes: Shapes, prefix: str, embedding: tuple[int, ...]) -> (
    RecognisedModel | None
):
    """The minLM under ``prefix`` whose tensors are exactly those found, or None."""
    v, d = embedding
    p = f"{prefix}layers."
    depth = blocks_under(shapes, p)
    lstm = f"{p}0.2.{projection_name(True)}.weight" in shapes
    projection = shapes.get(f"{p}0.2.{projection_name(lstm)}.weight")
    ff = shapes.get(f"{p}0.4.0.weight")
    conv = shapes.get(f"{p}0.0.net.0.weight")
    if not (depth and projection is not None and is_shape(ff, 2)):
        return None
    assert ff is not None
    layer = read_layer(shapes, f"{p}0.2.", projection_name(lstm), projection)
    if layer is None:
        return None
    expansion = factor_for(layer.dim_inner, d, lambda x: int(d * x), 1.5)
    try:
        config = MinLMConfig(
            num_tokens=v, dim=d, depth=depth,
            ff_mult=factor_for(ff[0], d, lambda x: int(d * x), 4.0),
            expansion=expansion,
            conv_kernel_size=conv[2] if conv is not None and is_shape(conv, 3) else 3,
            use_lstm=lstm, enable_conv=conv is not None,
        )
    except SpecError:
        return None
    names = exact(shapes, prefix, _ROOTS, tensors(config))
    if names is None:
        return None
    notes = ("expansion and ff_mult are not stored, only the widths int(dim·factor) they give",)
    return RecognisedModel(prefix, NAME, config, names, notes)
