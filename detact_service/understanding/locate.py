"""Locate: the element of a parse that a short description names, with its click point.

``locate(parse, "the Submit button")`` reads the description once (:class:`LocateQuery`) and ranks the
parse's elements with the task ranker (:func:`~detact_service.understanding.relevance.score_elements`:
quoted strings, words against text and icon names, a control's label, colour and type words), plus what
a *description* adds on top of a task:

* only its first step counts (``Select EiTE and click Submit`` names ``EiTE``; ``, then ...`` is later);
* a quoted value to type (``Enter "hello" into the search field``) names no element: it is dropped;
* position words: ``top``, ``bottom``, ``left``, ``right``, ``middle`` (``top right``, ``at the bottom``)
  add a prior over the element's centre;
* ordinals: ``first``, ``second``, ..., ``last`` pick among the equally good matches in reading order
  (left to right with ``from the left``/``from the right``);
* state words: ``checked``, ``unchecked``, ``selected``, ``disabled``, ``enabled``, ``focused``, ``empty``;
* relations: ``the icon next to Settings``, ``the field below Email``, ``the button left of Cancel``:
  the anchor is located first, and elements near it (on that side) gain.

Whether it is *found*: a description that names content (words or quotes) needs most of it (60%)
matched by the best element (its own words, its label's or its icon's); one naming only a type, colour,
state or position needs an element of that type (and colour, and state). Otherwise ``found`` is false and
the best guesses are still listed; never a random element. Pure: no model unless an embedder is passed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from rapidfuzz import fuzz

from detact_service.core import Element, ElementType, ScreenParse
from detact_service.formats.common import element_ids
from detact_service.settings import Settings
from detact_service.understanding.locate_query import LocateQuery
from detact_service.understanding.relevance import (
    ACTION_WORDS,
    COLOR_WORDS,
    ECHO_FACTOR,
    QUOTE_EXACT,
    STOPWORDS,
    TYPE_WORDS,
    TaskQuery,
    WordEmbedder,
    _compact,
    look_alike,
    minilm_embedder,
    quoted_strings,
    score_elements,
    to_relevance,
    words_of,
)

if TYPE_CHECKING:
    from detact_service.formats.schema import LocateResponse

__all__ = ["Candidate", "LocateQuery", "LocateResult", "locate", "to_response"]

DEFAULT_CANDIDATES = 4
POSITION_WEIGHT = 0.8
STATE_BONUS, STATE_PENALTY = 0.6, 1.0
RELATION_WEIGHT = 1.2
FOUND_MIN = 0.6
"""Share of the description's content (words and quotes) the best element must match to be found."""
PICTURE_TYPES = frozenset({ElementType.ICON, ElementType.IMAGE})
ECHO_MIN = 90.0
"""How closely (rapidfuzz partial ratio, spaces ignored) a text line must match the description to be
its echo on the screen."""
ORDINAL_BAND = 0.85
"""Ordinals pick among the elements scoring at least this share of the best score."""


@dataclass(frozen=True)
class Candidate:
    """An element :func:`locate` proposes, with where to click."""

    element: Element
    element_id: int
    score: float
    """The locate score squashed into ``[0, 1)`` (higher is better)."""
    match: float
    """Share of the description's content this element matches (1.0 when it names no content)."""
    point: tuple[int, int]
    """Click point in pixels: the element's centre."""
    point_normalized: tuple[float, float]
    """The click point as a fraction of the screen's width and height (what phone agents use)."""


@dataclass(frozen=True)
class LocateResult:
    """The answer of :func:`locate`: the element, or ``found`` false and the best guesses."""

    description: str
    found: bool
    best: Candidate | None
    """The located element when ``found``, else ``None``."""
    candidates: list[Candidate] = field(default_factory=list)
    """The next best elements (all guesses when not found), best first."""
    reason: str | None = None
    query: LocateQuery | None = None
    width: int = 0
    height: int = 0


