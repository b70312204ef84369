"""What the hybrid families share: a model's tensors gathered with the kind of part each belongs
to (the shares of recurrent mixers, attention, MLPs, experts, embeddings and norms), the causal
LM frame around the layers, ``config.json`` values read under every name the reference reads
them by, and the exact check that accepts a model recognised from its tensors.

Jamba, Bamba, Zamba2, Falcon-H1, Nemotron-H and LFM2 are stacks of parts
(:mod:`paramcount.families.mixers`) that transformers builds from one config class each; their
modules list those parts in ``named_parameters()`` order through a :class:`Stack`. Pure: no
framework import.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from paramcount.engine.conventions.base import Formula, Symbol, Tensor
from paramcount.engine.conventions.recognition import Shapes, is_shape
from paramcount.errors import SpecError, literal
from paramcount.families.family import RecognisedModel
from paramcount.families.mixers import read_mamba2
from paramcount.families.parts import exact, linear, norm, tensor
from paramcount.families.state import LayerState
from paramcount.record import fields, replace

TYPE_CHECKING = False  # typing is for the type checker only (it is slow to import)
if TYPE_CHECKING:
    from typing import Any, Protocol, TypeVar

    from paramcount.families.mixers import Attention, Experts, Mamba2

    C = TypeVar("C")

    class Part(Protocol):
        """A part spec of :mod:`~paramcount.families.mixers`."""

        @property
        def count(self) -> int: ...
        def tensors(self, prefix: str, layer: int) -> list[Tensor]: ...

    class Heads(Protocol):
        """A config with transformers' attention head options."""

        @property
        def head_dim(self) -> int | None: ...
        @property
        def hidden_size(self) -> int: ...
        @property
        def num_attention_heads(self) -> int: ...

MIXERS = ("recurrent", "attention")
"""The kinds of part that keep state between tokens (each must declare it: ``cache()``)."""

KINDS = ("embeddings", "recurrent", "attention", "mlp", "experts", "norms", "connections",
         "vision")
"""The kinds of part a hybrid's parameters are shared among (the head counts as embeddings, so
do Qwen4-Exp's per-layer n-gram embeddings; Zamba2's LoRA adapters count with the attention or
MLP they adapt; ``connections``: the hyper-connections that mix residual streams; ``vision``: a
vision-language model's vision tower)."""


class Stack:
    """A model's tensors in order, each with its kind, and the parts they make (for the closed
    form); for mixtures of experts, the parameters a token does not use."""

    def __init__(self) -> None:
        self.tensors: list[Tensor] = []
        self.kinds: list[str] = []
        self.parts: list[tuple[str, int]] = []
        """(label, closed-form count) of each part, in order."""
        self.idle = 0
        """Parameters of the experts a token is not routed to, summed over the layers."""
        self.holders: list[tuple[int, str, object]] = []
        """(layer, label, part) of each part a layer keeps state for, in layer order."""
        self.undeclared: list[str] = []
        """Mixers (recurrent or attention parts) that declare no state: the model's state is
        not known."""

    def add(self, kind: str, label: str, count: int, tensors: Iterable[Tensor]) -> None:
        """Append ``tensors``, one part of ``kind`` whose closed form gives ``count``."""
        for t in tensors:
            self.tensors.append(t)
            self.kinds.append(kind)
        self.parts.append((label, count))

    def part(self, kind: str, label: str, spec: Part, prefix: str, layer: int,
             state: bool = True) -> None:
        """Append the tensors of ``spec`` (a part from :mod:`~paramcount.families.mixers`),
        and with ``state`` what it keeps between tokens where it declares that."""
        self.add(kind, label, spec.count, spec.tensors(prefix, layer))
        if state:
            self.holds(layer, label, spec, kind in MIXERS)

    def holds(self, layer: int, label: str, spec: object, mixer: bool = True) -> None:
        """Layer ``layer`` keeps the state ``spec`` declares (``cache()``): a shared block's
        attention keeps its keys and values in every layer that uses it. A ``mixer`` that
        declares none makes the model's state unknown (:attr:`undeclared`), never 0."""
        if hasattr(spec, "cache"):
            self.holders.append((layer, label, spec))
        elif mixer:
            self.undeclared.append(label)

    @property
    def states(self) -> list[LayerState]:
        """What each layer's mixers keep between tokens, in layer order (each part's
        ``cache()``, asked only when the state is)."""
        return [LayerState(layer, label, spec.cache())  # type: ignore[attr-defined]
                for layer, label, spec in self.holders]

    @property
    def total(self) -> int:
        """Every parameter (tied weights once)."""
        return sum(t.count for t in self.tensors)

    @property
    def shares(self) -> tuple[tuple[str, int], ...]:
        """Each kind's parameters, in :data:`KINDS` order, kinds the model lacks left out."""
        sums = dict.fromkeys(KINDS, 0)
        for kind, t in zip(self.kinds, self.tensors, strict=True):
            sums[kind] += t.count
        return tuple((kind, n) for kind, n in sums.items() if n)

    @property
    def active(self) -> int:
        """The parameters one token uses (all of them but the experts it is not routed to)."""
        return self.total - self.idle

    def formula(self, symbols: tuple[Symbol, ...]) -> Formula:
        """The total as a sum over the parts, each part's closed form counted once per
        occurrence: ``28·[mamba] + 4·[attention] + …``; computed from the parts' closed forms,
        not from the tensors, so the two check each other."""
        grouped: dict[tuple[str, int], int] = {}
        for key in self.parts:
            grouped[key] = grouped.get(key, 0) + 1
        terms = tuple((f"{n}·{each}" if n > 1 else str(each), n * each)
                      for (_, each), n in grouped.items())
        symbolic = " + ".join(f"{n}·[{label}]" if n > 1 else f"[{label}]"
                              for (label, _), n in grouped.items())
        return Formula(symbolic, symbols, terms)


