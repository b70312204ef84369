"""The exceptions paramcount raises, and the exit code each one maps to."""

from __future__ import annotations

from collections.abc import Callable

Label = Callable[[str, object], str]
"""Names a field for a message: (field, value) -> e.g. ``--proj 128`` or ``proj_size=128``."""


def api_label(field: str, value: object) -> str:
    """Label a field the way the Python API spells it: ``proj_size=128``."""
    return f"{field}={value!r}"


class ParamcountError(Exception):
    """Base class of every error paramcount raises on purpose."""

    exit_code = 2


class SpecError(ParamcountError, ValueError):
    """A layer configuration that no framework would build.

    The message is a template whose ``{field}`` slots are filled with a label for that field, so
    the CLI can say ``--proj 128`` where the Python API says ``proj_size=128``.

    >>> str(SpecError("{hidden_size} must be a positive integer", hidden_size=0))
    'hidden_size=0 must be a positive integer'
    """

    def __init__(self, template: str, **values: object) -> None:
        self.template = template
        self.values = values
        super().__init__(self.render(api_label))

    def render(self, label: Label) -> str:
        """The message with every field named by ``label``."""
        return self.template.format(**{k: label(k, v) for k, v in self.values.items()})


class ConfigError(ParamcountError, ValueError):
    """An invalid configuration file, located as ``file:line:column``."""


class BackendUnavailable(ParamcountError, ImportError):
    """A verification backend whose framework is not installed."""

    exit_code = 3

    def __init__(self, framework: str, extra: str, message: str | None = None) -> None:
        self.framework = framework
        self.extra = extra
        super().__init__(
            message
            or f"verifying with {framework} requires the {framework} package: "
            f"pip install 'paramcount[{extra}]'"
        )


class Mismatch(ParamcountError):
    """The formula engine and a real framework disagree, or a budget is exceeded."""

    exit_code = 1
