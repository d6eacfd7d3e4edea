"""The agent-facing view of a screen, in one call: the prompt block and where each element id is.

>>> from detact_service import agent  # doctest: +SKIP
>>> view = agent.describe("screenshot.png", task="submit the form", max_elements=20)  # doctest: +SKIP
>>> print(view.prompt)          # CAAP lines: "- ID: element_12, data: {type: button, ...}"  # doctest: +SKIP
>>> view.point("element_12")    # the LLM answered "click element_12": (x, y) in pixels  # doctest: +SKIP

The pipeline is the process-wide one (:func:`~detact_service.pipeline.get_pipeline`): built once, its
models loaded on the first call and kept warm for the next.
"""

from __future__ import annotations

import base64
import binascii
import io
import re
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from detact_service.core import Element, ScreenParse
from detact_service.formats.common import element_ids
from detact_service.settings import Settings
from detact_service.stages import RGBImage

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    from PIL import Image

    from detact_service.understanding.locate import LocateResult

    ImageLike = str | PathLike[str] | bytes | bytearray | Image.Image | npt.NDArray[np.uint8]
else:
    ImageLike = Any

__all__ = ["AgentView", "ImageLike", "describe", "load_any_image", "locate", "parse_element_id"]

AgentFormat = Literal["caap", "detact", "json"]
AGENT_FORMATS: tuple[str, ...] = ("caap", "detact", "json")
ID_RE = re.compile(r"^\s*(?:element[_\s-]*|#)?(\d+)\s*$", re.IGNORECASE)


def parse_element_id(element_id: int | str) -> int:
    """``12``, ``"12"``, ``"element_12"`` or ``"#12"`` as the int 12 (``ValueError`` otherwise)."""
    if isinstance(element_id, bool):
        raise ValueError(f"not an element id: {element_id!r}")
    if isinstance(element_id, int):
        return element_id
    match = ID_RE.match(element_id)
    if match is None:
        raise ValueError(f"not an element id: {element_id!r} (expected e.g. 12 or 'element_12')")
    return int(match.group(1))


@dataclass(frozen=True)
class AgentView:
    """What an agent is given for one screen, and the way back from its answer to pixels."""

    prompt: str
    """The elements as the agent reads them (CAAP lines, DetACT sections or public JSON)."""
    format: str
    parse: ScreenParse
    points: dict[int, tuple[int, int]] = field(default_factory=dict)
    """Element id -> click point (the element's centre, pixels), for the elements in the prompt."""

    @property
    def width(self) -> int:
        return self.parse.width

    @property
    def height(self) -> int:
        return self.parse.height

    def point(self, element_id: int | str) -> tuple[int, int]:
        """Click point of an element id (``12`` or ``"element_12"``); ``KeyError`` when not on screen."""
        key = parse_element_id(element_id)
        if key not in self.points:
            raise KeyError(f"element_{key} is not in this view")
        return self.points[key]

    def point_normalized(self, element_id: int | str) -> tuple[float, float]:
        """The click point as fractions (0-1) of the screen's width and height (for phone agents)."""
        x, y = self.point(element_id)
        return round(x / max(self.width, 1), 4), round(y / max(self.height, 1), 4)

    def element(self, element_id: int | str) -> Element:
        """The element behind an id of this view."""
        key = parse_element_id(element_id)
        for public_id, element in zip(element_ids(self.parse), self.parse.elements, strict=True):
            if public_id == key:
                return element
        raise KeyError(f"element_{key} is not in this view")


