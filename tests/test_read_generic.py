"""The generic readers under the printers (issue 36, items 1 and 2): tables, listings and reprs
of printers paramcount has no dialect of, each printed by the real tool at test time."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from paramcount.engine.spec import Cell, LayerSpec
from paramcount.reading.pipeline import read
from paramcount.reading.reprs.generic import arguments, figures_only
from paramcount.reading.solve import same_configuration as same
from paramcount.reading.tables.generic import approximate
from tests.conftest import have
from tests.printers import Score, check, torch_plans
from tests.printers_generic import (
    LISTINGS,
    TABULATE,
    count_parameters_text,
    dict_text,
    flax_shapes_text,
    fvcore_flops,
    fvcore_parameters,
    listing_text,
    ptflops_text,
    requires_grad_text,
    state_text,
    tabulate_text,
    torch_generic_pastes,
    torchscan_text,
)

pytest.importorskip("torch")

GRU = LayerSpec(Cell.GRU, 32, 64)
LSTM = LayerSpec(Cell.LSTM, 16, 32)


def _gru_net() -> tuple[Any, Any]:
    """The issue's shape: a GRU(32, 64) and a Linear(64, 10), 19,466 parameters."""
    import torch
    from torch import nn

    class Net(nn.Module):
        """A GRU read at its last step, then a Linear."""

        def __init__(self) -> None:
            super().__init__()
            self.gru = nn.GRU(32, 64, batch_first=True)
            self.fc = nn.Linear(64, 10)

        def forward(self, x: Any) -> Any:
            """The GRU's last step through the Linear."""
            return self.fc(self.gru(x)[0][:, -1])

    return Net(), torch.zeros(1, 20, 32)


def _norm_net() -> tuple[Any, Any]:
    """A Conv1d, a BatchNorm1d (two parameters and three buffers) and an LSTM(16, 32)."""
    import torch
    from torch import nn

    class Net(nn.Module):
        """Convolution, norm, then the LSTM over the time axis."""

        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv1d(4, 16, 3)
            self.bn = nn.BatchNorm1d(16)
            self.lstm = nn.LSTM(16, 32, batch_first=True)

        def forward(self, x: Any) -> Any:
            """The LSTM reads the normed convolution's channels."""
            return self.lstm(self.bn(self.conv(x)).transpose(1, 2))[0]

    return Net(), torch.zeros(1, 4, 20)


def _only(text: str, source: str) -> Any:
    """The answer's one model from ``source``, and that answer has no disagreement."""
    answer = read(text)
    found = [m for m in answer.models if m.source == source]
    assert len(found) == 1, [(m.source, m.name) for m in answer.models]
    assert not answer.disagreements
    return found[0]


def _total(net: Any) -> int:
    """The framework's own count."""
    return sum(p.numel() for p in net.parameters())


# -- tensor listings --------------------------------------------------------------------------

@pytest.mark.parametrize("printer", [requires_grad_text, dict_text, state_text],
                         ids=["n-shape-requires_grad", "dict-literal", "k-v.shape"])
@pytest.mark.parametrize("build", [_gru_net, _norm_net], ids=["gru", "batchnorm"])
def test_listings_read_exact(printer: Any, build: Any) -> None:
    """``print(n, p.shape, p.requires_grad)``, a state dict printed as a dict and its ``k,
    v.shape`` lines give the framework's exact total, the recurrent layer's configuration,
    and no buffer counted."""
    net, _ = build()
    model = _only(printer(net), "shapes")
    assert model.total == _total(net)
    (layer,) = [layer for layer in model.layers if layer.recurrent]
    assert layer.spec is not None and same(layer.spec, GRU if build is _gru_net else LSTM)


@pytest.mark.parametrize("style", sorted(LISTINGS))
def test_listing_columns_after_the_shape(style: str) -> None:
    """Every loop's columns after the shape (``requires_grad``, dtype, device, ``shape=``)
    are read past: the exact total and configuration."""
    net, _ = _norm_net()
    model = _only(listing_text(net, style), "shapes")
    assert model.total == _total(net)
    (layer,) = [layer for layer in model.layers if layer.recurrent]
    assert layer.spec is not None and same(layer.spec, LSTM)


