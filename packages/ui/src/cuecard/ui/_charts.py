"""Server-rendered SVG bar charts: no script, no styles, every label escaped.

Pure: a list of ``(label, value)`` pairs in, SVG markup out (inline in the page, which the
Content-Security-Policy allows because it is not a script).
"""

from __future__ import annotations

from html import escape

__all__ = ["bar_chart"]

_BAR = 22
_GAP = 8
_LABEL = 150
_WIDTH = 560


def bar_chart(pairs: list[tuple[str, int]], *, title: str, unit: str = "") -> str:
    """A horizontal bar chart with a title and one labelled bar per pair."""
    if not pairs:
        return ""
    peak = max((v for _, v in pairs), default=0) or 1
    room = _WIDTH - _LABEL - 60
    height = 30 + len(pairs) * (_BAR + _GAP)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
        f'viewBox="0 0 {_WIDTH} {height}" width="{_WIDTH}" height="{height}" '
        f'aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
        f'<text x="0" y="16" class="chart-title">{escape(title)}</text>',
    ]
    for i, (label, value) in enumerate(pairs):
        y = 28 + i * (_BAR + _GAP)
        width = max(2, round(room * value / peak)) if value else 0
        parts.append(
            f'<text x="{_LABEL - 8}" y="{y + _BAR * 0.7:.0f}" text-anchor="end" '
            f'class="chart-label">{escape(label[:24])}</text>'
        )
        parts.append(
            f'<rect x="{_LABEL}" y="{y}" width="{width}" height="{_BAR}" class="chart-bar">'
            f"<title>{escape(label)}: {value}{escape(unit)}</title></rect>"
        )
        parts.append(
            f'<text x="{_LABEL + width + 6}" y="{y + _BAR * 0.7:.0f}" class="chart-value">'
            f"{value}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)
