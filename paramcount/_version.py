"""paramcount's version: one place, read by the package face, the JSON documents and packaging."""

__version__ = "0.1.0"
