"""Mamba-2 as transformers' ``Mamba2ForCausalLM`` builds it from a ``Mamba2Config``.

Per block ``backbone.layers.{i}``: ``norm.weight`` (D,), then the mixer's own parameters
``dt_bias``, ``A_log`` and ``D`` (H,) each (one per head), its depthwise ``conv1d`` over x, B and
C together (weight (C, 1, K), bias (C,) with ``use_conv_bias``; C = E + 2·G·N), ``in_proj``
(E + C + H, D) giving z, x, B, C and dt at once (+ bias with ``use_bias``), the gated RMSNorm
``norm.weight`` (E,) and ``out_proj`` (D, E) (+ bias (D,) with ``use_bias``); E = expand·D, which
transformers requires to equal ``num_heads · head_dim``. Around them the same frame as Mamba:
``backbone.embeddings.weight``, ``backbone.norm_f.weight`` and ``lm_head.weight``, which
``Mamba2Config`` leaves untied by default (mamba_ssm's own ``config.json`` ties it:
``tie_embeddings`` true).
"""

from __future__ import annotations

from collections.abc import Mapping
from math import isqrt

from paramcount.engine.conventions.base import Formula, Symbol, Tensor
from paramcount.errors import SpecError
from paramcount.families import loader, parts
from paramcount.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from paramcount.families.family import RecognisedModel
    from paramcount.families.state import LayerState

NAME = "mamba2"
TITLE = "Mamba-2"
REFERENCE = "transformers Mamba2ForCausalLM"


@record
class Mamba2Config:
    """The options of transformers' ``Mamba2Config`` that shape its parameters."""

    num_heads: int = 128
    head_dim: int = 64
    vocab_size: int = 32768
    hidden_size: int = 4096
    state_size: int = 128
    num_hidden_layers: int = 64
    expand: int = 2
    conv_kernel: int = 4
    n_groups: int = 8
    use_bias: bool = False
    use_conv_bias: bool = True
    tie_word_embeddings: bool = False

    def __post_init__(self) -> None:
        parts.sizes(self, "num_heads", "head_dim", "vocab_size", "hidden_size", "state_size",
                    "num_hidden_layers", "expand", "conv_kernel", "n_groups")
        parts.at_most_blocks("num_hidden_layers", self.num_hidden_layers)
        parts.booleans(self, "use_bias", "use_conv_bias", "tie_word_embeddings")
        if self.expand * self.hidden_size != self.num_heads * self.head_dim:
            raise SpecError(
                "{expand} · {hidden_size} must equal {num_heads} · {head_dim} (transformers: "
                "hidden_size * expand must equal num_heads * head_dim)", expand=self.expand,
                hidden_size=self.hidden_size, num_heads=self.num_heads, head_dim=self.head_dim)

    @property
    def intermediate_size(self) -> int:
        """E = expand · hidden_size = num_heads · head_dim."""
        return self.expand * self.hidden_size

    @property
    def conv_dim(self) -> int:
        """C = E + 2·G·N: the channels of x, B and C that the convolution reads."""
        return self.intermediate_size + 2 * self.n_groups * self.state_size


Config = Mamba2Config


def block_tensors(config: Mamba2Config, layer: int, prefix: str = "backbone.") -> list[Tensor]:
    """One block's tensors (its norm and mixer), named under ``{prefix}layers.{layer}.``."""
    d, e, h, k, c = (config.hidden_size, config.intermediate_size, config.num_heads,
                     config.conv_kernel, config.conv_dim)
    shapes: list[tuple[str, tuple[int, ...]]] = [
        ("norm.weight", (d,)),
        ("mixer.dt_bias", (h,)),
        ("mixer.A_log", (h,)),
        ("mixer.D", (h,)),
        ("mixer.conv1d.weight", (c, 1, k)),
    ]
    if config.use_conv_bias:
        shapes.append(("mixer.conv1d.bias", (c,)))
    shapes.append(("mixer.in_proj.weight", (e + c + h, d)))
    if config.use_bias:
        shapes.append(("mixer.in_proj.bias", (e + c + h,)))
    shapes += [("mixer.norm.weight", (e,)), ("mixer.out_proj.weight", (d, e))]
    if config.use_bias:
        shapes.append(("mixer.out_proj.bias", (d,)))
    return parts.block(f"{prefix}layers.{layer}.", shapes, layer, d)


def tensors(config: Mamba2Config) -> list[Tensor]:
    """Every parameter of ``Mamba2ForCausalLM(config)``, in ``named_parameters()`` order."""
    blocks = [t for i in range(config.num_hidden_layers) for t in block_tensors(config, i)]
    return parts.causal_lm(config.vocab_size, config.hidden_size, blocks,
                        config.tie_word_embeddings)


def block_formula(config: Mamba2Config) -> tuple[str, int]:
    """One block's closed form (symbolic) and its value."""
    d, e, h, k, c = (config.hidden_size, config.intermediate_size, config.num_heads,
                     config.conv_kernel, config.conv_dim)
    b, cb = int(config.use_bias), int(config.use_conv_bias)
    value = d + 3 * h + c * (k + cb) + (e + c + h) * (d + b) + e + d * (e + b)
    return "D + 3H + C·(K + c) + (E + C + H)·(D + b) + E + D·(E + b)", value


