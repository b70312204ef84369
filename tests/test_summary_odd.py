"""``paramcount.summary(model)`` on the torch models people really hold (issue 38): attribute
hooks that raise, cycles, old overrides, quantized, parametrized, pruned, lazy, compiled and
wrapped models: torch's own count, each layer recognised, every note true, never a traceback."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest

import paramcount
from paramcount.engine.spec import Cell, LayerSpec
from tests.conftest import have

pytestmark = pytest.mark.skipif(not have("torch"), reason="needs torch")


def torch_total(model: Any) -> int:
    """torch's own count: ``parameters()`` gives each parameter once."""
    return sum(p.numel() for p in model.parameters())


def _raising_getattr() -> Any:
    from torch import nn

    class Hooked(nn.Module):
        """A module whose ``__getattr__`` raises a KeyError for anything it does not hold."""

        def __init__(self) -> None:
            super().__init__()
            self.lstm = nn.LSTM(3, 4)

        def __getattr__(self, name: str) -> Any:
            if name in ("config", "named_parameters_", "_orig_mod") or name.startswith("__"):
                raise KeyError(name)
            return super().__getattr__(name)

    return Hooked()


def _own_child() -> Any:
    from torch import nn

    class Loop(nn.Module):
        """A module that is its own child, beside a Linear(5, 8)."""

        def __init__(self) -> None:
            super().__init__()
            self.linear = nn.Linear(5, 8)
            self.me = self

    return Loop()


def _each_other() -> Any:
    from torch import nn

    a, b = nn.Sequential(nn.Linear(4, 5)), nn.Sequential(nn.Linear(4, 10))
    a.add_module("b", b)
    b.add_module("a", a)
    return a


def _old_override() -> Any:
    from torch import nn

    class Old(nn.Module):
        """``named_parameters`` with the signature before torch 2.0 (no remove_duplicate)."""

        def __init__(self) -> None:
            super().__init__()
            self.lstm = nn.LSTM(3, 4)

        def named_parameters(  # type: ignore[override]
                self, prefix: str = "", recurse: bool = True) -> Any:
            return super().named_parameters(prefix, recurse)

    return Old()


@pytest.mark.parametrize(("build", "total", "layers"), [
    (_raising_getattr, 144, ["lstm"]),
    (_own_child, 48, []),
    (_each_other, 75, []),
    (_old_override, 144, ["lstm"]),
], ids=["getattr-raises-keyerror", "own-child", "each-other", "pre-2.0-named-parameters"])
def test_odd_modules_read_whole(build: Callable[[], Any], total: int, layers: list[str]) -> None:
    """Each odd module is read without a traceback, with torch's own unique count (the
    issue's 48 and 75 for the cycles, as torch's parameters() walks them once)."""
    model = build()
    result = paramcount.summary(model)
    assert result.total == torch_total(model) == total
    assert [layer.name for layer in result.recurrent] == layers
    assert repr(result) and result.to_json()


def quantized_dynamic() -> Any:
    """``quantize_dynamic`` on an LSTM(4, 8) and a Linear(8, 3): 475 weights, packed."""
    import torch
    from torch import nn

    class Tagger(nn.Module):
        """An LSTM and a Linear."""

        def __init__(self) -> None:
            super().__init__()
            self.lstm = nn.LSTM(4, 8)
            self.fc = nn.Linear(8, 3)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.ao.quantization is deprecated
        return torch.ao.quantization.quantize_dynamic(Tagger(), {nn.LSTM, nn.Linear},  # type: ignore[no-untyped-call]
                                                      dtype=torch.qint8)


def test_quantize_dynamic_packed_weights() -> None:
    """The packed weights are counted as held, by dtype, beside parameters()' 0, with a note,
    and the LSTM is recognised from their shapes."""
    model = quantized_dynamic()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = paramcount.summary(model)
    assert result.total == torch_total(model) == 0
    assert result.packed == 475
    packed = {t.tensor.name: t.tensor.dtype for t in result.tensors if t.kind.value == "packed"}
    assert packed["lstm.weight_ih_l0"] == "qint8" and packed["fc.bias"] == "float32"
    assert any("475 weights packed (408 qint8, 67 float32)" in n for n in result.notes)
    [lstm] = result.recurrent
    assert lstm.spec == LayerSpec(Cell.LSTM, 4, 8) and lstm.match
    assert "475 weights packed" in repr(result)
    assert result.to_dict()["packed"] == 475


def test_static_quantization_packed_weights() -> None:
    """A statically quantized conv and linear hold their weights packed in qint8."""
    import torch
    from torch import nn

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = nn.Sequential(torch.ao.quantization.QuantStub(), nn.Conv2d(3, 4, 3),
                              nn.Flatten(), nn.Linear(16, 2),
                              torch.ao.quantization.DeQuantStub()).eval()
        model.qconfig = torch.ao.quantization.get_default_qconfig("x86")  # type: ignore[no-untyped-call]
        prepared = torch.ao.quantization.prepare(model)  # type: ignore[no-untyped-call]
        prepared(torch.randn(1, 3, 4, 4))
        quantized = torch.ao.quantization.convert(prepared)  # type: ignore[no-untyped-call]
        result = paramcount.summary(quantized)
    assert result.total == torch_total(quantized) == 0
    held = {t.tensor.name: (t.tensor.dtype, t.tensor.count) for t in result.tensors
            if t.kind.value == "packed"}
    assert held == {"1.weight": ("qint8", 108), "1.bias": ("float32", 4),
                    "3.weight": ("qint8", 32), "3.bias": ("float32", 2)}


