"""HTTP routes: each only translates HTTP to library calls and back."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response

from detact_service import __version__
from detact_service.api.deps import PipelineGetterDep, ServiceDep, SettingsDep
from detact_service.api.errors import ApiError
from detact_service.api.metrics import CONTENT_TYPE_LATEST
from detact_service.api.models import (
    HealthResponse,
    LocateRequest,
    ParseRequest,
    ReadyResponse,
    VersionResponse,
)
from detact_service.api.service import (
    is_warm,
    profile_info,
    profile_stages,
    resolve_default_profile,
    validate_options,
)
from detact_service.api.uploads import LOCATE_FIELDS, read_parse_input
from detact_service.formats import FORMATS
from detact_service.formats.schema import ErrorResponse, LocateResponse, ParseResponse
from detact_service.models import resolve_device
from detact_service.pipeline import PROFILES, ProfileUnavailable
from detact_service.stages import backend_names, loaded_model_keys

router = APIRouter()

_MULTIPART_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["image"],
    "properties": {
        "image": {"type": "string", "format": "binary", "description": "The screenshot file."},
        **{
            name: {"type": "string", "description": field.description}
            for name, field in ParseRequest.model_fields.items()
            if name != "image_base64"
        },
    },
}
_PARSE_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "description": "A multipart upload (file field `image`), a JSON body with `image_base64`, "
        "or the raw image bytes with an `image/*` Content-Type. Options may also come as query parameters; "
        "body fields win.",
        "content": {
            "multipart/form-data": {"schema": _MULTIPART_SCHEMA},
            "application/json": {"schema": ParseRequest.model_json_schema()},
            "image/*": {"schema": {"type": "string", "format": "binary"}},
        },
    }
}
_ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorResponse, "description": description}
    for status, description in {
        400: "Not an image, truncated or empty file, bad base64, unknown profile or format.",
        413: "Upload over the size limit, or image dimensions over the pixel limit.",
        415: "Unsupported Content-Type or image that cannot be converted to RGB.",
        401: "API keys are configured and the request has no valid `Authorization: Bearer <key>`.",
        422: "No image, or a malformed request.",
        503: "The server is at capacity (`overloaded`, with `Retry-After`), or the profile cannot run here.",
        504: "The parse took longer than the request timeout (`timeout`).",
    }.items()
}


@router.post(
    "/parse",
    response_model=ParseResponse,
    response_model_exclude_none=False,
    responses=_ERRORS,
    openapi_extra=_PARSE_BODY,
    summary="Parse a screenshot into UI elements",
)
async def parse(
    request: Request,
    service: ServiceDep,
    get_pipeline: PipelineGetterDep,
    settings: SettingsDep,
    profile: Annotated[str | None, Query(description="Profile; default: the server's.")] = None,
    formats: Annotated[str | None, Query(description="Comma list of json, caap, detact, som.")] = None,
    task: Annotated[str | None, Query(description="The agent's task, echoed back.")] = None,
    max_elements: Annotated[
        int | None, Query(ge=1, description="Keep the K elements most relevant to the task.")
    ] = None,
    previous: Annotated[
        str | None,
        Query(max_length=64, description="parse_id of the previous screenshot: re-parse what changed."),
    ] = None,
) -> ParseResponse:
    """Parse one screenshot; the elements always come back, text renderings and SoM when asked.

    The request takes an admission ticket before its body is read: past the queue it is refused at once
    (503 ``overloaded`` with ``Retry-After``); it must finish within ``request_timeout_s`` (else 504).
    """
    with service.batcher.ticket():
        try:
            async with asyncio.timeout(settings.request_timeout_s):
                upload = await read_parse_input(request, settings)
                profile_name, format_names = validate_options(
                    upload.profile or profile, upload.formats or formats
                )
                image, decode_ms = await service.decode(upload.data)
                pipeline = await service.pipeline(profile_name, get_pipeline)
                task = upload.task if upload.task is not None else task
                keep = upload.max_elements if upload.max_elements is not None else max_elements
                before = upload.previous or previous
                response = await service.parse(pipeline, image, task, format_names, keep, before)
        except TimeoutError:
            limit = settings.request_timeout_s
            raise ApiError(504, "timeout", f"the parse did not finish within {limit:g} s") from None
    response.timings_ms["decode"] = round(decode_ms, 2)
    return response


MAX_DESCRIPTION_CHARS = 1000
_LOCATE_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "description": "A multipart upload (file field `image`, field `description`), a JSON body with "
        "`image_base64` and `description`, or the raw image bytes with an `image/*` Content-Type and "
        "`description` as a query parameter. Body fields win over query parameters.",
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["image", "description"],
                    "properties": {
                        "image": {"type": "string", "format": "binary", "description": "The screenshot."},
                        **{
                            name: {"type": "string", "description": field.description}
                            for name, field in LocateRequest.model_fields.items()
                            if name != "image_base64"
                        },
                    },
                }
            },
            "application/json": {"schema": LocateRequest.model_json_schema()},
            "image/*": {"schema": {"type": "string", "format": "binary"}},
        },
    }
}


@router.post(
    "/locate",
    response_model=LocateResponse,
    response_model_exclude_none=False,
    responses=_ERRORS,
    openapi_extra=_LOCATE_BODY,
    summary="Find the element a short description names, and where to click",
)
async def locate(
    request: Request,
    service: ServiceDep,
    get_pipeline: PipelineGetterDep,
    settings: SettingsDep,
    description: Annotated[
        str | None, Query(description='What to find, e.g. "the Submit button", "top right icon".')
    ] = None,
    profile: Annotated[str | None, Query(description="Profile; default: the server's.")] = None,
) -> LocateResponse:
    """Parse one screenshot and locate the described element: its click point (pixels and 0-1), score and
    the next best candidates; ``found: false`` with the best guesses when nothing matches well."""
    with service.batcher.ticket():
        try:
            async with asyncio.timeout(settings.request_timeout_s):
                upload = await read_parse_input(request, settings, model=LocateRequest, fields=LOCATE_FIELDS)
                text = upload.description if upload.description is not None else description
                if text is None or not text.strip():
                    raise ApiError(422, "missing_description", "no description: say what to find")
                if len(text) > MAX_DESCRIPTION_CHARS:
                    message = f"the description is longer than {MAX_DESCRIPTION_CHARS} characters"
                    raise ApiError(422, "invalid_request", message)
                profile_name, _ = validate_options(upload.profile or profile, None)
                image, decode_ms = await service.decode(upload.data)
                pipeline = await service.pipeline(profile_name, get_pipeline)
                response = await service.locate(pipeline, image, text.strip())
        except TimeoutError:
            limit = settings.request_timeout_s
            raise ApiError(504, "timeout", f"the request did not finish within {limit:g} s") from None
    response.timings_ms["decode"] = round(decode_ms, 2)
    return response


@router.get("/metrics", include_in_schema=False, summary="Prometheus metrics")
def metrics(service: ServiceDep) -> Response:
    """Prometheus text exposition of this app's registry."""
    return Response(service.metrics.render(), media_type=CONTENT_TYPE_LATEST)


