"""The ``attributes`` stage's CPU reader: a small CNN reads each element's type and state from its view.

CAAP's Visual Observer, made to fit a CPU: every element is cut out as a semi-masked view (its context
window resized to a small square, the surroundings darkened, the element outlined;
:func:`~detact_service.understanding.semimask.reader_views`), and an ImageNet MobileNetV2 fine-tuned
here (``training.reader``) answers its type and the four state flags in one batched ONNX call per
screen. The view geometry is read from the model's manifest entry, so a shipped model always gets the
views it was trained on. A state that does not apply to the answered type is left unknown (``None``),
never ``False``. OCR text is kept: the reader changes types and states only.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from detact_service.core import DETECTOR_SOURCE, PHONE_ASPECT, Element, ElementState, ElementType, ScreenParse
from detact_service.geometry import as_boxes, boxes_of
from detact_service.models import ModelSpec, ModelUnavailable, model_spec, resolve_device
from detact_service.reparse import Changes, RowMemo
from detact_service.settings import Settings
from detact_service.stages import Backend, RGBImage, StageUnavailable, register, verified_session
from detact_service.understanding.alignment import COLUMN_ROWS, column_groups, list_groups, row_groups
from detact_service.understanding.attribute_codec import CHECKABLE, NOT_FOCUSABLE, SELECTABLE
from detact_service.understanding.checks import CheckReader, check_views
from detact_service.understanding.dimmed import DimmedReader, dimmed_views
from detact_service.understanding.fields import fields
from detact_service.understanding.ink_fit import fit_labels_to_ink, indicator_box
from detact_service.understanding.ink_links import ink_links
from detact_service.understanding.semimask import ViewGeometry, box_features, context_windows, reader_views
from detact_service.understanding.table_headers import header_sections

TYPES: tuple[ElementType, ...] = tuple(t for t in ElementType if t is not ElementType.REGION)
"""The reader's type classes, in its output order."""
TEXT_INDEX = TYPES.index(ElementType.TEXT)
STATES = ("checked", "selected", "focused", "disabled")
"""The reader's state flags, in its output order."""
SOURCE_TAG = "+reader"
MARK_OVERRULE_CONFIDENCE = 0.9
"""The reader's confidence needed to retype a checkbox, radio or toggle the segmenter found by its mark."""


def state_applies(types: Sequence[ElementType]) -> npt.NDArray[np.bool_]:
    """Which of :data:`STATES` apply to each type (N x 4)."""
    return np.array(
        [(t in CHECKABLE, t in SELECTABLE, t not in NOT_FOCUSABLE, t not in NOT_FOCUSABLE) for t in types],
        dtype=bool,
    ).reshape(-1, len(STATES))


def read_applies() -> npt.NDArray[np.bool_]:
    """Which of :data:`STATES` the reader answers for each of its :data:`TYPES`: training's
    :func:`state_applies`, and ``selected`` on links too. A link can be the current item of a navigation,
    and a list item drawn as its link (a ``<li>`` round an ``<a>``) looks the same as one. The reader
    learnt ``selected`` from tabs and list and menu items; on the data engine's links its flag fired on
    none of 200 (on buttons 37 of 668, mostly coloured primary buttons: not extended to them)."""
    applies = state_applies(TYPES)
    applies[TYPES.index(ElementType.LINK), STATES.index("selected")] = True
    return applies


APPLIES = read_applies()
"""``APPLIES[type_index, state_index]``: the state is meaningful for that type as read."""


@dataclass(frozen=True)
class ReaderSpec:
    """A reader model's manifest entry, resolved, with the view geometry it was trained on."""

    model: ModelSpec
    geometry: ViewGeometry


def reader_spec(settings: Settings) -> ReaderSpec:
    """The configured reader; :class:`StageUnavailable` when it is not shipped here."""
    try:
        spec = model_spec(settings.models_dir, "attributes", settings.attributes.model)
    except ModelUnavailable as exc:
        raise StageUnavailable(str(exc)) from None
    if not spec.path.is_file():
        raise StageUnavailable(f"attribute model {spec.name!r} is not a single ONNX file")
    geometry = (spec.entry.model_extra or {}).get("geometry")
    return ReaderSpec(spec, ViewGeometry.from_mapping(geometry))


@dataclass(frozen=True)
class Reading:
    """What the reader says about a batch of elements."""

    type_index: npt.NDArray[np.int64]
    type_confidence: npt.NDArray[np.float32]
    state_probability: npt.NDArray[np.float32]
    """N x 4 probabilities that each state flag is set."""
    type_probability: npt.NDArray[np.float32] | None = None
    """N x len(TYPES) probabilities of every type, when kept."""

    def part(self, rows: slice) -> Reading:
        """The reading of some rows."""
        probs = None if self.type_probability is None else self.type_probability[rows]
        return Reading(self.type_index[rows], self.type_confidence[rows], self.state_probability[rows], probs)


def read(session: Any, views: RGBImage, features: npt.NDArray[np.float32], batch_size: int) -> Reading:
    """Run the reader over ``views`` (N x S x S x 3 uint8) in chunks of ``batch_size``."""
    type_probs, state_probs = [], []
    for start in range(0, len(views), batch_size):
        chunk = slice(start, start + batch_size)
        types, states = session.run(None, {"views": views[chunk], "boxes": features[chunk]})
        type_probs.append(types)
        state_probs.append(states)
    return reading_of(np.concatenate(type_probs), np.concatenate(state_probs))


def reading_of(type_probs: npt.NDArray[np.float32], state_probs: npt.NDArray[np.float32]) -> Reading:
    """The reading of N elements from the reader's type (N x len(TYPES)) and state (N x 4) probabilities."""
    index = type_probs.argmax(axis=1)
    return Reading(index, type_probs[np.arange(len(index)), index], state_probs, type_probs)


def picked_boxes(parse: ScreenParse, picked: Sequence[int]) -> npt.NDArray[np.int64]:
    """The (N, 4) boxes of the picked elements of a parse."""
    return np.asarray([parse.elements[i].bbox for i in picked], dtype=np.int64).reshape(-1, 4)


