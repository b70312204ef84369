"""Zamba2 as transformers' ``Zamba2ForCausalLM`` builds it from a ``Zamba2Config``: Mamba-2
layers, and "hybrid" layers where a shared transformer block runs before the Mamba-2 layer.

``layers_block_type`` lists the layers (``mamba`` or ``linear_attention``, and ``hybrid``). A
Mamba layer holds ``mamba`` (Mamba-2: E = mamba_expand · hidden_size, ``n_mamba_heads`` heads,
``mamba_ngroups`` groups of ``mamba_d_state``; its conv always has a bias, its projections one
with ``add_bias_linear``) and ``input_layernorm``. A hybrid layer holds ``linear`` (D, D), the
same Mamba layer as ``mamba_decoder``, and ``shared_transformer``: attention over the
concatenation of the hidden state and the embeddings (2D wide; heads 2D / num_attention_heads
wide), a gated MLP (``gate_up_proj`` (2I, D), ``down_proj``; I = 4D unless given) and two
RMSNorms (2D and D).

The shared blocks: hybrid layer j uses block j mod ``num_mem_blocks``, and only the first
``num_mem_blocks`` hybrid layers list its tensors — the later ones share them. Each block holds
a LoRA adapter (D → ``adapter_rank`` → 2I) on its MLP's gate_up_proj for every hybrid layer
that uses it, and with ``use_shared_attention_adapter`` adapters (2D → rank → 2D) on q, k and v
too. transformers 5 ties the shared blocks only when ``tie_word_embeddings`` is true (the
published models' setting): with it false, every hybrid layer holds a block of its own, and so
does paramcount's count. Around them ``model.embed_tokens``, ``model.final_layernorm`` and
``lm_head``, tied by default.
"""

from __future__ import annotations

from collections.abc import Mapping

from paramcount.engine.conventions.base import Formula, Symbol
from paramcount.engine.conventions.recognition import Shapes
from paramcount.errors import SpecError
from paramcount.families import hybrid
from paramcount.families.family import RecognisedModel
from paramcount.families.loader import Layout
from paramcount.families.mixers import Attention, Mamba2, Mlp, read_attention, read_mamba2
from paramcount.families.parts import at_most_blocks, linear
from paramcount.record import record

NAME = "zamba2"
TITLE = "Zamba2 (Mamba-2 + shared attention blocks)"
REFERENCE = "transformers Zamba2ForCausalLM"
MODEL_TYPES = ("zamba2",)
CLASSES = ("Zamba2ForCausalLM", "Zamba2Model")
LAYER_TYPES = {"mamba": "mamba", "linear_attention": "mamba", "hybrid": "hybrid"}
DEFAULT_LAYERS = (("mamba",) + (("mamba",) * 5 + ("hybrid",)) * 7 + ("mamba",) * 4
                  + ("hybrid",) + ("mamba",) * 3 + ("hybrid",) + ("mamba",) * 2)
"""``Zamba2Config``'s layers when config.json lists none (Zamba2-2.7B's 54)."""


LAYOUT = Layout("transformers Zamba2Config", frozenset({
    "adapter_rank", "add_bias_linear", "attention_dropout", "attention_head_dim",
    "attention_hidden_size", "chunk_size", "head_dim", "hidden_act", "hidden_size",
    "hybrid_layer_ids", "initializer_range", "intermediate_size", "kv_channels", "layer_types",
    "layers_block_type", "mamba_d_conv", "mamba_d_state", "mamba_expand", "mamba_headdim",
    "mamba_ngroups", "max_position_embeddings", "n_mamba_heads", "num_attention_heads",
    "num_hidden_layers", "num_key_value_heads", "num_logits_to_keep", "num_mem_blocks",
    "num_query_groups", "rms_norm_eps", "rope_parameters", "time_step_floor", "time_step_max",
    "time_step_min", "use_conv_bias", "use_long_context", "use_mamba_kernels", "use_mem_eff_path",
    "use_mem_rope", "use_shared_attention_adapter", "vocab_size"}))
"""The keys transformers' ``Zamba2Config`` reads (its fields, ``attribute_map`` and the older
names its ``__post_init__`` takes), and those the published files carry that it keeps but never
uses."""
BACKBONE = "model."
"""The causal LM's prefix before the base model class's tensors."""


