"""The interface every data-engine source implements."""

from __future__ import annotations

from types import TracebackType
from typing import Protocol

from PIL import Image

from training.data.labels import ScreenLabels


class Renderer(Protocol):
    """Renders screens one seed at a time; a context manager so a browser or QApplication is reused.

    ``render(seed)`` is deterministic for a given seed: the same seed gives the same image and labels.
    The returned labels' ``image`` field is left empty; the caller names and writes the files.
    """

    source: str

    def __enter__(self) -> Renderer: ...

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...

    def render(self, seed: int) -> tuple[Image.Image, ScreenLabels]:
        """One screenshot and its labels (bboxes in screenshot pixels)."""
        ...
