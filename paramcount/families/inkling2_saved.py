"""Inkling 2's (and Inkling 2 Loop's) tensors as transformers' ``save_pretrained`` writes them:
its conversion mapping (``inkling2_text``, ``inkling2_loop_text``) read backwards. The
causal LM's tensors sit under ``model.llm.`` (the head as ``model.llm.unembed.weight``, padded
to ``vocab_size`` rows), with the original checkpoint's short names (``attn.wq_du``,
``k_sconv.static_w``, ``mlp.experts.w13_weight``, ``attn_sconv``, ``mlp_norm``, …), the
residual queries regrouped under ``attn_res.`` (``attn_queries.{i}`` is layer ``i + 1``'s
``attention_input.query``, ``mlp_queries.{i}`` layer ``i``'s ``mlp_input.query``,
``output_query`` the ``final_input.query``), the loop's message gates as ``controllers.`` and its
(L, 4, D) ``message_input.query`` as two (2·L, D) tensors."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from paramcount.engine.conventions.base import Tensor
from paramcount.engine.conventions.recognition import Shapes, is_shape
from paramcount.families import hybrid
from paramcount.families.family import Padding, RecognisedModel
from paramcount.record import replace

SAVED_BACKBONE = "model.llm."
"""The prefix the checkpoint puts before the text model's tensors."""

HEAD = SAVED_BACKBONE + "unembed.weight"
"""The head as the checkpoint names it."""

QUERIES = ("middle_cycle_cross_pass_queries", "middle_cycle_cross_pass_kv_queries")
"""The loop's two (2·L, D) tensors that hold its (L, 4, D) ``message_input.query``."""

_LOAD: tuple[tuple[str, str], ...] = (
    (r"controllers\.attn\.", "q_message_gate."), (r"controllers\.k\.", "k_message_gate."),
    (r"controllers\.v\.", "v_message_gate."), (r"controllers\.mlp\.", "mlp_message_gate."),
    (r"_message_gate\.down_weight", "_message_gate.down_proj.weight"),
    (r"_message_gate\.gain_weight", "_message_gate.message_gate_proj.weight"),
    (r"_message_gate\.forget_weight", "_message_gate.forget_gate_proj.weight"),
    (r"middle_cycle_cross_pass_queries", "message_input.query"),
    (r"model\.llm\.unembed\.", "lm_head."), (r"model\.llm\.", "model."),
    (r"embed\.weight", "embed_tokens.weight"), (r"embed_norm\.", "embed_tokens.embed_norm."),
    (r"mlp\.experts\.w13_weight", "mlp.experts.gate_up_proj"),
    (r"mlp\.experts\.w2_weight", "mlp.experts.down_proj"),
    (r"mlp\.gate\.bias", "mlp.gate.e_score_correction_bias"), (r"\.attn\.", ".self_attn."),
    (r"self_attn\.wq_du", "self_attn.q_proj.linear"),
    (r"self_attn\.wk_dv", "self_attn.k_proj.linear"),
    (r"self_attn\.wv_dv", "self_attn.v_proj.linear"),
    (r"self_attn\.k_sconv\.", "self_attn.k_proj.sconv."),
    (r"self_attn\.v_sconv\.", "self_attn.v_proj.sconv."),
    (r"self_attn\.rel_logits_proj\.", "self_attn.relative_position_bias."),
    (r"self_attn\.wr_du", "self_attn.relative_position_bias.linear"),
    (r"self_attn\.q_l2_clip\.", "self_attn.q_proj.norm."),
    (r"self_attn\.rel_l2_clip\.", "self_attn.relative_position_bias.norm."),
    (r"self_attn\.wo_ud", "self_attn.o_proj.linear"),
    (r"self_attn\.gate_attn", "self_attn.o_proj.gate_proj"),
    (r"self_attn\.attn_sink_proj", "self_attn.sink_proj"),
    (r"attn_sconv\.", "post_attention_convolution."), (r"mlp_sconv\.", "post_mlp_convolution."),
    (r"(convolution|sconv)\.weight(?!_)", r"\1.conv1d.weight"),
    (r"(convolution|sconv)\.static_w", r"\1.static_weight"),
    (r"(convolution|sconv)\.weight_proj", r"\1.weight_proj.weight"),
    (r"mlp_norm", "post_attention_layernorm"), (r"attn_norm", "input_layernorm"),
    (r"(q|k|v)_input_norm", r"\1_input_layernorm"),
    (r"attn_res\.mlp_queries\.(\d+)", r"layers.\1.mlp_input.query"),
    (r"attn_res\.output_query", "final_input.query"))
"""transformers' renames on load (its conversion mapping, in its order; the attention queries'
index shifted by one apart, :func:`model_name`)."""