def state(config: Mamba2Config) -> tuple[LayerState, ...]:
    """What each layer keeps between tokens: the conv's last K inputs (x, B and C) and the
    SSM state H·P·N."""
    from paramcount.families.state import LayerState, Piece, convolution

    pieces = (convolution(config.conv_dim, config.conv_kernel),
              Piece("ssm", fixed=config.num_heads * config.head_dim * config.state_size,
                    dtype="fp32"))
    return tuple(LayerState(i, "mamba2", pieces) for i in range(config.num_hidden_layers))


def formula(config: Mamba2Config) -> Formula:
    """V·D + L·[block] + D (+ V·D for an untied head), each knob a symbol."""
    d, e, h, k, c = (config.hidden_size, config.intermediate_size, config.num_heads,
                     config.conv_kernel, config.conv_dim)
    b, cb, v, layers = (int(config.use_bias), int(config.use_conv_bias), config.vocab_size,
                        config.num_hidden_layers)
    symbolic, per_block = block_formula(config)
    block_text = f"{d} + 3·{h} + {c}·({k} + {cb}) + ({e} + {c} + {h})·({d} + {b}) + {e} + " \
                 f"{d}·({e} + {b})"
    symbols = (
        Symbol("V", v, "vocab_size"),
        Symbol("D", d, "hidden_size (d_model)"),
        Symbol("L", layers, "num_hidden_layers"),
        Symbol("E", e, f"intermediate_size = expand·D = {config.expand}·{d} = num_heads·head_dim"),
        Symbol("H", h, "num_heads (dt_bias, A_log and D hold one value per head)"),
        Symbol("G", config.n_groups, "n_groups (B and C are shared within a group)"),
        Symbol("N", config.state_size, "state_size (d_state)"),
        Symbol("C", c, f"conv_dim = E + 2·G·N = {e} + 2·{config.n_groups}·{config.state_size}"),
        Symbol("K", k, "conv_kernel (d_conv)"),
        Symbol("b", b, "1 with use_bias (in_proj, out_proj), 0 without"),
        Symbol("c", cb, "1 with use_conv_bias, 0 without"),
    )
    return parts.model_formula(symbolic, block_text, per_block, symbols, v, d, layers,
                            config.tie_word_embeddings)


TRANSFORMERS = loader.Layout("transformers Mamba2Config", frozenset({
    "num_heads", "head_dim", "vocab_size", "hidden_size", "state_size", "num_hidden_layers",
    "layer_norm_epsilon", "expand", "conv_kernel", "n_groups", "use_bias", "use_conv_bias",
    "hidden_act", "initializer_range", "residual_in_fp32", "time_step_rank", "time_step_min",
    "time_step_max", "time_step_floor", "time_step_limit", "rescale_prenorm_residual",
    "chunk_size"}))
"""transformers' ``Mamba2Config`` (5.x): its fields (``intermediate_size`` is not one: the
mixer is expand · hidden_size wide whatever a ``config.json`` says)."""
MODEL_TYPES = ("mamba2",)
CLASSES = ("Mamba2ForCausalLM", "Mamba2Model")


def from_hf_config(data: Mapping[str, object]) -> Mamba2Config:
    """A ``config.json`` read as the class it names reads it (see :func:`load`)."""
    config: Mamba2Config = load(data).config
    return config


def load(data: Mapping[str, object]) -> loader.Reading:
    """A ``config.json`` read as transformers' ``Mamba2Config`` reads it when its
    ``model_type`` or ``architectures`` say so, or when it carries no mamba_ssm key; as
    mamba_ssm's (``d_model``, ``n_layer``, ``ssm_cfg`` with ``"layer": "Mamba2"``) otherwise."""
    layout = loader.MAMBA_SSM
    if loader.named_by(data, MODEL_TYPES, CLASSES) or not (
            layout.keys.intersection(data) - TRANSFORMERS.keys):
        config = loader.read(Mamba2Config, data)
        said = {"d_model": f"hidden_size={config.hidden_size}",
                "n_layer": f"num_hidden_layers={config.num_hidden_layers}",
                "tie_embeddings": f"tie_word_embeddings={config.tie_word_embeddings}",
                "pad_vocab_size_multiple": f"vocab_size={config.vocab_size}",
                "ssm_cfg": "its own state_size, n_groups, head_dim, conv_kernel"}
        return loader.Reading(config, TRANSFORMERS.name,
                              tuple(loader.unread(data, TRANSFORMERS, (layout,), said)),
                              loader.base_class(data, ("Mamba2Model",)))
    config = _from_mamba_ssm(data)
    said = {"hidden_size": f"d_model={config.hidden_size}",
            "num_hidden_layers": f"n_layer={config.num_hidden_layers}",
            "tie_word_embeddings": f"tie_embeddings={config.tie_word_embeddings}",
            "vocab_size": f"vocab_size={config.vocab_size} padded",
            "num_heads": f"num_heads={config.num_heads}", "head_dim": f"headdim={config.head_dim}",
            "n_groups": f"ngroups={config.n_groups}", "state_size": f"d_state={config.state_size}"}
    transformers_only = loader.Layout(TRANSFORMERS.name, TRANSFORMERS.keys - layout.keys)
    notes = loader.unread(data, layout, (transformers_only,), said)
    return loader.Reading(config, layout.name,
                          (*notes, *loader.unread_ssm(loader.mapping(data, "ssm_cfg"), "Mamba2")))