@router.get("/healthz", response_model=HealthResponse, summary="Liveness")
async def healthz() -> HealthResponse:
    """Always 200 while the process serves requests."""
    return HealthResponse()


@router.get(
    "/readyz",
    response_model=ReadyResponse,
    responses={503: {"model": ReadyResponse, "description": "Models not loaded yet, or missing."}},
    summary="Readiness",
)
def readyz(service: ServiceDep, settings: SettingsDep, get_pipeline: PipelineGetterDep) -> JSONResponse:
    """200 once the default profile's models are loaded (after warm-up or a first parse), else 503."""
    loaded = [str(key) for key in loaded_model_keys()]
    name = resolve_default_profile(settings)
    reason: str | None = None
    missing: list[str] = []
    if name not in PROFILES:
        reason = f"the configured default profile {name!r} does not exist"
    else:
        try:
            warm = is_warm(get_pipeline(name))
        except Exception as exc:
            warm = False
            reason = str(exc) if isinstance(exc, ProfileUnavailable) else f"{type(exc).__name__}: {exc}"
        if not warm:
            missing = profile_stages(name, settings)
            if reason is None:
                idle = "models load on warm-up or on the first parse"
                reason = service.warmup_error or ("models are loading" if service.warming else idle)
    ready = reason is None and not missing
    body = ReadyResponse(
        ready=ready,
        profile=name,
        missing=missing,
        warming=service.warming,
        reason=reason,
        loaded_models=loaded,
    )
    return JSONResponse(status_code=200 if ready else 503, content=body.model_dump())


@router.get("/version", response_model=VersionResponse, summary="Version, profiles and backends")
def version(settings: SettingsDep) -> VersionResponse:
    """Package version, the profiles (and whether each can run here), the default profile, the backends."""
    profiles = [profile_info(name, settings) for name in PROFILES]
    slots = sorted({slot for profile in PROFILES.values() for slot, _ in profile.stages})
    try:
        device: str | None = resolve_device(settings)
    except Exception:
        device = None
    return VersionResponse(
        version=__version__,
        default_profile=resolve_default_profile(settings),
        available_profiles=[p.name for p in profiles if p.available],
        profiles=profiles,
        backends={slot: backend_names(slot) for slot in slots},
        device=device,
        formats=list(FORMATS),
    )