def keeps_its_mark(element: Element, read_type: ElementType, confidence: float) -> bool:
    """Whether a checkbox, radio or toggle the segmenter found by its mark stays one.

    The classical rules find a check mark's box and read its fill exactly; the reader, seeing a detector's
    padded box around a bare square, can take it for a button (measured on MiniWoB++ seeds 1000-1099:
    checked accuracy 0.97 by the rules, 0.68 by the reader alone). The reader overrules the mark only
    when it is sure.
    """
    return is_mark(element) and read_type not in CHECKABLE and confidence < MARK_OVERRULE_CONFIDENCE


def is_readable(element: Element) -> bool:
    """Whether the reader reads ``element``: not a region, nor what the merge settled as plain text
    (``interactive`` False: a phone's status bar)."""
    return element.type is not ElementType.REGION and element.interactive is not False


def is_mark(element: Element) -> bool:
    """A checkbox, radio or toggle whose state the segmenter read from its mark."""
    return element.type in CHECKABLE and element.state.checked is not None


GLYPH_SIDE = 64
"""A detector box at most this many pixels a side ..."""
GLYPH_ASPECT = (0.6, 1.6)
"""... and about square (width over height) is a glyph's box: read as text while it holds none, it is an
icon or a button drawn with a letter (a toolbar's ``A`` for the font colour, a paint program's ``T``).
Measured through `full` (2026-11-27, `/tmp` script): on 20 ScreenAgent desktops 92 of 160 textless `text`
elements become icons (GIMP's tools, LibreOffice's font-colour and alignment buttons, window buttons);
MiniWoB++ seeds 1000-1099 type 0.935 -> 0.933 (a drawn block labelled text), focused and disabled
0.993 -> 0.998; phone_real test apps 0.733 -> 0.738 (type* 0.862 -> 0.867), val apps unchanged."""


def retyped_reading(
    reading: Reading, rows: npt.NDArray[np.bool_], types: int | npt.NDArray[np.int64]
) -> Reading:
    """``reading`` with ``rows`` answered ``types`` (one class index, or one per element) at full confidence:
    a layout rule's answer, which the confidence threshold then keeps."""
    index = np.where(rows, types, reading.type_index)
    confidence = np.where(rows, 1.0, reading.type_confidence).astype(np.float32)
    return Reading(index, confidence, reading.state_probability, reading.type_probability)


def textless_glyphs(elements: Sequence[Element], reading: Reading) -> Reading:
    """``reading`` with each small, square detector box that the reader calls text but that holds no text
    given back the type the merge gave it (an icon, which the icon stage may name and make a button). Text
    the OCR did not read is wide (``@sergio``); a glyph's box is square. The reader's second choice is no
    answer here: it is text at 0.96 and the rest share what is left."""
    boxes = np.asarray([e.bbox for e in elements], dtype=np.float64).reshape(-1, 4)
    width, height = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    aspect = width / np.maximum(height, 1.0)
    blank = np.asarray([e.source == DETECTOR_SOURCE and not e.text for e in elements], dtype=bool)
    glyph = (
        blank
        & (reading.type_index == TEXT_INDEX)
        & (np.maximum(width, height) <= GLYPH_SIDE)
        & (aspect >= GLYPH_ASPECT[0])
        & (aspect <= GLYPH_ASPECT[1])
    )
    if not glyph.any():
        return reading
    own = np.asarray([TYPES.index(e.type) for e in elements], dtype=np.int64)  # regions are never read
    return retyped_reading(reading, glyph, own)


def type_indices(*types: ElementType) -> npt.NDArray[np.int64]:
    """The reader's class indices of ``types``."""
    return np.asarray([TYPES.index(t) for t in types], dtype=np.int64)


COLUMN_TYPE_INDICES = type_indices(ElementType.MENU_ITEM, ElementType.LIST_ITEM)
"""The types a column gives its rows: a menu's items, a list's rows."""
COLUMN_MEMBER_INDICES = type_indices(
    ElementType.MENU_ITEM,
    ElementType.LIST_ITEM,
    ElementType.TEXT,
    ElementType.INPUT,
    ElementType.BUTTON,
    ElementType.LINK,
)
"""The types the reader may have given a row that the column's type replaces (not a dropdown, an icon or a
picture: a property panel's stacked dropdowns stay dropdowns)."""
TAB_INDICES = type_indices(ElementType.TAB)
"""The type a row of boxes gives its items: tabs."""
TAB_MEMBER_INDICES = type_indices(
    ElementType.TAB, ElementType.BUTTON, ElementType.LINK, ElementType.TEXT, ElementType.LIST_ITEM
)
"""The types the reader may have given an item that the row's tab replaces."""
TOOLBAR_INDICES = type_indices(ElementType.BUTTON)
"""The type a row of buttons gives its bare glyphs: buttons (a toolbar)."""
TOOLBAR_MEMBER_INDICES = type_indices(ElementType.BUTTON, ElementType.ICON)
"""The types of a toolbar's items: the buttons, and the glyphs the reader took for bare icons."""


def grouped_types(
    elements: Sequence[Element],
    reading: Reading,
    groups_of: Callable[[npt.NDArray[np.float64]], npt.NDArray[np.int64]],
    group_types: npt.NDArray[np.int64],
    member_types: npt.NDArray[np.int64],
    retyped_types: npt.NDArray[np.int64] | None = None,
) -> Reading:
    """``reading`` with the detector boxes of each group (``groups_of`` their boxes) typed alike: where the
    type whose probabilities, summed over the members the reader gave one of ``member_types``, are
    highest is one of ``group_types``, those members take it (only those given one of ``retyped_types``
    when set)."""
    if reading.type_probability is None or len(elements) < COLUMN_ROWS:
        return reading
    controls = np.asarray([e.source == DETECTOR_SOURCE and not is_mark(e) for e in elements], dtype=bool)
    boxes = boxes_of(elements)
    groups = np.full(len(elements), -1, dtype=np.int64)
    groups[controls] = groups_of(boxes[controls])
    members = (groups >= 0) & np.isin(reading.type_index, member_types)
    if not members.any():
        return reading
    _, group = np.unique(groups[members], return_inverse=True)
    summed = np.zeros((group.max() + 1, reading.type_probability.shape[1]), dtype=np.float64)
    np.add.at(summed, group, reading.type_probability[members])
    consensus = summed.argmax(axis=1)[group]
    taken = np.isin(consensus, group_types)
    if retyped_types is not None:
        taken &= np.isin(reading.type_index[members], retyped_types)
    if not taken.any():
        return reading
    retyped = np.flatnonzero(members)[taken]
    index = reading.type_index.copy()
    index[retyped] = consensus[taken]
    confidence = reading.type_confidence.copy()
    confidence[retyped] = reading.type_probability[retyped, index[retyped]]
    return Reading(index, confidence, reading.state_probability, reading.type_probability)