def cached(build: Callable[[C], Stack]) -> Callable[[C], Stack]:
    """``build`` (a family's config → its :class:`Stack`) remembering its last few answers:
    the count, the report, the recognition check and ``inspect`` ask for the same config's
    tensors several times. A stack is not changed once built."""
    made: dict[object, Stack] = {}

    def stack(config: C) -> Stack:
        if config not in made:
            if len(made) > 16:
                made.clear()
            made[config] = build(config)
        return made[config]

    stack.__doc__ = build.__doc__
    return stack


def embeddings(stack: Stack, name: str, vocab: int, width: int) -> None:
    """The token embedding ``name`` (vocab, width)."""
    stack.add("embeddings", "embedding V·D", vocab * width,
              [tensor(name, (vocab, width), -1, vocab, "embed_tokens")])


def norm_of(stack: Stack, name: str, width: int, layer: int) -> None:
    """An RMSNorm's weight (width,) at ``name`` (``…input_layernorm.``)."""
    stack.add("norms", "norm", width, norm(name, width, layer))


def feed_forward(stack: Stack, prefix: str, layer: int, width: int, dense: Part,
                 experts: Experts | None) -> None:
    """A layer's MLP under ``prefix`` + ``mlp.``: the ``experts`` (their idle share counted)
    where given, else the ``dense`` MLP; then its ``input_layernorm`` and
    ``post_attention_layernorm`` (``width`` each)."""
    if experts is not None:
        stack.part("experts", "experts", experts, prefix + "mlp.", layer)
        stack.idle += experts.count - experts.active
    else:
        stack.part("mlp", "mlp", dense, prefix + "mlp.", layer)
    norm_of(stack, prefix + "input_layernorm.", width, layer)
    norm_of(stack, prefix + "post_attention_layernorm.", width, layer)


def final(stack: Stack, norm_name: str, vocab: int, width: int, tie: bool) -> None:
    """The final norm, then ``lm_head`` unless it is tied to the embedding."""
    norm_of(stack, norm_name, width, -1)
    if not tie:
        stack.add("embeddings", "head V·D", vocab * width,
                  linear("lm_head.", vocab, width, False, -1))


