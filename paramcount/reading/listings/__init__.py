"""Tensor listings: names and shapes as printed (``shape_dump``), and bare ``parameters()`` shapes
(``unnamed``); ``generic`` reads dict and list literals of names and shapes, and tells buffers
from parameters.
"""
