"""Inkling 2 Loop as transformers' ``Inkling2LoopForCausalLM`` builds it from an
``Inkling2LoopTextConfig`` (``model_type`` ``inkling2_loop_text``; ``paramcount inkling --impl
inkling2-loop``): Inkling 2's layers (:mod:`paramcount.families.inkling2`), those from
``loop_layer_index_start`` to ``loop_layer_index_end`` − 1 run ``loop_num_passes`` times.

The weights are counted once: a looped layer is one layer, with four message gates
(``q_``, ``k_``, ``v_``, ``mlp_message_gate``: ``down_proj`` (rank, 2D), ``forget_gate_proj``,
``message_gate_proj`` (D, rank)) after its own tensors, and ``model.message_input.query``
(end − start, 4, D) after ``final_input``. The state is not: each pass after the first keeps a
cache of its own for every looped layer (keys, values and convolutions), as transformers
appends copies of those cache layers.
"""

from __future__ import annotations

from collections.abc import Mapping
from math import gcd

from paramcount.engine.conventions.recognition import Shapes, is_shape
from paramcount.errors import SpecError
from paramcount.families import hybrid, inkling2, inkling2_saved
from paramcount.families.family import RecognisedModel
from paramcount.families.inkling import recognise_params
from paramcount.families.inkling2 import TOP_K_NOTE, Inkling2Config, Loop, check, read_values
from paramcount.families.loader import Layout, is_int, mapping
from paramcount.record import record

NAME = "inkling2-loop"
TITLE = "Inkling 2 Loop (looped dynamic short convolutions + attention + experts)"
REFERENCE = "transformers Inkling2LoopForCausalLM"
MODEL_TYPES = ("inkling2_loop_text",)
CLASSES = ("Inkling2LoopForCausalLM", "Inkling2LoopTextModel")
ALIASES = inkling2.ALIASES
"""Names people use for this family's options beside ``--field-name`` (Inkling 2's)."""
BACKBONE = inkling2.BACKBONE
SAVED_BACKBONE = inkling2.SAVED_BACKBONE
saved_base = inkling2.saved_base
"""The causal LM's prefix before the base model class's tensors."""

LOOP_KEYS = {"core_start": "loop_layer_index_start", "core_end": "loop_layer_index_end",
             "num_passes": "loop_num_passes", "gate_rank": "loop_gate_rank"}
"""A checkpoint's ``loop_config`` keys and the fields they set (they win, as there)."""

LAYOUT = Layout("transformers Inkling2LoopTextConfig", frozenset({
    "loop_config", *LOOP_KEYS.values(), *inkling2.LAYOUT.keys}))
"""The keys transformers' ``Inkling2LoopTextConfig`` reads: Inkling 2's, the loop's and a
checkpoint's ``loop_config``."""


@record
class Inkling2LoopConfig:
    """The options of transformers' ``Inkling2LoopTextConfig`` that shape its parameters and
    its cache, its defaults."""

    vocab_size: int = 201024
    unpadded_vocab_size: int = 200058
    hidden_size: int = 2304
    num_hidden_layers: int = 24
    num_attention_heads: int = 24
    num_key_value_heads: int = 8
    head_dim: int = 128
    swa_num_attention_heads: int = 24
    swa_num_key_value_heads: int = 8
    swa_head_dim: int = 128
    sliding_window_size: int = 1024
    d_rel: int = 16
    rel_extent: int = 1024
    conv_kernel_size: int = 4
    moe_intermediate_size: int = 1152
    n_routed_experts: int = 128
    num_experts_per_tok: int = 8
    layer_types: tuple[str, ...] | None = None
    n_layers_per_attn_res_block: int = 6
    """The layers per block of the attention residuals: the loop's ends are multiples of it."""
    loop_layer_index_start: int = 6
    loop_layer_index_end: int = 18
    loop_num_passes: int = 3
    loop_gate_rank: int = 64

    def __post_init__(self) -> None:
        check(self)
        hybrid.check_types(self, ("n_layers_per_attn_res_block", "loop_layer_index_start",
                                  "loop_num_passes", "loop_gate_rank"))
        start, end, block = (self.loop_layer_index_start, self.loop_layer_index_end,
                             self.n_layers_per_attn_res_block)
        if not (is_int(end) and end >= start):
            raise SpecError("{loop_layer_index_end} must be at least loop_layer_index_start "
                            f"({start}): transformers cannot build fewer looped layers than 0",
                            loop_layer_index_end=end)
        for field, value in (("loop_layer_index_start", start), ("loop_layer_index_end", end)):
            if value % block:
                raise SpecError("{" + field + "} must be a multiple of "
                                f"n_layers_per_attn_res_block ({block}), as transformers "
                                "requires", **{field: value})

    types = Inkling2Config.types
    attention = Inkling2Config.attention

    @property
    def loop(self) -> Loop:
        """The looped layers, passes and message gates' rank."""
        return Loop(self.loop_layer_index_start, self.loop_layer_index_end,
                    self.loop_num_passes, self.loop_gate_rank)


Config = Inkling2LoopConfig


stack = inkling2.stack
tensors = inkling2.tensors
formula = inkling2.formula
saved_tensors = inkling2.saved_tensors
stored_padding = inkling2.stored_padding


def json_values(data: Mapping[str, object]) -> dict[str, object]:
    """A checkpoint's ``loop_config`` over the loop's fields."""
    values = dict(data)
    loop = mapping(data, "loop_config")
    values.update({field: loop[key] for key, field in LOOP_KEYS.items() if key in loop})
    return values


from_hf_config = hybrid.conventions(
    stack, Inkling2LoopConfig, "Inkling2LoopForCausalLM", aliases=inkling2.READ_KEYS,
    prepare=json_values)[2]


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every ``Inkling2LoopForCausalLM`` among ``shapes`` (as the model names its tensors, or
    as ``save_pretrained`` does), checked exactly."""
    return recognise_params(shapes, _recognise_at) or inkling2_saved.recognise(
        shapes, _recognise_at)


def _recognise_at(shapes: Shapes, prefix: str, vocab: int, d: int) -> RecognisedModel | None:
    queries = shapes.get(prefix + "model.message_input.query")
    values = read_values(shapes, prefix, vocab, d)
    if values is None or not (is_shape(queries, 3) or (
            isinstance(queries, tuple) and len(queries) == 3 and queries[0] == 0)):
        return None  # (0, 4, D): a loop of no layer
    assert queries is not None
    start = f"{prefix}model.layers."
    looped = [i for i in range(int(str(values["num_hidden_layers"])))
              if f"{start}{i}.q_message_gate.down_proj.weight" in shapes]
    first = looped[0] if looped else int(str(values["num_hidden_layers"]))
    gate = shapes.get(f"{start}{first}.q_message_gate.down_proj.weight")
    block = gcd(first, first + queries[0])
    values.update(loop_layer_index_start=first, loop_layer_index_end=first + queries[0],
                  n_layers_per_attn_res_block=block)
    if is_shape(gate, 2):
        assert gate is not None
        values["loop_gate_rank"] = gate[0]
    notes = [TOP_K_NOTE, f"the passes over the looped layers are not in the weights: read as "
             f"{Inkling2LoopConfig.loop_num_passes} (transformers' default), which the "
             "state depends on but the parameters do not"]
    return hybrid.accept_values(shapes, NAME, prefix, Inkling2LoopConfig, values, tensors,
                                notes)
