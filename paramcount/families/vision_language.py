"""A vision-language model around a hybrid family's decoder, as transformers'
``Qwen3_5ForConditionalGeneration`` (and Qwen3.5-MoE's) builds it from a config with a
``text_config`` and a ``vision_config``: the vision tower (:mod:`paramcount.families.vision`)
under ``model.visual.``, the decoder's base model under ``model.language_model.``, then
``lm_head`` unless the top-level ``tie_word_embeddings`` ties it (the text config's own flag is
not read for the head).

The state between tokens is the decoder's: the tower holds none. Pure: no framework import.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from paramcount.engine.conventions.base import Formula, Symbol
from paramcount.engine.conventions.recognition import Shapes
from paramcount.errors import SpecError, literal
from paramcount.families import hybrid, vision
from paramcount.families.family import RecognisedModel
from paramcount.families.loader import Layout, Reading, unread
from paramcount.families.parts import booleans, linear
from paramcount.record import record, replace

VISION_LAYOUT = Layout("transformers Qwen3_5VisionConfig", frozenset({
    "depth", "hidden_size", "hidden_act", "intermediate_size", "num_heads", "in_channels",
    "patch_size", "spatial_merge_size", "temporal_patch_size", "out_hidden_size",
    "num_position_embeddings", "initializer_range", "rope_parameters", "model_type",
    "num_hidden_layers", "num_attention_heads"}))
"""The keys transformers' ``Qwen3_5VisionConfig`` reads (``num_hidden_layers`` and
``num_attention_heads`` are its names for ``depth`` and ``num_heads``)."""
VISION_ALIASES = {"num_hidden_layers": "depth", "num_attention_heads": "num_heads"}
"""The vision config's attribute map: key → field."""
WRAPPER_KEYS = frozenset({"text_config", "vision_config", "image_token_id", "video_token_id",
                          "vision_start_token_id", "vision_end_token_id"})
"""The keys of the wrapper's own config beside its two sub-configs."""
VISUAL = "model.visual."
LANGUAGE = "model.language_model."


@record
class VisionLanguageConfig:
    """A vision-language config: the decoder's config record, the vision tower's, and the
    top-level ``tie_word_embeddings`` (which ties ``lm_head`` to the decoder's embedding). The
    tower's ``out_hidden_size`` need not be the decoder's width: transformers builds either
    (its own default config pairs 3584 with 4096)."""

    text: Any
    vision: vision.Qwen3_5VisionConfig
    tie_word_embeddings: bool = False

    def __post_init__(self) -> None:
        booleans(self, "tie_word_embeddings")


def is_wrapper(config: object) -> bool:
    """Whether ``config`` is a vision-language config (not a decoder's own)."""
    return isinstance(config, VisionLanguageConfig)


def names_wrapper(data: Mapping[str, object], model_types: tuple[str, ...],
                  classes: tuple[str, ...]) -> bool:
    """Whether a ``config.json`` object is the vision-language model's: its ``model_type`` is
    one of ``model_types``, or it names none and its ``architectures`` one of ``classes``."""
    model_type = data.get("model_type")
    if isinstance(model_type, str) and model_type:
        return model_type in model_types
    architectures = data.get("architectures")
    return isinstance(architectures, list) and any(a in classes for a in architectures)


def build(text_stack: Callable[[Any], hybrid.Stack], config: VisionLanguageConfig
          ) -> hybrid.Stack:
    """The wrapper's stack: the tower's stem, blocks and merger, the decoder's base model
    (``text_stack`` of its config with the head tied away) renamed under ``model.language_model.``,
    then the head."""
    v = config.vision
    s = hybrid.Stack()
    s.add("vision", "vision stem", v.stem, vision.stem_tensors(v, VISUAL))
    for i in range(v.depth):
        s.add("vision", "vision block", v.block,
              vision.block_tensors(v, f"{VISUAL}blocks.{i}."))
    s.add("vision", "vision merger", v.merger, vision.merger_tensors(v, VISUAL + "merger."))
    text = text_stack(replace(config.text, tie_word_embeddings=True))
    for t, kind in zip(text.tensors, text.kinds, strict=True):
        s.tensors.append(replace(t, name=LANGUAGE + t.name.removeprefix("model.")))
        s.kinds.append(kind)
    s.parts += text.parts
    s.idle = text.idle
    s.holders = list(text.holders)
    s.undeclared = list(text.undeclared)
    if not config.tie_word_embeddings:
        vocab, width = config.text.vocab_size, config.text.hidden_size
        s.add("embeddings", "head V·D", vocab * width, linear("lm_head.", vocab, width, False, -1))
    return s


