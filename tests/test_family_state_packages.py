"""The state of the layouts transformers does not build, against the state their own packages
return: a tiny model with real (random) weights run on CPU for two lengths, the tensors of the
state it hands back summed, equal to paramcount's figure. RWKV-5 to 7: the ``rwkv`` package
(BlinkDL's inference code, its ``cpu`` strategy) loading a state dict written from
paramcount's own tensors; xLSTM: the ``xlstm`` package's ``xLSTMLMModel.step`` (sLSTM on its
vanilla backend); minGRU / minLSTM and minLM: mingru-pytorch's returned hidden states."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from paramcount.families import registry as families
from paramcount.families import state
from paramcount.families.mingru import MinGRUConfig
from paramcount.families.minlm import MinLMConfig
from paramcount.families.xlstm_lm import XLSTMLMConfig
from tests.conftest import have
from tests.test_family_state import _tensors

TOKENS = (5, 9)
"""The two lengths each model runs: its state is the same bytes after both."""

DTYPES = {"fp32": "float32", "bf16": "bfloat16"}
"""paramcount's dtype → torch's."""


def _reference(module: str) -> list[Any]:
    """The marks of a test that needs torch and ``module``."""
    return [pytest.mark.torch,
            pytest.mark.skipif(not (have("torch") and have(module)),
                               reason=f"torch and {module} are not installed")]


RWKV_RUN = """
import json, sys, torch
from rwkv.model import RWKV
sizes = []
for path, strategy, tokens in json.loads(sys.argv[1]):
    model = RWKV(path, strategy) if sys.argv[2] == "7" else RWKV(path, strategy, verbose=False)
    sizes.append([sum(t.nbytes for t in model.forward(list(range(n)), None)[1])
                  for n in tokens])
print(json.dumps(sizes))
"""
"""Loads each model file of ``argv[1]`` with its strategy, runs each of its lengths from a
fresh state and prints the bytes of the state the package returns. In a process of its own:
the package picks RWKV-7's class (``argv[2]``) and its TorchScript from environment variables
read on import."""

RWKV_CASES = {
    "v5": {"version": 5},
    "v5-head-4": {"version": 5, "head_size": 4},
    "v6": {"version": 6},
    "v6-one-head": {"version": 6, "head_size": 16, "num_hidden_layers": 3},
    "v7": {"version": 7},
    "v7-head-4": {"version": 7, "head_size": 4},
}
"""Tiny RWKV configs by id (hidden 16, head 8, 2 layers, a vocabulary of 32, unless given).
All with ``attention_hidden_size`` = C: the package's sequence kernels take the head width
as C / H, so a wider time-mix does not run in it."""


def _rwkv_config(case: str) -> Any:
    """The config of :data:`RWKV_CASES` ``case``."""
    return families.build("rwkv", {"hidden_size": 16, "head_size": 8, "num_hidden_layers": 2,
                                   "vocab_size": 32, "intermediate_size": 32,
                                   **RWKV_CASES[case]})


def _rwkv_run(seven: bool, folder: Path) -> dict[tuple[str, str], list[int]]:
    """The state bytes the ``rwkv`` package returns for every case of RWKV-7 (``seven``) or of
    RWKV-5 and 6, in each dtype, after each of :data:`TOKENS`, by case and dtype: each model a
    state dict of paramcount's tensors with random values, all run in one process."""
    import torch

    jobs, keys = [], []
    for case in RWKV_CASES:
        config = _rwkv_config(case)
        if (config.version == 7) is not seven:
            continue
        torch.manual_seed(0)
        torch.save({t.name: torch.rand(t.shape) / 10
                    for t in families.tensors("rwkv", config)}, folder / f"{case}.pth")
        for dtype in DTYPES:
            jobs.append([str(folder / case), f"cpu {dtype}", list(TOKENS)])
            keys.append((case, dtype))
    env = {**os.environ, "RWKV_JIT_ON": "0", "RWKV_CUDA_ON": "0",
           "RWKV_V7_ON": "1" if seven else "0"}
    run = subprocess.run([sys.executable, "-c", RWKV_RUN, json.dumps(jobs), "7" if seven else ""],
                         capture_output=True, text=True, env=env, timeout=600, check=False)
    assert run.returncode == 0, run.stderr
    return dict(zip(keys, json.loads(run.stdout.splitlines()[-1]), strict=True))


@pytest.fixture(scope="module")
def rwkv_runs(tmp_path_factory: pytest.TempPathFactory) -> Callable[[bool], dict[
        tuple[str, str], list[int]]]:
    """:func:`_rwkv_run`, once for RWKV-5 and 6 and once for RWKV-7 in this module."""
    made: dict[bool, dict[tuple[str, str], list[int]]] = {}

    def runs(seven: bool) -> dict[tuple[str, str], list[int]]:
        if seven not in made:
            made[seven] = _rwkv_run(seven, tmp_path_factory.mktemp("rwkv"))
        return made[seven]
    return runs


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("case", [pytest.param(name, marks=_reference("rwkv"), id=name)
                                  for name in RWKV_CASES])