def column_types(elements: Sequence[Element], reading: Reading) -> Reading:
    """``reading`` with the detector boxes of a column (:func:`column_groups`) typed alike: where the type
    whose probabilities, summed over the column's rows, are highest is a menu item or a list row, every row
    the reader called a menu item, a list row, text, an input, a button or a link takes it. A menu's or a
    list's rows are one kind of control; the reader, seeing each alone, called three of a browser's context
    menu items inputs and two text. Measured in ``docs/ARCHITECTURE.md`` (the reader)."""
    return grouped_types(elements, reading, column_groups, COLUMN_TYPE_INDICES, COLUMN_MEMBER_INDICES)


LIST_FIELD_INDICES = type_indices(ElementType.INPUT)
"""The types :func:`list_types` replaces: a framed row read as a field."""


def list_types(elements: Sequence[Element], reading: Reading) -> Reading:
    """``reading`` with the rows of a list whose rows touch (:func:`.alignment.list_groups`: one and two
    lines high) that the reader called inputs typed as the list's other rows, where those are list rows or
    menu items: the reader, seeing each alone, took a list's selected row, framed, for a field. Only
    inputs: a table's header touches its first row too, and stays a header."""
    return grouped_types(
        elements, reading, list_groups, COLUMN_TYPE_INDICES, COLUMN_MEMBER_INDICES, LIST_FIELD_INDICES
    )


def tab_types(elements: Sequence[Element], reading: Reading) -> Reading:
    """``reading`` with the detector boxes of a row (:func:`row_groups`) typed tabs where their summed type
    is a tab, each that the reader called a tab, a button, a link, text or a list row (a category bar's
    items, some read as buttons). Measured in ``docs/ARCHITECTURE.md`` (the reader)."""
    return grouped_types(elements, reading, row_groups, TAB_INDICES, TAB_MEMBER_INDICES)


def toolbar_types(elements: Sequence[Element], reading: Reading) -> Reading:
    """``reading`` with the icons of a row (:func:`row_groups`) typed buttons where the row's summed type is
    a button: a toolbar's glyphs are its buttons, and the reader, seeing each alone, called some of a word
    processor's toolbar buttons icons beside their like read as buttons."""
    return grouped_types(elements, reading, row_groups, TOOLBAR_INDICES, TOOLBAR_MEMBER_INDICES)


PARAGRAPH_GAP = 0.25
"""Lines of prose follow one another at most this many heights apart (OCR's boxes nearly touch; a menu's or
a list's rows lie further apart)."""
PARAGRAPH_WORDS = 3
"""A paragraph's lines (at least :data:`COLUMN_ROWS`) have at least this many words each ..."""
PARAGRAPH_CHARS = 30
"""... and this many characters on average."""
PARAGRAPH_MEMBER_INDICES = type_indices(
    ElementType.BUTTON, ElementType.LIST_ITEM, ElementType.MENU_ITEM, ElementType.INPUT, ElementType.TAB
)
"""The types the reader may have given a paragraph's line that become text (a link keeps its type)."""


def paragraph_lines(elements: Sequence[Element]) -> npt.NDArray[np.bool_]:
    """Which elements are lines of a paragraph: free OCR lines of prose (:data:`PARAGRAPH_WORDS`), left
    aligned, stacked :data:`PARAGRAPH_GAP` apart, at least :data:`COLUMN_ROWS` of them with long lines
    (:data:`PARAGRAPH_CHARS`)."""
    texts = [e.text or "" for e in elements]
    prose = np.asarray(
        [
            e.source == "ocr" and len(text.split()) >= PARAGRAPH_WORDS
            for e, text in zip(elements, texts, strict=True)
        ],
        dtype=bool,
    )
    lines = np.zeros(len(elements), dtype=bool)
    if prose.sum() < COLUMN_ROWS:
        return lines
    index = np.flatnonzero(prose)
    boxes = boxes_of([elements[i] for i in index.tolist()])
    groups = column_groups(boxes, ragged=True, max_gap=PARAGRAPH_GAP)
    grouped = groups >= 0
    if not grouped.any():
        return lines
    lengths = np.asarray([len(texts[i]) for i in index], dtype=np.float64)
    mean = np.bincount(groups[grouped], lengths[grouped]) / np.maximum(np.bincount(groups[grouped]), 1)
    lines[index[grouped]] = mean[groups[grouped]] >= PARAGRAPH_CHARS
    return lines


def paragraph_types(elements: Sequence[Element], reading: Reading) -> Reading:
    """``reading`` with the lines of a paragraph (:func:`paragraph_lines`) that it called controls
    (:data:`PARAGRAPH_MEMBER_INDICES`) typed text: a document's selected lines, on a highlight, read as
    list rows and buttons."""
    retyped = np.isin(reading.type_index, PARAGRAPH_MEMBER_INDICES)
    if not retyped.any():
        return reading
    retyped &= paragraph_lines(elements)
    if not retyped.any():
        return reading
    return retyped_reading(reading, retyped, TEXT_INDEX)


LABEL_MEMBER_INDICES = type_indices(
    ElementType.TAB, ElementType.BUTTON, ElementType.LIST_ITEM, ElementType.MENU_ITEM, ElementType.LINK
)
"""The types the reader may have given a form's label that become text."""
LABEL_ENDINGS = (":", "\uff1a")
"""A text ending in a colon (ASCII or full-width) is a form label (``Username:``, ``Font size:``) ..."""
LABEL_WORDS = 3
"""... of at most this many words and no comma (a navigation line's link read with the next label,
``Structures, Up:``, is no label)."""


def is_form_label(text: str) -> bool:
    """Whether a text reads as a form field's label (:data:`LABEL_ENDINGS`, :data:`LABEL_WORDS`)."""
    stripped = text.strip()
    return (
        stripped.endswith(LABEL_ENDINGS)
        and len(stripped.split()) <= LABEL_WORDS
        and not any(mark in stripped for mark in (",", "\uff0c"))
    )


