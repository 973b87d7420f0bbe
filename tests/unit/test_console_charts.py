"""Server-drawn charts and percentiles of the console's analytics page (pure)."""

from __future__ import annotations

from datetime import date, timedelta

from frontdesk.console.charts import daily_bars, horizontal_bars, percentile


def test_percentile_is_nearest_rank() -> None:
    values = [float(n) for n in range(1, 101)]
    assert percentile(values, 0.5) == 50.0
    assert percentile(values, 0.95) == 95.0
    assert percentile([7.0], 0.95) == 7.0
    assert percentile([], 0.5) is None


def test_daily_bars_draw_one_bar_per_day_scaled_to_the_peak() -> None:
    first = date(2026, 1, 1)
    days = [(first + timedelta(days=n), count) for n, count in enumerate([0, 5, 10])]
    svg = str(daily_bars(days, title="Per day"))
    assert svg.startswith("<svg") and svg.count("<rect") == 3
    assert 'height="0.0"' in svg  # the empty day
    assert "2026-01-03: 10</title>" in svg
    assert "style=" not in svg  # the console's CSP allows no inline styles


def test_horizontal_bars_escape_labels_and_show_shares() -> None:
    svg = str(horizontal_bars([("<b>answered</b>", 3), ("refused", 1)], title="x", total=4))
    assert "<b>" not in svg and "&lt;b&gt;answered&lt;/b&gt;" in svg
    assert "3 (75%)" in svg and "1 (25%)" in svg
