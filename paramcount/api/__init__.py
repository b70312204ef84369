"""The library's face: one call per capability, each returning one result type.

``result`` is what every result shares (``to_dict()``, the command's ``--json`` document;
plain text as ``repr``; ``_repr_html_`` and ``_repr_markdown_`` for Jupyter; rich's
``__rich_console__`` and ``show()`` for a terminal); one module per capability holds its call
and result type (``count``, ``summary``, ``paste``, ``files``, ``budgets``, ``family``,
``port``, ``explain``, ``fit``, ``workload`` for compute and memory, ``compare``, ``flow`` for
shapes and trace, ``convlstm``; ``verdict`` is the real layers' verdict they share), and
``calls`` gathers them all for a typed import. The CLI commands are thin
clients of these calls, each loading only its own module; nothing here imports a framework
(a live model's own methods are all ``summary`` uses).

May import: every package below the command line: ``paramcount.engine``,
``paramcount.families``, ``paramcount.analysis``, ``paramcount.verify``, ``paramcount.files``,
``paramcount.factories``, ``paramcount.reading``, ``paramcount.checking``, ``paramcount.porting``,
``paramcount.live``, ``paramcount.render``.
"""
