"""Profiles and the pipeline that runs their stages in order, timing each.

A profile is data: an ordered list of ``(slot, backend)`` pairs. Backends left as ``None`` are chosen
from the settings (e.g. the OCR engine). A process builds each pipeline once, keyed by the backends
and settings groups its stages use (an HTTP knob never builds a new pipeline); stages load their
models on first use.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Hashable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from typing import Literal, overload

import numpy as np
import numpy.typing as npt

from detact_service.core import Element, ScreenParse
from detact_service.detectors.ocr_base import ocr_engine_name
from detact_service.models import ModelUnavailable, model_entry, model_spec
from detact_service.reparse import (
    Changes,
    ParseState,
    ReparseInfo,
    RowMemo,
    StageMemo,
    TextMemo,
    changed_tiles,
    tile_fingerprints,
)
from detact_service.settings import Settings
from detact_service.stages import Backend, ReusingStage, RGBImage, Stage, backend_class
from detact_service.tiling import stitch, tiles_for

log = logging.getLogger("detact_service.pipeline")


@dataclass(frozen=True)
class Reparsed:
    """A parse made by :meth:`Pipeline.reparse_batch`: the parse, its state for the next screenshot and
    how the previous parse was used."""

    parse: ScreenParse
    state: ParseState
    info: ReparseInfo


@dataclass(frozen=True)
class Profile:
    """A named, ordered list of stages."""

    name: str
    stages: tuple[tuple[str, str | None], ...]
    description: str


PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        Profile(
            "detact",
            (
                ("text", None),
                ("regions", None),
                ("merge", "default"),
                ("icons", "ssim"),
                ("colors", "hsv"),
                ("relevance", None),
            ),
            "DetACT: OCR + segmentation + SSIM icon matching + colour names.",
        ),
        Profile(
            "fast",
            (
                ("text", None),
                ("regions", None),
                ("detect", None),
                ("merge", "default"),
                ("icons", None),
                ("colors", "hsv"),
                ("relevance", None),
            ),
            "OCR + segmentation + the UI element detector (controls at their full extent).",
        ),
        Profile(
            "full",
            (
                ("text", None),
                ("regions", None),
                ("detect", None),
                ("merge", None),
                ("attributes", None),
                ("icons", None),
                ("colors", "hsv"),
                ("relevance", None),
            ),
            "Everything: OCR, segmentation, detector, the semi-masked type and state reader, icons, colours.",
        ),
    )
}
PREFERENCE = ("full", "fast", "detact")


def register_profile(profile: Profile) -> None:
    """Add (or replace) a profile by its name (plugins, tests); cached pipelines of that name are dropped."""
    with _pipelines_lock:
        PROFILES[profile.name] = profile
        _drop_pipelines(profile.name)


def unregister_profile(name: str) -> None:
    """Remove a profile :func:`register_profile` added, with its cached pipelines."""
    with _pipelines_lock:
        PROFILES.pop(name, None)
        _drop_pipelines(name)


def _drop_pipelines(name: str) -> None:
    for key in [key for key in _pipelines if key[0] == name]:
        del _pipelines[key]


class ProfileUnavailable(RuntimeError):
    """The profile exists but a model it needs is missing here."""


def resolve_backend(slot: str, backend: str | None, settings: Settings) -> str:
    """The backend a profile's open slot gets from the settings (and, for ``detect``, the manifest)."""
    if backend is not None:
        return backend
    if slot == "text":
        return ocr_engine_name(settings)
    if slot == "regions":
        if settings.regions.segmenter is not None:
            return settings.regions.segmenter
        return "sam" if settings.regions.sam_checkpoint is not None else "classical"
    if slot == "detect":
        entry = model_entry(settings.models_dir, "detector", settings.detector.model)
        return entry.backend if entry is not None and entry.backend else "yolo-onnx"
    if slot == "attributes":
        entry = model_entry(settings.models_dir, "attributes", settings.attributes.model)
        return entry.backend if entry is not None and entry.backend else "reader"
    if slot == "merge":
        reads = resolve_backend("attributes", None, settings) == "reader"
        return "reader" if reads else "default"
    if slot == "relevance":
        return settings.relevance.backend
    if slot == "icons":
        try:
            model_spec(settings.models_dir, "icons", settings.icons.classifier_model)
        except ModelUnavailable:
            return "ssim"
        return "classifier"
    raise ValueError(f"stage {slot!r} needs an explicit backend")