def locate_embedder(settings: Settings) -> WordEmbedder | None:
    """The word embedder :func:`locate` uses with these settings: MiniLM unless the ranker is ``lexical``
    (the ``llm`` ranker answers for whole screens; locating stays local)."""
    if settings.relevance.backend == "lexical":
        return None
    return minilm_embedder(settings.relevance.cache_size)


def to_response(
    result: LocateResult,
    timings_ms: dict[str, float] | None = None,
    models: dict[str, str] | None = None,
) -> LocateResponse:
    """The public model of a locate result (what ``POST /locate`` answers)."""
    from detact_service.formats.json import element_out
    from detact_service.formats.schema import ImageSize, LocatedOut, LocateResponse

    def out(candidate: Candidate) -> LocatedOut:
        return LocatedOut(
            element=element_out(candidate.element, candidate.element_id),
            point=candidate.point,
            point_normalized=candidate.point_normalized,
            score=candidate.score,
            match=candidate.match,
        )

    return LocateResponse(
        image=ImageSize(width=max(result.width, 1), height=max(result.height, 1)),
        description=result.description,
        found=result.found,
        element=out(result.best) if result.best is not None else None,
        candidates=[out(c) for c in result.candidates],
        reason=result.reason,
        timings_ms=dict(timings_ms or {}),
        models=dict(models or {}),
    )


def _content_units(query: TaskQuery) -> list[str]:
    """The description's content: its quotes when it has some (``the button labeled "OK"``: the quote
    names the element, the other words place it), else its content words."""
    if query.quotes:
        return [f'"{q}"' for q in query.quotes]
    return list(query.words)


def _cue_text(query: TaskQuery) -> str:
    words = words_of(query.text)
    return " ".join(w for w in words if w in TYPE_WORDS or w in COLOR_WORDS or w in ACTION_WORDS)


def _text_neighbours(elements: Sequence[Element]) -> list[list[int]]:
    """For each element with text, the text elements just left or right of it on its row (OCR often
    splits one label in two: ``Send`` | ``me the newsletter``)."""
    out: list[list[int]] = [[] for _ in elements]
    texts = [i for i, e in enumerate(elements) if e.text and e.type is ElementType.TEXT]
    for i, e in enumerate(elements):
        if not e.text:
            continue
        x1, y1, x2, y2 = e.bbox
        for j in texts:
            if j == i:
                continue
            tx1, ty1, tx2, ty2 = elements[j].bbox
            overlap = min(y2, ty2) - max(y1, ty1)
            gap = max(tx1 - x2, x1 - tx2)
            height = max(y2 - y1, ty2 - ty1)
            if overlap >= 0.6 * min(y2 - y1, ty2 - ty1) and -0.5 * height <= gap <= 1.2 * height:
                out[i].append(j)
    return out


def _match_share(
    elements: Sequence[Element], units: Sequence[str], embedder: WordEmbedder | None
) -> npt.NDArray[np.float64]:
    """Per element, the mean over content units of how well it (or a text fragment beside it, at 0.9)
    matches each (0-1)."""
    if not units:
        return np.ones(len(elements))
    matrix = np.zeros((len(units), len(elements)))
    for row, unit in enumerate(units):
        scores = score_elements(elements, unit, embedder)
        full = QUOTE_EXACT if unit.startswith('"') else 1.0
        matrix[row] = np.clip(scores / full, 0.0, 1.0)
    for i, near in enumerate(_text_neighbours(elements)):
        if near:
            matrix[:, i] = np.maximum(matrix[:, i], 0.9 * matrix[:, near].max(axis=1))
    return np.asarray(matrix.mean(axis=0), dtype=np.float64)


def _position_prior(
    elements: Sequence[Element], positions: Sequence[tuple[str, float]], width: int, height: int
) -> npt.NDArray[np.float64]:
    if not positions:
        return np.zeros(len(elements))
    centres = np.asarray([e.center for e in elements], dtype=np.float64)
    fx = centres[:, 0] / max(width, 1)
    fy = centres[:, 1] / max(height, 1)
    prior = np.zeros(len(elements))
    for axis, target in positions:
        if axis == "x":
            prior += 1.0 - np.abs(fx - target)
        elif axis == "y":
            prior += 1.0 - np.abs(fy - target)
        else:
            prior += 1.0 - np.hypot(fx - 0.5, fy - 0.5) / np.hypot(0.5, 0.5)
    return prior / len(positions)


