"""Tensor listings: names and shapes as printed (``shape_dump``), and bare ``parameters()`` shapes
(``unnamed``).
"""
