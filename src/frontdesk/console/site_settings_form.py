"""The site settings form: a site file's editable settings as form values, and a submitted
form as the site file's new content, with each refusal tied to its input and named by the
site file's field (as `frontdesk sites validate` names it).

Secrets (the Slack webhook address, signing secrets) are write-only: the form says whether
each is set, a typed value replaces it, a tick clears it, and a blank input keeps it.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from pydantic import HttpUrl, TypeAdapter, ValidationError

from frontdesk.console.i18n import SOURCE_LOCALE, Messages
from frontdesk.sites.schema import SUPPORTED_LANGUAGES, SiteConfig

FormInput = dict[str, list[str]]

HOURS_FIELDS = ("hours.timezone", "hours.weekly", "hours.holidays", "hours.closed")
CONTACT_WAYS = ("email", "phone", "either")
TONES = ("formal", "informal")


class SettingsRefused(Exception):
    """The submitted settings would not load; `errors` maps form inputs to messages."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(errors.values()))
        self.errors = errors


@dataclass
class SettingsForm:
    """What the settings form shows: values, which secrets are set, and any refusals."""

    version: str
    values: dict[str, Any]
    secrets: dict[str, bool]
    webhook_rows: int
    errors: dict[str, str] = field(default_factory=dict)
    # Secrets typed into a refused form: they are not sent back, so the page asks again.
    secrets_typed: bool = False


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _weekly_lines(config: SiteConfig) -> str:
    hours = config.business_hours
    if hours.weekly is not None:
        return "\n".join(f"{key}: {', '.join(ranges)}" for key, ranges in hours.weekly.items())
    names = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
    return "\n".join(
        f"{names[day]}: {', '.join(str(r) for r in ranges)}"
        for day, ranges in enumerate(hours.weekly_ranges())
        if ranges
    )


def form_values(config: SiteConfig) -> dict[str, Any]:
    """The form's inputs filled from a site's configuration (never a secret's value)."""
    greeting = {str(k): v for k, v in config.widget.greeting.items()}
    starters = {str(k): v for k, v in config.starter_questions.items()}
    hours = config.business_hours
    values: dict[str, Any] = {
        "default_language": config.default_language,
        "languages": [str(code) for code in config.languages],
        "tone": config.tone,
        "allowed_origins": "\n".join(config.widget.allowed_origins),
        "hours.timezone": hours.timezone,
        "hours.weekly": _weekly_lines(config),
        "hours.holidays": hours.holidays or "",
        "hours.closed": "\n".join(day.isoformat() for day in hours.closed),
        "handoff.fallback_email": config.handoff.fallback_email,
        "handoff.contact": config.handoff.contact,
    }
    for code in SUPPORTED_LANGUAGES:
        values[f"greeting.{code}"] = greeting.get(code, "")
        values[f"starter_questions.{code}"] = "\n".join(starters.get(code, []))
    for index, hook in enumerate(config.handoff.webhooks):
        values[f"webhook.{index}.url"] = str(hook.url)
    return values


def secrets_set(config: SiteConfig) -> dict[str, bool]:
    handoff = config.handoff
    found = {
        "handoff.slack_webhook_url": handoff.slack_webhook_url is not None,
        "handoff.slack_signing_secret": bool(handoff.slack_signing_secret),
    }
    for index, hook in enumerate(handoff.webhooks):
        found[f"webhook.{index}.secret"] = bool(hook.secret)
    return found


def blank_form(config: SiteConfig, version: str) -> SettingsForm:
    return SettingsForm(
        version=version,
        values=form_values(config),
        secrets=secrets_set(config),
        webhook_rows=len(config.handoff.webhooks) + 1,
    )


def typed_values(submitted: FormInput) -> dict[str, Any]:
    """The values as the operator typed them, to show again after a refusal (secrets are
    not among them: the page never carries a secret back)."""
    values: dict[str, Any] = {
        name: items[0] if items else ""
        for name, items in submitted.items()
        if not name.endswith(".secret") and name not in SECRET_INPUTS
    }
    values["languages"] = submitted.get("languages", [])
    return values


SECRET_INPUTS = ("handoff.slack_webhook_url", "handoff.slack_signing_secret")


