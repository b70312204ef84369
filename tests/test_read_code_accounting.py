"""The code reader's accounting: each code model names the statements it read and those it could
not (and why), and its total is exact only where it read every one.

Every bound is checked against the real framework's count of the layers the code shows (torch,
or Keras 3 for Keras code); nothing is typed by hand but the code a user would paste.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramcount.engine.spec import Cell, LayerSpec, Nonlinearity
from paramcount.reading.pipeline import Answer, read
from paramcount.render.read import read_data
from tests.conftest import CLI
from tests.printers import TorchPlan, build_torch, torch_plans

torch = pytest.importorskip("torch")
nn = torch.nn


def _numel(*modules: Any) -> int:
    """The real parameter count of torch modules."""
    return sum(p.numel() for module in modules for p in module.parameters())


def _code_model(answer: Answer, name: str | None = None) -> Any:
    """The one code model of the answer (or the one called ``name``)."""
    found = [m for m in answer.models if m.source == "code" and name in (None, m.name)]
    assert len(found) == 1, [(m.name, m.source) for m in answer.models]
    return found[0]


@pytest.fixture(scope="module")
def keras3() -> Iterator[Any]:
    """Keras 3, imported once."""
    keras = pytest.importorskip("keras")
    yield keras


_HEAD = "import torch.nn as nn\n\n"

# (id, code, the lines named unread, the layers the code shows and reads, as torch builds them)
_TORCH_CASES: list[tuple[str, str, list[int], Any]] = [
    ("call-not-shown", _HEAD + textwrap.dedent("""\
        class Net(nn.Module):
            def __init__(self, cfg):
                super().__init__()
                self.dropout_p = 0.1
                self.enc = make_encoder(cfg)
                self.lstm = nn.LSTM(32, 64)
                self.head = nn.Linear(64, 10)
        """), [7], lambda: (nn.LSTM(32, 64), nn.Linear(64, 10))),
    ("class-not-defined", _HEAD + textwrap.dedent("""\
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.pe = PositionalEncoding(16)
                self.gru = nn.GRU(16, 8)
        """), [6], lambda: (nn.GRU(16, 8),)),
    ("layer-chosen-by-unknown", _HEAD + textwrap.dedent("""\
        class Net(nn.Module):
            def __init__(self, cell):
                super().__init__()
                self.rnn = nn.LSTM(8, 8) if cell == "lstm" else nn.GRU(8, 8)
                self.fc = nn.Linear(8, 1)
        """), [6], lambda: (nn.Linear(8, 1),)),
    ("if-not-known", _HEAD + textwrap.dedent("""\
        class Net(nn.Module):
            def __init__(self, cfg):
                super().__init__()
                if cfg.big:
                    self.rnn = nn.LSTM(8, 64)
                else:
                    self.rnn = nn.GRU(8, 2)
                self.fc = nn.Linear(8, 2)
                if cfg.verbose:
                    print("building")
        """), [6], lambda: (nn.Linear(8, 2),)),
    ("loop-not-known", _HEAD + textwrap.dedent("""\
        class Net(nn.Module):
            def __init__(self, n_layers):
                super().__init__()
                self.layers = nn.ModuleList()
                for _ in range(n_layers):
                    self.layers.append(nn.LSTM(8, 8))
                self.fc = nn.Linear(8, 2)
        """), [7], lambda: (nn.Linear(8, 2),)),
    ("container-item-not-known", _HEAD + textwrap.dedent("""\
        class Net(nn.Module):
            def __init__(self, cfg):
                super().__init__()
                self.body = nn.Sequential(nn.Linear(4, 4), build_block(cfg), nn.ReLU())
                self.rnn = nn.RNN(4, 3)
        """), [6], lambda: (nn.Linear(4, 4), nn.RNN(4, 3))),
    ("builds-itself", _HEAD + textwrap.dedent("""\
        class A(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = A()
                self.l = nn.LSTM(2, 2)
        m = A()
        """), [6], lambda: (nn.LSTM(2, 2),)),
    ("helper-loop-not-known", _HEAD + textwrap.dedent("""\
        def stack(n):
            out = []
            for _ in range(n):
                out.append(nn.GRU(4, 4))
            return nn.Sequential(*out)
        class Net(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.s = stack(n)
                self.fc = nn.Linear(4, 1)
        """), [5], lambda: (nn.Linear(4, 1),)),
    ("statement-does-not-parse", _HEAD + textwrap.dedent("""\
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = nn.LSTM(10, 20)
                self.b = nn.Linear(20, 3

        that is my model, why does it crash?
        """), [7], lambda: (nn.LSTM(10, 20),)),
]


@pytest.mark.parametrize(("code", "lines", "shown"), [c[1:] for c in _TORCH_CASES],
                         ids=[c[0] for c in _TORCH_CASES])
def test_a_statement_not_read_makes_the_total_a_bound_naming_it(code: str, lines: list[int],
                                                                shown: Any) -> None:
    """Each kind of statement the code reader cannot read: the model's total is None, its bound
    is torch's count of the layers read, and the statement is named by its line, quoted, in the
    answer and in its JSON (``total: null``, ``at_least``, ``unread``)."""
    answer = read(code)
    model = _code_model(answer)
    [data] = [m for m in read_data(answer)["models"] if m["name"] == model.name]
    assert data["total"] is None and data["exact"] is False
    assert data["at_least"] == model.at_least and [u["line"] for u in data["unread"]] == lines
    code_lines = code.split("\n")
    assert model.total is None
    assert model.at_least == _numel(*shown())
    assert [u.line for u in model.accounting.unread] == lines
    assert [u.text for u in model.accounting.unread] == [code_lines[n - 1] for n in lines]
    assert not model.accounting.stray
    for line in lines:
        assert f"line {line} `{code_lines[line - 1].strip()[:20]}" in model.bound
    assert model.bound.startswith(f"at least {model.at_least:,}; line {lines[0]} `")
    notes = " ".join(model.notes)
    assert not any(f"line {line}:" in notes for line in lines)  # said once, in the account


def test_the_layers_of_a_branch_not_known_are_shown_but_not_counted() -> None:
    """``if cfg.big: self.rnn = nn.LSTM(8, 64) else: ...GRU(8, 2)``: the LSTM read is listed
    (marked conditional) and left out of the bound, which the GRU branch would overstate."""
    code = _TORCH_CASES[3][1]
    answer = read(code)
    model = _code_model(answer)
    rnn = next(layer for layer in model.layers if layer.name == "rnn")
    assert rnn.conditional and rnn.params == _numel(nn.LSTM(8, 64))
    [data] = read_data(answer)["models"]
    assert [(x["name"], x["conditional"]) for x in data["layers"]] == [("rnn", True),
                                                                       ("fc", False)]
    assert model.at_least == _numel(nn.Linear(8, 2)) < _numel(nn.GRU(8, 2), nn.Linear(8, 2))
    assert [u.line for u in model.accounting.unread] == [6]  # `if cfg.verbose` builds nothing


def test_a_value_set_where_it_may_not_be_is_not_known_after() -> None:
    """``if cfg.big: hidden = 512`` and ``in_dim = hidden`` in a loop of unknown length: the
    layers after them depend on the test and the loop's length (asked for with ``--set``), not
    on the branch or the single pass read; given them, the total is exact."""
    code = _HEAD + textwrap.dedent("""\
        class Net(nn.Module):
            def __init__(self, cfg, emb=32, hidden=64):
                super().__init__()
                if cfg.big:
                    hidden = 512
                self.layers = nn.ModuleList()
                in_dim = emb
                for _ in range(cfg.n):
                    self.layers.append(nn.LSTM(in_dim, hidden))
                    in_dim = hidden
                self.fc = nn.Linear(in_dim, 2)
        """)
    answer = read(code)
    model = _code_model(answer)
    assert model.total is None and model.at_least is None
    assert [u.line for u in model.accounting.unread] == [10]
    assert {m.name for m in answer.unresolved} == {"cfg.big", "cfg.n"}
    assert next(layer for layer in model.layers if layer.name == "fc").params is None
    model = _code_model(read(code, {"big": False, "n": 2}))
    assert model.accounting.whole and model.total == _numel(
        nn.LSTM(32, 64), nn.LSTM(64, 64), nn.Linear(64, 2))


def test_the_text_and_json_answers_give_the_bound_and_the_unread_lines(cli: CLI,
                                                                      tmp_path: Any) -> None:
    """``read`` of code with a submodule built by a call not shown: the text says ``≥ N`` and
    ``at least N; line 7 `self.enc = make_encoder(cfg)` not read: …``; ``--json`` says
    ``total: null``, ``exact: false``, ``at_least`` and the unread line, as for a printout."""
    code = _TORCH_CASES[0][1]
    path = tmp_path / "net.py"
    path.write_text(code)
    at_least = _numel(nn.LSTM(32, 64), nn.Linear(64, 10))
    result = cli("read", str(path))
    assert result.code == 0, result.err
    said = " ".join(result.out.split())
    assert f"≥ {at_least:,}" in said
    assert (f"its total is at least {at_least:,}; line 7 `self.enc = make_encoder(cfg)` not "
            "read: make_encoder(...) may build a module the paste does not show") in said
    assert said.count("make_encoder(cfg)") == 1  # no note saying it again
    result = cli("read", str(path), "--json")
    assert result.code == 0, result.err
    [model] = json.loads(result.out)["models"]
    assert model["total"] is None and model["exact"] is False
    assert model["at_least"] == at_least and model["cropped"] == []
    assert model["unread"] == [{"line": 7, "text": "        self.enc = make_encoder(cfg)",
                                "reason": "make_encoder(...) may build a module the paste "
                                          "does not show: its parameters are not counted"}]


def test_a_whole_class_claims_every_statement_and_is_exact(cli: CLI, tmp_path: Any) -> None:
    """Code read whole: every statement of ``__init__`` is claimed and used (values such as
    ``self.dropout_p`` too), ``forward`` is not claimed, and the JSON says ``exact: true``."""
    code = _HEAD + textwrap.dedent("""\
        class Net(nn.Module):
            def __init__(self, hidden=64):
                super().__init__()
                self.dropout_p = 0.1
                self.lstm = nn.LSTM(32, hidden,
                                    batch_first=True)
                self.head = nn.Linear(hidden, 10)

            def forward(self, x):
                return self.head(self.lstm(x)[0])
        """)
    model = _code_model(read(code))
    assert model.total == _numel(nn.LSTM(32, 64), nn.Linear(64, 10))
    assert model.accounting.whole and model.at_least is None and model.bound == ""
    assert model.accounting.used == frozenset(range(5, 10))
    path = tmp_path / "net.py"
    path.write_text(code)
    [data] = json.loads(cli("read", str(path), "--json").out)["models"]
    assert data["exact"] is True and data["total"] == model.total and data["unread"] == []


def test_a_base_class_and_a_submodule_class_are_claimed_by_the_model() -> None:
    """``super().__init__(...)`` of a base in the paste and ``self.enc = Encoder()``: the lines
    of both ``__init__`` s the reader followed are the model's, and what they could not read
    is named in it."""
    code = _HEAD + textwrap.dedent("""\
        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = nn.GRU(4, 4)
                self.extra = load_extra()
        class Base(nn.Module):
            def __init__(self):
                super().__init__()
                self.norm = nn.LayerNorm(4)
        class Net(Base):
            def __init__(self):
                super().__init__()
                self.enc = Encoder()
        m = Net()
        """)
    model = _code_model(read(code), "m")
    assert model.accounting.claimed >= {5, 6, 7, 10, 11, 14, 15}
    assert [u.line for u in model.accounting.unread] == [7]
    assert model.at_least == _numel(nn.LayerNorm(4), nn.GRU(4, 4))


def test_keras_sequential_and_functional_models_name_their_unread_statements(keras3: Any
                                                                              ) -> None:
    """A Keras ``Sequential`` with a layer built by a call not shown, ``model.add`` in an ``if``
    not known, and a functional graph through ``head(h)``: each model names its own line, and
    a model beside them read whole stays exact."""
    layers = keras3.layers
    code = textwrap.dedent("""\
        import keras
        from keras import layers
        model = keras.Sequential([keras.Input((5, 3)), layers.LSTM(8), make_head(cfg)])
        other = keras.Sequential([keras.Input((4,)), layers.Dense(3)])
        deep = keras.Sequential()
        deep.add(keras.Input((5, 3)))
        deep.add(layers.GRU(8, return_sequences=True))
        if args.deep:
            deep.add(layers.GRU(8, return_sequences=True))
        deep.add(layers.Dense(2))
        x = keras.Input((5, 3))
        h = layers.LSTM(8)(x)
        y = head(h)
        graph = keras.Model(x, y)
        """)
    answer = read(code)
    model, other, deep, graph = (_code_model(answer, n) for n in ("model", "other", "deep",
                                                                   "graph"))
    lstm = keras3.Sequential([keras3.Input((5, 3)), layers.LSTM(8)]).count_params()
    assert [u.line for u in model.accounting.unread] == [3] and model.at_least == lstm
    assert other.total == keras3.Sequential([keras3.Input((4,)), layers.Dense(3)]).count_params()
    assert [u.line for u in deep.accounting.unread] == [8]
    shallow = keras3.Sequential([keras3.Input((5, 3)), layers.GRU(8, return_sequences=True),
                                 layers.Dense(2)])
    assert deep.at_least == shallow.count_params()
    assert [u.line for u in graph.accounting.unread] == [13] and graph.at_least == lstm
    for found in (model, other, deep, graph):
        assert not found.accounting.stray


# -- random torch models written as code ---------------------------------------------------------

def _layer_code(kind: str, value: Any, width: int) -> tuple[str, int]:
    """One block of a plan as the constructor a user writes, and the width after it."""
    if kind == "rnn":
        spec: LayerSpec = value
        name = {Cell.RNN: "RNN", Cell.GRU: "GRU", Cell.LSTM: "LSTM"}[spec.cell]
        options = [f"num_layers={spec.num_layers}", f"bidirectional={spec.bidirectional}",
                   f"bias={spec.bias}"]
        if spec.proj_size:
            options.append(f"proj_size={spec.proj_size}")
        if spec.nonlinearity is Nonlinearity.RELU:
            options.append("nonlinearity='relu'")
        return (f"nn.{name}({width}, {spec.hidden_size}, {', '.join(options)})",
                spec.directions * spec.output_size)
    if kind == "linear":
        return f"nn.Linear({width}, {value})", value
    if kind == "mlp":
        return f"nn.Sequential(nn.Linear({width}, {value}), nn.ReLU())", value
    if kind == "conv":
        return f"nn.Conv1d({width}, {value[0]}, {value[1]}, padding='same')", value[0]
    return f"nn.LayerNorm({width})", width


def _plan_code(plan: TorchPlan) -> tuple[str, dict[str, int]]:
    """A plan as the code of its ``nn.Module`` (the attribute names ``build_torch`` gives), and
    the line of each attribute's statement."""
    lines = ["import torch.nn as nn", "", "class Net(nn.Module):",
             "    def __init__(self, cfg=None):", "        super().__init__()"]
    where: dict[str, int] = {}
    if plan.vocab is not None:
        lines.append(f"        self.embedding = nn.Embedding({plan.vocab}, {plan.width})")
        where["embedding"] = len(lines)
    width = plan.width
    for index, (kind, value) in enumerate(plan.blocks):
        text, width = _layer_code(kind, value, width)
        lines.append(f"        self.{kind}{index} = {text}")
        where[f"{kind}{index}"] = len(lines)
    if plan.cell is not None:
        spec = plan.cell
        name = {Cell.RNN: "RNNCell", Cell.GRU: "GRUCell", Cell.LSTM: "LSTMCell"}[spec.cell]
        relu = ", nonlinearity='relu'" if spec.nonlinearity is Nonlinearity.RELU else ""
        lines.append(f"        self.cell = nn.{name}({width}, {spec.hidden_size}, "
                     f"bias={spec.bias}{relu})")
        where["cell"] = len(lines)
    return "\n".join(lines) + "\n", where


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=torch_plans(), data=st.data())
def test_a_random_model_with_one_statement_not_shown_gives_a_true_bound(plan: TorchPlan,
                                                                         data: Any) -> None:
    """A random torch model written as code is exact and claims every statement; with one of
    its layer statements replaced by ``self.x = make_thing(cfg)``, its bound names exactly
    that line, and torch's true total less that module is the bound (never more than it)."""
    module, _, _ = build_torch(plan)
    truth = _numel(module)
    code, where = _plan_code(plan)
    model = _code_model(read(code))
    assert model.total == truth and model.accounting.whole
    assert model.accounting.used >= {5, *where.values()}
    name = data.draw(st.sampled_from(sorted(where)))
    lines = code.split("\n")
    lines[where[name] - 1] = f"        self.{name} = make_thing(cfg)"
    model = _code_model(read("\n".join(lines)))
    assert model.total is None and not model.accounting.stray
    assert [u.line for u in model.accounting.unread] == [where[name]]
    assert f"line {where[name]} `self.{name} = make_thing(cfg)` not read" in model.bound
    left = truth - _numel(getattr(module, name))
    assert (model.at_least or 0) == left <= truth
