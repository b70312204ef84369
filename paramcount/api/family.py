"""``family(name, ...)``: a modern recurrent family's model counted (``paramcount mamba`` ...)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from paramcount.api.arguments import checked
from paramcount.api.result import FileName, Result

if TYPE_CHECKING:
    from paramcount.families.explain import KnobChange
    from paramcount.families.report import FamilyReport
    from paramcount.families.state import StateMemory
    from paramcount.render.document import Document



class FamilyCount(Result):
    """A modern recurrent family's model counted tensor by tensor (and explained)."""

    def __init__(self, report: FamilyReport, explain: bool = False,
                 what_if: Sequence[KnobChange] = (), state: StateMemory | None = None) -> None:
        """Wrap a family report (``explain``/``what_if``: what each option adds; ``state``:
        the inference state at a context length)."""
        self.report = report
        self.explain = explain
        self.what_if = list(what_if)
        self.state = state

    @property
    def total(self) -> int:
        """The number of parameters, tied weights once."""
        return self.report.total

    @property
    def family(self) -> str:
        """The family's name: ``mamba``, ``rwkv``, …."""
        return self.report.family

    @property
    def config(self) -> Any:
        """The family's config record, every field set."""
        return self.report.config

    def to_dict(self) -> dict[str, Any]:
        """The family command's ``--json`` document."""
        from paramcount.render.family import family_data

        data = family_data(self.report)
        if self.explain or self.what_if:
            from paramcount.render.family_explain import explanation_data

            data["explanation"] = explanation_data(self.report, self.what_if)
        if self.state is not None:
            data["state"] = self.state.to_data()
        return data

    def documents(self) -> list[Document]:
        """The family model's one document."""
        from paramcount.render.document import Section
        from paramcount.render.family import family_breakdown, state_section

        explained: tuple[Section, ...] = ()
        asked: tuple[Section, ...] = ()
        if self.explain or self.what_if:
            from paramcount.render.family_explain import explanation, what_if_section

            explained = explanation(self.report)
            asked = tuple(what_if_section(change) for change in self.what_if)  # answer first
        if self.state is not None:
            explained = (state_section(self.state), *explained)
        return [family_breakdown(self.report, explained, asked)]


@checked
def family(name: str, config: FileName | None = None, *, dtype: str = "fp32",
           explain: bool = False, what_if: Mapping[str, object] | None = None,
           context: int | None = None, batch: int = 1, **options: object) -> FamilyCount:
    """Count a modern recurrent family's model (Mamba, Mamba-2, RWKV, xLSTM, RG-LRU,
    minGRU, and the hybrids) from its config's fields, as ``paramcount mamba ...`` does.

    ``name`` is the family; ``config`` a ``config.json`` to start from; ``options`` the fields
    (as the config names them); ``explain`` adds what each part holds; ``what_if`` the change
    other values would make; ``context`` adds the state one inference keeps for ``batch``
    sequences of that many tokens (the attention layers' keys and values, the recurrent layers'
    state), in ``dtype``. An unknown field raises ``paramcount.SpecError``, naming the
    family's fields.

    >>> import paramcount
    >>> f = paramcount.family("mamba", hidden_size=768, num_hidden_layers=24, vocab_size=50280)
    >>> f.total, f.to_dict()["schema"]
    (129135360, 'paramcount.family/1')
    """
    from paramcount.engine.spec import DType
    from paramcount.errors import SpecError
    from paramcount.families import registry as families
    from paramcount.families.explain import knob_change
    from paramcount.families.report import build_family_report

    if name not in families.FAMILIES:
        raise SpecError(f"{{name}} is not one of: {', '.join(families.names())}", name=name)
    fields = {o.field for o in families.options(name)}
    if unknown := sorted(set(options) - fields):
        raise SpecError(f"{{option}} is no field of {name} (fields: {', '.join(sorted(fields))})",
                        option=unknown[0])
    built = families.build(name, options, None if config is None else str(config))
    changes = [knob_change(name, built, field, value)
               for field, value in (what_if or {}).items()]
    memory = None
    if context is not None:
        from paramcount.families.state import at_context

        memory = at_context(name, built, context, batch, DType(dtype).value)
    return FamilyCount(build_family_report(name, built, DType(dtype)), explain, changes, memory)
