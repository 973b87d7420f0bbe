"""Known visitors: the host page vouches for a signed-in user (Intercom-style identity
verification). The site's server computes `HMAC-SHA256(identity secret, user id)` as hex
and the page passes it with the user id, email and name; an identity whose signature
does not verify is ignored (and logged), never trusted in part."""

from __future__ import annotations

import hashlib
import hmac
import logging
import os

from frontdesk.api.schemas import IdentityClaim
from frontdesk.sites.schema import SiteConfig
from frontdesk.store.widget import VerifiedIdentity

log = logging.getLogger(__name__)


def sign_user_id(secret: str, user_id: str) -> str:
    """What the site's server computes (documented in docs/widget.md)."""
    return hmac.new(secret.encode("utf-8"), user_id.encode("utf-8"), hashlib.sha256).hexdigest()


def identity_secret(site: SiteConfig) -> str:
    name = site.widget.identity_secret_env
    return os.environ.get(name, "") if name else ""


def verify_identity(site: SiteConfig, claim: IdentityClaim | None) -> VerifiedIdentity | None:
    """The identity when its signature verifies with the site's secret, else None."""
    if claim is None:
        return None
    secret = identity_secret(site)
    if not secret:
        log.warning(
            "site %s: visitor identity ignored: no identity secret configured "
            "(set widget.identity_secret_env and that variable)",
            site.id,
        )
        return None
    if not claim.user_hash:
        log.warning("site %s: visitor identity ignored: unsigned (no user_hash)", site.id)
        return None
    expected = sign_user_id(secret, claim.user_id)
    if not hmac.compare_digest(expected, claim.user_hash.strip().lower()):
        log.warning("site %s: visitor identity ignored: wrong signature", site.id)
        return None
    email = (claim.email or "").strip() or None
    if email and ("@" not in email or any(c.isspace() for c in email)):
        email = None
    return VerifiedIdentity(claim.user_id, email, (claim.name or "").strip() or None)
