"""Per-layer tables: ``table`` (a printout's rows and columns, shared by every table reader) and
one dialect per printer (``haiku_tabulate``: haiku's calls, each module once;
``torchtnt_summary``; ``texttable``); ``generic`` reads a table no dialect names by what its
columns hold. ``drawn`` reads rich's box tables and fixed columns by what a printer declares of
them (its columns' roles, counts, shapes, wrapping, totals): Keras of both eras, Flax tabulate;
``dialect`` is what a known printer's table declares (its columns, rounding, footer) and the
generic row loop, cells, counts and totals that read it (torchinfo, torchsummary, pytorch-
model-summary, Lightning).
"""
