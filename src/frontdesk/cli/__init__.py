"""The `frontdesk` command line: one module per command group, mounted in `main.py`.

`main` (the root: version, serve, demo), `sites`, `db`, `kb`, `chat` (chat, graph and
`eval classify`), `eval`, `handoff` (worker, leads), `traces`; `common` holds what they
share. The console script is `frontdesk = "frontdesk.cli:app"`.
"""

from frontdesk.cli.main import app, main

__all__ = ["app", "main"]
