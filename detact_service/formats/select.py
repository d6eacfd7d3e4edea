"""Cutting a parse to the elements relevant to its task, ids unchanged.

Every face answers :func:`select_relevant`: with a task, DetACT's filter (only the elements relevant to
the task reach the agent), then at most ``max_elements``; without one, the first ``max_elements``.
"""

from __future__ import annotations

from detact_service.core import ScreenParse
from detact_service.formats.common import element_ids

RELEVANCE_SHARE = 0.25
"""The relevance cut keeps elements scoring at least this share of the best element's relevance ..."""
RELEVANCE_FLOOR = 0.1
"""... and at least this relevance (on the 0-1 scale): an element that matches nothing of the task scores
0.01-0.08, one whose text, icon, label or type the task names 0.1 or more."""
MIN_KEPT = 3
"""The cut never keeps fewer than this many (the best ranked), so a task naming nothing on the screen
still leaves the agent a few guesses, and the target has neighbours for context."""


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


def relevance_cut(parse: ScreenParse) -> int | None:
    """How many elements DetACT's filter keeps for the parse's task (``None``: no cut, no task or scores).

    Those scoring at least :data:`RELEVANCE_SHARE` of the best and :data:`RELEVANCE_FLOOR`, never fewer
    than :data:`MIN_KEPT`; the best-ranked element (the task's target when the ranker finds it) is kept.
    """
    if parse.task is None or not parse.task.strip():
        return None
    scores = [e.relevance for e in parse.elements]
    if not scores or any(s is None for s in scores):
        return None
    best = max(s for s in scores if s is not None)
    cut = max(RELEVANCE_FLOOR, RELEVANCE_SHARE * best)
    return max(sum(1 for s in scores if s is not None and s >= cut), MIN_KEPT)


def select_relevant(parse: ScreenParse, max_elements: int | None = None) -> ScreenParse:
    """What a face answers: with a task, the relevant elements (:func:`relevance_cut`), at most
    ``max_elements`` of them; without one, the first ``max_elements``. Reading order and ids are kept."""
    if max_elements is not None and max_elements < 1:
        raise ValueError(f"max_elements must be a positive integer, got {max_elements}")
    cut = relevance_cut(parse)
    limits = [k for k in (cut, max_elements) if k is not None]
    return select_top(parse, min(limits)) if limits else parse
