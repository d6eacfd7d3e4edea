"""The agent-facing view of a screen, in one call: the prompt block and where each element id is.

>>> from detact_service import agent  # doctest: +SKIP
>>> view = agent.describe("screenshot.png", task="submit the form", max_elements=20)  # doctest: +SKIP
>>> print(view.prompt)          # CAAP lines: "- ID: element_12, data: {type: button, ...}"  # doctest: +SKIP
>>> view.point("element_12")    # the LLM answered "click element_12": (x, y) in pixels  # doctest: +SKIP

The pipeline is the process-wide one (:func:`~detact_service.pipeline.get_pipeline`): built once, its
models loaded on the first call and kept warm for the next.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from detact_service import library
from detact_service.core import Element, ScreenParse
from detact_service.formats.common import element_ids
from detact_service.io import ImageLike, load_any_image
from detact_service.settings import Settings

if TYPE_CHECKING:
    from detact_service.understanding.locate import LocateResult

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


def describe(
    image: ImageLike,
    task: str | None = None,
    format: AgentFormat | str = "caap",
    profile: str | None = None,
    max_elements: int | None = None,
    settings: Settings | None = None,
) -> AgentView:
    """Parse ``image`` and return the prompt block plus the id-to-point map, in one call.

    With ``task``, only the elements relevant to it are kept (DetACT's filter), at most ``max_elements``
    (ids unchanged, so ``view.point("element_12")`` is the element the agent saw as ``element_12``).
    """
    if format not in AGENT_FORMATS:
        raise ValueError(f"unknown format {format!r}; choose one of {', '.join(AGENT_FORMATS)}")
    parse = library.parse(image, task, profile=profile, max_elements=max_elements, settings=settings)
    return view_of(parse, format)


def locate(
    image: ImageLike,
    description: str,
    profile: str | None = None,
    settings: Settings | None = None,
) -> LocateResult:
    """Parse ``image`` and locate what ``description`` names (:func:`detact_service.library.locate`)."""
    return library.locate(image, description, profile=profile, settings=settings)
