"""The emoji-marker protocol: dialog supervision and profiling answers.

Writers end a reply with a marker instead of emitting JSON; deterministic nodes read
it back and the widget strips it before rendering:

- 👉 a profiling question: the n-th 👉 reply asks the n-th form field, in the order of
  `qualification.forms[*].groups[*].fields[*]` (matched by field order);
  a 👉 line that quotes a configured question maps to that field instead;
- 👇 the demo is proposed (the CTA button sits below the reply);
- 💌 an email is asked (content gating).

`dialog_state_update` is the dialog_state_extractor: one reply (plus the visitor
message of the same turn, for a typed email) → an update for the `dialog_supervision`
state, merged by `merge_dialog_supervision` (latest-turn keys replaced, `ever_*`
cumulative). Turn indexes are the `turn_number` of the turn that produced the reply,
so on the next turn `turn_number - content_gating_ask_turn == 1`, the evaluator's
alignment (`turns_since_ask == 1`).

`form_field_update` is the form_field_extractor: the visitor's answer to the 👉 of the
previous turn becomes a `form_collection` value, and the booking URL carries what is
known as query parameters (`cta_url_overrides`). It reads the pending field from
`profiling_field_by_turn`, so it works whether it runs before or after this turn's
dialog_state_extractor. `replay_history` rebuilds both states from a transcript, as
the evaluator does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

from frontdesk.conversation.reducers import merge_dialog_supervision, merge_form_collection
from frontdesk.conversation.state import ChatUpdate
from frontdesk.conversation.substates import DialogSupervision, FormCollection
from frontdesk.engines.local.signals import extract_email
from frontdesk.sites.schema import ProfilingForm

PROFILING_MARKER: Final = "👉"
DEMO_MARKER: Final = "👇"
EMAIL_MARKER: Final = "💌"
MARKERS: Final = (PROFILING_MARKER, DEMO_MARKER, EMAIL_MARKER)
BOOKING_URL_KEY: Final = "booking_url"
EMAIL_PARAM: Final = "email"
MAX_VALUE_CHARS: Final = 200

_MARKER_RUN = re.compile("[👉👇💌][\U0001f3fb-\U0001f3ff\ufe0f]*")
_NOT_WORD = re.compile(r"[\W_]+")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Markers:
    """What one assistant reply signals through its emoji markers."""

    profiling_question: str | None = None  # the 👉 line without markers; None: no 👉
    proposed_demo: bool = False
    asked_email: bool = False


@dataclass(frozen=True)
class FormFieldUpdate:
    """The form_field_extractor's output: state updates, empty when nothing changed."""

    form_collection: FormCollection = field(default_factory=FormCollection)
    cta_url_overrides: dict[str, str] = field(default_factory=dict)


def parse_markers(reply: str) -> Markers:
    question: str | None = None
    if PROFILING_MARKER in reply:
        line = next(line for line in reply.splitlines() if PROFILING_MARKER in line)
        question = strip_markers(line)
    return Markers(question, DEMO_MARKER in reply, EMAIL_MARKER in reply)


def strip_markers(text: str) -> str:
    """The text as the visitor sees it: markers removed, spacing tidied."""
    lines = (_SPACES.sub(" ", _MARKER_RUN.sub("", line)).strip() for line in text.splitlines())
    return "\n".join(lines).strip()


def form_field_ids(forms: Sequence[ProfilingForm]) -> list[str]:
    """Every configured field id in question order (`field_groups[*].fields[*]`)."""
    return [field_id for form in forms for field_id in form.field_ids]


