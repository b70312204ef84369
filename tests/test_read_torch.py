"""``paramcount read`` on torch code and printouts, every count checked against real torch.

Each snippet is trusted test code: the test runs it with torch to build the real model, and
compares what ``read`` found (statically, without running anything) with the real modules.
"""

from __future__ import annotations

import contextlib
import io
import textwrap
from typing import Any

import pytest

from paramcount.reading.pipeline import Answer, Model, read
from tests.conftest import have

pytestmark = [pytest.mark.torch, pytest.mark.skipif(not have("torch"), reason="needs torch")]

# id -> (code, the expression that builds the model, overrides)
SNIPPETS: dict[str, tuple[str, str, dict[str, int]]] = {
    "module-defaults-constants": ("""
        import torch.nn as nn
        HIDDEN = 128
        class Net(nn.Module):
            def __init__(self, vocab=1000, hidden_size=HIDDEN, n_layers=2):
                super().__init__()
                self.emb = nn.Embedding(vocab, 32)
                self.lstm = nn.LSTM(32, hidden_size, n_layers, batch_first=True,
                                    bidirectional=True)
                self.norm = nn.LayerNorm(hidden_size * 2)
                self.fc = nn.Linear(hidden_size * 2, 2)
            def forward(self, x):
                return self.fc(self.lstm(self.emb(x))[0])
        """, "Net()", {}),
    "positional-rnn-nonlinearity": ("""
        from torch import nn
        rnn = nn.RNN(10, 20, 3, 'relu', False, True, 0.0, True)
        """, "rnn", {}),
    "cells-conv-batchnorm": ("""
        import torch
        import torch.nn as nn
        class Tagger(nn.Module):
            def __init__(self, channels=16, hidden=64):
                super().__init__()
                self.conv = nn.Conv1d(channels, 32, kernel_size=3, padding=1)
                self.conv2 = nn.Conv2d(3, 8, (3, 5), bias=False)
                self.bn = nn.BatchNorm1d(32)
                self.cell = nn.LSTMCell(32, hidden)
                self.gru_cell = nn.GRUCell(hidden, hidden // 2, bias=False)
                self.rnn_cell = nn.RNNCell(8, 4, nonlinearity="relu")
                self.drop = nn.Dropout(0.1)
                self.out = nn.Linear(hidden // 2, 5)
        """, "Tagger()", {}),
    "sequential-modulelist-loop": ("""
        import torch.nn as nn
        class Stack(nn.Module):
            def __init__(self, depth=3, width=24):
                super().__init__()
                self.layers = nn.ModuleList([nn.GRU(width, width, batch_first=True)
                                             for _ in range(depth)])
                self.head = nn.Sequential(nn.Linear(width, 12), nn.ReLU(), nn.Linear(12, 1))
                self.extra = nn.ModuleList()
                for i in range(2):
                    self.extra.append(nn.Linear(width, width))
        """, "Stack()", {}),
    "projection-and-keywords": ("""
        import torch.nn as nn
        lstm = nn.LSTM(input_size=40, hidden_size=256, num_layers=3, proj_size=64,
                       bidirectional=True, bias=True)
        """, "lstm", {}),
    "set-overrides": ("""
        import torch.nn as nn
        class Encoder(nn.Module):
            def __init__(self, vocab_size, hidden_size):
                super().__init__()
                self.embedding = nn.Embedding(vocab_size, hidden_size)
                self.gru = nn.GRU(hidden_size, hidden_size, num_layers=2)
        """, "Encoder(20000, 256)", {"vocab_size": 20000, "hidden_size": 256}),
    "nested-submodule": ("""
        import torch.nn as nn
        class Encoder(nn.Module):
            def __init__(self, dim, hidden):
                super().__init__()
                self.rnn = nn.LSTM(dim, hidden, batch_first=True, bidirectional=True)
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = Encoder(50, 100)
                self.decoder = nn.LSTM(200, 100)
                self.proj = nn.Linear(100, 7)
        model = Model()
        """, "model", {}),
}


def build(code: str, expression: str) -> Any:
    """Run the trusted snippet with torch and evaluate ``expression`` in it."""
    namespace: dict[str, Any] = {}
    exec(textwrap.dedent(code), namespace)
    return eval(expression, namespace)


def only_model(answer: Answer) -> Model:
    """The single code model the answer found."""
    models = [m for m in answer.models if m.source == "code"]
    assert len(models) == 1, [m.name for m in models]
    return models[0]


