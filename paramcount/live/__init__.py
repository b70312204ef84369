"""Live models: the object in hand read for its parameters and buffers, never run.

``detect`` names the framework from the object's type (its classes' modules) without importing
anything; ``description`` is the plain description every reader gives (tensors with their kind, the
module tree, the recurrent layers read from the modules' own options); ``torch_model``,
``keras_model`` and ``flax_model`` read one framework each, through the object's own methods;
``model`` turns a description into the counted, recognised :class:`~paramcount.live.model.
ModelSummary` with ``files.inspect``'s recognition. May import: ``paramcount.engine``,
``paramcount.families``, ``paramcount.files``.
"""
