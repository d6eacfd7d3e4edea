"""The FastAPI application factory.

Run it with ``uvicorn --factory detact_service.api.app:create_app`` (or ``detact serve``). Settings are
read once, when the app is created; nothing happens at import time.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware

from detact_service import __version__
from detact_service.api.console import CONSOLE_PATHS, install_console
from detact_service.api.docs import install_docs
from detact_service.api.errors import install_error_handlers
from detact_service.api.middleware import PUBLIC_PATHS, ApiKeyMiddleware, RequestContextMiddleware
from detact_service.api.routes import router
from detact_service.api.service import ParseService
from detact_service.pipeline import Pipeline, get_pipeline
from detact_service.settings import Settings, get_settings

DESCRIPTION = """Screen parsing for GUI agents: POST a screenshot to `/parse` and get the UI elements
(box, type, text, state, icon, colour) as JSON, plus LLM-ready text (`caap`, `detact`) and a Set-of-Mark
image (`som`) when asked. Errors always come as `{"error": {"code", "message"}}`."""


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app; ``settings`` default to :func:`get_settings` (the ``DETACT_*`` environment)."""
    settings = settings if settings is not None else get_settings()

    def pipeline_for(profile: str) -> Pipeline:
        return get_pipeline(settings, profile)

    service = ParseService(settings, pipeline_for)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        warmup = asyncio.create_task(service.warm_up()) if settings.warmup else None
        try:
            yield
        finally:
            if warmup is not None and not warmup.done():
                warmup.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await warmup

    app = FastAPI(
        title="detact-service",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,  # served from local assets by install_docs
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.service = service
    install_error_handlers(app)
    app.include_router(router)
    install_console(app, settings.console_enabled)
    install_docs(app)
    install_middleware(app, settings, service)
    return app


def install_middleware(app: FastAPI, settings: Settings, service: ParseService) -> None:
    """API keys (innermost), CORS when origins are set, then request ids, access log and metrics."""
    keys = [key.get_secret_value() for key in settings.api_keys]
    if keys:
        app.add_middleware(ApiKeyMiddleware, keys=keys, public_paths=PUBLIC_PATHS | CONSOLE_PATHS)
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(settings.cors_origins),
            allow_methods=["GET", "POST", "OPTIONS"],
            allow_headers=["Authorization", "Content-Type", "X-Request-ID"],
            expose_headers=["X-Request-ID", "Retry-After"],
        )
    app.add_middleware(RequestContextMiddleware, metrics=service.metrics)