@record
class Zamba2Config:
    """The options of transformers' ``Zamba2Config`` that shape its parameters, its defaults
    (Zamba2-2.7B's but for its layer list)."""

    vocab_size: int = 32000
    hidden_size: int = 2560
    num_hidden_layers: int = 54
    layers_block_type: tuple[str, ...] | None = None
    mamba_d_state: int = 64
    mamba_d_conv: int = 4
    mamba_expand: int = 2
    mamba_ngroups: int = 1
    n_mamba_heads: int = 8
    add_bias_linear: bool = False
    intermediate_size: int | None = None
    num_attention_heads: int = 32
    num_key_value_heads: int | None = None
    num_mem_blocks: int = 1
    use_shared_attention_adapter: bool = False
    adapter_rank: int = 128
    tie_word_embeddings: bool = True

    def __post_init__(self) -> None:
        hybrid.check_types(
            self, ("vocab_size", "hidden_size", "num_hidden_layers", "mamba_d_state",
                   "mamba_d_conv", "mamba_expand", "mamba_ngroups", "n_mamba_heads",
                   "num_attention_heads", "num_mem_blocks", "adapter_rank"),
            ("add_bias_linear", "use_shared_attention_adapter", "tie_word_embeddings"),
            ("intermediate_size", "num_key_value_heads"))
        if self.layers_block_type is not None:
            hybrid.kinds_of(self, "layers_block_type", LAYER_TYPES)
        if len(self.types) != self.num_hidden_layers:
            raise SpecError("{num_hidden_layers} must be the number of layers that "
                            "layers_block_type lists (" + str(len(self.types)) + "; "
                            "transformers builds one layer per entry)",
                            num_hidden_layers=self.num_hidden_layers)
        at_most_blocks("num_hidden_layers", self.num_hidden_layers)
        if self.head_dim < 1:
            raise SpecError("{num_attention_heads} exceeds 2 · hidden_size: heads would be 0 "
                            "wide", num_attention_heads=self.num_attention_heads)
        hybrid.rope_even("num_attention_heads", self.head_dim)

    @property
    def types(self) -> tuple[str, ...]:
        """Each layer: ``mamba`` or ``hybrid``."""
        listed = DEFAULT_LAYERS if self.layers_block_type is None else self.layers_block_type
        return tuple(LAYER_TYPES[t] for t in listed)

    @property
    def head_dim(self) -> int:
        """2 · hidden_size // num_attention_heads: the attention reads 2D features."""
        return 2 * self.hidden_size // self.num_attention_heads

    @property
    def ffn_size(self) -> int:
        """``intermediate_size``, or 4 · hidden_size."""
        return self.intermediate_size or 4 * self.hidden_size


Config = Zamba2Config

ALIASES: dict[str, tuple[str, ...]] = {"num_attention_heads": ("--heads",),
                                       "num_key_value_heads": ("--kv-heads",),
                                       "mamba_d_state": ("--d-state",)}
"""Names people use for this family's options beside ``--field-name``."""


def _shared_block(s: hybrid.Stack, config: Zamba2Config, prefix: str, block: int,
                  uses: int, layer: int) -> None:
    """A shared transformer block ``block`` at ``prefix`` (``…shared_transformer.``), with an
    adapter slot for each of the ``uses`` hybrid layers."""
    d, r, ffn = config.hidden_size, config.adapter_rank, config.ffn_size
    mine = [i for i in range(uses) if i % config.num_mem_blocks == block]
    att = _attention(config)
    # its keys and values are kept by each hybrid layer that uses it (Stack.holds in stack)
    s.part("attention", "shared attention", att, prefix + "self_attn.", layer, state=False)
    if config.use_shared_attention_adapter:
        for which in "qkv":
            for i in mine:
                at = f"{prefix}self_attn.linear_{which}_adapter_list.{i}."
                s.add("attention", "attention adapter", 2 * (2 * d) * r,
                      linear(at + "0.", r, 2 * d, False, layer, role="adapter_down")
                      + linear(at + "1.", 2 * d, r, False, layer, role="adapter_up"))
    mlp = Mlp(d, ffn, config.add_bias_linear, "gate_up_fused")
    s.part("mlp", "shared mlp", mlp, prefix + "feed_forward.", layer)
    for i in mine:
        at = f"{prefix}feed_forward.gate_up_proj_adapter_list.{i}."
        s.add("mlp", "mlp adapter", r * d + 2 * ffn * r,
              linear(at + "0.", r, d, False, layer, role="adapter_down")
              + linear(at + "1.", 2 * ffn, r, False, layer, role="adapter_up"))
    hybrid.norm_of(s, prefix + "input_layernorm.", 2 * d, layer)
    hybrid.norm_of(s, prefix + "pre_ff_layernorm.", d, layer)