def check_against(model: Model, module: Any) -> None:
    """Every counted layer and the total agree with the real module."""
    assert model.total == sum(p.numel() for p in module.parameters())
    for layer in model.layers:
        sub = module if layer.name == model.name else module.get_submodule(layer.name)
        assert layer.params == sum(p.numel() for p in sub.parameters()), layer.name


@pytest.mark.parametrize("case", SNIPPETS, ids=list(SNIPPETS))
def test_code_counts_match_torch(case: str) -> None:
    """Read statically, each layer and the model total equal the real torch module's."""
    code, expression, overrides = SNIPPETS[case]
    answer = read(textwrap.dedent(code), overrides)
    check_against(only_model(answer), build(code, expression))
    assert not answer.unresolved


@pytest.mark.parametrize("case", SNIPPETS, ids=list(SNIPPETS))
def test_indentation_lost_gives_the_same_counts(case: str) -> None:
    """The same snippet with every line's indentation stripped reads to the same counts."""
    code, expression, overrides = SNIPPETS[case]
    flat = "\n".join(line.strip() for line in textwrap.dedent(code).splitlines())
    answer = read(flat, overrides)
    if "def " in flat:
        assert "lost its indentation" in answer.notes[0]
    model = only_model(answer)
    if "\nfor " in flat:
        # Where a loop's body ends is lost with the indentation: no total is better than a
        # wrong one.
        assert model.total is None
        assert not model.accounting.whole
        return
    check_against(model, build(code, expression))


def test_unresolved_names_are_listed_with_their_line() -> None:
    """A size the paste leaves open is named with its line and a --set hint, never guessed."""
    code = textwrap.dedent("""
        import torch.nn as nn
        class Encoder(nn.Module):
            def __init__(self, vocab_size, hidden_size):
                super().__init__()
                self.embedding = nn.Embedding(vocab_size, hidden_size)
                self.gru = nn.GRU(hidden_size, hidden_size, num_layers=config.layers)
        """)
    answer = read(code)
    named = {(m.name, m.line, m.hint) for m in answer.unresolved}
    assert ("hidden_size", 4, "pass --set hidden_size=N") in named
    assert ("vocab_size", 4, "pass --set vocab_size=N") in named
    assert ("config.layers", 7, "pass --set layers=N") in named
    assert only_model(answer).total is None
    done = read(code, {"vocab_size": 100, "hidden_size": 8, "layers": 2})
    assert not done.unresolved
    real = build(code.replace("config.layers", "2"), "Encoder(100, 8)")
    check_against(only_model(done), real)


def printed(module: Any, how: str) -> str:
    """What a user pastes: print(model), a torchinfo table, or named_parameters()."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        if how == "repr":
            print(module)
        elif how.startswith("torchinfo"):
            torchinfo = pytest.importorskip("torchinfo")
            with contextlib.redirect_stdout(io.StringIO()):  # verbose=2 prints it too
                table = torchinfo.summary(module, verbose=2 if how == "torchinfo-verbose" else 0)
            print(table)
        elif how == "named":
            for name, parameter in module.named_parameters():
                print(name, parameter.shape)
        elif how == "tuples":
            for name, parameter in module.named_parameters():
                print((name, parameter.size()))
        elif how == "bare":
            for parameter in module.parameters():
                print(parameter.size())
    return buffer.getvalue()


def real_recurrent(module: Any) -> list[Any]:
    """The torch RNN/LSTM/GRU modules of ``module``, in order."""
    import torch.nn as nn

    return [m for m in module.modules() if isinstance(m, nn.RNNBase)]


@pytest.mark.parametrize("case", ["module-defaults-constants", "nested-submodule"])
@pytest.mark.parametrize("how", ["repr", "torchinfo", "torchinfo-verbose", "named", "tuples",
                                 "bare"])
def test_printouts_of_a_real_model(how: str, case: str) -> None:
    """Printouts made by torch and torchinfo (nested modules too) read back to the real total
    and, where they show sizes, the real configuration of every recurrent layer."""
    code, expression, _ = SNIPPETS[case]
    module = build(code, expression)
    answer = read(printed(module, how))
    real = sum(p.numel() for p in module.parameters())
    [model] = [m for m in answer.models if m.source != "code"]
    assert (model.total if how == "repr" else model.printed_total) == real
    found = [layer for _, layer in answer.recurrent]
    expected = real_recurrent(module)
    assert [layer.params for layer in found] == [
        sum(p.numel() for p in m.parameters()) for m in expected]
    if how == "torchinfo":
        return  # its rows show counts, not sizes
    for layer, real_layer in zip(found, expected, strict=True):
        sizes = (real_layer.input_size, real_layer.hidden_size, real_layer.num_layers,
                 real_layer.bidirectional)
        if how == "bare":  # unnamed shapes: the truth among the readings, none claimed
            assert layer.spec is None
            assert sizes in [(c.input_size, c.hidden_size, c.num_layers, c.bidirectional)
                             for c in layer.candidates]
            continue
        spec = layer.spec
        assert spec is not None
        assert (spec.input_size, spec.hidden_size, spec.num_layers, spec.bidirectional) == sizes


def test_code_and_printout_agree_without_disagreements() -> None:
    """The question's code beside its own print(model) and torchinfo table: nothing flagged."""
    code = SNIPPETS["module-defaults-constants"][0]
    module = build(code, "Net()")
    paste = "I have this model:\n" + textwrap.dedent(code) + "\nprint(model) gives\n" + printed(
        module, "repr") + "\nand torchinfo says\n" + printed(module, "torchinfo")
    answer = read(paste)
    assert set(answer.kinds) == {"code", "repr", "torchinfo"}
    assert not answer.disagreements
    assert {m.total for m in answer.models} == {sum(p.numel() for p in module.parameters())}