def test_rwkv_state_is_the_rwkv_packages(case: str, dtype: str, rwkv_runs: Callable[
        [bool], dict[tuple[str, str], list[int]]]) -> None:
    """RWKV-5, 6 and 7: the ``rwkv`` package loads a state dict of paramcount's tensors (its
    names and shapes) and returns, after 5 and after 9 tokens, a state of paramcount's bytes
    (the WKV state in float32 whatever the strategy's dtype)."""
    config = _rwkv_config(case)
    layers = state.declared("rwkv", config)
    assert layers is not None
    ours = [state.memory(layers, tokens, 1, dtype).total for tokens in TOKENS]
    assert rwkv_runs(config.version == 7)[case, dtype] == ours


XLSTM_CASES = {
    "mlstm": XLSTMLMConfig(vocab_size=32, embedding_dim=32, num_blocks=2, mlstm_num_heads=2),
    "mixed": XLSTMLMConfig(vocab_size=32, embedding_dim=32, num_blocks=3, slstm_at=(1,),
                           mlstm_num_heads=2, slstm_num_heads=2, slstm_backend="vanilla"),
    "slstm-no-conv": XLSTMLMConfig(vocab_size=32, embedding_dim=16, num_blocks=2,
                                   slstm_at=(0,), slstm_conv1d_kernel_size=0,
                                   slstm_num_heads=4, mlstm_conv1d_kernel_size=3,
                                   mlstm_proj_factor=1.0, mlstm_num_heads=1,
                                   slstm_backend="vanilla"),
}
"""Tiny xlstm-package models by id: mLSTM blocks alone, an sLSTM block between two, an sLSTM
block without its conv beside an mLSTM of another conv width and inner width."""


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("config", [pytest.param(c, marks=_reference("xlstm"), id=name)
                                    for name, c in XLSTM_CASES.items()])
def test_xlstm_state_is_the_xlstm_packages(config: XLSTMLMConfig, dtype: str) -> None:
    """The xlstm package's ``xLSTMLMModel.step``, token by token for a batch of 2, returns after
    5 and after 9 tokens a state of paramcount's bytes (mLSTM: conv, C, n, m; sLSTM: conv and
    h, c, n, m)."""
    import torch
    from xlstm import xLSTMLMModel

    from tests.test_family_xlstm import _package_config

    torch.manual_seed(0)
    model = xLSTMLMModel(_package_config(config))
    model.reset_parameters()
    model = model.to(getattr(torch, DTYPES[dtype])).eval()
    layers = state.declared("xlstm-lm", config)
    assert layers is not None
    held, sizes = None, []
    with torch.no_grad():
        for step in range(1, max(TOKENS) + 1):
            _, held = model.step(torch.randint(0, 32, (2, 1)), held)
            if step in TOKENS:
                sizes.append(sum(t.nbytes for t in _tensors(held)))
    assert sizes == [state.memory(layers, tokens, 2, dtype).total for tokens in TOKENS]


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("heads", [pytest.param(h, marks=_reference("xlstm"), id=f"{h}-heads")
                                   for h in (1, 4)])
def test_slstm_cuda_state_is_the_cells(heads: int, dtype: str) -> None:
    """The sLSTM's cuda backend (its kernel needs CUDA, so it is not run): the zero state its
    cell class allocates, built without compiling the kernel, holds per sequence the h, c, n
    and m paramcount counts for an sLSTM block without a conv."""
    import torch
    from xlstm.blocks.slstm.cell import sLSTMCell_cuda, sLSTMCellConfig

    config = XLSTMLMConfig(embedding_dim=32, slstm_at=(0,), slstm_num_heads=heads,
                           slstm_backend="cuda", slstm_conv1d_kernel_size=0)
    cell = sLSTMCell_cuda(sLSTMCellConfig(hidden_size=32, num_heads=heads),
                          skip_backend_init=True)
    kind = getattr(torch, DTYPES[dtype])
    zero = cell._zero_state(torch.zeros(1, 2, 4 * 32, dtype=kind))  # (steps, batch, 4 gates)
    layers = state.declared("xlstm-lm", config)
    assert layers is not None
    assert zero.nbytes == state.memory(layers, 1, 2, dtype).total


LAYER_CASES = {
    "mingru": MinGRUConfig(dim=16),
    "mingru-expanded": MinGRUConfig(dim=16, expansion_factor=1.5),
    "minlstm-projected": MinGRUConfig(dim=16, expansion_factor=2.0, use_lstm=True),
}
"""Tiny minGRU / minLSTM layers by id."""


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("config", [pytest.param(c, marks=_reference("minGRU_pytorch"), id=name)
                                    for name, c in LAYER_CASES.items()])
def test_mingru_state_is_the_hidden_it_returns(config: MinGRUConfig, dtype: str) -> None:
    """minGRU / minLSTM's ``return_next_prev_hidden`` after 5 and after 9 tokens, for a batch
    of 2, is paramcount's state."""
    import torch
    from minGRU_pytorch.minGRU import minGRU
    from minGRU_pytorch.minLSTM import minLSTM

    kind = getattr(torch, DTYPES[dtype])
    torch.manual_seed(0)
    layer = (minLSTM if config.use_lstm else minGRU)(
        config.dim, expansion_factor=config.expansion_factor, proj_out=config.proj_out).to(kind)
    layers = state.declared("mingru", config)
    assert layers is not None
    for tokens in TOKENS:
        with torch.no_grad():
            _, hidden = layer(torch.randn(2, tokens, config.dim, dtype=kind),
                              return_next_prev_hidden=True)
        assert hidden.nbytes == state.memory(layers, tokens, 2, dtype).total


