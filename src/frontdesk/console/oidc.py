"""Console sign-in with an OpenID Connect provider: the authorization-code flow with PKCE.

Authlib does the protocol (authorization URL with the S256 code challenge, the token
request, the ID token's OpenID claims: nonce, `azp`, `at_hash`) and joserfc (its JOSE
library) the signature against the provider's JWKS. This module adds what the console
decides: which provider (settings), which operator a verified e-mail is — an EXISTING
operator only, never a new account — and the refusals in words an operator understands.

The flow's secrets (state, nonce, PKCE verifier) wait in a short-lived HttpOnly cookie
scoped to the callback path: no server-side store, so any replica finishes the flow.
"""

from __future__ import annotations

import base64
import json
import secrets
import time
from dataclasses import dataclass
from typing import Any

import httpx

from frontdesk.console.i18n import N_, ToldError
from frontdesk.settings import Settings

FLOW_COOKIE = "fd_oidc"
FLOW_LIFETIME_S = 600
CALLBACK_PATH = "/console/login/oidc/callback"
SIGNING_ALGORITHMS = ["RS256", "RS384", "RS512", "ES256", "ES384", "PS256"]
METADATA_TTL_S = 3600.0
HTTP_TIMEOUT_S = 10.0
CLOCK_LEEWAY_S = 60


class OidcUnavailable(Exception):
    """OIDC is configured but cannot run (the `oidc` extra missing, provider unreachable)."""


class OidcRefused(ToldError):
    """The sign-in is refused; the message is shown on the sign-in page, in the reader's
    language."""


@dataclass(frozen=True)
class OidcConfig:
    issuer: str
    discovery_url: str
    client_id: str
    client_secret: str
    allowed_domains: tuple[str, ...]
    redirect_url: str
    button_label: str

    @classmethod
    def from_settings(cls, settings: Settings) -> OidcConfig | None:
        issuer = settings.oidc_issuer.strip().rstrip("/")
        if not issuer or not settings.oidc_client_id.strip():
            return None
        domains = (d.strip().lower().lstrip("@") for d in settings.oidc_allowed_domains.split(","))
        return cls(
            issuer=issuer,
            discovery_url=settings.oidc_discovery_url.strip()
            or f"{issuer}/.well-known/openid-configuration",
            client_id=settings.oidc_client_id.strip(),
            client_secret=settings.oidc_client_secret.get_secret_value(),
            allowed_domains=tuple(d for d in domains if d),
            redirect_url=settings.oidc_redirect_url.strip(),
            button_label=settings.oidc_button_label,
        )

    def callback_url(self, public_base_url: str) -> str:
        """Where the provider sends the browser back: the configured redirect URL, else
        the server's public address (`Settings.public_base_url`). Never the request's
        Host header, which whoever sends the request chooses."""
        if self.redirect_url:
            return self.redirect_url
        if not public_base_url:
            raise OidcUnavailable(
                "Single sign-on needs this server's public address: set FRONTDESK_PUBLIC_URL "
                "(or FRONTDESK_OIDC_REDIRECT_URL) to the address people open the console at."
            )
        return public_base_url.rstrip("/") + CALLBACK_PATH


@dataclass(frozen=True)
class PendingSignIn:
    """What the browser carries between the redirect to the provider and the callback."""

    state: str
    nonce: str
    code_verifier: str
    next_url: str

    def to_cookie(self) -> str:
        raw = json.dumps([self.state, self.nonce, self.code_verifier, self.next_url])
        return base64.urlsafe_b64encode(raw.encode()).decode()

    @classmethod
    def from_cookie(cls, value: str | None) -> PendingSignIn | None:
        if not value:
            return None
        try:
            state, nonce, verifier, next_url = json.loads(base64.urlsafe_b64decode(value))
        except (ValueError, TypeError):
            return None
        if not all(isinstance(v, str) for v in (state, nonce, verifier, next_url)):
            return None
        return cls(state, nonce, verifier, next_url)

    @classmethod
    def start(cls, next_url: str) -> PendingSignIn:
        return cls(
            state=secrets.token_urlsafe(24),
            nonce=secrets.token_urlsafe(24),
            code_verifier=secrets.token_urlsafe(48),  # 64 characters (RFC 7636: 43 to 128)
            next_url=next_url,
        )


def _oauth_client(config: OidcConfig, redirect_uri: str) -> Any:
    try:
        from authlib.integrations.httpx_client import AsyncOAuth2Client
    except ImportError as exc:  # the optional extra
        raise OidcUnavailable(
            "Single sign-on needs the 'oidc' extra: pip install 'frontdesk[oidc]'."
        ) from exc
    return AsyncOAuth2Client(
        client_id=config.client_id,
        client_secret=config.client_secret or None,
        token_endpoint_auth_method="client_secret_basic" if config.client_secret else "none",
        redirect_uri=redirect_uri,
        scope="openid email profile",
        code_challenge_method="S256",
        timeout=HTTP_TIMEOUT_S,
    )


