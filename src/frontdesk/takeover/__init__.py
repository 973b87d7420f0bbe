"""Live takeover: an operator joins a visitor's conversation in the same chat.

Domain (no web framework here):
- `desk.py`: `TakeoverDesk`, who owns a conversation and what each action writes;
- `journal.py`: the event log in the store, written in one transaction and followed;
- `events.py`: operators, ownership, published events; `errors.py`: what it refuses;
- `bus.py`: wake-ups shared by replicas (Redis, PostgreSQL, one process); `setup.py`;
- `names.py`: operator names that cannot pass for the assistant;
- `slack.py`: reading Slack's events for the thread bridge.

Web (`web/`): the visitor's event stream and typing (`visitor_api.py`), the console's
operator API (`operator_api.py`), the live chat page (`pages.py`), Slack's request URL
(`slack_events.py`), and how domain errors become HTTP errors (`errors.py`).
"""
