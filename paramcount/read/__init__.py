"""Pastes: ``paramcount read``'s pipeline and one module per printer.

``pipeline`` (a paste → layers and models, counted), ``printout`` (finds each printout and hands
it to its printer's reader: ``keras_summary``, ``torchinfo``, ``torchsummary``, ``torch_repr``,
``shape_dump``, ``lightning`` (counts rounded, solved by ``rounded``), ``model_summary``
(pytorch-model-summary), ``flax_tabulate``, ``hf_repr`` (the families' Hugging Face reprs),
on ``table``'s columns), ``python_code`` (on ``code_values``, ``code_account``,
``code_evaluate``, ``code_walk``) and ``recovery`` (code read with ``ast``, never run),
``load_error`` and ``runtime_error`` (frameworks' error messages),
``found`` (the layers and models found, as ``models``' types), ``accounting`` (what each
reader claimed and could not read: the one place a total's exactness is decided),
``headless`` (rows of a table cut above its header), ``solve`` (a printed count → the
configurations that give it), ``unnamed`` (bare ``parameters()`` shapes), ``pairing``,
``keras_version``.
May import: ``paramcount.engine``, ``paramcount.families.registry``, ``paramcount.files``.
"""
