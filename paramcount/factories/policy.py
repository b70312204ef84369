"""Whether the user's factories may run, and for how long each: the options and environment
variables that decide it, with nothing of the fence itself (so ``check``'s quick path, which
only needs the policy, imports no process machinery).

``PARAMCOUNT_NO_FACTORIES=1`` (or ``check --no-factories``) refuses every factory before
anything is imported, for configs from untrusted pull requests; ``PARAMCOUNT_FACTORY_TIMEOUT``
(or ``--factory-timeout``) sets each factory's time limit.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from paramcount.record import record

DEFAULT_TIMEOUT = 120.0
"""Seconds a factory may take (importing torch or Keras included) unless told otherwise."""

TIMEOUT_VARIABLE = "PARAMCOUNT_FACTORY_TIMEOUT"
"""The environment variable giving each factory's time limit, in seconds."""

REFUSE_VARIABLE = "PARAMCOUNT_NO_FACTORIES"
"""The environment variable that, set to anything but an empty or false value, refuses them."""


@record
class FactoryPolicy:
    """Whether factories may run, and for how long each."""

    allowed: bool = True
    timeout: float = DEFAULT_TIMEOUT
    refused_by: str = ""
    """What refused them, as the error names it: ``--no-factories``."""


RUN_FACTORIES = FactoryPolicy()
"""The default: factories run, each within :data:`DEFAULT_TIMEOUT`."""


def policy_from(no_factories: bool, timeout: float | None,
                environ: Mapping[str, str] = os.environ) -> FactoryPolicy:
    """The policy of a run: the options, else the environment variables, else the defaults."""
    refused_by = "--no-factories" if no_factories else ""
    if not refused_by and environ.get(REFUSE_VARIABLE, "").strip().lower() not in (
            "", "0", "false", "no", "off"):
        refused_by = f"{REFUSE_VARIABLE}={environ[REFUSE_VARIABLE]}"
    if timeout is None:
        text = environ.get(TIMEOUT_VARIABLE, "").strip()
        timeout = parse_timeout(text, TIMEOUT_VARIABLE) if text else DEFAULT_TIMEOUT
    return FactoryPolicy(not refused_by, timeout, refused_by)


def parse_timeout(text: str, name: str) -> float:
    """A positive number of seconds, or a ValueError naming ``name``."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < 1e9:  # also refuses nan and inf
        raise ValueError(f"{name}={text!r} is not a time limit: give a positive number of "
                         "seconds, e.g. 120")
    return value


def refusal(policy: FactoryPolicy) -> str:
    """The located error's message for a factory that is not run."""
    return (f"not run: {policy.refused_by} refuses every factory, so no code named by the "
            "config is imported (layers and file models are still checked)")
