"""``print(model)`` of a Hugging Face model of a modern recurrent family (``MambaForCausalLM(``,
``Mamba2ForCausalLM``, ``RwkvForCausalLM``, ``RecurrentGemmaForCausalLM``, ``xLSTMForCausalLM``
and their backbones), read as the family's configuration and counted by its convention.

The repr shows only the modules that print their sizes (``Linear``, ``Conv1d``, ``Embedding``,
``LayerNorm``) and hides the rest (``A_log``, ``D``, RMSNorm weights, RWKV's time mixing); its
folded repeats ``(0-1): 2 x MambaBlock(`` give the depth. From the shown tensors each family's
configuration is proposed (:data:`PROPOSERS`), counted by :mod:`paramcount.families`, and kept
only where every shown tensor is one of the convention's, name and shape. Whether ``lm_head``
is tied to the embeddings the repr does not say, and RecurrentGemma's head count (its RG-LRU
gate blocks) it shows only in part: every reading that fits is listed with its count, and one
count is claimed only where they all agree.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from paramcount.errors import ConfigError, SpecError
from paramcount.families.registry import CLASSES
from paramcount.reading.accounting import Accounting
from paramcount.reading.patterns import lazy
from paramcount.reading.reprs.generic import walk
from paramcount.reading.tables.table import Printout
from paramcount.record import record
from paramcount.usertext import digits_value

Shapes = dict[str, tuple[int, ...]]
_HEAD = lazy(r"(?P<cls>[A-Za-z_]\w*)\($")


@record
class Tree:
    """What a repr shows: every module's path and class, and the tensors its sizes give."""

    root: str
    classes: tuple[tuple[str, str], ...]
    shapes: tuple[tuple[str, tuple[int, ...]], ...]


def starts(line: str) -> bool:
    """Whether ``line`` opens the repr of a family's Hugging Face model."""
    match = _HEAD.match(line.rstrip())
    return match is not None and CLASSES.get(match.group("cls"), ("", "config"))[1] != "config"


def read(lines: Sequence[str], start: int) -> tuple[Printout, int] | None:
    """The repr whose first line is ``lines[start]``, its tree found by
    :func:`.generic.walk` (nesting by brackets, whatever the indentation: a paste may mix tabs
    and spaces); re-read by :func:`tree` when its model is made."""
    found = walk(lines, start, brackets=True)
    if found is None:
        return None
    accounting = Accounting.span(start + 1, found.end, found.unread,
                                 () if found.closed else ("no closing line",))
    return Printout("hf-repr", found.root, start + 1, found.end,
                    accounting=accounting), found.end


def tree(lines: Sequence[str]) -> Tree:
    """The modules and shown tensors of a repr (its lines, the class line first), folded
    repeats expanded."""
    found = walk(lines, 0, brackets=True)
    modules = found.modules if found is not None else ()
    shapes: Shapes = {}
    for module in modules:
        if module.rest:
            shapes.update({f"{module.path}.{k}": v
                           for k, v in _tensors(module.cls, module.rest).items()})
    return Tree(found.root if found is not None else "",
                tuple((m.path, m.cls) for m in modules), tuple(shapes.items()))


def _ints(text: str) -> list[int]:
    return [digits_value(x) for x in re.findall(r"[0-9]+", text)]