def conventions(build: Callable[[Any], Stack], kind: type, reference: str,
                *symbol: tuple[str, ...], lists: tuple[str, ...] = ("layer_types",),
                aliases: Mapping[str, str] = {},
                prepare: Callable[[Mapping[str, object]], Mapping[str, object]] | None = None
                ) -> tuple[Callable[[Any], list[Tensor]], Callable[[Any], Formula],
                           Callable[[Mapping[str, object]], Any]]:
    """A hybrid module's ``tensors``, ``formula`` and ``from_hf_config``, made from its
    ``stack`` (``build``) and config record ``kind`` (``reference``: the transformers class;
    ``symbol``: each letter of the closed form beside V, D and L, the field it stands for and
    what it is, where not the field's name; ``lists``: the fields ``config.json`` gives as
    lists; ``aliases``: the other keys the reference reads fields by, as :func:`read`;
    ``prepare``: what the module does to ``config.json``'s values first, its docstring saying
    what), so each module does not write them again."""

    def tensors(config: Any) -> list[Tensor]:
        return list(build(config).tensors)

    def formula(config: Any) -> Formula:
        return build(config).formula(symbols(config, *(
            Symbol(one[0], getattr(config, one[1]), one[-1]) for one in symbol)))

    def from_hf_config(data: Mapping[str, object]) -> Any:
        return read(kind, data if prepare is None else prepare(data), aliases, lists)

    tensors.__doc__ = (f"Every parameter of ``{reference}(config)``, in "
                       "``named_parameters()`` order.")
    formula.__doc__ = "The sum of the parts' closed forms."
    renamed = "".join(f"; ``{key}`` is ``{field}``" for key, field in aliases.items())
    from_hf_config.__doc__ = (f"A ``config.json`` read as transformers' ``{kind.__name__}`` "
                              "reads it" + (f" ({renamed[2:]})" if renamed else "") + (
                                  ": " + prepare.__doc__[0].lower() + prepare.__doc__[1:]
                                  if prepare and prepare.__doc__ else "."))
    return tensors, formula, from_hf_config


# ---- config.json ----------------------------------------------------------------------------


def read(kind: type, data: Mapping[str, object], aliases: Mapping[str, str] = {},
         lists: Iterable[str] = ()) -> object:
    """A config record from ``config.json``: each field from its own key, or from the key the
    reference also reads it by (``aliases``: key → field; the field's own key wins where both
    are given), lists as tuples; a field missing takes the record's default (the reference's).
    A wrong value is a SpecError naming the key."""
    values: dict[str, object] = {}
    for key, field in aliases.items():
        if key in data and field not in data:
            values[field] = data[key]
    names = fields(kind)
    values.update({name: data[name] for name in names if name in data})
    for name in lists:
        value = values.get(name)
        if isinstance(value, list):
            values[name] = tuple(value)
    try:
        return kind(**values)
    except SpecError as error:
        raise SpecError("config.json: " + error.template, **error.values) from None
    except TypeError as error:  # a value of a type the record cannot even compare
        raise SpecError("config.json: {value} is not valid here: " + str(error),
                        value=str(error)) from None


def check_types(config: object, ints: Iterable[str] = (), bools: Iterable[str] = (),
                optional: Iterable[str] = ()) -> None:
    """Each named field an int (a positive one; ``optional`` ones may be None) or a bool, as
    the reference's strict config class requires."""
    from paramcount.families.parts import sizes

    for name in optional:
        if getattr(config, name) is not None:
            sizes(config, name)
    sizes(config, *ints)
    for name in bools:
        value = getattr(config, name)
        if not isinstance(value, bool):
            raise SpecError(f"{{{name}}} must be true or false", **{name: value})


def indices(config: object, name: str, layers: int) -> tuple[int, ...]:
    """Field ``name``: layer indices, each from 0 to ``layers`` − 1."""
    value = getattr(config, name)
    if not isinstance(value, tuple):
        raise SpecError(f"{{{name}}} must list layer indices", **{name: value})
    for at, i in enumerate(value):
        if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < layers:
            what = "not a layer index" if not isinstance(i, int) or isinstance(i, bool) else (
                f"not a layer of {layers}")
            raise SpecError(f"{{{name}}}: entry {at:,} of {len(value):,} is "
                            + literal(i) + f", {what}", **{name: value})
    return value


