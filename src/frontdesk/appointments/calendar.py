"""The team's calendar over CalDAV (RFC 4791) through the `caldav` client.

Every call is blocking (the client is synchronous); the chat runs them in a thread. A
calendar that cannot be reached or refuses raises `CalendarError`, wrong credentials
`CalendarAuthError`, both with a message an operator can act on.

Two visitors taking the same slot: each booking is created at a resource named after its
start instant with `If-None-Match: *`, which the server grants to exactly one writer
(RFC 7232); the other gets `SlotTaken`. Overlapping slots with different starts are
checked against the busy times right before the write, under a lock per calendar in
this process. Two changes of one booking at once (two moves from the invitation's link,
a move and a cancellation, in one process or on two replicas): each removes the booking
it read with `If-Match: <its ETag>`, so only the first removes it; a move that comes
second gets `Changed` and leaves the booking where the first put it.
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

from frontdesk.appointments.invite import Appointment, appointment_of, event_ical
from frontdesk.appointments.slots import Interval
from frontdesk.sites.calendar import CalendarConfig
from frontdesk.sites.schema import SiteConfig

_T = TypeVar("_T")
_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


class CalendarError(Exception):
    """The calendar cannot be reached or refuses the request."""


class CalendarAuthError(CalendarError):
    """The calendar refuses the configured user and password (or none is set)."""


class SlotTaken(Exception):
    """Somebody else booked the slot first (or it stopped being free)."""


class NotFound(CalendarError):
    """No appointment with this UID in the calendar."""


class Changed(Exception):
    """The booking was moved or cancelled by another request since it was read."""


def password_of(config: CalendarConfig, environ: Mapping[str, str] | None = None) -> str:
    """The CalDAV password from the environment variable the site file names."""
    value = (os.environ if environ is None else environ).get(config.password_env, "")
    if not value:
        raise CalendarAuthError(
            f"calendar: the environment variable {config.password_env} (calendar.password_env) "
            f"is not set; set it to the CalDAV password of {config.user!r}"
        )
    return value


def calendar_for_site(site: SiteConfig, environ: Mapping[str, str] | None = None) -> TeamCalendar:
    """The site's calendar, in the site's timezone (`CalendarError` when it has none)."""
    if site.calendar is None:
        raise CalendarError(f"site {site.id} has no calendar section")
    return TeamCalendar.from_config(
        site.calendar,
        site.business_hours.hours().zone,
        environ,
        organizer_email=site.handoff.fallback_email,
        organizer_name=site.name,
    )


def _lock(url: str) -> threading.Lock:
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(url, threading.Lock())


def slot_href(start: datetime) -> str:
    """The resource name of a booking starting at `start`: one per start instant."""
    return f"frontdesk-{start.astimezone(UTC):%Y%m%dT%H%M%SZ}.ics"


class TeamCalendar:
    """One site's CalDAV calendar."""

    def __init__(
        self,
        config: CalendarConfig,
        password: str,
        zone: ZoneInfo,
        *,
        organizer_email: str = "",
        organizer_name: str = "",
    ) -> None:
        import caldav

        self.config = config
        self.url = str(config.url).rstrip("/") + "/"
        self.zone = zone
        self.organizer_email = organizer_email
        self.organizer_name = organizer_name
        self._client = caldav.DAVClient(
            url=self.url, username=config.user, password=password, timeout=int(config.timeout_s)
        )
        self._calendar = self._client.calendar(url=self.url)  # type: ignore[no-untyped-call]

    @classmethod
    def from_config(
        cls,
        config: CalendarConfig,
        zone: ZoneInfo,
        environ: Mapping[str, str] | None = None,
        **organizer: str,
    ) -> TeamCalendar:
        return cls(config, password_of(config, environ), zone, **organizer)

    # -- errors --------------------------------------------------------------------

    def _call(self, what: str, action: Callable[[], _T]) -> _T:
        from caldav.lib import error as dav_error

        try:
            return action()
        except dav_error.AuthorizationError as exc:
            raise CalendarAuthError(
                f"calendar {self.url} refuses user {self.config.user!r} ({what}): check the "
                f"user and the password in ${self.config.password_env}"
            ) from exc
        except dav_error.NotFoundError as exc:
            raise CalendarError(
                f"calendar {self.url} was not found ({what}): check the URL"
            ) from exc
        except (dav_error.DAVError, OSError) as exc:
            raise CalendarError(f"calendar {self.url} failed ({what}): {exc}") from exc
        except Exception as exc:  # the HTTP stack's own errors (connection refused, timeouts)
            if type(exc).__module__.split(".")[0] in {"urllib3", "requests"}:
                raise CalendarError(f"calendar {self.url} is unreachable ({what}): {exc}") from exc
            raise

    def check(self) -> str:
        """Connect and read the calendar's name: raises on a wrong URL or credentials."""
        return self._call("sign-in", lambda: str(self._calendar.get_display_name() or self.url))

    # -- reading ---------------------------------------------------------------------

    def busy(self, start: datetime, end: datetime) -> list[Interval]:
        """Busy times between `start` and `end`, from a free-busy report or the events."""
        if self.config.busy_from == "freebusy":
            return self._call("free-busy", lambda: self._freebusy(start, end))
        return self._call("events", lambda: self._event_busy(start, end))

    def _freebusy(self, start: datetime, end: datetime) -> list[Interval]:
        from icalendar import Calendar

        reply = self._calendar.freebusy_request(start.astimezone(UTC), end.astimezone(UTC))
        found: list[Interval] = []
        for component in Calendar.from_ical(reply.data).walk("VFREEBUSY"):
            values = component.get("FREEBUSY") or []
            for value in values if isinstance(values, list) else [values]:
                if str(value.params.get("FBTYPE", "BUSY")).upper() == "FREE":
                    continue
                for period in value.dt if isinstance(value.dt, list) else [value.dt]:
                    begin, finish = period
                    if isinstance(finish, timedelta):
                        finish = begin + finish
                    found.append(Interval(begin.astimezone(UTC), finish.astimezone(UTC)))
        return found

    def _events(self, start: datetime, end: datetime) -> list[Any]:
        return list(
            self._calendar.search(
                start=start.astimezone(UTC), end=end.astimezone(UTC), event=True, expand=True
            )
        )

    def _event_busy(self, start: datetime, end: datetime) -> list[Interval]:
        found: list[Interval] = []
        for resource in self._events(start, end):
            for event in resource.icalendar_instance.walk("VEVENT"):
                if str(event.get("TRANSP", "")).upper() == "TRANSPARENT":
                    continue
                if str(event.get("STATUS", "")).upper() == "CANCELLED":
                    continue
                span = self._span(event)
                if span is not None:
                    found.append(span)
        return found

    def _span(self, event: Any) -> Interval | None:
        begin = getattr(event.get("DTSTART"), "dt", None)
        finish = getattr(event.get("DTEND"), "dt", None)
        if begin is None:
            return None
        if not isinstance(begin, datetime):  # an all-day event blocks the team's whole day
            first = datetime.combine(begin, time(), self.zone)
            last = finish if isinstance(finish, date) else begin + timedelta(days=1)
            return Interval(first.astimezone(UTC), datetime.combine(last, time(), self.zone))
        begin = begin if begin.tzinfo else begin.replace(tzinfo=self.zone)
        if finish is None:
            duration = getattr(event.get("DURATION"), "dt", timedelta(0))
            finish = begin + duration
        finish = finish if finish.tzinfo else finish.replace(tzinfo=self.zone)
        return Interval(begin.astimezone(UTC), finish.astimezone(UTC))

    def appointments(self, start: datetime, end: datetime) -> list[Appointment]:
        """Frontdesk's bookings between `start` and `end`, earliest first."""

        def read() -> list[Appointment]:
            found = []
            for resource in self._calendar.search(
                start=start.astimezone(UTC), end=end.astimezone(UTC), event=True
            ):
                booked = appointment_of(resource.data, str(resource.url))
                if booked is not None and booked.status == "CONFIRMED":
                    found.append(booked)
            return sorted(found, key=lambda a: a.start)

        return self._call("bookings", read)

    def get(self, uid: str) -> Appointment:
        """The booking with this UID (NotFound when it was cancelled or never existed)."""

        def read() -> Appointment:
            from caldav.lib import error as dav_error

            try:
                resource = self._calendar.event_by_uid(uid)
            except dav_error.NotFoundError:
                raise NotFound(f"no appointment {uid} in {self.url}") from None
            booked = appointment_of(resource.data, str(resource.url))
            if booked is None:
                raise NotFound(f"{uid} in {self.url} is not an appointment of Frontdesk")
            return booked

        return self._call("find booking", read)

    # -- writing ---------------------------------------------------------------------

    def _put_new(self, appointment: Appointment, description: str) -> Appointment:
        href = self.url + slot_href(appointment.start)
        body = event_ical(
            appointment,
            organizer_email=self.organizer_email,
            organizer_name=self.organizer_name,
            description=description,
        ).decode("utf-8")
        headers = {"Content-Type": "text/calendar; charset=utf-8", "If-None-Match": "*"}
        reply = self._call("book", lambda: self._client.put(href, body, headers))
        if reply.status == 412:
            raise SlotTaken(appointment.start.isoformat())
        if reply.status >= 400:
            raise CalendarError(f"calendar {self.url} refused the booking: HTTP {reply.status}")
        return Appointment(**{**appointment.__dict__, "href": href})

    def _still_free(
        self, start: datetime, end: datetime, buffer: timedelta, own: Interval | None
    ) -> bool:
        """True when nothing but `own` (the booking being moved) is busy around the time."""
        busy = self.busy(start - buffer - timedelta(minutes=1), end + buffer + timedelta(minutes=1))
        return not any(b.start < end + buffer and start - buffer < b.end for b in busy if b != own)

    def book(
        self,
        start: datetime,
        end: datetime,
        *,
        kind: str,
        summary: str,
        name: str,
        email: str,
        phone: str = "",
        session_id: str = "",
        language: str = "en",
        buffer: timedelta = timedelta(0),
        description: str = "",
    ) -> Appointment:
        """Book `start`-`end` for the visitor; `SlotTaken` when somebody was faster."""
        appointment = Appointment(
            uid=f"{uuid.uuid4()}@frontdesk",
            kind=kind,
            start=start.astimezone(UTC),
            end=end.astimezone(UTC),
            summary=summary,
            name=name,
            email=email,
            phone=phone,
            session_id=session_id,
            language=language,
        )
        with _lock(self.url):
            if not self._still_free(appointment.start, appointment.end, buffer, None):
                raise SlotTaken(appointment.start.isoformat())
            return self._put_new(appointment, description)

    def _read(self, uid: str) -> tuple[Appointment, str]:
        """The booking and the ETag of its resource, read together."""
        booked = self.get(uid)
        reply = self._call("read booking", lambda: self._client.request(booked.href, "GET"))
        if reply.status == 404:
            raise Changed(uid)
        if reply.status >= 400:
            raise CalendarError(f"calendar {self.url} refused to read {uid}: HTTP {reply.status}")
        fresh = appointment_of(reply.raw, booked.href) if reply.raw else None
        return fresh or booked, str(reply.headers.get("ETag", ""))

    def _remove(self, booked: Appointment, etag: str) -> None:
        """Delete the booking's resource if it is still the version read (`Changed` if not)."""
        headers = {"If-Match": etag} if etag else {}
        reply = self._call(
            "remove", lambda: self._client.request(booked.href, "DELETE", "", headers)
        )
        if reply.status in (404, 412):
            raise Changed(booked.uid)
        if reply.status >= 400:
            raise CalendarError(f"calendar {self.url} refused the change: HTTP {reply.status}")

    def cancel(self, uid: str) -> Appointment:
        """Remove the booking from the calendar, wherever a concurrent move put it; returns
        it as it was (`NotFound` when it is gone already)."""
        for _ in range(3):
            booked, etag = self._read(uid)
            try:
                self._remove(booked, etag)
            except Changed:
                continue  # moved meanwhile: cancel it at its new time
            return Appointment(**{**booked.__dict__, "status": "CANCELLED"})
        raise CalendarError(f"calendar {self.url}: {uid} kept changing while being cancelled")

    def move(
        self,
        uid: str,
        start: datetime,
        end: datetime,
        *,
        buffer: timedelta = timedelta(0),
        description: str = "",
    ) -> Appointment:
        """Move the booking (same UID, next SEQUENCE); `SlotTaken` keeps the old time,
        `Changed` keeps what another request made of it meanwhile."""
        with _lock(self.url):
            booked, etag = self._read(uid)
            moved = booked.moved(start.astimezone(UTC), end.astimezone(UTC))
            own = Interval(booked.start, booked.end)
            if not self._still_free(moved.start, moved.end, buffer, own):
                raise SlotTaken(moved.start.isoformat())
            # A calendar holds one resource per UID: the old one goes first, and comes
            # back when the new time was taken meanwhile.
            self._remove(booked, etag)
            try:
                return self._put_new(moved, description)
            except SlotTaken:
                self._put_new(booked, description)
                raise
