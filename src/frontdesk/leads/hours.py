"""Business hours in the team's IANA timezone, with DST and the same-day cutoff.

Seed 004, "Business Hours Detection Module". The check is always made on the
team's wall clock, never the visitor's: a visitor in New York at 15:00 talks to a
team in Madrid at 21:00. The caller passes `now`, so the functions stay pure.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

MONDAY_TO_FRIDAY = frozenset(range(5))


class BusinessHours(BaseModel):
    """When the team answers (seed 004 "Business Hours Configuration").

    Hours are whole 24h hours in `timezone`: `start_hour` inclusive, `end_hour`
    exclusive (18 means up to 17:59:59). After `same_day_cutoff_hour` no same-day
    follow-up is promised (FR-22). `weekdays` uses Monday=0 … Sunday=6. Public
    holidays are not known (a v1 limitation the seed accepts).
    """

    model_config = ConfigDict(frozen=True)

    timezone: str = Field(description="IANA timezone of the team, e.g. Europe/Madrid")
    start_hour: int = Field(default=9, ge=0, le=23)
    end_hour: int = Field(default=18, ge=1, le=24)
    same_day_cutoff_hour: int = Field(default=16, ge=0, le=24)
    weekdays: frozenset[int] = MONDAY_TO_FRIDAY

    @field_validator("timezone")
    @classmethod
    def _known_timezone(cls, value: str) -> str:
        # A missing or fixed-offset guess is wrong for half the year, so fail at startup.
        if not value.strip():
            raise ValueError("timezone is required: an IANA key such as Europe/Madrid")
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as error:
            raise ValueError(f"unknown IANA timezone {value!r}") from error
        return value

    @field_validator("weekdays")
    @classmethod
    def _real_weekdays(cls, value: frozenset[int]) -> frozenset[int]:
        if not value or not value <= frozenset(range(7)):
            raise ValueError("weekdays must be a non-empty set of 0 (Monday) … 6 (Sunday)")
        return value

    @model_validator(mode="after")
    def _ordered_hours(self) -> BusinessHours:
        if self.start_hour >= self.end_hour:
            raise ValueError(
                f"start_hour ({self.start_hour}) must be before end_hour ({self.end_hour})"
            )
        if not self.start_hour <= self.same_day_cutoff_hour <= self.end_hour:
            raise ValueError(
                f"same_day_cutoff_hour ({self.same_day_cutoff_hour}) must be between "
                f"start_hour ({self.start_hour}) and end_hour ({self.end_hour})"
            )
        return self

    @property
    def zone(self) -> ZoneInfo:
        """The team's timezone (ZoneInfo caches instances per key)."""
        return ZoneInfo(self.timezone)


def _team_clock(moment: datetime, hours: BusinessHours) -> datetime:
    # A naive datetime has no instant; guessing its zone is the bug this module exists to avoid.
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("datetime must be timezone-aware; naive datetimes are rejected")
    return moment.astimezone(hours.zone)


def is_business_hours(now: datetime, hours: BusinessHours, same_day_followup: bool = False) -> bool:
    """True when `now` falls inside the team's business hours (seed 004 is_business_hours).

    With `same_day_followup=True` (hot lead or explicit request, where "we'll call
    you today" would be promised) the earlier same-day cutoff applies as well.
    """
    now_team = _team_clock(now, hours)
    if now_team.weekday() not in hours.weekdays:
        return False
    if now_team.hour < hours.start_hour or now_team.hour >= hours.end_hour:
        return False
    return not (same_day_followup and now_team.hour >= hours.same_day_cutoff_hour)


def next_business_day_opening(reference: datetime, hours: BusinessHours) -> datetime:
    """The next opening at `start_hour` on a business day, in the team's timezone.

    Seed 004 next_business_day_opening: before opening on a business day, today's
    opening; otherwise the following business day's. Used for the CRM task due date.
    Day steps are wall-clock, so the opening stays at `start_hour` across DST changes.
    """
    now_team = _team_clock(reference, hours)
    candidate = now_team.replace(hour=hours.start_hour, minute=0, second=0, microsecond=0, fold=0)
    if now_team.weekday() in hours.weekdays and now_team < candidate:
        return candidate
    candidate += timedelta(days=1)
    while candidate.weekday() not in hours.weekdays:
        candidate += timedelta(days=1)
    return candidate
