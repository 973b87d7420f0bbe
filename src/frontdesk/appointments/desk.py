"""One site's appointment desk: free slots to offer, bookings, cancellations and moves in
its CalDAV calendar, and the invitations e-mailed to the visitor. The chat and the
visitor's cancel/move page share it. Calendar calls run in a thread (the client blocks).
"""

from __future__ import annotations

import asyncio
import hmac
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from hashlib import sha256
from typing import Literal

from babel.dates import format_date, format_skeleton, format_time

from frontdesk.appointments.calendar import CalendarError, TeamCalendar, calendar_for_site
from frontdesk.appointments.invite import Appointment, event_ical
from frontdesk.appointments.slots import Interval, SlotRules, free_slots, spread
from frontdesk.appointments.wishes import TimeWish
from frontdesk.conversation.texts import say
from frontdesk.mail import MailError, send_mail
from frontdesk.settings import Settings
from frontdesk.sites.calendar import AppointmentType
from frontdesk.sites.schema import SiteConfig

log = logging.getLogger(__name__)

OFFER_COUNT = 4  # the widget shows up to five chips
MAX_SEARCH = 200  # slots looked at per offer: enough for weeks of a busy calendar


@dataclass(frozen=True)
class SlotOffer:
    label: str
    start: str  # ISO 8601, UTC
    end: str

    def interval(self) -> Interval:
        return Interval(datetime.fromisoformat(self.start), datetime.fromisoformat(self.end))


def rules_of(kind: AppointmentType) -> SlotRules:
    return SlotRules(
        duration=timedelta(minutes=kind.duration_minutes),
        buffer=timedelta(minutes=kind.buffer_minutes),
        min_notice=timedelta(hours=kind.min_notice_hours),
        max_ahead=timedelta(days=kind.max_days_ahead),
        step=timedelta(minutes=kind.step_minutes),
        allowed=kind.allowed(),
    )


def slot_label(start: datetime, site: SiteConfig, language: str) -> str:
    """ "Sa 12.12. 10:00", "Sat 12/12 10:00 AM": the team's wall time in the visitor's
    language, names and order from CLDR via Babel."""
    local = start.astimezone(site.business_hours.hours().zone)
    weekday = format_date(local.date(), "EEE", locale=language).rstrip(".")
    day = format_skeleton("dM", local.date(), locale=language)
    return f"{weekday} {day} {format_time(local.time(), 'short', locale=language)}"


