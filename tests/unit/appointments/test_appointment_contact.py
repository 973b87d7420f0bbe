"""The visitor's contact while booking (pure): phone numbers as people type them, and what
is asked for next when a site wants a phone number besides the name and e-mail."""

from __future__ import annotations

import pytest

from frontdesk.appointments.contact import read_contact
from frontdesk.appointments.phones import phone_in, without_phone
from frontdesk.sites.calendar import CalendarConfig

pytestmark = pytest.mark.unit

OFFERED = [{"label": "Sa 12.12. 10:00", "start": "", "end": ""}]


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("+49 30 1234567", "+49 30 1234567"),
        ("+49 (0)30 123-45-67", "+49 (0)30 123-45-67"),
        ("Ada Lovelace, ada@example.org, 0171 1234567", "0171 1234567"),
        ("Tel. 0044 20 7946 0958", "0044 20 7946 0958"),
        ("+7 (495) 123-45-67", "+7 (495) 123-45-67"),
        ("appelez-moi au 06 12 34 56 78", "06 12 34 56 78"),
        ("Sa 12.12. 10:00, Ada, ada@example.org, 030/1234567", "030/1234567"),
    ],
)
def test_a_phone_number_as_people_type_it(text: str, number: str) -> None:
    assert phone_in(text, ["Sa 12.12. 10:00"]).number == number


@pytest.mark.parametrize("text", ["12345", "0171-12", "+49 30 12", "1234567890123456"])
def test_too_few_or_too_many_digits_is_a_try_not_a_number(text: str) -> None:
    reading = phone_in(text)
    assert reading.number is None and reading.attempted


@pytest.mark.parametrize(
    "text", ["Ada Lovelace, ada@example.org", "Sa 12.12. 10:00", "15.12.2026", "ada2@x.org"]
)
def test_no_number_and_no_try(text: str) -> None:
    assert phone_in(text, ["Sa 12.12. 10:00"]) == phone_in("")


def test_the_digits_of_a_number_are_no_time_of_day() -> None:
    reading = phone_in("Ada, ada@example.org, 030 1034567")
    assert "10" not in without_phone("Ada, ada@example.org, 030 1034567", reading)


def test_what_is_asked_next() -> None:
    first = read_contact("Ada Lovelace, ada@example.org", OFFERED, {}, ask_phone=True)
    assert not first.complete(True) and first.question(True) == "phone"
    assert first.complete(False)  # a site that does not ask books now
    known = {"name": "Ada Lovelace", "email": "a@x.org"}
    wrong = read_contact("12345", OFFERED, known, ask_phone=True)
    assert wrong.name == "Ada Lovelace" and wrong.question(True) == "phone_invalid"
    done = read_contact("+49 30 1234567", OFFERED, known, ask_phone=True)
    assert done.complete(True) and done.phone == "+49 30 1234567"
    assert done.name == "Ada Lovelace"  # the digits are not a name
    nothing = read_contact("hello?", OFFERED, {}, ask_phone=True)
    assert nothing.question(True) == "all"


def test_ask_phone_is_off_by_default_and_a_boolean() -> None:
    base = {
        "url": "https://cal.example/dav/team/appointments/",
        "user": "team",
        "password_env": "CALDAV_PASSWORD",
        "appointment_types": [{"id": "x", "name": {"en": "X"}, "duration_minutes": 30}],
    }
    assert CalendarConfig.model_validate(base).ask_phone is False
    assert CalendarConfig.model_validate({**base, "ask_phone": True}).ask_phone is True
    with pytest.raises(ValueError, match="ask_phone"):
        CalendarConfig.model_validate({**base, "ask_phone": "sometimes"})
    with pytest.raises(ValueError, match="ask_phon"):
        CalendarConfig.model_validate({**base, "ask_phon": True})  # a typo is an error