def test_flattened_code_beside_its_torchinfo_table() -> None:
    """Code whose indentation was lost, pasted with its torchinfo table: matched, counted,
    nothing flagged."""
    code, expression, _ = SNIPPETS["module-defaults-constants"]
    module = build(code, expression)
    flat = "\n".join(line.strip() for line in textwrap.dedent(code).splitlines())
    answer = read(flat + "\n\n" + printed(module, "torchinfo-verbose"))
    assert set(answer.kinds) == {"code", "torchinfo"}
    assert not answer.disagreements
    real = sum(p.numel() for p in module.parameters())
    assert [m.total for m in answer.models] == [real, real]


def test_printed_count_for_other_code_is_flagged() -> None:
    """A torchinfo table printed for a different configuration than the pasted code: the LSTM
    row is flagged with both counts."""
    shown = build("import torch.nn as nn\nm = nn.LSTM(30, 64, 2)", "m")
    code = "import torch.nn as nn\nlstm = nn.LSTM(32, 64, 2)\n"
    answer = read(code + printed(shown, "torchinfo"))
    [disagreement] = answer.disagreements
    assert disagreement.printed == sum(p.numel() for p in shown.parameters())
    assert disagreement.computed == sum(
        p.numel() for p in build(code, "lstm").parameters())
    assert disagreement.reason == ("the printed count fits an input width of 30, but the code "
                                   "gives it 32")


def test_a_transposed_shape_and_a_wrong_formula_are_flagged() -> None:
    """A hand-copied shape with its axes swapped, and the question's naive number, are both
    flagged against the code, with their reasons."""
    code = "import torch.nn as nn\nlstm = nn.LSTM(32, 128, 2, bidirectional=True)\n"
    module = build(code, "lstm")
    dump = printed(module, "named").replace("torch.Size([512, 32])", "torch.Size([32, 512])", 1)
    naive = 2 * sum(p.numel() for p in build(
        "import torch.nn as nn\nm = nn.LSTM(32, 128, 2)", "m").parameters())
    paste = (f"{code}\nWhy is it not {naive:,}? Every layer has the same size.\n{dump}")
    answer = read(paste)
    reasons = {d.line: d for d in answer.disagreements}
    transposed = [d for d in answer.disagreements if "transposed" in d.reason]
    assert len(transposed) == 1 and transposed[0].layer == "weight_ih_l0"
    assert "(512, 32)" in transposed[0].reason
    stated = reasons[4]
    assert stated.printed == naive == 430_080
    assert stated.computed == sum(p.numel() for p in module.parameters()) == 561_152
    assert "every layer after the first reads both directions' outputs" in stated.reason


def test_several_models_in_shape_dumps_split_by_dashes() -> None:
    """Two named_parameters() dumps separated by a line of dashes are two models."""
    first = build("import torch.nn as nn\nm = nn.GRU(10, 20)", "m")
    second = build("import torch.nn as nn\nm = nn.LSTM(8, 16, 2)", "m")
    answer = read(printed(first, "named") + "-----\n" + printed(second, "named"))
    totals = [m.printed_total for m in answer.models]
    assert totals == [sum(p.numel() for p in m.parameters()) for m in (first, second)]
    assert [layer.spec.cell.value for _, layer in answer.recurrent if layer.spec] == [
        "gru", "lstm"]
