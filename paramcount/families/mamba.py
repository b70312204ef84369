"""Mamba (v1) as transformers' ``MambaForCausalLM`` builds it from a ``MambaConfig``.

Per block ``backbone.layers.{i}``: ``norm.weight`` (D,) (an RMSNorm), then the mixer's own
parameters ``A_log`` (E, N) and ``D`` (E,), then its modules ``conv1d`` (a depthwise Conv1d:
weight (E, 1, K), bias (E,) with ``use_conv_bias``), ``in_proj`` (2E, D) (+ bias (2E,) with
``use_bias``), ``x_proj`` (R + 2N, E), ``dt_proj`` (E, R) with bias (E,) always, ``out_proj``
(D, E) (+ bias (D,) with ``use_bias``); E = ``intermediate_size`` = expand·D and R =
``time_step_rank`` ("auto" is ⌈D / 16⌉). Around the blocks ``backbone.embeddings.weight`` (V, D),
``backbone.norm_f.weight`` (D,) and ``lm_head.weight`` (V, D), tied to the embeddings by default
(``tie_word_embeddings``), then listed once. mamba_ssm's own ``config.json`` (``d_model``,
``n_layer``, ``ssm_cfg``) is read as mamba_ssm reads it, the vocabulary padded to a multiple of
``pad_vocab_size_multiple``.
"""

from __future__ import annotations

from collections.abc import Mapping

from paramcount.engine.conventions.base import Formula, Symbol, Tensor
from paramcount.engine.spec import MAX_SIZE
from paramcount.errors import SpecError
from paramcount.families import loader, parts
from paramcount.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from paramcount.families.family import RecognisedModel
    from paramcount.families.state import LayerState

NAME = "mamba"
TITLE = "Mamba (v1)"
REFERENCE = "transformers MambaForCausalLM"


@record
class MambaConfig:
    """The options of transformers' ``MambaConfig`` that shape its parameters."""

    vocab_size: int = 50280
    hidden_size: int = 768
    state_size: int = 16
    num_hidden_layers: int = 32
    expand: int = 2
    intermediate_size: int | str = "auto"
    conv_kernel: int = 4
    use_bias: bool = False
    use_conv_bias: bool = True
    time_step_rank: int | str = "auto"
    tie_word_embeddings: bool = True

    def __post_init__(self) -> None:
        parts.sizes(self, "vocab_size", "hidden_size", "state_size", "num_hidden_layers",
                    "expand", "conv_kernel")
        parts.at_most_blocks("num_hidden_layers", self.num_hidden_layers)
        parts.booleans(self, "use_bias", "use_conv_bias", "tie_word_embeddings")
        _resolve_rank(self)
        if self.intermediate_size == "auto":
            self.__dict__["intermediate_size"] = self.expand * self.hidden_size
        else:
            parts.sizes(self, "intermediate_size")

    @property
    def inner(self) -> int:
        """E, the mixer's width: ``intermediate_size`` (expand · hidden_size unless set)."""
        return int(self.intermediate_size)

    @property
    def rank(self) -> int:
        """R, the time step rank (resolved from "auto" on construction)."""
        return int(self.time_step_rank)


