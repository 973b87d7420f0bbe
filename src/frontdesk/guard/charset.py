"""Text every store can keep: no NUL characters, no unpaired UTF-16 surrogates.

JSON may carry `\\u0000` and unpaired escapes such as `\\udc80` (a browser string cut in
the middle of an emoji); a PDF's text layer may hold NULs. PostgreSQL refuses NUL in
`text` columns and no UTF-8 encoder (SQLite's, psycopg's, an SMTP client's) takes a lone
surrogate, so either one turned a turn into a 500 and lost what it carried. The API
normalises every request string with `clean_text` (`api.schemas.CleanText`) and the
loaders every document, before anything is stored.
"""

from __future__ import annotations

import re

_LONE_SURROGATE = re.compile("[\\ud800-\\udfff]")
REPLACEMENT = "\ufffd"


def clean_text(value: str) -> str:
    """`value` with NUL removed and each lone surrogate replaced by U+FFFD.

    Everything else is kept as sent: a visitor's message stays readable (and a handoff
    request in it still counts) instead of being refused for one broken character.
    """
    if "\x00" in value:
        value = value.replace("\x00", "")
    return _LONE_SURROGATE.sub(REPLACEMENT, value)
