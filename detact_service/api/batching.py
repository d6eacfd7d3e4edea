"""Admission control and dynamic batching of parse requests.

A request first takes an admission ticket (before its body is read, so waiting requests hold no upload
memory beyond a bounded number); when none is left it is refused at once with 503 and ``Retry-After``.
Admitted images of the same pipeline are grouped: the first waits up to ``batch_wait_ms`` for others,
then up to ``batch_max_size`` images go to one :meth:`Pipeline.parse_batch` call in a worker thread, at
most ``max_in_flight`` such runs at once. Results are routed back to each request; when a batch fails,
its images are parsed one by one (``parse_batch(isolate_errors=True)``, as the batch runner does) so one
bad image fails only its own request.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import logging
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio.to_thread

from detact_service.api.errors import ApiError
from detact_service.core import ScreenParse
from detact_service.pipeline import Reparsed
from detact_service.reparse import ParseState
from detact_service.stages import RGBImage

log = logging.getLogger("detact_service.api")


class BatchPipeline(Protocol):
    """What the batcher needs of a pipeline (:class:`~detact_service.pipeline.Pipeline`)."""

    def parse_batch(
        self, images: Sequence[RGBImage], tasks: Sequence[str | None] | None = None, *, isolate_errors: bool
    ) -> Sequence[ScreenParse | Exception]: ...


class ReparsePipeline(BatchPipeline, Protocol):
    """A pipeline that also re-parses (:meth:`~detact_service.pipeline.Pipeline.reparse_batch`)."""

    def reparse_batch(
        self,
        images: Sequence[RGBImage],
        tasks: Sequence[str | None],
        previous: Sequence[ParseState | None],
        *,
        isolate_errors: bool,
    ) -> Sequence[Reparsed | Exception]: ...


Result = ScreenParse | Reparsed


@dataclass(eq=False)
class _Item:
    image: RGBImage
    task: str | None
    future: asyncio.Future[Result]
    stateful: bool = False
    previous: ParseState | None = None


@dataclass(eq=False)
class _Lane:
    """Pending items of one pipeline and the task that dispatches them."""

    items: deque[_Item] = field(default_factory=deque)
    filled: asyncio.Event = field(default_factory=asyncio.Event)
    dispatcher: asyncio.Task[None] | None = None


BatchObserver = Callable[[Sequence[ScreenParse], int], None]
"""Called after each pipeline run with its parses and the batch size (for metrics)."""


class Overloaded(ApiError):
    """No admission ticket left: 503 with ``Retry-After``."""

    def __init__(self, retry_after_s: int) -> None:
        message = "the server is at capacity; retry after a short wait"
        super().__init__(503, "overloaded", message, {"Retry-After": str(retry_after_s)})
        self.retry_after_s = retry_after_s


class Batcher:
    """Per-app admission tickets, per-pipeline batch lanes and a limit on concurrent pipeline runs."""

    def __init__(
        self,
        *,
        max_in_flight: int,
        max_queue: int,
        batch_max_size: int,
        batch_wait_ms: float,
        retry_after_s: int,
        observer: BatchObserver | None = None,
    ) -> None:
        self.max_in_flight = max_in_flight
        self.batch_max_size = batch_max_size
        self.batch_wait_s = batch_wait_ms / 1000.0
        self.retry_after_s = retry_after_s
        self.capacity = max_in_flight * batch_max_size + max_queue
        """Requests admitted at once: those a full set of runs holds plus the queue."""
        self.observer = observer
        self.admitted = 0
        self.in_flight = 0
        """Images inside running pipeline calls."""
        self.runs = 0
        """Pipeline calls made so far (for tests and metrics)."""
        self._run_slots: asyncio.Semaphore | None = None
        self._lanes: dict[tuple[int, bool], _Lane] = {}
        self._pipelines: dict[tuple[int, bool], BatchPipeline] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def waiting(self) -> int:
        """Admitted requests not inside a running pipeline call (reading, decoding or queued)."""
        return max(self.admitted - self.in_flight, 0)

    @contextlib.contextmanager
    def ticket(self) -> Iterator[None]:
        """Hold one admission ticket for the duration; :class:`Overloaded` when none is left."""
        if self.admitted >= self.capacity:
            raise Overloaded(self.retry_after_s)
        self.admitted += 1
        try:
            yield
        finally:
            self.admitted -= 1

    async def submit(self, pipeline: BatchPipeline, image: RGBImage, task: str | None) -> ScreenParse:
        """Parse ``image`` in a batch with other concurrent requests of the same pipeline."""
        result = await self._submit(pipeline, image, task, False, None)
        assert isinstance(result, ScreenParse)
        return result

    async def submit_reparse(
        self, pipeline: ReparsePipeline, image: RGBImage, task: str | None, previous: ParseState | None
    ) -> Reparsed:
        """Re-parse ``image`` against ``previous`` (or parse it, keeping its state) in a batch."""
        result = await self._submit(pipeline, image, task, True, previous)
        assert isinstance(result, Reparsed)
        return result

    async def _submit(
        self,
        pipeline: BatchPipeline,
        image: RGBImage,
        task: str | None,
        stateful: bool,
        previous: ParseState | None,
    ) -> Result:
        if self._run_slots is None:
            self._run_slots = asyncio.Semaphore(self.max_in_flight)
        key = (id(pipeline), stateful)
        lane = self._lanes.get(key)
        if lane is None:
            lane = self._lanes[key] = _Lane()
            self._pipelines[key] = pipeline
        item = _Item(image, task, asyncio.get_running_loop().create_future(), stateful, previous)
        lane.items.append(item)
        if len(lane.items) >= self.batch_max_size:
            lane.filled.set()
        if lane.dispatcher is None or lane.dispatcher.done():
            lane.dispatcher = asyncio.create_task(self._dispatch(key, lane))
        return await item.future

    async def _dispatch(self, key: tuple[int, bool], lane: _Lane) -> None:
        """Form batches from ``lane`` while it has items; each runs as its own task."""
        assert self._run_slots is not None
        pipeline = self._pipelines[key]
        try:
            while True:
                self._drop_cancelled(lane)
                if not lane.items:
                    break
                if len(lane.items) < self.batch_max_size and self.batch_wait_s > 0:
                    lane.filled.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(lane.filled.wait(), self.batch_wait_s)
                await self._run_slots.acquire()
                self._drop_cancelled(lane)
                batch = [lane.items.popleft() for _ in range(min(self.batch_max_size, len(lane.items)))]
                if not batch:
                    self._run_slots.release()
                    continue
                task = asyncio.create_task(self._run(pipeline, batch))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
        finally:
            if not lane.items and self._lanes.get(key) is lane:
                del self._lanes[key]
                del self._pipelines[key]

    @staticmethod
    def _drop_cancelled(lane: _Lane) -> None:
        if any(item.future.done() for item in lane.items):
            lane.items = deque(item for item in lane.items if not item.future.done())

    async def _run(self, pipeline: BatchPipeline, batch: list[_Item]) -> None:
        """Run one batch in a worker thread and hand each request its own result or error."""
        assert self._run_slots is not None
        self.in_flight += len(batch)
        self.runs += 1
        results: list[Result | BaseException]
        try:
            results = await anyio.to_thread.run_sync(_parse_each, pipeline, batch)
        except Exception as exc:
            results = [exc] * len(batch)
        except BaseException:  # cancelled (shutdown): so are the requests
            for item in batch:
                item.future.cancel()
            raise
        finally:
            self.in_flight -= len(batch)
            self._run_slots.release()
        parses = [
            result.parse if isinstance(result, Reparsed) else result
            for result in results
            if isinstance(result, ScreenParse | Reparsed)
        ]
        if self.observer is not None and parses:
            try:
                self.observer(parses, len(batch))
            except Exception:
                log.exception("batch observer failed")
        for item, result in zip(batch, results, strict=True):
            if item.future.done():
                continue
            if isinstance(result, ScreenParse | Reparsed):
                item.future.set_result(result)
            else:
                item.future.set_exception(result)


def _parse_each(pipeline: BatchPipeline, batch: Sequence[_Item]) -> list[Result | BaseException]:
    """``parse_batch`` over the batch, then hand freed heap back to the OS."""
    try:
        return _parse_batch_or_each(pipeline, batch)
    finally:
        release_free_memory()


def release_free_memory() -> None:
    """``malloc_trim``: glibc keeps the pages freed after a batch of big images in its per-thread arenas,
    so the server's resident memory would ratchet up with concurrency; a no-op where libc has no trim."""
    global _malloc_trim
    if _malloc_trim is None:
        try:
            _malloc_trim = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
        except (OSError, AttributeError):
            _malloc_trim = False
    if _malloc_trim:
        _malloc_trim(0)


