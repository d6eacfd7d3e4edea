"""Public JSON schema of a parse (pydantic v2 models): what the API returns and the CLI writes.

This is the only public shape of a :class:`~detact_service.core.ScreenParse`; it changes only with a
version bump. Parts that were not asked for (or are unknown) are ``null``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from detact_service.core import ElementType


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ImageSize(_Model):
    """Size of the parsed screenshot in pixels."""

    width: int = Field(..., gt=0)
    height: int = Field(..., gt=0)


class StateOut(_Model):
    """Widget state; ``null`` means unknown."""

    checked: bool | None = None
    focused: bool | None = None
    highlighted: bool | None = None
    selected: bool | None = None
    disabled: bool | None = None


class ElementOut(_Model):
    """One UI element."""

    id: int = Field(..., description="Element id, unique within the parse (the number on the SoM image).")
    type: ElementType
    bbox: tuple[int, int, int, int] = Field(
        ..., description="[x1, y1, x2, y2] in pixels; right and bottom edges exclusive."
    )
    center: tuple[int, int] = Field(..., description="[x, y]: where to click.")
    text: str | None = None
    icon: str | None = Field(None, description="Icon name from the template pack, when matched.")
    color: str | None = Field(None, description="Dominant colour name, when known.")
    state: StateOut = Field(default_factory=StateOut)
    interactive: bool
    score: float
    source: str = Field(..., description="The stage/model that produced the element.")
    relevance: float | None = Field(
        None, description="Relevance to the request's task (higher first); null when no task was given."
    )


class TextOut(_Model):
    """LLM-ready renderings of the parse; ``null`` when not requested."""

    caap: str | None = None
    detact: str | None = None


class ReparseOut(_Model):
    """How a parse used the ``previous`` parse it was given."""

    previous: str = Field(..., description="The parse id the request named.")
    reused: bool = Field(
        ..., description="Whether its work was reused; false: a full parse (see `reason`), same result."
    )
    changed: float | None = Field(None, description="Share of the screen's 64 px tiles that changed.")
    text_reused: int = Field(0, description="Text crops whose reading was reused.")
    text_read: int = Field(0, description="Text crops read again.")
    elements_reused: int = Field(
        0, description="Elements whose type and state reading was reused (profiles with the reader)."
    )
    elements_read: int = Field(0, description="Elements the reader read again.")
    reason: str | None = Field(
        None, description="Why nothing was reused: unknown or expired id, size or profile changed, ..."
    )


class ParseResponse(_Model):
    """A parsed screenshot."""

    image: ImageSize
    elements: list[ElementOut]
    text: TextOut = Field(default_factory=TextOut)
    som_png_base64: str | None = Field(
        None, description="Set-of-Mark PNG (screenshot with numbered boxes), base64; when requested."
    )
    timings_ms: dict[str, float] = Field(default_factory=dict)
    models: dict[str, str] = Field(default_factory=dict)
    task: str | None = None
    parse_id: str | None = Field(
        None,
        description="Id of this parse: send it as `previous` with the next screenshot of the same screen "
        "to re-parse only what changed (the server keeps it a while); null where nothing is kept.",
    )
    reparse: ReparseOut | None = Field(None, description="How `previous` was used; null without one.")


class LocatedOut(_Model):
    """An element ``POST /locate`` proposes, with where to click."""

    element: ElementOut
    point: tuple[int, int] = Field(..., description="[x, y] click point in pixels (the element's centre).")
    point_normalized: tuple[float, float] = Field(
        ..., description="[x, y] click point as a fraction (0-1) of the screenshot's width and height."
    )
    score: float = Field(..., description="Locate score in [0, 1), higher is better.")
    match: float = Field(
        ..., description="Share of the description's words and quotes this element matches (0-1)."
    )


class LocateResponse(_Model):
    """The element a description names (``found``), or ``found: false`` and the best guesses."""

    image: ImageSize
    description: str
    found: bool
    element: LocatedOut | None = Field(None, description="The located element; null when not found.")
    candidates: list[LocatedOut] = Field(
        default_factory=list,
        description="The next best elements, best first (the best guesses when not found).",
    )
    reason: str | None = Field(None, description="Why nothing was found; null when found.")
    timings_ms: dict[str, float] = Field(default_factory=dict)
    models: dict[str, str] = Field(default_factory=dict)


class ErrorBody(_Model):
    """What went wrong: a stable machine code and a human message."""

    code: str
    message: str


class ErrorResponse(_Model):
    """Body of every 4xx/5xx answer of the API."""

    error: ErrorBody
