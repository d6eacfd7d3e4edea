"""The one currency of detact-service: `Element` and `ScreenParse`.

Every stage takes the image and the parse so far and returns an amended parse; formats and faces
(API, CLI) only read these types. Boxes are integer pixel coordinates ``(x1, y1, x2, y2)`` with
``x2 > x1`` and ``y2 > y1``, exclusive on the right and bottom edges.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np
import numpy.typing as npt


class ElementType(StrEnum):
    """Element types shared by every stage (the data engine's label set)."""

    TEXT = "text"
    LINK = "link"
    BUTTON = "button"
    INPUT = "input"
    TEXTAREA = "textarea"
    CHECKBOX = "checkbox"
    RADIO = "radio"
    DROPDOWN = "dropdown"
    TAB = "tab"
    MENU_ITEM = "menu_item"
    LIST_ITEM = "list_item"
    ICON = "icon"
    IMAGE = "image"
    SLIDER = "slider"
    SCROLLBAR = "scrollbar"
    TOGGLE = "toggle"
    REGION = "region"


DETECTOR_SOURCE = "detector"
"""``Element.source`` of a detector's box."""
PHONE_ASPECT = 1.6
"""Screens at least this many times taller than wide are phone-shaped (1080x2340 is 2.2, 720x1280 1.8); a
portrait tablet (1.33) or a MiniWoB++ page (1.31) is not."""
PHONE_MAX_WIDTH = 1250
"""Phone screenshots are narrower than this (720-1242 px wide); desktop pages are 1280 px wide and more."""
LANDSCAPE_DETECTOR_SOURCE = "landscape-detector"
"""``Element.source`` of the second (landscape) detector's boxes until the merge admits them as detector
boxes (:func:`detact_service.understanding.merge.admit_landscape_boxes`)."""

INTERACTIVE_TYPES = frozenset(
    {
        ElementType.LINK,
        ElementType.BUTTON,
        ElementType.INPUT,
        ElementType.TEXTAREA,
        ElementType.CHECKBOX,
        ElementType.RADIO,
        ElementType.DROPDOWN,
        ElementType.TAB,
        ElementType.MENU_ITEM,
        ElementType.LIST_ITEM,
        ElementType.ICON,
        ElementType.SLIDER,
        ElementType.SCROLLBAR,
        ElementType.TOGGLE,
    }
)

COLOR_NAMES = (
    "yellow",
    "blue",
    "green",
    "red",
    "pink",
    "violet",
    "white",
    "black",
    "orange",
    "brown",
    "grey",
)


@dataclass(frozen=True, slots=True)
class ElementState:
    """Widget state; ``None`` means unknown (no stage could tell)."""

    checked: bool | None = None
    focused: bool | None = None
    highlighted: bool | None = None
    selected: bool | None = None
    disabled: bool | None = None


@dataclass(frozen=True, slots=True)
class Element:
    """One UI element on a screen."""

    bbox: tuple[int, int, int, int]
    type: ElementType = ElementType.TEXT
    id: int = -1
    score: float = 1.0
    source: str = "unknown"
    text: str | None = None
    icon: str | None = None
    color: str | None = None
    state: ElementState = field(default_factory=ElementState)
    interactive: bool | None = None
    relevance: float | None = None
    """How relevant the element is to the parse's task (higher first); ``None`` when there is no task."""

    def __post_init__(self) -> None:
        x1, y1, x2, y2 = self.bbox
        if not (x2 > x1 and y2 > y1):
            raise ValueError(f"degenerate bbox {self.bbox}")
        if self.color is not None and self.color not in COLOR_NAMES:
            raise ValueError(f"unknown colour {self.color!r}")
        if not isinstance(self.type, ElementType):
            object.__setattr__(self, "type", ElementType(self.type))

    @property
    def center(self) -> tuple[int, int]:
        x1, y1, x2, y2 = self.bbox
        return (x1 + x2) // 2, (y1 + y2) // 2

    @property
    def width(self) -> int:
        return self.bbox[2] - self.bbox[0]

    @property
    def height(self) -> int:
        return self.bbox[3] - self.bbox[1]

    @property
    def is_interactive(self) -> bool:
        """Explicit flag when a stage set one, else inferred from the type."""
        if self.interactive is not None:
            return self.interactive
        return self.type in INTERACTIVE_TYPES

    def replace(self, **changes: object) -> Element:
        """A copy with some fields changed (elements are immutable)."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    @classmethod
    def from_xyxy(cls, box: Sequence[float] | npt.NDArray[np.floating], **fields: object) -> Element:
        """Build from float xyxy coordinates, rounding outwards to whole pixels."""
        x1, y1, x2, y2 = (float(v) for v in box)
        ix1, iy1 = int(np.floor(x1)), int(np.floor(y1))
        ix2, iy2 = max(int(np.ceil(x2)), ix1 + 1), max(int(np.ceil(y2)), iy1 + 1)
        return cls(bbox=(ix1, iy1, ix2, iy2), **fields)  # type: ignore[arg-type]


@dataclass(slots=True)
class ScreenParse:
    """The parse of one screenshot: its size, elements and how it was made."""

    width: int
    height: int
    elements: list[Element] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    models: dict[str, str] = field(default_factory=dict)
    task: str | None = None

    def boxes(self) -> npt.NDArray[np.int64]:
        """All boxes as an ``(N, 4)`` xyxy array."""
        if not self.elements:
            return np.zeros((0, 4), dtype=np.int64)
        return np.asarray([e.bbox for e in self.elements], dtype=np.int64)

    def with_elements(self, elements: Iterable[Element]) -> ScreenParse:
        """A copy holding other elements (timings and models are carried over)."""
        return ScreenParse(
            width=self.width,
            height=self.height,
            elements=list(elements),
            timings_ms=dict(self.timings_ms),
            models=dict(self.models),
            task=self.task,
        )

    def by_id(self, element_id: int) -> Element:
        for element in self.elements:
            if element.id == element_id:
                return element
        raise KeyError(element_id)
