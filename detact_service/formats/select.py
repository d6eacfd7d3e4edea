"""Cutting a parse to the elements most relevant to its task, ids unchanged."""

from __future__ import annotations

from detact_service.core import ScreenParse
from detact_service.formats.common import element_ids


def select_top(parse: ScreenParse, max_elements: int | None) -> ScreenParse:
    """The ``max_elements`` most relevant elements, kept in the parse's (reading) order, ids unchanged.

    Elements rank by :attr:`~detact_service.core.Element.relevance` (``None`` ranks last; ties keep
    parse order), so without a task this keeps the first ``max_elements``. Each kept element carries its
    public id from the full parse, so an id an agent picks from the cut list maps to the full parse.
    ``None`` (or a limit at least the element count) returns the parse unchanged.
    """
    if max_elements is None or max_elements >= len(parse.elements):
        return parse
    if max_elements < 0:
        raise ValueError(f"max_elements must be >= 0, got {max_elements}")
    ids = element_ids(parse)
    order = sorted(
        range(len(parse.elements)),
        key=lambda i: (parse.elements[i].relevance is None, -(parse.elements[i].relevance or 0.0), i),
    )
    keep = sorted(order[:max_elements])
    return parse.with_elements(parse.elements[i].replace(id=ids[i]) for i in keep)