@pytest.mark.skipif(not (have("jax") and have("flax")), reason="needs jax and flax")
@pytest.mark.parametrize("eval_shape", [False, True], ids=["tree.map-shape", "eval_shape"])
def test_jax_parameter_tree_shapes(eval_shape: bool) -> None:
    """A linen model's parameter tree printed as JAX prints its shapes (nested dicts) is read
    with each key path joined as the tree's path: the exact total and the cell's count."""
    import jax
    import jax.numpy as jnp
    from flax import linen

    class Net(linen.Module):
        """An RNN over an LSTMCell(32), then a Dense(10)."""

        @linen.compact
        def __call__(self, x: Any) -> Any:
            """The cell over time, then the Dense."""
            return linen.Dense(10)(linen.RNN(linen.LSTMCell(32))(x))

    variables = Net().init(jax.random.PRNGKey(0), jnp.zeros((1, 5, 8)))
    truth = sum(x.size for x in jax.tree.leaves(variables))
    model = _only(flax_shapes_text(variables, eval_shape), "shapes")
    assert model.total == truth
    (layer,) = [layer for layer in model.layers if layer.recurrent]
    assert layer.params == 4 * 32 * (8 + 32) + 4 * 32


def test_batchnorm_buffers_shown_never_counted() -> None:
    """The issue's case: a state dict's BatchNorm buffers are named in a note and left out of
    the total (6,640 parameters, 6,673 values in the state dict)."""
    net, _ = _norm_net()
    text = state_text(net)
    assert "running_mean" in text and "num_batches_tracked" in text
    model = _only(text, "shapes")
    values = sum(v.numel() for v in net.state_dict().values())
    assert model.total == _total(net) == 6_640 != values
    assert any("bn.running_mean" in note and "not counted" in note for note in model.notes)


def test_sequential_names_start_with_a_digit() -> None:
    """A ``Sequential``'s state dict (``0.weight``, ``1.running_mean``) is read too."""
    from torch import nn

    net = nn.Sequential(nn.Conv1d(4, 16, 3), nn.BatchNorm1d(16), nn.LSTM(16, 32))
    model = _only(state_text(net), "shapes")
    assert model.total == _total(net)


def test_dict_literal_over_several_lines_and_cut() -> None:
    """pprint's dict over several lines is read whole; cut before its closing brace, it is
    named cut and no total is claimed."""
    import pprint

    net, _ = _norm_net()
    text = pprint.pformat({k: v.shape for k, v in net.state_dict().items()}, width=60) + "\n"
    assert text.count("\n") > 3
    assert _only(text, "shapes").total == _total(net)
    cut = "\n".join(text.splitlines()[:-1]) + "\n"
    model = _only(cut, "shapes")
    assert model.total is None and model.accounting.cropped


# -- fvcore's tables ---------------------------------------------------------------------------

needs_fvcore = pytest.mark.skipif(not have("fvcore"), reason="needs fvcore")


@needs_fvcore
@pytest.mark.parametrize("table", ["parameter_count_table", "flop_count_table"])
@pytest.mark.parametrize("build", [_gru_net, _norm_net], ids=["gru", "batchnorm"])
def test_fvcore_tables(table: str, build: Any) -> None:
    """fvcore's Markdown tables are read as the tensors they list: the exact total, the
    recurrent layer's configuration, and a note saying how the table was read."""
    net, example = build()
    text = fvcore_parameters(net) if table == "parameter_count_table" else fvcore_flops(
        net, example)
    model = _only(text, "shapes")
    assert model.total == _total(net)
    (layer,) = [layer for layer in model.layers if layer.recurrent]
    assert layer.spec is not None and same(layer.spec, GRU if build is _gru_net else LSTM)
    assert any(note.startswith("read as a table: ") for note in model.notes)


@needs_fvcore
def test_fvcore_table_cut_at_its_depth_is_a_bound() -> None:
    """At ``max_depth=1`` fvcore prints modules' rounded counts without their tensors: no
    exact total is claimed, and the rows are named."""
    net, _ = _gru_net()
    answer = read(fvcore_parameters(net, 1))
    assert all(m.total is None for m in answer.models)
    assert any("rounded" in u.reason for m in answer.models for u in m.accounting.unread)


@needs_fvcore
def test_fvcore_table_missing_a_row_is_named() -> None:
    """A tensor's row taken out of fvcore's table: the tensors left do not add up to their
    module's printed count, so the table is named cut."""
    net, _ = _gru_net()
    text = fvcore_parameters(net)
    kept = "".join(line for line in text.splitlines(True) if "weight_hh_l0" not in line)
    model = _only(kept, "shapes")
    assert model.total is None
    assert any("a row is missing" in c for c in model.accounting.cropped)


# -- tables of tensors' counts ------------------------------------------------------------------

