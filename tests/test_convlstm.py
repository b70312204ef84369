"""ConvLSTM stacks: the formula engine, the CLI, and the real Keras and Flax layers."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramcount import SpecError
from paramcount.engine.conventions import convlstm as convention
from paramcount.engine.convlstm_report import (
    ConvLSTMSpec,
    DataFormat,
    build_conv_report,
    parse_kernel,
)
from paramcount.engine.spec import Framework
from tests.conftest import CLI, have

SEEDS = [
    # The first layer of keras.io's next-frame prediction example: ConvLSTM2D(64, (5, 5)) on
    # one-channel frames.
    ("keras-next-frame", dict(rank=2, input_channels=1, filters=64, kernel=(5, 5)), 416_256),
    ("keras-1d", dict(rank=1, input_channels=3, filters=5, kernel=(3,)), 500),
    ("keras-3d", dict(rank=3, input_channels=2, filters=4, kernel=(3, 3, 3)), 2_608),
    ("keras-bidir-channels-last", dict(rank=2, input_channels=3, filters=5, kernel=(3, 2),
                                       num_layers=2, bidirectional=True, bias=False), 5_520),
    ("keras-bidir-channels-first", dict(rank=2, input_channels=3, filters=5, kernel=(3, 3),
                                        num_layers=2, bidirectional=True,
                                        data_format="channels_first"), 6_560),
    ("flax-cell", dict(rank=2, input_channels=3, filters=5, kernel=(3, 3),
                       framework="flax-linen"), 1_480),
]


@pytest.mark.parametrize(("kwargs", "total"), [s[1:] for s in SEEDS], ids=[s[0] for s in SEEDS])
def test_seed_totals(kwargs: dict[str, Any], total: int) -> None:
    """The worked examples come out exactly (the Keras ones as model.summary() prints them)."""
    assert build_conv_report(ConvLSTMSpec(**kwargs)).total == total


@st.composite
def conv_specs(draw: st.DrawFn, frameworks: tuple[Framework, ...] = (Framework.KERAS,
                                                                       Framework.FLAX_LINEN)
               ) -> ConvLSTMSpec:
    """A random ConvLSTM stack that its framework accepts."""
    framework = draw(st.sampled_from(frameworks))
    rank = draw(st.integers(1, 3))
    formats = list(DataFormat) if framework is Framework.KERAS else [DataFormat.CHANNELS_LAST]
    return ConvLSTMSpec(
        rank=rank,
        input_channels=draw(st.integers(1, 6)),
        filters=draw(st.integers(1, 6)),
        kernel=tuple(draw(st.integers(1, 3)) for _ in range(rank)),
        num_layers=draw(st.integers(1, 3)),
        bidirectional=draw(st.booleans()),
        bias=draw(st.booleans()),
        data_format=draw(st.sampled_from(formats)),
        framework=framework,
    )


def closed_form(spec: ConvLSTMSpec) -> int:
    """4F·(∏k·(C_in + F) + n·b) per layer and direction, restated from conventions.md."""
    f, kv, b = spec.filters, spec.kernel_volume, int(spec.bias)
    n = 1 if spec.framework is Framework.KERAS else 2
    total, channels = 0, spec.input_channels
    for _ in range(spec.num_layers):
        total += spec.directions * 4 * f * (kv * (channels + f) + n * b)
        wide = spec.bidirectional and spec.data_format is DataFormat.CHANNELS_LAST
        channels = 2 * f if wide else f
    return total


@settings(max_examples=200, deadline=None)
@given(conv_specs())
def test_tensors_formula_and_closed_form_agree(spec: ConvLSTMSpec) -> None:
    """Tensor list, formula, closed form, per-layer rows and the growth rows all agree."""
    report = build_conv_report(spec)
    assert report.total == report.formula.total == closed_form(spec)
    assert sum(row.total for row in report.layers) == report.total
    if report.naive is not None:
        assert report.total - report.naive == sum(row.extra for row in report.growth)


def test_channels_first_bidirectional_is_exactly_twice() -> None:
    """channels_first: Bidirectional concatenates on a spatial axis, so no layer reads 2F."""
    spec = ConvLSTMSpec(2, 3, 5, (3, 3), num_layers=3, bidirectional=True,
                        data_format=DataFormat.CHANNELS_FIRST)
    assert convention.input_channels(spec) == [3, 5, 5]
    assert build_conv_report(spec).total == build_conv_report(spec).naive
    last = spec.replace(data_format=DataFormat.CHANNELS_LAST)
    assert convention.input_channels(last) == [3, 10, 10]


@pytest.mark.keras
@pytest.mark.skipif(not (have("keras") and have("tensorflow")), reason="keras is not installed")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conv_specs(frameworks=(Framework.KERAS,)))
def test_keras_layers_match_the_engine(spec: ConvLSTMSpec) -> None:
    """Real ConvLSTM{1,2,3}D layers (stacked, Bidirectional, either data_format) agree exactly."""
    from paramcount.verify.convlstm_backend import keras_tensors

    assert keras_tensors(spec) == [(t.name, t.shape) for t in convention.tensors(spec)]


@pytest.mark.flax
@pytest.mark.skipif(not have("flax"), reason="flax is not installed")
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conv_specs(frameworks=(Framework.FLAX_LINEN,)))
def test_flax_conv_lstm_cell_matches_the_engine(spec: ConvLSTMSpec) -> None:
    """Real linen ConvLSTMCell stacks agree with the engine, path by path."""
    from paramcount.verify.convlstm_backend import flax_tensors

    assert sorted(flax_tensors(spec)) == sorted((t.name, t.shape)
                                                for t in convention.tensors(spec))


@pytest.mark.parametrize(
    ("text", "rank", "sizes"),
    [("3x3", 2, (3, 3)), ("3", 3, (3, 3, 3)), ("5X1", 2, (5, 1)), ("3×3", 2, (3, 3)),
     (" 3 x 2 ", 2, (3, 2))],
    ids=["3x3", "broadcast", "upper-x", "times-sign", "spaces"],
)
def test_kernel_strings(text: str, rank: int, sizes: tuple[int, ...]) -> None:
    """Kernel sizes are parsed from 3x3-style strings; one size applies to every axis."""
    assert parse_kernel(text, rank) == sizes


BAD = [
    ("kernel-trailing-x", ["-k", "3x"], "--kernel 3x is not a kernel size"),
    ("kernel-leading-x", ["-k", "x3"], "--kernel x3 is not a kernel size"),
    ("kernel-zero", ["-k", "0x3"], "--kernel 0x3 is not a kernel size"),
    ("kernel-letters", ["-k", "axb"], "--kernel axb is not a kernel size"),
    ("kernel-rank", ["-k", "3x3x3"], "--kernel 3x3x3 gives 3 sizes for --rank 2"),
    ("rank-4", ["--rank", "4"], "--rank': 4 is not in the range 1<=x<=3"),
    ("filters-zero", ["-F", "0"], "--filters 0 must be a positive integer"),
    ("channels-negative", ["-C", "-2"], "--input-channels -2 must be a positive integer"),
    ("layers-zero", ["-L", "0"], "--layers 0 must be a positive integer"),
    ("flax-channels-first", ["-f", "flax-linen", "--data-format", "channels_first"],
     "--data-format channels_first is a Keras option"),
    ("framework-onnx", ["-f", "onnx"], "'onnx' is not one of keras, flax-linen, all (ONNX is not "
     "available to this command)"),
    ("format-unknown", ["--data-format", "nchw"], "'nchw' is not one of"),
]


@pytest.mark.parametrize(("args", "message"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_is_one_line_exit_2(cli: CLI, args: list[str], message: str) -> None:
    """Bad values print one line naming the option, and exit 2."""
    base = {"--rank": "2", "-C": "3", "-F": "5", "-k": "3x3"}
    for flag, value in zip(args[::2], args[1::2], strict=True):
        base[flag] = value
    result = cli("convlstm", *(part for pair in base.items() for part in pair))
    assert (result.code, result.out) == (2, "")
    assert result.err.count("\n") == 1 and result.err.startswith("Error: ")
    assert message in result.err


def test_api_rank_mismatch_names_the_fields() -> None:
    """The Python API names kernel and rank the way they are spelled there."""
    with pytest.raises(SpecError, match=r"kernel='3x3' has 2 sizes for rank=3"):
        ConvLSTMSpec(3, 3, 5, (3, 3))


def test_json_output(cli: CLI) -> None:
    """--json gives the convlstm schema with exact totals and per-tensor rows."""
    data = json.loads(cli("convlstm", "--rank", "2", "-C", "3", "-F", "5", "-k", "3x2", "-L", "2",
                          "--bidir", "--no-bias", "--json").out)
    assert data["schema"] == "paramcount.convlstm/1"
    assert (data["total"], data["unidirectional"]) == (5_520, 2_160)
    tensor = data["tensors"][4]
    assert tensor["name"] == "bidirectional_1/forward_conv_lstm2d_1/conv_lstm_cell/kernel"
    assert tensor["shape"] == [3, 2, 10, 20]


def test_all_shows_keras_and_flax(cli: CLI) -> None:
    """--framework all shows both conventions and their totals side by side."""
    data = json.loads(cli("convlstm", "--rank", "2", "-C", "3", "-F", "5", "-k", "3",
                          "-f", "all", "--json").out)
    assert [(r["framework"], r["total"]) for r in data["reports"]] == [
        ("keras", 1_460), ("flax-linen", 1_480)]


def test_docstring_examples() -> None:
    """The examples in paramcount.engine.convlstm_report's docstrings run."""
    import doctest

    import paramcount.engine.convlstm_report

    assert doctest.testmod(paramcount.engine.convlstm_report).failed == 0


def test_convlstm_command_imports_no_framework() -> None:
    """``paramcount convlstm`` is a formula command: no framework, no rich when piped."""
    from tests.test_imports import HEAVY, loaded_after

    args = ["convlstm", "--rank", "2", "-C", "3", "-F", "5", "-k", "3x3", "--bidir", "-f", "all"]
    code = (
        "import contextlib, io\nfrom paramcount.cli.main import run\n"
        f"with contextlib.redirect_stdout(io.StringIO()): assert run({args!r}) == 0"
    )
    assert not loaded_after(code) & {*HEAVY, "rich"}


def test_keras_and_shared_words_are_aliases(cli: CLI) -> None:
    """Keras' own names (--kernel-size, --use-bias) and the count commands' --bidirectional
    give the same answer as -k, --bias and --bidir."""
    short = cli("convlstm", "--rank", "2", "-C", "3", "-F", "5", "-k", "3x3", "--bidir",
                "--no-bias", "--json")
    long = cli("convlstm", "--rank", "2", "--input-channels", "3", "--filters", "5",
               "--kernel-size", "3x3", "--bidirectional", "--no-use-bias", "--json")
    assert short.code == long.code == 0, long.err
    assert long.out == short.out
