"""The bidirectional ÷ unidirectional ratio by depth as an SVG bar chart readable without
colour: every bar carries its ratio as text, and the 2× a single layer has is a dashed line."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from paramcount.engine.report import DepthRow

_ROW = 26
_LABEL = 90
_BAR = 360
_TOP = 28


def ratio_chart(rows: Sequence[DepthRow], limit: float | None = None) -> str:
    """An ``<svg>`` with one horizontal bar per depth (its ratio written beside it), an axis
    from 0 to 3 and a dashed line at 2; empty for no rows."""
    if not rows:
        return ""
    top = max(3.0, *(row.ratio for row in rows), limit or 0.0)
    height = _TOP + _ROW * len(rows) + (48 if limit is not None else 30)

    def x(value: float) -> float:
        return _LABEL + _BAR * value / top

    title = "Bidirectional ÷ unidirectional parameters by depth"
    summary = "; ".join(f"{row.layers} layer{'s' if row.layers > 1 else ''}: {row.ratio:.3f}"
                        for row in rows)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="ratio-chart" role="img" '
             f'viewBox="0 0 {_LABEL + _BAR + 70} {height}" width="{_LABEL + _BAR + 70}" '
             f'height="{height}" aria-label="{escape(title)}: {escape(summary)}">',
             f"<title>{escape(title)}</title>",
             f'<text x="0" y="16" font-size="14" font-weight="bold">{escape(title)}</text>']
    for i, row in enumerate(rows):
        y = _TOP + i * _ROW
        plural = "s" if row.layers > 1 else ""
        parts.append(f'<text x="0" y="{y + 17}" font-size="13">{row.layers} layer{plural}</text>')
        parts.append(f'<rect x="{_LABEL}" y="{y + 4}" width="{x(row.ratio) - _LABEL:.1f}" '
                     f'height="{_ROW - 8}" fill="#555" stroke="#000"/>')
        parts.append(f'<text x="{x(row.ratio) + 6:.1f}" y="{y + 17}" font-size="13">'
                     f"{row.ratio:.3f}</text>")
    bottom = _TOP + _ROW * len(rows)
    two = x(2.0)
    parts.append(f'<line x1="{two:.1f}" y1="{_TOP}" x2="{two:.1f}" y2="{bottom}" stroke="#000" '
                 'stroke-width="2" stroke-dasharray="6 4"/>')
    parts.append(f'<line x1="{_LABEL}" y1="{bottom}" x2="{x(top):.1f}" y2="{bottom}" '
                 'stroke="#000"/>')
    for tick in range(int(top) + 1):
        parts.append(f'<text x="{x(tick):.1f}" y="{bottom + 18}" font-size="12" '
                     f'text-anchor="middle">{tick}{"× (2P)" if tick == 2 else ""}</text>')
    if limit is not None:
        parts.append(f'<text x="0" y="{bottom + 38}" font-size="12">deeper stacks tend to '
                     f"{limit:.3f} (each further layer's ratio)</text>")
    parts.append("</svg>")
    return "\n".join(parts)