def _resolve_rank(config: MambaConfig) -> None:
    """Replace ``time_step_rank="auto"`` by ⌈hidden_size / 16⌉, as the reference's config does."""
    rank = config.time_step_rank
    if rank == "auto":
        config.__dict__["time_step_rank"] = -(-config.hidden_size // 16)
    elif not parts.is_int(rank) or not 0 < int(rank) <= MAX_SIZE:
        raise SpecError("{time_step_rank} must be a positive integer or 'auto'",
                        time_step_rank=rank)


Config = MambaConfig


def block_tensors(config: MambaConfig, layer: int, prefix: str = "backbone.") -> list[Tensor]:
    """One block's tensors (its norm and mixer), named under ``{prefix}layers.{layer}.``."""
    d, e, n, k, r = (config.hidden_size, config.inner, config.state_size,
                     config.conv_kernel, config.rank)
    shapes: list[tuple[str, tuple[int, ...]]] = [
        ("norm.weight", (d,)),
        ("mixer.A_log", (e, n)),
        ("mixer.D", (e,)),
        ("mixer.conv1d.weight", (e, 1, k)),
    ]
    if config.use_conv_bias:
        shapes.append(("mixer.conv1d.bias", (e,)))
    shapes.append(("mixer.in_proj.weight", (2 * e, d)))
    if config.use_bias:
        shapes.append(("mixer.in_proj.bias", (2 * e,)))
    shapes += [
        ("mixer.x_proj.weight", (r + 2 * n, e)),
        ("mixer.dt_proj.weight", (e, r)),
        ("mixer.dt_proj.bias", (e,)),
        ("mixer.out_proj.weight", (d, e)),
    ]
    if config.use_bias:
        shapes.append(("mixer.out_proj.bias", (d,)))
    return parts.block(f"{prefix}layers.{layer}.", shapes, layer, d)


def tensors(config: MambaConfig) -> list[Tensor]:
    """Every parameter of ``MambaForCausalLM(config)``, in ``named_parameters()`` order."""
    blocks = [t for i in range(config.num_hidden_layers) for t in block_tensors(config, i)]
    return parts.causal_lm(config.vocab_size, config.hidden_size, blocks,
                        config.tie_word_embeddings)


def block_formula(config: MambaConfig) -> tuple[str, int]:
    """One block's closed form (symbolic) and its value."""
    d, e, n, k, r = (config.hidden_size, config.inner, config.state_size,
                     config.conv_kernel, config.rank)
    b, c = int(config.use_bias), int(config.use_conv_bias)
    value = (d + 2 * e * (d + b) + e * (k + c) + e * (r + 2 * n) + e * (r + 1) + e * n + e
             + d * (e + b))
    return "D + 2E·(D + b) + E·(K + c) + E·(R + 2N) + E·(R + 1) + E·N + E + D·(E + b)", value


def state(config: MambaConfig) -> tuple[LayerState, ...]:
    """What each layer keeps between tokens: the conv's last K inputs and the SSM state E·N."""
    from paramcount.families.state import LayerState, Piece, convolution

    pieces = (convolution(config.inner, config.conv_kernel),
              Piece("ssm", fixed=config.inner * config.state_size, dtype="fp32"))
    return tuple(LayerState(i, "mamba", pieces) for i in range(config.num_hidden_layers))


def formula(config: MambaConfig) -> Formula:
    """V·D + L·[block] + D (+ V·D for an untied head), each knob a symbol."""
    d, e, n, k, r = (config.hidden_size, config.inner, config.state_size,
                     config.conv_kernel, config.rank)
    b, c, v, layers = (int(config.use_bias), int(config.use_conv_bias), config.vocab_size,
                       config.num_hidden_layers)
    symbolic, per_block = block_formula(config)
    block_text = (f"{d} + 2·{e}·({d} + {b}) + {e}·({k} + {c}) + {e}·({r} + 2·{n}) + "
                  f"{e}·({r} + 1) + {e}·{n} + {e} + {d}·({e} + {b})")
    symbols = (
        Symbol("V", v, "vocab_size"),
        Symbol("D", d, "hidden_size (d_model)"),
        Symbol("L", layers, "num_hidden_layers"),
        Symbol("E", e, f"intermediate_size = expand·D = {config.expand}·{d}"
               if e == config.expand * d else "intermediate_size (set, not expand·D)"),
        Symbol("N", n, "state_size (d_state)"),
        Symbol("K", k, "conv_kernel (d_conv)"),
        Symbol("R", r, "time_step_rank (dt_rank)"),
        Symbol("b", b, "1 with use_bias (in_proj, out_proj), 0 without"),
        Symbol("c", c, "1 with use_conv_bias, 0 without"),
    )
    return parts.model_formula(symbolic, block_text, per_block, symbols, v, d, layers,
                            config.tie_word_embeddings)


TRANSFORMERS = loader.Layout("transformers MambaConfig", frozenset({
    "vocab_size", "hidden_size", "state_size", "num_hidden_layers", "layer_norm_epsilon",
    "expand", "intermediate_size", "conv_kernel", "use_bias", "use_conv_bias", "hidden_act",
    "initializer_range", "residual_in_fp32", "time_step_rank", "time_step_scale",
    "time_step_min", "time_step_max", "time_step_init_scheme", "time_step_floor",
    "rescale_prenorm_residual", "use_mambapy", "use_associative_scan"}))
"""transformers' ``MambaConfig`` (5.x): its fields, and ``intermediate_size``, which its
``__post_init__`` computes as expand · hidden_size but a ``config.json`` value replaces."""
FALCON = loader.Layout("transformers FalconMambaConfig",
                       TRANSFORMERS.keys | {"mixer_rms_eps", "use_falcon_mambapy"})
"""``FalconMambaConfig``: Mamba's keys and its mixer's RMS norms' epsilon (those norms have no
weight, so a Falcon-Mamba model holds a Mamba model's parameters, under the same names)."""
MAMBA_SSM = loader.MAMBA_SSM
MODEL_TYPES = ("mamba", "falcon_mamba")
CLASSES = ("MambaForCausalLM", "MambaModel", "FalconMambaForCausalLM", "FalconMambaModel")
BASES = ("MambaModel", "FalconMambaModel")


def from_hf_config(data: Mapping[str, object]) -> MambaConfig:
    """A ``config.json`` read as the class it names reads it (see :func:`load`)."""
    config: MambaConfig = load(data).config
    return config


def load(data: Mapping[str, object]) -> loader.Reading:
    """A ``config.json`` read as transformers' ``MambaConfig`` (or ``FalconMambaConfig``)
    reads it when its ``model_type`` or ``architectures`` say so, or when it carries no
    mamba_ssm key; as mamba_ssm's ``MambaConfig`` otherwise (``d_model``, ``n_layer``,
    ``ssm_cfg``, the vocabulary padded to ``pad_vocab_size_multiple``)."""
    own = loader.named_by(data, MODEL_TYPES, CLASSES)
    if own or not MAMBA_SSM.keys.intersection(data) - TRANSFORMERS.keys:
        layout = FALCON if (data.get("model_type") == "falcon_mamba" or loader.named_by(
            data, (), ("FalconMambaForCausalLM", "FalconMambaModel"))) else TRANSFORMERS
        config = loader.read(MambaConfig, data)
        said = {"d_model": f"hidden_size={config.hidden_size}",
                "n_layer": f"num_hidden_layers={config.num_hidden_layers}",
                "tie_embeddings": f"tie_word_embeddings={config.tie_word_embeddings}",
                "pad_vocab_size_multiple": f"vocab_size={config.vocab_size}",
                "ssm_cfg": "its own state_size, expand, conv_kernel, time_step_rank"}
        notes = loader.unread(data, layout, (MAMBA_SSM,), said)
        if layout is FALCON:
            notes.append("FalconMambaForCausalLM holds Mamba's parameters under Mamba's names "
                         "(its mixer's RMS norms have no weight)")
        return loader.Reading(config, layout.name, tuple(notes),
                              loader.base_class(data, BASES))
    ssm = loader.mamba_ssm(data, "Mamba1")
    config = MambaConfig(
        vocab_size=loader.padded_vocab(data, 50277, 8),
        hidden_size=loader.integer(data, "d_model", 2560),
        num_hidden_layers=loader.integer(data, "n_layer", 64),
        state_size=loader.integer(ssm, "d_state", 16),
        expand=loader.integer(ssm, "expand", 2),
        conv_kernel=loader.integer(ssm, "d_conv", 4),
        use_bias=loader.boolean(ssm, "bias", False),
        use_conv_bias=loader.boolean(ssm, "conv_bias", True),
        time_step_rank=loader.rank_value(ssm, "dt_rank"),
        tie_word_embeddings=loader.boolean(data, "tie_embeddings", True),
    )
    said = {"hidden_size": f"d_model={config.hidden_size}",
            "num_hidden_layers": f"n_layer={config.num_hidden_layers}",
            "tie_word_embeddings": f"tie_embeddings={config.tie_word_embeddings}",
            "vocab_size": f"vocab_size={config.vocab_size} padded"}
    transformers_only = loader.Layout(TRANSFORMERS.name, TRANSFORMERS.keys - MAMBA_SSM.keys)
    notes = loader.unread(data, MAMBA_SSM, (transformers_only,), said)
    return loader.Reading(config, MAMBA_SSM.name,
                          (*notes, *loader.unread_ssm(ssm, "Mamba1")))


def recognise(shapes: Mapping[str, tuple[int, ...]]) -> list[RecognisedModel]:
    """Every Mamba model among ``shapes``: its config from the tensors, checked exactly."""
    return parts.recognise_models(NAME, shapes, "mixer.x_proj.weight", _propose, tensors)


def _propose(shapes: Mapping[str, tuple[int, ...]], root: str,
             layers: int) -> tuple[MambaConfig, list[str]] | None:
    """A config read from the first block's tensors under ``root``, and what it assumed."""
    block = f"{root}layers.0."
    a_log = shapes.get(block + "mixer.A_log")
    in_proj = shapes.get(block + "mixer.in_proj.weight")
    conv = shapes.get(block + "mixer.conv1d.weight")
    x_proj = shapes.get(block + "mixer.x_proj.weight")
    embeddings = shapes.get(root + "embeddings.weight")
    if not (parts.rank2(a_log) and parts.rank2(in_proj) and parts.rank2(x_proj)
            and parts.rank2(embeddings) and conv is not None and len(conv) == 3):
        return None
    assert a_log and in_proj and x_proj and embeddings
    e, n = a_log
    d = in_proj[1]
    notes = []
    widths: dict[str, object] = {"expand": e // d}
    if e % d:  # transformers takes intermediate_size from config.json over expand · D
        widths = {"intermediate_size": e}
        notes.append(f"intermediate_size {e} is no multiple of hidden_size {d}: set in "
                     "config.json, not expand · hidden_size")
    rank = x_proj[0] - 2 * n
    if rank == -(-d // 16):
        notes.append(f"time_step_rank {rank} is what 'auto' gives (⌈{d} / 16⌉)")
    config = parts.build(MambaConfig, vocab_size=embeddings[0], hidden_size=d, state_size=n,
                      num_hidden_layers=layers, **widths, conv_kernel=conv[2],
                      use_bias=block + "mixer.in_proj.bias" in shapes,
                      use_conv_bias=block + "mixer.conv1d.bias" in shapes,
                      time_step_rank=rank, tie_word_embeddings=True)
    if config is None:
        return None
    return config, notes
