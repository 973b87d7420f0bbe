"""Logging set-up: readable lines for people, JSON lines for log collectors."""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime

_RESERVED = set(vars(logging.makeLogRecord({})))


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        payload: dict[str, object] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        # Fields passed with `extra=` become top-level keys (site, session, route...).
        payload.update({k: v for k, v in vars(record).items() if k not in _RESERVED})
        if record.exc_info:
            payload["exc"] = self.formatException(record.exc_info)
        return json.dumps(payload, default=str, ensure_ascii=False)


def configure_logging(level: str = "INFO", json_lines: bool = False) -> None:
    handler = logging.StreamHandler(sys.stderr)
    if json_lines:
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(
            logging.Formatter("%(asctime)s %(levelname)-7s %(name)s: %(message)s", "%H:%M:%S")
        )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # One INFO line per HTTP request (every LLM call) is noise and CPU on the event loop;
    # the openai SDK sends through httpx2/httpcore2.
    noisy = ("httpx", "httpcore", "httpx2", "httpcore2", "openai")
    for name in (*noisy, "sentence_transformers", "alembic.runtime.migration"):
        logging.getLogger(name).setLevel(max(logging.WARNING, root.level))
