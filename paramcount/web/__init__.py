"""The page (``paramcount serve``, ``paramcount web build``): a paste box and a count form
answered by the library's own calls and shown in the results' own HTML and Markdown. ``page``
is the HTML around them (its choices made from the library's lists), ``answers`` a question
turned into what the page shows, ``chart`` the bidirectional ÷ unidirectional ratio by depth as
SVG, ``server`` the loopback server, ``site`` the static site that runs the same core in the
browser with Pyodide; nothing here counts.

May import: ``paramcount.engine``, ``paramcount.families``, ``paramcount.api``,
``paramcount.render``.
"""