def _lstm_net() -> Any:
    """An embedding, a 2-layer bidirectional LSTM(16, 32) and a Linear: 39,813 parameters."""
    from torch import nn

    class Net(nn.Module):
        """Embedding, LSTM, Linear."""

        def __init__(self) -> None:
            super().__init__()
            self.emb = nn.Embedding(100, 16)
            self.lstm = nn.LSTM(16, 32, num_layers=2, bidirectional=True)
            self.fc = nn.Linear(64, 5)

    return Net()


STACK = LayerSpec(Cell.LSTM, 16, 32, num_layers=2, bidirectional=True)


@pytest.mark.skipif(not have("prettytable"), reason="needs prettytable")
def test_count_parameters_prettytable() -> None:
    """The forum's ``count_parameters`` (a prettytable of each tensor's count, ``Total
    Trainable Params`` under it): the exact total, and the LSTM's configuration read from its
    tensors' counts."""
    net = _lstm_net()
    text = count_parameters_text(net)
    model = _only(text, "counts")
    assert model.total == model.printed_total == _total(net)
    (layer,) = [layer for layer in model.layers if layer.recurrent]
    assert layer.spec is not None and same(layer.spec, STACK)


@pytest.mark.skipif(not have("prettytable"), reason="needs prettytable")
def test_count_parameters_with_a_row_cut_is_named() -> None:
    """A row cut from the table: its rows no longer add up to the total under it."""
    net = _lstm_net()
    text = "".join(line for line in count_parameters_text(net).splitlines(True)
                   if "fc.weight" not in line)
    model = _only(text, "counts")
    assert model.total is None
    assert any("a row is missing" in c for c in model.accounting.cropped)


@pytest.mark.skipif(not have("tabulate"), reason="needs tabulate")
@pytest.mark.parametrize("style", TABULATE)
def test_tabulate_tables(style: str) -> None:
    """tabulate's formats (bordered, Markdown, plain over dash groups; counts alone or beside
    shapes) give the exact total and the LSTM's configuration."""
    net = _lstm_net()
    answer = read(tabulate_text(net, style))
    (model,) = answer.models
    assert model.total == _total(net)
    (layer,) = [layer for layer in model.layers if layer.recurrent]
    assert layer.spec is not None and same(layer.spec, STACK)


@pytest.mark.skipif(not have("tabulate"), reason="needs tabulate")
@pytest.mark.parametrize("style", ["simple", "plain", "plain-shapes", "plain (shapes)"])
@pytest.mark.parametrize("build", ["sequential", "wide"])
def test_a_space_aligned_table_printed_twice_is_two_printouts(style: str, build: str) -> None:
    """tabulate's space-aligned formats (over dash groups, or ``plain``: nothing under the
    header) printed twice, one right after the other, are two tables each read whole: the
    header again ends the first. ``sequential``: nn.Sequential's tensor names start with a
    digit (``0.weight``); ``wide``: a count wider than its right-aligned title."""
    import torch.nn as nn

    net = (nn.Sequential(nn.Conv1d(1, 2, 2), nn.LSTM(3, 4)) if build == "sequential" else
           nn.Sequential(nn.Embedding(100_000, 300), nn.LSTM(300, 4)))
    text = tabulate_text(net, style)
    for times in (1, 2):
        answer = read(text * times)
        assert [m.total for m in answer.models] == [_total(net)] * times


# -- ptflops' print ------------------------------------------------------------------------------

needs_ptflops = pytest.mark.skipif(not have("ptflops"), reason="needs ptflops")


@needs_ptflops
@pytest.mark.parametrize("build", [_gru_net, _norm_net], ids=["gru", "batchnorm"])
def test_ptflops_per_layer_print(build: Any) -> None:
    """ptflops' repr, its figures before each module's arguments (``GRU(18.82 k, 96.661%
    Params, 385.28 KMac, 99.832% MACs, 32, 64, batch_first=True)``), is read as the repr."""
    net, example = build()
    text = ptflops_text(net, example)
    assert "% Params" in text
    model = _only(text, "repr")
    assert model.total == _total(net)
    (layer,) = [layer for layer in model.layers if layer.recurrent]
    assert layer.spec is not None and same(layer.spec, GRU if build is _gru_net else LSTM)


@needs_ptflops
def test_ptflops_nested_containers() -> None:
    """Each container's line of figures alone under its ``Sequential(`` is read past."""
    import torch
    from torch import nn

    net = nn.Sequential(nn.Sequential(nn.Linear(8, 8), nn.ReLU()), nn.GRU(8, 16))
    text = ptflops_text(net, torch.zeros(1, 8))
    assert sum(figures_only(line) for line in text.splitlines()) == 2
    assert _only(text, "repr").total == _total(net)


