"""Reading ``POST /parse`` bodies with a size cap, whatever their encoding.

Three encodings are accepted: multipart (file field ``image`` plus optional fields), a JSON
:class:`ParseRequest` with ``image_base64``, or the raw image bytes with an ``image/*`` or
``application/octet-stream`` content type. The declared Content-Length is checked first and the bytes
are counted while they arrive, so an oversized body is refused before it is read into memory.
"""

from __future__ import annotations

import base64
import binascii
import math
from dataclasses import dataclass

from pydantic import ValidationError
from starlette.datastructures import FormData, UploadFile
from starlette.requests import Request
from starlette.types import Message

from detact_service.api.errors import ApiError, validation_message
from detact_service.api.models import LocateRequest, ParseRequest
from detact_service.settings import Settings

FORM_OVERHEAD = 1024 * 1024
"""Room for multipart framing, form fields and JSON keys on top of the image itself."""

FORM_FIELDS = ("profile", "formats", "task", "max_elements", "previous")
LOCATE_FIELDS = ("profile", "description")
MAX_PARSE_ID = 64


@dataclass(frozen=True, slots=True)
class ParseInput:
    """The image bytes and options of one parse request (options ``None`` when not given)."""

    data: bytes
    profile: str | None = None
    formats: str | None = None
    task: str | None = None
    max_elements: int | None = None
    description: str | None = None
    previous: str | None = None


def max_upload_bytes(settings: Settings) -> int:
    """The largest accepted image file, in bytes."""
    return int(settings.max_upload_mb * 1024 * 1024)


def _too_large(max_bytes: int) -> ApiError:
    limit = f"{max_bytes} bytes ({max_bytes / 1024 / 1024:.3g} MiB)"
    return ApiError(413, "upload_too_large", f"the upload is larger than the limit of {limit}")


def _limited(request: Request, limit: int, max_bytes: int) -> Request:
    """The request, refusing (413) a declared or actual body larger than ``limit`` bytes.

    ``max_bytes`` (the image limit, which ``limit`` exceeds by the room for framing) goes in the message.
    """
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            length = int(declared)
        except ValueError:
            raise ApiError(400, "bad_request", "invalid Content-Length header") from None
        if length > limit:
            raise _too_large(max_bytes)
    received = 0
    upstream = request.receive

    async def receive() -> Message:
        nonlocal received
        message = await upstream()
        if message["type"] == "http.request":
            received += len(message.get("body", b""))
            if received > limit:
                raise _too_large(max_bytes)
        return message

    return Request(request.scope, receive)


async def _read_body(request: Request, limit: int, max_bytes: int) -> bytes:
    body = bytearray()
    async for chunk in _limited(request, limit, max_bytes).stream():
        body.extend(chunk)
    return bytes(body)


def _media_type(request: Request) -> str:
    return request.headers.get("content-type", "").split(";", 1)[0].strip().lower()


def _blank_to_none(value: str | None) -> str | None:
    return value if value is not None and value.strip() else None


async def read_parse_input(
    request: Request,
    settings: Settings,
    *,
    model: type[ParseRequest] | type[LocateRequest] = ParseRequest,
    fields: tuple[str, ...] = FORM_FIELDS,
) -> ParseInput:
    """The image and options of a ``POST /parse`` request (or, with ``LocateRequest`` and
    ``LOCATE_FIELDS``, of ``POST /locate``), or an :class:`ApiError`."""
    max_bytes = max_upload_bytes(settings)
    media_type = _media_type(request)
    if media_type == "multipart/form-data":
        return await _read_multipart(request, max_bytes, fields)
    if media_type == "application/json" or media_type.endswith("+json"):
        return await _read_json(request, max_bytes, model)
    if media_type.startswith("image/") or media_type == "application/octet-stream":
        data = await _read_body(request, max_bytes, max_bytes)
        return ParseInput(data=data)
    if not media_type and not await _read_body(request, max_bytes, max_bytes):
        raise ApiError(422, "missing_image", "no image: send a multipart field 'image' or JSON image_base64")
    raise ApiError(
        415,
        "unsupported_media_type",
        f"unsupported Content-Type {media_type or '(none)'!r}: send multipart/form-data with a file field "
        "'image', application/json with image_base64, or the raw image with an image/* Content-Type",
    )


