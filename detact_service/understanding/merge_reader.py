"""Merge backend ``reader``: the default merge, after the reader has checked the segmenter's marks.

The classical segmenter takes any small filled square or disc for a checkbox or radio: an app's icon, an
avatar, a favicon. Inside a detector box such a "mark" makes the merge drop the box as a checkbox row
(:func:`~detact_service.understanding.merge.drop_mark_rows`), and a list row, a tab or an icon button is
lost. Before the merge, every segment mark that lies in a detector box is read by the reader (its tight
box, one batched call); one it reads as something other than a checkbox, radio or toggle becomes a
plain icon, which the merge treats as a glyph of the detector box's control.

Measured on phone_real's val apps, 65 detector boxes were dropped as mark rows. The reader read 53 of
their marks as something else at confidence 0.5 or more. On the data engine's screens, it read as
something else none of the 138 true segment marks in a mark row. A mark in which the check model
(``ui-checks``) sees no indicator (below ``NO_INDICATOR``) becomes an icon too: with reader v3, 5 tiles
and rows of the phone_real val and test apps were still lost to such marks (an app icon read as a radio).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from detact_service import geometry
from detact_service.core import Element, ElementState, ElementType, ScreenParse
from detact_service.settings import Settings
from detact_service.stages import Backend, RGBImage, register
from detact_service.understanding.checks import check_views
from detact_service.understanding.merge import (
    GROUP_INSIDE,
    LABELLED_MARKS,
    admit_landscape_boxes,
    box_reader,
    merge_elements,
)
from detact_service.understanding.reader import NO_INDICATOR, TYPES, ReaderAttributeStage

NOT_A_MARK_CONFIDENCE = 0.5
"""The reader's confidence in another type at which a segment mark becomes an icon."""

MARK_TYPE_INDICES = np.asarray([TYPES.index(t) for t in LABELLED_MARKS])


def marks_in_detector_boxes(elements: Sequence[Element]) -> npt.NDArray[np.int64]:
    """Indices of the segmenter's checkboxes, radios and toggles that lie inside some detector box."""
    is_mark = np.asarray([e.source != "detector" and e.type in LABELLED_MARKS for e in elements], dtype=bool)
    is_detected = np.asarray([e.source == "detector" for e in elements], dtype=bool)
    if not is_mark.any() or not is_detected.any():
        return np.zeros(0, dtype=np.int64)
    boxes = geometry.boxes_of(elements)
    held = (geometry.containment(boxes[is_mark], boxes[is_detected]) >= GROUP_INSIDE).any(axis=1)
    return np.flatnonzero(is_mark)[held]


def unmark(elements: Sequence[Element], indices: npt.NDArray[np.int64]) -> list[Element]:
    """The elements with those at ``indices`` turned into stateless icons."""
    out = list(elements)
    for index in indices.tolist():
        out[index] = out[index].replace(type=ElementType.ICON, state=ElementState())
    return out


@register("merge", "reader")
class ReaderMergeStage(Backend):
    """The ``merge`` stage of the ``full`` profile: marks the reader does not confirm are icons."""

    config = ("attributes", "device", "ocr")

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.reader = ReaderAttributeStage(settings)
        self.read = box_reader(settings)

    @classmethod
    def available(cls, settings: Settings) -> str | None:
        return ReaderAttributeStage.available(settings)

    @classmethod
    def cache_key(cls, settings: Settings) -> Hashable:
        return (super().cache_key(settings), ReaderAttributeStage.cache_key(settings))

    def model_version(self) -> str | None:
        return self.reader.model_version()

    def load(self) -> Any:
        return self.reader.load()

    def without_indicator(
        self,
        images: Sequence[RGBImage],
        elements: Sequence[Sequence[Element]],
        candidates: Sequence[npt.NDArray[np.int64]],
    ) -> npt.NDArray[np.bool_]:
        """For every candidate mark (all screens, in order): the reader's check model (``ui-checks``)
        sees no indicator in it; all False without that model."""
        checks = self.reader.checks
        if checks is None or not any(len(c) for c in candidates):
            return np.zeros(sum(len(c) for c in candidates), dtype=bool)
        views = [
            check_views(image, geometry.boxes_of([found[i] for i in picked]).astype(np.int64), checks.side)
            for image, found, picked in zip(images, elements, candidates, strict=True)
            if len(picked)
        ]
        _, indicator = checks.probabilities(self.settings, np.concatenate(views))
        return indicator < NO_INDICATOR

    def run(self, images: Sequence[RGBImage], parses: Sequence[ScreenParse]) -> list[ScreenParse]:
        parses = [parse.with_elements(admit_landscape_boxes(parse.elements)) for parse in parses]
        candidates = [marks_in_detector_boxes(parse.elements) for parse in parses]
        elements = [list(parse.elements) for parse in parses]
        if any(len(c) for c in candidates):
            reading = self.reader.read_picked(images, parses, [c.tolist() for c in candidates])
            not_mark = ~np.isin(reading.type_index, MARK_TYPE_INDICES) & (
                reading.type_confidence >= NOT_A_MARK_CONFIDENCE
            )
            # the check model looks only at the marks the reader left standing
            standing = np.split(~not_mark, np.cumsum([len(c) for c in candidates])[:-1])
            remaining = [picked[keep] for picked, keep in zip(candidates, standing, strict=True)]
            not_mark[~not_mark] = self.without_indicator(images, elements, remaining)
            start = 0
            for position, picked in enumerate(candidates):
                verdicts = not_mark[start : start + len(picked)]
                start += len(picked)
                elements[position] = unmark(elements[position], picked[verdicts])
        return [
            parse.with_elements(merge_elements(found, parse.width, parse.height, image, self.read))
            for image, parse, found in zip(images, parses, elements, strict=True)
        ]