def layer_types(config: Any, allowed: Mapping[str, str],
                name: str = "layer_types") -> tuple[str, ...] | None:
    """Field ``name`` (``layer_types``; None where not given): one type per layer, each one
    of ``allowed`` (as :func:`kinds_of`), read as what they mean."""
    if getattr(config, name) is None:
        return None
    types = kinds_of(config, name, allowed)
    if len(types) != config.num_hidden_layers:
        raise SpecError("{" + name + "} lists " + str(len(types)) + " layers, "
                        "{num_hidden_layers} says " + str(config.num_hidden_layers),
                        **{name: getattr(config, name)},
                        num_hidden_layers=config.num_hidden_layers)
    return types


def mamba2_heads(config: Any) -> None:
    """Bamba's and Granite 4.0-H's rule for their Mamba-2 heads: ``mamba_n_heads`` divides
    mamba_expand · hidden_size, and ``mamba_d_head`` ("auto" or given) is the quotient."""
    inner = config.mamba_expand * config.hidden_size
    if inner % config.mamba_n_heads:
        raise SpecError("{mamba_n_heads} must divide mamba_expand · hidden_size "
                        "(transformers: mamba_n_heads must divide mamba_expand * "
                        "hidden_size)", mamba_n_heads=config.mamba_n_heads)
    d_head = config.mamba_d_head
    if d_head != "auto" and d_head != inner // config.mamba_n_heads:
        raise SpecError("{mamba_d_head} · {mamba_n_heads} must equal mamba_expand · "
                        "hidden_size (transformers: the dimensions for the Mamba head "
                        "state do not match the model intermediate_size)",
                        mamba_d_head=d_head, mamba_n_heads=config.mamba_n_heads)


HEAD_ALIASES: dict[str, tuple[str, ...]] = {"num_attention_heads": ("--heads",),
                                            "num_key_value_heads": ("--kv-heads",)}
"""The names people use for the attention heads' options, in every hybrid that has them."""

MAMBA_ALIASES: dict[str, tuple[str, ...]] = {**HEAD_ALIASES, "mamba_d_state": ("--d-state",)}
"""The names people use for the options of the hybrids whose Mamba options are named
``mamba_…`` (Jamba, Bamba, Falcon-H1, Granite 4.0-H)."""

SIZES = ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers",
         "num_attention_heads")
"""The sizes most hybrids' configs hold, each a whole number of at least 1, checked first and
in this order (:func:`check_types`)."""

MAMBA2_SIZES = ("mamba_n_heads", "mamba_n_groups", "mamba_d_state", "mamba_d_conv",
                "mamba_expand")
"""The Mamba-2 sizes of Bamba's, Falcon-H1's and Granite 4.0-H's configs."""


def symbols(config: Any, *more: Symbol) -> tuple[Symbol, ...]:
    """V, D and L of a hybrid's closed form (vocab_size, hidden_size, num_hidden_layers), and
    ``more``."""
    return (Symbol("V", config.vocab_size, "vocab_size"),
            Symbol("D", config.hidden_size, "hidden_size"), *more,
            Symbol("L", config.num_hidden_layers, "num_hidden_layers"))


def renamed_view(shapes: Shapes, rename: Callable[[str], str]
                 ) -> tuple[dict[str, tuple[int, ...]], dict[str, tuple[str, ...]]]:
    """A checkpoint's tensors under the model's names (``rename`` gives each) and, for each
    name of the view, the checkpoint's name it stands for."""
    back: dict[str, tuple[str, ...]] = {rename(name): (name,) for name in shapes}
    return {ours: shapes[names[0]] for ours, names in back.items()}, back


def kinds_of(config: object, name: str, allowed: Mapping[str, str]) -> tuple[str, ...]:
    """Field ``name``: a list of layer types, each one of ``allowed`` (the keys: the names
    config.json may use, the values: what they mean)."""
    value = getattr(config, name)
    choices = ", ".join(repr(a) for a in allowed)
    if not isinstance(value, tuple) or not value:
        raise SpecError(f"{{{name}}} must list layer types, each one of {choices}",
                        **{name: value})
    for at, v in enumerate(value):
        if not isinstance(v, str) or v not in allowed:
            raise SpecError(f"{{{name}}}: entry {at:,} of {len(value):,} is " + literal(v)
                            + f", not one of {choices}", **{name: value})
    return tuple(allowed[v] for v in value)


