"""The web console: a static page at ``/`` that calls the public API (``POST /parse``) from the browser.

The page, its stylesheet and its script ship inside the package (``api/static/``); nothing is built and
nothing is fetched from outside the service, which the page's Content-Security-Policy enforces. Turn it
off with ``DETACT_CONSOLE_ENABLED=false`` (``/`` then answers 404).
"""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter, FastAPI
from fastapi.responses import Response

from detact_service.api.errors import ApiError

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "img-src 'self' data: blob:",
        "script-src 'self'",
        "style-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    )
)
"""Only the service itself: no inline script or style, no CDN; images also from data: and blob: URLs."""

ASSETS: dict[str, str] = {
    "console.css": "text/css; charset=utf-8",
    "console.js": "text/javascript; charset=utf-8",
}
"""The files the page loads from ``/console/<name>``, with their media types."""

CONSOLE_PATHS = frozenset({"/", *(f"/console/{name}" for name in ASSETS)})
"""The console's paths: public even when API keys are set (the page asks for a key when the API does)."""

_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


def read_static(name: str) -> bytes:
    """A file of ``detact_service/api/static``."""
    return resources.files("detact_service.api").joinpath("static", name).read_bytes()


def _static_response(name: str, media_type: str) -> Response:
    return Response(content=read_static(name), media_type=media_type, headers=_HEADERS)


router = APIRouter(include_in_schema=False)


@router.get("/")
def console_page() -> Response:
    """The console's HTML page."""
    return _static_response("index.html", "text/html; charset=utf-8")


@router.get("/console/{name}")
def console_asset(name: str) -> Response:
    """The console's stylesheet and script; any other name is a 404."""
    media_type = ASSETS.get(name)
    if media_type is None:
        raise ApiError(404, "not_found", f"no console file {name!r}")
    return _static_response(name, media_type)


def install_console(app: FastAPI, enabled: bool) -> None:
    """Serve the console on ``app`` when ``enabled`` (``Settings.console_enabled``)."""
    if enabled:
        app.include_router(router)
