"""Multi-turn replay against the real graph: one checkpoint write, then only the final query."""

from __future__ import annotations

import pytest
from rich.console import Console

from frontdesk.conversation.markers import form_field_ids
from frontdesk.conversation.payload import VisitorContext
from frontdesk.evals.dataset import parse_items
from frontdesk.evals.replay import inject, reconstruct
from frontdesk.evals.runner import run_item
from frontdesk.evals.workspace import open_workspace
from frontdesk.settings import Settings

pytestmark = pytest.mark.integration

# The worked example "Technical", asked with the demo site's two form questions.
HISTORY = [
    {"role": "user", "content": "We want to automate our operations."},
    {"role": "assistant", "content": "👉 How many people work at your company?"},
    {"role": "user", "content": "About 200"},
    {"role": "assistant", "content": "👉 Which workflows would you like to automate first?"},
]
FINAL = "Syncing Salesforce and our ERP"


async def test_history_is_injected_once_and_the_final_query_completes_the_form(
    tiny_settings: Settings,
) -> None:
    async with open_workspace(tiny_settings, "tiny", Console(quiet=True)) as space:
        graph = await space.service.graph()
        fields = form_field_ids(space.site.config.qualification.forms)
        config = {"configurable": {"thread_id": "tiny:replay-1"}}
        await inject(graph, config, reconstruct(HISTORY, FINAL, fields))

        checkpoints = [state async for state in graph.aget_state_history(config)]
        assert len(checkpoints) == 1  # ONE aupdate_state call, nothing run yet
        assert checkpoints[0].metadata["source"] == "update" and checkpoints[0].next == ()
        injected = checkpoints[0].values
        assert injected["turn_number"] == 2 and len(injected["messages"]) == 4
        assert injected["form_collection"]["collected_values"] == {"company_size": "About 200"}
        assert injected["form_collection"]["last_extraction_turn"] == 2
        assert not injected.get("interest_signals")  # computed at run time, never injected

        result = await space.service.ask(space.site, "replay-1", FINAL, VisitorContext())
        after = (await graph.aget_state(config)).values
        assert after["turn_number"] == 3
        assert len(after["messages"]) == 6  # 4 injected + the final query + the reply
        assert after["form_collection"]["collected_values"] == {
            "company_size": "About 200",
            "use_case": FINAL,
        }
        # every field known: the CTA carries them (the CTA is no longer blocked)
        assert result.cta is not None and "use_case=Syncing" in result.cta.url


async def test_run_item_reports_the_injected_state_and_erases_the_session(
    tiny_settings: Settings,
) -> None:
    line = (
        '{"id": "t1", "input": {"query": "About 200 people"}, "metadata": {"history": '
        '[{"role": "user", "content": "hi"}, '
        '{"role": "assistant", "content": "👉 How many people work at your company?"}]}}'
    )
    item = parse_items([line])[0]
    async with open_workspace(tiny_settings, "tiny", Console(quiet=True)) as space:
        outcome = await run_item(space.service, space.site, item)
        assert outcome.error is None
        assert outcome.injected == {
            "messages": 2,
            "turn_number": 1,
            "dialog_supervision": None,
            "form_collection": {"collected_values": {}, "last_extraction_turn": 1},
        }
        assert outcome.collected == {"company_size": "About 200 people"}
        assert outcome.latency_ms > 0
        assert await space.service.history(space.site, "eval-anything") == []
