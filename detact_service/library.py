"""The library entry every face calls: :func:`parse` and :func:`locate`.

The HTTP API, the CLI, the MCP server and the agent helper translate their inputs into these calls (the
API runs the same steps split around its request batcher: :meth:`Pipeline.parse_batch`, then
:func:`~detact_service.formats.select.select_relevant` and :func:`locate_in`), so a parse is the same
wherever it comes from. The pipeline is the process-wide one: built once, models loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from detact_service.core import ScreenParse
from detact_service.io import ImageLike, load_any_image
from detact_service.settings import Settings, get_settings

if TYPE_CHECKING:
    from detact_service.pipeline import Reparsed
    from detact_service.reparse import ParseState
    from detact_service.understanding.locate import LocateResult

__all__ = ["locate", "locate_in", "parse", "parse_full", "reparse"]


def parse_full(
    image: ImageLike, task: str | None = None, *, profile: str | None = None, settings: Settings | None = None
) -> ScreenParse:
    """Every element of the screenshot (ranked for ``task`` when given, nothing cut)."""
    from detact_service.pipeline import get_pipeline

    settings = settings or get_settings()
    pixels = load_any_image(image, max_pixels=settings.max_pixels)
    return get_pipeline(settings, profile).parse(pixels, task=task)


def parse(
    image: ImageLike,
    task: str | None = None,
    *,
    profile: str | None = None,
    max_elements: int | None = None,
    settings: Settings | None = None,
) -> ScreenParse:
    """Parse a screenshot (path, base64, bytes, PIL image or array) as an agent is given it: with ``task``,
    the elements relevant to it (DetACT's filter), at most ``max_elements``; ids are the full parse's.

    Raises :class:`~detact_service.io.ImageError`, ``FileNotFoundError``, ``ValueError`` (bad options)
    and :class:`~detact_service.pipeline.ProfileUnavailable`.
    """
    from detact_service.formats.select import select_relevant

    if max_elements is not None and max_elements < 1:
        raise ValueError("max_elements must be a positive integer")
    full = parse_full(image, task, profile=profile, settings=settings)
    return select_relevant(full, max_elements)


def reparse(
    image: ImageLike,
    previous: ParseState | None,
    task: str | None = None,
    *,
    profile: str | None = None,
    settings: Settings | None = None,
) -> Reparsed:
    """Parse a screenshot reusing ``previous`` (the ``state`` of an earlier :func:`reparse` of the same
    screen, or ``None``) where its tiles are unchanged: the same parse as :func:`parse_full`, cheaper when
    little changed. Returns the parse (nothing cut), the state for the next call and what was reused."""
    from detact_service.pipeline import get_pipeline

    settings = settings or get_settings()
    pixels = load_any_image(image, max_pixels=settings.max_pixels)
    return get_pipeline(settings, profile).reparse_batch([pixels], [task], [previous])[0]


def locate_in(parse: ScreenParse, description: str, settings: Settings | None = None) -> LocateResult:
    """The element of an existing parse that ``description`` names (see
    :func:`detact_service.understanding.locate.locate`)."""
    from detact_service.understanding.locate import locate as locate_elements
    from detact_service.understanding.locate import locate_embedder

    return locate_elements(parse, description, embedder=locate_embedder(settings or get_settings()))


def locate(
    image: ImageLike, description: str, *, profile: str | None = None, settings: Settings | None = None
) -> LocateResult:
    """Parse a screenshot (no task, nothing cut) and locate the element ``description`` names."""
    settings = settings or get_settings()
    return locate_in(parse_full(image, profile=profile, settings=settings), description, settings)