LM_CASES = {
    "mingru": MinLMConfig(num_tokens=32, dim=16, depth=3),
    "minlstm": MinLMConfig(num_tokens=32, dim=16, depth=2, expansion=2.0, use_lstm=True),
    "conv": MinLMConfig(num_tokens=32, dim=16, depth=2, enable_conv=True, conv_kernel_size=4),
}
"""Tiny minLM models by id (the last with its causal conv)."""


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("config", [pytest.param(c, marks=_reference("minGRU_pytorch"), id=name)
                                    for name, c in LM_CASES.items()])
def test_minlm_state_is_the_hiddens_it_returns(config: MinLMConfig, dtype: str) -> None:
    """minLM's ``return_prev_hiddens`` after 5 and after 9 tokens, for a batch of 2, is
    paramcount's state; with ``enable_conv`` the package keeps no conv state (its
    ``can_cache`` is False), and paramcount's conv piece, K − 1 inputs of dim per layer, is
    what the conv reads: its last output from the last K inputs equals the one from the whole
    sequence."""
    import torch
    from minGRU_pytorch.minLM import minLM

    kind = getattr(torch, DTYPES[dtype])
    torch.manual_seed(0)
    model = minLM(num_tokens=config.num_tokens, dim=config.dim, depth=config.depth,
                  ff_mult=config.ff_mult, expansion=config.expansion,
                  conv_kernel_size=config.conv_kernel_size, use_lstm=config.use_lstm,
                  enable_conv=config.enable_conv).to(kind).eval()
    layers = state.declared("minlm", config)
    assert layers is not None
    conv = sum(p.fixed for s in layers for p in s.pieces if p.name == "conv")
    size = torch.finfo(kind).bits // 8
    assert model.can_cache is not config.enable_conv
    for tokens in TOKENS:
        with torch.no_grad():
            _, hiddens = model(torch.randint(0, 32, (2, tokens)), return_prev_hiddens=True)
        ours = state.memory(layers, tokens, 2, dtype).total
        assert sum(h.nbytes for h in hiddens) == ours - 2 * conv * size
    kept = (config.conv_kernel_size - 1) * config.dim * config.depth
    assert conv == (kept if config.enable_conv else 0)
    if config.enable_conv:
        layer = model.layers[0][0]
        x = torch.randn(2, max(TOKENS), config.dim, dtype=kind)
        with torch.no_grad():
            whole, last = layer(x)[:, -1], layer(x[:, -config.conv_kernel_size:])[:, -1]
            short = layer(x[:, -config.conv_kernel_size + 1:])[:, -1]
        assert torch.allclose(whole.float(), last.float(), atol=1e-3)
        assert not torch.allclose(whole.float(), short.float(), atol=1e-1)


@pytest.mark.parametrize("name", list(families.FAMILIES))
def test_every_family_declares_its_state(name: str) -> None:
    """Every family, at its defaults, says what one sequence keeps between tokens: a family
    added without a ``state`` (or a hybrid part without its cache) fails here, named (with
    the fields a family's defaults lack for a model to be built: Qwen4-Exp's indexer)."""
    from tests.hybrid_strategies import NEEDED

    assert state.declared(name, families.build(name, NEEDED.get(name, {}))) is not None


@pytest.mark.parametrize("args", [
    ["rwkv", "--version", "7", "-L", "2", "--hidden-size", "64"],
    ["xlstm", "--impl", "xlstm", "--num-blocks", "2", "--slstm-at", "1"],
    ["mingru", "--dim", "16"],
    ["mingru", "--impl", "lm", "--enable-conv"],
], ids=["rwkv-7", "xlstm-package", "mingru", "minlm-conv"])
def test_context_is_answered_for_the_package_layouts(cli: Any, args: list[str]) -> None:
    """``--context`` on RWKV-7, the xlstm package's layout, minGRU and minLM answers (exit 0)
    with a state that does not grow, and says so in the JSON; minLM with its conv says the
    package itself keeps none."""
    result = cli(*args, "--context", "4096", "--batch", "2", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)["state"]
    assert (data["batch"], data["growing_bytes"]) == (2, 0)
    assert data["bytes"] == sum(k["bytes"] for k in data["kinds"]) > 0
    assert bool(data["notes"]) is ("--enable-conv" in args)


def test_a_state_not_declared_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where a family's layers declare no state (a hybrid's new mixer), ``at_context`` refuses
    in one sentence naming the family rather than giving a figure without it."""
    from paramcount.errors import SpecError

    monkeypatch.setattr(state, "declared", lambda name, config: None)
    with pytest.raises(SpecError, match="the inference state of minGRU"):
        state.at_context("mingru", families.build("mingru", {}), 10)
