"""Module trees as printed: torch's ``print(model)`` (``torch_repr``) and the families' Hugging
Face reprs (``hf_repr``), JAX pytree modules as equinox prints them (``pytree``); ``generic``
tells a flop counter's figures from a module's arguments.
"""
