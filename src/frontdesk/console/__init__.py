"""The operator console at `/console`: server-rendered pages (Jinja2) with htmx.

`install_console(app)` in `console/app.py` mounts its routers, static files and error
pages; each page group has its own router module.
"""
