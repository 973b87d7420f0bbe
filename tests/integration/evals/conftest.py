"""A small site for evaluation tests: the demo site's configuration (forms, skills, CTA)
over a three-page knowledge base embedded with the hashing embedder (no model download)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from frontdesk.settings import DEMO_DIR, Settings

PAGES = {
    "sla.md": "# Service level agreement\n\nGrowth has a 99.9% monthly uptime SLA and "
    "Enterprise 99.95%, both with service credits. Starter has a 99.5% target.",
    "security.md": "# Security\n\nSAML 2.0 single sign-on is available on the Enterprise "
    "plan, together with SCIM provisioning. Data is encrypted with AES-256 at rest.",
    "trial.md": "# Free trial\n\nEvery new workspace gets a 14-day free trial with Growth "
    "features. No credit card is required.",
}


@pytest.fixture
def tiny_sites(tmp_path: Path) -> Path:
    kb = tmp_path / "tiny-kb"
    kb.mkdir()
    for name, text in PAGES.items():
        (kb / name).write_text(text, encoding="utf-8")
    config = yaml.safe_load((DEMO_DIR / "sites" / "demo.yaml").read_text(encoding="utf-8"))
    config.update(id="tiny", name="Tiny")
    config["widget"]["public_key"] = "pk_tiny_000000000001"
    config["knowledge"] = {"sources": [str(kb)], "embedding": "hash:256", "top_k": 3}
    sites = tmp_path / "sites"
    sites.mkdir()
    (sites / "tiny.yaml").write_text(yaml.safe_dump(config, allow_unicode=True), "utf-8")
    return sites


@pytest.fixture
def tiny_settings(tmp_path: Path, tiny_sites: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", sites_dir=tiny_sites)
