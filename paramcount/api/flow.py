"""``shapes(cell, ...)`` and ``trace(cell, ...)``: a stack's tensor shapes and state order,
and its computation rebuilt from single-layer parts (``paramcount shapes``, ``trace``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from paramcount.api.arguments import checked
from paramcount.api.result import Result
from paramcount.engine.spec import Cell, Framework, LayerSpec
from paramcount.errors import SpecError

if TYPE_CHECKING:
    from paramcount.analysis.flow import Check, Flow, Trace
    from paramcount.render.document import Document

RUN_FRAMEWORKS = (Framework.TORCH, Framework.KERAS)
"""The frameworks whose layers ``shapes`` verifies and ``trace`` runs for real."""


class Shapes(Result):
    """The shapes of a stack's input, output, h_n and c_n, the order of h_n and which output
    slice equals which state (each claim checked by a real forward pass, where asked)."""

    def __init__(self, flow: Flow, checks: Mapping[str, Check] | None = None) -> None:
        """Wrap the flow (and the real run's check of each claim)."""
        self.flow = flow
        self.checks = None if checks is None else dict(checks)

    @property
    def ok(self) -> bool:
        """Whether every checked claim held (True unverified)."""
        return self.checks is None or all(c.ok for c in self.checks.values())

    @property
    def exit_code(self) -> int:
        """The command's exit code: 1 where a real run contradicts a claim."""
        return 0 if self.ok else 1

    def to_dict(self) -> dict[str, Any]:
        """The ``paramcount.shapes/1`` document."""
        from paramcount.render.flow_data import shapes_data

        return shapes_data(self.flow, self.checks)

    def documents(self) -> list[Document]:
        """The shapes' one document."""
        from paramcount.render.flow import shapes_document

        return [shapes_document(self.flow, self.checks)]


class Traced(Result):
    """A (bidirectional) stack rebuilt from unidirectional single-layer modules, compared with
    the real stack step by step (and the common wrong rebuild, where asked)."""

    def __init__(self, trace: Trace, mistake: Trace | None = None) -> None:
        """Wrap the rebuild's trace (and the wrong rebuild's)."""
        self.trace = trace
        self.mistake = mistake

    @property
    def ok(self) -> bool:
        """Whether the rebuild computes what the stack computes."""
        return self.trace.ok

    @property
    def exit_code(self) -> int:
        """The command's exit code: 1 where the rebuild computes something else."""
        return 0 if self.ok else 1

    def to_dict(self) -> dict[str, Any]:
        """The ``paramcount.trace/1`` document."""
        from paramcount.render.flow_data import trace_data

        return trace_data(self.trace, self.mistake)

    def documents(self) -> list[Document]:
        """The trace's one document."""
        from paramcount.render.flow import trace_document

        return [trace_document(self.trace, self.mistake)]


def runnable(spec: LayerSpec) -> LayerSpec:
    """``spec`` if its stack can run for real (a torch or Keras stack, not a single cell);
    else a :class:`SpecError` saying why."""
    if spec.framework not in RUN_FRAMEWORKS:
        raise SpecError("{framework} is not one of: torch, keras (the frameworks whose "
                        "layers run here)", framework=spec.framework.value)
    if spec.single_cell:
        raise SpecError("{single_cell}: a single-step cell has no sequence and no h_n",
                        single_cell=True)
    return spec


def shapes_of(spec: LayerSpec, batch: int = 3, seq_len: int = 5, seed: int = 0,
              batch_first: bool = False, verify: bool = False) -> Shapes:
    """The shapes of ``spec``'s stack for ``batch`` sequences of ``seq_len`` steps;
    ``verify`` checks every claim with a real forward pass (random weights from ``seed``)."""
    from paramcount.analysis.flow import flow as make_flow

    return checked_shapes(make_flow(spec, batch, seq_len, batch_first), seed, verify)


def checked_shapes(flow: Flow, seed: int = 0, verify: bool = False) -> Shapes:
    """``flow``'s claims as a result, each checked by a real forward pass where ``verify``."""
    checks = None
    if verify:
        if flow.spec.framework is Framework.TORCH:
            from paramcount.verify import torch_run

            checks = torch_run.verify_flow(flow, seed)
        else:
            from paramcount.verify import keras_run

            checks = keras_run.verify_flow(flow, seed)
    return Shapes(flow, checks)


def trace_of(spec: LayerSpec, batch: int = 3, seq_len: int = 5, seed: int = 0,
             show_mistake: bool = False) -> Traced:
    """Run ``spec``'s stack and its rebuild from single-layer parts on one random input
    (``show_mistake``: also the rebuild that forgets to flip the backward outputs)."""
    if spec.framework is Framework.TORCH:
        from paramcount.verify import torch_run as backend
    else:
        from paramcount.verify import keras_run as backend  # type: ignore[no-redef]
    result = backend.trace(spec, batch, seq_len, seed)
    mistake = backend.trace(spec, batch, seq_len, seed, mistake=True) if show_mistake else None
    return Traced(result, mistake)


@checked
def shapes(cell: Cell | str, input_size: int, hidden_size: int, *, batch: int = 3,
           seq_len: int = 5, seed: int = 0, batch_first: bool = False, verify: bool = False,
           **layer: Any) -> Shapes:
    """The shapes a layer's input, output and state take, as ``paramcount shapes`` does.

    ``batch`` and ``seq_len`` size the input; ``batch_first`` lays it out as torch's option
    does; ``verify`` runs the real layer; ``layer`` takes :func:`paramcount.count`'s options.

    >>> import paramcount
    >>> s = paramcount.shapes("gru", 3, 4, num_layers=2, bidirectional=True)
    >>> [(t["name"], t["shape"]) for t in s.to_dict()["shapes"]]
    [('input', [5, 3, 3]), ('output', [5, 3, 8]), ('h_n', [4, 3, 4])]
    """
    from paramcount.api.count import layer_spec

    spec = runnable(layer_spec(cell, input_size, hidden_size, **layer))
    if batch_first and spec.framework is Framework.KERAS:
        raise SpecError("{batch_first} is a PyTorch option: Keras layers always take "
                        "(N, T, features)", batch_first=True)
    return shapes_of(spec, batch, seq_len, seed, batch_first, verify)


@checked
def trace(cell: Cell | str, input_size: int, hidden_size: int, *, batch: int = 3,
          seq_len: int = 5, seed: int = 0, show_mistake: bool = False,
          **layer: Any) -> Traced:
    """Run a layer in torch and trace its state step by step, as ``paramcount trace`` does
    (torch is needed).

    ``batch``, ``seq_len`` and ``seed`` make the input; ``show_mistake`` also shows the
    common mistake of reading the last output for the last state; ``layer`` takes
    :func:`paramcount.count`'s options.

    >>> import paramcount
    >>> t = paramcount.trace("gru", 4, 8)
    >>> t.ok, t.to_dict()["schema"]
    (True, 'paramcount.trace/1')
    """
    from paramcount.api.count import layer_spec

    spec = runnable(layer_spec(cell, input_size, hidden_size, **layer))
    return trace_of(spec, batch, seq_len, seed, show_mistake)