# ---- recognition ----------------------------------------------------------------------------


def layer_count(shapes: Shapes, start: str) -> int:
    """How many layers ``start`` + ``0.``, ``1.`` … there are, counting on while layer n has a
    tensor (at most 10,000): one pass over the names."""
    seen = set()
    cut = len(start)
    for name in shapes:
        if name.startswith(start):
            head = name[cut:].split(".", 1)[0]
            if head.isdigit() and len(head) < 6:
                seen.add(int(head))
    n = 0
    while n in seen and n < 10_000:
        n += 1
    return n


def causal_lm_roots(shapes: Shapes, embed: str) -> list[tuple[str, tuple[int, int]]]:
    """Each prefix under which a causal LM's embedding ``model.{embed}.weight`` is found, with
    its shape (vocab, width)."""
    ending = f"model.{embed}.weight"
    out = []
    for name, shape in shapes.items():
        if name.endswith(ending) and is_shape(shape, 2):
            out.append((name[: -len(ending)], (shape[0], shape[1])))
    return out


def recognise_roots(shapes: Shapes, embed: str,
                    at: Callable[[Shapes, str, int, int], RecognisedModel | None]
                    ) -> list[RecognisedModel]:
    """Each model ``at(shapes, prefix, vocab, width)`` finds at a root of
    :func:`causal_lm_roots` (``embed``: the embedding's name under ``model.``)."""
    found = []
    for prefix, (vocab, d) in causal_lm_roots(shapes, embed):
        model = at(shapes, prefix, vocab, d)
        if model is not None:
            found.append(model)
    return found


def accept_values(shapes: Shapes, family: str, prefix: str, kind: type,
                  values: Mapping[str, object], tensors: Callable[[Any], list[Tensor]],
                  notes: list[str]) -> RecognisedModel | None:
    """The model under ``prefix`` whose config is ``kind(**values)`` (read from its tensors),
    if the reference accepts that config and :func:`accept` finds its tensors exactly; None
    otherwise."""
    config = build(kind, **values)
    if config is None:
        return None
    return accept(shapes, family, prefix, config, tensors, notes)


def one_group_note(groups: str, state: str, mixer: Mamba2) -> str:
    """The note that a Mamba-2 mixer's group count was read as 1 (``groups``, ``state``: the
    family's names for the two options): its weights hold only their product."""
    both = mixer.groups * mixer.state
    return f"the weights hold only {groups} × {state} = {both}: read as 1 × {both}"


def mamba_values(shapes: Shapes, prefix: str, d: int) -> tuple[dict[str, object], str] | None:
    """The ``mamba_*`` options of Bamba and Granite 4.0-H read from the Mamba-2 mixer under
    ``prefix`` (``…layers.{i}.mamba.``) of a model ``d`` wide, with the note that its group
    count was read as 1; None where there is none or its width is no multiple of ``d``."""
    mixer = read_mamba2(shapes, prefix)
    if mixer is None or mixer.inner % d:
        return None
    return ({"mamba_n_heads": mixer.heads, "mamba_n_groups": mixer.groups,
             "mamba_d_state": mixer.state, "mamba_d_conv": mixer.kernel,
             "mamba_expand": mixer.inner // d, "mamba_conv_bias": mixer.conv_bias,
             "mamba_proj_bias": mixer.bias},
            one_group_note("mamba_n_groups", "mamba_d_state", mixer))


def heads_note(att: Attention) -> str:
    """The note that attention heads were read as the weights allow: they hold only
    heads × width."""
    return (f"heads read as {att.heads} of width {att.head_dim}: the weights hold only "
            "heads × width")


def accept(shapes: Shapes, family: str, prefix: str, config: object,
           tensors: Callable[[Any], list[Tensor]], notes: list[str]) -> RecognisedModel | None:
    """The model under ``prefix`` if ``tensors(config)`` are exactly the tensors found under
    its ``model.`` and ``lm_head.``; None otherwise."""
    names = exact(shapes, prefix, ("model.", "lm_head."), tensors(config))
    if names is None:
        return None
    if getattr(config, "tie_word_embeddings", False):
        notes.append("no lm_head tensor: the head is tied to the embeddings "
                     "(tie_word_embeddings)")
    return RecognisedModel(prefix, family, config, names, tuple(notes))


