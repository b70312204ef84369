"""What the families' modules share: ``config.json`` values read as transformers reads them,
the causal-LM frame around a stack of blocks (embeddings, final norm, a tied or untied head),
and recognition of such a model among named tensors.

A value's type is checked as the reference's strict config class checks it: an int field takes
an int (not a bool, not a float), a bool field a bool; a missing key takes the reference's
default. A wrong value is a :class:`~paramcount.errors.SpecError` naming the option.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from paramcount.engine.conventions.base import Direction, Formula, Symbol, Tensor
from paramcount.errors import SpecError
from paramcount.record import fields, record

TYPE_CHECKING = False  # typing and the family protocol are for the type checker only
if TYPE_CHECKING:
    from typing import Any, TypeVar

    from paramcount.families.family import RecognisedModel

    C = TypeVar("C")
    Proposal = Callable[[Mapping[str, tuple[int, ...]], str, int], tuple[Any, list[str]] | None]


def positive(config: object, *names: str) -> None:
    """Raise SpecError unless every named field of ``config`` is a positive int."""
    for name in names:
        value = getattr(config, name)
        if not is_int(value) or value <= 0:
            raise SpecError(f"{{{name}}} must be a positive integer", **{name: value})


def booleans(config: object, *names: str) -> None:
    """Raise SpecError unless every named field of ``config`` is True or False."""
    for name in names:
        value = getattr(config, name)
        if not isinstance(value, bool):
            raise SpecError(f"{{{name}}} must be true or false", **{name: value})


def resolve_rank(config: Any) -> None:
    """Replace ``time_step_rank="auto"`` by ⌈hidden_size / 16⌉, as the reference's config does."""
    rank = config.time_step_rank
    if rank == "auto":
        config.__dict__["time_step_rank"] = -(-config.hidden_size // 16)
    elif not is_int(rank) or rank <= 0:
        raise SpecError("{time_step_rank} must be a positive integer or 'auto'",
                        time_step_rank=rank)


def is_int(value: object) -> bool:
    """Whether ``value`` is an int and not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def block(prefix: str, shapes: list[tuple[str, tuple[int, ...]]], layer: int,
          width: int) -> list[Tensor]:
    """Tensors named ``prefix + name`` for one block that reads ``width``-wide input; the role is
    the reference's short name (``in_proj``, ``A_log``)."""
    return [Tensor(prefix + name, shape, layer, Direction.FORWARD, width, role_of(name))
            for name, shape in shapes]


def role_of(name: str) -> str:
    """``mixer.in_proj.weight`` → ``in_proj``; ``mixer.A_log`` → ``A_log``."""
    parts = name.split(".")
    if parts[-1] in ("weight", "bias") and len(parts) > 1:
        return parts[-2] if parts[-1] == "weight" else f"{parts[-2]}.bias"
    return parts[-1]


@record
class Frame:
    """How a reference names what surrounds its blocks."""

    backbone: str = "backbone."
    embeddings: str = "embeddings.weight"
    final: tuple[str, ...] = ("norm_f.weight",)
    head: str = "lm_head.weight"


FRAME = Frame()


def causal_lm(vocab: int, width: int, blocks: list[Tensor], tie: bool,
              frame: Frame = FRAME) -> list[Tensor]:
    """The embeddings, the blocks, the final norm and the head (only when untied; tied, it is
    the embeddings' tensor, listed once), all under the frame's names; what lies outside the
    blocks has layer −1."""
    after = -1
    out = [Tensor(frame.backbone + frame.embeddings, (vocab, width), -1, Direction.FORWARD,
                  vocab, "embeddings"), *blocks]
    out += [Tensor(frame.backbone + name, (width,), after, Direction.FORWARD, width,
                   role_of(name)) for name in frame.final]
    if not tie:
        out.append(Tensor(frame.head, (vocab, width), after, Direction.FORWARD, width,
                          role_of(frame.head)))
    return out


def model_formula(symbolic: str, block_text: str, per_block: int, symbols: tuple[Symbol, ...],
                  vocab: int, width: int, layers: int, tie: bool,
                  final: tuple[str, int] = ("D", 1)) -> Formula:
    """V·D + L·[block] + final norm (+ V·D when the head is untied), with its terms.

    ``final`` is the final norm's closed form in D and how many D-vectors it holds.
    """
    text, vectors = final
    terms = [
        (f"{vocab}·{width}", vocab * width),
        (f"{layers}·[{block_text}]", layers * per_block),
        (f"{vectors}·{width}" if vectors > 1 else str(width), vectors * width),
    ]
    whole = f"V·D + L·[{symbolic}] + {text}"
    if not tie:
        terms.append((f"{vocab}·{width}", vocab * width))
        whole += " + V·D"
    return Formula(whole, symbols, tuple(terms))


# ---- config.json ----------------------------------------------------------------------------


def integer(data: Mapping[str, object], key: str, default: int) -> int:
    """``data[key]`` as an int (the default when missing), or SpecError."""
    value = data.get(key, default)
    if not is_int(value):
        raise SpecError(f"config.json: {{{key}}} must be an integer", **{key: value})
    assert isinstance(value, int)
    return value


def boolean(data: Mapping[str, object], key: str, default: bool) -> bool:
    """``data[key]`` as a bool (the default when missing), or SpecError."""
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise SpecError(f"config.json: {{{key}}} must be true or false", **{key: value})
    return value


def mapping(data: Mapping[str, object], key: str) -> Mapping[str, object]:
    """``data[key]`` as an object ({} when missing or null), or SpecError."""
    value = data.get(key) or {}
    if not isinstance(value, Mapping):
        raise SpecError(f"config.json: {{{key}}} must be an object", **{key: value})
    return value


def rank_value(data: Mapping[str, object], key: str) -> int | str:
    """A time step rank: an int or "auto" (the default)."""
    value = data.get(key, "auto")
    if value == "auto" or is_int(value):
        assert isinstance(value, int | str)
        return value
    raise SpecError(f"config.json: {{{key}}} must be an integer or 'auto'", **{key: value})


def padded_vocab(data: Mapping[str, object], default: int, multiple: int) -> int:
    """mamba_ssm's vocabulary: ``vocab_size`` rounded up to ``pad_vocab_size_multiple``."""
    vocab = integer(data, "vocab_size", default)
    step = integer(data, "pad_vocab_size_multiple", multiple)
    if step <= 0:
        raise SpecError("config.json: {pad_vocab_size_multiple} must be a positive integer",
                        pad_vocab_size_multiple=step)
    return vocab + (-vocab) % step


def mamba_ssm(data: Mapping[str, object], layer: str) -> Mapping[str, object]:
    """The ``ssm_cfg`` of mamba_ssm's ``config.json`` for a stack of ``layer`` mixers only
    (``Mamba1``, ``Mamba2``), or SpecError naming what makes it another model."""
    ssm = mapping(data, "ssm_cfg")
    kind = ssm.get("layer", "Mamba1")
    if kind != layer:
        family = {"Mamba1": "mamba", "Mamba2": "mamba2"}.get(str(kind), "")
        hint = f" (count it with 'paramcount {family}')" if family else ""
        raise SpecError("config.json: ssm_cfg {layer} is not " + repr(layer) + hint,
                        layer=kind)
    if data.get("d_intermediate", 0) or data.get("attn_layer_idx"):
        raise SpecError("config.json: {attn_layer_idx} and d_intermediate make a hybrid with "
                        "attention or MLP blocks, which this family does not count",
                        attn_layer_idx=data.get("attn_layer_idx"))
    if data.get("rms_norm", True) is not True:
        raise SpecError("config.json: {rms_norm} false (LayerNorm) is not supported: "
                        "transformers' port has RMSNorm only", rms_norm=data.get("rms_norm"))
    return ssm


def read(kind: type[C], data: Mapping[str, object]) -> C:
    """A config record from transformers' ``config.json`` keys: each field from the key of its
    own name, its default where the key is missing."""
    values = {name: data[name] for name in fields(kind) if name in data}
    try:
        return kind(**values)
    except SpecError as error:
        raise SpecError("config.json: " + error.template, **error.values) from None


# ---- recognition ----------------------------------------------------------------------------


def rank2(shape: tuple[int, ...] | None) -> bool:
    """Whether ``shape`` is a matrix."""
    return shape is not None and len(shape) == 2


def build(kind: type[C], **values: object) -> C | None:
    """``kind(**values)``, or None if the reference would refuse it."""
    try:
        return kind(**values)
    except (SpecError, TypeError):
        return None


def recognise_models(family: str, shapes: Mapping[str, tuple[int, ...]], marker: str,
                     propose: Proposal, tensors: Callable[[Any], list[Tensor]],
                     frame: Frame = FRAME, layers_word: str = "layers") -> list[RecognisedModel]:
    """Every model of a family among ``shapes``, found from each stack whose block 0 holds
    ``{layers_word}.0.{marker}``: ``propose`` reads a config from the tensors, and the model is
    accepted only if ``tensors(config)`` are exactly the tensors found under its prefix.

    Under ``...{frame.backbone}`` with the head beside it, the head tells whether the
    embeddings are tied; a bare backbone (transformers' ``...Model``) has no head, and is
    counted as the tied causal LM, which holds the same parameters.
    """
    from paramcount.families.family import RecognisedModel

    found = []
    ending = f"{layers_word}.0.{marker}"
    for name in shapes:
        if not name.endswith(ending):
            continue
        root = name[: -len(ending)]
        layers = 0
        while f"{root}{layers_word}.{layers}.{marker}" in shapes:
            layers += 1
        proposal = propose(shapes, root, layers)
        if proposal is None:
            continue
        config, notes = proposal
        bare = not root.endswith(frame.backbone)
        outer = root if bare else root[: len(root) - len(frame.backbone)]
        if not bare and outer + frame.head in shapes:
            config = build(type(config), **{**vars(config), "tie_word_embeddings": False})
            if config is None:
                continue
        expected = {(root + t.name.removeprefix(frame.backbone) if bare else outer + t.name):
                    t.shape for t in tensors(config)}
        ours = [n for n in shapes if n.startswith(f"{root}{layers_word}.") or n in expected]
        if len(ours) != len(expected) or any(shapes.get(n) != s for n, s in expected.items()):
            continue
        if bare:
            notes.append("no head beside the backbone: counted as the causal LM with tied "
                         "embeddings, which holds the same parameters")
        elif config.tie_word_embeddings:
            notes.append("no separate head tensor: the embeddings are tied to it "
                         "(tie_word_embeddings)")
        found.append(RecognisedModel(outer, family, config, tuple(expected), tuple(notes)))
    return found
