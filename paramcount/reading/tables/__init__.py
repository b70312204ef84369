"""Per-layer tables: ``table`` (a printout's rows and columns, shared by every table reader) and
one dialect per printer (``haiku_tabulate``: haiku's calls, each module once;
``torchtnt_summary``; ``texttable``); ``generic``
reads a table no dialect names by what its columns hold.
"""