def build(kind: type, **values: object) -> object | None:
    """``kind(**values)``, or None where the reference would refuse it."""
    try:
        made: object = kind(**values)
    except (SpecError, TypeError):
        return None
    return made


def heads_dim(config: Heads) -> int:
    """A head's width: ``head_dim``, or hidden_size // num_attention_heads where it is null."""
    return config.head_dim or config.hidden_size // config.num_attention_heads


def heads_wide(config: Heads) -> None:
    """A SpecError where num_attention_heads exceeds hidden_size (heads 0 wide)."""
    if heads_dim(config) < 1:
        raise SpecError("{num_attention_heads} exceeds {hidden_size}: heads would be 0 wide",
                        num_attention_heads=config.num_attention_heads,
                        hidden_size=config.hidden_size)


def rope_even(field: str, head_dim: int | None) -> None:
    """transformers' rule for rotary heads: a head wider than 4 must be even (an explicit
    ``head_dim``, or Zamba2's computed one)."""
    if head_dim is not None and head_dim > 4 and head_dim % 2:
        raise SpecError("{" + field + "} must be even (or at most 4): transformers' RoPE "
                        "requires an even rotary dimension", **{field: head_dim})


# ---- the checkpoint's layout ----------------------------------------------------------------

_EXPERT = re.compile(r"(?P<stem>.*experts)\.(?P<e>\d{1,6})\.(?P<proj>gate_proj|up_proj|down_proj)"
                     r"\.weight")
BUFFERS = ("e_score_correction_bias", "expert_bias")
"""Buffers a checkpoint holds beside the parameters (Nemotron-H's router, LFM2-MoE's
``expert_bias``): not counted, not claimed."""


