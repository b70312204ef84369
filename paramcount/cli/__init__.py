"""The ``paramcount`` command: thin clients of the library.

``main`` (the entry point: the quick path or click, every error mapped to an exit code),
``quick`` (the count commands' everyday lines answered without loading click), ``options`` and
``workload_options`` (the shared click options → specs), ``output`` (printing in the chosen
format), ``paste`` (``read``'s body), ``asked`` (the page's command lines read by the commands' own
click objects), ``commands/`` (one module per command, loaded lazily).
Nothing imports it. May import: every package of paramcount: ``paramcount.engine``,
``paramcount.families``, ``paramcount.analysis``, ``paramcount.verify``, ``paramcount.files``,
``paramcount.factories``, ``paramcount.reading``, ``paramcount.checking``, ``paramcount.porting``,
``paramcount.live``, ``paramcount.render``, ``paramcount.api``, ``paramcount.web``.
"""
