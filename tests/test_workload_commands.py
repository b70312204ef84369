"""``paramcount compute`` and ``paramcount memory``, and --verify measuring the MACs with
torch's FlopCounterMode."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paramcount.analysis.compute import forward
from paramcount.engine.spec import Cell, Framework, LayerSpec
from tests.conftest import CLI, have
from tests.strategies import layer_specs

TORCH = pytest.mark.skipif(not have("torch"), reason="torch is not installed")
LAYER = ["lstm", "-i", "32", "-H", "128", "-L", "2", "--bidir"]


def test_compute_and_memory_are_listed(cli: CLI) -> None:
    """`paramcount --help` lists the names people guess."""
    out = cli("--help").out
    assert "  compute " in out
    assert "  memory " in out


def test_compute_is_the_seq_len_view(cli: CLI) -> None:
    """`compute` holds exactly what `lstm -T` holds in its compute key, and leads with MACs."""
    args = [*LAYER, "-T", "100", "-N", "8"]
    view = json.loads(cli(*args, "--json").out)["compute"]
    command = json.loads(cli("compute", *args, "--json").out)
    assert command["schema"] == "paramcount.compute/1"
    assert command["compute"] == view
    text = cli("compute", *args).out.splitlines()
    assert text[1].startswith(f"{view['macs']:,} MACs")


def test_compute_defaults_to_one_step(cli: CLI) -> None:
    """Without -T, compute counts one time step of one sequence; --lengths sets T itself."""
    one = json.loads(cli("compute", "gru", "-i", "4", "-H", "3", "--json").out)["compute"]
    assert (one["seq_len"], one["batch"]) == (1, 1)
    packed = json.loads(cli("compute", "gru", "-i", "4", "-H", "3", "--lengths", "5,2",
                            "--json").out)["compute"]
    assert (packed["seq_len"], packed["batch"], packed["steps"]) == (5, 2, 7)


def test_memory_is_the_optimizer_view(cli: CLI) -> None:
    """`memory` holds exactly what `lstm --optimizer` holds, Adam unless told otherwise."""
    view = json.loads(cli(*LAYER, "--optimizer", "adam", "--json").out)["memory"]
    command = json.loads(cli("memory", *LAYER, "--json").out)
    assert command["schema"] == "paramcount.memory/1"
    assert command["memory"] == view
    sgd = json.loads(cli("memory", *LAYER, "--optimizer", "sgd", "--json").out)["memory"]
    assert sgd["optimizer"] == "sgd"
    assert cli("memory", *LAYER).out.splitlines()[1].startswith(f"{view['bytes']:,} bytes")


@TORCH
@pytest.mark.parametrize(
    "args",
    [
        ["rnn", "-i", "5", "-H", "7", "-T", "3"],
        ["gru", "-i", "5", "-H", "7", "-L", "3", "--bidir", "-T", "4", "-N", "2"],
        ["lstm", "-i", "5", "-H", "7", "--proj", "3", "-L", "2", "--bidir", "-T", "2"],
        ["lstm", "-i", "5", "-H", "7", "--cell", "-T", "3", "-N", "2"],
        ["gru", "-i", "5", "-H", "7", "--lengths", "4,2,1", "--bidir"],
        ["lstm", "-i", "5", "-H", "7", "-L", "4", "--bidir", "-T", "1000", "-N", "3"],
    ],
    ids=["rnn", "gru-stacked-bidir", "lstm-proj", "cell", "packed", "long-scaled"],
)
def test_verify_measures_the_macs(cli: CLI, args: list[str]) -> None:
    """--verify with -T runs the real torch layer under FlopCounterMode: its matmul FLOPs are
    exactly 2 × the MACs paramcount counts, and the output and JSON say so."""
    result = cli(*args, "--verify", "--json")
    assert result.code == 0, result.err
    compute = json.loads(result.out)["compute"]
    check = compute["verification"]
    assert check["counter"] == "torch.utils.flop_counter.FlopCounterMode"
    assert check["match"] is True
    assert check["real_matmul_flops"] == check["counted_matmul_flops"] == 2 * compute["macs"]
    assert set(check["measured"]["by_op"]) <= {"aten.addmm", "aten.mm"}
    text = cli(*args, "--verify").out
    assert "✓ MACs verified with torch.utils.flop_counter.FlopCounterMode" in " ".join(
        text.split())


@TORCH
def test_long_pass_is_measured_shorter_and_says_so(cli: CLI) -> None:
    """A pass too long to run step by step is measured over fewer steps, stated in the output."""
    data = json.loads(cli("compute", "lstm", "-i", "5", "-H", "7", "-T", "100000", "--verify",
                          "--json").out)
    measured = data["compute"]["verification"]["measured"]
    assert measured["seq_len"] == 256
    assert measured["steps"] == 256
    text = " ".join(cli("compute", "lstm", "-i", "5", "-H", "7", "-T", "100000",
                        "--verify").out.split())
    assert "scaled by 100,000 / 256 sample-steps" in text


@TORCH
def test_macs_mismatch_exits_1(cli: CLI, monkeypatch: pytest.MonkeyPatch) -> None:
    """A FLOP counter that measures other work than counted makes --verify exit 1."""
    from paramcount.verify import torch_flops

    real = torch_flops._run
    monkeypatch.setattr(torch_flops, "_run",
                        lambda *a: (real(*a)[0] + 2, {"aten.addmm": real(*a)[0] + 2}))
    result = cli("compute", "gru", "-i", "5", "-H", "7", "-T", "3", "--verify")
    assert result.code == 1
    assert "✗ MACs mismatch" in " ".join(result.out.split())
    assert result.err.startswith("Error: MACs mismatch with torch.utils.flop_counter")
    assert result.err.count("\n") == 1


@pytest.mark.skipif(not (have("keras") and have("torch")), reason="keras or torch missing")
def test_keras_macs_are_not_measured_and_say_why(cli: CLI) -> None:
    """A Keras layer's parameters are verified; its MACs are declared unmeasured, not faked."""
    result = cli("compute", "gru", "-i", "5", "-H", "7", "-f", "keras", "-T", "3", "--verify",
                 "--json")
    assert result.code == 0, result.err
    check = json.loads(result.out)["compute"]["verification"]
    assert check["match"] is None and check["measured"] is None
    assert "PyTorch's FLOP counter only" in check["reason"]