def label_types(elements: Sequence[Element], reading: Reading) -> Reading:
    """``reading`` with each form label (its text ends in :data:`LABEL_ENDINGS`) that it called a tab, a
    button, a list row, a menu item or a link typed text: a settings form's labels, in a row with their
    fields, were read as tabs."""
    labels = np.asarray([is_form_label(e.text or "") for e in elements], dtype=bool)
    retyped = labels & np.isin(reading.type_index, LABEL_MEMBER_INDICES)
    if not retyped.any():
        return reading
    return retyped_reading(reading, retyped, TEXT_INDEX)


SELECTED = STATES.index("selected")
CURRENT_TAB_FLOOR = 0.005  # the surest tab of a row with none selected is the current one from this chance
CURRENT_TAB_MARGIN = 3.0  # when it is this many times the next surest tab's


def current_tabs(elements: Sequence[Element], reading: Reading) -> Reading:
    """``reading`` with one tab of each row of tabs (:func:`row_groups`) selected where the reader selected
    none: a tab bar shows its current tab, and the reader, seeing each tab alone, can miss the styling that
    sets it apart. Only a clear favourite is taken (:data:`CURRENT_TAB_FLOOR`, :data:`CURRENT_TAB_MARGIN`)."""
    tabs = np.flatnonzero(np.isin(reading.type_index, TAB_INDICES))
    if len(tabs) < COLUMN_ROWS:
        return reading
    rows = row_groups(boxes_of([elements[i] for i in tabs.tolist()]))
    tabs, rows = tabs[rows >= 0], rows[rows >= 0]
    if not len(tabs):
        return reading
    chance = reading.state_probability[tabs, SELECTED].astype(np.float64)
    order = np.lexsort((-chance, rows))  # each row's tabs, surest first
    first = np.r_[True, rows[order][1:] != rows[order][:-1]]
    best, runner_up = order[first], np.r_[order[1:], order[:1]][first]  # every row holds 3 tabs or more
    taken = (
        (chance[best] < 0.5)  # the surest is not selected: none of its row is
        & (chance[best] >= CURRENT_TAB_FLOOR)
        & (chance[best] >= CURRENT_TAB_MARGIN * chance[runner_up])
    )
    if not taken.any():
        return reading
    states = reading.state_probability.copy()
    states[tabs[best[taken]], SELECTED] = 0.5
    return Reading(reading.type_index, reading.type_confidence, states, reading.type_probability)


def header_types(elements: Sequence[Element], reading: Reading) -> Reading:
    """``reading`` with the sections of a table's header row (:func:`header_sections`, detector boxes only)
    typed buttons: a file list's ``Name`` and ``Size`` sort it, and the reader, reading each alone, calls
    them text or list rows. Measured in ``docs/ARCHITECTURE.md`` (the reader)."""
    controls = np.flatnonzero([e.source == DETECTOR_SOURCE and not is_mark(e) for e in elements])
    if not len(controls):
        return reading
    types = [TYPES[i] for i in reading.type_index[controls].tolist()]
    sections = np.zeros(len(elements), dtype=bool)
    sections[controls] = header_sections(boxes_of([elements[i] for i in controls.tolist()]), types)
    if not sections.any():
        return reading
    return retyped_reading(reading, sections, TYPES.index(ElementType.BUTTON))


def apply_reading(elements: Sequence[Element], reading: Reading, threshold: float) -> list[Element]:
    """The elements with the reader's type (when confident enough) and the states that apply to it."""
    reading = list_types(elements, column_types(elements, reading))
    reading = toolbar_types(elements, tab_types(elements, reading))
    reading = header_types(elements, reading)
    reading = textless_glyphs(elements, reading)
    reading = current_tabs(elements, label_types(elements, paragraph_types(elements, reading)))
    out = []
    flags = reading.state_probability >= 0.5
    for element, index, confidence, set_flags in zip(
        elements, reading.type_index.tolist(), reading.type_confidence.tolist(), flags.tolist(), strict=True
    ):
        if confidence < threshold:
            out.append(element)
            continue
        new_type = TYPES[index]
        if keeps_its_mark(element, new_type, confidence):
            index = TYPES.index(element.type)
            new_type = element.type
        applies = APPLIES[index]
        values: list[bool | None] = [bool(f) if a else None for f, a in zip(set_flags, applies, strict=True)]
        checked, selected, focused, disabled = values
        if new_type is element.type and element.state.checked is not None:
            checked = element.state.checked
        state = ElementState(
            checked=checked,
            selected=selected,
            focused=focused,
            disabled=disabled,
            highlighted=element.state.highlighted,
        )
        out.append(
            element.replace(
                type=new_type,
                state=state,
                interactive=None,
                source=element.source + SOURCE_TAG,
            )
        )
    return out


DISABLED = STATES.index("disabled")
DIM_SHARE = 0.75  # a disabled control's ink contrast is at most this share of its enabled neighbours'


def ink_contrast(image: RGBImage, box: tuple[int, int, int, int]) -> float:
    """The spread of grey levels inside ``box`` (95th minus 5th percentile): how dark the ink stands."""
    x1, y1, x2, y2 = box
    crop = image[max(y1, 0) : max(y2, 0), max(x1, 0) : max(x2, 0)]
    if crop.size < 27:
        return 0.0
    low, high = np.percentile(crop.mean(axis=2), [5, 95])
    return float(high - low)


@functools.lru_cache(maxsize=4)
def box_groups(boxes: tuple[tuple[int, int, int, int], ...]) -> tuple[npt.NDArray[np.int64], ...]:
    """The rows and the columns (:func:`row_groups`, :func:`column_groups`) of ``boxes``; cached, as
    :func:`relative_disabled` and :func:`disabled_groups` ask for those of the same boxes one after the
    other (the elements with a ``disabled`` state: clearing a flag keeps its element stated)."""
    array = as_boxes(boxes)
    return row_groups(array), column_groups(array)


def stated_groups(elements: Sequence[Element]) -> tuple[npt.NDArray[np.int64], ...]:
    """The rows and the columns of the elements that have a ``disabled`` state, indexed among those."""
    return box_groups(tuple(e.bbox for e in elements if e.state.disabled is not None))


def with_disabled_cleared(elements: Sequence[Element], cleared: set[int]) -> list[Element]:
    """``elements`` with ``disabled`` set false on those at the ``cleared`` indices."""
    return [
        e.replace(state=dataclasses.replace(e.state, disabled=False)) if i in cleared else e
        for i, e in enumerate(elements)
    ]


