"""The FastAPI application factory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from frontdesk import __version__
from frontdesk.api.errors import install_error_handlers
from frontdesk.api.routes import demo, health
from frontdesk.runtime import Runtime, build_runtime
from frontdesk.settings import Settings


def create_app(settings: Settings | None = None, runtime: Runtime | None = None) -> FastAPI:
    """Build the app; the runtime (store, sites) is opened at start-up unless one is given."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned = runtime is None
        app.state.runtime = runtime or build_runtime(settings)
        try:
            yield
        finally:
            if owned:
                app.state.runtime.close()

    app = FastAPI(
        title="Frontdesk",
        version=__version__,
        description="Self-hosted AI assistant for company websites.",
        lifespan=lifespan,
    )
    install_error_handlers(app)
    app.include_router(health.router)
    app.include_router(demo.router)
    return app