@TORCH
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layer_specs(frameworks=(Framework.TORCH,), max_size=16, max_layers=3),
       st.integers(1, 4), st.integers(1, 3))
def test_flop_counter_agrees_on_any_torch_layer(spec: LayerSpec, seq_len: int,
                                                batch: int) -> None:
    """For any torch layer, FlopCounterMode's matmul FLOPs are exactly 2 × paramcount's MACs."""
    from paramcount.verify import check_flops
    from paramcount.verify.flops import FlopCheck

    check = check_flops(forward(spec, seq_len=seq_len, batch=batch))
    assert isinstance(check, FlopCheck)
    assert not check.scaled
    assert check.measured == check.counted


def test_compute_verify_refuses_nothing_silently(cli: CLI) -> None:
    """compute's own options are checked like the count commands' (one line, exit 2)."""
    result = cli("compute", "lstm", "-i", "5", "-H", "7", "--lengths", "4,0")
    assert result.code == 2
    assert result.err.count("\n") == 1


def test_cell_spec_counts_steps() -> None:
    """A single-step cell's compute counts T calls of the cell."""
    spec = LayerSpec(Cell.GRU, 5, 7, single_cell=True)
    assert forward(spec, seq_len=3, batch=2).macs == 3 * 2 * 3 * 7 * (5 + 7)


@TORCH
def test_cpu_fallback_when_meta_counts_nothing(cli: CLI, monkeypatch: pytest.MonkeyPatch) -> None:
    """If the meta device ever counted no FLOPs, the layer runs on CPU with oneDNN disabled
    (whose fused kernel would hide the products) and the output says where it ran."""
    from paramcount.verify import torch_flops

    real = torch_flops._run

    def meta_counts_nothing(*args: object) -> tuple[int, dict[str, int]]:
        return (0, {}) if args[-1] == "meta" else real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(torch_flops, "_run", meta_counts_nothing)
    result = cli("lstm", "-i", "5", "-H", "7", "-L", "2", "--bidir", "-T", "3", "-N", "4",
                 "--verify", "--json")
    assert result.code == 0, result.err
    check = json.loads(result.out)["compute"]["verification"]
    assert check["match"] is True
    assert check["measured"]["device"] == "cpu"
    assert check["measured"]["batch"] == 1
    assert check["measured"]["flops"] > 0
