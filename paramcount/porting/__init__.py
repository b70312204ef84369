"""Porting a model's weights between conventions: plans, loading, writing, verifying.

``expr``, ``layouts`` and ``plan`` are pure (no numpy, no framework); ``execute`` evaluates a
plan with numpy, ``load`` reads source files' arrays safely, ``write`` writes the target's
container (``variables`` sets a Keras model's, one array at a time), ``verify`` runs both real
layers, and ``whole`` both whole models on the input ``inputs`` lays out for each. Each
imports its libraries only when called.

May import: ``paramcount.engine``, ``paramcount.files`` (the safe readers),
``paramcount.factories`` (a ``--model`` factory), ``paramcount.verify`` (the real layers).
"""
