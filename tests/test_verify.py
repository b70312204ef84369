"""The formula engine against the real PyTorch and Keras layers, tensor by tensor.

Every test that needs a framework builds the real layer (torch on the meta device, Keras inside
a StatelessScope) and skips cleanly when the framework is not installed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramcount.engine import conventions
from paramcount.engine.conventions import Tensor
from paramcount.engine.spec import Cell, Framework, LayerSpec, MergeMode, Nonlinearity
from paramcount.record import replace
from paramcount.verify import Unverified, backend, compare, exit_code, verify
from paramcount.verify.compare import refused
from tests.conftest import CLI, have

ROOT = Path(__file__).resolve().parent.parent

needs_torch = [
    pytest.mark.torch,
    pytest.mark.skipif(not have("torch"), reason="torch is not installed"),
]
needs_keras = [
    pytest.mark.keras,
    pytest.mark.skipif(
        not (have("keras") and have("tensorflow")), reason="keras/tensorflow not installed"
    ),
]

F = TypeVar("F", bound=Callable[..., object])


def with_torch(test: F) -> F:
    """Mark a test as needing torch, and skip it when torch is missing."""
    for mark in reversed(needs_torch):
        test = mark(test)
    return test


def with_keras(test: F) -> F:
    """Mark a test as needing keras and tensorflow, and skip it when either is missing."""
    for mark in reversed(needs_keras):
        test = mark(test)
    return test


# Mostly small sizes, sometimes huge ones: nothing is allocated either way.
sizes = st.one_of(st.integers(1, 48), st.integers(1, 50_000))
cells = st.sampled_from(list(Cell))


@st.composite
def torch_specs(draw: st.DrawFn) -> LayerSpec:
    """A random configuration that nn.RNN / nn.LSTM / nn.GRU (or their cells) accept."""
    cell = draw(cells)
    hidden = draw(sizes)
    single = draw(st.booleans())
    nonlinearity = draw(st.sampled_from([None, *Nonlinearity])) if cell is Cell.RNN else None
    proj = 0
    if cell is Cell.LSTM and not single and hidden > 1 and draw(st.booleans()):
        proj = draw(st.integers(1, hidden - 1))
    return LayerSpec(
        cell,
        draw(sizes),
        hidden,
        num_layers=1 if single else draw(st.integers(1, 4)),
        bidirectional=False if single else draw(st.booleans()),
        bias=draw(st.booleans()),
        proj_size=proj,
        nonlinearity=nonlinearity,
        single_cell=single,
    )


@st.composite
def merge_modes(draw: st.DrawFn, layers: int) -> tuple[MergeMode, ...] | None:
    """None (the default), one mode for every layer, or one per layer ('none' only last)."""
    inner = st.sampled_from([m for m in MergeMode if m is not MergeMode.NONE])
    kind = draw(st.sampled_from(["default", "one", "per-layer"]))
    if kind == "default":
        return None
    last = draw(st.sampled_from(list(MergeMode)))
    if kind == "one":
        return (last,) if layers == 1 or last is not MergeMode.NONE else (draw(inner),)
    return (*draw(st.lists(inner, min_size=layers - 1, max_size=layers - 1)), last)


@st.composite
def keras_specs(draw: st.DrawFn) -> LayerSpec:
    """A random configuration that keras SimpleRNN / LSTM / GRU (or their cells) accept."""
    cell = draw(cells)
    single = draw(st.booleans())
    layers = 1 if single else draw(st.integers(1, 4))
    bidirectional = False if single else draw(st.booleans())
    return LayerSpec(
        cell,
        draw(sizes),
        draw(sizes),
        num_layers=layers,
        bidirectional=bidirectional,
        bias=draw(st.booleans()),
        framework=Framework.KERAS,
        merge_modes=draw(merge_modes(layers)) if bidirectional else None,
        reset_after=draw(st.sampled_from([None, True, False])) if cell is Cell.GRU else None,
        nonlinearity=draw(st.sampled_from([None, *Nonlinearity])) if cell is Cell.RNN else None,
        single_cell=single,
    )


def engine(spec: LayerSpec) -> list[tuple[str, tuple[int, ...]]]:
    """The engine's tensors as (name, shape), in its order."""
    return [(t.name, t.shape) for t in conventions.tensors(spec)]


def assert_engine_is_real(spec: LayerSpec) -> None:
    """The engine's names, shapes, order and totals equal the real layer's."""
    real = backend(spec.framework).tensors(spec)
    assert engine(spec) == real
    result = verify(spec)
    assert result.match, result
    assert result.actual_total == conventions.formula(spec).total == result.expected_total


