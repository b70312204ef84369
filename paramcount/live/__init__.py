"""Live models: the object in hand read for its parameters and buffers, never run.

``detect`` names the framework from the object's type (its classes' modules) without importing
anything; ``description`` is the plain description every reader gives (tensors with their kind, the
module tree, the recurrent layers read from the modules' own options); ``torch_model``
(with ``torch_layers``: recurrent layers through parametrizations, quantized modules' packed
weights), ``keras_model`` and ``flax_model`` read one framework each; ``guarded`` reads a user's
object so that nothing it does (a raising ``__getattr__``, a failing call) escapes;
``model`` turns a description into the counted, recognised :class:`~paramcount.live.model.
ModelSummary` with ``files.inspect``'s recognition. May import: ``paramcount.engine``,
``paramcount.families``, ``paramcount.files``.
"""
