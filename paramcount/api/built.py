"""``via_transformers(path)``: a model paramcount does not model, counted as transformers builds
it on the meta device (``inspect DIR --via transformers``, ``FAMILY --config F --via
transformers``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paramcount.api.arguments import checked
from paramcount.api.result import FileName, Result

if TYPE_CHECKING:
    from paramcount.render.document import Document
    from paramcount.verify.transformers_build import BuiltModel


class BuiltCount(Result):
    """A model built by transformers from its config.json, counted from the built tree."""

    def __init__(self, built: BuiltModel, source: str) -> None:
        """Wrap what was built from ``source``."""
        self.built = built
        self.source = source

    @property
    def total(self) -> int:
        """The parameters the built model holds, tied ones once."""
        return self.built.total

    def to_dict(self) -> dict[str, Any]:
        """The ``--via transformers --json`` document."""
        from paramcount.render.built import data

        return data(self.built, self.source)

    def documents(self) -> list[Document]:
        """Its one document."""
        from paramcount.render.built import document

        return [document(self.built, self.source)]


@checked
def via_transformers(path: FileName) -> BuiltCount:
    """Count the model a ``config.json`` (or a folder holding one) describes as transformers
    builds it, on the meta device: for model types paramcount does not model. Never runs code
    from the hub and downloads nothing."""
    import os

    from paramcount.families.config_json import read_config
    from paramcount.verify.transformers_build import build

    name = os.fspath(path)
    if os.path.isdir(name):
        name = os.path.join(name, "config.json")
    return BuiltCount(build(read_config(name), name), name)