def _decode_text(text: str) -> bytes | Path:
    """A string image: a file path when one exists, else base64 (a ``data:`` URL prefix allowed)."""
    stripped = text.strip()
    if not stripped:
        raise ValueError("the image is an empty string")
    if stripped.startswith("data:"):
        header, sep, stripped = stripped.partition(",")
        if not sep or not header.endswith(";base64"):
            raise ValueError("a data: URL must be base64-encoded (data:<type>;base64,<data>)")
    elif len(stripped) < 1024 and "\n" not in stripped:
        path = Path(stripped).expanduser()
        if path.exists():
            return path
        if "/" in stripped or "\\" in stripped or "." in stripped[-6:]:
            raise FileNotFoundError(f"no such image file: {stripped}")
    try:
        return base64.b64decode("".join(stripped.split()), validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("the image is neither an existing file path nor valid base64") from None


def load_any_image(image: ImageLike, max_pixels: int = 40_000_000) -> RGBImage:
    """An RGB array from a path, base64 text, file bytes, PIL image or ``(H, W[, C])`` uint8 array.

    Bad input raises :class:`~detact_service.io.ImageError` (or ``FileNotFoundError``, ``ValueError``).
    """
    import numpy as np
    from PIL import Image

    from detact_service.io import load_image, load_image_file, to_rgb_array

    if isinstance(image, str):
        decoded = _decode_text(image)
        if isinstance(decoded, Path):
            return load_image_file(decoded, max_pixels=max_pixels)
        return load_image(decoded, max_pixels=max_pixels)
    if isinstance(image, PathLike):
        return load_image_file(Path(image), max_pixels=max_pixels)
    if isinstance(image, bytes | bytearray):
        return load_image(bytes(image), max_pixels=max_pixels)
    if isinstance(image, Image.Image):
        return to_rgb_array(image)
    array = np.asarray(image)
    if array.dtype != np.uint8 or array.ndim not in (2, 3):
        raise ValueError(f"an image array must be (H, W[, C]) uint8, not {array.shape} {array.dtype}")
    if array.ndim == 3 and array.shape[2] == 3:
        return np.ascontiguousarray(array)
    buffer = io.BytesIO()
    Image.fromarray(array).save(buffer, format="PNG")
    return to_rgb_array(Image.open(buffer))


def render_prompt(parse: ScreenParse, format: str) -> str:
    """The prompt block of ``parse`` in ``caap``, ``detact`` or ``json`` (the public schema)."""
    from detact_service.formats import render_one

    if format not in AGENT_FORMATS:
        raise ValueError(f"unknown format {format!r}; choose one of {', '.join(AGENT_FORMATS)}")
    return str(render_one(parse, format, indent=1))


def view_of(parse: ScreenParse, format: str = "caap") -> AgentView:
    """The :class:`AgentView` of an existing parse."""
    points = {
        element_id: element.center
        for element_id, element in zip(element_ids(parse), parse.elements, strict=True)
    }
    return AgentView(prompt=render_prompt(parse, format), format=format, parse=parse, points=points)


def _parse(image: ImageLike, task: str | None, profile: str | None, settings: Settings | None) -> ScreenParse:
    from detact_service.pipeline import get_pipeline
    from detact_service.settings import get_settings

    settings = settings or get_settings()
    pixels = load_any_image(image, max_pixels=settings.max_pixels)
    return get_pipeline(settings, profile).parse(pixels, task=task)


def describe(
    image: ImageLike,
    task: str | None = None,
    format: AgentFormat | str = "caap",
    profile: str | None = None,
    max_elements: int | None = None,
    settings: Settings | None = None,
) -> AgentView:
    """Parse ``image`` and return the prompt block plus the id-to-point map, in one call.

    With ``task``, elements are ranked for it and ``max_elements`` keeps the most relevant ones (ids
    unchanged, so ``view.point("element_12")`` is the element the agent saw as ``element_12``).
    """
    from detact_service.formats import select_relevant

    if format not in AGENT_FORMATS:
        raise ValueError(f"unknown format {format!r}; choose one of {', '.join(AGENT_FORMATS)}")
    if max_elements is not None and max_elements < 1:
        raise ValueError("max_elements must be a positive integer")
    parse = select_relevant(_parse(image, task, profile, settings), max_elements)
    return view_of(parse, format)


def locate(
    image: ImageLike,
    description: str,
    profile: str | None = None,
    settings: Settings | None = None,
) -> LocateResult:
    """Parse ``image`` and locate the element ``description`` names (see
    :func:`detact_service.understanding.locate.locate`)."""
    from detact_service.settings import get_settings
    from detact_service.understanding.locate import locate as locate_in
    from detact_service.understanding.locate import locate_embedder

    settings = settings or get_settings()
    parse = _parse(image, None, profile, settings)
    return locate_in(parse, description, embedder=locate_embedder(settings))