def stage_classes(profile: Profile, settings: Settings) -> list[type[Backend]]:
    """The backend class of each stage of ``profile`` (open slots resolved from the settings)."""
    classes = []
    for slot, backend in profile.stages:
        try:
            classes.append(backend_class(slot, resolve_backend(slot, backend, settings), settings))
        except (ValueError, ImportError, ModelUnavailable) as exc:
            raise ProfileUnavailable(f"profile {profile.name!r} is not available here: {exc}") from None
    return classes


class Pipeline:
    """Runs a profile's stages over a batch of images."""

    def __init__(self, profile: Profile, settings: Settings) -> None:
        self.profile = profile
        self.settings = settings
        self.stages: list[Stage] = [cls(settings) for cls in stage_classes(profile, settings)]
        self._executor: ThreadPoolExecutor | None = None
        self._executor_pid = 0
        self._executor_lock = threading.Lock()

    @overload
    def parse_batch(
        self,
        images: Sequence[RGBImage],
        tasks: Sequence[str | None] | None = None,
        *,
        isolate_errors: Literal[False] = False,
    ) -> list[ScreenParse]: ...

    @overload
    def parse_batch(
        self, images: Sequence[RGBImage], tasks: Sequence[str | None] | None = None, *, isolate_errors: bool
    ) -> list[ScreenParse | Exception]: ...

    def parse_batch(
        self,
        images: Sequence[RGBImage],
        tasks: Sequence[str | None] | None = None,
        *,
        isolate_errors: bool = False,
    ) -> list[ScreenParse] | list[ScreenParse | Exception]:
        """Parse several screenshots; each stage sees the whole batch at once.

        With ``isolate_errors``, a failing batch is parsed again image by image and each image gets its
        parse or the exception it raised (one bad image fails only itself: what the API and the batch
        runner answer); without, the first error propagates.
        """
        tasks = list(tasks) if tasks is not None else [None] * len(images)
        if not isolate_errors:
            return self._run(images, tasks)[0]
        results: list[ScreenParse | Exception] = []
        try:
            results.extend(self._run(images, tasks)[0])
            return results
        except Exception as exc:
            if len(images) == 1:
                results.append(exc)
                return results
            log.warning("a batch of %d failed (%s); parsing its images one by one", len(images), exc)
        for image, task in zip(images, tasks, strict=True):
            try:
                results.extend(self._run([image], [task])[0])
            except Exception as exc:
                results.append(exc)
        return results

    @overload
    def reparse_batch(
        self,
        images: Sequence[RGBImage],
        tasks: Sequence[str | None],
        previous: Sequence[ParseState | None],
        *,
        isolate_errors: Literal[False] = False,
    ) -> list[Reparsed]: ...

    @overload
    def reparse_batch(
        self,
        images: Sequence[RGBImage],
        tasks: Sequence[str | None],
        previous: Sequence[ParseState | None],
        *,
        isolate_errors: bool,
    ) -> list[Reparsed | Exception]: ...

    def reparse_batch(
        self,
        images: Sequence[RGBImage],
        tasks: Sequence[str | None],
        previous: Sequence[ParseState | None],
        *,
        isolate_errors: bool = False,
    ) -> list[Reparsed] | list[Reparsed | Exception]:
        """Parse screenshots reusing each one's previous parse (or ``None``) where its tiles are unchanged.

        Each result equals :meth:`parse_batch`'s and carries the state the next screenshot is compared
        with. A previous parse of another size or profile, or one with more than
        ``settings.reparse_max_changed`` of its tiles changed, is not used (a full parse).
        """
        if not isolate_errors:
            return self._reparse(images, tasks, previous)
        results: list[Reparsed | Exception] = []
        try:
            results.extend(self._reparse(images, tasks, previous))
            return results
        except Exception as exc:
            if len(images) == 1:
                results.append(exc)
                return results
            log.warning("a batch of %d failed (%s); re-parsing its images one by one", len(images), exc)
        for image, task, state in zip(images, tasks, previous, strict=True):
            try:
                results.extend(self._reparse([image], [task], [state]))
            except Exception as exc:
                results.append(exc)
        return results

    def _reparse(
        self, images: Sequence[RGBImage], tasks: Sequence[str | None], previous: Sequence[ParseState | None]
    ) -> list[Reparsed]:
        """Fingerprint, compare with the previous states, run the stages, collect the new states."""
        prints = [tile_fingerprints(image) for image in images]
        changes: list[Changes | None] = []
        reasons: list[str | None] = []
        for image, state, fingerprints in zip(images, previous, prints, strict=True):
            change, reason = self._compare(image, state, fingerprints)
            changes.append(change)
            reasons.append(reason)
        usable = [
            state if change is not None else None for state, change in zip(previous, changes, strict=True)
        ]
        kept = [self._unchanged_parse(s, c, t) for s, c, t in zip(usable, changes, tasks, strict=True)]
        todo = [i for i, parse in enumerate(kept) if parse is None]
        parses: list[ScreenParse | None] = list(kept)
        memos: list[Mapping[str, StageMemo]] = [s.memos if s is not None else {} for s in usable]
        if todo:
            pick = [images[i] for i in todo], [tasks[i] for i in todo]
            ran, ran_memos = self._run(*pick, [usable[i] for i in todo], [changes[i] for i in todo])
            for i, parse, memo in zip(todo, ran, ran_memos, strict=True):
                parses[i], memos[i] = parse, memo
        results = []
        for image, parse, fingerprints, memo, change, reason, same in zip(
            images, parses, prints, memos, changes, reasons, kept, strict=True
        ):
            assert parse is not None  # every image is either kept or parsed
            info = reparse_info(memo, change, reason, all_reused=same is not None)
            state = ParseState(
                image.shape[1], image.shape[0], self.profile.name, fingerprints, memo, parse, self.config_key
            )
            results.append(Reparsed(parse, state, info))
        return results

    @cached_property
    def config_key(self) -> Hashable:
        """What configures this pipeline's work: every stage's cache key, in order."""
        return tuple(s.cache_key(self.settings) if isinstance(s, Backend) else s.slot for s in self.stages)

    def _unchanged_parse(
        self, state: ParseState | None, change: Changes | None, task: str | None
    ) -> ScreenParse | None:
        """The previous parse again when nothing changed: every tile the same, the same task, a pipeline
        configured the same way (each stage would compute what it did; only the timings are new)."""
        if state is None or change is None or change.changed.any() or state.parse is None:
            return None
        if state.parse.task != task or state.pipeline_key != self.config_key:
            return None
        start = time.perf_counter()
        again = state.parse.with_elements(state.parse.elements)
        again.timings_ms = {"total": round((time.perf_counter() - start) * 1000.0, 2)}
        return again

    def _compare(
        self, image: RGBImage, state: ParseState | None, fingerprints: npt.NDArray[np.uint64]
    ) -> tuple[Changes | None, str | None]:
        """The changed tiles since ``state``, or ``None`` and why the previous parse cannot be used."""
        if state is None:
            return None, "no previous parse"
        if (state.width, state.height) != (image.shape[1], image.shape[0]):
            return None, "the screen size changed"
        if state.profile != self.profile.name:
            return None, "the previous parse used another profile"
        change = changed_tiles(state.fingerprints, fingerprints)
        if change.fraction > self.settings.reparse_max_changed:
            return None, f"{change.fraction:.0%} of the screen changed"
        return change, None

    def _run(
        self,
        images: Sequence[RGBImage],
        tasks: Sequence[str | None],
        previous: Sequence[ParseState | None] | None = None,
        changes: Sequence[Changes | None] | None = None,
    ) -> tuple[list[ScreenParse], list[dict[str, StageMemo]]]:
        """Every stage over the batch (a screenshot longer than a screen as its tiles, :mod:`tiling`);
        with ``previous``, stages that can reuse their last run's work get its memo and the changed tiles,
        and every image's new memos are returned."""
        plans = [
            tiles_for(image.shape[1], image.shape[0]) if self.settings.tile_long_screens else []
            for image in images
        ]
        if not any(plans):
            return self._run_whole(images, tasks, previous, changes)
        pieces: list[RGBImage] = []
        owners: list[int] = []
        for index, (image, tiles) in enumerate(zip(images, plans, strict=True)):
            views = [image[y0:y1, x0:x1] for x0, y0, x1, y1 in (tile.box for tile in tiles)] or [image]
            pieces += [np.ascontiguousarray(view) for view in views]
            owners += [index] * len(views)
        # a tile is parsed afresh: the screenshot's memos and changed tiles are not a tile's
        whole = [None if plans[i] else i for i in owners]
        ran, ran_memos = self._run_whole(
            pieces,
            [tasks[i] for i in owners],
            None if previous is None else [None if i is None else previous[i] for i in whole],
            None if changes is None else [None if i is None else changes[i] for i in whole],
        )
        firsts = np.searchsorted(owners, np.arange(len(images) + 1)).tolist()  # each image's pieces
        parses: list[ScreenParse] = []
        memos: list[dict[str, StageMemo]] = []
        for image, tiles, start, end in zip(images, plans, firsts[:-1], firsts[1:], strict=True):
            if tiles:
                parses.append(stitch(image.shape[1], image.shape[0], tiles, ran[start:end]))
                memos.append({})
            else:
                parses.append(ran[start])
                memos.append(ran_memos[start])
        return parses, memos

    def _run_whole(
        self,
        images: Sequence[RGBImage],
        tasks: Sequence[str | None],
        previous: Sequence[ParseState | None] | None = None,
        changes: Sequence[Changes | None] | None = None,
    ) -> tuple[list[ScreenParse], list[dict[str, StageMemo]]]:
        """Every stage over the batch of whole images, timing each (:meth:`_run`)."""
        parses = [
            ScreenParse(
                width=img.shape[1], height=img.shape[0], task=task, models={"profile": self.profile.name}
            )
            for img, task in zip(images, tasks, strict=True)
        ]
        memos: list[dict[str, StageMemo]] = [{} for _ in images]
        total_start = time.perf_counter()
        early = self._start_image_only_stages(images, parses)
        for stage in self.stages:
            start = time.perf_counter()
            if stage in early:
                found, ms = early[stage].result()
                parses = [p.with_elements([*p.elements, *f]) for p, f in zip(parses, found, strict=True)]
                start -= ms / 1000.0  # its own run time, not the wait
            elif previous is not None and changes is not None and isinstance(stage, ReusingStage):
                key = stage.cache_key(self.settings) if isinstance(stage, Backend) else stage.slot
                before = [_memo(state, stage.slot, key) for state in previous]
                parses, datas = stage.run_reusing(images, parses, before, changes)
                for memo, data in zip(memos, datas, strict=True):
                    if data is not None:
                        memo[stage.slot] = StageMemo(key, data)
            else:
                parses = stage.run(images, parses)
            per_image_ms = (time.perf_counter() - start) * 1000.0 / max(len(images), 1)
            version = stage.model_version()
            for parse in parses:
                parse.timings_ms[stage.slot] = round(per_image_ms, 2)
                if version:
                    parse.models[stage.slot] = version
        total_ms = (time.perf_counter() - total_start) * 1000.0 / max(len(images), 1)
        for parse in parses:
            parse.timings_ms["total"] = round(total_ms, 2)
        return parses, memos

    def _start_image_only_stages(
        self, images: Sequence[RGBImage], parses: Sequence[ScreenParse]
    ) -> dict[Stage, Future[tuple[list[list[Element]], float]]]:
        """Start every image-only stage after the first (the detector) in a thread of its own, on empty
        parses; its elements are appended at its turn, so the result equals a run in order. A stage that
        keeps re-parse memos runs in order instead (its memo comes from ``run_reusing``)."""
        if not self.settings.overlap_stages:
            return {}
        early = [
            s
            for s in self.stages[1:]
            if isinstance(s, Backend) and s.image_only and not isinstance(s, ReusingStage)
        ]
        if not early:
            return {}
        if self._executor is None or self._executor_pid != os.getpid():  # a forked child has no threads
            with self._executor_lock:
                if self._executor is None or self._executor_pid != os.getpid():
                    self._executor = ThreadPoolExecutor(len(early), thread_name_prefix="detact-stage")
                    self._executor_pid = os.getpid()

        def run_alone(stage: Stage) -> tuple[list[list[Element]], float]:
            start = time.perf_counter()
            done = stage.run(images, [p.with_elements([]) for p in parses])
            return [list(p.elements) for p in done], (time.perf_counter() - start) * 1000.0

        return {stage: self._executor.submit(run_alone, stage) for stage in early}

    def parse(self, image: RGBImage, task: str | None = None) -> ScreenParse:
        """Parse one screenshot."""
        return self.parse_batch([image], [task])[0]


