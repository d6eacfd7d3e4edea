"""ASGI middleware: request ids, one JSON access-log line per request, request metrics, API keys.

Nothing here logs a header value other than the request id, nor any body: keys and images never reach
the logs.
"""

from __future__ import annotations

import hmac
import json
import logging
import re
import time
import uuid
from collections.abc import Iterable
from typing import Any

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from detact_service.api.errors import error_response
from detact_service.api.metrics import Metrics

access_log = logging.getLogger("detact_service.access")

REQUEST_ID_HEADER = "X-Request-ID"
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:\-]{1,128}$")
PUBLIC_PATHS = frozenset({"/healthz", "/readyz"})
"""Paths open without an API key (liveness and readiness probes)."""


def request_id_from(headers: Headers) -> str:
    """The client's ``X-Request-ID`` when it is a short token, else a fresh one."""
    given = headers.get(REQUEST_ID_HEADER)
    if given is not None and _REQUEST_ID.match(given):
        return given
    return uuid.uuid4().hex


def _route_of(scope: Scope) -> str:
    """The matched route's path template (bounded label cardinality), or ``unmatched``."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) else "unmatched"


class RequestContextMiddleware:
    """Request id in and out, the access-log line and the request metrics."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = request_id_from(Headers(scope=scope))
        scope.setdefault("state", {})["request_id"] = request_id
        start = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                MutableHeaders(scope=message)[REQUEST_ID_HEADER] = request_id
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            duration = time.perf_counter() - start
            route = _route_of(scope)
            method = str(scope.get("method", ""))
            self.metrics.requests.labels(method=method, route=route, status=str(status)).inc()
            self.metrics.request_seconds.labels(method=method, route=route).observe(duration)
            access_log.info(
                "%s %s %d",
                method,
                scope.get("path", ""),
                status,
                extra={
                    "request_id": request_id,
                    "method": method,
                    "path": scope.get("path", ""),
                    "status": status,
                    "duration_ms": round(duration * 1000.0, 2),
                },
            )


class ApiKeyMiddleware:
    """``Authorization: Bearer <key>`` against the configured keys (constant-time); 401 otherwise."""

    def __init__(self, app: ASGIApp, keys: Iterable[str], public_paths: Iterable[str] = PUBLIC_PATHS) -> None:
        self.app = app
        self.keys = [key.encode() for key in keys]
        self.public_paths = frozenset(public_paths)

    def _authorized(self, headers: Headers) -> bool:
        scheme, _, token = headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return False
        given = token.strip().encode()
        matched = False
        for key in self.keys:  # compare with every key: the time does not say which one matched
            matched |= hmac.compare_digest(given, key)
        return matched

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        public = scope.get("path") in self.public_paths or scope.get("method") == "OPTIONS"
        if scope["type"] != "http" or public:
            await self.app(scope, receive, send)
            return
        if not self._authorized(Headers(scope=scope)):
            message = "a valid API key is needed: Authorization: Bearer <key>"
            response = error_response(401, "unauthorized", message)
            response.headers["WWW-Authenticate"] = "Bearer"
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


class JsonFormatter(logging.Formatter):
    """One JSON object per log line: time, level, logger, message and the record's extra fields."""

    _STANDARD = frozenset(
        [*vars(logging.makeLogRecord({})), "message", "asctime", "taskName", "color_message"]
    )

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in self._STANDARD and not key.startswith("_"):
                entry[key] = value if isinstance(value, str | int | float | bool | None) else str(value)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


JsonFormatter.converter = time.gmtime


def logging_config(level: str = "info") -> dict[str, Any]:
    """A :func:`logging.config.dictConfig` (also uvicorn's ``log_config``): JSON lines on stderr."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": f"{__name__}.JsonFormatter"}},
        "handlers": {
            "stderr": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}
        },
        "root": {"handlers": ["stderr"], "level": level.upper()},
        "loggers": {
            "uvicorn": {"handlers": [], "propagate": True},
            "uvicorn.error": {"handlers": [], "propagate": True},
            "uvicorn.access": {"handlers": [], "propagate": False},
        },
    }