def relative_disabled(image: RGBImage, elements: Sequence[Element]) -> list[Element]:
    """The elements with ``disabled`` cleared where a control in a row or a column of its kind
    (:func:`row_groups`, :func:`column_groups`) is drawn no dimmer than its enabled neighbours: its ink's
    contrast at least :data:`DIM_SHARE` of theirs (the median). The reader judges each control alone, and
    on real desktops it called a grey theme's menu bar items, URL fields and unselected browser tabs
    disabled (137 flags on the 60 ScreenAgent desktops, median probability 0.92, most of them wrong);
    a disabled control is dimmer than the enabled ones beside it (`Next >` greyed beside `Cancel`)."""
    stated = [i for i, e in enumerate(elements) if e.state.disabled is not None]
    flagged = np.asarray([bool(elements[i].state.disabled) for i in stated], dtype=bool)
    if len(stated) < COLUMN_ROWS or not flagged.any():
        return list(elements)
    cleared: set[int] = set()
    contrast: dict[int, float] = {}
    for groups in stated_groups(elements):
        for label in np.unique(groups[groups >= 0]).tolist():
            members = groups == label
            if flagged[members].all() or not flagged[members].any():
                continue
            for i in np.flatnonzero(members).tolist():  # a few mixed groups a screen, each measured once
                if i not in contrast:
                    contrast[i] = ink_contrast(image, elements[stated[i]].bbox)
            enabled = float(np.median([contrast[i] for i in np.flatnonzero(members & ~flagged).tolist()]))
            cleared |= {
                stated[i]
                for i in np.flatnonzero(members & flagged).tolist()
                if contrast[i] >= DIM_SHARE * enabled
            }
    return with_disabled_cleared(elements, cleared)


SCREEN_DIM_SHARE = 0.6  # a disabled control's ink contrast is at most this share of its kind's on the screen
SCREEN_PEERS = 3  # the fewest enabled elements of its type that make a screen's norm
MAX_PEERS = 32  # enabled elements measured for that norm at most (evenly spaced): bounded cost
MIN_INK = 24.0  # ... of those that show something: blank cells and empty rows make no norm


PANEL_SHARE = 0.5  # a row or column at least this much disabled is a disabled panel or table


def disabled_groups(elements: Sequence[Element]) -> set[int]:
    """The elements of rows and columns (:func:`row_groups`, :func:`column_groups`, among the elements with a
    ``disabled`` state) of which at least :data:`PANEL_SHARE` are disabled: a disabled panel or table (the
    reader misses some of its cells), which speaks for each."""
    stated = [i for i, e in enumerate(elements) if e.state.disabled is not None]
    if len(stated) < COLUMN_ROWS:
        return set()
    flagged = np.asarray([bool(elements[i].state.disabled) for i in stated], dtype=bool)
    whole: set[int] = set()
    for groups in stated_groups(elements):
        for label in np.unique(groups[groups >= 0]).tolist():
            members = np.flatnonzero(groups == label)
            if flagged[members].mean() >= PANEL_SHARE:
                whole |= {stated[i] for i in members.tolist()}
    return whole


