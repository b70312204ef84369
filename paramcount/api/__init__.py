"""The library's face: one call per capability, each returning one result type.

``result`` is what every result shares (``to_dict()``, the command's ``--json`` document;
plain text as ``repr``; ``_repr_html_`` and ``_repr_markdown_`` for Jupyter; rich's
``__rich_console__`` and ``show()`` for a terminal); ``calls`` holds :func:`summary`,
:func:`read`, :func:`inspect`, :func:`check`, :func:`family`, :func:`port`,
:func:`load_error` and their result types. The CLI commands are thin clients of these
calls. May import anything below ``paramcount.cli``; nothing here imports a framework (a
live model's own methods are all ``summary`` uses).
"""