def formula(stack: hybrid.Stack, config: VisionLanguageConfig) -> Formula:
    """The sum of the parts' closed forms, the tower's letters beside the decoder's."""
    v = config.vision
    return stack.formula(hybrid.symbols(
        config.text, Symbol("H", v.hidden_size, "vision_config.hidden_size"),
        Symbol("B", v.depth, "vision_config.depth")))


def load(data: Mapping[str, object], from_text: Callable[[Mapping[str, object]], Any],
         layout: Layout, loader: str) -> Reading:
    """A vision-language ``config.json`` object read as transformers reads it: its
    ``text_config`` by the decoder's ``from_text`` (``layout``: the keys that reads), its
    ``vision_config`` as ``Qwen3_5VisionConfig``, the head tied by the top-level flag."""
    text = _sub(data, "text_config")
    seen = _sub(data, "vision_config")
    try:
        text_config = from_text(text)
    except SpecError as error:
        raise _within(error, "text_config: ") from None
    try:
        tower = hybrid.read(vision.Qwen3_5VisionConfig, seen, VISION_ALIASES)
    except SpecError as error:
        raise _within(error, "vision_config: ") from None
    tie = data.get("tie_word_embeddings", False)
    notes = [f"text_config: {n}" for n in unread(text, layout)]
    if "tie_word_embeddings" in text and text["tie_word_embeddings"] != tie:
        notes.append(f"text_config's tie_word_embeddings={text['tie_word_embeddings']!r} is not "
                     f"what transformers ties the head by: the top-level one is ({tie!r})")
    notes += [f"vision_config: {n}" for n in unread(seen, VISION_LAYOUT)]
    top = Layout(loader, WRAPPER_KEYS)
    notes += unread({k: v for k, v in data.items() if k not in ("text_config", "vision_config")},
                    top)
    try:
        config = VisionLanguageConfig(text_config, tower, tie)  # type: ignore[arg-type]
    except SpecError as error:
        raise _within(error, "") from None
    return Reading(config, loader, tuple(notes))


def _within(error: SpecError, where: str) -> SpecError:
    """``error`` as one line about the file: its keys named as the file names them
    (``hidden_size=11.5``, not the command's option of the decoder), under ``where``."""
    text = str(error).removeprefix("config.json: ").replace("{", "{{").replace("}", "}}")
    return SpecError(f"config.json: {where}{text}")


def _sub(data: Mapping[str, object], key: str) -> Mapping[str, object]:
    """The object ``data`` holds at ``key`` (empty where it is missing or null)."""
    value = data.get(key)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise SpecError(f"config.json: {key} must be an object, not {literal(value)}")
    return value



def read_tower(shapes: Shapes) -> vision.Qwen3_5VisionConfig | None:
    """The vision tower's config read from its tensors under ``model.visual.`` (its head
    count, which no shape holds, as the default 16, or the width where that is narrower);
    None where they are not such a tower."""
    pos = shapes.get(VISUAL + "pos_embed.weight")
    conv = shapes.get(VISUAL + "patch_embed.proj.weight")
    fc1 = shapes.get(VISUAL + "blocks.0.mlp.linear_fc1.weight")
    merge = shapes.get(VISUAL + "merger.linear_fc1.weight")
    out = shapes.get(VISUAL + "merger.linear_fc2.weight")
    if (pos is None or conv is None or fc1 is None or merge is None or out is None
            or len(pos) != 2 or len(conv) != 5 or len(fc1) != 2 or len(out) != 2):
        return None
    n, h = pos
    area = merge[0] // h if h else 0
    side = math.isqrt(area)
    if conv[3] != conv[4] or side * side != area or area * h != merge[0]:
        return None
    heads = min(16, h)
    made = hybrid.build(vision.Qwen3_5VisionConfig, depth=hybrid.layer_count(
        shapes, VISUAL + "blocks."), hidden_size=h, intermediate_size=fc1[0], num_heads=heads,
        in_channels=conv[1], patch_size=conv[3], spatial_merge_size=side,
        temporal_patch_size=conv[2], out_hidden_size=out[0], num_position_embeddings=n)
    return made if isinstance(made, vision.Qwen3_5VisionConfig) else None


