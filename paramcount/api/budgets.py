"""``check(path)``: config files held to their budgets (``paramcount check``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from paramcount.api.arguments import checked
from paramcount.api.result import FileName, Result

if TYPE_CHECKING:
    from paramcount.checking.baseline import Comparison
    from paramcount.checking.evaluate import Outcome
    from paramcount.checking.session import FileResult
    from paramcount.render.document import Document



class Checked(Result):
    """What ``paramcount check`` says of config files: each model against its budget."""

    def __init__(self, results: Sequence[FileResult], update: bool = False,
                 comparison: Comparison | None = None) -> None:
        """Wrap one result per file (``update``: the run wrote counts back; ``comparison``:
        the models beside a git revision's, with ``baseline``)."""
        self.results = list(results)
        self.update = update
        self.comparison = comparison

    @property
    def outcomes(self) -> list[Outcome]:
        """Every model's outcome, file after file."""
        return [o for r in self.results for o in r.outcomes]

    @property
    def failed(self) -> int:
        """How many models missed an expectation."""
        return sum(r.failed for r in self.results)

    @property
    def errors(self) -> list[str]:
        """Every error, located (``file:line:column: ...``)."""
        return [str(e) for r in self.results for e in r.errors]

    @property
    def passed(self) -> bool:
        """Whether every model met every expectation, none grew past ``max_growth`` and
        nothing was in error."""
        return self.exit_code == 0

    def markdown_summary(self) -> str:
        """The run as Markdown (GitHub's step summary, a pull-request comment)."""
        from paramcount.render import check as render
        from paramcount.render.check_ci import markdown

        return markdown(self.results, self.comparison, render.summary_all(self.results))

    @property
    def exit_code(self) -> int:
        """The command's exit code: 2 for an error, 1 for a missed budget or a model grown past
        ``max_growth``, else 0."""
        grown = self.comparison is not None and bool(self.comparison.over)
        return 2 if self.errors else 1 if self.failed or grown else 0

    def to_dict(self) -> dict[str, Any]:
        """The ``paramcount.check/1`` document (with ``update``: what was written back)."""
        from paramcount.render import check as render

        data = render.data_all(self.results)
        if self.comparison is not None:
            from paramcount.render.check_ci import data as baseline_data

            data["baseline"] = baseline_data(self.comparison)
        if self.update:
            data["updated"] = [c for r in self.results if r.written for c in r.changes]
            not_updated = [c for r in self.results if not r.written for c in r.changes]
            if not_updated:
                data["not_updated"] = not_updated
        return data

    def documents(self) -> list[Document]:
        """One document: each model's line, then the summary."""
        from paramcount.render import check as render
        from paramcount.render.document import Document, Math, Section

        lines = [line for o in self.outcomes
                 for line in (render.model_line(o), *render.grew_lines(o))]
        sections = [Section("Models", (Math(tuple(lines)),))] if lines else []
        if self.comparison is not None:
            from paramcount.render.check_ci import text_lines

            sections.append(Section("Baseline", (Math(tuple(text_lines(self.comparison))),)))
        if self.errors:
            sections.append(Section("Errors", (Math(tuple(self.errors)),)))
        return [Document("paramcount check", render.summary_all(self.results),
                         tuple(sections))]


@checked
def check(*paths: FileName, verify: bool = False, update: bool = False,
          baseline: str | None = None, max_growth: str | None = None,
          baseline_factories: bool = False) -> Checked:
    """Check the models of budget configs (TOML or JSON; none: ./pyproject.toml's
    ``[tool.paramcount]``) against their limits, as ``paramcount check`` does in CI.

    ``verify`` builds each model in its framework and compares; ``update`` writes the counts
    found back into the configs; ``baseline`` (a git revision) counts the same configs there
    too, and ``max_growth`` (``10%``, ``50000``) fails a model that grew past it;
    ``baseline_factories`` runs the base's factories from the base's own source (else their
    models are not counted at the base; ``PARAMCOUNT_NO_FACTORIES=1`` refuses them). The
    result's ``passed`` and ``exit_code`` are the command's.

    >>> import paramcount
    >>> c = paramcount.check("examples/bilstm.toml")
    >>> c.passed, c.exit_code, [o.model.name for o in c.outcomes]
    (True, 0, ['bilstm'])
    """
    from paramcount.checking.baseline import compare_or_error, parse_growth
    from paramcount.checking.session import FileResult, check_file, expand
    from paramcount.errors import ConfigError

    limit = parse_growth(max_growth) if max_growth is not None else None
    try:
        names = expand([str(p) for p in paths])
    except ConfigError as error:
        return Checked([FileResult(str(paths[0]) if paths else "", errors=[error])])
    from paramcount.factories.policy import policy_from

    factories = policy_from(False, None)  # PARAMCOUNT_NO_FACTORIES / _FACTORY_TIMEOUT, as the CLI
    results = [check_file(name, verify=verify, update=update, factories=factories)
               for name in names]
    comparison = (compare_or_error(results, baseline, limit,
                                   factories if baseline_factories else None)
                  if baseline is not None else None)
    return Checked(results, update, comparison)
