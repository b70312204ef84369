"""Porting a model's weights between conventions: plans, loading, writing, verifying.

``expr``, ``layouts`` and ``plan`` are pure (no numpy, no framework); ``execute`` evaluates a
plan with numpy, ``load`` reads source files' arrays safely, ``write`` writes the target's
container and ``verify`` runs both real layers. Each imports its libraries only when called.

May import: ``paramcount.engine``, ``paramcount.files`` (the safe readers),
``paramcount.factories`` (a ``--model`` factory), ``paramcount.verify`` (the real layers).
"""
