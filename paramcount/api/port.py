"""``port(path, to)``: weights moved between conventions (``paramcount port``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from paramcount.api.arguments import checked
from paramcount.api.result import FileName, Result

if TYPE_CHECKING:
    from paramcount.porting.run import Result as PortResult
    from paramcount.render.document import Document



class Ported(Result):
    """What ``paramcount port`` did: a plan for every tensor, what was written and proved."""

    def __init__(self, result: PortResult) -> None:
        """Wrap a port's result."""
        self.result = result

    @property
    def ok(self) -> bool:
        """Whether every verified layer computes what the source computes (True unverified)."""
        return self.result.ok

    @property
    def written(self) -> str | None:
        """The file written, or None."""
        return self.result.written

    @property
    def exit_code(self) -> int:
        """The command's exit code: 1 where a verified port computes something else."""
        return 0 if self.result.ok else 1

    def to_dict(self) -> dict[str, Any]:
        """The ``port --json`` document."""
        from paramcount.render.port import port_data

        return port_data(self.result)

    def documents(self) -> list[Document]:
        """The port's one document: each layer's plan, tensor by tensor."""
        from paramcount.render.port import port_document

        return [port_document(self.result)]


@checked
def port(path: FileName, to: str, *, source_framework: str | None = None,
         out: FileName | None = None, verify: bool = False, seed: int = 0,
         allow_unmapped: bool = False, nonlinearity: str | None = None,
         forget_bias: float = 1.0, reset_after: bool | None = None,
         linear_before_reset: bool | None = None, merge_modes: Sequence[str] | None = None,
         model: str | None = None, kwargs: Mapping[str, Any] | None = None,
         source_model: str | None = None, source_kwargs: Mapping[str, Any] | None = None,
         **expect: Any) -> Ported:
    """Port a weights file to another framework's convention, as ``paramcount port`` does:
    the plan, and with ``out`` the written file, with ``verify`` the proof that both give the
    same outputs.

    ``to`` is the target framework; ``allow_unmapped`` leaves out tensors no layer maps (an
    optimizer's state); the other options say what a file cannot (the nonlinearity, Keras'
    ``reset_after``, merge modes); ``model`` and ``kwargs`` name a whole model's factory.

    >>> import paramcount
    >>> p = paramcount.port("examples/checkpoint.pt", "keras", allow_unmapped=True)
    >>> p.ok, p.exit_code, p.to_dict()["schema"]
    (True, 0, 'paramcount.port/1')
    """
    from paramcount.engine.spec import Framework, MergeMode, Nonlinearity
    from paramcount.porting.plan import TargetOptions
    from paramcount.porting.run import SourceOptions
    from paramcount.porting.run import port as run_port

    chosen = Nonlinearity(nonlinearity) if nonlinearity else None
    modes = tuple(MergeMode(m) for m in merge_modes) if merge_modes else None
    return Ported(run_port(
        str(path),
        SourceOptions(Framework(source_framework) if source_framework else None, chosen,
                      forget_bias, dict(expect)),
        TargetOptions(Framework(to), reset_after, linear_before_reset, modes, forget_bias,
                      chosen),
        out=None if out is None else str(out), verify=verify, seed=seed,
        allow_unmapped=allow_unmapped, model=model, kwargs=dict(kwargs or {}),
        source_model=source_model, source_kwargs=dict(source_kwargs or {})))
