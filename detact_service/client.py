"""A typed Python client of the HTTP API on httpx: :class:`DetactClient` and :class:`AsyncDetactClient`.

>>> with DetactClient("http://127.0.0.1:8000", api_key="...") as client:  # doctest: +SKIP
...     result = client.parse("examples/form.png", formats="json,caap")
...     print(result.text.caap if result.text else result.elements)

``503`` answers that carry ``Retry-After`` (the server is at capacity) are retried, a bounded number of
times and never waiting longer than ``max_retry_wait_s`` per try; every other error raises
:class:`DetactError` with the server's error code.
"""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import Iterable, Mapping
from os import PathLike
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self, TypeVar

import httpx

from detact_service.formats.schema import LocateResponse, ParseResponse

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    from PIL import Image

    ImageInput = str | PathLike[str] | bytes | bytearray | Image.Image | npt.NDArray[np.uint8]
else:
    ImageInput = Any

__all__ = ["AsyncDetactClient", "DetactClient", "DetactError", "ImageInput"]

DEFAULT_TIMEOUT = httpx.Timeout(120.0, connect=10.0)


class DetactError(Exception):
    """An error answer from the server: its HTTP status, error code and message."""

    def __init__(self, status_code: int, code: str, message: str, request_id: str | None = None) -> None:
        super().__init__(f"{status_code} {code}: {message}")
        self.status_code = status_code
        self.code = code
        self.message = message
        self.request_id = request_id


def image_bytes(image: ImageInput) -> tuple[bytes, str]:
    """The upload bytes and MIME type of a path, file bytes, PIL image or ``(H, W[, C])`` uint8 array."""
    if isinstance(image, bytes | bytearray):
        return bytes(image), "application/octet-stream"
    if isinstance(image, str | PathLike):
        return Path(image).read_bytes(), "application/octet-stream"
    from PIL import Image

    if not isinstance(image, Image.Image):
        import numpy as np

        array = np.asarray(image)
        if array.dtype != np.uint8:
            raise TypeError(f"an image array must be uint8, not {array.dtype}")
        image = Image.fromarray(array)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue(), "image/png"


def _formats(formats: str | Iterable[str] | None) -> str | None:
    if formats is None or isinstance(formats, str):
        return formats
    return ",".join(formats)


def _request_parts(
    image: ImageInput,
    profile: str | None,
    formats: str | Iterable[str] | None,
    task: str | None,
    max_elements: int | None = None,
    previous: str | ParseResponse | None = None,
) -> tuple[dict[str, tuple[str, bytes, str]], dict[str, str]]:
    data, mime = image_bytes(image)
    limit = str(max_elements) if max_elements is not None else None
    before = previous.parse_id if isinstance(previous, ParseResponse) else previous
    fields = {
        "profile": profile,
        "formats": _formats(formats),
        "task": task,
        "max_elements": limit,
        "previous": before,
    }
    return {"image": ("image", data, mime)}, {k: v for k, v in fields.items() if v is not None}


def _locate_parts(
    image: ImageInput, description: str, profile: str | None
) -> tuple[dict[str, tuple[str, bytes, str]], dict[str, str]]:
    data, mime = image_bytes(image)
    fields = {"description": description, "profile": profile}
    return {"image": ("image", data, mime)}, {k: v for k, v in fields.items() if v is not None}


def _retry_after(response: httpx.Response, cap: float) -> float | None:
    """Seconds to wait before a retry, or ``None`` when the answer is not a retryable 503."""
    if response.status_code != 503:
        return None
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return min(max(float(value), 0.0), cap)
    except ValueError:
        return None


def _result(response: httpx.Response) -> ParseResponse:
    return _answer(response, ParseResponse)


Answer = TypeVar("Answer", ParseResponse, LocateResponse)


def _answer(response: httpx.Response, model: type[Answer]) -> Answer:
    """The validated 200 answer, else :class:`DetactError` with the server's code and message."""
    if response.status_code == 200:
        return model.model_validate_json(response.content)
    code, message = "http_error", response.reason_phrase or "error"
    try:
        error = response.json()["error"]
        code, message = str(error["code"]), str(error["message"])
    except (ValueError, KeyError, TypeError):
        pass
    raise DetactError(response.status_code, code, message, response.headers.get("x-request-id"))


def _headers(api_key: str | None, headers: Mapping[str, str] | None) -> dict[str, str]:
    out = dict(headers or {})
    if api_key:
        out["Authorization"] = f"Bearer {api_key}"
    return out


