"""Which Keras a paste comes from, and the GRU default that follows from it.

Keras changed one default that changes counts: GRU's ``reset_after``. False (one bias of 3H per
direction) in multi-backend Keras 2.0–2.3 (``keras.layers.recurrent``) and in TensorFlow 1.x's
tf.keras, still so in ``tf.compat.v1.keras.layers.GRU``; True (two bias rows, (2, 3H)) in
tf.keras of TensorFlow 2.x (Keras 2.4–2.15, tf-keras) and in Keras 3. A paste says which Keras
by its imports (``keras.layers.recurrent``, ``tf.compat.v1``, ``tensorflow.keras``),
arguments only Keras 2 takes (``input_shape=`` on a layer, ``input_length=``), and its summary
tables (Keras 2's ``____``/``====`` rules against Keras 3's box drawing). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from enum import StrEnum

from paramcount.reading.patterns import lazy

__all__ = ["RESET_AFTER_FACTS", "KerasVersion", "call_version", "old_gru_default",
           "reset_after_default", "summary_version"]


class KerasVersion(StrEnum):
    """A Keras whose defaults a paste follows."""

    LEGACY = "keras-2-legacy"
    """Multi-backend Keras 2.0–2.3 or TensorFlow 1.x's tf.keras: GRU reset_after=False."""
    KERAS2 = "keras-2"
    """Keras 2 without saying which: the legacy one or tf.keras of TensorFlow 2.x."""
    KERAS3 = "keras-3"

    @property
    def words(self) -> str:
        """How the answer names it."""
        return {
            KerasVersion.LEGACY: "Keras 2.0–2.3 (multi-backend) or TensorFlow 1.x's tf.keras",
            KerasVersion.KERAS2: "Keras 2",
            KerasVersion.KERAS3: "Keras 3",
        }[self]


RESET_AFTER_FACTS = (
    "GRU's reset_after defaults to False (one bias of 3H per direction) in multi-backend Keras "
    "2.0–2.3 (keras.layers.recurrent) and TensorFlow 1.x's tf.keras (tf.compat.v1.keras), to "
    "True (two bias rows) in tf.keras of TensorFlow 2.x and in Keras 3")
"""The facts, as the answer states them."""


def reset_after_default(version: KerasVersion | None) -> bool | None:
    """GRU's default ``reset_after`` under ``version``; None where either could be the default
    (a Keras 2 table, or nothing known)."""
    if version is KerasVersion.LEGACY:
        return False
    if version is KerasVersion.KERAS3:
        return True
    return None


_LEGACY_PATHS = lazy(r"(^|\.)keras\.layers\.(recurrent|cudnn_recurrent)\.|\.compat\.v1\."
                           r"|(^|\.)keras\.layers\.CuDNN|^keras\.legacy\.")


def old_gru_default(qualified: str) -> bool:
    """Whether a layer imported as ``qualified`` is the GRU whose reset_after defaults to False
    (``keras.layers.recurrent.GRU``, ``tf.compat.v1.keras.layers.GRU``)."""
    return bool(_LEGACY_PATHS.search(qualified))


def call_version(qualified: str, keywords: Iterable[str]) -> tuple[KerasVersion, str] | None:
    """What one Keras layer call says about the Keras it was written for, and why."""
    if old_gru_default(qualified):
        module = qualified.rpartition(".")[0]
        return KerasVersion.LEGACY, f"it imports {module}"
    if qualified.startswith(("tensorflow.keras.", "tensorflow.python.keras.")):
        return KerasVersion.KERAS2, "it imports tensorflow.keras (Keras 2 before TF 2.16)"
    given = set(keywords)
    if "batch_input_shape" in given:
        return KerasVersion.KERAS2, "a layer takes batch_input_shape= (Keras 3 refuses it)"
    for keyword in ("input_length", "input_shape", "input_dim"):
        if keyword in given:
            return KerasVersion.KERAS2, (f"a layer takes {keyword}= (Keras 2's style; Keras 3 "
                                         "accepts it with a warning)")
    return None


def summary_version(lines: Sequence[str]) -> KerasVersion | None:
    """Which Keras printed a summary table, by its drawing: Keras 3's box cells (``┃ Layer
    (type)``) or Keras 2's ``____`` and ``====`` rules."""
    text = "\n".join(lines)
    if re.search(r"[┃│┏].*Layer \(type\)", text):
        return KerasVersion.KERAS3
    if "Layer (type)" in text and re.search(r"^\s*={10,}\s*$", text, re.M):
        return KerasVersion.KERAS2
    return None
