"""minGRU and minLSTM as mingru-pytorch builds them: ``minGRU(dim, expansion_factor, proj_out)``.

The minimal recurrent layers of "Were RNNs All We Needed?" (Feng et al., 2024): no recurrent
weights at all. minGRU holds one bias-free projection from ``dim`` to a hidden state and an
update gate, 2·dim_inner rows with dim_inner = int(dim·expansion_factor); minLSTM one to a hidden
state, a forget and an input gate, 3·dim_inner rows. ``to_out`` projects back to ``dim`` (no
bias) when ``proj_out``, which defaults to ``expansion_factor != 1``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from paramcount.engine.conventions.base import Formula, Symbol, Tensor
from paramcount.engine.conventions.recognition import Shapes, is_shape
from paramcount.errors import SpecError
from paramcount.families.family import RecognisedModel
from paramcount.families.parts import (
    booleans,
    exact,
    factor,
    factor_for,
    linear,
    sizes,
)
from paramcount.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from paramcount.families.state import LayerState

NAME = "mingru"
TITLE = "minGRU / minLSTM (mingru-pytorch)"
REFERENCE = "mingru-pytorch minGRU"


@record
class MinGRUConfig:
    """``minGRU(dim, expansion_factor=1., proj_out=None)`` (``minLSTM`` with ``use_lstm``).

    The reference has no default ``dim``; 512 is its README's example.
    """

    dim: int = 512
    expansion_factor: float = 1.0
    proj_out: bool | None = None
    use_lstm: bool = False

    def __post_init__(self) -> None:
        sizes(self, "dim")
        factor("expansion_factor", self.expansion_factor)
        booleans(self, "use_lstm", *(("proj_out",) if self.proj_out is not None else ()))
        if self.dim_inner < 1:
            raise SpecError("{expansion_factor} leaves no inner width: int(dim·expansion_factor)"
                            " is 0", expansion_factor=self.expansion_factor)

    @property
    def hidden_size(self) -> int:
        """The width the layer reads and writes: ``dim``."""
        return self.dim

    @property
    def dim_inner(self) -> int:
        """``int(dim * expansion_factor)``."""
        return int(self.dim * self.expansion_factor)

    @property
    def projects(self) -> bool:
        """Whether there is a ``to_out`` projection: proj_out, or expansion_factor != 1."""
        return self.expansion_factor != 1 if self.proj_out is None else self.proj_out

    @property
    def gates(self) -> int:
        """Rows per inner feature of the input projection: 2 for minGRU, 3 for minLSTM."""
        return 3 if self.use_lstm else 2


Config = MinGRUConfig

ALIASES: dict[str, tuple[str, ...]] = {"dim": ("--d-model",)}
"""Names people use for this family's options beside ``--field-name``."""


def projection_name(use_lstm: bool) -> str:
    """The input projection's name: ``to_hidden_and_gate`` or ``to_hidden_and_f_i_gate``."""
    return "to_hidden_and_f_i_gate" if use_lstm else "to_hidden_and_gate"


def layer_tensors(config: MinGRUConfig, layer: int = 0, prefix: str = "") -> list[Tensor]:
    """The layer's tensors under ``prefix``."""
    d, di = config.dim, config.dim_inner
    out = linear(f"{prefix}{projection_name(config.use_lstm)}.", config.gates * di, d, False,
                 layer)
    if config.projects:
        out += linear(prefix + "to_out.", d, di, False, layer, width=d)
    return out


def tensors(config: MinGRUConfig) -> list[Tensor]:
    """Every parameter of the layer, as its named_parameters() lists them."""
    return layer_tensors(config)


def state(config: MinGRUConfig) -> tuple[LayerState, ...]:
    """What the layer keeps between tokens: its last hidden state, dim_inner wide
    (``return_next_prev_hidden``), in the model's dtype."""
    from paramcount.families.state import LayerState, Piece

    kind = "minlstm" if config.use_lstm else "mingru"
    return (LayerState(0, kind, (Piece("hidden", fixed=config.dim_inner),)),)


def formula(config: MinGRUConfig) -> Formula:
    """G·Di·d + p·d·Di: G = 2 (minGRU) or 3 (minLSTM), p = 1 with the output projection."""
    g, d, di, p = config.gates, config.dim, config.dim_inner, int(config.projects)
    symbols = (
        Symbol("G", g, "projected blocks: hidden and gate (minGRU 2), hidden, f and i (minLSTM 3)"),
        Symbol("d", d, "dim"),
        Symbol("Di", di, f"inner width, int(d·expansion_factor) = int({d:,}·"
                         f"{config.expansion_factor})"),
        Symbol("p", p, "1 with the to_out projection (proj_out, by default expansion_factor ≠ 1)"),
    )
    return Formula("G·Di·d + p·d·Di", symbols,
                   ((f"{g}·{di}·{d}", g * di * d), (f"{p}·{d}·{di}", p * d * di)))


def from_hf_config(data: Mapping[str, object]) -> MinGRUConfig:
    """The layer's keyword arguments (``dim``, ``expansion_factor``, ``proj_out``, and
    ``use_lstm`` for minLSTM), with the constructor's defaults (``dim`` the command's, as the
    reference has none)."""
    return MinGRUConfig(
        dim=data.get("dim", 512),  # type: ignore[arg-type]
        expansion_factor=data.get("expansion_factor", 1.0),  # type: ignore[arg-type]
        proj_out=data.get("proj_out"),  # type: ignore[arg-type]
        use_lstm=data.get("use_lstm", False),  # type: ignore[arg-type]
    )


_PROJECTION = re.compile(r"(?P<prefix>.*?)(?P<name>to_hidden_and_gate|to_hidden_and_f_i_gate)"
                         r"\.weight")


def recognise(shapes: Shapes) -> list[RecognisedModel]:
    """Every minGRU / minLSTM layer among ``shapes`` (its projection, and ``to_out`` if any)."""
    found = []
    for name, shape in shapes.items():
        match = _PROJECTION.fullmatch(name)
        if match and is_shape(shape, 2):
            config = read_layer(shapes, match["prefix"], match["name"], shape)
            if config is None:
                continue
            names = exact(shapes, match["prefix"], (match["name"] + ".", "to_out."),
                          tensors(config))
            if names is not None:
                found.append(RecognisedModel(match["prefix"], NAME, config, names, NOTES))
    return found


NOTES = ("expansion_factor is not stored, only the inner width int(dim·expansion_factor) it "
         "gives; proj_out is read from whether to_out is there",)


def read_layer(shapes: Shapes, prefix: str, name: str, shape: tuple[int, ...]) -> (
    MinGRUConfig | None
):
    """The layer config whose projection at ``prefix + name`` has ``shape``, or None."""
    lstm = name == "to_hidden_and_f_i_gate"
    gates = 3 if lstm else 2
    if len(shape) != 2:  # a damaged file: a projection is a matrix
        return None
    rows, d = shape
    if rows % gates:
        return None
    di = rows // gates
    has_out = f"{prefix}to_out.weight" in shapes
    try:
        expansion = factor_for(di, d, lambda f: int(d * f), 1.0)
        proj_out = None if has_out == (expansion != 1) else has_out
        return MinGRUConfig(dim=d, expansion_factor=expansion, proj_out=proj_out, use_lstm=lstm)
    except (SpecError, OverflowError):  # OverflowError: beyond the floats minGRU sizes with
        return None
