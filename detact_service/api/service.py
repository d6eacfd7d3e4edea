"""What the routes call: profile status, readiness, warm-up and running a parse off the event loop."""

from __future__ import annotations

import logging
import time
import weakref
from collections.abc import Callable

import anyio
import anyio.to_thread
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from detact_service.api.batching import Batcher
from detact_service.api.errors import ApiError
from detact_service.api.metrics import Metrics
from detact_service.api.models import ProfileInfo
from detact_service.formats import parse_formats, select_relevant, to_response
from detact_service.formats.schema import LocateResponse, ParseResponse, ReparseOut
from detact_service.io import load_image
from detact_service.pipeline import (
    PREFERENCE,
    PROFILES,
    Pipeline,
    ProfileUnavailable,
    check_profile,
    default_profile,
    resolve_backend,
)
from detact_service.reparse import StateCache
from detact_service.settings import Settings
from detact_service.stages import RGBImage, StageUnavailable

log = logging.getLogger("detact_service.api")

PipelineGetter = Callable[[str], Pipeline]
"""Profile name -> its (cached) pipeline; may raise ProfileUnavailable."""

_warm_pipelines: weakref.WeakSet[Pipeline] = weakref.WeakSet()


def mark_warm(pipeline: Pipeline) -> None:
    """Record that every stage of ``pipeline`` has run once (so its models are loaded)."""
    _warm_pipelines.add(pipeline)


def is_warm(pipeline: Pipeline) -> bool:
    """Whether ``pipeline`` has completed a run in this process (pipelines are cached process-wide)."""
    return pipeline in _warm_pipelines


def profile_stages(name: str, settings: Settings) -> list[str]:
    """``slot:backend`` of each stage of a profile, open slots resolved from the settings."""
    stages = []
    for slot, backend in PROFILES[name].stages:
        try:
            resolved = resolve_backend(slot, backend, settings)
        except Exception:
            resolved = backend or "auto"
        stages.append(f"{slot}:{resolved}")
    return stages


def profile_info(name: str, settings: Settings) -> ProfileInfo:
    """Whether a profile can run here, and if not why."""
    reason = None
    try:
        check_profile(name, settings)
    except Exception as exc:
        reason = str(exc) if isinstance(exc, ProfileUnavailable) else f"{type(exc).__name__}: {exc}"
    return ProfileInfo(
        name=name,
        description=PROFILES[name].description,
        stages=profile_stages(name, settings),
        available=reason is None,
        reason=reason,
    )


def resolve_default_profile(settings: Settings) -> str:
    """The configured profile, else the best available one, else ``detact``."""
    try:
        return default_profile(settings)
    except Exception as exc:
        log.warning("default_profile failed (%s); checking profiles one by one", exc)
    if settings.profile:
        return settings.profile
    for name in PREFERENCE:
        if profile_info(name, settings).available:
            return name
    return "detact"


def validate_options(profile: str | None, formats: str | None) -> tuple[str | None, tuple[str, ...]]:
    """Check a request's profile and formats (400 when unknown)."""
    if profile is not None and profile not in PROFILES:
        raise ApiError(
            400, "unknown_profile", f"unknown profile {profile!r}; known profiles: {', '.join(PROFILES)}"
        )
    try:
        names = parse_formats(formats)
    except ValueError as exc:
        raise ApiError(400, "unknown_format", str(exc)) from None
    return profile, names


def warmup_image() -> RGBImage:
    """A small synthetic screen (a title, a field and a button) that makes every stage load its models."""
    image = Image.new("RGB", (640, 360), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=22)
    draw.text((24, 20), "Sign in to continue", font=font, fill=(20, 20, 20))
    draw.rectangle((24, 80, 400, 124), outline=(150, 150, 150), width=2)
    draw.text((36, 90), "Email address", font=font, fill=(120, 120, 120))
    draw.rounded_rectangle((24, 160, 184, 208), radius=6, fill=(37, 99, 235))
    draw.text((62, 170), "Submit", font=font, fill=(255, 255, 255))
    return np.asarray(image, dtype=np.uint8).copy()


