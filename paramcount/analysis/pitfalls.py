"""The framework pitfalls behind wrong parameter counts posted on forums, for one spec.

Each pitfall is computed from the conventions, with the exact numbers for the configuration at
hand: the same layer in the other framework, the older Keras GRU default, the Keras merge mode,
PyTorch's proj_size. Pure: no framework is imported.

>>> from paramcount.engine.spec import Cell, LayerSpec
>>> [p.key for p in pitfalls(LayerSpec(Cell.GRU, 13, 20, framework="keras"))]
['bias', 'reset_after']
"""

from __future__ import annotations

from dataclasses import dataclass, field

from paramcount.engine import conventions
from paramcount.engine.spec import Cell, Framework, LayerSpec, MergeMode
from paramcount.errors import SpecError


@dataclass(frozen=True)
class Pitfall:
    """One way a posted count can differ from this one, with the numbers for this spec."""

    key: str
    title: str
    lines: tuple[str, ...]
    numbers: dict[str, int] = field(default_factory=dict)
    """The totals and differences quoted, for --json and tests."""
    about: tuple[Framework, ...] = ()
    """The frameworks whose behaviour it describes (two: it sets one against the other)."""


_BOTH = (Framework.TORCH, Framework.KERAS)


def _biases(spec: LayerSpec) -> int:
    return sum(t.count for t in conventions.tensors(spec) if t.role.startswith("bias"))


def _n(value: int) -> str:
    return f"{value:,}"


def _per(spec: LayerSpec) -> str:
    """``per direction and layer`` or the shorter phrase for one direction and one layer."""
    parts = []
    if spec.directions == 2:
        parts.append("direction")
    if spec.num_layers > 1:
        parts.append("layer")
    return " per " + " and ".join(parts) if parts else ""


def _factors(spec: LayerSpec) -> str:
    """``512 × 2 directions × 2 layers``: the bias gap's factors."""
    text = _n(spec.gate_rows)
    if spec.directions == 2:
        text += " × 2 directions"
    if spec.num_layers > 1:
        text += f" × {spec.num_layers} layers"
    return text


def _other(spec: LayerSpec) -> LayerSpec | None:
    """The same layer in the other framework, or None where it cannot be built there."""
    try:
        if spec.framework is Framework.TORCH:
            return spec.replace(framework=Framework.KERAS)
        return spec.replace(framework=Framework.TORCH, merge_modes=None,
                            reset_after=None if spec.reset_after else spec.reset_after)
    except SpecError:
        return None


def bias_pitfall(spec: LayerSpec) -> Pitfall | None:
    """PyTorch keeps two bias vectors per gate block, Keras one (GRU with reset_after: two)."""
    if spec.proj_size:
        return Pitfall(
            "bias",
            "PyTorch versus Keras",
            (f"Keras has no proj_size, so there is no Keras layer with these "
             f"{_n(conventions.total(spec))} parameters.",),
            about=_BOTH,
        )
    if spec.framework is Framework.KERAS and spec.cell is Cell.GRU and not spec.reset_after:
        return None  # nn.GRU cannot drop its second bias; the reset_after pitfall says it all.
    other = _other(spec)
    if other is None:
        return None
    torch, keras = (spec, other) if spec.framework is Framework.TORCH else (other, spec)
    t_total, k_total = conventions.total(torch), conventions.total(keras)
    bias_gap = _biases(torch) - _biases(keras)
    gh = spec.gate_rows
    lines: tuple[str, ...]
    if not spec.bias:
        lines = (f"Without biases the two frameworks agree: {_n(t_total)} parameters.",)
    elif spec.cell is Cell.GRU:
        lines = (
            "nn.GRU has two bias vectors per gate block (bias_ih and bias_hh), and so does "
            "Keras GRU with reset_after=True (the default since TF 2: bias shape "
            f"(2, {gh})): the biases agree, {_n(_biases(torch))} in each.",
        )
    else:
        lines = (
            f"PyTorch keeps two bias vectors per gate block (bias_ih and bias_hh, {gh} each), "
            f"Keras one ({gh},): Keras counts {_n(gh)} fewer{_per(spec)}.",
            f"PyTorch {_n(t_total)}, Keras {_n(k_total)}: Keras has {_n(bias_gap)} fewer "
            f"biases ({_factors(spec)}).",
        )
    if t_total - k_total != bias_gap:
        lines += (
            f"(The totals differ by {_n(t_total - k_total)}: PyTorch always concatenates both "
            "directions, while this Keras stack merges them with "
            f"{','.join(m.value for m in spec.merge_modes or ())}.)",
        )
    return Pitfall("bias", "PyTorch versus Keras: one bias or two", lines,
                   {"torch": t_total, "keras": k_total, "bias_difference": bias_gap}, _BOTH)