def _memo(state: ParseState | None, slot: str, key: Hashable) -> object | None:
    """The memo ``slot`` left in ``state`` when the stage that left it was configured as ``key``."""
    memo = state.memos.get(slot) if state is not None else None
    return memo.data if memo is not None and memo.key == key else None


_pipelines: dict[tuple[str, Hashable], Pipeline] = {}
_pipelines_lock = threading.Lock()


def check_profile(name: str, settings: Settings) -> None:
    """Raise :class:`ProfileUnavailable` when a backend of the profile cannot run here (and says why)."""
    if name not in PROFILES:
        raise ValueError(f"unknown profile {name!r}; choose one of {sorted(PROFILES)}")
    for cls in stage_classes(PROFILES[name], settings):
        reason = cls.available(settings)
        if reason is not None:
            raise ProfileUnavailable(f"profile {name!r} is not available here: {reason}")


def available_profiles(settings: Settings) -> list[str]:
    """Profiles whose models are all present, best first."""
    names = []
    for name in PREFERENCE:
        try:
            check_profile(name, settings)
        except ProfileUnavailable:
            continue
        names.append(name)
    return names


def default_profile(settings: Settings) -> str:
    """The configured profile, else the best available one."""
    if settings.profile:
        return settings.profile
    available = available_profiles(settings)
    return available[0] if available else "detact"


