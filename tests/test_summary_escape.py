"""A live model's layer and class names are text in every face (issue 38): Markdown rendered
by a real Markdown renderer (markdown-it-py), the HTML face and the rich console show
``<script>``, ``<img onerror=…>``, ``<b>`` and rich markup as the characters they are."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

import pytest

import paramcount
from paramcount.render.document import Document, Math, Paragraph, Section, Table
from paramcount.render.markdown import to_markdown
from tests.conftest import have

NAMES = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "[bold]loud[/bold]",
         "*star* _under_ `tick` [link](javascript:x) &amp; a|b \\ ~~gone~~"]
CLASS = "<b>Bold</b>"
STRUCTURE = {"p", "strong", "h4", "table", "thead", "tbody", "tr", "th", "td", "pre", "code",
             "ul", "li", "div", "b", "br", "tfoot"}
"""Tags the renderers write themselves (the HTML face's title and footer are in ``<b>``)."""


class Parsed(HTMLParser):
    """The tags and the text of an HTML fragment."""

    def __init__(self, html: str) -> None:
        """Parse ``html``."""
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.text: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Keep the tag's name."""
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        """Keep the text."""
        self.text.append(data)


def markdown_html(markdown: str) -> Parsed:
    """``markdown`` rendered by markdown-it-py with raw HTML passed through (CommonMark's
    default) and GitHub's tables and strikethrough."""
    from markdown_it import MarkdownIt

    return Parsed(MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(markdown))


def test_markdown_of_any_text_renders_as_that_text() -> None:
    """A document made of hostile names, rendered by a real Markdown renderer, holds no tag
    of theirs and shows each one whole, in a table, a paragraph, a heading and a code block."""
    document = Document(NAMES[0], NAMES[1], (
        Section(NAMES[2], (Table(("name", "count"), tuple((n, "1") for n in NAMES),
                                 frozenset({"count"}), footer=(NAMES[3], "4")),
                           Paragraph((f"- {NAMES[1]}",)), Paragraph((NAMES[3],)),
                           Math(("```", NAMES[0])))),))
    parsed = markdown_html(to_markdown(document))
    assert set(parsed.tags) <= STRUCTURE - {"b"}, parsed.tags
    text = "".join(parsed.text)
    for name in NAMES:
        assert name in text, name


@pytest.mark.skipif(not have("torch"), reason="needs torch")
def test_live_model_names_are_text_in_every_face() -> None:
    """A torch model whose module and class names are markup shows them as text in Markdown,
    HTML and rich's console."""
    import rich.console
    from torch import nn

    evil: Any = type(CLASS, (nn.Module,), {})
    model = nn.Sequential()
    for k, name in enumerate(NAMES):
        model.add_module(name.replace(".", ""), nn.LSTM(2, 3) if k == 1 else nn.Linear(2, 2))
    inner = evil()
    inner.register_parameter("w", nn.Parameter(nn.Linear(2, 2).weight.detach()))
    model.add_module("holder", inner)
    result = paramcount.summary(model)
    names = [n.replace(".", "") for n in NAMES]
    markdown = markdown_html(result._repr_markdown_())
    assert set(markdown.tags) <= STRUCTURE - {"b"}, markdown.tags
    html = Parsed(result._repr_html_())
    assert set(html.tags) <= STRUCTURE, html.tags
    for parsed in (markdown, html):
        text = "".join(parsed.text)
        assert all(name in text for name in [*names, CLASS]), text
    console = rich.console.Console(record=True, width=240, color_system=None)
    console.print(result)
    shown = console.export_text()
    assert all(name in shown for name in [*names, CLASS])