async def _read_multipart(request: Request, max_bytes: int, names: tuple[str, ...]) -> ParseInput:
    limited = _limited(request, max_bytes + FORM_OVERHEAD, max_bytes)
    form = await limited.form(max_files=2, max_fields=len(FORM_FIELDS) + 4)
    try:
        upload = form.get("image")
        if upload is None:
            raise ApiError(422, "missing_image", "the multipart body has no file field 'image'")
        if not isinstance(upload, UploadFile):
            raise ApiError(422, "missing_image", "the multipart field 'image' must be a file upload")
        if upload.size is not None and upload.size > max_bytes:
            raise _too_large(max_bytes)
        data = await upload.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise _too_large(max_bytes)
        fields = {name: _form_field(form, name) for name in names}
    finally:
        await form.close()
    limit = parse_max_elements(fields.pop("max_elements", None))
    previous = fields.get("previous")
    if previous is not None and len(previous) > MAX_PARSE_ID:
        raise ApiError(
            422, "invalid_request", f"previous must be a parse id of at most {MAX_PARSE_ID} characters"
        )
    return ParseInput(data=data, max_elements=limit, **fields)


def parse_max_elements(value: str | None) -> int | None:
    """A ``max_elements`` form field as a positive int (422 otherwise); ``None`` when absent."""
    if value is None:
        return None
    try:
        number = int(value.strip())
    except ValueError:
        number = 0
    if number < 1:
        raise ApiError(422, "invalid_request", f"max_elements must be a positive integer, not {value!r}")
    return number


def _form_field(form: FormData, name: str) -> str | None:
    value = form.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ApiError(422, "invalid_request", f"the multipart field {name!r} must be text, not a file")
    return _blank_to_none(value)


async def _read_json(
    request: Request, max_bytes: int, model: type[ParseRequest] | type[LocateRequest] = ParseRequest
) -> ParseInput:
    max_encoded = 4 * math.ceil(max_bytes / 3)
    body = await _read_body(request, max_encoded + FORM_OVERHEAD, max_bytes)
    try:
        payload = model.model_validate_json(body)
    except ValidationError as exc:
        errors = exc.errors(include_input=False, include_url=False)
        if any(error["type"] == "json_invalid" for error in errors):
            raise ApiError(400, "invalid_json", "the body is not valid JSON") from None
        raise ApiError(422, "invalid_request", validation_message(errors)) from None
    if payload.image_base64 is None:
        raise ApiError(422, "missing_image", "the JSON body has no image_base64")
    return ParseInput(
        data=decode_base64(payload.image_base64, max_bytes),
        profile=_blank_to_none(payload.profile),
        formats=_blank_to_none(getattr(payload, "formats", None)),
        task=getattr(payload, "task", None),
        max_elements=getattr(payload, "max_elements", None),
        description=getattr(payload, "description", None),
        previous=_blank_to_none(getattr(payload, "previous", None)),
    )


def decode_base64(text: str, max_bytes: int) -> bytes:
    """Strictly decode standard base64 (whitespace and a ``data:...;base64,`` prefix allowed)."""
    if text.startswith("data:"):
        header, sep, text = text.partition(",")
        if not sep or not header.endswith(";base64"):
            message = "a data: URL must be base64-encoded (data:<type>;base64,<data>)"
            raise ApiError(400, "bad_base64", message)
    compact = "".join(text.split())
    if len(compact) > 4 * math.ceil(max_bytes / 3) + 4:
        raise _too_large(max_bytes)
    try:
        data = base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        raise ApiError(400, "bad_base64", "image_base64 is not valid base64") from None
    if len(data) > max_bytes:
        raise _too_large(max_bytes)
    return data
