"""The Qt data-engine source: real widgets rendered offscreen, labelled from the widget tree."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest

pytest.importorskip("PySide6")

from PIL import Image
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QMainWindow,
    QPushButton,
    QRadioButton,
    QSlider,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from detact_service.core import COLOR_NAMES, Element, ElementType
from detact_service.understanding.colors import element_color
from training.data.labels import ScreenLabels
from training.data.sources import create_renderer
from training.data.sources.qt import QtRenderer, load_icon_catalogue

SEEDS = range(8)


@pytest.fixture(scope="module")
def renderer() -> Iterator[QtRenderer]:
    with QtRenderer() as qt:
        yield qt


@pytest.fixture(scope="module")
def screens(renderer: QtRenderer) -> list[tuple[Image.Image, ScreenLabels]]:
    return [renderer.render(seed) for seed in SEEDS]


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _by_text(elements: list[Element], text: str) -> Element:
    matches = [e for e in elements if e.text == text]
    assert len(matches) == 1, (text, matches)
    return matches[0]


def test_registry_creates_qt_renderer() -> None:
    assert isinstance(create_renderer("qt"), QtRenderer)


def test_screens_are_well_formed(screens: list[tuple[Image.Image, ScreenLabels]]) -> None:
    for seed, (image, labels) in zip(SEEDS, screens, strict=True):
        assert image.mode == "RGB"
        assert (labels.width, labels.height) == image.size
        assert labels.width >= 800 and labels.height >= 600
        assert labels.source == "qt" and labels.seed == seed and labels.image == ""
        assert labels.template.startswith("qt/") and labels.template.endswith("/v1")
        assert labels.elements
        for element in labels.elements:
            x1, y1, x2, y2 = element.bbox
            assert 0 <= x1 < x2 <= labels.width and 0 <= y1 < y2 <= labels.height, element
            assert element.color in COLOR_NAMES
            assert element.state.disabled is not None
    types = {e.type for _, labels in screens for e in labels.elements}
    assert {ElementType.BUTTON, ElementType.INPUT, ElementType.TEXT, ElementType.LIST_ITEM} <= types


def test_colours_are_the_runtime_colours(screens: list[tuple[Image.Image, ScreenLabels]]) -> None:
    import numpy as np

    image, labels = screens[0]
    pixels = np.asarray(image)
    assert all(element_color(pixels, e) == e.color for e in labels.elements)


@pytest.fixture(scope="module")
def more_screens(renderer: QtRenderer) -> list[tuple[Image.Image, ScreenLabels]]:
    return [renderer.render(seed) for seed in range(20, 32)]


def test_toolbar_icons_carry_pack_names(more_screens: list[tuple[Image.Image, ScreenLabels]]) -> None:
    names = {icon.name for icon in load_icon_catalogue()}
    assert names, "icon fonts (qtawesome) or icons/index.json missing"
    icons = [e for _, labels in more_screens for e in labels.elements if e.type is ElementType.ICON]
    assert len(icons) >= 5
    assert all(e.icon in names for e in icons)


def test_open_menu_is_drawn_and_labelled(more_screens: list[tuple[Image.Image, ScreenLabels]]) -> None:
    opened = [labels for _, labels in more_screens if labels.meta["menu_open"]]
    assert opened, "no seed in the range opened a menu"
    for labels in opened:
        menu_items = [e for e in labels.elements if e.type is ElementType.MENU_ITEM]
        active = [e for e in menu_items if e.state.selected]
        assert len(active) == 1  # the menu-bar entry whose menu is open
        below = [e for e in menu_items if e.bbox[1] >= active[0].bbox[3]]
        assert below and all(e.text for e in below)
        assert min(e.bbox[0] for e in below) <= active[0].bbox[0] + 8  # opens under its entry


def test_deterministic_per_seed(
    renderer: QtRenderer, screens: list[tuple[Image.Image, ScreenLabels]]
) -> None:
    for seed in (SEEDS[3], SEEDS[0]):  # after other renders, in another order
        image, labels = renderer.render(seed)
        first_image, first_labels = screens[seed]
        assert _png(image) == _png(first_image)
        assert labels == first_labels
    assert _png(screens[0][0]) != _png(screens[1][0])


def test_known_window_is_labelled_from_its_widgets(renderer: QtRenderer) -> None:
    window = QMainWindow()
    window.menuBar().addMenu("&File")
    window.menuBar().addMenu("Edit")
    central = QWidget()
    layout = QVBoxLayout(central)
    check = QCheckBox("Remember me")
    check.setChecked(True)
    unchecked = QCheckBox("Use proxy")
    radio = QRadioButton("Daily")
    radio.setChecked(True)
    disabled = QPushButton("Delete")
    disabled.setEnabled(False)
    ok = QPushButton("&OK")
    edit = QLineEdit("alice@example.com")
    combo = QComboBox()
    combo.addItems(["Small", "Large"])
    combo.setCurrentIndex(1)
    spin = QSpinBox()
    spin.setValue(42)
    spin.setSuffix(" px")
    label = QLabel("Account settings")
    slider = QSlider()
    tabs = QTabWidget()
    tabs.addTab(QWidget(), "General")
    tabs.addTab(QWidget(), "Advanced")
    tabs.setCurrentIndex(1)
    items = QListWidget()
    items.addItems(["report.pdf", "notes.txt", "budget.xlsx"])
    items.setCurrentRow(1)
    for widget in (label, check, unchecked, radio, disabled, ok, edit, combo, spin, slider, tabs, items):
        layout.addWidget(widget)
    window.setCentralWidget(central)
    window.resize(900, 700)
    image, elements = renderer.capture(window, focus=edit)
    window.close()
    window.deleteLater()

    assert image.size == (900, 700)
    for element in elements:
        x1, y1, x2, y2 = element.bbox
        assert 0 <= x1 < x2 <= 900 and 0 <= y1 < y2 <= 700
    assert _by_text(elements, "File").type is ElementType.MENU_ITEM
    assert _by_text(elements, "Edit").type is ElementType.MENU_ITEM
    assert _by_text(elements, "Account settings").type is ElementType.TEXT
    element = _by_text(elements, "Remember me")
    assert element.type is ElementType.CHECKBOX and element.state.checked is True
    assert _by_text(elements, "Use proxy").state.checked is False
    element = _by_text(elements, "Daily")
    assert element.type is ElementType.RADIO and element.state.checked is True
    element = _by_text(elements, "Delete")
    assert element.type is ElementType.BUTTON and element.state.disabled is True
    assert _by_text(elements, "OK").state.disabled is False
    element = _by_text(elements, "alice@example.com")
    assert element.type is ElementType.INPUT and element.state.focused is True
    assert sum(bool(e.state.focused) for e in elements) == 1
    assert _by_text(elements, "Large").type is ElementType.DROPDOWN
    assert _by_text(elements, "42 px").type is ElementType.INPUT
    assert [e.type for e in elements].count(ElementType.SLIDER) == 1
    general, advanced = _by_text(elements, "General"), _by_text(elements, "Advanced")
    assert general.type is advanced.type is ElementType.TAB
    assert advanced.state.selected is True and general.state.selected is False
    assert general.bbox[2] <= advanced.bbox[0]
    rows = [_by_text(elements, t) for t in ("report.pdf", "notes.txt", "budget.xlsx")]
    assert all(r.type is ElementType.LIST_ITEM for r in rows)
    assert [r.state.selected for r in rows] == [False, True, False]
    assert rows[0].bbox[3] <= rows[1].bbox[1]
    # boxes sit on the widgets: the checkbox box is inside the window's central area, left-aligned
    assert _by_text(elements, "Remember me").bbox[0] < 50