def _attention(config: Zamba2Config) -> Attention:
    """The shared blocks' attention: over 2·D features (the input beside the embeddings)."""
    d = config.hidden_size
    return Attention(2 * d, config.num_attention_heads,
                     config.num_key_value_heads or config.num_attention_heads,
                     config.head_dim, d)


@hybrid.cached
def stack(config: Zamba2Config) -> hybrid.Stack:
    """Every parameter, with its kind, in ``named_parameters()`` order."""
    s = hybrid.Stack()
    d = config.hidden_size
    hybrid.embeddings(s, "model.embed_tokens.weight", config.vocab_size, d)
    mixer = Mamba2(d, config.mamba_expand * d, config.n_mamba_heads, config.mamba_ngroups,
                   config.mamba_d_state, config.mamba_d_conv, True, config.add_bias_linear,
                   config.add_bias_linear)
    uses = config.types.count("hybrid")
    shared = config.num_mem_blocks if config.tie_word_embeddings else uses
    seen = 0
    for i, kind in enumerate(config.types):
        p = f"model.layers.{i}."
        if kind == "hybrid":
            s.add("attention", "linear D·D", d * d, linear(p + "linear.", d, d, False, i))
            p += "mamba_decoder."
        s.part("recurrent", "mamba2", mixer, p + "mamba.", i)
        hybrid.norm_of(s, p + "input_layernorm.", d, i)
        if kind == "hybrid":
            s.holds(i, "shared attention", _attention(config))
            if seen < shared:
                _shared_block(s, config, f"model.layers.{i}.shared_transformer.",
                              seen % config.num_mem_blocks, uses, i)
            seen += 1
    hybrid.final(s, "model.final_layernorm.", config.vocab_size, d, config.tie_word_embeddings)
    return s


def formula(config: Zamba2Config) -> Formula:
    """The sum of the parts' closed forms."""
    symbols = (Symbol("V", config.vocab_size, "vocab_size"),
               Symbol("D", config.hidden_size, "hidden_size"),
               Symbol("I", config.ffn_size, "the shared MLP's width"),
               Symbol("M", config.num_mem_blocks, "num_mem_blocks (shared blocks)"),
               Symbol("r", config.adapter_rank, "adapter_rank"))
    return stack(config).formula(symbols)


def json_values(data: Mapping[str, object]) -> Mapping[str, object]:
    """``layer_types`` alone (its ``attribute_map`` name for ``layers_block_type``) is refused:
    transformers 5 sets it after placing the shared blocks' adapters on the default 54 layers,
    which builds a model no forward pass can run; files transformers writes name
    ``layers_block_type``."""
    if data.get("layers_block_type") is None and data.get("layer_types") is not None:
        raise SpecError("config.json: {layer_types} without layers_block_type: transformers 5 "
                        "places the shared blocks' adapters on its default 54 layers before it "
                        "reads layer_types; write layers_block_type",
                        layer_types=data["layer_types"])
    return data


