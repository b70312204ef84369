"""The ``paramcount`` command: thin clients of the library.

``main`` (the entry point: the quick path or click, every error mapped to an exit code),
``quick`` (the count commands' everyday lines answered without loading click), ``options`` and
``workload_options`` (the shared click options → specs), ``output`` (printing in the chosen
format), ``paste`` (``read``'s body), ``commands/`` (one module per command, loaded lazily).
May import anything in paramcount; nothing imports it.
"""
