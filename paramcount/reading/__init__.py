"""Pastes: ``paramcount read``'s pipeline, and one sub-package per kind of text it reads.

``pipeline`` (a paste → layers and models, counted), ``printout`` (finds each printout and
hands it to its reader), ``printed`` (builds their models), ``found`` (the layers and models
found, as ``models``' types), ``accounting`` (what each reader claimed and could not read: the
one place a total's exactness is decided), ``solve`` (a printed count → the configurations that
give it), ``pairing``, ``keras_version``. The sub-packages: ``tables`` (``table``'s rows and
columns and one dialect per printer: ``keras_summary``, ``torchinfo``, ``torchsummary``,
``lightning`` with ``rounded`` counts, ``model_summary``, ``flax_tabulate``,
``haiku_tabulate``, ``torchtnt_summary``, ``texttable``, ``headless``; ``generic`` for a table
no dialect reads), ``listings`` (``shape_dump``, ``unnamed``, ``generic``: the line forms,
literals and buffers they are dialects of), ``reprs`` (``torch_repr``, ``hf_repr``, ``pytree``,
``generic``: the tree they are dialects of, its folds and a flop counter's figures), ``code``
(``python_code`` on ``walk``, ``evaluate``, ``values``, ``account``, ``recovery``: read with
``ast``, never run) and ``messages`` (``load_error``, ``runtime_error``).
May import: ``paramcount.engine``, ``paramcount.families.registry``, ``paramcount.files``.
"""