def _one(submitted: FormInput, name: str) -> str:
    items = submitted.get(name) or [""]
    return items[0].replace("\r\n", "\n")  # browsers send a textarea's lines with CRLF


def _at(data: dict[str, Any], path: str) -> Any:
    node: Any = data
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _put(data: dict[str, Any], path: str, value: Any, current: Any) -> None:
    """Set `path` in the file's data when `value` differs from what applies now (a value
    the file leaves to its default is not written out unless it changes); None removes."""
    if value == current:
        return
    parts = path.split(".")
    node = data
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    if value is None or value == {} or value == []:
        node.pop(parts[-1], None)
    else:
        node[parts[-1]] = value


def _weekly(text: str, errors: dict[str, str], t: Messages) -> dict[str, list[str]]:
    weekly: dict[str, list[str]] = {}
    for number, line in enumerate(_lines(text), start=1):
        key, colon, ranges = line.partition(":")
        values = [part.strip() for part in ranges.split(",") if part.strip()]
        if not colon or not key.strip() or not values:
            problem = t.gettext(
                "line %(number)s (%(line)s): write a day or days and their ranges, such as "
                "mon-fri: 09:00-13:00, 14:00-18:00",
                number=number,
                line=repr(line),
            )
            errors["hours.weekly"] = f"business_hours.weekly: {problem}"
            return {}
        if key.strip().lower() in weekly:
            problem = t.gettext("%(day)s is named twice", day=repr(key.strip()))
            errors["hours.weekly"] = f"business_hours.weekly: {problem}"
            return {}
        weekly[key.strip().lower()] = values
    return weekly


def _hours(
    submitted: FormInput, raw: dict[str, Any], errors: dict[str, str], t: Messages
) -> dict[str, Any]:
    """The `business_hours` section the form asks for: the weekly form, keeping the
    file's dated special hours and same-day cutoff, which the form does not edit."""
    before = raw.get("business_hours") or {}
    hours: dict[str, Any] = {"timezone": _one(submitted, "hours.timezone").strip()}
    hours["weekly"] = _weekly(_one(submitted, "hours.weekly"), errors, t)
    holidays = _one(submitted, "hours.holidays").strip()
    if holidays:
        hours["holidays"] = holidays
    closed: list[Any] = []
    for line in _lines(_one(submitted, "hours.closed")):
        try:
            closed.append(date.fromisoformat(line))
        except ValueError:
            closed.append(line)  # the schema names the field and the value
    if closed:
        hours["closed"] = closed
    for kept in ("special", "same_day_cutoff"):
        if kept in before:
            hours[kept] = before[kept]
    return hours


def _handoff(
    submitted: FormInput, raw: dict[str, Any], config: SiteConfig, new: dict[str, Any]
) -> list[int]:
    """Write the handoff channels of the form into `new`; the form rows of the webhooks
    kept, in order (to tie a schema error of `webhooks.N` to its row)."""
    before = raw.get("handoff") or {}
    _put(
        new,
        "handoff.fallback_email",
        _one(submitted, "handoff.fallback_email").strip(),
        before.get("fallback_email", config.handoff.fallback_email),
    )
    _put(
        new,
        "handoff.contact",
        _one(submitted, "handoff.contact"),
        before.get("contact", config.handoff.contact),
    )
    for name in SECRET_INPUTS:
        key = name.split(".")[1]
        typed = _one(submitted, name).strip()
        if typed:
            _put(new, name, typed, before.get(key))
        elif _one(submitted, f"{name}.clear"):
            _put(new, name, None, before.get(key))
    hooks: list[dict[str, Any]] = []
    rows: list[int] = []
    old_hooks = before.get("webhooks") or []
    index = 0
    while f"webhook.{index}.url" in submitted:
        url = _one(submitted, f"webhook.{index}.url").strip()
        old = dict(old_hooks[index]) if index < len(old_hooks) else {}
        secret = _one(submitted, f"webhook.{index}.secret").strip()
        if url:
            # The form shows an address as the schema normalises it (a trailing slash):
            # the same address is kept as the file writes it.
            same = old and _same_address(url, str(old.get("url", "")))
            hook = {**old, "url": old["url"] if same else url}
            if secret:
                hook["secret"] = secret
            elif _one(submitted, f"webhook.{index}.secret.clear"):
                hook.pop("secret", None)
            hooks.append(hook)
            rows.append(index)
        index += 1
    _put(new, "handoff.webhooks", hooks, old_hooks)
    if not new.get("handoff"):
        new.pop("handoff", None)
    return rows


