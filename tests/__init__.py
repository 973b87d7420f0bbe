"""Frontdesk's test suite (doubles in tests/support, fixtures in tests/conftest.py)."""

import os

# pytest-xdist workers start with COLUMNS=80 and LINES=24 in their environment. The CLI's
# rich consoles are built at import and would keep that width for good, so a test that
# widens a command's table through COLUMNS would see it cut. A worker reads the width as
# a single pytest process does: from the environment the test gives its command.
if os.environ.get("PYTEST_XDIST_WORKER"):
    for name in ("COLUMNS", "LINES"):
        os.environ.pop(name, None)