def test_fp8_and_int8_weights_by_dtype() -> None:
    """Weights held as float8 and int8 parameters are counted as torch counts them, and a
    note gives the parameters by dtype."""
    import torch
    from torch import nn

    model = nn.Linear(4, 4)
    model.weight = nn.Parameter(model.weight.detach().to(torch.float8_e4m3fn),
                                requires_grad=False)
    model.register_parameter("scale", nn.Parameter(torch.zeros(4, dtype=torch.int8),
                                                   requires_grad=False))
    result = paramcount.summary(model)
    assert result.total == torch_total(model) == 24
    assert "parameters by dtype, as the model holds them: 16 float8_e4m3fn, 4 float32, " \
           "4 int8" in result.notes
    assert result.summary.bytes == 16 + 16 + 4


def _weight_norm(lstm: Any) -> None:
    import torch

    torch.nn.utils.parametrizations.weight_norm(lstm, "weight_hh_l0")


def _old_weight_norm(lstm: Any) -> None:
    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated in favour of the parametrization
        torch.nn.utils.weight_norm(lstm, "weight_hh_l0")


def _spectral_norm(lstm: Any) -> None:
    import torch

    torch.nn.utils.parametrizations.spectral_norm(lstm, "weight_hh_l0")


def _prune(lstm: Any) -> None:
    import torch.nn.utils.prune

    torch.nn.utils.prune.l1_unstructured(lstm, "weight_hh_l0", 0.3)  # type: ignore[no-untyped-call]


@pytest.mark.parametrize(("apply", "extra"), [
    (_weight_norm, "parametrizations.weight_hh_l0.original0 (32, 1)"),
    (_old_weight_norm, "weight_hh_l0_g (32, 1)"),
    (_spectral_norm, "parametrizations.weight_hh_l0.0._u (32,)"),
    (_prune, "weight_hh_l0_mask (32, 8)"),
], ids=["weight_norm", "old-weight_norm", "spectral_norm", "prune"])
def test_parametrized_lstm_recognised(apply: Callable[[Any], None], extra: str) -> None:
    """An LSTM under a weight norm, spectral norm or pruning is recognised from its original
    shapes, the tensors beside them named, the total torch's own."""
    from torch import nn

    lstm = nn.LSTM(5, 8, num_layers=2)
    apply(lstm)
    model = nn.Sequential(lstm, nn.Linear(8, 2))
    result = paramcount.summary(model)
    assert result.total == torch_total(model)
    [layer] = result.recurrent
    assert layer.name == "0" and layer.spec == LayerSpec(Cell.LSTM, 5, 8, num_layers=2)
    assert layer.match
    [note] = [n for n in result.notes if "weight_hh_l0 is computed by" in n]
    assert extra in note
    assert not any("read from their shapes" in n or "match no layer" in n
                   for n in result.notes)


def test_lazy_note_counts_buffers_as_buffers() -> None:
    """A lazy BatchNorm's running statistics are named as buffers, not as parameters."""
    from torch import nn

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # lazy modules are experimental
        model = nn.Sequential(nn.LazyLinear(3), nn.LazyBatchNorm1d(), nn.LSTM(3, 2))
    result = paramcount.summary(model)
    assert result.total == 56
    [note] = [n for n in result.notes if "not yet initialized" in n]
    assert note.startswith("4 parameters (0.weight, 0.bias, 1.weight ...) and 2 buffers "
                           "(1.running_mean, 1.running_var) are not yet initialized")


def _compiled(model: Any) -> Any:
    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.jit's deprecation, raised while compiling
        return torch.compile(model)


def _data_parallel(model: Any) -> Any:
    from torch import nn

    return nn.DataParallel(model)


@pytest.mark.parametrize(("wrap", "says"), [
    (_compiled, "a torch.compile'd model: its parameters are its original module's "
                "(LSTM, under _orig_mod)"),
    (_data_parallel, "an nn.DataParallel wrapper: its parameters are the wrapped module's "
                     "(LSTM, under module)"),
], ids=["compiled", "data-parallel"])
def test_wrapped_models_get_no_checkpoint_advice(wrap: Callable[[Any], Any], says: str) -> None:
    """A compiled or DataParallel model is said to be one, with no advice on loading a
    checkpoint nobody saved."""
    from torch import nn

    model = wrap(nn.LSTM(3, 4))
    result = paramcount.summary(model)
    assert result.total == torch_total(model) == 144
    assert says in result.notes
    text = repr(result)
    assert "saved from" not in text and "strip it" not in text


def _scripted(model: Any) -> Any:
    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.jit is deprecated
        return torch.jit.script(model)


def _traced(model: Any) -> Any:
    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.jit is deprecated
        return torch.jit.trace(model, torch.zeros(2, 3, dtype=torch.long))


@pytest.mark.parametrize("convert", [_scripted, _traced], ids=["scripted", "traced"])
def test_script_and_traced_modules(convert: Callable[[Any], Any]) -> None:
    """A scripted or traced model (whose tables a traced module reaches through its
    ``__getattr__``) is read whole: torch's count, its buffer, its LSTM."""
    import torch
    from torch import nn

    class Tagger(nn.Module):
        """An embedding, an LSTM, a head and a buffer."""

        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(10, 4)
            self.lstm = nn.LSTM(4, 8)
            self.head = nn.Linear(8, 2)
            self.register_buffer("offset", torch.zeros(3))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            out, _ = self.lstm(self.embed(x))
            return self.head(out) + self.offset.sum()

    model = convert(Tagger())
    result = paramcount.summary(model)
    assert result.total == torch_total(model) == 506
    assert result.buffers == 3
    assert [(layer.name, layer.spec) for layer in result.recurrent] == [
        ("lstm", LayerSpec(Cell.LSTM, 4, 8))]