class OidcProvider:
    """The provider's discovery document and keys, fetched on first use and cached."""

    def __init__(self, config: OidcConfig) -> None:
        self.config = config
        self._metadata: dict[str, Any] | None = None
        self._metadata_at = 0.0
        self._jwks: dict[str, Any] | None = None

    async def metadata(self) -> dict[str, Any]:
        if self._metadata is None or time.monotonic() - self._metadata_at > METADATA_TTL_S:
            found = await _get_json(self.config.discovery_url, "discovery document")
            if found.get("issuer", "").rstrip("/") != self.config.issuer:
                raise OidcUnavailable(
                    f"The provider's discovery document names issuer {found.get('issuer')!r}, "
                    f"not the configured {self.config.issuer!r}."
                )
            for key in ("authorization_endpoint", "token_endpoint", "jwks_uri"):
                if not isinstance(found.get(key), str):
                    raise OidcUnavailable(f"The provider's discovery document has no {key}.")
            self._metadata, self._metadata_at, self._jwks = found, time.monotonic(), None
        return self._metadata

    async def jwks(self, refresh: bool = False) -> dict[str, Any]:
        if self._jwks is None or refresh:
            self._jwks = await _get_json((await self.metadata())["jwks_uri"], "signing keys")
        return self._jwks

    async def authorization_url(self, pending: PendingSignIn, redirect_uri: str) -> str:
        metadata = await self.metadata()
        async with _oauth_client(self.config, redirect_uri) as client:
            url, _state = client.create_authorization_url(
                metadata["authorization_endpoint"],
                state=pending.state,
                nonce=pending.nonce,
                code_verifier=pending.code_verifier,
            )
        return str(url)

    async def verified_email(
        self, pending: PendingSignIn, state: str, code: str, redirect_uri: str
    ) -> str:
        """The e-mail the provider vouches for, after every check of the flow."""
        if not secrets.compare_digest(pending.state.encode(), state.encode()):
            raise OidcRefused(
                N_(
                    "The sign-in response does not belong to this browser's sign-in (state "
                    "mismatch). Start again from the sign-in page."
                )
            )
        metadata = await self.metadata()
        async with _oauth_client(self.config, redirect_uri) as client:
            try:
                token = await client.fetch_token(
                    metadata["token_endpoint"], code=code, code_verifier=pending.code_verifier
                )
            except Exception as exc:  # authlib raises OAuthError; httpx its own errors
                raise OidcRefused(
                    N_("The identity provider refused the sign-in code: %(reason)s"),
                    reason=_short(exc),
                ) from exc
        id_token = token.get("id_token")
        if not isinstance(id_token, str):
            raise OidcRefused(N_("The identity provider sent no ID token."))
        claims = await self._verified_claims(id_token, pending.nonce, token.get("access_token"))
        email = claims.get("email")
        if not isinstance(email, str) or "@" not in email:
            raise OidcRefused(N_("The identity provider did not share an e-mail address."))
        if claims.get("email_verified") is not True:
            raise OidcRefused(N_("The identity provider has not verified %(email)s."), email=email)
        domain = email.rsplit("@", 1)[1].lower()
        if self.config.allowed_domains and domain not in self.config.allowed_domains:
            raise OidcRefused(
                N_("Accounts of %(domain)s may not sign in to this console."), domain=domain
            )
        return email.strip().lower()

    async def _verified_claims(
        self, id_token: str, nonce: str, access_token: str | None
    ) -> dict[str, Any]:
        from authlib.oidc.core import CodeIDToken
        from joserfc import jwt
        from joserfc.errors import BadSignatureError, InvalidKeyIdError, JoseError
        from joserfc.jwk import KeySet
        from joserfc.jws import JWSRegistry

        registry = JWSRegistry(algorithms=SIGNING_ALGORITHMS)
        try:
            try:
                published: Any = await self.jwks()  # a JWKS document, checked by joserfc
                decoded = jwt.decode(id_token, KeySet.import_key_set(published), registry=registry)
            except InvalidKeyIdError:  # the provider rotated its keys
                published = await self.jwks(refresh=True)
                decoded = jwt.decode(id_token, KeySet.import_key_set(published), registry=registry)
        except BadSignatureError as exc:
            raise OidcRefused(
                N_("The ID token's signature does not match the provider's keys.")
            ) from exc
        except (JoseError, ValueError) as exc:
            raise OidcRefused(
                N_("The ID token is not valid: %(reason)s"), reason=_short(exc)
            ) from exc
        claims = CodeIDToken(
            decoded.claims,
            decoded.header,
            {
                "iss": {"essential": True, "value": self.config.issuer},
                "aud": {"essential": True, "value": self.config.client_id},
                "sub": {"essential": True},
                "exp": {"essential": True},
                "nonce": {"essential": True},
            },
            {"nonce": nonce, "client_id": self.config.client_id, "access_token": access_token},
        )
        try:
            claims.validate(leeway=CLOCK_LEEWAY_S)
        except JoseError as exc:
            claim = getattr(exc, "claim", "") or ""
            raise _claim_problem(str(claim), exc) from exc
        return dict(claims)


def _claim_problem(claim: str, exc: Exception) -> OidcRefused:
    if claim == "aud" or "aud" in str(exc):
        return OidcRefused(N_("The ID token was issued for another application (wrong audience)."))
    if claim == "nonce" or "nonce" in str(exc):
        return OidcRefused(
            N_("The ID token does not answer this sign-in (nonce mismatch). Start again.")
        )
    if claim == "iss" or "iss" in str(exc):
        return OidcRefused(N_("The ID token comes from another issuer."))
    if claim == "exp" or "expired" in str(exc):
        return OidcRefused(N_("The ID token has expired. Start again."))
    return OidcRefused(N_("The ID token is not valid: %(reason)s"), reason=_short(exc))


def _short(exc: Exception) -> str:
    return (str(exc) or type(exc).__name__)[:200]


async def _get_json(url: str, what: str) -> dict[str, Any]:
    try:
        async with httpx.AsyncClient(timeout=HTTP_TIMEOUT_S) as client:
            response = await client.get(url)
            response.raise_for_status()
            found = response.json()
    except (httpx.HTTPError, ValueError) as exc:
        raise OidcUnavailable(f"Could not read the identity provider's {what}: {exc}") from exc
    if not isinstance(found, dict):
        raise OidcUnavailable(f"The identity provider's {what} is not a JSON object.")
    return found