def dialog_state_update(
    reply: str,
    *,
    turn_number: int,
    user_message: str = "",
    previous: DialogSupervision | None = None,
    forms: Sequence[ProfilingForm] = (),
) -> DialogSupervision:
    """The dialog_state_extractor: the `dialog_supervision` update for one turn.

    `previous` is the supervision state before this turn (it carries the 👉 count and
    the per-turn field map forward). Keys, all JSON-friendly:

    - latest turn, always present: `profiling_asked_last_turn`, `demo_was_proposed_last_turn`,
      `email_asked_last_turn`, `email_captured_last_turn`, `profiling_field_id` (the field
      the latest 👉 asks, or None);
    - turn of the latest marker, present when this reply has it: `profiling_ask_turn`,
      `demo_proposed_turn`, `content_gating_ask_turn` (💌), `email_captured_turn`, with
      `profiling_question` and `captured_email`;
    - carried: `profiling_questions_asked` (👉 replies so far) and
      `profiling_field_by_turn` ({"<turn>": field id});
    - cumulative: `ever_asked_profiling`, `ever_proposed_demo`, `ever_asked_email`,
      `ever_captured_email`.
    """
    if turn_number < 0:
        raise ValueError(f"turn_number must be >= 0, got {turn_number}")
    before = previous or DialogSupervision()
    markers = parse_markers(reply)
    email = extract_email(user_message) if user_message else None
    asked = int(before.get("profiling_questions_asked", 0))
    by_turn = dict(before.get("profiling_field_by_turn") or {})
    field_id: str | None = None
    update = DialogSupervision(
        profiling_asked_last_turn=markers.profiling_question is not None,
        demo_was_proposed_last_turn=markers.proposed_demo,
        email_asked_last_turn=markers.asked_email,
        email_captured_last_turn=email is not None,
    )
    if markers.profiling_question is not None:
        field_id = _field_for(markers.profiling_question, asked, forms)
        asked += 1
        if field_id is not None:
            by_turn[str(turn_number)] = field_id
        update.update(
            {
                "profiling_ask_turn": turn_number,
                "profiling_question": markers.profiling_question,
                "ever_asked_profiling": True,
            }
        )
    if markers.proposed_demo:
        update.update({"demo_proposed_turn": turn_number, "ever_proposed_demo": True})
    if markers.asked_email:
        update.update({"content_gating_ask_turn": turn_number, "ever_asked_email": True})
    if email is not None:
        update.update(
            {
                "captured_email": email,
                "email_captured_turn": turn_number,
                "ever_captured_email": True,
            }
        )
    update.update(
        {
            "profiling_field_id": field_id,
            "profiling_questions_asked": asked,
            "profiling_field_by_turn": by_turn,
        }
    )
    return update


# The supervision keys that keep the turn of a marker.
MarkerTurn = Literal[
    "profiling_ask_turn", "demo_proposed_turn", "content_gating_ask_turn", "email_captured_turn"
]


def turns_since(supervision: DialogSupervision, key: MarkerTurn, turn_number: int) -> int | None:
    """Turns elapsed since the marker recorded under `key` (e.g. `content_gating_ask_turn`);
    1 on the turn right after the reply that carried it, None if it never appeared."""
    marked = supervision.get(key)
    return None if marked is None else turn_number - int(marked)


def _field_for(question: str, asked_before: int, forms: Sequence[ProfilingForm]) -> str | None:
    asked = _normalized(question)
    if len(asked) >= 8:
        for form in forms:
            for group in form.groups:
                for form_field in group.fields:
                    for text in form_field.question.values():
                        configured = _normalized(text)
                        if len(configured) >= 8 and (configured in asked or asked in configured):
                            return form_field.id
    ids = form_field_ids(forms)
    return ids[asked_before] if asked_before < len(ids) else None


def _normalized(text: str) -> str:
    return _NOT_WORD.sub(" ", strip_markers(text).casefold()).strip()


def pending_profiling_field(
    dialog_supervision: DialogSupervision | None,
    form_collection: FormCollection | None,
    turn_number: int,
    forms: Sequence[ProfilingForm] = (),
) -> str | None:
    """The form field this turn's message may answer, or None.

    Normally the field the previous reply's 👉 asked (`profiling_field_by_turn`). A
    history rebuilt by the evaluator has no per-turn map; it sets
    `form_collection.last_extraction_turn == turn_number` instead, and the pending field
    is then the first configured field not collected yet (field-order matching).
    """
    by_turn = (dialog_supervision or DialogSupervision()).get("profiling_field_by_turn") or {}
    asked = by_turn.get(str(turn_number - 1))
    if asked is not None:
        return str(asked)
    collection = form_collection or FormCollection()
    if int(collection.get("last_extraction_turn", -1)) != turn_number:
        return None
    collected = collection.get("collected_values") or {}
    return next((f for f in form_field_ids(forms) if not collected.get(f)), None)


