"""Error mapping: every failure becomes ``{"error": {"code", "message"}}`` with a fitting status.

Client mistakes are 4xx with a stable ``code``; only a bug in the service yields the generic 500,
whose body says nothing about the internals (the traceback goes to the log).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from detact_service.formats.schema import ErrorBody, ErrorResponse
from detact_service.io import ImageError

log = logging.getLogger("detact_service.api")


class ApiError(Exception):
    """A failure with its HTTP status, machine code and message for the client."""

    def __init__(
        self, status_code: int, code: str, message: str, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.code = code
        self.message = message
        self.headers = dict(headers or {})


def error_response(status_code: int, code: str, message: str) -> JSONResponse:
    """The JSON error answer."""
    body = ErrorResponse(error=ErrorBody(code=code, message=message))
    return JSONResponse(status_code=status_code, content=body.model_dump())


def _status_code_name(status_code: int) -> str:
    try:
        return HTTPStatus(status_code).phrase.lower().replace(" ", "_").replace("-", "_")
    except ValueError:
        return "http_error"


async def _api_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    response = error_response(exc.status_code, exc.code, exc.message)
    response.headers.update(exc.headers)
    return response


async def _image_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ImageError)
    return error_response(exc.status_code, exc.code, str(exc))


async def _http_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    message = exc.detail if isinstance(exc.detail, str) else HTTPStatus(exc.status_code).phrase
    response = error_response(exc.status_code, _status_code_name(exc.status_code), message)
    if exc.headers:
        response.headers.update(exc.headers)
    return response


def validation_message(errors: Sequence[Any]) -> str:
    """A short, input-free summary of pydantic/FastAPI validation errors."""
    parts = []
    for error in list(errors)[:5]:
        if isinstance(error, Mapping):
            loc = ".".join(str(p) for p in error.get("loc", ()) if p != "body")
            msg = str(error.get("msg", "invalid"))
            parts.append(f"{loc}: {msg}" if loc else msg)
    return "; ".join(parts) or "invalid request"


async def _validation_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    return error_response(422, "invalid_request", validation_message(exc.errors()))


async def _unexpected_error(request: Request, exc: Exception) -> JSONResponse:
    log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(500, "internal_error", "internal server error")


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers that give every error the JSON error shape."""
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(ImageError, _image_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected_error)
