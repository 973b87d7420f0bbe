"""A stand-in OpenID Connect provider on 127.0.0.1 for console sign-in tests.

It serves what a real provider does for the authorization-code flow: a discovery
document, a JWKS with its RSA public key, an authorize endpoint that signs in the user
the test chose (no login form) and redirects back with a code, and a token endpoint that
checks the client's secret and the PKCE verifier before issuing an RS256-signed ID token.
A test can make the next ID token wrong in one way (`fault`): signed by another key,
issued for another audience, carrying another nonce, or redirect with another state.

Needs joserfc (installed with the `oidc` extra, as Authlib's JOSE library).
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlencode

from tests.support.ports import ThreadedServer, free_port, serve_on_loopback

Fault = Literal["none", "bad_signature", "wrong_audience", "wrong_nonce", "wrong_state"]


@dataclass
class ProviderUser:
    email: str
    email_verified: bool = True
    subject: str = field(default_factory=lambda: secrets.token_hex(8))


@dataclass
class IssuedCode:
    client_id: str
    redirect_uri: str
    nonce: str
    code_challenge: str
    code_challenge_method: str
    user: ProviderUser


class OidcProvider:
    def __init__(self, client_id: str = "frontdesk-console", client_secret: str = "s3cret") -> None:
        from joserfc.jwk import RSAKey

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.client_id = client_id
        self.client_secret = client_secret
        self.key = RSAKey.generate_key(2048, parameters={"kid": "k1", "use": "sig"})
        self.other_key = RSAKey.generate_key(2048, parameters={"kid": "k1", "use": "sig"})
        self.user = ProviderUser("owner@team.test")
        self.fault: Fault = "none"
        self.codes: dict[str, IssuedCode] = {}
        self.token_requests: list[dict[str, Any]] = []
        self.authorize_requests: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._server: ThreadedServer | None = None

    # -- the ID token ------------------------------------------------------------------
    def _id_token(self, issued: IssuedCode, access_token: str) -> str:
        from joserfc import jwt

        now = int(time.time())
        claims = {
            "iss": self.url,
            "sub": issued.user.subject,
            "aud": "another-app" if self.fault == "wrong_audience" else issued.client_id,
            "iat": now,
            "exp": now + 300,
            "nonce": "a-replayed-nonce" if self.fault == "wrong_nonce" else issued.nonce,
            "email": issued.user.email,
            "email_verified": issued.user.email_verified,
            "at_hash": _half_hash(access_token),
        }
        key = self.other_key if self.fault == "bad_signature" else self.key
        return jwt.encode({"alg": "RS256", "kid": "k1"}, claims, key)

    # -- the HTTP endpoints ------------------------------------------------------------
    def _app(self) -> Any:
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import JSONResponse, RedirectResponse, Response
        from starlette.routing import Route

        async def discovery(_request: Request) -> Response:
            return JSONResponse(
                {
                    "issuer": self.url,
                    "authorization_endpoint": f"{self.url}/authorize",
                    "token_endpoint": f"{self.url}/token",
                    "jwks_uri": f"{self.url}/jwks",
                    "response_types_supported": ["code"],
                    "subject_types_supported": ["public"],
                    "id_token_signing_alg_values_supported": ["RS256"],
                    "code_challenge_methods_supported": ["S256"],
                }
            )

        async def jwks(_request: Request) -> Response:
            return JSONResponse({"keys": [self.key.as_dict(private=False)]})

        async def authorize(request: Request) -> Response:
            query = dict(request.query_params)
            with self._lock:
                self.authorize_requests.append(query)
            if query.get("client_id") != self.client_id or query.get("response_type") != "code":
                return JSONResponse({"error": "unauthorized_client"}, status_code=400)
            code = secrets.token_urlsafe(16)
            with self._lock:
                self.codes[code] = IssuedCode(
                    client_id=query["client_id"],
                    redirect_uri=query.get("redirect_uri", ""),
                    nonce=query.get("nonce", ""),
                    code_challenge=query.get("code_challenge", ""),
                    code_challenge_method=query.get("code_challenge_method", ""),
                    user=self.user,
                )
            state = "forged-state" if self.fault == "wrong_state" else query.get("state", "")
            back = query.get("redirect_uri", "") + "?" + urlencode({"code": code, "state": state})
            return RedirectResponse(back, status_code=302)

        async def token(request: Request) -> Response:
            form = dict(await request.form())
            with self._lock:
                self.token_requests.append(
                    {**form, "authorization": request.headers.get("authorization", "")}
                )
                issued = self.codes.pop(str(form.get("code", "")), None)
            if not self._client_ok(request.headers.get("authorization", "")):
                return JSONResponse({"error": "invalid_client"}, status_code=401)
            if issued is None or form.get("redirect_uri") != issued.redirect_uri:
                return JSONResponse({"error": "invalid_grant"}, status_code=400)
            verifier = str(form.get("code_verifier", ""))
            if issued.code_challenge_method != "S256" or _s256(verifier) != issued.code_challenge:
                return JSONResponse(
                    {"error": "invalid_grant", "error_description": "PKCE verification failed"},
                    status_code=400,
                )
            access_token = secrets.token_urlsafe(24)
            return JSONResponse(
                {
                    "access_token": access_token,
                    "token_type": "Bearer",
                    "expires_in": 300,
                    "id_token": self._id_token(issued, access_token),
                }
            )

        return Starlette(
            routes=[
                Route("/.well-known/openid-configuration", discovery),
                Route("/jwks", jwks),
                Route("/authorize", authorize),
                Route("/token", token, methods=["POST"]),
            ]
        )

    def _client_ok(self, authorization: str) -> bool:
        expected = base64.b64encode(f"{self.client_id}:{self.client_secret}".encode()).decode()
        return authorization == f"Basic {expected}"

    def start(self) -> OidcProvider:
        self._server = serve_on_loopback(self._app(), self.port, "OIDC provider")
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
        self._server = None

    def __enter__(self) -> OidcProvider:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()


def _s256(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _half_hash(access_token: str) -> str:
    digest = hashlib.sha256(access_token.encode()).digest()
    return base64.urlsafe_b64encode(digest[:16]).rstrip(b"=").decode()