def _from_mamba_ssm(data: Mapping[str, object]) -> Mamba2Config:
    """mamba_ssm's ``config.json`` of a stack of Mamba-2 mixers."""
    ssm = loader.mamba_ssm(data, "Mamba2")
    for key, plain in (("d_ssm", None), ("rmsnorm", True), ("D_has_hdim", False)):
        if ssm.get(key, plain) != plain:
            raise SpecError("config.json: ssm_cfg {" + key + "} is not supported (transformers' "
                            "Mamba2 has no such option)", **{key: ssm[key]})
    d = loader.integer(data, "d_model", 2560)
    expand = loader.integer(ssm, "expand", 2)
    head_dim = loader.integer(ssm, "headdim", 64)
    if head_dim <= 0 or (expand * d) % head_dim:
        raise SpecError("config.json: ssm_cfg {headdim} must divide expand · d_model",
                        headdim=head_dim)
    return Mamba2Config(
        num_heads=expand * d // head_dim, head_dim=head_dim,
        vocab_size=loader.padded_vocab(data, 50277, 8), hidden_size=d,
        state_size=loader.integer(ssm, "d_state", 128),
        num_hidden_layers=loader.integer(data, "n_layer", 64), expand=expand,
        conv_kernel=loader.integer(ssm, "d_conv", 4), n_groups=loader.integer(ssm, "ngroups", 1),
        use_bias=loader.boolean(ssm, "bias", False),
        use_conv_bias=loader.boolean(ssm, "conv_bias", True),
        tie_word_embeddings=loader.boolean(data, "tie_embeddings", True),
    )


def recognise(shapes: Mapping[str, tuple[int, ...]]) -> list[RecognisedModel]:
    """Every Mamba-2 model among ``shapes``: its config from the tensors, checked exactly."""
    return parts.recognise_models(NAME, shapes, "mixer.dt_bias", _propose, tensors)


def _propose(shapes: Mapping[str, tuple[int, ...]], root: str,
             layers: int) -> tuple[Mamba2Config, list[str]] | None:
    """A config read from the first block's tensors under ``root``, and what it assumed."""
    block = f"{root}layers.0."
    heads = shapes.get(block + "mixer.dt_bias")
    in_proj = shapes.get(block + "mixer.in_proj.weight")
    conv = shapes.get(block + "mixer.conv1d.weight")
    norm = shapes.get(block + "mixer.norm.weight")
    embeddings = shapes.get(root + "embeddings.weight")
    if (heads is None or norm is None or conv is None or len(conv) != 3 or len(heads) != 1
            or len(norm) != 1 or not parts.rank2(in_proj) or not parts.rank2(embeddings)):
        return None
    assert in_proj and embeddings
    (h,), (e,), d = heads, norm, in_proj[1]
    if e % d or e % h:
        return None
    groups_state = conv[0] - e  # 2·G·N
    if groups_state <= 0 or groups_state % 2:
        return None
    product = groups_state // 2
    pairs, more = _first_factor_pairs(product, 6)
    listed = ", ".join(f"{g}×{n}" for g, n in pairs) + (", …" if more else "")
    notes = [f"the tensors give only n_groups · state_size = {product} (here read as "
             f"n_groups=1, state_size={product}; any of {listed} fits the same tensors)"]
    config = parts.build(Mamba2Config, num_heads=h, head_dim=e // h, vocab_size=embeddings[0],
                      hidden_size=d, state_size=product,
                      num_hidden_layers=layers, expand=e // d, conv_kernel=conv[2], n_groups=1,
                      use_bias=block + "mixer.in_proj.bias" in shapes,
                      use_conv_bias=block + "mixer.conv1d.bias" in shapes,
                      tie_word_embeddings=True)
    if config is None:
        return None
    return config, notes


_FACTOR_SEARCH = 10_000
"""The smallest factors tried when listing n_groups · state_size splits (a hostile file's
product may be near 2^63: never a search in proportion to it)."""


def _first_factor_pairs(product: int, most: int) -> tuple[list[tuple[int, int]], bool]:
    """The splits g × (product / g) with the smallest g first, at most ``most`` of them, and
    whether there may be more.

    >>> _first_factor_pairs(16, 6)
    ([(1, 16), (2, 8), (4, 4), (8, 2), (16, 1)], False)
    """
    small = [g for g in range(1, min(isqrt(product), _FACTOR_SEARCH) + 1) if product % g == 0]
    searched_all = isqrt(product) <= _FACTOR_SEARCH
    large = [product // g for g in reversed(small) if g * g != product] if searched_all else []
    pairs = [(g, product // g) for g in (*small, *large)]
    return pairs[:most], len(pairs) > most or not searched_all
