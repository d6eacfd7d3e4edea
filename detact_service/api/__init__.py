"""The HTTP API: ``create_app(settings)`` builds the FastAPI app (see :mod:`detact_service.api.app`)."""

from detact_service.api.app import create_app

__all__ = ["create_app"]
