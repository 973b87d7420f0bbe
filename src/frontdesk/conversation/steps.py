"""Running several steps inside one graph node, with the graph's own reducers.

Every LangGraph node costs about 0.3 ms of scheduling, config merging and channel
bookkeeping on this hardware — more than most of our steps cost themselves (a turn of
~25 fine-grained nodes spent two thirds of its CPU in the framework). So the graph is
drawn in *stages*: each stage node runs a fixed sequence of steps (the seed's nodes,
unchanged functions `(state, runtime) -> partial update`), and the graph's edges carry
only the decisions between stages. `Steps` gives each step the state as the graph would
have shown it (earlier updates applied with the ChatState reducers) and returns the
combined update for LangGraph to apply once.
"""

from __future__ import annotations

import asyncio
import typing
from collections.abc import Awaitable, Callable
from typing import Any

from langgraph.runtime import Runtime

from frontdesk.conversation.context import TurnContext
from frontdesk.conversation.state import ChatState

Update = dict[str, Any]
Step = Callable[[ChatState, Runtime[TurnContext]], Awaitable[Update]]
Reducer = Callable[[Any, Any], Any]


def _reducers() -> dict[str, Reducer]:
    """Field → reducer, read from the `Annotated[...]` metadata of `ChatState`."""
    found: dict[str, Reducer] = {}
    for name, hint in typing.get_type_hints(ChatState, include_extras=True).items():
        while typing.get_origin(hint) in (typing.NotRequired, typing.Required):
            hint = typing.get_args(hint)[0]
        if typing.get_origin(hint) is typing.Annotated:
            reducer = next((m for m in hint.__metadata__ if callable(m)), None)
            if reducer is not None:
                found[name] = reducer
    return found


REDUCERS = _reducers()


class Steps:
    """The state one stage sees as its steps run, and the update it returns."""

    def __init__(self, state: ChatState, runtime: Runtime[TurnContext]) -> None:
        self.state: ChatState = typing.cast(ChatState, dict(state))
        self.runtime = runtime
        self.update: Update = {}

    async def run(self, step: Step) -> Update:
        update = await step(self.state, self.runtime)
        self.apply(update)
        return update

    async def parallel(self, *steps: Step) -> None:
        """Independent steps concurrently (LLM calls overlap); updates applied in order."""
        view = self.state
        for update in await asyncio.gather(*(step(view, self.runtime) for step in steps)):
            self.apply(update)

    def apply(self, update: Update) -> None:
        state = typing.cast(dict[str, Any], self.state)
        for key, value in update.items():
            reducer = REDUCERS.get(key)
            if reducer is None:
                state[key] = value
                self.update[key] = value
                continue
            state[key] = reducer(state.get(key), value)
            # The stage's own updates are combined with the same reducer; LangGraph then
            # applies the combination to the checkpointed value once.
            self.update[key] = reducer(self.update[key], value) if key in self.update else value
