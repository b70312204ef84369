"""Model files and folders, read without running anything: ``inspect``'s sources.

One reader per format (``safetensors_file``, ``torch_file`` with an allow-list unpickler,
``onnx_file``, ``keras_file``, ``numpy_file``, ``hf_folder``, ``state_dict``), dispatched by
``dispatch.read_file`` and bounded by ``limits``; each gives a ``listing.Listing`` of
``NamedTensor``. ``loose_names`` renames loosely named recurrent weights, ``inspect`` turns a
listing into tensors by module and recognised layers. May import: ``paramcount.engine``,
``paramcount.families.registry``, ``paramcount.verify`` (a framework only when asked).
"""
