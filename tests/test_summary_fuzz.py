"""Random torch models with attribute hooks that raise, overridden parameter listings, cycles,
shared modules, tied weights and parametrizations: ``paramcount.summary`` gives torch's own
unique-parameter count or one ParamcountError line, never a traceback (issue 38)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import paramcount
from paramcount.errors import ParamcountError
from tests.conftest import have

pytestmark = pytest.mark.skipif(not have("torch"), reason="needs torch")

LEAVES = ("linear", "lstm", "gru", "rnn_cell", "embedding", "batchnorm", "conv")
WRAPS = ("none", "weight_norm", "old_weight_norm", "spectral_norm", "prune")
HOOKS = ("none", "key_error", "recursion", "value_error")
OVERRIDES = ("none", "old_named_parameters", "parameters")


def leaf(kind: str, width: int) -> Any:
    """A leaf module of ``kind`` on ``width`` features."""
    from torch import nn

    builders: dict[str, Callable[[], Any]] = {
            "linear": lambda: nn.Linear(width, width),
            "lstm": lambda: nn.LSTM(width, width + 1, num_layers=2),
            "gru": lambda: nn.GRU(width, width, bidirectional=True),
            "rnn_cell": lambda: nn.RNNCell(width, width),
            "embedding": lambda: nn.Embedding(10, width),
            "batchnorm": lambda: nn.BatchNorm1d(width),
            "conv": lambda: nn.Conv1d(width, width, 3)}
    return builders[kind]()


def wrapped(module: Any, wrap: str) -> None:
    """``module``'s first weight under a weight norm, spectral norm or pruning."""
    import torch
    import torch.nn.utils.prune

    name = next((n for n, p in module.named_parameters(recurse=False) if p.dim() >= 2), None)
    if name is None or wrap == "none":
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if wrap == "weight_norm":
            torch.nn.utils.parametrizations.weight_norm(module, name)
        elif wrap == "old_weight_norm":
            torch.nn.utils.weight_norm(module, name)
        elif wrap == "spectral_norm":
            torch.nn.utils.parametrizations.spectral_norm(module, name)
        else:
            torch.nn.utils.prune.random_unstructured(module, name, 0.5)  # type: ignore[no-untyped-call]


def node_class(hook: str, override: str) -> type:
    """A container class whose ``__getattr__`` raises ``hook``'s error for unknown names (once
    armed) and
    which overrides how torch lists its parameters as ``override`` says."""
    from torch import nn

    errors = {"key_error": KeyError, "recursion": RecursionError, "value_error": ValueError}

    class Node(nn.Module):
        """A user's container."""

        def __getattr__(self, name: str) -> Any:
            try:
                return super().__getattr__(name)
            except AttributeError:
                if hook == "none" or not self.__dict__.get("armed"):
                    raise
                raise errors[hook](name) from None

    if override == "old_named_parameters":
        def named_parameters(self: Any, prefix: str = "", recurse: bool = True) -> Any:
            return nn.Module.named_parameters(self, prefix, recurse)
        Node.named_parameters = named_parameters  # type: ignore[method-assign,assignment]
    elif override == "parameters":
        def parameters(self: Any, recurse: bool = True) -> Any:
            return iter(list(nn.Module.parameters(self, recurse)))
        Node.parameters = parameters  # type: ignore[method-assign]
    return Node


@st.composite
def models(draw: st.DrawFn) -> Any:
    """A random graph of user containers holding leaves, one another and themselves."""
    count = draw(st.integers(1, 4))
    nodes = [node_class(draw(st.sampled_from(HOOKS)), draw(st.sampled_from(OVERRIDES)))()
             for _ in range(count)]
    width = draw(st.integers(2, 5))
    leaves = []
    for k, node in enumerate(nodes):
        for j in range(draw(st.integers(0, 3))):
            module = leaf(draw(st.sampled_from(LEAVES)), width)
            wrapped(module, draw(st.sampled_from(WRAPS)))
            node.add_module(f"leaf{j}", module)
            leaves.append(module)
        for j in range(draw(st.integers(0, 2))):
            node.add_module(f"link{j}", nodes[draw(st.integers(0, count - 1))])
        if k and not any(nodes[k] is m for m in nodes[0].modules()):
            nodes[0].add_module(f"node{k}", node)
    for node in nodes:
        node.armed = True  # the hooks raise from now on, once the model is built
    linears = [m for m in leaves if type(m).__name__ == "Linear" and "weight" in m._parameters]
    if len(linears) >= 2 and draw(st.booleans()):
        linears[1].weight = linears[0].weight
    return nodes[0]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(models())
def test_random_odd_models(model: Any) -> None:
    """Torch's own unique-parameter count (and buffers), or one clean line; never a
    traceback; every face renders."""
    from torch import nn

    params = {id(p): p for p in nn.Module.parameters(model)}
    buffers = {id(b): b for b in nn.Module.buffers(model)}
    try:
        result = paramcount.summary(model)
    except ParamcountError as error:
        assert "\n" not in str(error)
        return
    assert result.total == sum(p.numel() for p in params.values())
    assert result.trainable == sum(p.numel() for p in params.values() if p.requires_grad)
    assert result.buffers == sum(b.numel() for b in buffers.values())
    assert repr(result) and result._repr_markdown_() and result._repr_html_()
    assert result.to_json()