_SAVE: tuple[tuple[str, str], ...] = (
    (r"layers\.(\d+)\.mlp_input\.query", r"attn_res.mlp_queries.\1"),
    (r"final_input\.query", "attn_res.output_query"),
    (r"(q|k|v)_input_layernorm", r"\1_input_norm"), (r"input_layernorm", "attn_norm"),
    (r"post_attention_layernorm", "mlp_norm"),
    (r"(convolution|sconv)\.weight_proj\.weight", r"\1.weight_proj"),
    (r"(convolution|sconv)\.static_weight", r"\1.static_w"),
    (r"(convolution|sconv)\.conv1d\.weight", r"\1.weight"),
    (r"post_mlp_convolution\.", "mlp_sconv."), (r"post_attention_convolution\.", "attn_sconv."),
    (r"self_attn\.sink_proj", "self_attn.attn_sink_proj"),
    (r"self_attn\.o_proj\.gate_proj", "self_attn.gate_attn"),
    (r"self_attn\.o_proj\.linear", "self_attn.wo_ud"),
    (r"self_attn\.relative_position_bias\.norm\.", "self_attn.rel_l2_clip."),
    (r"self_attn\.q_proj\.norm\.", "self_attn.q_l2_clip."),
    (r"self_attn\.relative_position_bias\.linear", "self_attn.wr_du"),
    (r"self_attn\.relative_position_bias\.", "self_attn.rel_logits_proj."),
    (r"self_attn\.v_proj\.sconv\.", "self_attn.v_sconv."),
    (r"self_attn\.k_proj\.sconv\.", "self_attn.k_sconv."),
    (r"self_attn\.v_proj\.linear", "self_attn.wv_dv"),
    (r"self_attn\.k_proj\.linear", "self_attn.wk_dv"),
    (r"self_attn\.q_proj\.linear", "self_attn.wq_du"), (r"\.self_attn\.", ".attn."),
    (r"mlp\.experts\.down_proj", "mlp.experts.w2_weight"),
    (r"mlp\.experts\.gate_up_proj", "mlp.experts.w13_weight"),
    (r"embed_tokens\.embed_norm\.", "embed_norm."), (r"embed_tokens\.weight", "embed.weight"),
    (r"^model\.", SAVED_BACKBONE), (r"^lm_head\.", "model.llm.unembed."),
    (r"_message_gate\.forget_gate_proj\.weight", "_message_gate.forget_weight"),
    (r"_message_gate\.message_gate_proj\.weight", "_message_gate.gain_weight"),
    (r"_message_gate\.down_proj\.weight", "_message_gate.down_weight"),
    (r"mlp_message_gate\.", "controllers.mlp."), (r"v_message_gate\.", "controllers.v."),
    (r"k_message_gate\.", "controllers.k."), (r"q_message_gate\.", "controllers.attn."))
"""The same renames on save: :data:`_LOAD` undone, in the reverse order."""

_ATTENTION_QUERY = (re.compile(r"layers\.(\d+)\.attention_input\.query"),
                    re.compile(r"attn_res\.attn_queries\.(\d+)"))
"""A layer's attention query as the model names it, and as the checkpoint does (one less)."""


def saved_name(name: str) -> str:
    """The model's tensor ``name`` as the checkpoint names it."""
    name = _ATTENTION_QUERY[0].sub(lambda m: f"attn_res.attn_queries.{int(m[1]) - 1}", name)
    for ours, theirs in _SAVE:
        name = re.sub(ours, theirs, name)
    return name


def model_name(name: str) -> str | None:
    """A checkpoint's tensor ``name`` as the model names it; None for the routers' buffers."""
    name = _ATTENTION_QUERY[1].sub(lambda m: f"layers.{int(m[1]) + 1}.attention_input.query",
                                   name)
    for theirs, ours in _LOAD:
        name = re.sub(theirs, ours, name)
    return None if name.rsplit(".", 1)[-1] in hybrid.BUFFERS else name


