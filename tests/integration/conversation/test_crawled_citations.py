"""A turn answered from crawled pages cites them by URL: the demo knowledge base served as
a website by the real app, crawled into the demo site, then asked about through the graph."""

from __future__ import annotations

import re

import pytest
import uvicorn

from frontdesk.api.app import create_app
from frontdesk.conversation.payload import VisitorContext
from frontdesk.conversation.service import ChatService
from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.web import SiteSync
from frontdesk.sites.knowledge import WebSource
from tests.support.ports import ThreadedServer, free_port

pytestmark = pytest.mark.integration


async def test_answers_from_a_crawled_site_cite_page_urls(
    service: ChatService, session_id: str
) -> None:
    runtime = service.runtime
    site = runtime.site("demo").config
    kb = KnowledgeBase(runtime.engine)
    for document in kb.list_documents("demo"):  # only the crawled pages may answer
        kb.remove_document("demo", document.doc_id)
    port = free_port()
    app = create_app(runtime.settings, runtime, service)
    server = ThreadedServer(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error", lifespan="on"),
        "demo website",
    )
    server.start()
    start = f"http://127.0.0.1:{port}/demo-site/"
    try:
        source = WebSource.model_validate(
            {
                "url": start,
                "allow_private_network": True,
                "include": [r"/demo-site/(security-compliance|faq)/$"],
            }
        )
        summary = await SiteSync(runtime.engine, kb.ingestor(site, progress=False)).sync(
            "demo", source
        )
    finally:
        server.stop()
    assert summary.changed == 2 and not summary.failed  # security page and FAQ
    assert summary.skipped == {start: "noindex"}  # the index page only lists titles

    result = await service.ask(
        runtime.site("demo"), session_id, "Do you support SAML single sign-on?", VisitorContext()
    )
    assert result.route == "ANSWER" and result.citations
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", result.answer)}
    assert cited == {citation.index for citation in result.citations}
    assert all(citation.url.startswith(start) for citation in result.citations)
    assert any("#" in citation.url for citation in result.citations), "heading anchors"
    assert all(source.url.startswith(start) for source in result.sources)
