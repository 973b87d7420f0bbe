"""The `calendar` section of a site file: the team's CalDAV calendar, the appointment
types booked in it and what the booking asks the visitor for."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, HttpUrl, field_validator

from frontdesk.leads.hours import OpeningRange
from frontdesk.sites.common import Language, Strict, week_of


class AppointmentType(Strict):
    """One kind of appointment the visitor may book (an inspection, a consultation)."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]{0,62}$", description="Slug, e.g. inspection.")
    name: dict[Language, str] = Field(
        min_length=1, description="Name per language: {de: Inspektion, en: Inspection}."
    )
    duration_minutes: int = Field(ge=5, le=24 * 60, description="Length of the appointment.")
    buffer_minutes: int = Field(
        default=0, ge=0, le=24 * 60, description="Kept free before and after every busy time."
    )
    min_notice_hours: float = Field(
        default=2, ge=0, le=24 * 90, description="The earliest slot is this far from now."
    )
    max_days_ahead: int = Field(default=30, ge=1, le=366, description="The latest slot offered.")
    step_minutes: int = Field(default=30, ge=5, le=24 * 60, description="Slots start this often.")
    hours: dict[str, list[str]] | None = Field(
        default=None,
        description="The hours this type may use within the opening hours, per day key: "
        '{sat: ["10:00-12:00"]}. Empty: all opening hours.',
    )

    @field_validator("hours")
    @classmethod
    def _day_keys(cls, value: dict[str, list[str]] | None) -> dict[str, list[str]] | None:
        if value is not None:
            week_of(value, "hours")
        return value

    def name_in(self, language: str) -> str:
        names = {str(code): text for code, text in self.name.items()}
        return names.get(language) or names.get("en") or next(iter(names.values()))

    def allowed(self) -> tuple[tuple[OpeningRange, ...], ...] | None:
        """Monday-first ranges this type may use (None: all opening hours)."""
        return None if self.hours is None else week_of(self.hours, "hours")


ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class CalendarConfig(Strict):
    """The team's calendar over CalDAV (RFC 4791): Nextcloud, Radicale, Fastmail, iCloud…
    The password is read from the environment variable named here, never from the file."""

    url: HttpUrl = Field(description="The calendar collection's URL.")
    user: str = Field(min_length=1, description="CalDAV user name.")
    password_env: str = Field(
        description="Name of the environment variable holding the password, e.g. "
        "FRONTDESK_CALDAV_PASSWORD (the secret itself never goes into the site file)."
    )
    busy_from: Literal["events", "freebusy"] = Field(
        default="events",
        description="How busy times are read: the calendar's events (works everywhere) or a "
        "free-busy report (servers that support it; private events stay private).",
    )
    timeout_s: float = Field(default=10.0, gt=0, le=60)
    appointment_types: list[AppointmentType] = Field(min_length=1)
    ask_phone: bool = Field(
        default=False,
        description="Ask for a phone number besides the name and the e-mail address; the "
        "booking waits for one that is a phone number (7 to 15 digits).",
    )

    @field_validator("password_env")
    @classmethod
    def _env_name(cls, value: str) -> str:
        if not ENV_NAME.match(value):
            raise ValueError(
                f"password_env {value!r} must be the NAME of an environment variable such "
                "as FRONTDESK_CALDAV_PASSWORD, not the password itself"
            )
        return value

    @field_validator("appointment_types")
    @classmethod
    def _unique_ids(cls, value: list[AppointmentType]) -> list[AppointmentType]:
        ids = [kind.id for kind in value]
        doubles = sorted({kind for kind in ids if ids.count(kind) > 1})
        if doubles:
            raise ValueError(f"appointment type ids must be unique: {', '.join(doubles)}")
        return value

    def type_by_id(self, kind: str) -> AppointmentType:
        for candidate in self.appointment_types:
            if candidate.id == kind:
                return candidate
        raise KeyError(kind)
