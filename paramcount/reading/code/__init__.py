"""Pasted Python, read with ``ast`` and never run: ``python_code`` the door, ``walk`` (the
statements and the models they build), ``classes`` (a class's ``__init__``), ``evaluate``,
``values``, ``account`` and ``recovery`` (code that does not parse as written).
"""
