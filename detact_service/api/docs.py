"""``GET /docs``: Swagger UI served from the service itself, so the API documentation works offline.

The assets come from the ``swagger-ui-bundle-v2`` wheel (Swagger UI's own distribution files), mounted at
``/docs/static``; the page FastAPI writes names only those, never a CDN.
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

DOCS_PATH = "/docs"
STATIC_PATH = f"{DOCS_PATH}/static"
OAUTH2_REDIRECT_PATH = f"{DOCS_PATH}/oauth2-redirect"


def swagger_assets() -> str:
    """The folder of the Swagger UI distribution files shipped in the ``swagger-ui-bundle-v2`` wheel."""
    import swagger_ui_bundle

    return str(swagger_ui_bundle.swagger_ui_path)


def install_docs(app: FastAPI) -> None:
    """Serve Swagger UI at ``/docs`` with its JavaScript, CSS and icon from this server (create the app
    with ``docs_url=None``)."""
    app.mount(STATIC_PATH, StaticFiles(directory=swagger_assets()), name="swagger-ui")
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get(DOCS_PATH, include_in_schema=False)
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{app.title} - API documentation",
            swagger_js_url=f"{STATIC_PATH}/swagger-ui-bundle.js",
            swagger_css_url=f"{STATIC_PATH}/swagger-ui.css",
            swagger_favicon_url=f"{STATIC_PATH}/favicon-32x32.png",
            oauth2_redirect_url=OAUTH2_REDIRECT_PATH,
        )

    @app.get(OAUTH2_REDIRECT_PATH, include_in_schema=False)
    async def oauth2_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()
