"""Console fixtures: the HTTP app of the API tests (demo + acme sites, scripted chat)."""

from __future__ import annotations

import console_support  # noqa: F401  (puts the API test helpers on the path)