class AppointmentDesk:
    def __init__(
        self,
        site: SiteConfig,
        settings: Settings,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        if site.calendar is None:
            raise ValueError(f"site {site.id} has no calendar")
        self.site = site
        self.settings = settings
        self.environ = environ
        self._calendar: TeamCalendar | None = None

    @property
    def kinds(self) -> list[AppointmentType]:
        assert self.site.calendar is not None
        return self.site.calendar.appointment_types

    def calendar(self) -> TeamCalendar:
        if self._calendar is None:
            self._calendar = calendar_for_site(self.site, self.environ)
        return self._calendar

    async def _run(self, work: object, *args: object, **kwargs: object) -> object:
        return await asyncio.to_thread(work, *args, **kwargs)  # type: ignore[arg-type]

    # -- offers ----------------------------------------------------------------------

    async def offer(
        self,
        kind: AppointmentType,
        wish: TimeWish | None,
        now: datetime,
        language: str,
        *,
        count: int = OFFER_COUNT,
        skip: frozenset[str] = frozenset(),
    ) -> tuple[list[SlotOffer], bool]:
        """Free slots to offer and whether they meet the wish (False: the next free ones
        instead). Raises `CalendarError` when the calendar cannot be read."""
        rules = rules_of(kind)
        hours = self.site.business_hours.hours()
        busy = await asyncio.to_thread(
            self.calendar().busy, now, now + rules.max_ahead + timedelta(days=1)
        )
        candidates = [
            s
            for s in free_slots(hours, rules, busy, now, limit=MAX_SEARCH)
            if s.start.isoformat() not in skip
        ]
        wanted = (
            [s for s in candidates if wish.admits(s.start, hours.zone)]
            if wish and not wish.empty
            else candidates
        )
        met = bool(wanted) or wish is None or wish.empty
        chosen = spread(wanted or candidates, count, hours)
        return [
            SlotOffer(
                slot_label(s.start, self.site, language), s.start.isoformat(), s.end.isoformat()
            )
            for s in chosen
        ], met

    # -- bookings --------------------------------------------------------------------

    async def book(
        self,
        kind: AppointmentType,
        slot: Interval,
        *,
        name: str,
        email: str,
        language: str,
        session_id: str,
        phone: str = "",
    ) -> Appointment:
        """Book `slot` (`SlotTaken` when somebody was faster, `CalendarError` when the
        calendar fails)."""
        description = self._description(name, email, phone, session_id)
        return await asyncio.to_thread(
            self.calendar().book,
            slot.start,
            slot.end,
            kind=kind.id,
            summary=f"{kind.name_in(language)}: {name}",
            name=name,
            email=email,
            phone=phone,
            session_id=session_id,
            language=language,
            buffer=timedelta(minutes=kind.buffer_minutes),
            description=description,
        )

    def _description(self, name: str, email: str, phone: str, session_id: str) -> str:
        lines = [f"{name} <{email}>"] + ([phone] if phone else [])
        base = self.settings.public_base_url
        if session_id:
            lines.append(f"{base}/console/sites/{self.site.id}/conversations/{session_id}")
        return "\n".join(lines)

    async def get(self, uid: str) -> Appointment:
        return await asyncio.to_thread(self.calendar().get, uid)

    async def cancel(self, uid: str) -> Appointment:
        return await asyncio.to_thread(self.calendar().cancel, uid)

    async def move(self, uid: str, kind: AppointmentType, slot: Interval) -> Appointment:
        return await asyncio.to_thread(
            self.calendar().move,
            uid,
            slot.start,
            slot.end,
            buffer=timedelta(minutes=kind.buffer_minutes),
        )

    async def day(self, start: datetime, end: datetime) -> list[Appointment]:
        return await asyncio.to_thread(self.calendar().appointments, start, end)

    def kind_of(self, appointment: Appointment) -> AppointmentType:
        assert self.site.calendar is not None
        try:
            return self.site.calendar.type_by_id(appointment.kind)
        except KeyError:
            return self.kinds[0]

    # -- the visitor's link and invitation -----------------------------------------------

    def token(self, uid: str) -> str:
        """The cancel/move link's proof: an HMAC of the UID under the CalDAV password,
        which only this server (and the team) knows."""
        key = self.calendar_secret().encode("utf-8")
        return hmac.new(key, f"{self.site.id}:{uid}".encode(), sha256).hexdigest()[:32]

    def calendar_secret(self) -> str:
        from frontdesk.appointments.calendar import password_of

        assert self.site.calendar is not None
        return password_of(self.site.calendar, self.environ)

    def manage_url(self, uid: str) -> str:
        base = self.settings.public_base_url
        return f"{base}/v1/appointments/{self.site.id}/{uid}?token={self.token(uid)}"

    async def send(
        self,
        appointment: Appointment,
        method: Literal["REQUEST", "CANCEL"],
    ) -> bool:
        """E-mail the invitation (or its cancellation) with the .ics attached; False when
        no SMTP server is configured or it refused (the booking stands either way)."""
        settings = self.settings
        if not settings.smtp_host:
            return False
        language = appointment.language
        kind = self.kind_of(appointment)
        values = {
            "site": self.site.name,
            "kind": kind.name_in(language),
            "slot": slot_label(appointment.start, self.site, language),
            "name": appointment.name,
            "phone": appointment.phone,
            "link": self.manage_url(appointment.uid),
        }
        prefix = "appointment.mail" if method == "REQUEST" else "appointment.mail_cancelled"
        message = EmailMessage()
        message["From"] = settings.smtp_from
        message["To"] = appointment.email
        own, tone = self.site.texts, self.site.tone
        message["Subject"] = say(f"{prefix}_subject", language, tone=tone, overrides=own, **values)
        body = say(f"{prefix}_body", language, tone=tone, overrides=own, **values)
        if appointment.phone:  # the number the team will call, for the visitor to check
            phone = say("appointment.mail_phone", language, tone=tone, overrides=own, **values)
            body += f"\n{phone}\n"
        message.set_content(body)
        ical = event_ical(
            appointment,
            organizer_email=self.site.handoff.fallback_email or settings.smtp_from,
            organizer_name=self.site.name,
            method=method,
        )
        message.add_attachment(
            ical,
            maintype="text",
            subtype="calendar",
            filename="invite.ics",
            params={"method": method},
        )
        try:
            await send_mail(settings, message)
        except MailError as exc:
            log.warning("appointment mail failed: %s", exc)
            return False
        return True


__all__ = ["AppointmentDesk", "CalendarError", "SlotOffer", "rules_of", "slot_label"]
