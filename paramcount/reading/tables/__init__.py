"""Per-layer tables: ``table`` (a printout's rows and columns, shared by every table reader) and
one dialect per printer; ``generic`` reads a table no dialect names by what its columns hold.
"""