def paler_than_its_kind(image: RGBImage, elements: Sequence[Element]) -> list[Element]:
    """The elements with ``disabled`` cleared where a control stands out no paler than the screen's enabled
    elements of its type: its ink's contrast above :data:`SCREEN_DIM_SHARE` of theirs (the median over
    those that show something, :data:`MIN_INK`, from :data:`SCREEN_PEERS` of them or more).
    :func:`relative_disabled` compares a control with its row or column; this, one with no such group (a
    status bar's ``100%``, an address bar's URL, a search field's placeholder), with its kind on the whole
    screen; a row or column mostly disabled (a disabled table, :func:`disabled_groups`) is left as it is. On
    the 60 ScreenAgent desktops the reader's flags that were right (a greyed redo, paste or back arrow, a
    greyed send button) stood at 0.22-0.57 of their kind's contrast, most wrong ones at 0.6-1.7
    (``docs/ARCHITECTURE.md``, the reader)."""
    flagged = [i for i, e in enumerate(elements) if e.state.disabled]
    if not flagged:
        return list(elements)
    panels = disabled_groups(elements)
    flagged = [i for i in flagged if i not in panels]
    cleared: set[int] = set()
    for kind in {elements[i].type for i in flagged}:
        peers = [i for i, e in enumerate(elements) if e.type is kind and e.state.disabled is False]
        if len(peers) < SCREEN_PEERS:
            continue
        sample = peers[:: -(-len(peers) // MAX_PEERS)]  # a few dozen crops a screen at most
        inked = [c for c in (ink_contrast(image, elements[i].bbox) for i in sample) if c >= MIN_INK]
        if len(inked) < SCREEN_PEERS:
            continue
        norm = float(np.median(inked))
        cleared |= {
            i
            for i in flagged
            if elements[i].type is kind and ink_contrast(image, elements[i].bbox) > SCREEN_DIM_SHARE * norm
        }
    return with_disabled_cleared(elements, cleared)


FIELD_TYPES = frozenset({ElementType.INPUT, ElementType.TEXTAREA})


def enabled_fields(elements: Sequence[Element]) -> list[Element]:
    """The elements with ``disabled`` cleared on each field (an input or a text area) outside a disabled
    panel or table (:func:`disabled_groups`): a field's pale text is most often its placeholder or a
    browser's pale ``https://``, which the reader reads as a disabled control's. On the data engine's test
    split the reader found 1 of its 19 disabled fields and flagged 2 enabled ones; on the 60 ScreenAgent
    desktops 5 of its 40 flags were on fields (a search box's query, blank cells of a status bar)."""
    flagged = [i for i, e in enumerate(elements) if e.type in FIELD_TYPES and e.state.disabled]
    if not flagged:
        return list(elements)
    panels = disabled_groups(elements)
    cleared = {i for i in flagged if i not in panels}
    return with_disabled_cleared(elements, cleared)


def with_dimmed_answers(
    reading: Reading, rows: npt.NDArray[np.int64], disabled: npt.NDArray[np.float32]
) -> Reading:
    """``reading`` with the ``rows``' disabled probability raised to the disabled-state model's chance where
    that is higher: either model's "disabled" stands (the reader's view sees a greyed-out panel around a
    control; the dimmed view sees the control's own faded contrast)."""
    states = reading.state_probability.copy()
    states[rows, DISABLED] = np.maximum(states[rows, DISABLED], disabled)
    return Reading(reading.type_index, reading.type_confidence, states, reading.type_probability)


NOT_CHECKABLE = np.array([t not in CHECKABLE for t in TYPES])
CHECKABLE_INDEX = np.flatnonzero(~NOT_CHECKABLE)
CHECKED = STATES.index("checked")
NEAR_TIE = 0.8
"""An element whose best checkable type the reader scores at this share of its answer or more is shown to
the check model too."""
PROMOTE_INDICATOR = 0.9
"""At this chance of an indicator or more, such an element takes a checkable type (a mark its own).

Measured with the shipped models (2026-11-26): the data engine's test split, checked 0.945 -> 0.950 and
type 0.867 -> 0.868; MiniWoB++ seeds 1000-1099 through `full`, checked 0.974 -> 1.000 (a radio whose
detector box the reader scored button 0.198, radio 0.194); on 30 real desktops one more real checkbox."""
ROW_PROMOTE_INDICATOR = 0.95
"""At this chance of an indicator or more, a detector box with words that the reader called a list row, a
button, a field, text, a link or a dropdown takes a checkable type: a form's check box or radio that the
detector boxed across the form's row, which the reader, seeing a row, reads as one (Qt's settings forms;
LibreOffice's `Master Objects`, GIMP's `Allow growing`). Not on phone-shaped screens, where a list row's
leading icon or avatar reads as an indicator (`phone_real` test apps' type 0.761 -> 0.739 with them).
Measured in ``docs/ARCHITECTURE.md``."""
LABELLED_ROW_INDICES = type_indices(
    ElementType.LIST_ITEM,
    ElementType.BUTTON,
    ElementType.INPUT,
    ElementType.TEXT,
    ElementType.LINK,
    ElementType.DROPDOWN,
)
"""The types a checkable with its label, boxed as a row, is read as."""
MIN_LABEL_LETTERS = 2
INDICATOR_KIND_MIN = 0.5
"""The reader's probability of a checkable type, reading an indicator alone, that types its row (a desktop
theme's filled check box reads as a button or an icon: then the row's reading stands)."""
SURE_LINK = 0.9
"""A row the reader is this sure is a link is one (a web page's nav links with their icons)."""
ROW_KIND_MIN = 0.1
"""Below this probability of every checkable type in the reader's reading of a row, a row with an indicator
is a check box (checkboxes outnumber radios; LibreOffice's blue check boxes read radio at 0.01-0.05)."""
NO_INDICATOR = 0.1
"""Below this chance of an indicator (check model), a checkable the reader answered takes its next type.

Low on purpose: the model is unsure of some real styles (Material 2's thin switch track, 0.3-0.4 for the
model trained before the shipped one). On the data engine's test screens, with the shipped `ui-checks`, 0.1
cuts the reader's wrong checkables from 85 to 29 and loses none of the 741 right ones."""


def without_checkables(reading: Reading, rows: npt.NDArray[np.int64]) -> Reading:
    """``reading`` with the ``rows`` given their most likely type that is not checkable."""
    if reading.type_probability is None or not len(rows):
        return reading
    index, confidence = reading.type_index.copy(), reading.type_confidence.copy()
    others = np.where(NOT_CHECKABLE, reading.type_probability[rows], -1.0)
    index[rows] = others.argmax(axis=1)
    confidence[rows] = others.max(axis=1)
    return Reading(index, confidence, reading.state_probability, reading.type_probability)


def unmarked(elements: Sequence[Element], rows: npt.NDArray[np.int64]) -> list[Element]:
    """``elements`` with the segmenter's marks among ``rows`` no longer marks (their state cleared), so the
    reader's type decides: the check model sees no indicator in them.

    A mark keeps its type against a reader that is not sure (:func:`keeps_its_mark`), but the rules take
    any small filled square for a ticked box: on 30 real desktops, 12 of 23 checkables were toolbar icons
    and favicons read so, and the check model cleared all 12 and kept the 11 real ones (2026-11-26).
    """
    out = list(elements)
    for row in rows.tolist():
        if is_mark(out[row]):
            out[row] = out[row].replace(state=ElementState())
    return out


def labelled_rows(elements: Sequence[Element], reading: Reading) -> npt.NDArray[np.bool_]:
    """Detector boxes with words (two letters or more) that the reader called a row, a button, a field,
    text, a link or a dropdown: a checkable boxed with its label reads as one of these."""
    worded = np.asarray(
        [
            e.source == DETECTOR_SOURCE and sum(c.isalpha() for c in e.text or "") >= MIN_LABEL_LETTERS
            for e in elements
        ],
        dtype=bool,
    )
    sure_link = (reading.type_index == TYPES.index(ElementType.LINK)) & (reading.type_confidence >= SURE_LINK)
    return worded & np.isin(reading.type_index, LABELLED_ROW_INDICES) & ~sure_link


def row_kinds(reading: Reading, rows: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """For labelled ``rows`` that may take a checkable type: the check box's type index where the reader,
    which saw a row, gives every checkable type less than :data:`ROW_KIND_MIN`, else -1 (its own best)."""
    if reading.type_probability is None:
        return np.full(len(rows), -1, dtype=np.int64)
    best = reading.type_probability[rows][:, CHECKABLE_INDEX].max(axis=1)
    return np.where(best < ROW_KIND_MIN, TYPES.index(ElementType.CHECKBOX), -1).astype(np.int64)


def with_check_answers(
    reading: Reading,
    rows: npt.NDArray[np.int64],
    on: npt.NDArray[np.float32],
    indicator: npt.NDArray[np.float32],
    own_types: npt.NDArray[np.int64] | None = None,
    promote_at: float | npt.NDArray[np.float32] = PROMOTE_INDICATOR,
) -> Reading:
    """``reading`` with the check model's answers for ``rows``: its chance of "on" as their checked
    probability, their next type that is not checkable where it sees no indicator, and a checkable type
    where it is sure of one, its chance at ``promote_at`` or more (:func:`promoted`; ``own_types``: a
    segmenter mark's own type index, else -1)."""
    if not len(rows):
        return reading
    states = reading.state_probability.copy()
    states[rows, CHECKED] = on
    answered = Reading(reading.type_index, reading.type_confidence, states, reading.type_probability)
    sure = indicator >= promote_at
    own = np.full(len(rows), -1, dtype=np.int64) if own_types is None else own_types
    answered = promoted(answered, rows[sure], own[sure])
    return without_checkables(answered, rows[indicator < NO_INDICATOR])


def near_checkable(reading: Reading) -> npt.NDArray[np.bool_]:
    """Elements whose most likely checkable type comes within :data:`NEAR_TIE` of the reader's answer."""
    if reading.type_probability is None:
        return np.zeros(len(reading.type_index), dtype=bool)
    best = reading.type_probability[:, CHECKABLE_INDEX].max(axis=1)
    return best >= NEAR_TIE * reading.type_confidence


def promoted(reading: Reading, rows: npt.NDArray[np.int64], own_types: npt.NDArray[np.int64]) -> Reading:
    """``reading`` with the ``rows`` (the check model sure of an indicator) given a checkable type where
    the reader answered another: a segmenter mark's own (``own_types`` >= 0), else the reader's most
    likely checkable one."""
    if reading.type_probability is None or not len(rows):
        return reading
    index, confidence = reading.type_index.copy(), reading.type_confidence.copy()
    wrong = NOT_CHECKABLE[index[rows]]
    rows, own_types = rows[wrong], own_types[wrong]
    checkable = np.where(NOT_CHECKABLE, -1.0, reading.type_probability[rows])
    chosen = np.where(own_types >= 0, own_types, checkable.argmax(axis=1))
    index[rows] = chosen
    confidence[rows] = reading.type_probability[rows, chosen]
    return Reading(index, confidence, reading.state_probability, reading.type_probability)


@register("attributes", "reader")
class ReaderAttributeStage(Backend):
    """Type and state of every element (not regions) from the CPU reader, one ONNX call per batch."""

    config = ("attributes", "device")

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.spec = reader_spec(settings)
        self.checks = CheckReader.configured(settings)
        self.dimmed = DimmedReader.configured(settings)

    @classmethod
    def available(cls, settings: Settings) -> str | None:
        try:
            reader_spec(settings)
        except StageUnavailable as exc:
            return str(exc)
        return None

    def model_version(self) -> str | None:
        version = self.spec.model.version_tag()
        if version is None:
            return None
        helpers = [m.spec.version_tag() for m in (self.checks, self.dimmed) if m is not None]
        return "+".join([version, *(h for h in helpers if h)])

    def load(self) -> Any:
        """The ONNX Runtime session (its file checked against the manifest's sha256), once per process."""
        return verified_session(self.spec.model, resolve_device(self.settings) == "cuda")

    def read_picked(
        self, images: Sequence[RGBImage], parses: Sequence[ScreenParse], picks: Sequence[Sequence[int]]
    ) -> Reading:
        """The reader's answers for the picked elements of each parse, in order, in one batched pass."""
        views: list[RGBImage] = []
        features: list[npt.NDArray[np.float32]] = []
        for image, parse, picked in zip(images, parses, picks, strict=True):
            boxes = picked_boxes(parse, picked)
            views.append(reader_views(image, boxes, self.spec.geometry))
            features.append(box_features(boxes, parse.width, parse.height))
        return read(
            self.load(), np.concatenate(views), np.concatenate(features), self.settings.attributes.batch_size
        )

    def run(self, images: Sequence[RGBImage], parses: Sequence[ScreenParse]) -> list[ScreenParse]:
        return self.run_reusing(images, parses, [None] * len(parses), [None] * len(parses))[0]

    def run_reusing(
        self,
        images: Sequence[RGBImage],
        parses: Sequence[ScreenParse],
        previous: Sequence[object | None],
        changes: Sequence[Changes | None],
    ) -> tuple[list[ScreenParse], list[object | None]]:
        """``run``, taking the reader's previous probabilities for an element with the same box whose
        context window lies on unchanged tiles (its view and box features are then the same); only the
        other elements are read. The check and dimmed models, which are cheap, run as in ``run``."""
        picks = [[i for i, e in enumerate(p.elements) if is_readable(e)] for p in parses]
        columns = len(TYPES) + len(STATES)
        boxes = [picked_boxes(parse, picked) for parse, picked in zip(parses, picks, strict=True)]
        tables, reusable = [], []
        for image, parse, box, memo, change in zip(images, parses, boxes, previous, changes, strict=True):
            same = np.full(len(box), -1, dtype=np.int64)
            if isinstance(memo, RowMemo) and change is not None and memo.rows.shape[1] == columns:
                windows = context_windows(box, parse.width, parse.height, self.spec.geometry)
                same = memo.match(box, windows, image.shape[:2], change)
            table = np.zeros((len(box), columns), dtype=np.float32)
            if isinstance(memo, RowMemo):
                table[same >= 0] = memo.rows[same[same >= 0]]
            tables.append(table)
            reusable.append(same >= 0)
        fresh_picks = [
            [i for i, kept in zip(picked, kept_rows.tolist(), strict=True) if not kept]
            for picked, kept_rows in zip(picks, reusable, strict=True)
        ]
        if sum(len(p) for p in fresh_picks):
            fresh = self.read_picked(images, parses, fresh_picks)
            assert fresh.type_probability is not None  # read() keeps every type's probability
            read_rows = np.concatenate([fresh.type_probability, fresh.state_probability], axis=1)
            start = 0
            for table, kept_rows in zip(tables, reusable, strict=True):
                count = int((~kept_rows).sum())
                table[~kept_rows] = read_rows[start : start + count]
                start += count
        memos: list[object | None] = [
            RowMemo(box, table, image.shape[:2], reused=int(kept_rows.sum()))
            for image, box, table, kept_rows in zip(images, boxes, tables, reusable, strict=True)
        ]
        if not sum(len(p) for p in picks):
            return list(parses), memos
        whole = np.concatenate(tables)
        reading = reading_of(whole[:, : len(TYPES)], whole[:, len(TYPES) :])
        return self.answered(images, parses, picks, reading), memos

    def answered(
        self,
        images: Sequence[RGBImage],
        parses: Sequence[ScreenParse],
        picks: Sequence[Sequence[int]],
        reading: Reading,
    ) -> list[ScreenParse]:
        """The parses with the picked elements typed and stated from the reader's ``reading`` (the check
        and dimmed models consulted as configured)."""
        flat = [parse.elements[i] for parse, picked in zip(parses, picks, strict=True) for i in picked]
        rows, on, indicator, from_rows = self.read_checks(images, picks, flat, reading)
        own = np.array(
            [TYPES.index(flat[r].type) if is_mark(flat[r]) else -1 for r in rows.tolist()], dtype=np.int64
        )
        own[from_rows] = row_kinds(reading, rows[from_rows])
        promote_at = np.where(from_rows, ROW_PROMOTE_INDICATOR, PROMOTE_INDICATOR).astype(np.float32)
        flat = unmarked(flat, rows[indicator < NO_INDICATOR])
        reading = with_check_answers(reading, rows, on, indicator, own, promote_at)
        dimmed_rows, disabled = self.read_dimmed(images, picks, flat, reading)
        reading = with_dimmed_answers(reading, dimmed_rows, disabled)
        out = []
        start = 0
        for image, parse, picked in zip(images, parses, picks, strict=True):
            elements = list(parse.elements)
            read_elements = paler_than_its_kind(
                image,
                relative_disabled(
                    image,
                    apply_reading(
                        flat[start : start + len(picked)],
                        reading.part(slice(start, start + len(picked))),
                        self.settings.attributes.min_confidence,
                    ),
                ),
            )
            read_elements = self.checkable_kinds(
                image, fit_labels_to_ink(image, read_elements), read_elements
            )
            read_elements = enabled_fields(ink_links(image, fields(image, read_elements)))
            for i, element in zip(picked, read_elements, strict=True):
                elements[i] = element
            start += len(picked)
            out.append(parse.with_elements(elements))
        return out

    def checkable_kinds(
        self, image: RGBImage, elements: Sequence[Element], untrimmed: Sequence[Element]
    ) -> list[Element]:
        """``elements`` with each check box or radio whose box :func:`.ink_fit.fit_labels_to_ink` trimmed
        (its ``untrimmed`` box differs) typed by the reader's reading of its indicator alone (the first
        drawing from its left, :func:`.ink_fit.indicator_box`), its most likely checkable type: read across
        a form's row, a web page's check box came out a radio; read with its label, text (0.95); alone, a
        check box (0.92). Only a reading of :data:`INDICATOR_KIND_MIN` or more counts."""
        trimmed, indicators = [], []
        for i, (new, old) in enumerate(zip(elements, untrimmed, strict=True)):
            indicator = indicator_box(image, new.bbox) if new.bbox != old.bbox else None
            if indicator is not None:
                trimmed.append(i)
                indicators.append(Element(indicator, ElementType.TEXT, source=DETECTOR_SOURCE))
        if not trimmed:
            return list(elements)
        height, width = image.shape[:2]
        alone = ScreenParse(width=width, height=height, elements=indicators)
        reread = self.read_picked([image], [alone], [list(range(len(trimmed)))])
        assert reread.type_probability is not None  # read() keeps every type's probability
        checkable = np.where(NOT_CHECKABLE, -1.0, reread.type_probability)
        kinds, sure = checkable.argmax(axis=1), checkable.max(axis=1) >= INDICATOR_KIND_MIN
        out = list(elements)
        for i, kind in zip(np.asarray(trimmed)[sure].tolist(), kinds[sure].tolist(), strict=True):
            out[i] = out[i].replace(type=TYPES[kind])
        return out

    def read_dimmed(
        self,
        images: Sequence[RGBImage],
        picks: Sequence[Sequence[int]],
        flat: Sequence[Element],
        reading: Reading,
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """The disabled-state model on the elements whose answered type can be disabled (one batched
        call): their rows in ``flat`` and the chance that each is disabled."""
        if self.dimmed is None:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        rows = np.flatnonzero(APPLIES[reading.type_index, DISABLED])
        if not len(rows):
            return rows, np.zeros(0, dtype=np.float32)
        owner = np.repeat(np.arange(len(picks)), [len(p) for p in picks])[rows]
        boxes = np.asarray([flat[r].bbox for r in rows.tolist()], dtype=np.int64).reshape(-1, 4)
        size = self.dimmed.height, self.dimmed.width
        views = np.concatenate([dimmed_views(images[k], boxes[owner == k], *size) for k in range(len(picks))])
        return rows, self.dimmed.as_state_probability(self.dimmed.probabilities(self.settings, views))

    def read_checks(
        self,
        images: Sequence[RGBImage],
        picks: Sequence[Sequence[int]],
        flat: Sequence[Element],
        reading: Reading,
    ) -> tuple[
        npt.NDArray[np.int64], npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.bool_]
    ]:
        """The check model on the elements the reader calls checkable or nearly so, on the segmenter's
        marks and on :func:`labelled_rows` (one batched call): their rows in ``flat``, the chance each is on,
        the chance it has an indicator, and which of them are only :func:`labelled_rows` (on screens driven
        by a pointer)."""
        empty = np.zeros(0, dtype=np.float32)
        if self.checks is None:
            return np.zeros(0, dtype=np.int64), empty, empty, np.zeros(0, dtype=bool)
        answered = np.isin(reading.type_index, CHECKABLE_INDEX) & (
            reading.type_confidence >= self.settings.attributes.min_confidence
        )
        marks = np.array([is_mark(e) for e in flat], dtype=bool)
        near = answered | marks | near_checkable(reading)
        pointer_screens = np.asarray([i.shape[0] < PHONE_ASPECT * i.shape[1] for i in images], dtype=bool)
        on_pointer_screen = np.repeat(pointer_screens, [len(p) for p in picks])
        rows = np.flatnonzero(near | (labelled_rows(flat, reading) & on_pointer_screen))
        if not len(rows):
            return rows, empty, empty, np.zeros(0, dtype=bool)
        from_rows = ~near[rows]
        # rows ascend and each image's elements are contiguous in flat: the views come out in rows' order
        owner = np.repeat(np.arange(len(picks)), [len(p) for p in picks])[rows]
        boxes = np.asarray([flat[r].bbox for r in rows.tolist()], dtype=np.int64).reshape(-1, 4)
        side = self.checks.side
        views = np.concatenate([check_views(images[k], boxes[owner == k], side) for k in range(len(picks))])
        on, indicator = self.checks.probabilities(self.settings, views)
        return rows, on, indicator, from_rows