PROPERTY = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@with_torch
@PROPERTY
@given(spec=torch_specs())
def test_engine_equals_real_torch(spec: LayerSpec) -> None:
    """For random configurations, the engine equals the real torch module tensor by tensor."""
    assert_engine_is_real(spec)


@with_keras
@PROPERTY
@given(spec=keras_specs())
def test_engine_equals_real_keras(spec: LayerSpec) -> None:
    """For random configurations, the engine equals the real Keras layers tensor by tensor."""
    assert_engine_is_real(spec)


SEEDS = [
    pytest.param(
        LayerSpec(Cell.LSTM, 32, 128, num_layers=2, bidirectional=True), 561_152,
        marks=needs_torch, id="torch-lstm-32-128-L2-bidir",
    ),
    pytest.param(
        LayerSpec(Cell.LSTM, 28, 128, bidirectional=True, framework=Framework.KERAS), 160_768,
        marks=needs_keras, id="keras-lstm-28-128-bidir",
    ),
    pytest.param(
        LayerSpec(Cell.LSTM, 28, 256, framework=Framework.KERAS), 291_840,
        marks=needs_keras, id="keras-lstm-28-256",
    ),
]


@pytest.mark.parametrize(("spec", "total"), SEEDS)
def test_seed_totals_are_real(spec: LayerSpec, total: int) -> None:
    """The seed questions' totals are what the real frameworks build."""
    result = verify(spec)
    assert result.match
    assert result.actual_total == total


BIG = ["lstm", "--input", "8192", "--hidden", "16384", "--layers", "8", "--bidir", "--verify"]


@pytest.mark.parametrize(
    "framework",
    [pytest.param("torch", marks=needs_torch), pytest.param("keras", marks=needs_keras)],
)
def test_exit_0_when_everything_matches(cli: CLI, framework: str) -> None:
    """48 billion parameters verify in either framework: ✓ on every row, a verdict, exit 0."""
    result = cli(*BIG, "--framework", framework)
    assert result.code == 0, result.err
    assert result.err == ""
    rows = tensor_rows(result.out)
    assert len(rows) == {"torch": 64, "keras": 48}[framework]
    assert all(row.endswith("  ✓") for row in rows)
    title = {"torch": "PyTorch", "keras": "Keras"}[framework]
    assert f"✓ Verified against {title} " in result.out
    assert "tensors and the total match." in result.out


def tensor_rows(out: str) -> list[str]:
    """The body rows of the first table printed (the tensors), between its two rules."""
    lines = out.splitlines()
    rules = [i for i, line in enumerate(lines) if line.lstrip().startswith("─")]
    return lines[rules[0] + 1 : rules[1]]


def wrong_tensors(spec: LayerSpec) -> list[Tensor]:
    """The engine's tensors with the first bias one element too long and the last one lost."""
    return _spoil(conventions.tensors(spec))


def _spoil(tensors: list[Tensor]) -> list[Tensor]:
    index = next(i for i, t in enumerate(tensors) if t.role.startswith("bias"))
    bias = tensors[index]
    tensors[index] = replace(bias, shape=(*bias.shape[:-1], bias.shape[-1] + 1))
    return tensors[:-1]


@pytest.mark.parametrize(
    "spec",
    [
        pytest.param(LayerSpec(Cell.GRU, 3, 4, bidirectional=True), marks=needs_torch, id="torch"),
        pytest.param(
            LayerSpec(Cell.GRU, 3, 4, num_layers=2, framework=Framework.KERAS),
            marks=needs_keras, id="keras",
        ),
    ],
)
def test_compare_reports_a_wrong_engine_list(spec: LayerSpec) -> None:
    """A wrong tensor list against the real layer is a mismatch, each difference located."""
    wrong = wrong_tensors(spec)
    result = verify(spec, wrong)
    real = backend(spec.framework).tensors(spec)
    assert not result.match
    assert [c.index for c in result.differences] == [
        next(i for i, t in enumerate(wrong) if t.role.startswith("bias")),
        len(real) - 1,
    ]
    assert result.differences[-1].expected is None
    assert result.differences[-1].actual == real[-1]
    assert result.actual_total == conventions.formula(spec).total
    assert exit_code([result]) == 1


@pytest.mark.parametrize(
    ("framework", "title"),
    [
        pytest.param("torch", "PyTorch", marks=needs_torch),
        pytest.param("keras", "Keras", marks=needs_keras),
    ],
)
def test_exit_1_with_the_diff(
    cli: CLI, monkeypatch: pytest.MonkeyPatch, framework: str, title: str
) -> None:
    """When the engine's tensors are wrong, --verify shows ✗, the differences, and exits 1."""
    module = conventions.convention(Framework(framework))
    original = module.tensors
    monkeypatch.setattr(module, "tensors", lambda spec: _spoil(original(spec)))
    result = cli("gru", "-i", "3", "-H", "4", "--bidir", "--verify", "-f", framework)
    assert result.code == 1
    assert "✗ (12,)" in result.out or "✗ (2, 12)" in result.out
    assert f"✗ Mismatch with {title} " in result.out
    assert f"Differences from {title} " in result.out
    assert result.err.startswith(f"Error: {title} ")
    assert "disagrees with the formula engine on 2 of " in result.err