def _state_score(element: Element, states: Sequence[tuple[str, bool]]) -> float:
    score = 0.0
    for name, wanted in states:
        value = getattr(element.state, name)
        if name == "disabled" and value is None and not wanted:
            continue
        if value is wanted:
            score += STATE_BONUS
        elif value is not None:
            score -= STATE_PENALTY
    return score


def _states_match(element: Element, states: Sequence[tuple[str, bool]]) -> bool:
    for name, wanted in states:
        value = getattr(element.state, name)
        if value is not None and value is not wanted:
            return False
        if value is None and wanted:
            return False
    return True


def _relation_bonus(
    elements: Sequence[Element], anchor: Element, relation: str, anchor_index: int
) -> npt.NDArray[np.float64]:
    """Closeness to the anchor on the named side (1 touching, falling off with the gap)."""
    ax1, ay1, ax2, ay2 = anchor.bbox
    scale = max(anchor.height, 16) * 4.0
    bonus = np.zeros(len(elements))
    for i, e in enumerate(elements):
        if i == anchor_index:
            continue
        x1, y1, x2, y2 = e.bbox
        if x1 <= ax1 and y1 <= ay1 and x2 >= ax2 and y2 >= ay2:
            continue  # a container of the anchor is not beside it
        dx = max(ax1 - x2, x1 - ax2, 0)
        dy = max(ay1 - y2, y1 - ay2, 0)
        row = min(y2, ay2) - max(y1, ay1) > 0
        column = min(x2, ax2) - max(x1, ax1) > 0
        side = {
            "near": True,
            "after": (row and x1 >= ax2 - 4) or (column and y1 >= ay2 - 4),
            "left": row and x2 <= ax1 + 4,
            "right": row and x1 >= ax2 - 4,
            "above": column and y2 <= ay1 + 4,
            "below": column and y1 >= ay2 - 4,
        }[relation]
        if side:
            bonus[i] = float(np.exp(-float(np.hypot(dx, dy)) / scale))
    return bonus


