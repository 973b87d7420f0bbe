"""Structured calls: the JSON schema LangChain records per call is built once."""

from __future__ import annotations

import pytest
from langchain_core.runnables import RunnableSequence
from langchain_core.utils.function_calling import convert_to_json_schema
from pydantic import BaseModel

from frontdesk.engines.llm import schemas
from frontdesk.engines.llm.structured import structured_runnable, trace_schema

pytestmark = pytest.mark.unit

SCHEMAS: list[type[BaseModel]] = [
    schemas.IntentOutput,
    schemas.SignalsOutput,
    schemas.SkillsOutput,
    schemas.QueryOutput,
    schemas.GradeOutput,
    schemas.VerificationOutput,
    schemas.EvaluationOutput,
    schemas.SuggestionsOutput,
]


def test_recorded_schema_is_built_once_and_converts_the_same() -> None:
    from langchain_openai import ChatOpenAI

    model = ChatOpenAI(model="gpt-4.1-nano", api_key="sk-test", base_url="http://127.0.0.1:9/v1")  # type: ignore[arg-type]
    for schema in SCHEMAS:
        original = model.with_structured_output(schema, method="function_calling")
        prebuilt = structured_runnable(model, schema, "function_calling")
        assert isinstance(original, RunnableSequence) and isinstance(prebuilt, RunnableSequence)
        before, after = original.first.kwargs, prebuilt.first.kwargs  # type: ignore[attr-defined]
        recorded = after["ls_structured_output_format"]
        assert recorded["schema"] is trace_schema(schema)  # one dict per schema
        assert convert_to_json_schema(recorded["schema"]) == convert_to_json_schema(schema)
        assert recorded["kwargs"] == before["ls_structured_output_format"]["kwargs"]
        others = {k: v for k, v in before.items() if k != "ls_structured_output_format"}
        assert others == {k: v for k, v in after.items() if k != "ls_structured_output_format"}
        assert type(prebuilt.last) is type(original.last)  # the same parser
