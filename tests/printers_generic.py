"""Printers paramcount has no dialect of, run at test time: fvcore's ``parameter_count_table``
and ``flop_count_table``, ptflops' per-layer print, torchscan's ``summary``, and the everyday
listings (``print(n, p.shape, p.requires_grad)``, a state dict printed as a dict, a state
dict's ``k, v.shape`` with BatchNorm's buffers).

Used by ``tests/test_read_generic.py`` and ``benchmarks/read_accuracy.py``.
"""

from __future__ import annotations

import contextlib
import copy
import io
import warnings
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from tests.printers import Paste, TorchPlan, build_torch


def fvcore_parameters(net: Any, depth: int = 3) -> str:
    """fvcore's ``parameter_count_table(net, max_depth=depth)``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # fvcore's import scripts a function: deprecated
        from fvcore.nn import parameter_count_table

        return str(parameter_count_table(net, max_depth=depth)) + "\n"


def fvcore_flops(net: Any, example: Any) -> str:
    """fvcore's ``flop_count_table`` of ``net`` run on ``example``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fvcore.nn import FlopCountAnalysis, flop_count_table

        analysis = FlopCountAnalysis(net, example)
        analysis.unsupported_ops_warnings(False)
        analysis.uncalled_modules_warnings(False)
        analysis.tracer_warnings("none")
        return str(flop_count_table(analysis)) + "\n"


def ptflops_text(net: Any, example: Any) -> str:
    """ptflops' per-layer print (``print_per_layer_stat=True``) of ``net`` on ``example``'s
    shape."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import ptflops

    out = io.StringIO()
    shape = tuple(example.shape[1:])
    dtype = example.dtype

    def make(size: tuple[int, ...]) -> Any:
        import torch

        return torch.zeros((1, *size), dtype=dtype)

    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        ptflops.get_model_complexity_info(net, shape, input_constructor=make,
                                          print_per_layer_stat=True, as_strings=True,
                                          ost=out, verbose=False, backend="pytorch")
    return out.getvalue()


def torchscan_text(net: Any, example: Any, depth: int = 1) -> str:
    """torchscan's ``summary`` of ``net`` on ``example``'s shape, ``max_depth`` ``depth``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import torchscan

    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()) as out:
        warnings.simplefilter("ignore")
        torchscan.summary(net, tuple(example.shape[1:]), max_depth=depth)
    return out.getvalue()


LISTINGS: dict[str, Callable[[str, Any], str]] = {
    "print(n, p.shape, p.requires_grad)": lambda n, p: f"{n} {p.shape} {p.requires_grad}",
    "print(n, p.size(), p.dtype, p.device)": lambda n, p: f"{n} {p.size()} {p.dtype} {p.device}",
    "print(n, list(p.shape), p.requires_grad)": lambda n, p: f"{n} {list(p.shape)} "
                                                             f"{p.requires_grad}",
    "print(f'{n} shape={tuple(p.shape)} dtype={p.dtype}')": lambda n, p: (
        f"{n} shape={tuple(p.shape)} dtype={p.dtype}"),
    "print(f'{n}: {p.shape}, requires_grad={p.requires_grad}')": lambda n, p: (
        f"{n}: {p.shape}, requires_grad={p.requires_grad}"),
}
"""Listings with columns after the shape, as loops over ``named_parameters()`` print them."""


def listing_text(net: Any, style: str) -> str:
    """``net.named_parameters()`` printed by the loop ``style`` names."""
    return "\n".join(LISTINGS[style](n, p) for n, p in net.named_parameters()) + "\n"


def requires_grad_text(net: Any) -> str:
    """``for n, p in net.named_parameters(): print(n, p.shape, p.requires_grad)``."""
    return listing_text(net, "print(n, p.shape, p.requires_grad)")


def dict_text(net: Any) -> str:
    """``print({k: v.shape for k, v in net.state_dict().items()})``: buffers too."""
    return str({k: v.shape for k, v in net.state_dict().items()}) + "\n"


def flax_shapes_text(variables: Any, eval_shape: bool) -> str:
    """A linen model's variables as JAX prints their shapes: ``jax.tree.map(lambda x:
    x.shape, variables)`` (nested dicts of tuples), or ``jax.eval_shape`` (nested dicts of
    ``ShapeDtypeStruct(shape=..., dtype=...)``)."""
    import jax

    if eval_shape:
        return str(jax.eval_shape(lambda: variables)) + "\n"
    return str(jax.tree.map(lambda x: x.shape, variables)) + "\n"


def count_parameters_text(net: Any) -> str:
    """The ``count_parameters`` every forum answer gives: a prettytable of each trainable
    tensor's count, and the total under it."""
    from prettytable import PrettyTable

    table = PrettyTable(["Modules", "Parameters"])
    total_params = 0
    for name, parameter in net.named_parameters():
        if not parameter.requires_grad:
            continue
        params = parameter.numel()
        table.add_row([name, params])
        total_params += params
    return f"{table}\nTotal Trainable Params: {total_params}\n"