def test_compare_is_pure_and_positional() -> None:
    """compare() needs no framework: same names and shapes in the same order, or a mismatch."""
    spec = LayerSpec(Cell.LSTM, 2, 3)
    tensors = conventions.tensors(spec)
    real = [(t.name, t.shape) for t in tensors]
    assert compare(Framework.TORCH, "0", tensors, real).match
    swapped = [real[1], real[0], *real[2:]]
    result = compare(Framework.TORCH, "0", tensors, swapped)
    assert not result.match
    assert [c.index for c in result.differences] == [0, 1]
    assert result.actual_total == result.expected_total
    assert not compare(Framework.TORCH, "0", tensors, real, formula_total=1).match


@with_torch
def test_torch_refusing_a_size_is_a_mismatch(cli: CLI) -> None:
    """torch cannot build a layer whose 4·H rows pass int64: reported, naming its error, exit 1."""
    result = cli("lstm", "-i", "10", "-H", str(2**62), "--verify")
    assert result.code == 1
    assert "✗ PyTorch " in result.out
    assert " refused to build this layer: " in result.out
    assert result.err.startswith("Error: PyTorch ")
    assert " refused to build what the formula engine counted: " in result.err
    assert len(result.err.splitlines()) == 1


def test_a_refusal_is_a_mismatch() -> None:
    """A framework error while building is reported as a mismatch, naming the error."""
    tensors = conventions.tensors(LayerSpec(Cell.GRU, 2, 3))
    result = refused(Framework.TORCH, "0", tensors, ValueError("hidden_size must be > 0\nmore"))
    assert not result.match
    assert result.refused == "ValueError: hidden_size must be > 0"
    assert exit_code([result]) == 1
    assert exit_code([Unverified(Framework.KERAS, "missing")]) == 3
    assert exit_code([result, Unverified(Framework.KERAS, "missing")]) == 1


