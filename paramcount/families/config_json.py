"""A ``config.json`` read: one JSON object, or one line saying why not (no pathlib, no
dataclasses: the family count commands read it on their quick path)."""

from __future__ import annotations

import json
import os

from paramcount.errors import ConfigError

MAX_CONFIG = 10_000_000
"""The largest ``config.json`` read (real ones are a few kilobytes)."""


def read_config(path: str | os.PathLike[str]) -> dict[str, object]:
    """A ``config.json`` file's object, or a ConfigError saying why it cannot be read."""
    try:
        if os.stat(path).st_size > MAX_CONFIG:
            raise ConfigError(f"{path}: over {MAX_CONFIG:,} bytes, too large for a config")
        with open(path, "rb") as handle:
            data = json.loads(handle.read().decode("utf-8"))
    except OSError as error:
        raise ConfigError(f"{path}: cannot be read: {error.strerror or error}") from None
    except json.JSONDecodeError as error:
        raise ConfigError(f"{path}:{error.lineno}:{error.colno}: not JSON: {error.msg}") from None
    except (UnicodeDecodeError, RecursionError) as error:
        raise ConfigError(f"{path}: not JSON: {str(error).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: holds no JSON object (a config.json is one object)")
    return data