class DetactClient:
    """Synchronous client: ``parse`` posts a screenshot and returns the :class:`ParseResponse`."""

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000",
        *,
        api_key: str | None = None,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        max_attempts: int = 4,
        max_retry_wait_s: float = 30.0,
        headers: Mapping[str, str] | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.max_attempts = max(1, max_attempts)
        self.max_retry_wait_s = max_retry_wait_s
        self._http = httpx.Client(
            base_url=base_url, timeout=timeout, headers=_headers(api_key, headers), transport=transport
        )

    def parse(
        self,
        image: ImageInput,
        *,
        profile: str | None = None,
        formats: str | Iterable[str] | None = None,
        task: str | None = None,
        max_elements: int | None = None,
        previous: str | ParseResponse | None = None,
        request_id: str | None = None,
    ) -> ParseResponse:
        """Parse one screenshot; retries 503 + ``Retry-After`` up to ``max_attempts`` tries in all.

        ``previous``: the answer for (or the ``parse_id`` of) the previous screenshot of the same screen;
        the server then parses again only what changed (the same result, see ``reparse``)."""
        files, data = _request_parts(image, profile, formats, task, max_elements, previous)
        return _result(self._post("/parse", files, data, request_id))

    def locate(
        self,
        image: ImageInput,
        description: str,
        *,
        profile: str | None = None,
        request_id: str | None = None,
    ) -> LocateResponse:
        """Find the element ``description`` names (``POST /locate``): its click point, score and the next
        best candidates; ``found`` is false when nothing matches well. Retries like :meth:`parse`."""
        files, data = _locate_parts(image, description, profile)
        return _answer(self._post("/locate", files, data, request_id), LocateResponse)

    def _post(self, path: str, files: Any, data: Any, request_id: str | None) -> httpx.Response:
        """POST, retrying a 503 that carries ``Retry-After`` up to ``max_attempts`` times."""
        headers = {"X-Request-ID": request_id} if request_id else None
        for attempt in range(1, self.max_attempts + 1):
            response = self._http.post(path, files=files, data=data, headers=headers)
            wait = _retry_after(response, self.max_retry_wait_s)
            if wait is None or attempt == self.max_attempts:
                return response
            time.sleep(wait)
        raise AssertionError("unreachable")

    def health(self) -> bool:
        """Whether ``/healthz`` answers 200."""
        return self._http.get("/healthz").status_code == 200

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class AsyncDetactClient:
    """Asynchronous twin of :class:`DetactClient`."""

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000",
        *,
        api_key: str | None = None,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        max_attempts: int = 4,
        max_retry_wait_s: float = 30.0,
        headers: Mapping[str, str] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.max_attempts = max(1, max_attempts)
        self.max_retry_wait_s = max_retry_wait_s
        self._http = httpx.AsyncClient(
            base_url=base_url, timeout=timeout, headers=_headers(api_key, headers), transport=transport
        )

    async def parse(
        self,
        image: ImageInput,
        *,
        profile: str | None = None,
        formats: str | Iterable[str] | None = None,
        task: str | None = None,
        max_elements: int | None = None,
        previous: str | ParseResponse | None = None,
        request_id: str | None = None,
    ) -> ParseResponse:
        """Parse one screenshot; retries 503 + ``Retry-After`` up to ``max_attempts`` tries in all.

        ``previous``: the answer for (or the ``parse_id`` of) the previous screenshot of the same screen;
        the server then parses again only what changed (the same result, see ``reparse``)."""
        files, data = _request_parts(image, profile, formats, task, max_elements, previous)
        return _result(await self._post("/parse", files, data, request_id))

    async def locate(
        self,
        image: ImageInput,
        description: str,
        *,
        profile: str | None = None,
        request_id: str | None = None,
    ) -> LocateResponse:
        """Find the element ``description`` names (``POST /locate``); see :meth:`DetactClient.locate`."""
        files, data = _locate_parts(image, description, profile)
        return _answer(await self._post("/locate", files, data, request_id), LocateResponse)

    async def _post(self, path: str, files: Any, data: Any, request_id: str | None) -> httpx.Response:
        """POST, retrying a 503 that carries ``Retry-After`` up to ``max_attempts`` times."""
        headers = {"X-Request-ID": request_id} if request_id else None
        for attempt in range(1, self.max_attempts + 1):
            response = await self._http.post(path, files=files, data=data, headers=headers)
            wait = _retry_after(response, self.max_retry_wait_s)
            if wait is None or attempt == self.max_attempts:
                return response
            await asyncio.sleep(wait)
        raise AssertionError("unreachable")

    async def health(self) -> bool:
        """Whether ``/healthz`` answers 200."""
        return (await self._http.get("/healthz")).status_code == 200

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