def form_field_update(
    user_message: str,
    *,
    turn_number: int,
    dialog_supervision: DialogSupervision | None,
    form_collection: FormCollection | None,
    booking_url: str,
    email: str | None = None,
    forms: Sequence[ProfilingForm] = (),
) -> FormFieldUpdate:
    """The form_field_extractor: the visitor's answer to last turn's 👉, and the CTA URL.

    The message answers the pending field (`pending_profiling_field`: the one asked by
    the previous reply, or a replayed history's pending 👉), unless it is a question back
    ("…?") or empty; a re-asked field takes the newer answer. The
    booking URL gets every collected field and the conversation's email (`email`, else
    the supervision's `captured_email`, else one in this message) as query parameters.
    """
    supervision = dialog_supervision or DialogSupervision()
    collection = form_collection or FormCollection()
    collected = {str(k): str(v) for k, v in (collection.get("collected_values") or {}).items()}
    pending = pending_profiling_field(supervision, collection, turn_number, forms)
    answer = _SPACES.sub(" ", user_message).strip()
    update = FormCollection()
    already = int(collection.get("last_turn", -1)) >= turn_number
    if pending and answer and not answer.endswith(("?", "？")) and not already:
        collected[pending] = answer[:MAX_VALUE_CHARS]
        update = FormCollection(
            collected_values={pending: collected[pending]}, last_turn=turn_number
        )
    address = email or supervision.get("captured_email") or extract_email(user_message)
    if not booking_url or not (collected or address):
        return FormFieldUpdate(update, {})
    url = booking_url_with_fields(booking_url, collected, address)
    return FormFieldUpdate(update, {BOOKING_URL_KEY: url})


def booking_url_with_fields(
    booking_url: str, fields: Mapping[str, str], email: str | None = None
) -> str:
    """`booking_url` with `fields` (and `email`) as URL-encoded query parameters.

    Parameters already in the URL are kept unless a field of the same name replaces
    them; the fragment is kept.
    """
    params = {key: value[:MAX_VALUE_CHARS] for key, value in fields.items() if value}
    if email:
        params[EMAIL_PARAM] = email
    parts = urlsplit(booking_url)
    kept = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in params]
    query = urlencode([*kept, *params.items()], quote_via=quote)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, parts.fragment))


def replay_history(
    messages: Sequence[tuple[str, str]],
    *,
    forms: Sequence[ProfilingForm] = (),
    booking_url: str = "",
) -> ChatUpdate:
    """Rebuild the marker-driven state from a transcript, as the evaluator does.

    `messages` are (role, content) pairs, role "user" or "assistant", oldest first and
    without the message under test. Returns `turn_number` (assistant replies so far),
    `dialog_supervision`, `form_collection` and `cta_url_overrides`, ready for
    `graph.aupdate_state`. A 👉 left unanswered by the history stays pending in
    `profiling_field_by_turn`, so the next message is read as its answer.
    Empty user messages (widget reconnects) are skipped.
    """
    supervision = DialogSupervision()
    collection = FormCollection()
    overrides: dict[str, str] = {}
    turn = 0
    user = ""
    for role, content in messages:
        if role == "user":
            if content.strip():
                user = content
                found = form_field_update(
                    user,
                    turn_number=turn,
                    dialog_supervision=supervision,
                    form_collection=collection,
                    booking_url=booking_url,
                )
                if found.form_collection:
                    collection = merge_form_collection(collection, found.form_collection)
                overrides = found.cta_url_overrides or overrides
        elif role == "assistant":
            update = dialog_state_update(
                content, turn_number=turn, user_message=user, previous=supervision, forms=forms
            )
            supervision = merge_dialog_supervision(supervision, update)
            turn, user = turn + 1, ""
        else:
            raise ValueError(f"unknown role {role!r}: expected 'user' or 'assistant'")
    return {
        "turn_number": turn,
        "dialog_supervision": supervision,
        "form_collection": collection,
        "cta_url_overrides": overrides,
    }
