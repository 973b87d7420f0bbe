"""Charts drawn on the server as inline SVG: no script, no CDN, readable without CSS.

Pure functions: numbers in, escaped SVG markup out. Colours are presentation attributes
(the console's CSP allows no inline styles).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date
from html import escape

from markupsafe import Markup

BAR = "#2457c5"
GRID = "#d9dee6"


def percentile(values: Sequence[float], share: float) -> float | None:
    """Nearest-rank percentile (`share` in 0..1); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, min(len(ordered), math.ceil(share * len(ordered))))
    return ordered[rank - 1]


def daily_bars(days: Sequence[tuple[date, int]], *, title: str) -> Markup:
    width, height, pad_left, pad_bottom, pad_top = 640, 220, 36, 28, 12
    plot_w, plot_h = width - pad_left - 8, height - pad_bottom - pad_top
    peak = max([count for _d, count in days] + [1])
    slot = plot_w / max(len(days), 1)
    parts = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(title)}"><title>{escape(title)}</title>'
    ]
    for tick in (0, peak // 2, peak):
        y = pad_top + plot_h - plot_h * tick / peak
        parts.append(
            f'<line x1="{pad_left}" x2="{width - 8}" y1="{y:.1f}" y2="{y:.1f}" stroke="{GRID}"/>'
            f'<text x="{pad_left - 6}" y="{y + 4:.1f}" text-anchor="end">{tick}</text>'
        )
    label_every = max(1, len(days) // 6)
    for index, (day, count) in enumerate(days):
        bar_h = plot_h * count / peak
        x = pad_left + index * slot + slot * 0.15
        y = pad_top + plot_h - bar_h
        parts.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{slot * 0.7:.1f}" height="{bar_h:.1f}" '
            f'fill="{BAR}"><title>{day.isoformat()}: {count}</title></rect>'
        )
        if index % label_every == 0:
            parts.append(
                f'<text x="{x + slot * 0.35:.1f}" y="{height - 8}" text-anchor="middle">'
                f"{day.strftime('%d %b')}</text>"
            )
    parts.append("</svg>")
    return Markup("".join(parts))


def horizontal_bars(
    rows: Sequence[tuple[str, int]], *, title: str, total: int | None = None
) -> Markup:
    """One bar per row, labelled with its count (and its share of `total` when given)."""
    width, row_h, label_w = 640, 30, 150
    height = row_h * max(len(rows), 1) + 8
    peak = max([count for _l, count in rows] + [1])
    parts = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(title)}"><title>{escape(title)}</title>'
    ]
    for index, (label, count) in enumerate(rows):
        y = 4 + index * row_h
        bar_w = (width - label_w - 90) * count / peak
        share = f" ({100 * count / total:.0f}%)" if total else ""
        parts.append(
            f'<text x="{label_w - 8}" y="{y + 19}" text-anchor="end">{escape(label)}</text>'
            f'<rect x="{label_w}" y="{y + 5}" width="{bar_w:.1f}" height="{row_h - 10}" '
            f'fill="{BAR}"/>'
            f'<text x="{label_w + bar_w + 6:.1f}" y="{y + 19}">{count}{share}</text>'
        )
    parts.append("</svg>")
    return Markup("".join(parts))
