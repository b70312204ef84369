"""Commands that run real layers bound their work, so that every run finishes in seconds."""

from __future__ import annotations

import pytest

from paramcount.engine.report import build_report
from paramcount.engine.spec import Cell, Framework, LayerSpec
from paramcount.errors import ConfigError
from paramcount.verify.proof import MAX_LAYER_RUNS, MAX_STEPS, MAX_WORK, guard
from tests.conftest import CLI

REFUSED = [
    (["-f", "keras", "-N", "1", "-T", "1000000"],
     "--seq-len 1,000,000 × --layers 1 = 1,000,000 sequential steps is too slow to run in "
     "Keras (limit 200); the flow does not depend on length, so use --seq-len 200 or less"),
    (["-f", "keras", "-L", "500"],
     "--layers 500 = 500 layers to build and run is more than a demonstration needs (limit 32)"),
    (["-L", "17", "--bidir"], "--layers 17 × 2 directions = 34 layers to build and run"),
    (["-N", "1", "-T", "20001"], "20,001 sequential steps is too slow to run in PyTorch"),
    (["-f", "keras", "-T", "60", "-L", "2", "--bidir"],
     "--seq-len 60 × --layers 2 × 2 directions = 240 sequential steps is too slow to run in "
     "Keras (limit 200); the flow does not depend on length, so use --seq-len 50 or less"),
    (["-i", "300", "-H", "1000", "-N", "4", "-T", "100"],
     "--batch 4 × --seq-len 100 × 5,208,000 parameters = 2,083,200,000 multiply-adds is too "
     "much to run in seconds (limit 2,000,000,000); use a smaller --batch, --seq-len, --hidden"),
]


@pytest.mark.parametrize("command", ["trace", "shapes"])
@pytest.mark.parametrize(("args", "message"), REFUSED, ids=[" ".join(a) for a, _ in REFUSED])
def test_work_that_cannot_finish_in_seconds_is_refused(
    cli: CLI, command: str, args: list[str], message: str
) -> None:
    """Too long, too deep or too much work: exit 2, one line saying what to lower."""
    extra = ["--verify"] if command == "shapes" else []
    result = cli(command, "lstm", "-i", "4", "-H", "8", *args, *extra)
    assert result.code == 2 and result.out == ""
    assert result.err.count("\n") == 1 and message in result.err


@pytest.mark.parametrize("framework", [Framework.TORCH, Framework.KERAS])
def test_limits_are_exact(framework: Framework) -> None:
    """Work exactly at each limit is allowed; one more step, layer or multiply-add is not."""
    steps = MAX_STEPS[framework]
    spec = LayerSpec(Cell.GRU, 2, 3, framework=framework)
    guard(spec, 1, steps)
    with pytest.raises(ConfigError, match="sequential steps"):
        guard(spec, 1, steps + 1)
    deep = LayerSpec(Cell.RNN, 2, 3, num_layers=MAX_LAYER_RUNS // 2, bidirectional=True,
                     framework=framework)
    guard(deep, 1, 1)
    with pytest.raises(ConfigError, match="layers to build and run"):
        guard(deep.replace(num_layers=MAX_LAYER_RUNS // 2 + 1), 1, 1)
    wide = LayerSpec(Cell.LSTM, 1000, 1000, framework=framework)
    batch = MAX_WORK // build_report(wide).total
    guard(wide, batch, 1)
    with pytest.raises(ConfigError, match="multiply-adds"):
        guard(wide, batch + 1, 1)


TOO_DEEP = [
    ("onnx", ["rnn", "-i", "2", "-H", "2", "-L", "10000", "-f", "onnx"],
     "--layers 10,000 = 10,000 layers to build and verify is more than a verification needs "
     "(limit 256); what it checks does not depend on depth, so use fewer --layers"),
    ("keras-bidir", ["lstm", "-i", "2", "-H", "2", "-L", "129", "--bidir", "-f", "keras"],
     "--layers 129 × 2 directions = 258 layers to build and verify"),
    ("torch", ["gru", "-i", "2", "-H", "2", "-L", "257"], "257 layers to build and verify"),
    ("all", ["lstm", "-i", "2", "-H", "2", "-L", "300", "-f", "all"], "(limit 256)"),
    ("explain", ["explain", "lstm", "-i", "2", "-H", "2", "-L", "300"], "(limit 256)"),
    ("fit", ["fit", "lstm", "-i", "2", "-L", "300", "--max-params", "100000"], "(limit 256)"),
    ("compare", ["compare", "gru -i 2 -H 2", "lstm -i 2 -H 2 -L 300"], "(limit 256)"),
    ("convlstm", ["convlstm", "--rank", "1", "-C", "2", "-F", "2", "-k", "3", "-L", "300"],
     "300 layers to build and verify"),
]


@pytest.mark.parametrize(("args", "message"), [c[1:] for c in TOO_DEEP],
                         ids=[c[0] for c in TOO_DEEP])
def test_verification_of_a_stack_too_deep_is_refused(
    cli: CLI, args: list[str], message: str
) -> None:
    """--verify builds every layer for real: a stack deeper than MAX_VERIFIED_LAYERS layer
    directions is refused before any layer is built (exit 2, one line naming the limit)."""
    result = cli(*args, "--verify")
    assert result.code == 2 and result.out == ""
    assert result.err.count("\n") == 1 and message in result.err


def test_verification_depth_limit_is_exact() -> None:
    """A stack of exactly MAX_VERIFIED_LAYERS layer directions may be verified; one more not."""
    from paramcount.verify import verifiable
    from paramcount.verify.proof import MAX_VERIFIED_LAYERS

    verifiable(MAX_VERIFIED_LAYERS // 2, True)
    verifiable(MAX_VERIFIED_LAYERS, False)
    with pytest.raises(ConfigError, match="layers to build and verify"):
        verifiable(MAX_VERIFIED_LAYERS // 2 + 1, True)
    with pytest.raises(ConfigError, match=f"limit {MAX_VERIFIED_LAYERS}"):
        verifiable(MAX_VERIFIED_LAYERS + 1, False)
