"""The site file's hours against the hours the site publishes: one line per day that
differs, naming the day and both values; days the site does not state are left out."""

from __future__ import annotations

import pytest

from frontdesk.facts.agreement import hours_disagreements
from frontdesk.facts.model import SiteFact, SiteFacts
from frontdesk.sites.hours import BusinessHoursConfig

pytestmark = pytest.mark.unit


def day(weekday: int, *ranges: tuple[str, str], **extra: str) -> SiteFact:
    return SiteFact(
        "hours", "", "table", weekday=weekday, ranges=ranges, url="https://x.example/k", **extra
    )


def test_each_differing_day_is_named_with_both_values() -> None:
    config = BusinessHoursConfig.model_validate(
        {
            "timezone": "Europe/Berlin",
            "weekly": {"tue-fri": ["09:30-13:00", "14:00-18:30"], "sat": ["10:00-14:00"]},
        }
    )
    published = SiteFacts(
        (
            day(0),  # closed on both
            day(1, ("09:30", "13:00"), ("14:00", "18:30")),
            day(2, ("09:30", "18:30")),
            day(5, ("10:00", "14:00")),
            day(6, ("11:00", "15:00")),
        )
    )
    assert hours_disagreements(config.weekly_ranges(), published) == [
        "Wednesday: the site file says 09:30-13:00, 14:00-18:30, the site publishes "
        "09:30-18:30 (https://x.example/k)",
        "Sunday: the site file says closed, the site publishes 11:00-15:00 (https://x.example/k)",
    ]
    assert hours_disagreements(config.weekly_ranges(), SiteFacts()) == []


def test_a_team_correction_is_named_as_the_published_source() -> None:
    config = BusinessHoursConfig.model_validate({"timezone": "Europe/Berlin"})  # Mon–Fri 9–18
    corrected = SiteFact(
        "hours", "", "team", weekday=0, ranges=(("10:00", "18:00"),), author="jana@shop.example"
    )
    published = SiteFacts((day(0, ("09:00", "18:00")), corrected))
    assert hours_disagreements(config.weekly_ranges(), published) == [
        "Monday: the site file says 09:00-18:00, the site publishes 10:00-18:00 "
        "(corrected by jana@shop.example)"
    ]
