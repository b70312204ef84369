"""Where a factory is defined: its module's file and the line of its ``def``, found by reading the
source with ``ast`` (never importing it), so an annotation can point at the code that builds a
model even under ``--no-factories``."""

from __future__ import annotations

import ast
import os
from collections.abc import Sequence

MAX_SOURCE = 4_000_000
"""Characters of a module read to find a definition (a larger one is not searched)."""


def module_file(module: str, folders: Sequence[str]) -> str | None:
    """The source file of ``module`` (``pkg.models``) under the first folder that holds it."""
    parts = module.split(".")
    if not all(part.isidentifier() for part in parts):
        return None
    for folder in folders:
        for candidate in (os.path.join(folder, *parts) + ".py",
                          os.path.join(folder, *parts, "__init__.py")):
            if os.path.isfile(candidate):
                return candidate
    return None


def definition(target: str, folders: Sequence[str]) -> tuple[str, int] | None:
    """``(file, line)`` of the ``def`` (or ``class``) that ``target`` (``pkg.mod:build``,
    ``mod:Listener.create``) names, or None when it cannot be found by reading."""
    module, _, qualified = target.partition(":")
    file = module_file(module.strip(), folders)
    if file is None or not qualified:
        return None
    try:
        with open(file, encoding="utf-8") as handle:
            text = handle.read(MAX_SOURCE + 1)
        if len(text) > MAX_SOURCE:
            return None
        tree = ast.parse(text, file)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError):
        return None
    body: list[ast.stmt] = tree.body
    found: ast.stmt | None = None
    for name in qualified.strip().split("."):
        found = next((node for node in reversed(body)
                      if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                      and node.name == name), None)
        if found is None:
            return None
        body = found.body
    if found is None:
        return None
    return file, found.lineno
