"""Per-layer tables: ``table`` (a printout's rows and columns, shared by every table reader) and
one dialect per printer (``haiku_tabulate``: haiku's calls, each module once;
``torchtnt_summary``; ``texttable``); ``generic`` reads a table no dialect names by what its
columns hold. ``dialect`` is the one record a known printer's table declares
(:class:`.dialect.Dialect`: its columns' roles, counts and rounding, shapes, rules, footer and
total, wrapping and nesting) and what every dialect reads by: its footer and total, the generic
row loop, cells, counts (torchinfo, torchsummary, pytorch-model-summary, Lightning); ``drawn``
reads rich's box tables and fixed columns by the same record (Keras of both eras, Flax
tabulate); ``generic`` and ``aligned`` are dialects too, whose columns are found by what they
hold, their rows read by the same row loop.
"""