def saved_experts(tensors: list[Tensor]) -> list[Tensor]:
    """``tensors`` as ``save_pretrained`` writes them: each stacked experts tensor (E, …) one
    tensor per expert (``experts.gate_up_proj`` (E, 2I, D) as ``experts.{e}.gate_proj.weight``
    and ``up_proj.weight`` (I, D); ``experts.down_proj`` (E, …) as ``experts.{e}.down_proj
    .weight``)."""
    out = []
    for t in tensors:
        stem, _, last = t.name.rpartition(".")
        if not stem.endswith("experts") or last not in ("gate_up_proj", "up_proj", "down_proj"):
            out.append(t)
            continue
        experts, *rest = t.shape
        for e in range(experts):
            if last == "gate_up_proj":
                half = (rest[0] // 2, *rest[1:])
                out += [replace(t, name=f"{stem}.{e}.gate_proj.weight", shape=half),
                        replace(t, name=f"{stem}.{e}.up_proj.weight", shape=half)]
            else:
                out.append(replace(t, name=f"{stem}.{e}.{last}.weight", shape=tuple(rest)))
    return out


def stacked_view(shapes: Shapes, rename: tuple[str, str] = ("", "")
                 ) -> tuple[dict[str, tuple[int, ...]], dict[str, tuple[str, ...]]] | None:
    """A checkpoint's tensors as the model holds them: each expert's weights stacked (the
    inverse of :func:`saved_experts`), buffers left out, names starting ``rename[0]`` starting
    ``rename[1]`` instead; and for each name of the view, the checkpoint's names it stands for.
    None where the experts are not all there and alike."""
    old, new = rename
    view: dict[str, tuple[int, ...]] = {}
    back: dict[str, tuple[str, ...]] = {}
    groups: dict[str, dict[str, dict[int, tuple[int, ...]]]] = {}
    for name, shape in shapes.items():
        if name.rsplit(".", 1)[-1] in BUFFERS:
            continue
        here = new + name[len(old):] if old and name.startswith(old) else name
        match = _EXPERT.fullmatch(here)
        if match is None:
            view[here] = shape
            back[here] = (name,)
            continue
        groups.setdefault(match["stem"], {}).setdefault(match["proj"], {})[int(match["e"])] = (
            shape)
        back.setdefault(match["stem"], ())
        back[match["stem"]] += (name,)
    for stem, projs in groups.items():
        count = len(next(iter(projs.values())))
        firsts = {proj: by[0] for proj, by in projs.items() if 0 in by}
        if any(set(by) != set(range(count)) or len(firsts) != len(projs)
               or any(s != firsts[proj] for s in by.values()) for proj, by in projs.items()):
            return None
        sources = back.pop(stem)
        if "gate_proj" in projs:
            if set(projs) != {"gate_proj", "up_proj", "down_proj"} or (
                    firsts["gate_proj"] != firsts["up_proj"]):
                return None
            gate = firsts["gate_proj"]
            fused = {f"{stem}.gate_up_proj": (count, 2 * gate[0], *gate[1:]),
                     f"{stem}.down_proj": (count, *firsts["down_proj"])}
        else:
            if set(projs) != {"up_proj", "down_proj"}:
                return None
            fused = {f"{stem}.up_proj": (count, *firsts["up_proj"]),
                     f"{stem}.down_proj": (count, *firsts["down_proj"])}
        for name, shape in fused.items():
            view[name] = shape
            back[name] = tuple(n for n in sources if (
                ".down_proj." in n) == name.endswith("down_proj"))
    return view, back


def from_saved(models: list[RecognisedModel], back: Mapping[str, tuple[str, ...]],
               note: str) -> list[RecognisedModel]:
    """Models recognised in a :func:`stacked_view`, claiming the checkpoint's own names."""
    return [replace(m, names=tuple(n for name in m.names for n in back.get(name, (name,))),
                    saved=True, notes=(*m.notes, note)) for m in models]


def recognise_renamed(shapes: Shapes, rename: Callable[[str], str | None],
                      at: Callable[[Shapes, str, int, int], RecognisedModel | None],
                      note: str, find: Callable[[Shapes], list[RecognisedModel]] | None = None
                      ) -> list[RecognisedModel]:
    """The models ``at`` finds in a checkpoint whose names differ from the model's: each name
    as ``rename`` gives it (None: a buffer, left out and not claimed), the experts stacked as
    the model holds them; the models found claim the checkpoint's own names. ``find`` finds
    them in that view where they are not causal LMs under ``model.`` (GLM-5-Next's text
    model)."""
    renamed: dict[str, str] = {}
    for name in shapes:
        ours = rename(name)
        if ours is not None:
            renamed[ours] = name
    viewed = stacked_view({ours: shapes[name] for ours, name in renamed.items()})
    if viewed is None:
        return []
    view, back = viewed
    back = {n: tuple(renamed[o] for o in olds) for n, olds in back.items()}
    found = find(view) if find is not None else recognise_roots(view, "embed_tokens", at)
    return from_saved(found, back, note)


def stacked_name(name: str, names: Mapping[str, str], buffers: tuple[str, ...],
                 stem: tuple[str, str] = ("", "")) -> str | None:
    """A checkpoint's name as the model's stacked view reads it, :func:`per_expert_names`
    undone (``experts.0.w1.weight`` → ``experts.0.gate_proj.weight``, ``stem[1]`` written
    ``stem[0]``); None for the ``buffers`` (a name's last part) beside the experts."""
    if name.rpartition(".")[2] in buffers:
        return None
    if stem[0]:
        name = name.replace(stem[1], stem[0])
    head, _, rest = name.rpartition(".experts.")
    e, _, proj = rest.partition(".")
    proj = proj.removesuffix(".weight")
    theirs = {v: k for k, v in names.items()}
    return f"{head}.experts.{e}.{theirs[proj]}.weight" if head and proj in theirs else name


def per_expert_names(tensors: list[Tensor], names: Mapping[str, str],
                     stem: tuple[str, str] = ("", "")) -> list[Tensor]:
    """:func:`saved_experts`, each expert's projections named as ``names`` says
    (``gate_proj`` → ``w1``, …) and ``stem[0]`` in every name written ``stem[1]``."""
    out = []
    for t in saved_experts(tensors):
        head, _, proj = t.name.removesuffix(".weight").rpartition(".")
        name = f"{head}.{names[proj]}.weight" if ".experts." in t.name and proj in names else (
            t.name)
        out.append(replace(t, name=name.replace(*stem) if stem[0] else name))
    return out
