"""The forum tools: questions asked about a layer beyond its count.

``compare`` (aligned comparisons), ``compute`` (MACs / FLOPs), ``memory`` (training memory),
``fit`` (the largest size within a budget), ``flow`` (shapes and state order), ``pitfalls``
(framework pitfalls), ``plot``. May import: ``paramcount.engine``, ``paramcount.families.registry``.
"""
