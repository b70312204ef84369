"""Tensor listings: ``generic`` reads a name and a shape in every printed form, one a line or in
dict and list literals, and tells buffers from parameters by name and by where they were
printed; ``shape_dump`` is its dialect for the frameworks' variable reprs and bare
``parameters()`` shapes, ``unnamed`` the ways those shapes group.
"""