def run_blocked(blocked: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the CLI in a fresh interpreter where importing the ``blocked`` modules fails."""
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name.split('.')[0] in {blocked.split(',')!r}:\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "from paramcount.cli.main import run\n"
        "sys.exit(run(sys.argv[1:]))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )


@pytest.mark.parametrize(
    ("framework", "blocked", "extra"),
    [
        ("torch", "torch", "torch"),
        ("keras", "keras", "keras"),
        ("keras", "tensorflow", "keras"),
    ],
    ids=["torch", "keras", "tensorflow"],
)
def test_exit_3_names_the_extra(framework: str, blocked: str, extra: str) -> None:
    """Without the framework, --verify exits 3 with one line naming the pip install."""
    result = run_blocked(blocked, "lstm", "-i", "3", "-H", "4", "--verify", "-f", framework)
    assert result.returncode == 3
    assert result.stdout == ""
    assert result.stderr == (
        f"Error: verifying with {framework} requires the {framework} package: "
        f"pip install 'paramcount[{extra}]' (in a clone: pip install -e '.[{extra}]')\n"
    )


@with_torch
def test_all_frameworks_verifies_each_installed_one() -> None:
    """--framework all verifies the installed frameworks and says which one it could not."""
    result = run_blocked("keras,tensorflow", "lstm", "-i", "3", "-H", "4", "--verify", "-f", "all")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "✓ Verified against PyTorch " in result.stdout
    assert (
        "Not verified against Keras: verifying with keras requires the keras package: pip "
        "install 'paramcount[keras]'" in " ".join(result.stdout.split())
    )


@with_torch
def test_all_frameworks_json_says_why_not_verified() -> None:
    """In JSON, a framework that is not installed has match null and the reason."""
    result = run_blocked(
        "keras,tensorflow", "rnn", "-i", "3", "-H", "4", "--verify", "-f", "all", "--json"
    )
    assert result.returncode == 0, result.stderr
    torch_report, keras_report = json.loads(result.stdout)["reports"][:2]
    assert torch_report["verification"]["match"] is True
    assert keras_report["verification"] == {
        "framework": "keras",
        "version": None,
        "match": None,
        "reason": "verifying with keras requires the keras package: "
                  "pip install 'paramcount[keras]' (in a clone: pip install -e '.[keras]')",
        "refused": None,
        "total": None,
        "tensors": [],
    }


def test_all_frameworks_missing_exits_3() -> None:
    """--framework all --verify with no framework installed exits 3, naming both extras."""
    result = run_blocked(
        "torch,keras,tensorflow,onnx,jax,flax", "lstm", "-i", "3", "-H", "4", "--verify", "-f",
        "all"
    )
    assert result.returncode == 3
    assert "pip install 'paramcount[torch]'" in result.stderr
    assert "pip install 'paramcount[keras]'" in result.stderr


@with_torch
@with_keras
def test_all_frameworks_json(cli: CLI) -> None:
    """With --framework all --json, each report carries its own verification object."""
    result = cli("gru", "-i", "5", "-H", "7", "-L", "2", "--bidir", "-f", "all", "--verify",
                 "--json")
    assert result.code == 0, result.err
    reports = json.loads(result.out)["reports"]
    for report in reports:
        verification = report["verification"]
        assert verification["framework"] == report["framework"]
        assert verification["match"] is True
        assert verification["version"]
        assert verification["total"] == {
            "engine": report["total"], "real": report["total"], "formula": report["total"]
        }
        assert [(t["real_name"], t["real_shape"]) for t in verification["tensors"]] == [
            (t["name"], t["shape"]) for t in report["tensors"]
        ]
        assert all(t["match"] for t in verification["tensors"])


def test_no_verification_key_without_verify(cli: CLI) -> None:
    """Without --verify the JSON is unchanged: no verification key, no framework imported."""
    result = cli("lstm", "-i", "3", "-H", "4", "--json")
    assert "verification" not in json.loads(result.out)


@with_torch
def test_markdown_has_the_verified_column(cli: CLI) -> None:
    """The Markdown table gains the verified column and the verdict."""
    result = cli("rnn", "-i", "3", "-H", "4", "--cell", "--verify", "--markdown")
    assert result.code == 0
    assert "verified" in result.out
    assert "✓ Verified against PyTorch " in result.out


QUIET_VARIABLES = ("TF_CPP_MIN_LOG_LEVEL", "TF_ENABLE_ONEDNN_OPTS", "KERAS_BACKEND")


@with_keras
def test_keras_output_is_clean() -> None:
    """A --verify run with Keras prints paramcount's table only: no TensorFlow log lines."""
    env = {k: v for k, v in os.environ.items() if k not in QUIET_VARIABLES}
    env["PYTHONPATH"] = str(ROOT)
    result = subprocess.run(
        [sys.executable, "-m", "paramcount", "gru", "--input", "29", "--hidden", "29",
         "--layers", "5", "--bidir", "--framework", "keras", "--verify"],
        capture_output=True, text=True, cwd=ROOT, env=env, check=False,
    )
    assert result.returncode == 0
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0] == (
        "Bidirectional(GRU(29, return_sequences=True)) → "
        "Bidirectional(GRU(29, return_sequences=True)) → "
        "Bidirectional(GRU(29, return_sequences=True)) → "
        "Bidirectional(GRU(29, return_sequences=True)) → "
        "Bidirectional(GRU(29)) on 29 features — Keras"
    )
    noise = ("oneDNN", "absl", "cpu_feature_guard", "WARNING", "I0000", "tensorflow/")
    assert not [line for line in lines if any(word in line for word in noise)]
    assert "✓ Verified against Keras " in result.stdout


@with_torch
@with_keras
def test_keras_backend_is_respected() -> None:
    """With KERAS_BACKEND=torch, Keras verifies on the torch backend, and the verdict says so."""
    env = {k: v for k, v in os.environ.items() if k not in QUIET_VARIABLES}
    env.update(PYTHONPATH=str(ROOT), KERAS_BACKEND="torch")
    result = subprocess.run(
        [sys.executable, "-m", "paramcount", "lstm", "-i", "3", "-H", "4", "-L", "2", "--bidir",
         "-f", "keras", "--verify"],
        capture_output=True, text=True, cwd=ROOT, env=env, check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "✓ Verified against Keras " in result.stdout
    assert " (torch " in result.stdout


@with_torch
def test_torch_verification_imports_no_tensorflow() -> None:
    """Verifying with torch imports torch only: neither keras nor tensorflow."""
    code = (
        "import contextlib, io, sys\nfrom paramcount.cli.main import run\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert run(['lstm', '-i', '3', '-H', '4', '--verify']) == 0\n"
        "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    loaded = set(out.stdout.split())
    assert "torch" in loaded
    assert not loaded & {"keras", "tensorflow", "jax"}


def test_compare_docstring_examples() -> None:
    """The examples in compare()'s docstring run."""
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module("paramcount.verify.compare"))
    assert result.attempted > 0
    assert result.failed == 0