_malloc_trim: Any = None
M_ARENA_MAX, M_MMAP_THRESHOLD = -8, -3  # glibc's mallopt parameter numbers
SERVER_MALLOC = {"MALLOC_ARENA_MAX": "2", "MALLOC_MMAP_THRESHOLD_": str(16 * 1024 * 1024)}
"""glibc's malloc settings for a server process, as environment variables: the Docker image sets them,
``detact serve`` applies the same with ``mallopt`` (:func:`tune_malloc`), and ``python -m bench`` runs our
profiles under them (the peers as they deploy: glibc's defaults, under which RapidOCR ran 2.6 times
slower on the real desktops)."""


def tune_malloc() -> bool:
    """Apply :data:`SERVER_MALLOC` to this process. Two arenas, not one per worker thread: freed image
    buffers fragment across arenas and resident memory creeps up under load (``bench.load``: +18 % after
    16 clients for 60 s uncapped, +7 % capped). Buffers of 16 MiB and more (the detectors' activations)
    mapped apart and handed back when freed; a fixed threshold also stops glibc from raising it as big
    buffers are freed: the bench's 1920x1080 `full` worker peaked at 1099-1140 MiB against 1245-1263 with
    the arenas capped alone, its parses as fast, its batch of five 4-6 % slower (``docs/OCR.md``). True
    when glibc took both; False where there is no glibc."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        arenas = libc.mallopt(M_ARENA_MAX, int(SERVER_MALLOC["MALLOC_ARENA_MAX"]))
        mapped = libc.mallopt(M_MMAP_THRESHOLD, int(SERVER_MALLOC["MALLOC_MMAP_THRESHOLD_"]))
    except (OSError, AttributeError):
        return False
    return bool(arenas == 1 and mapped == 1)


def _parse_batch_or_each(pipeline: BatchPipeline, batch: Sequence[_Item]) -> list[Result | BaseException]:
    """The batch's parses (re-parses in a stateful lane), or per image the error it raised
    (:meth:`Pipeline.parse_batch` isolates them)."""
    images = [item.image for item in batch]
    tasks = [item.task for item in batch]
    reparse = getattr(pipeline, "reparse_batch", None)
    if batch and batch[0].stateful and reparse is not None:
        return list(reparse(images, tasks, [item.previous for item in batch], isolate_errors=True))
    return list(pipeline.parse_batch(images, tasks, isolate_errors=True))