class ParseService:
    """Per-app state: warm-up status, admission and batching of parses, metrics.

    Parses run in worker threads (the event loop keeps answering /healthz meanwhile): concurrent
    requests of one profile are grouped into batches by :class:`Batcher`, at most
    ``settings.max_in_flight`` pipeline runs at a time; decodes and renderings run in threads too, at most
    ``max_concurrent_decodes`` at a time (bounding decoded-pixel memory).
    """

    def __init__(
        self,
        settings: Settings,
        get_pipeline: PipelineGetter,
        max_concurrent_decodes: int = 4,
    ) -> None:
        self.settings = settings
        self.get_pipeline = get_pipeline
        self.decode_limiter = anyio.CapacityLimiter(max_concurrent_decodes)
        self.warming = False
        self.warmup_error: str | None = None
        self.batcher = Batcher(
            max_in_flight=settings.max_in_flight,
            max_queue=settings.max_queue,
            batch_max_size=settings.batch_max_size,
            batch_wait_ms=settings.batch_wait_ms,
            retry_after_s=settings.retry_after_s,
        )
        self.metrics = Metrics(
            queue_depth=lambda: float(self.batcher.waiting),
            in_flight=lambda: float(self.batcher.in_flight),
            warming=lambda: float(self.warming),
        )
        self.batcher.observer = self.metrics.observe_batch
        self.states = StateCache(settings.reparse_cache_size, settings.reparse_ttl_s)
        """Recent parses' states by parse id, for ``previous`` (re-parse)."""

    async def pipeline(self, profile: str | None, get_pipeline: PipelineGetter | None = None) -> Pipeline:
        """The pipeline of ``profile`` (default when ``None``); 503 when it cannot run here."""
        if profile:
            name = profile
        else:
            name = await anyio.to_thread.run_sync(resolve_default_profile, self.settings)
        try:
            return await anyio.to_thread.run_sync(get_pipeline or self.get_pipeline, name)
        except (ProfileUnavailable, StageUnavailable) as exc:
            raise ApiError(503, "profile_unavailable", str(exc)) from None
        except ImportError as exc:
            raise ApiError(
                503, "profile_unavailable", f"profile {name!r} cannot be loaded here: {exc}"
            ) from None

    async def decode(self, data: bytes) -> tuple[RGBImage, float]:
        """Decode and validate an upload in a worker thread; returns the image and the time taken (ms)."""
        start = time.perf_counter()
        image = await anyio.to_thread.run_sync(
            lambda: load_image(data, max_pixels=self.settings.max_pixels, max_bytes=None),
            limiter=self.decode_limiter,
        )
        return image, (time.perf_counter() - start) * 1000.0

    async def parse(
        self,
        pipeline: Pipeline,
        image: RGBImage,
        task: str | None,
        formats: tuple[str, ...],
        max_elements: int | None = None,
        previous: str | None = None,
    ) -> ParseResponse:
        """Run the pipeline (batched with other requests), keep ``max_elements``, render the formats.

        The parse's state is remembered under a new ``parse_id``; with ``previous`` (an earlier one) only
        what changed is parsed again. An unknown or expired ``previous`` gives a full parse (``reparse``
        says why): the result is the same either way.
        """
        reparse: ReparseOut | None = None
        parse_id: str | None = None
        try:
            if self.settings.reparse_cache_size > 0 and isinstance(pipeline, Pipeline):
                state = self.states.get(previous) if previous else None
                result = await self.batcher.submit_reparse(pipeline, image, task, state)
                parse, parse_id = result.parse, self.states.put(result.state)
                if previous:
                    info = result.info
                    reason = info.reason if state is not None else "previous parse unknown or expired"
                    reparse = ReparseOut(
                        previous=previous,
                        reused=info.reused,
                        changed=info.changed,
                        text_reused=info.text_reused,
                        text_read=info.text_read,
                        elements_reused=info.elements_reused,
                        elements_read=info.elements_read,
                        reason=reason,
                    )
            else:
                parse = await self.batcher.submit(pipeline, image, task)
        except StageUnavailable as exc:
            raise ApiError(503, "stage_unavailable", str(exc)) from None
        mark_warm(pipeline)
        parse = select_relevant(parse, max_elements)

        def render() -> ParseResponse:
            start = time.perf_counter()
            response = to_response(parse, formats, image)
            response.timings_ms["formats"] = round((time.perf_counter() - start) * 1000.0, 2)
            response.parse_id, response.reparse = parse_id, reparse
            return response

        return await anyio.to_thread.run_sync(render, limiter=self.decode_limiter)

    async def locate(self, pipeline: Pipeline, image: RGBImage, description: str) -> LocateResponse:
        """Parse (batched with other requests, no task) and locate ``description`` in a worker thread."""
        from detact_service.library import locate_in
        from detact_service.understanding.locate import to_response

        try:
            parse = await self.batcher.submit(pipeline, image, None)
        except StageUnavailable as exc:
            raise ApiError(503, "stage_unavailable", str(exc)) from None
        mark_warm(pipeline)

        def run() -> LocateResponse:
            start = time.perf_counter()
            result = locate_in(parse, description, self.settings)
            timings = dict(parse.timings_ms)
            timings["locate"] = round((time.perf_counter() - start) * 1000.0, 2)
            return to_response(result, timings, parse.models)

        return await anyio.to_thread.run_sync(run, limiter=self.decode_limiter)

    async def warm_up(self) -> None:
        """Build the default pipeline and run it once so its models load; never raises."""
        self.warming = True
        try:
            pipeline = await self.pipeline(None)
            await self.batcher.submit(pipeline, warmup_image(), None)
            mark_warm(pipeline)
            log.info("warm-up done: profile %s is ready", pipeline.profile.name)
        except ApiError as exc:
            self.warmup_error = exc.message
            log.warning("warm-up failed: %s", exc.message)
        except Exception as exc:
            self.warmup_error = f"{type(exc).__name__}: {exc}"
            log.exception("warm-up failed")
        finally:
            self.warming = False