def saved_tensors(tensors: list[Tensor], vocab: int) -> list[Tensor]:
    """``tensors`` (a causal LM's) as ``save_pretrained`` writes them: renamed, the head padded
    to ``vocab`` rows and the loop's message queries as two tensors (:data:`QUERIES`)."""
    out = []
    for t in tensors:
        if t.name == "lm_head.weight":
            out.append(replace(t, name=HEAD, shape=(vocab, *t.shape[1:])))
        elif t.name == "model.message_input.query":
            layers, parts, d = t.shape
            out += [replace(t, name=SAVED_BACKBONE + q, shape=(layers * parts // 2, d))
                    for q in QUERIES]
        else:
            out.append(replace(t, name=saved_name(t.name)))
    return out


def stored_padding(config: Any) -> tuple[Padding, ...]:
    """The head's rows ``save_pretrained`` stores beyond ``unpadded_vocab_size`` (zeros up to
    ``vocab_size``, which transformers' ``Inkling2UnpadVocab`` drops on load): stored, no
    parameter of ``lm_head``."""
    rows, vocab, d = config.unpadded_vocab_size, config.vocab_size, config.hidden_size
    if rows >= vocab:
        return ()
    return (Padding(HEAD, (rows, d), (vocab, d),
                    f"save_pretrained pads the head to vocab_size={vocab} rows; lm_head holds "
                    f"unpadded_vocab_size={rows}"),)


def saved_base(tensors: list[Tensor]) -> list[Tensor]:
    """The base model class's saved tensors (``tensors``, the causal LM's without
    ``model.llm.``): the head left out."""
    return [t for t in tensors if t.name != HEAD.removeprefix(SAVED_BACKBONE)]


PADDED = ("the checkpoint pads the head to vocab_size rows (save_pretrained): "
          "unpadded_vocab_size is not in the weights, read as vocab_size")
UNPADDED = ("the head is stored with unpadded_vocab_size rows, fewer than vocab_size (not "
            "padded as save_pretrained writes it; transformers loads it as it is)")
NOTE = ("the checkpoint names the tensors as the original Inkling 2 does (model.llm.*, "
        "attn_res.* queries): read back as transformers loads them")


def recognise(shapes: Shapes, at: Callable[[Shapes, str, int, int], RecognisedModel | None]
              ) -> list[RecognisedModel]:
    """The models ``at`` finds in checkpoints ``save_pretrained`` wrote (a causal LM's, or with
    no head the base model class's), claiming the checkpoint's own names."""
    if not any(n.endswith("attn_res.output_query") for n in shapes):
        return []
    found = _causal_lms(shapes, at)
    claimed = {n for m in found for n in m.names}
    rest = {n: s for n, s in shapes.items() if n not in claimed}
    for name in rest:
        root = name.removesuffix("attn_res.output_query")
        embed = rest.get(root + "embed.weight")
        if root == name or (root and not root.endswith(".")) or root.endswith(
                SAVED_BACKBONE) or not is_shape(embed, 2):
            continue
        assert embed is not None
        inner = {SAVED_BACKBONE + n[len(root):]: s for n, s in rest.items()
                 if n.startswith(root)}
        for model in _causal_lms({**inner, HEAD: embed}, at):
            if model.prefix:
                continue
            names = tuple(root + n[len(SAVED_BACKBONE):] for n in model.names if n != HEAD)
            found.append(replace(model, prefix=root, names=names, base=True, at_most="",
                                 notes=(*(n for n in model.notes if n != PADDED),
                                        "no head: the base model class, counted without it")))
    return found


def _causal_lms(shapes: Shapes, at: Callable[[Shapes, str, int, int], RecognisedModel | None]
                ) -> list[RecognisedModel]:
    """The causal LMs ``at`` finds among a checkpoint's ``shapes``."""
    merged = dict(shapes)
    parts: dict[str, tuple[str, ...]] = {}
    for name, shape in shapes.items():
        if not name.endswith(QUERIES[0]):
            continue
        kv = name.removesuffix(QUERIES[0]) + QUERIES[1]
        other = shapes.get(kv)
        if not (is_shape(shape, 2) and other == shape and shape[0] % 2 == 0):
            return []
        del merged[kv]
        merged[name] = (shape[0] // 2, 4, shape[1])
        parts[name] = (name, kv)
    models = hybrid.recognise_renamed(merged, model_name, at, NOTE)
    return [replace(m, names=tuple(n for name in m.names for n in parts.get(name, (name,))),
                    notes=(*m.notes, PADDED if _padded(m) else UNPADDED),
                    at_most=maybe_padding(m) if _padded(m) else "") for m in models]


def _padded(model: RecognisedModel) -> bool:
    """Whether ``model``'s head was read as wide as the vocabulary (as ``save_pretrained``
    stores it padded): its ``unpadded_vocab_size`` is not in the weights."""
    return bool(model.config.unpadded_vocab_size == model.config.vocab_size)


def maybe_padding(model: RecognisedModel) -> str:
    """Why ``model``'s count (its head read as wide as the vocabulary) is only an upper bound:
    the head's rows beyond its own ``unpadded_vocab_size``, which no tensor tells, may be
    padding."""
    head = next((n for n in model.names if n.endswith(HEAD)), HEAD)
    return (f"{head} holds vocab_size={model.config.vocab_size} rows and save_pretrained "
            "stores the head padded to vocab_size: lm_head's own unpadded_vocab_size is not in "
            "the weights (config.json says it), so the rows beyond it may be padding, not "
            "parameters")
