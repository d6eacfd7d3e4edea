"""The work of one batch worker, the same in every engine: read, hash, decode, parse, render lines.

A worker builds its pipeline once (models load on first use and stay loaded). A bad image becomes an
error record and never stops the batch; if a pipeline run over a batch fails, its images are parsed one
by one, so only the image that fails gets an error record.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from detact_service.batch.inputs import BatchItem
from detact_service.batch.journal import dump_line
from detact_service.core import ScreenParse
from detact_service.formats.schema import ReparseOut
from detact_service.reparse import ParseState
from detact_service.settings import Settings
from detact_service.stages import RGBImage

TEXT_FORMATS = ("caap", "detact")


@dataclass(frozen=True)
class WorkerConfig:
    """What every worker needs to build the same pipeline (picklable: it travels to processes and actors)."""

    settings: Settings
    profile: str
    formats: tuple[str, ...] = ()
    plugin: str | None = None
    sequential: bool = False
    """Re-parse each image against the one before it (frames of one screen: only what changed is parsed)."""


def run_plugin(plugin: str | None) -> None:
    """Call ``package.module:function`` (e.g. one that registers a backend) in this process."""
    if not plugin:
        return
    module_name, _, attr = plugin.partition(":")
    if not attr:
        raise ValueError(f"a plugin is 'package.module:function', not {plugin!r}")
    try:
        function = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"cannot load the plugin {plugin!r}: {exc}") from None
    function()


def error_record(item: BatchItem, sha256: str | None, code: str, message: str) -> dict[str, Any]:
    """The record of an image that could not be parsed."""
    return {
        "path": item.path,
        "sha256": sha256,
        "task": item.task,
        "error": {"code": code, "message": message},
        "parse": None,
    }


class ParseWorker:
    """Turns items into journal lines with one pipeline, built when the worker starts."""

    def __init__(self, config: WorkerConfig) -> None:
        from detact_service.pipeline import get_pipeline

        run_plugin(config.plugin)
        self.config = config
        self.pipeline = get_pipeline(config.settings, config.profile)
        self.previous: tuple[str, ParseState] | None = None
        """With ``sequential``: the path and state of the last image this worker parsed."""

    def __call__(self, items: Sequence[BatchItem]) -> list[str]:
        """Parse ``items`` (one pipeline run for the good ones); one JSON line per item, in order."""
        from detact_service.io import ImageError, load_image

        records: list[dict[str, Any] | None] = [None] * len(items)
        good: list[tuple[int, RGBImage, str]] = []
        for index, item in enumerate(items):
            try:
                with open(item.path, "rb") as handle:
                    data = handle.read()
            except OSError as exc:
                records[index] = error_record(item, None, "unreadable", f"{type(exc).__name__}: {exc}")
                continue
            digest = hashlib.sha256(data).hexdigest()
            try:
                image = load_image(data, max_pixels=self.config.settings.max_pixels)
            except ImageError as exc:
                records[index] = error_record(item, digest, exc.code, str(exc))
                continue
            good.append((index, image, digest))
        images, tasks = [image for _, image, _ in good], [items[index].task for index, _, _ in good]
        if self.config.sequential:
            parses = self._reparse(images, tasks, [items[index].path for index, _, _ in good])
        else:
            parses = [(parsed, None) for parsed in self._parse(images, tasks)]
        for (index, _, digest), (parsed, reparse) in zip(good, parses, strict=True):
            item = items[index]
            if isinstance(parsed, Exception):
                message = f"{type(parsed).__name__}: {parsed}"
                records[index] = error_record(item, digest, "parse_failed", message)
            else:
                records[index] = {
                    "path": item.path,
                    "sha256": digest,
                    "task": item.task,
                    "error": None,
                    "parse": self._render(parsed, reparse),
                }
        return [dump_line(record) for record in records if record is not None]

    def _parse(self, images: list[RGBImage], tasks: list[str | None]) -> list[ScreenParse | Exception]:
        """Parses of the images, or the exception each one raised (a failed batch is redone one by one)."""
        if not images:
            return []
        return self.pipeline.parse_batch(images, tasks, isolate_errors=True)

    def _reparse(
        self, images: list[RGBImage], tasks: list[str | None], paths: list[str]
    ) -> list[tuple[ScreenParse | Exception, ReparseOut | None]]:
        """Each image re-parsed against the image before it (in order), with how that went."""
        out: list[tuple[ScreenParse | Exception, ReparseOut | None]] = []
        for image, task, path in zip(images, tasks, paths, strict=True):
            before = self.previous
            (result,) = self.pipeline.reparse_batch(
                [image], [task], [before[1] if before else None], isolate_errors=True
            )
            if isinstance(result, Exception):
                self.previous = None
                out.append((result, None))
                continue
            self.previous = (path, result.state)
            info = result.info
            reparse = None
            if before is not None:
                reparse = ReparseOut(
                    previous=before[0],
                    reused=info.reused,
                    changed=info.changed,
                    text_reused=info.text_reused,
                    text_read=info.text_read,
                    elements_reused=info.elements_reused,
                    elements_read=info.elements_read,
                    reason=info.reason,
                )
            out.append((result.parse, reparse))
        return out

    def _render(self, parse: ScreenParse, reparse: ReparseOut | None = None) -> dict[str, Any]:
        from detact_service.formats import to_response

        response = to_response(parse, ("json", *self.config.formats))
        response.reparse = reparse
        return response.model_dump(mode="json")