def recognise(shapes: Shapes, text_recognise: Callable[[Shapes], list[RecognisedModel]]
              ) -> list[RecognisedModel]:
    """The vision-language model at the top of ``shapes`` (as the model or its checkpoint
    names its tensors): the tower read from ``model.visual.`` and checked exactly, the decoder
    recognised by ``text_recognise`` under ``model.language_model.``, the head beside them."""
    tower = read_tower(shapes)
    if tower is None:
        return []
    expected = vision.tensors(tower, VISUAL)
    if any(shapes.get(t.name) != t.shape for t in expected) or sum(
            n.startswith(VISUAL) for n in shapes) != len(expected):
        return []
    view = {"model." + n.removeprefix(LANGUAGE): s for n, s in shapes.items()
            if n.startswith(LANGUAGE)}
    if "lm_head.weight" in shapes:
        view["lm_head.weight"] = shapes["lm_head.weight"]
    found = []
    for text in text_recognise(view):
        if text.prefix or text.base:
            continue
        config = hybrid.build(VisionLanguageConfig, text=replace(
            text.config, tie_word_embeddings=False), vision=tower,
            tie_word_embeddings="lm_head.weight" not in shapes)
        if config is None:
            continue
        names = tuple(t.name for t in expected) + tuple(
            LANGUAGE + n.removeprefix("model.") if n.startswith("model.") else n
            for n in text.names)
        notes = (*text.notes, f"vision_config num_heads read as {tower.num_heads}: the "
                 "weights do not hold it (qkv is 3 × hidden_size wide whatever the heads), and "
                 "it changes no count")
        found.append(RecognisedModel("", text.family, config, names, notes, saved=text.saved))
    return found


def conventions(stack: Callable[[Any], hybrid.Stack], text_formula: Callable[[Any], Formula],
                from_text: Callable[[Mapping[str, object]], Any], layout: Layout,
                family: tuple[str, str], model: tuple[str, str]
                ) -> tuple[Callable[[Any], Formula], Callable[[Any], str],
                           Callable[[Any], str], Callable[[Mapping[str, object]], Reading | None]]:
    """A family module's ``formula``, ``title``, ``reference`` and ``load_wrapper`` for its
    decoder's configs and its vision-language ones (``family``: its title and reference for the
    decoder; ``model``: the vision-language model's model_type and class stem, ``Qwen3_5``),
    so each module does not write them again."""
    model_type, stem = model

    def formula_of(config: Any) -> Formula:
        if is_wrapper(config):
            return formula(stack(config), config)
        return text_formula(config)

    def title(config: Any) -> str:
        return family[0].replace(" text (", " (vision tower + ", 1) if is_wrapper(
            config) else family[0]

    def reference(config: Any) -> str:
        return f"transformers {stem}ForConditionalGeneration" if is_wrapper(
            config) else family[1]

    def load_wrapper(data: Mapping[str, object]) -> Reading | None:
        if not names_wrapper(data, (model_type,), (f"{stem}ForConditionalGeneration",)):
            return None
        return load(data, from_text, layout, f"transformers {stem}Config")

    formula_of.__doc__ = ("The sum of the parts' closed forms (the vision tower's among them for "
                          "a vision-language config).")
    title.__doc__ = "The family's title, the vision tower named for a vision-language config."
    reference.__doc__ = "The transformers class that builds ``config``."
    load_wrapper.__doc__ = (f"A ``config.json`` of the vision-language model (model_type "
                            f"``{model_type}``) read as transformers' ``{stem}Config`` reads "
                            "it; None for any other file.")
    return formula_of, title, reference, load_wrapper

