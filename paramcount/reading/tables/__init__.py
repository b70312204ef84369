"""Per-layer tables: ``table`` (a printout's rows and columns, shared by every table reader),
``dialect`` (what a printer declares about its table, and the reading that declaration drives)
and one dialect per printer; ``generic`` reads a table no dialect names by what its columns hold.
"""
