"""Hand-built passages for the local answering tests (no index, no model)."""

from __future__ import annotations

import re

from frontdesk.knowledge.models import RetrievedChunk


def passage(
    number: int, heading_path: tuple[str, ...], content: str, score: float = 0.5
) -> RetrievedChunk:
    return RetrievedChunk(
        chunk_id=f"c{number}",
        doc_id=f"d{number}",
        title=heading_path[0],
        url=f"https://example.com/docs/{number}",
        content=content,
        score=score,
        source=f"doc{number}.md",
        chunk_index=0,
        heading_path=heading_path,
    )


SALESFORCE = passage(
    1,
    ("Integrations and Connectors", "Highlights by connector", "Salesforce"),
    "Supports standard and custom objects, Bulk API 2.0 for large syncs, and Platform Events "
    "as triggers. Tessellate Flow needs a Salesforce edition with API access (Enterprise, "
    "Unlimited, Performance or Developer edition). Sandbox orgs can be connected alongside "
    "production.",
    0.62,
)
SSO = passage(
    2,
    ("Security and Compliance", "SAML single sign-on"),
    "SAML 2.0 and OpenID Connect single sign-on are available on the Enterprise plan. "
    "SSO can be made mandatory for all users of a workspace. Setting up SSO with Okta or "
    "Microsoft Entra ID takes about 30 minutes.",
    0.55,
)
RATE_LIMIT = passage(
    3,
    ("Error Code Reference", "TF-1004: Connected app rate limit reached"),
    "**Meaning:** The connected app (for example Salesforce, HubSpot or Zendesk) rejected "
    "requests because its API rate limit or daily API quota was reached.\n\n"
    "**How to fix:** Tessellate Flow automatically backs off and retries rate-limited "
    "requests for up to 1 hour, so most runs recover without action.",
    0.48,
)
PLANS = passage(
    4,
    ("Plans and Feature Comparison", "Feature comparison"),
    "Tessellate does not publish prices: every quote is prepared by the sales team for your "
    "plan, volume and contract term.\n\n"
    "| Feature | Starter | Growth | Enterprise |\n"
    "|---|---|---|---|\n"
    "| Editor seats | Up to 5 | Up to 50 | Custom |\n"
    "| Code steps (Python, JavaScript) | No | Yes | Yes |\n"
    "| Task runs per month | 50,000 | 1,000,000 | Custom volume |\n\n"
    "The Starter plan costs $49 per month and Growth costs $399 per month.",
    0.51,
)
RU_ERROR = passage(
    5,
    ("Справочник кодов ошибок", "TF-1002: срок авторизации подключения истёк"),
    "**Что означает:** токен OAuth или пароль, с которым Tessellate Flow обращается к "
    "внешней системе, истёк или был отозван.\n\n"
    "**Как исправить:** откройте Connections, выберите подключение со статусом Broken и "
    "нажмите Reconnect.",
    0.47,
)
OFFICES = passage(
    6,
    ("About Tessellate", "Offices"),
    "Our headquarters are in Amsterdam, with offices in Austin and Singapore. Visits to our "
    "offices are by appointment only.",
    0.12,
)
FAQ = passage(
    7,
    ("Frequently Asked Questions", "Product"),
    "Can Tessellate Flow connect to a database behind our firewall?\n\n"
    "Yes. Install Tessellate Relay, a small agent in your network. It connects outbound over "
    "port 443, so you do not need to open inbound firewall ports.\n\n"
    "Do you offer a free trial?\n\n"
    "New workspaces get a 14-day free trial of the Growth plan, without a credit card.",
    0.44,
)

ALL = (SALESFORCE, SSO, RATE_LIMIT, PLANS, RU_ERROR, OFFICES, FAQ)

_CITATION = re.compile(r"\s*\[\d+\]")


def words_of(text: str) -> set[str]:
    return {word.lower() for word in re.findall(r"\w+", text)}


def without_citations(text: str) -> str:
    return _CITATION.sub("", text)
