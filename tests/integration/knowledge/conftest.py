"""A real SQLite store (migrated with Alembic) per test and helpers to make sites."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from frontdesk.knowledge.service import KnowledgeBase
from frontdesk.knowledge.site import SiteKnowledge
from frontdesk.sites.knowledge import KnowledgeConfig
from frontdesk.store.db import make_engine
from frontdesk.store.migrate import upgrade

REPO_ROOT = Path(__file__).resolve().parents[3]
RETRIEVAL_DATASETS = REPO_ROOT.parent / "shared" / "datasets" / "retrieval"


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = make_engine(f"sqlite:///{tmp_path / 'knowledge.db'}")
    upgrade(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def kb(engine: Engine) -> KnowledgeBase:
    return KnowledgeBase(engine)


def hashed_site(site_id: str, **config: Any) -> SiteKnowledge:
    """A site on the model-free hashing embedder: fast and deterministic."""
    config.setdefault("embedding", "hash:256")
    return SiteKnowledge(site_id, KnowledgeConfig(**config))


@pytest.fixture
def make_site() -> Any:
    return hashed_site