TABULATE = ("grid", "simple", "github", "psql", "pipe", "fancy_grid", "rounded_outline",
            "heavy_grid", "plain", "plain-shapes", "plain (shapes)", "rich")
"""tabulate's table formats a post prints a parameter table in (``plain-shapes``: the
``simple`` format with a shape column beside the count; ``plain (shapes)``: the ``plain``
format, no rule under its header, with one; ``rich``: a rich ``Table`` of names, shapes and
counts, in its box characters)."""


def tabulate_text(net: Any, style: str) -> str:
    """``tabulate`` of ``net``'s tensors: names and counts in ``style``, or names, shapes and
    counts (``plain-shapes``)."""
    from tabulate import tabulate

    if style == "rich":
        import rich.console
        import rich.table

        table = rich.table.Table("Name", "Shape", "Params")
        for name, p in net.named_parameters():
            table.add_row(name, str(tuple(p.shape)), f"{p.numel():,}")
        console = rich.console.Console(file=io.StringIO(), width=120, color_system=None)
        console.print(table)
        return str(console.file.getvalue())
    if style in ("plain-shapes", "plain (shapes)"):
        return tabulate([(n, tuple(p.shape), p.numel()) for n, p in net.named_parameters()],
                        headers=["name", "shape", "params"],
                        tablefmt="simple" if style == "plain-shapes" else "plain") + "\n"
    return tabulate([(n, p.numel()) for n, p in net.named_parameters()],
                    headers=["name", "params"], tablefmt=style) + "\n"


def state_text(net: Any) -> str:
    """``for k, v in net.state_dict().items(): print(k, v.shape)``: buffers too."""
    return "\n".join(f"{k} {v.shape}" for k, v in net.state_dict().items()) + "\n"


def torch_generic_pastes(plan: TorchPlan, draw: Callable[[st.SearchStrategy[Any]], Any]
                         ) -> list[Paste]:
    """Every generic form's paste of ``plan``'s model: fvcore's two tables, ptflops' print,
    torchscan's summary, prettytable's ``count_parameters`` and a tabulate table, the
    listings with more columns and as a dict."""
    net, truth, example = build_torch(plan)
    style = draw(st.sampled_from(sorted(LISTINGS)))
    pastes = [Paste("fvcore parameter_count_table", fvcore_parameters(net, 99), truth),
              Paste("named_parameters() with more columns", listing_text(net, style), truth),
              Paste("state_dict() printed as a dict", dict_text(net), truth)]
    pastes.append(Paste("count_parameters (prettytable)", count_parameters_text(net), truth))
    table = draw(st.sampled_from(TABULATE))
    label = "rich Table" if table == "rich" else f"tabulate ({table})"
    pastes.append(Paste(label, tabulate_text(net, table), truth))
    if draw(st.booleans()):
        with contextlib.suppress(Exception):  # a model fvcore's tracer cannot run
            pastes.append(Paste("fvcore flop_count_table", fvcore_flops(net, example), truth))
    with contextlib.suppress(Exception):  # a module ptflops cannot run
        pastes.append(Paste("ptflops per-layer print", ptflops_text(net, example), truth))
    with contextlib.suppress(Exception):  # a module torchscan cannot run
        pastes.append(Paste("torchscan summary", torchscan_text(net, example), truth))
    return pastes + module_listing_pastes(net, truth, draw)


def module_listing_pastes(net: Any, truth: Any, draw: Callable[[st.SearchStrategy[Any]], Any]
                          ) -> list[Paste]:
    """The forms beside ``print(model)``: a listing of the model's modules (``named_modules()``
    or ``named_children()`` looped, ``modules()`` or ``named_modules()`` as a list), and the
    repr of the model wrapped (``torch.compile``) or dynamically quantized."""
    import torch

    out = io.StringIO()
    form = draw(st.sampled_from(["named_modules", "named_children"]))
    with contextlib.redirect_stdout(out):
        for name, module in getattr(net, form)():
            print(name, module)
    listed = draw(st.sampled_from(["modules", "named_modules"]))
    with warnings.catch_warnings():  # torch's deprecation warnings, not paramcount's
        warnings.simplefilter("ignore")
        compiled = repr(torch.compile(net))
    pastes = [Paste(f"{form}() printed in a loop", out.getvalue(), truth),
              Paste(f"list(model.{listed}())", repr(list(getattr(net, listed)())), truth),
              Paste("torch.compile(model) repr", compiled, truth)]
    if any(getattr(module, "proj_size", 0) for module in net.modules()):
        return pastes  # torch's quantized LSTM keeps no projection, and its repr shows none
    with warnings.catch_warnings(), contextlib.suppress(Exception):  # torch's deprecation
        warnings.simplefilter("ignore")
        quantized = torch.ao.quantization.quantize_dynamic(
            copy.deepcopy(net), {torch.nn.LSTM, torch.nn.GRU, torch.nn.Linear})
        pastes.append(Paste("quantize_dynamic(model) repr", repr(quantized), truth))
    return pastes