@pytest.mark.parametrize(("rest", "after"), [
    ("18.82 k, 94.358% Params, 385.28 KMac, 95.935% MACs, 32, 64, batch_first=True)",
     "32, 64, batch_first=True)"),
    ("650, 3.339% Params, 650.0 Mac, 0.168% MACs, in_features=64, out_features=10)",
     "in_features=64, out_features=10)"),
    ("18.82 K = 96.66% Params, 385.28 KMACs = 99.83% MACs, 32, 64)", "32, 64)"),
    ("32, 64, num_layers=2)", "32, 64, num_layers=2)"),
    ("0.2)", "0.2)"),
], ids=["ptflops", "ptflops-plain-count", "calflops", "plain-repr", "decimal-argument"])
def test_figures_before_the_arguments(rest: str, after: str) -> None:
    """A printer's figures are taken off a module's arguments; a plain repr's are kept."""
    assert rest[arguments(rest):] == after


# -- torchscan -----------------------------------------------------------------------------------

needs_torchscan = pytest.mark.skipif(not have("torchscan"), reason="needs torchscan")


@needs_torchscan
def test_torchscan_summary_is_read() -> None:
    """torchscan's summary (``Layer  Type  Output Shape  Param #  Trainable``, tree glyphs,
    ``Total params: 19,466`` under its own words) gives the exact total, and the GRU among
    the configurations its count and output shapes leave (its input width is not printed)."""
    net, example = _gru_net()
    model = _only(torchscan_text(net, example), "table")
    assert model.total == model.printed_total == _total(net)
    (layer,) = [layer for layer in model.layers if layer.recurrent]
    assert layer.solution is not None and layer.solution.admits(GRU)
    assert any(note.startswith("read as a table: Layer / Type / Param #")
               for note in model.notes)


@needs_torchscan
def test_torchscan_norm_row_counts_its_buffers() -> None:
    """torchscan's BatchNorm row counts its running statistics (65 for 32 parameters): that
    row is not read as parameters, so no total above the truth is claimed."""
    net, example = _norm_net()
    text = torchscan_text(net, example)
    assert "65" in text
    model = _only(text, "table")
    truth = _total(net)
    assert model.total in (None, truth)
    assert model.at_least is None or model.at_least <= truth


# -- rounded counts --------------------------------------------------------------------------------

@pytest.mark.parametrize(("cell", "number"), [
    ("19.5K", 19_466), ("0.7K", 650), ("18.82 k", 18_816), ("19.466K", 19_466),
    ("1.2 M", 1_234_567), ("593 K", 593_920),
], ids=["fvcore", "fvcore-small", "ptflops", "fvcore-flops", "spaced", "truncated"])
def test_rounded_counts_stand_for_their_number(cell: str, number: int) -> None:
    """A rounded count's interval holds the number it was printed from, and is narrow."""
    found = approximate(cell)
    assert found is not None
    low, high = found
    assert low <= number <= high
    assert not low <= number * 2 <= high


# -- random models -------------------------------------------------------------------------------

@pytest.mark.skipif(not (have("fvcore") and have("ptflops")), reason="needs fvcore, ptflops")
@given(torch_plans(), st.data())
@settings(max_examples=6, deadline=None, database=None, phases=[Phase.generate],
          suppress_health_check=list(HealthCheck))
def test_random_models_in_the_generic_forms(plan: Any, data: st.DataObject) -> None:
    """Random torch models in every generic form are read with no wrong layer or total."""
    score = Score()
    for paste in torch_generic_pastes(plan, data.draw):
        check(paste, score)
    assert not score.wrong, score.wrong


# -- prefixes a post puts on every line --------------------------------------------------------

_PRINTERS = {
    "fvcore": (lambda net, x: fvcore_parameters(net), "shapes", "fvcore"),
    "ptflops": (ptflops_text, "repr", "ptflops"),
    "torchscan": (lambda net, x: torchscan_text(net, x), "table", "torchscan"),
    "dict": (lambda net, x: dict_text(net), "shapes", "torch"),
}