tensors, _, from_hf_config = hybrid.conventions(
    stack, Zamba2Config, "Zamba2ForCausalLM", lists=("layers_block_type",), prepare=json_values)


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``Zamba2ForCausalLM`` among ``shapes``, checked exactly."""
    return hybrid.recognise_roots(shapes, "embed_tokens", _recognise_at)


def _recognise_at(shapes: Shapes, prefix: str, vocab: int, d: int) -> RecognisedModel | None:
    start = f"{prefix}model.layers."
    if f"{start}0.feed_forward.down_proj.weight" in shapes or (
            f"{start}0.input_layernorm.weight" not in shapes
            and f"{start}0.linear.weight" not in shapes):
        return None  # a layer of another family (Zamba2's MLPs are in the shared blocks)
    n = hybrid.layer_count(shapes, start)
    types = tuple("hybrid" if f"{start}{i}.linear.weight" in shapes else "mamba"
                  for i in range(n))
    if not n:
        return None
    if "hybrid" not in types:
        return _mamba_only(shapes, prefix, vocab, d, n)
    first = types.index("hybrid")
    block = f"{start}{first}.shared_transformer."
    mixer = read_mamba2(shapes, f"{start}{first}.mamba_decoder.mamba.")
    att = read_attention(shapes, block + "self_attn.")
    mlp = shapes.get(block + "feed_forward.down_proj.weight")
    if mixer is None or att is None or mlp is None or len(mlp) != 2 or mixer.inner % d:
        return None
    heads = _heads(2 * d, att.heads * att.head_dim, att.kv_heads * att.head_dim)
    blocks = [i for i in range(n) if f"{start}{i}.shared_transformer.self_attn.q_proj.weight"
              in shapes]
    uses = types.count("hybrid")
    adapters = [k for k in range(uses) if
                f"{block}feed_forward.gate_up_proj_adapter_list.{k}.0.weight" in shapes]
    rank = shapes.get(f"{block}feed_forward.gate_up_proj_adapter_list.{adapters[0]}.0.weight"
                      ) if adapters else None
    if rank is None or not heads:
        return None
    tied = len(blocks) < uses or prefix + "lm_head.weight" not in shapes
    # untied, every hybrid layer lists its block, and block 0's adapters are M slots apart
    spacing = adapters[1] - adapters[0] if len(adapters) > 1 else uses
    memory = len(blocks) if tied else spacing
    notes = [hybrid.one_group_note("mamba_ngroups", "mamba_d_state", mixer),
             f"num_attention_heads read as {heads}: heads × (2·hidden_size // heads) is all "
             "the weights hold"]
    values = dict(
        vocab_size=vocab, hidden_size=d, num_hidden_layers=n,
        layers_block_type=types, mamba_d_state=mixer.state, mamba_d_conv=mixer.kernel,
        mamba_expand=mixer.inner // d, mamba_ngroups=mixer.groups, n_mamba_heads=mixer.heads,
        add_bias_linear=mixer.bias, intermediate_size=mlp[1], num_attention_heads=heads,
        num_key_value_heads=att.kv_heads * att.head_dim // (2 * d // heads),
        num_mem_blocks=memory, use_shared_attention_adapter=(
            f"{block}self_attn.linear_q_adapter_list.{adapters[0]}.0.weight" in shapes),
        adapter_rank=rank[0], tie_word_embeddings=tied)
    return hybrid.accept_values(shapes, NAME, prefix, Zamba2Config, values, tensors, notes)


def _mamba_only(shapes: Shapes, prefix: str, vocab: int, d: int, n: int
                ) -> RecognisedModel | None:
    """A Zamba2 model without hybrid layers (Mamba-2 layers alone), or None."""
    mixer = read_mamba2(shapes, f"{prefix}model.layers.0.mamba.")
    if mixer is None or mixer.inner % d or not mixer.conv_bias:
        return None
    notes = ["no hybrid layer: the shared blocks' options shape nothing",
             hybrid.one_group_note("mamba_ngroups", "mamba_d_state", mixer)]
    values = dict(
        vocab_size=vocab, hidden_size=d, num_hidden_layers=n,
        layers_block_type=("mamba",) * n, mamba_d_state=mixer.state, mamba_d_conv=mixer.kernel,
        mamba_expand=mixer.inner // d, mamba_ngroups=mixer.groups, n_mamba_heads=mixer.heads,
        add_bias_linear=mixer.bias, num_attention_heads=1 if 2 * d <= 4 else 2 * d // 2,
        tie_word_embeddings=prefix + "lm_head.weight" not in shapes)
    return hybrid.accept_values(shapes, NAME, prefix, Zamba2Config, values, tensors, notes)


def _heads(width: int, q: int, kv: int) -> int:
    """A head count h whose heads (width // h wide, a width transformers' RoPE accepts) give q
    query and kv key rows: the one with heads 128 wide (Zamba2's) where it fits, else the
    fewest; 0 if none does."""
    fits = [h for h in range(1, min(width, 65_536) + 1)
            if h * (width // h) == q and kv % (width // h) == 0
            and (width // h <= 4 or width // h % 2 == 0)]
    return next((h for h in fits if width // h == 128), fits[0] if fits else 0)