def pipeline_key(name: str, settings: Settings) -> tuple[str, Hashable]:
    """What a profile's pipeline depends on: its stages' backends and their settings groups, and the
    re-parse bound, stage overlap and tiling it applies itself."""
    if name not in PROFILES:
        raise ValueError(f"unknown profile {name!r}; choose one of {sorted(PROFILES)}")
    stages = tuple(cls.cache_key(settings) for cls in stage_classes(PROFILES[name], settings))
    return name, (stages, settings.reparse_max_changed, settings.overlap_stages, settings.tile_long_screens)


def get_pipeline(settings: Settings, profile: str | None = None) -> Pipeline:
    """The process-wide pipeline for a profile (built once per :func:`pipeline_key`, models lazily)."""
    name = profile or default_profile(settings)
    key = pipeline_key(name, settings)
    with _pipelines_lock:
        pipeline = _pipelines.get(key)
        if pipeline is None:
            check_profile(name, settings)
            pipeline = Pipeline(PROFILES[name], settings)
            _pipelines[key] = pipeline
        return pipeline


def reparse_info(
    memo: Mapping[str, StageMemo], change: Changes | None, reason: str | None, all_reused: bool
) -> ReparseInfo:
    """How a re-parse used the previous parse, from its stages' memos (``all_reused``: nothing changed,
    the previous parse returned as it was)."""
    text = memo.get("text")
    texts = text.data if text is not None and isinstance(text.data, TextMemo) else None
    reader = memo.get("attributes")
    rows = reader.data if reader is not None and isinstance(reader.data, RowMemo) else None
    text_total = len(texts.texts) if texts is not None else 0
    text_reused = text_total if all_reused else (texts.reused if texts is not None else 0)
    rows_total = len(rows.rows) if rows is not None else 0
    rows_reused = rows_total if all_reused else (rows.reused if rows is not None else 0)
    return ReparseInfo(
        reused=change is not None,
        changed=round(change.fraction, 4) if change is not None else None,
        text_reused=text_reused,
        text_read=text_total - text_reused,
        elements_reused=rows_reused,
        elements_read=rows_total - rows_reused,
        reason=reason,
    )
