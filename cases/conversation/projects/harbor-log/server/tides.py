"""Tide windows: when a boat can cross the harbour bar without touching bottom.

The bar has 0.9 m of water at the lowest tide. A boat may cross while the tide height plus the
bar depth exceeds its draft by the safety margin.
"""

import math
from datetime import date

BAR_DEPTH_M = 0.9
SAFETY_MARGIN_M = 0.4
TIDE_RANGE_M = 3.2
TIDAL_PERIOD_H = 12.42


def tide_height(day: date, hour: float) -> float:
    """Height above the lowest tide, a sine model anchored to high water at 06:00 on 1 January."""
    hours = (day - date(day.year, 1, 1)).days * 24 + hour - 6
    return TIDE_RANGE_M / 2 * (1 + math.cos(2 * math.pi * hours / TIDAL_PERIOD_H))


def safe_windows(day: str, draft: float) -> list[dict]:
    """Hour ranges of `day` in which a boat with this draft clears the bar."""
    when = date.fromisoformat(day)
    windows: list[dict] = []
    start = None
    for quarter in range(24 * 4 + 1):
        hour = quarter / 4
        clear = tide_height(when, hour) + BAR_DEPTH_M >= draft + SAFETY_MARGIN_M
        if clear and start is None:
            start = hour
        if (not clear or quarter == 24 * 4) and start is not None:
            windows.append({"from": start, "to": hour})
            start = None
    return windows
