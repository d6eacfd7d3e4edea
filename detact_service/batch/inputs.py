"""What a batch parses: files, folders and globs, read through a dataset layout into :class:`BatchItem` s.

Layouts (``--layout``):

* ``folder``: every image file under the folder, recursively (sorted), no task.
* ``omniact``: OmniACT. Either task folders, each holding one screenshot (``image.png``, or any single
  image) and a ``task.txt`` (its text becomes the parse's ``task``; a ``Task: ...`` line, as OmniACT
  writes it, is unwrapped and an ``Output Script:`` part is dropped), or OmniACT's release layout: split
  files (``train.json``, ``val.json``, ``test.json``) mapping ids to ``{"task": "data/tasks/...txt",
  "image": "data/data/...png", ...}``, paths relative to the dataset root (one item per task).
* ``screenagent``: ScreenAgent (niuzaisheng/ScreenAgent) session folders: ``<session>/<step>.json`` files
  whose ``saved_image_name`` names a screenshot in ``<session>/images/``; the step's ``task_prompt``
  becomes the task. Each screenshot is parsed once (several steps may show the same one); screenshots no
  step names are parsed without a task.
* ``auto``: ``screenagent`` when a folder holds session folders (``images/`` beside step JSON files),
  ``omniact`` when it holds ``task.txt`` files or OmniACT split files, else ``folder``.
"""

from __future__ import annotations

import glob
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".webp", ".bmp", ".gif", ".tif", ".tiff"})
LAYOUTS = ("auto", "folder", "omniact", "screenagent")
OMNIACT_SPLITS = ("train.json", "val.json", "test.json")


@dataclass(frozen=True)
class BatchItem:
    """One screenshot to parse: its path (absolute) and the task it comes with, if any."""

    path: str
    task: str | None = None


def is_image_file(path: Path) -> bool:
    """True for a regular file with an image suffix."""
    return path.suffix.lower() in IMAGE_SUFFIXES and path.is_file()


def _walk_images(root: Path) -> list[Path]:
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        found.extend(Path(dirpath) / name for name in sorted(filenames))
    return [p for p in found if p.suffix.lower() in IMAGE_SUFFIXES]


def _absolute(path: Path) -> str:
    return str(path.resolve())


def read_folder(root: Path) -> Iterator[BatchItem]:
    """Every image under ``root``, recursively, in sorted order."""
    for path in _walk_images(root):
        yield BatchItem(_absolute(path))


def omniact_task_text(text: str) -> str:
    """The task of an OmniACT task file: the ``Task:`` line's text, without the ``Output Script:`` part."""
    body = text.split("Output Script:", 1)[0].strip()
    if body.lower().startswith("task:"):
        body = body[len("task:") :].strip()
    return body


def read_omniact(root: Path) -> Iterator[BatchItem]:
    """OmniACT: split files (``train.json``, ...) when present, else task folders with ``task.txt``."""
    splits = [root / name for name in OMNIACT_SPLITS if (root / name).is_file()]
    if splits:
        for split in splits:
            entries = json.loads(split.read_text())
            values = entries.values() if isinstance(entries, dict) else entries
            for entry in values:
                task_file = root / entry["task"] if entry.get("task") else None
                task = None
                if task_file is not None and task_file.is_file():
                    task = omniact_task_text(task_file.read_text(errors="replace"))
                yield BatchItem(_absolute(root / entry["image"]), task)
        return
    for task_file in sorted(root.rglob("task.txt")):
        folder = task_file.parent
        images = sorted(p for p in folder.iterdir() if is_image_file(p))
        preferred = [p for p in images if p.stem == "image"]
        if not images:
            continue
        task = omniact_task_text(task_file.read_text(errors="replace"))
        for image in preferred or images:
            yield BatchItem(_absolute(image), task)


def _screenagent_sessions(root: Path) -> list[Path]:
    """Folders holding an ``images/`` folder and step JSON files (the root itself, or below it)."""
    sessions = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        if "images" in dirnames and any(name.endswith(".json") for name in filenames):
            sessions.append(Path(dirpath))
            dirnames.remove("images")
    return sessions


def read_screenagent(root: Path) -> Iterator[BatchItem]:
    """ScreenAgent sessions: each screenshot once, with the task of the first step that names it."""
    for session in _screenagent_sessions(root):
        tasks: dict[str, str | None] = {}
        for step in sorted(session.glob("*.json")):
            try:
                record = json.loads(step.read_text())
            except (OSError, ValueError):
                continue
            if not isinstance(record, dict) or not record.get("saved_image_name"):
                continue
            name = str(record["saved_image_name"])
            task = record.get("task_prompt")
            if tasks.get(name) is None:
                tasks[name] = str(task) if task else None
        images = session / "images"
        on_disk = {p.name for p in images.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES}
        for name in sorted(on_disk | set(tasks)):
            yield BatchItem(_absolute(images / name), tasks.get(name))


def detect_layout(root: Path) -> str:
    """Guess a folder's layout: ``screenagent``, ``omniact`` or ``folder``."""
    if _screenagent_sessions(root):
        return "screenagent"
    if any((root / name).is_file() for name in OMNIACT_SPLITS) or next(root.rglob("task.txt"), None):
        return "omniact"
    return "folder"


READERS = {"folder": read_folder, "omniact": read_omniact, "screenagent": read_screenagent}


def read_directory(root: Path, layout: str = "auto") -> Iterator[BatchItem]:
    """The items of one dataset folder in the given layout (``auto`` guesses it)."""
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}; choose one of {', '.join(LAYOUTS)}")
    name = detect_layout(root) if layout == "auto" else layout
    yield from READERS[name](root)


def collect_items(inputs: Iterable[str | Path], layout: str = "auto") -> list[BatchItem]:
    """Expand files, folders and globs into items, in order, without duplicates.

    A file is taken as given (whatever its suffix: a bad one gets an error line); a folder is read in
    ``layout``; anything else is a glob (``**`` recurses) whose image files and folders are taken.
    Raises ``FileNotFoundError`` for an input that names nothing.
    """
    items: list[BatchItem] = []
    seen: set[BatchItem] = set()

    def add(new: Iterable[BatchItem]) -> None:
        for item in new:
            if item not in seen:
                seen.add(item)
                items.append(item)

    for raw in inputs:
        path = Path(raw).expanduser()
        if path.is_dir():
            add(read_directory(path, layout))
        elif path.is_file():
            add([BatchItem(_absolute(path))])
        else:
            matches = sorted(glob.glob(str(path), recursive=True))
            if not matches:
                raise FileNotFoundError(f"no such file, folder or glob match: {raw}")
            for match in matches:
                found = Path(match)
                if found.is_dir():
                    add(read_directory(found, layout))
                elif is_image_file(found):
                    add([BatchItem(_absolute(found))])
    return items