def reset_after_pitfall(spec: LayerSpec) -> Pitfall | None:
    """Keras GRU's reset_after default changed in TF 2: older counts are 3H smaller."""
    if spec.cell is not Cell.GRU or not spec.bias:
        return None
    keras = spec if spec.framework is Framework.KERAS else _other(spec)
    if keras is None:
        return None
    new, old = keras.replace(reset_after=True), keras.replace(reset_after=False)
    new_total, old_total = conventions.total(new), conventions.total(old)
    h = spec.hidden_size
    return Pitfall(
        "reset_after",
        "Keras GRU: reset_after changed default in TF 2",
        (
            "Keras GRU defaults to reset_after=True since TF 2.0 (two bias rows, like "
            "PyTorch); Keras 2 before TF 2.0 and tf.compat.v1.keras.layers.GRU default to "
            "reset_after=False (one bias row).",
            f"So older posted counts are 3H = {_n(3 * h)} smaller{_per(spec)}: "
            f"{_n(old_total)} instead of {_n(new_total)} (−{_n(new_total - old_total)}).",
        ),
        {"reset_after": new_total, "no_reset_after": old_total,
         "difference": new_total - old_total},
        (Framework.KERAS,),
    )


def merge_mode_pitfall(spec: LayerSpec) -> Pitfall | None:
    """Keras Bidirectional's merge_mode decides what the next layer reads (and its output width)."""
    if not spec.bidirectional or spec.proj_size:
        return None
    keras = spec if spec.framework is Framework.KERAS else _other(spec)
    if keras is None:
        return None
    h = spec.hidden_size
    concat = keras.replace(merge_modes=(MergeMode.CONCAT,))
    summed = keras.replace(merge_modes=(MergeMode.SUM,))
    c_total, s_total = conventions.total(concat), conventions.total(summed)
    lines = [
        "Keras Bidirectional concatenates both directions by default (merge_mode='concat', "
        f"output {2 * h} wide); 'sum', 'mul' and 'ave' give {h}, and None returns two tensors "
        "(allowed only on the last recurrent layer). PyTorch always concatenates.",
    ]
    if spec.num_layers > 1:
        lines.append(
            "The next layer's kernel follows that width: in Keras this stack counts "
            f"{_n(c_total)} with 'concat' throughout and {_n(s_total)} with 'sum' "
            f"(−{_n(c_total - s_total)})."
        )
    else:
        lines.append(
            "With one layer the count does not change, only the output width does: a Dense "
            "layer after it is twice as large after concat."
        )
    return Pitfall("merge_mode", "Keras Bidirectional merge_mode", tuple(lines),
                   {"concat": c_total, "sum": s_total}, (Framework.KERAS,))


def proj_pitfall(spec: LayerSpec) -> Pitfall | None:
    """PyTorch's proj_size: an extra (P, H) matrix, narrower outputs and h_n, an H-wide c_n."""
    if not spec.proj_size:
        return None
    p, h, d, n_layers = spec.proj_size, spec.hidden_size, spec.directions, spec.num_layers
    plain = spec.replace(proj_size=0)
    return Pitfall(
        "proj_size",
        "PyTorch proj_size",
        (
            f"Each direction of each layer adds weight_hr ({p}, {h}) and its recurrent weight "
            f"shrinks to ({spec.gate_rows}, {p}); later layers read {d}·{p} = {d * p}, not "
            f"{d}·{h}.",
            f"h_n is (D·L, N, P) = ({d * n_layers}, N, {p}) but c_n stays (D·L, N, H) = "
            f"({d * n_layers}, N, {h}); h_0 and c_0 must be shaped the same way.",
            f"Without proj_size the same stack counts {_n(conventions.total(plain))}.",
        ),
        {"without_proj": conventions.total(plain)},
        (Framework.TORCH,),
    )


def pitfalls(spec: LayerSpec, others: bool = True) -> list[Pitfall]:
    """Every pitfall that applies to ``spec``, with its numbers; without ``others``, only those
    about ``spec``'s own framework (a PyTorch question gets no Keras pitfalls).

    >>> [p.key for p in pitfalls(LayerSpec(Cell.GRU, 13, 20, num_layers=2), others=False)]
    []
    """
    if spec.framework not in (Framework.TORCH, Framework.KERAS):
        return []  # These pitfalls set PyTorch against Keras; ONNX, Flax and TF1 have none here.
    found = [bias_pitfall(spec), reset_after_pitfall(spec), merge_mode_pitfall(spec),
             proj_pitfall(spec)]
    return [p for p in found
            if p is not None and (others or p.about == (spec.framework,))]