def _tensors(cls: str, rest: str) -> Shapes:
    """The tensors a module's printed arguments give (a class that prints none: nothing)."""
    if cls == "Linear":
        m = re.match(r"in_features=([0-9]+), out_features=([0-9]+), bias=(True|False)", rest)
        if m is None:
            return {}
        a, b = digits_value(m.group(1)), digits_value(m.group(2))
        return {"weight": (b, a), **({"bias": (b,)} if m.group(3) == "True" else {})}
    if cls == "Conv1d":
        m = re.match(r"([0-9]+), ([0-9]+), kernel_size=\(([0-9]+),\)", rest)
        if m is None:
            return {}
        i, o, k = (digits_value(x) for x in m.groups())
        g = re.search(r"groups=([0-9]+)", rest)
        groups = digits_value(g.group(1)) if g else 1
        found: Shapes = {"weight": (o, i // max(groups, 1), k)}
        return found if "bias=False" in rest else {**found, "bias": (o,)}
    if cls == "Embedding":
        m = re.match(r"([0-9]+), ([0-9]+)", rest)
        return {"weight": (digits_value(m.group(1)), digits_value(m.group(2)))} if m else {}
    if cls == "LayerNorm":
        m = re.match(r"\(([0-9, ]+)\)", rest)
        if m is None or "elementwise_affine=False" in rest:
            return {}
        shape = tuple(_ints(m.group(1)))
        return {"weight": shape, **({} if "bias=False" in rest else {"bias": shape})}
    return {}


# -- proposals ---------------------------------------------------------------------------------

Proposer = Callable[[Shapes, str, int, Tree], Iterator[dict[str, object]]]


def _find(shapes: Shapes, suffix: str) -> tuple[int, ...] | None:
    """The shape of the first shown tensor whose name ends with ``suffix``."""
    return next((shape for name, shape in shapes.items() if name.endswith(suffix)), None)


def _embedding(shapes: Shapes) -> tuple[int, int] | None:
    found = next((s for n, s in shapes.items() if n.endswith(("embeddings.weight",
                                                               "embed_tokens.weight"))), None)
    return (found[0], found[1]) if found and len(found) == 2 else None


def _mamba(shapes: Shapes, root: str, layers: int, _: Tree) -> Iterator[dict[str, object]]:
    emb, x_proj, dt = _embedding(shapes), _find(shapes, "0.mixer.x_proj.weight"), _find(
        shapes, "0.mixer.dt_proj.weight")
    conv = _find(shapes, "0.mixer.conv1d.weight")
    if not (emb and x_proj and dt and conv) or emb[1] == 0 or conv[0] % emb[1]:
        return
    rank = dt[1]
    if (x_proj[0] - rank) % 2:
        return
    yield {"vocab_size": emb[0], "hidden_size": emb[1], "state_size": (x_proj[0] - rank) // 2,
           "num_hidden_layers": layers, "expand": conv[0] // emb[1], "conv_kernel": conv[2],
           "use_bias": _find(shapes, "0.mixer.in_proj.bias") is not None,
           "use_conv_bias": _find(shapes, "0.mixer.conv1d.bias") is not None,
           "time_step_rank": rank}


def _mamba2(shapes: Shapes, root: str, layers: int, _: Tree) -> Iterator[dict[str, object]]:
    emb, in_proj = _embedding(shapes), _find(shapes, "0.mixer.in_proj.weight")
    conv, out = _find(shapes, "0.mixer.conv1d.weight"), _find(shapes, "0.mixer.out_proj.weight")
    if not (emb and in_proj and conv and out) or emb[1] == 0:
        return
    inner = out[1]
    heads = in_proj[0] - inner - conv[0]
    grouped = conv[0] - inner
    if heads <= 0 or inner % heads or grouped <= 0 or grouped % 2 or inner % emb[1]:
        return
    yield {"vocab_size": emb[0], "hidden_size": emb[1], "num_heads": heads,
           "head_dim": inner // heads, "n_groups": 1, "state_size": grouped // 2,
           "num_hidden_layers": layers, "expand": inner // emb[1], "conv_kernel": conv[2],
           "use_bias": _find(shapes, "0.mixer.in_proj.bias") is not None,
           "use_conv_bias": _find(shapes, "0.mixer.conv1d.bias") is not None}


def _rwkv(shapes: Shapes, root: str, layers: int, _: Tree) -> Iterator[dict[str, object]]:
    emb = _embedding(shapes)
    key, ffn = _find(shapes, "0.attention.key.weight"), _find(shapes, "0.feed_forward.key.weight")
    if emb and key and ffn:
        yield {"vocab_size": emb[0], "hidden_size": emb[1], "num_hidden_layers": layers,
               "attention_hidden_size": key[0], "intermediate_size": ffn[0]}


def _rglru(shapes: Shapes, root: str, layers: int, tree: Tree) -> Iterator[dict[str, object]]:
    emb = _embedding(shapes)
    gate = _find(shapes, "mlp_block.gate_proj.weight")
    lru = _find(shapes, "temporal_block.linear_x.weight")
    conv = _find(shapes, "temporal_block.conv_1d.weight")
    if not emb or not gate:
        return
    blocks = [cls for path, cls in tree.classes if path.endswith(".temporal_block")]
    types = ["attention" if cls.endswith("Attention") else "recurrent" for cls in blocks]
    q, k = _find(shapes, "temporal_block.q_proj.weight"), _find(shapes,
                                                                "temporal_block.k_proj.weight")
    width = lru[0] if lru else emb[1]
    for heads in range(1, emb[1] + 1):
        if emb[1] % heads or width % heads:
            continue
        kv = 1
        if q is not None and k is not None:
            head_dim = emb[1] // heads
            if q[0] != heads * head_dim or k[0] % head_dim:
                continue
            kv = k[0] // head_dim
        yield {"vocab_size": emb[0], "hidden_size": emb[1], "intermediate_size": 2 * gate[0],
               "num_hidden_layers": layers, "num_attention_heads": heads,
               "num_key_value_heads": kv, "lru_width": width,
               "conv1d_width": conv[2] if conv else 4, "block_types": types,
               "attention_bias": _find(shapes, "temporal_block.q_proj.bias") is not None}


def _xlstm(shapes: Shapes, root: str, layers: int, _: Tree) -> Iterator[dict[str, object]]:
    emb = _embedding(shapes)
    q, v = _find(shapes, "0.mlstm_layer.q.weight"), _find(shapes, "0.mlstm_layer.v.weight")
    gate, up = _find(shapes, "0.mlstm_layer.igate_preact.weight"), _find(
        shapes, "0.ffn.proj_up.weight")
    if not (emb and q and v and gate and up):
        return
    width = emb[1]
    yield {"vocab_size": emb[0], "hidden_size": width, "embedding_dim": width,
           "num_blocks": layers, "num_heads": gate[0],
           "use_bias": _find(shapes, "0.mlstm_layer.q.bias") is not None,
           "qk_dim_factor": q[0] / width, "v_dim_factor": v[0] / width,
           "ffn_proj_factor": (up[0] - 0.5) / width, "ffn_round_up_to_multiple_of": up[0]}


PROPOSERS: dict[str, Proposer] = {"mamba": _mamba, "mamba2": _mamba2, "rwkv": _rwkv,
                                  "rglru": _rglru, "xlstm": _xlstm}
"""Family → the configurations a repr's shown tensors propose."""

_HEADS = ("lm_head.weight", "head.weight")


def _depth(tree: Tree) -> int:
    """The number of blocks: the indices printed (or folded) under the blocks' ModuleList."""
    found = {m.group(1) for path, _ in tree.classes
             if (m := re.search(r"(?:layers|blocks)\.([0-9]+)$", path))}
    return len(found)


@record
class Reading:
    """One configuration that fits the repr, and its count."""

    config: Any
    total: int
    tied: bool | None


def readings(tree: Tree) -> tuple[str, list[Reading]]:
    """The family and every configuration whose convention holds each tensor the repr shows."""
    from paramcount.families.registry import family

    name, built = CLASSES[tree.root]
    module = family(name)
    shapes = dict(tree.shapes)
    layers = _depth(tree)
    shown_head = any(n in shapes for n in _HEADS)
    found: list[Reading] = []
    for values in PROPOSERS[name](shapes, "", layers, tree):
        ties: tuple[bool | None, ...] = (True, False) if built == "lm" and shown_head else (None,)
        for tie in ties:
            data = {**values, **({"tie_word_embeddings": tie} if tie is not None else {})}
            try:
                config = module.from_hf_config(data)
                tensors = module.tensors(config)
            except (SpecError, ConfigError, ValueError, TypeError):
                continue
            if built == "backbone":
                tensors = [t for t in tensors if t.name not in _HEADS]
            held = {t.name: t.shape for t in tensors}
            if all(held.get(n) == s for n, s in shapes.items() if n not in _HEADS):
                found.append(Reading(config, sum(t.count for t in tensors), tie))
    return name, found


def describe(title: str, config: Any) -> str:
    """A reading as the class with the configuration's fields that are not the default."""
    from paramcount.families.registry import changed

    fields = ", ".join(f"{k}={v!r}" for k, v in changed(config).items())
    return f"{title}({fields})"


def hidden(fits: Sequence[Reading]) -> list[str]:
    """What the readings differ in, in words."""
    said = []
    if len({r.tied for r in fits}) > 1:
        said.append("whether lm_head is tied (tie_word_embeddings)")
    heads = {getattr(r.config, "num_attention_heads", None) for r in fits}
    if len(heads) > 1:
        said.append("num_attention_heads (the RG-LRU gates' blocks)")
    return said or ["the configuration"]

