"""A model transformers built on the meta device (``--via transformers``), as a Document and as
JSON data: its modules from the built tree, no closed form."""

from __future__ import annotations

from typing import Any

from paramcount._version import __version__
from paramcount.render.document import Document, Paragraph, Section, Table, number
from paramcount.verify.transformers_build import BuiltModel

SCHEMA = "paramcount.built/1"


def document(built: BuiltModel, source: str) -> Document:
    """The module table, the total and what it is (and is not)."""
    rows = tuple((m.name or "(the model)", m.kind, number(m.each), str(m.times), number(m.total))
                 for m in built.modules)
    table = Table(("module", "class", "each", "times", "total"), rows,
                  frozenset({"each", "times", "total"}),
                  footer=("total", "", "", "", number(built.total)))
    said = (f"paramcount does not model model_type {built.model_type!r}: these are the "
            f"parameters transformers {built.version} builds from {source}, counted from the "
            "built tree on the meta device (no weights read, no code from the hub run, no "
            "closed form claimed); modules alike but for a layer index are one row (#), a tied "
            "parameter counted once, where it first appears.")
    notes = tuple(f"Note: {note}" for note in built.notes)
    return Document(f"{built.model_class} — built by transformers on the meta device",
                    f"{number(built.total)} parameters",
                    (Section("Modules", (table,)), Section("How", (Paragraph((said, *notes)),))))


def data(built: BuiltModel, source: str) -> dict[str, Any]:
    """The JSON form."""
    return {"schema": SCHEMA, "paramcount": __version__, "source": source,
            "via": "transformers", "transformers": built.version,
            "model_type": built.model_type, "class": built.model_class,
            "total": built.total, "closed_form": False,
            "modules": [{"module": m.name, "class": m.kind, "each": m.each, "times": m.times,
                         "total": m.total} for m in built.modules],
            "notes": list(built.notes)}
