"""Operator passwords: argon2id (argon2-cffi's defaults, RFC 9106 low-memory profile)."""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from frontdesk.console.i18n import SOURCE_LOCALE, Messages

MIN_PASSWORD_LENGTH = 10

_hasher = PasswordHasher()
# Verified when the e-mail is unknown, so a wrong address costs as long as a wrong password.
_DUMMY_HASH = _hasher.hash("frontdesk-no-such-operator")


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    try:
        return _hasher.verify(password_hash or _DUMMY_HASH, password) and password_hash is not None
    except (VerificationError, InvalidHashError):
        return False


def password_problem(
    password: str, confirm: str, t: Messages = Messages(SOURCE_LOCALE)
) -> str | None:
    """Why a new password cannot be used, or None (in the language of `t`)."""
    if len(password) < MIN_PASSWORD_LENGTH:
        return t.gettext("Use at least %(count)s characters.", count=MIN_PASSWORD_LENGTH)
    if password != confirm:
        return t.gettext("The two passwords differ.")
    return None