def _same_address(typed: str, written: str) -> bool:
    try:
        return bool(_ADDRESS.validate_python(typed) == _ADDRESS.validate_python(written))
    except ValidationError:
        return False


_ADDRESS: TypeAdapter[HttpUrl] = TypeAdapter(HttpUrl)


def _form_field(loc: tuple[Any, ...], webhook_rows: list[int], message: str) -> str:
    """The form input a schema error belongs to."""
    parts = [str(part) for part in loc]
    if not parts:
        return "default_language" if "default_language" in message else "languages"
    head = parts[0]
    if head == "widget" and len(parts) > 1 and parts[1] == "greeting":
        return f"greeting.{parts[2]}" if len(parts) > 2 else "greeting"
    if head == "widget":
        return "allowed_origins"
    if head == "starter_questions":
        return f"starter_questions.{parts[1]}" if len(parts) > 1 else "starter_questions"
    if head == "business_hours":
        sub = parts[1] if len(parts) > 1 else "weekly"
        return f"hours.{sub}" if f"hours.{sub}" in HOURS_FIELDS else "hours.weekly"
    if head == "handoff" and len(parts) > 2 and parts[1] == "webhooks":
        row = webhook_rows[int(parts[2])] if int(parts[2]) < len(webhook_rows) else 0
        return f"webhook.{row}.{parts[3] if len(parts) > 3 else 'url'}"
    if head == "handoff" and len(parts) > 1:
        return f"handoff.{parts[1]}"
    return head


def apply_form(
    submitted: FormInput,
    raw: dict[str, Any],
    config: SiteConfig,
    t: Messages = Messages(SOURCE_LOCALE),
) -> dict[str, Any]:
    """The site file's data (`raw`, as loaded) with the submitted settings in it, checked
    by the site schema; `SettingsRefused` names each refused field (by its name in the
    site file) and its input. The form's own problems are worded in `t`'s language; the
    schema's are its own English, as `frontdesk sites validate` prints them."""
    new = copy.deepcopy(raw)
    errors: dict[str, str] = {}
    languages = [code for code in SUPPORTED_LANGUAGES if code in submitted.get("languages", [])]
    _put(new, "languages", languages or None, raw.get("languages", list(config.languages)))
    if not languages:
        errors["languages"] = f"languages: {t.gettext('choose at least one language')}"
    for name in ("default_language", "tone"):
        _put(new, name, _one(submitted, name), raw.get(name, getattr(config, name)))
    greeting = {
        code: _one(submitted, f"greeting.{code}").strip()
        for code in SUPPORTED_LANGUAGES
        if _one(submitted, f"greeting.{code}").strip()
    }
    _put(new, "widget.greeting", greeting, _at(raw, "widget.greeting") or {})
    starters = {
        code: _lines(_one(submitted, f"starter_questions.{code}"))
        for code in SUPPORTED_LANGUAGES
        if _lines(_one(submitted, f"starter_questions.{code}"))
    }
    _put(new, "starter_questions", starters, raw.get("starter_questions") or {})
    origins = _lines(_one(submitted, "allowed_origins"))
    _put(new, "widget.allowed_origins", origins, _at(raw, "widget.allowed_origins") or [])
    if any(_one(submitted, name) != value for name, value in _hours_shown(config).items()):
        _put(new, "business_hours", _hours(submitted, raw, errors, t), raw.get("business_hours"))
    rows = _handoff(submitted, raw, config, new)
    if not errors:
        try:
            SiteConfig.model_validate(new)
        except ValidationError as exc:
            for item in exc.errors():
                where = ".".join(str(part) for part in item["loc"])
                if not where:  # the schema's cross-field check names its field in words
                    where = _form_field((), rows, item["msg"])
                message = f"{where}: {item['msg']}"
                errors.setdefault(_form_field(item["loc"], rows, item["msg"]), message)
    if errors:
        raise SettingsRefused(errors)
    return new


def _hours_shown(config: SiteConfig) -> dict[str, str]:
    values = form_values(config)
    return {name: values[name] for name in HOURS_FIELDS}
