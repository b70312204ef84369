"""docs/torchinfo.md is what torchinfo and paramcount print now, on the same model."""

from __future__ import annotations

import pytest

from tests.conftest import have
from tests.torchinfo_side import PAGE, page


@pytest.mark.skipif(not (have("torch") and have("torchinfo")), reason="needs torchinfo")
def test_the_side_by_side_page_is_current() -> None:
    """The page, written afresh from both tools' real output, is the committed one
    (``python -m tests.torchinfo_side`` rewrites it)."""
    assert page() == PAGE.read_text()
