"""Printers found in the package lists after the first round (issue 36, item 2), run at test
time: haiku's ``hk.experimental.tabulate``, and the table libraries of ``count_parameters``
snippets (texttable, terminaltables).

Used by ``tests/test_read_printers_found.py`` and ``benchmarks/read_accuracy.py``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from tests.printers import Paste, TorchPlan, Truth, build_torch, torch_plans

HAIKU_CORES = ("LSTM", "GRU", "VanillaRNN")


@dataclass(frozen=True)
class HaikuPlan:
    """A haiku model as data: input width, time steps, recurrent cores ``(class, H)`` run by
    ``dynamic_unroll`` or ``static_unroll`` (one call per step), then a Linear."""

    width: int
    steps: int
    cores: tuple[tuple[str, int], ...]
    static: bool
    out: int


@st.composite
def haiku_plans(draw: st.DrawFn) -> HaikuPlan:
    """A random haiku model: one to three cores, each unrolled over 1 to 6 steps."""
    cores = tuple((draw(st.sampled_from(HAIKU_CORES)), draw(st.integers(1, 12)))
                  for _ in range(draw(st.integers(1, 3))))
    return HaikuPlan(draw(st.integers(1, 12)), draw(st.integers(1, 6)), cores,
                     draw(st.booleans()), draw(st.integers(1, 8)))


def haiku_paste(plan: HaikuPlan) -> Paste:
    """``hk.experimental.tabulate`` of ``plan``'s model, with its truth from the initialised
    parameters (haiku's cells are counted as tensors: paramcount models no haiku convention,
    so the truth names no recurrent layer)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import haiku as hk
        import jax
        import jax.numpy as jnp

    def forward(x: Any) -> Any:
        """Every core in order, unrolled over the time axis, then the Linear."""
        for kind, size in plan.cores:
            core = getattr(hk, kind)(size)
            unroll = hk.static_unroll if plan.static else hk.dynamic_unroll
            x, _ = unroll(core, x, core.initial_state(2), time_major=False)
        return hk.Linear(plan.out)(x)

    example = jnp.zeros((2, plan.steps, plan.width))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = hk.transform(forward)
        params = model.init(jax.random.PRNGKey(0), example)
        text = hk.experimental.tabulate(model)(example)
    total = sum(int(leaf.size) for leaf in jax.tree.leaves(params))
    return Paste("haiku tabulate", text + "\n", Truth((), (), total))


TABLES = ("texttable", "texttable-shapes", "texttable-header", "texttable-header-shapes",
          "texttable-vlines", "texttable-vlines-shapes", "AsciiTable", "AsciiTable-shapes",
          "DoubleTable", "SingleTable", "GithubFlavoredMarkdownTable")
"""The ``count_parameters`` snippet drawn by texttable (``Texttable()``'s default decoration;
``-header``: ``set_deco(Texttable.HEADER)``; ``-vlines``: ``HEADER | VLINES``) and
terminaltables' tables; ``-shapes``: a shape column between the name and the count."""

_DEC = str.maketrans("lqwkxtnumvj", "┌─┬┐│├┼┤└┴┘")
"""The DEC line-drawing characters terminaltables' ``SingleTable`` selects with ``ESC ( 0``,
as a terminal draws them (and as they are copied from it)."""


def table_text(net: Any, style: str) -> str:
    """``net``'s trainable tensors as the ``count_parameters`` snippet prints them with the
    table library ``style`` names, and the total under the table."""
    shapes = style.endswith("-shapes")
    head = ["Name", "Shape", "Params"] if shapes else ["Modules", "Parameters"]
    rows = [[n, str(tuple(p.shape)), str(p.numel())] if shapes else [n, str(p.numel())]
            for n, p in net.named_parameters() if p.requires_grad]
    total = sum(p.numel() for p in net.parameters() if p.requires_grad)
    if style.startswith("texttable"):
        from texttable import Texttable

        table = Texttable()
        if "-header" in style:
            table.set_deco(Texttable.HEADER)
        elif "-vlines" in style:
            table.set_deco(Texttable.HEADER | Texttable.VLINES)
        table.header(head)
        table.add_rows(rows, header=False)
        text = table.draw()
    else:
        import terminaltables

        text = getattr(terminaltables, style.removesuffix("-shapes"))([head, *rows]).table
        if style == "SingleTable":  # ESC ( 0 ... ESC ( B: as the terminal shows it
            text = "".join(part[1:].translate(_DEC) if part.startswith("0") else part[1:]
                           for part in ("B" + text).split("\x1b("))
    return f"{text}\nTotal Trainable Params: {total}\n"


