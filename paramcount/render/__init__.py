"""Presentation: reports become documents, documents become text, Markdown or a rich table.

Nothing here computes a count. ``document`` is the neutral model; ``plain``, ``markdown``,
``html`` (no script, for Jupyter) and ``terminal`` (the only module that imports rich) draw
it; ``data`` gives the JSON form.

May import: every package below the command line, whose results it draws: ``paramcount.engine``,
``paramcount.families``, ``paramcount.analysis``, ``paramcount.verify``, ``paramcount.files``,
``paramcount.factories``, ``paramcount.reading``, ``paramcount.checking``, ``paramcount.porting``,
``paramcount.live`` (a live model's summary).
"""
