"""Pasted Python, read with ``ast`` and never run: ``python_code`` the door, ``walk``,
``evaluate``, ``values``, ``account`` and ``recovery`` (code that does not parse as written).
"""