def deepspeed_text(net: Any, example: Any) -> str:
    """DeepSpeed's flops profiler (``get_model_profile(..., print_profile=True,
    detailed=True)``) of ``net`` run on ``example``: its summary, then the model's repr with
    its figures first in each module's brackets."""
    import contextlib
    import io

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from deepspeed.profiling.flops_profiler import get_model_profile

    out = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(out):
        warnings.simplefilter("ignore")
        get_model_profile(net, args=[example], print_profile=True, detailed=True,
                          as_string=True)
    return out.getvalue()


def torchtnt_text(net: Any, example: Any, exact: bool) -> str:
    """torchtnt's ``get_module_summary(net, module_args=(example,))`` as ``print`` shows it
    (counts rounded, ``6.4 K``), or ``get_summary_table(..., human_readable_nums=False)``
    (``exact``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its version module imports pkg_resources: deprecated
        from torchtnt.utils.module_summary import get_module_summary, get_summary_table

        summary = get_module_summary(net, module_args=(example,))
        return get_summary_table(summary, human_readable_nums=not exact) + "\n"


def torch_found_pastes(plan: TorchPlan, draw: Callable[[st.SearchStrategy[Any]], Any]
                       ) -> list[Paste]:
    """The found printers' pastes of ``plan``'s torch model: a table library's
    ``count_parameters`` table, and DeepSpeed's profile and torchtnt's module summary where
    they run the model."""
    import contextlib

    net, truth, example = build_torch(plan)
    style = draw(st.sampled_from(TABLES))
    pastes = [Paste(style.removesuffix("-shapes") + (" (shapes)" if style.endswith("-shapes")
                                                     else ""), table_text(net, style), truth)]
    with contextlib.suppress(Exception):  # a model DeepSpeed's profiler cannot run
        pastes.append(Paste("DeepSpeed flops profiler", deepspeed_text(net, example), truth))
    exact = draw(st.booleans())
    with contextlib.suppress(Exception):  # a model torchtnt cannot run
        pastes.append(Paste("torchtnt module summary" + (" (exact counts)" if exact else ""),
                            torchtnt_text(net, example, exact), truth))
    return pastes


EQUINOX_CELLS = ("LSTMCell", "GRUCell")


@dataclass(frozen=True)
class EquinoxPlan:
    """An equinox model as data: input width, cells ``(class, H, use_bias)``, then an MLP
    head (a tuple of Linears) of ``depth`` hidden layers; printed by ``tree_pprint`` or
    ``print``."""

    width: int
    cells: tuple[tuple[str, int, bool], ...]
    depth: int
    pprint: bool


@st.composite
def equinox_plans(draw: st.DrawFn) -> EquinoxPlan:
    """A random equinox model: one to three cells, with or without biases, and a head."""
    cells = tuple((draw(st.sampled_from(EQUINOX_CELLS)), draw(st.integers(1, 12)),
                   draw(st.booleans())) for _ in range(draw(st.integers(1, 3))))
    return EquinoxPlan(draw(st.integers(1, 12)), cells, draw(st.integers(0, 2)),
                       draw(st.booleans()))


def equinox_paste(plan: EquinoxPlan) -> Paste:
    """``eqx.tree_pprint`` (or ``print``) of ``plan``'s model, with its truth: every array
    ``eqx.filter(model, eqx.is_array)`` keeps (equinox's cells are counted as tensors, so the
    truth names no recurrent layer)."""
    import contextlib
    import io

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import equinox as eqx
        import jax

    keys = iter(jax.random.split(jax.random.PRNGKey(0), len(plan.cells) + 1))
    cells, width = [], plan.width
    for kind, size, bias in plan.cells:
        cells.append(getattr(eqx.nn, kind)(width, size, use_bias=bias, key=next(keys)))
        width = size

    class Net(eqx.Module):  # type: ignore[misc]
        """The cells in a list, then the MLP head."""

        cells: list[Any]
        head: Any

    model = Net(cells, eqx.nn.MLP(width, 3, 4, plan.depth, key=next(keys)))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        if plan.pprint:
            eqx.tree_pprint(model)
        else:
            print(model)
    total = sum(int(leaf.size) for leaf in jax.tree.leaves(eqx.filter(model, eqx.is_array)))
    return Paste("equinox tree_pprint" if plan.pprint else "equinox print(model)",
                 out.getvalue(), Truth((), (), total))


def found_pastes(draw: Callable[[st.SearchStrategy[Any]], Any]) -> list[Paste]:
    """Every found printer's paste of random models: haiku's ``tabulate`` of a haiku model,
    equinox's print of an equinox model, then the torch printers' of a torch model."""
    return [haiku_paste(draw(haiku_plans())), equinox_paste(draw(equinox_plans())),
            *torch_found_pastes(draw(torch_plans()), draw)]