def _lines(elements: Sequence[Element]) -> list[list[int]]:
    """Text elements chained into lines through row neighbours, each left to right."""
    parent = list(range(len(elements)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, near in enumerate(_text_neighbours(elements)):
        if elements[i].type is ElementType.TEXT:
            for j in near:
                parent[root(i)] = root(j)
    groups: dict[int, list[int]] = {}
    for i, e in enumerate(elements):
        if e.type is ElementType.TEXT and e.text:
            groups.setdefault(root(i), []).append(i)
    return [sorted(g, key=lambda i: elements[i].bbox[0]) for g in groups.values()]


def _echo_mask(elements: Sequence[Element], description: str, units: Sequence[str]) -> npt.NDArray[np.bool_]:
    """Text lines that show the description itself (MiniWoB's utterance, a chat message), however OCR
    split them (``Se`` ``lect K6, ZPQb``): a fuzzy piece of the description, spaces ignored, that holds a
    word the query does not look for (an action such as ``click``, a later step's words; not a type or
    colour word), so a label equal to what is looked for is no echo."""
    mask = np.zeros(len(elements), dtype=bool)
    looked_for = {w for unit in units for w in words_of(unit)}
    extra = {
        look_alike(w)
        for w in words_of(description)
        if w not in looked_for
        and w not in STOPWORDS
        and (w not in TYPE_WORDS or w in ACTION_WORDS)
        and w not in COLOR_WORDS
        and len(w) >= 3
    }
    if not extra:
        return mask
    whole = look_alike(_compact(description))
    for line in _lines(elements):
        compact = look_alike(_compact(" ".join(elements[i].text or "" for i in line)))
        # OCR drops or splits letters (``li`` ``C`` ``ko`` for ``Click on``): a long word may be fuzzy.
        if len(compact) < 4 or not any(
            w in compact or (len(w) >= 5 and fuzz.partial_ratio(w, compact) >= 85) for w in extra
        ):
            continue
        if fuzz.partial_ratio(compact, whole) >= ECHO_MIN:
            mask[line] = True
    return mask


def _label_to_control(
    elements: Sequence[Element],
    scores: npt.NDArray[np.float64],
    share: npt.NDArray[np.float64],
    types: frozenset[ElementType],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """``the Password field`` when no field matches ``password`` itself but a text does: the fields just
    right of or below that text (beside it, for a checkbox or radio) take its score and match."""
    controls = [i for i, e in enumerate(elements) if e.type in types]
    if not controls or max(share[i] for i in controls) >= FOUND_MIN:
        return scores, share
    labels = [
        i
        for i, e in enumerate(elements)
        if e.type is ElementType.TEXT and e.type not in types and share[i] >= FOUND_MIN
    ]
    if not labels:
        return scores, share
    a = max(labels, key=lambda i: scores[i])
    marks = {ElementType.CHECKBOX, ElementType.RADIO, ElementType.TOGGLE}
    relation = "near" if types <= marks else "after"
    bonus = _relation_bonus(elements, elements[a], relation, a)
    scores, share = scores.copy(), share.copy()
    for i in controls:
        scores[i] += scores[a] * bonus[i]
        if bonus[i] >= 0.3:
            share[i] = max(share[i], share[a])
    return scores, share


def _reading_order(elements: Sequence[Element], indices: Sequence[int], horizontal: bool) -> list[int]:
    """``indices`` top to bottom in rows (left to right within a row), or left to right."""
    if horizontal:
        return sorted(indices, key=lambda i: (elements[i].center[0], elements[i].center[1]))
    rows: list[list[int]] = []
    for i in sorted(indices, key=lambda i: elements[i].center[1]):
        e = elements[i]
        if rows and abs(elements[rows[-1][0]].center[1] - e.center[1]) <= max(e.height, 8) / 2:
            rows[-1].append(i)
        else:
            rows.append([i])
    return [i for row in rows for i in sorted(row, key=lambda i: elements[i].center[0])]


def locate(
    parse: ScreenParse,
    description: str,
    *,
    embedder: WordEmbedder | None = None,
    max_candidates: int = DEFAULT_CANDIDATES,
) -> LocateResult:
    """The element of ``parse`` that ``description`` names, its click point, and the next best ones.

    ``embedder`` (the MiniLM word embedder) adds semantic word matches; without it the ranker is lexical.
    """
    elements = list(parse.elements)
    ids = element_ids(parse)
    query = LocateQuery.parse(description, [e.text for e in elements if e.text])
    if not elements:
        return LocateResult(
            description, False, None, [], "the screen has no elements", query, parse.width, parse.height
        )
    if not words_of(description):
        return LocateResult(
            description, False, None, [], "the description is empty", query, parse.width, parse.height
        )
    text = query.text
    task = TaskQuery.parse(text)
    units = _content_units(task)
    cues = task.types or task.colors or query.positions or query.states or query.ordinal is not None
    if not units and not cues and words_of(text):
        # Only action words or stopwords (``Go``, ``Open``, ``Next``): the description is a label.
        text = f'"{" ".join(words_of(text))}"'
        task = TaskQuery.parse(text)
        units = _content_units(task)
    scores = score_elements(elements, text, embedder) if text else np.zeros(len(elements))
    share = _match_share(elements, units, embedder)
    damp = _echo_mask(elements, description, units)
    scores = np.where(damp, scores * ECHO_FACTOR, scores)
    share = np.where(damp, share * ECHO_FACTOR, share)
    region = np.asarray([e.type is ElementType.REGION for e in elements])
    wanted_types = task.types | (task.implied if not units else frozenset())
    if units and wanted_types:
        scores, share = _label_to_control(elements, scores, share, wanted_types)
    if ElementType.REGION not in wanted_types:
        scores = np.where(region, scores * 0.5, scores)
    if not units:
        scores = scores + np.asarray([0.1 if e.is_interactive else 0.0 for e in elements])
    scores = scores + POSITION_WEIGHT * _position_prior(elements, query.positions, parse.width, parse.height)
    if query.states:
        scores = scores + np.asarray([_state_score(e, query.states) for e in elements])
    reason: str | None = None
    if query.relation and query.anchor:
        # Quoted: the anchor names a label, and a label equal to it is no echo of the task.
        quoted = query.anchor if quoted_strings(query.anchor) else f'"{query.anchor}"'
        anchor_scores = score_elements(elements, quoted, embedder)
        anchor_share = _match_share(elements, _content_units(TaskQuery.parse(query.anchor)), embedder)
        a = int(np.argmax(anchor_scores))
        if anchor_share[a] >= FOUND_MIN:
            scores = scores + RELATION_WEIGHT * _relation_bonus(elements, elements[a], query.relation, a)
            if query.relation == "near" and wanted_types and elements[a].type in wanted_types:
                scores[a] += RELATION_WEIGHT  # the control carries the label itself (a labelled checkbox)
            else:
                scores[a] = min(scores[a], 0.0)
        else:
            reason = f"nothing on the screen matches {query.anchor!r}"
    order = sorted(range(len(elements)), key=lambda i: (-scores[i], i))
    best = order[0]
    if query.ordinal is not None and scores[best] > 0:
        band = [i for i in order if scores[i] >= ORDINAL_BAND * scores[best]]
        if wanted_types:
            band = [i for i in band if elements[i].type in wanted_types] or band
        ranked = _reading_order(elements, band, query.horizontal)
        n = query.ordinal
        if -len(ranked) <= n < 0 or 0 < n <= len(ranked):
            best = ranked[n - 1] if n > 0 else ranked[n]
            order = [best, *(i for i in order if i != best)]
        else:
            reason = f"only {len(ranked)} matching elements for the ordinal"
    e = elements[best]
    found = reason is None and scores[best] > 0
    if found and units and share[best] < FOUND_MIN:
        found = False
        reason = f"no element matches {' '.join(units)!r} well enough (best match {share[best]:.2f})"
    if found and task.types and task.types <= PICTURE_TYPES and e.type is ElementType.TEXT:
        # A text may be mistyped as a link or button, but it is never an icon: ``the search icon``
        # matching the word ``Search`` is a guess, and says so.
        found = False
        reason = f"no icon matches {' '.join(units)!r}; a text does (icons are named only when recognised)"
    if found and not units:
        if wanted_types and e.type not in wanted_types:
            found, reason = False, f"no {' or '.join(sorted(t.value for t in wanted_types))} on the screen"
        elif task.colors and e.color not in task.colors:
            found, reason = False, f"no {' or '.join(sorted(task.colors))} element of that kind"
        elif query.states and not _states_match(e, query.states):
            found, reason = False, "no element in that state"
        elif not (wanted_types or task.colors or query.states or query.positions or query.ordinal):
            found, reason = False, "the description names nothing to look for"
    if not found and reason is None:
        reason = "nothing on the screen matches the description"
    relevance = to_relevance(scores)

    def candidate(i: int) -> Candidate:
        element = elements[i]
        x, y = element.center
        return Candidate(
            element=element,
            element_id=ids[i],
            score=relevance[i],
            match=round(float(share[i]), 4),
            point=(x, y),
            point_normalized=(round(x / max(parse.width, 1), 4), round(y / max(parse.height, 1), 4)),
        )

    guesses = [candidate(i) for i in order if scores[i] > 0]
    if found:
        return LocateResult(
            description,
            True,
            guesses[0],
            guesses[1 : 1 + max_candidates],
            None,
            query,
            parse.width,
            parse.height,
        )
    return LocateResult(
        description, False, None, guesses[: 1 + max_candidates], reason, query, parse.width, parse.height
    )