@pytest.mark.parametrize("prefix", ["    ", "# ", "> "], ids=["indented", "commented", "quoted"])
@pytest.mark.parametrize("printer", sorted(_PRINTERS))
def test_generic_forms_under_a_prefix(printer: str, prefix: str) -> None:
    """Each generic form indented as a code block, commented out or quoted, between prose
    lines, is read as it is without the prefix."""
    make, source, module = _PRINTERS[printer]
    if not have(module):
        pytest.skip(f"needs {module}")
    net, example = _gru_net()
    text = make(net, example)
    shifted = "".join(prefix + line if line.strip() else line
                      for line in text.splitlines(True))
    model = _only(f"Here is what it prints:\n\n{shifted}\nWhy is it so large?\n", source)
    assert model.total == _total(net)


# -- the JSON ------------------------------------------------------------------------------------

@needs_fvcore
def test_json_says_how_a_table_was_read_and_which_buffers_were_left_out() -> None:
    """``--json`` carries each model's notes: how a generic table was read, and the buffers a
    state dict shows and no total counts."""
    from paramcount.render.read import read_data

    net, _ = _norm_net()
    (table,) = read_data(read(fvcore_parameters(net)))["models"]
    assert any(note.startswith("read as a table: ") for note in table["notes"])
    (listing,) = read_data(read(state_text(net)))["models"]
    assert listing["total"] == _total(net)
    assert any("bn.num_batches_tracked" in note for note in listing["notes"])


@needs_ptflops
def test_ptflops_total_figure_shows_a_parameter_the_repr_hides() -> None:
    """A model's own ``nn.Parameter`` is in no repr line, but in ptflops' figure under
    ``Net(``: the modules do not add up to it, so no total is claimed and the bound is true."""
    import torch
    from torch import nn

    class Net(nn.Module):
        """A GRU, and a scale of the model's own."""

        def __init__(self) -> None:
            super().__init__()
            self.gru = nn.GRU(8, 16)
            self.scale = nn.Parameter(torch.ones(5000))

        def forward(self, x: Any) -> Any:
            """The GRU's output, scaled."""
            return self.gru(x)[0] * self.scale[:16]

    net = Net()
    model = _only(ptflops_text(net, torch.zeros(1, 4, 8)), "repr")
    assert model.total is None
    assert model.at_least is not None and model.at_least < _total(net)
    assert any("19.9" in c and "no repr line shows" in c for c in model.accounting.cropped)


# -- tables of modules' counts -------------------------------------------------------------------

@pytest.mark.skipif(not have("tabulate"), reason="needs tabulate")
def test_module_table_with_containers_counts_each_parameter_once() -> None:
    """A Markdown table of every module's count (a container's count holds its rows', as
    ``sum(p.numel() for p in m.parameters())`` gives it) with a type column: each parameter
    counted once, the total exact."""
    from tabulate import tabulate
    from torch import nn

    net = nn.ModuleDict({"enc": nn.Sequential(nn.Linear(8, 16), nn.ReLU()),
                         "gru": nn.GRU(16, 32)})
    rows = [(name, type(module).__name__, sum(p.numel() for p in module.parameters()))
            for name, module in net.named_modules() if name]
    text = tabulate(rows, headers=["name", "type", "params"], tablefmt="github") + "\n"
    model = _only(text, "table")
    assert model.total == _total(net)


@pytest.mark.skipif(not have("tabulate"), reason="needs tabulate")
def test_table_of_several_models_claims_no_total() -> None:
    """A table comparing models (no type column, no total) is not summed as one model."""
    from tabulate import tabulate
    from torch import nn

    models = {"lstm": nn.LSTM(8, 16), "gru": nn.GRU(8, 16)}
    text = tabulate([(n, sum(p.numel() for p in m.parameters())) for n, m in models.items()],
                    headers=["model", "params"], tablefmt="github") + "\n"
    answer = read(text)
    assert all(m.total is None for m in answer.models)


@given(st.integers(101, 10**13), st.integers(0, 3), st.sampled_from(["K", " k", "M", " G"]))
@settings(max_examples=200, deadline=None, database=None)
def test_every_rounded_count_holds_its_number(number: int, decimals: int, unit: str) -> None:
    """Rounded as fvcore and ptflops round (to ``decimals`` places of K, M or G), or cut as
    Lightning cuts, a count's interval holds it."""
    scale = {"K": 10**3, " k": 10**3, "M": 10**6, " G": 10**9}[unit]
    for text in (f"{number / scale:.{decimals}f}{unit}",
                 f"{number * 10**decimals // scale / 10**decimals:.{decimals}f}{unit}"):
        found = approximate(text)
        assert found is not None
        assert found[0] <= number <= found[1], text
