"""Desktop screens from real Qt widgets (PySide6), rendered offscreen.

From a seed, one of a few layout recipes (main window, settings dialog, form dialog, table editor, file
browser) is filled with real widgets in a random style (Fusion or Windows), palette (light, dark), font,
window size and widget states, grabbed with ``QWidget.grab()``, and labelled by walking the widget tree:
each visible leaf widget (or tab, menu-bar entry, list/tree/table cell, header section) becomes one
:class:`~detact_service.core.Element` with its box in window pixels, clipped to its ancestors, its visible
text, type, state and colour (named by the runtime's own
:func:`~detact_service.understanding.colors.element_color`). Toolbar icons are glyphs of the icon pack's
fonts (qtawesome's font files, read directly; qtawesome itself is never imported) and carry the pack's
human name. Sometimes a menu is shown open (rendered and composited under its menu-bar entry).

One ``QApplication`` per process (``QT_QPA_PLATFORM=offscreen``), reused across renders; the same seed
gives the same PNG bytes and labels in one process.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np
from PIL import Image
from PySide6.QtCore import (
    QCoreApplication,
    QEvent,
    QModelIndex,
    QPoint,
    QRect,
    QSize,
    Qt,
    qInstallMessageHandler,
)
from PySide6.QtGui import QAction, QColor, QFont, QIcon, QImage, QPainter, QPalette, QPixmap, QRawFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractScrollArea,
    QAbstractSpinBox,
    QApplication,
    QCheckBox,
    QComboBox,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListView,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMenu,
    QMenuBar,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QScrollBar,
    QSlider,
    QSpinBox,
    QSplitter,
    QStackedWidget,
    QStatusBar,
    QStyle,
    QStyleFactory,
    QStyleOptionGroupBox,
    QTabBar,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextEdit,
    QToolBar,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from detact_service.core import Element, ElementState, ElementType
from detact_service.understanding.colors import element_color
from training.data.labels import ScreenLabels

REPO_ROOT = Path(__file__).resolve().parents[3]
ICON_INDEX = REPO_ROOT / "icons" / "index.json"
ICON_PROPERTY = "detact_icon"
TEMPLATES = ("main-window", "settings-dialog", "form-dialog", "table-editor", "file-browser")
FONT_FAMILIES = ("DejaVu Sans", "Liberation Sans", "DejaVu Serif", "Liberation Serif", "DejaVu Sans Mono")

MENUS = ("File", "Edit", "View", "Tools", "Help", "Window", "Project", "Run", "Format", "Insert", "Go")
MENU_ITEMS = (
    "New", "Open…", "Save", "Save As…", "Close", "Print…", "Exit", "Undo", "Redo", "Cut", "Copy", "Paste",
    "Select All", "Find…", "Replace…", "Preferences…", "Zoom In", "Zoom Out", "Full Screen", "Refresh",
    "About", "Documentation", "Check for Updates", "Import…", "Export…", "Properties", "Rename", "Delete",
)  # fmt: skip
SHORTCUTS = ("Ctrl+N", "Ctrl+O", "Ctrl+S", "Ctrl+Z", "Ctrl+C", "Ctrl+V", "F5", "Ctrl+F", "Del", "F1")
TABS = (
    "General", "Advanced", "Appearance", "Network", "Display", "Audio", "Accounts", "Privacy", "Updates",
    "Shortcuts", "Plugins", "Editor", "Details", "Preview", "Output", "Console", "History", "Security",
)  # fmt: skip
FIELDS = (
    "Name", "Email", "Server", "Port", "Username", "Path", "Language", "Theme", "Timeout", "Encoding",
    "Font size", "Host", "Title", "Author", "Version", "Location", "Company", "Phone", "City", "Country",
)  # fmt: skip
VALUES = (
    "localhost", "example.org", "admin", "John Smith", "/home/user", "UTF-8", "report.pdf", "8080",
    "Berlin", "alice@example.com", "Untitled", "v2.4.1", "Main Street 12", "Default", "+1 555 0100",
)  # fmt: skip
CHECKS = (
    "Enable notifications", "Show hidden files", "Start at login", "Auto-save", "Use proxy",
    "Remember me", "Check for updates", "Show line numbers", "Word wrap", "Send usage statistics",
    "Open in new window", "Confirm before closing", "Use dark theme", "Play sounds", "Compact mode",
)  # fmt: skip
CHOICES = (
    "Automatic", "Manual", "English", "Deutsch", "Français", "Small", "Medium", "Large", "Always", "Never",
    "Daily", "Weekly", "Monthly", "Low", "Normal", "High", "System", "Light", "Dark", "None",
)  # fmt: skip
BUTTONS = ("Apply", "Browse…", "Add", "Remove", "Edit…", "Reset", "Test", "Connect", "Import", "Details")
FILES = (
    "report", "notes", "budget", "photo", "invoice", "draft", "backup", "readme", "slides", "data", "main",
    "config", "todo", "letter", "summary", "archive", "index", "chart", "scan", "log",
)  # fmt: skip
EXTS = (".pdf", ".txt", ".png", ".xlsx", ".docx", ".py", ".json", ".zip", ".csv", ".md")
FOLDERS = ("Documents", "Downloads", "Pictures", "Music", "Projects", "Desktop", "Videos", "src", "tests")
PEOPLE = ("Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy", "Mallory")
COLUMNS = ("Name", "Size", "Type", "Modified", "Status", "Owner", "Price", "Qty", "Date", "ID", "Priority")
STATUS = ("Open", "Closed", "Pending", "Done", "Failed", "Active", "Draft")
SENTENCES = (
    "The quick brown fox jumps over the lazy dog.",
    "Changes are saved automatically.",
    "Select a file to see its details.",
    "Meeting notes for the weekly sync.",
    "Build finished with 0 errors and 2 warnings.",
    "Please restart the application to apply the new settings.",
)
COMMON_ICONS = (
    "save", "folder open", "folder", "file", "copy", "cut", "paste", "undo", "redo", "search", "settings",
    "delete", "edit", "refresh", "home", "print", "plus", "close", "play", "stop", "user", "mail", "star",
    "heart", "download", "upload", "filter", "bell", "calendar", "lock", "link", "image", "bookmark",
    "chevron left", "chevron right", "arrow left", "arrow right", "menu", "share", "help", "info", "check",
)  # fmt: skip


@dataclass(frozen=True)
class _Icon:
    name: str
    font: str
    codepoint: int


def _icon_fonts_dir() -> Path | None:
    spec = importlib.util.find_spec("qtawesome")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "fonts"
    return folder if folder.is_dir() else None


def load_icon_catalogue(index_path: Path = ICON_INDEX) -> list[_Icon]:
    """The icon pack's glyphs (human name, font file, codepoint) whose font file is installed."""
    fonts = _icon_fonts_dir()
    if fonts is None or not index_path.exists():
        return []
    index = json.loads(index_path.read_text())
    files = {key: fonts / info["font"] for key, info in index["sets"].items()}
    return [
        _Icon(name, str(files[set_]), int(code, 16))
        for name, set_, _glyph, code in index["templates"]
        if set_ in files and files[set_].exists()
    ]


def _clean(text: str) -> str:
    """Visible text of a Qt label with mnemonics (``&File`` shows as ``File``)."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&")


def _quiet(mode: Any, context: Any, message: str) -> None:
    """Qt message handler that drops the offscreen plugin's chatter."""
    if "This plugin does not support" in message or "QFont::" in message:
        return
    sys.stderr.write(message + "\n")


class _Build:
    """Random widget factory for one screen (all randomness comes from ``rng``)."""

    def __init__(self, rng: np.random.Generator, icons: Sequence[_Icon], raw_fonts: dict[str, QRawFont]):
        self.rng = rng
        self.icons = icons
        self.raw_fonts = raw_fonts
        self.common = [i for i in icons if i.name in COMMON_ICONS]
        self.focusable: list[QWidget] = []
        self.icon_colour = QColor(0, 0, 0)

    # -- random helpers ------------------------------------------------------------------------------
    def p(self, probability: float) -> bool:
        return bool(self.rng.random() < probability)

    def pick(self, items: Sequence[Any]) -> Any:
        return items[int(self.rng.integers(len(items)))]

    def sample(self, items: Sequence[Any], k: int) -> list[Any]:
        k = min(k, len(items))
        return [items[int(i)] for i in self.rng.choice(len(items), size=k, replace=False)]

    def n(self, lo: int, hi: int) -> int:
        return int(self.rng.integers(lo, hi + 1))

    def file_name(self) -> str:
        return f"{self.pick(FILES)}{'_' + str(self.n(1, 99)) if self.p(0.4) else ''}{self.pick(EXTS)}"

    def states(self, widget: QWidget, focusable: bool = True, disable: float = 0.08) -> QWidget:
        if isinstance(widget, QAbstractScrollArea) and self.p(0.3):
            widget.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        if self.p(disable):
            widget.setEnabled(False)
        elif focusable:
            self.focusable.append(widget)
        return widget

    # -- icons -----------------------------------------------------------------------------------------
    def icon(self, size: int) -> tuple[QIcon, str] | None:
        pool = self.common if self.common and self.p(0.6) else self.icons
        if not pool:
            return None
        entry: _Icon = self.pick(pool)
        raw = self.raw_fonts.get(entry.font)
        if raw is None:
            raw = self.raw_fonts[entry.font] = QRawFont(entry.font, 64)
        glyphs = raw.glyphIndexesForString(chr(entry.codepoint))
        if not glyphs or glyphs[0] == 0:
            return None
        path = raw.pathForGlyph(glyphs[0])
        bounds = path.boundingRect()
        if bounds.width() <= 0 or bounds.height() <= 0:
            return None
        pixmap = QPixmap(size, size)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        scale = size * 0.82 / max(bounds.width(), bounds.height())
        painter.translate(size / 2, size / 2)
        painter.scale(scale, scale)
        painter.translate(-bounds.center())
        painter.fillPath(path, self.icon_colour)
        painter.end()
        return QIcon(pixmap), entry.name

    # -- widgets ---------------------------------------------------------------------------------------
    def menubar(self, window: QMainWindow) -> QMenuBar:
        bar = window.menuBar()
        for title in ["File", *self.sample(MENUS[1:], self.n(2, 7))]:
            menu = bar.addMenu(("&" if self.p(0.5) else "") + title)
            self.fill_menu(menu)
        return bar

    def fill_menu(self, menu: QMenu) -> None:
        for text in self.sample(MENU_ITEMS, self.n(3, 9)):
            action = menu.addAction(text)
            if self.p(0.3):
                action.setShortcut(self.pick(SHORTCUTS))
            if self.p(0.15):
                action.setCheckable(True)
                action.setChecked(self.p(0.5))
            if self.p(0.12):
                action.setEnabled(False)
            if self.p(0.15):
                menu.addSeparator()

    def toolbar(self, window: QMainWindow) -> QToolBar:
        bar = QToolBar("Main")
        bar.setMovable(self.p(0.5))
        size = self.pick((16, 20, 24, 24, 32))
        bar.setIconSize(QSize(size, size))
        style = self.pick(
            (Qt.ToolButtonStyle.ToolButtonIconOnly,) * 4
            + (Qt.ToolButtonStyle.ToolButtonTextBesideIcon, Qt.ToolButtonStyle.ToolButtonTextUnderIcon)
        )
        bar.setToolButtonStyle(style)
        for _ in range(self.n(3, 12)):
            made = self.icon(size)
            if made is None:
                continue
            icon, name = made
            action = bar.addAction(icon, name.capitalize())
            if self.p(0.08):
                action.setEnabled(False)
            if self.p(0.08):
                action.setCheckable(True)
                action.setChecked(True)
            bar.widgetForAction(action).setProperty(ICON_PROPERTY, name)
            if self.p(0.15):
                bar.addSeparator()
        if self.p(0.3):
            edit = QLineEdit()
            edit.setPlaceholderText("Search…")
            edit.setMaximumWidth(240)
            bar.addWidget(self.states(edit))
        window.addToolBar(bar)
        return bar

    def icon_button(self) -> QToolButton:
        button = QToolButton()
        made = self.icon(self.pick((16, 20, 24)))
        if made is None:
            button.setText("…")
        else:
            button.setIcon(made[0])
            button.setIconSize(QSize(20, 20))
            button.setProperty(ICON_PROPERTY, made[1])
            button.setAutoRaise(self.p(0.5))
        return self.states(button)  # type: ignore[return-value]

    def field(self, name: str) -> QWidget:
        kind = self.pick(("line", "line", "line", "combo", "combo", "spin", "double", "line-button"))
        if kind == "combo":
            combo = QComboBox()
            combo.addItems(self.sample(CHOICES, self.n(2, 6)))
            combo.setCurrentIndex(self.n(0, combo.count() - 1))
            combo.setEditable(self.p(0.2))
            return self.states(combo)
        if kind == "spin":
            spin = QSpinBox()
            spin.setRange(0, 10000)
            spin.setValue(self.n(0, 500))
            if self.p(0.3):
                spin.setSuffix(self.pick((" px", " s", " %", " MB")))
            return self.states(spin)
        if kind == "double":
            spin2 = QDoubleSpinBox()
            spin2.setRange(0, 1000)
            spin2.setValue(round(float(self.rng.uniform(0, 100)), 2))
            return self.states(spin2)
        edit = QLineEdit()
        if self.p(0.7):
            edit.setText(self.pick(VALUES))
        else:
            edit.setPlaceholderText(f"Enter {name.lower()}")
        self.states(edit)
        if kind != "line-button":
            return edit
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(edit)
        layout.addWidget(self.icon_button() if self.p(0.5) else self.states(QPushButton(self.pick(BUTTONS))))
        return row

    def form(self) -> QWidget:
        page = QWidget()
        layout = QFormLayout(page)
        for name in self.sample(FIELDS, self.n(2, 6)):
            layout.addRow(f"{name}:", self.field(name))
        for text in self.sample(CHECKS, self.n(0, 3)):
            box = QCheckBox(text)
            box.setChecked(self.p(0.5))
            layout.addRow(self.states(box))
        if self.p(0.4):
            slider = QSlider(Qt.Orientation.Horizontal)
            slider.setRange(0, 100)
            slider.setValue(self.n(0, 100))
            layout.addRow(f"{self.pick(('Volume', 'Zoom', 'Quality', 'Opacity'))}:", self.states(slider))
        return page

    def group(self) -> QGroupBox:
        box = QGroupBox(self.pick(("Options", "Mode", "Behaviour", "Startup", "Updates", "Privacy", "View")))
        if self.p(0.2):
            box.setCheckable(True)
            box.setChecked(self.p(0.7))
        layout = QVBoxLayout(box)
        if self.p(0.5):
            choices = self.sample(CHOICES, self.n(2, 4))
            chosen = self.n(0, len(choices) - 1)
            for i, text in enumerate(choices):
                radio = QRadioButton(text)
                radio.setChecked(i == chosen)
                layout.addWidget(self.states(radio))
        else:
            for text in self.sample(CHECKS, self.n(2, 4)):
                check = QCheckBox(text)
                check.setChecked(self.p(0.5))
                if self.p(0.05):
                    check.setTristate(True)
                    check.setCheckState(Qt.CheckState.PartiallyChecked)
                layout.addWidget(self.states(check))
        return box

    def list_widget(self, texts: Sequence[str]) -> QListWidget:
        widget = QListWidget()
        checkable = self.p(0.2)
        for text in texts:
            item = QListWidgetItem(text)
            if checkable:
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(Qt.CheckState.Checked if self.p(0.5) else Qt.CheckState.Unchecked)
            widget.addItem(item)
        if texts and self.p(0.8):
            widget.setCurrentRow(self.n(0, len(texts) - 1))
        widget.setAlternatingRowColors(self.p(0.3))
        return self.states(widget, disable=0.02)  # type: ignore[return-value]

    def tree(self) -> QTreeWidget:
        tree = QTreeWidget()
        columns = ["Name", *self.sample(COLUMNS[1:], self.n(0, 3))]
        tree.setHeaderLabels(columns)
        tree.setHeaderHidden(self.p(0.4))
        for folder in self.sample(FOLDERS, self.n(2, 7)):
            parent = QTreeWidgetItem([folder] + ["" for _ in columns[1:]])
            tree.addTopLevelItem(parent)
            for _ in range(self.n(0, 6)):
                parent.addChild(QTreeWidgetItem([self.file_name()] + [self.cell(c) for c in columns[1:]]))
            parent.setExpanded(self.p(0.6))
        items = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
        if items and self.p(0.7):
            tree.setCurrentItem(self.pick(items))
        tree.header().setStretchLastSection(True)
        for c in range(len(columns)):
            tree.resizeColumnToContents(c)
        return self.states(tree, disable=0.02)  # type: ignore[return-value]

    def cell(self, column: str) -> str:
        makers: dict[str, Callable[[], str]] = {
            "Name": self.file_name,
            "Size": lambda: f"{self.n(1, 999)} {self.pick(('KB', 'MB', 'B'))}",
            "Type": lambda: self.pick(("Document", "Image", "Folder", "Archive", "Text")),
            "Modified": lambda: f"2024-{self.n(1, 12):02d}-{self.n(1, 28):02d}",
            "Date": lambda: f"{self.n(1, 28):02d}.{self.n(1, 12):02d}.2023",
            "Status": lambda: self.pick(STATUS),
            "Owner": lambda: self.pick(PEOPLE),
            "Price": lambda: f"{self.n(1, 999)}.{self.n(0, 99):02d}",
            "Qty": lambda: str(self.n(0, 50)),
            "ID": lambda: str(self.n(1000, 9999)),
            "Priority": lambda: self.pick(("Low", "Normal", "High")),
        }
        return makers[column]()

    def table(self) -> QTableWidget:
        columns = self.sample(COLUMNS, self.n(2, 6))
        rows = self.n(3, 25)
        table = QTableWidget(rows, len(columns))
        table.setHorizontalHeaderLabels(columns)
        for r in range(rows):
            for c, column in enumerate(columns):
                table.setItem(r, c, QTableWidgetItem(self.cell(column)))
        table.verticalHeader().setVisible(self.p(0.4))
        table.setAlternatingRowColors(self.p(0.4))
        table.resizeColumnsToContents()
        table.horizontalHeader().setStretchLastSection(self.p(0.5))
        if self.p(0.7):
            table.selectRow(self.n(0, rows - 1))
        return self.states(table, disable=0.02)  # type: ignore[return-value]

    def text_edit(self) -> QWidget:
        edit: QTextEdit | QPlainTextEdit = QPlainTextEdit() if self.p(0.5) else QTextEdit()
        if self.p(0.8):
            edit.setPlainText("\n".join(self.sample(SENTENCES, self.n(1, 3))))
        else:
            edit.setPlaceholderText("Type a note…")
        return self.states(edit)

    def buttons(self) -> QDialogButtonBox:
        standard = QDialogButtonBox.StandardButton
        choice = self.pick(
            (
                standard.Ok | standard.Cancel,
                standard.Ok | standard.Cancel | standard.Apply,
                standard.Save | standard.Cancel,
                standard.Close,
                standard.Yes | standard.No,
                standard.Ok | standard.Cancel | standard.Help,
            )
        )
        box = QDialogButtonBox(choice)
        for button in box.buttons():
            self.states(button, disable=0.05)
        return box

    def status_bar(self, window: QMainWindow) -> QStatusBar:
        bar = window.statusBar()
        bar.addWidget(
            QLabel(self.pick(("Ready", "Saved", "3 items selected", "Connected", "Line 12, Col 4")))
        )
        if self.p(0.5):
            progress = QProgressBar()
            progress.setRange(0, 100)
            progress.setValue(self.n(0, 100))
            progress.setMaximumWidth(200)
            bar.addPermanentWidget(progress)
        return bar

    def tabs(self, pages: Sequence[tuple[str, QWidget]]) -> QTabWidget:
        tabs = QTabWidget()
        for title, page in pages:
            tabs.addTab(page, title)
        tabs.setCurrentIndex(self.n(0, len(pages) - 1))
        if self.p(0.1) and len(pages) > 1:
            other = (tabs.currentIndex() + 1) % len(pages)
            tabs.setTabEnabled(other, False)
        tabs.setDocumentMode(self.p(0.3))
        tabs.tabBar().setElideMode(Qt.TextElideMode.ElideNone)
        self.focusable.append(tabs.tabBar())
        return tabs

    def page(self) -> QWidget:
        """A random tab page: a form, a group box with a form, a list, a text edit or a table."""
        kind = self.pick(("form", "form-group", "list", "text", "table"))
        if kind == "form":
            return self.form()
        if kind == "form-group":
            page = QWidget()
            layout = QHBoxLayout(page)
            layout.addWidget(self.form(), 2)
            column = QVBoxLayout()
            column.addWidget(self.group())
            column.addStretch(1)
            layout.addLayout(column, 1)
            return page
        if kind == "list":
            return self.list_widget([self.file_name() for _ in range(self.n(3, 30))])
        if kind == "text":
            return self.text_edit()
        return self.table()

    def extras(self) -> QWidget:
        """A strip of assorted widgets: a label, a button or two, a progress bar, a slider, an image."""
        strip = QWidget()
        layout = QHBoxLayout(strip)
        layout.setContentsMargins(0, 0, 0, 0)
        if self.p(0.4):
            layout.addWidget(self.image_label())
        if self.p(0.6):
            layout.addWidget(QLabel(self.pick(SENTENCES)))
        if self.p(0.3):
            progress = QProgressBar()
            progress.setValue(self.n(0, 100))
            progress.setTextVisible(self.p(0.8))
            layout.addWidget(progress)
        layout.addStretch(1)
        for text in self.sample(BUTTONS, self.n(0, 3)):
            layout.addWidget(self.states(QPushButton(text)))
        return strip

    def image_label(self) -> QLabel:
        size = self.n(32, 96)
        pixmap = QPixmap(size, size)
        pixmap.fill(QColor(*(int(v) for v in self.rng.integers(0, 256, 3))))
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        for _ in range(3):
            painter.setBrush(QColor(*(int(v) for v in self.rng.integers(0, 256, 3))))
            painter.setPen(Qt.PenStyle.NoPen)
            x, y, r = self.n(0, size), self.n(0, size), self.n(size // 6, size // 2)
            painter.drawEllipse(QPoint(x, y), r, r)
        painter.end()
        label = QLabel()
        label.setPixmap(pixmap)
        label.setFixedSize(size, size)
        return label


def _dark_palette(accent: QColor) -> QPalette:
    palette = QPalette()
    roles = QPalette.ColorRole
    for role, rgb in (
        (roles.Window, (45, 45, 48)),
        (roles.WindowText, (230, 230, 230)),
        (roles.Base, (30, 30, 32)),
        (roles.AlternateBase, (50, 50, 54)),
        (roles.ToolTipBase, (60, 60, 60)),
        (roles.ToolTipText, (230, 230, 230)),
        (roles.Text, (230, 230, 230)),
        (roles.Button, (58, 58, 62)),
        (roles.ButtonText, (230, 230, 230)),
        (roles.BrightText, (255, 80, 80)),
        (roles.PlaceholderText, (140, 140, 140)),
        (roles.Light, (80, 80, 84)),
        (roles.Midlight, (66, 66, 70)),
        (roles.Mid, (40, 40, 42)),
        (roles.Dark, (25, 25, 27)),
        (roles.Shadow, (10, 10, 10)),
    ):
        palette.setColor(role, QColor(*rgb))
    disabled = QPalette.ColorGroup.Disabled
    for role in (roles.WindowText, roles.Text, roles.ButtonText):
        palette.setColor(disabled, role, QColor(120, 120, 120))
    palette.setColor(roles.Highlight, accent)
    palette.setColor(roles.HighlightedText, QColor(255, 255, 255))
    palette.setColor(roles.Link, accent.lighter(130))
    return palette


class QtRenderer:
    """Renders Qt desktop screens; a context manager holding the process's ``QApplication``."""

    source = "qt"

    def __init__(self) -> None:
        self._app: QApplication | None = None
        self._icons: list[_Icon] = []
        self._raw_fonts: dict[str, QRawFont] = {}
        self._styles: tuple[str, ...] = ()

    def __enter__(self) -> QtRenderer:
        app = QApplication.instance()
        if app is None:
            os.environ["QT_QPA_PLATFORM"] = "offscreen"  # read when the application is created
            qInstallMessageHandler(_quiet)
            app = QApplication(["detact-qt-renderer"])
        assert isinstance(app, QApplication)
        app.setCursorFlashTime(0)  # no blinking: a focused line edit always shows its cursor
        app.setEffectEnabled(Qt.UIEffect.UI_AnimateCombo, False)
        self._app = app
        self._icons = load_icon_catalogue()
        available = list(QStyleFactory.keys())
        self._styles = tuple(s for s in ("Fusion", "Windows") if s in available)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._raw_fonts.clear()  # the application lives on (one per process); Qt cleans it at exit

    def render(self, seed: int) -> tuple[Image.Image, ScreenLabels]:
        """One desktop screenshot and its labels, deterministic for ``seed``."""
        if self._app is None:
            self.__enter__()
        app = self._app
        assert app is not None
        rng = np.random.default_rng([seed, 0x0071])
        build = _Build(rng, self._icons, self._raw_fonts)
        style_name = build.pick(self._styles)
        dark = build.p(0.4)
        accent = QColor(*(int(v) for v in rng.integers(30, 220, 3)))
        app.setStyle(QStyleFactory.create(style_name))
        style = app.style()
        palette = _dark_palette(accent) if dark else style.standardPalette()
        if not dark and build.p(0.5):
            palette.setColor(QPalette.ColorRole.Highlight, accent)
        app.setPalette(palette)
        font = QFont(build.pick(FONT_FAMILIES))
        font.setPixelSize(build.n(11, 16))
        app.setFont(font)
        build.icon_colour = palette.color(QPalette.ColorRole.WindowText) if build.p(0.6) else accent
        template = build.pick(TEMPLATES)
        window, menu_bar = _RECIPES[template](build)
        width, height = build.n(800, 1920), build.n(600, 1080)
        window.resize(width, height)
        focus = None
        if build.focusable and build.p(0.85):
            focus = build.pick(build.focusable)
        open_action = None
        if menu_bar is not None and build.p(0.3):
            menus = [a for a in menu_bar.actions() if a.menu() is not None]
            open_action = build.pick(menus) if menus else None
        image, elements, open_menu = self._grab(window, focus, menu_bar, open_action)
        if open_menu is not None:
            menu_rect, menu_elements = open_menu
            elements = _occlude(elements, menu_rect) + menu_elements
        pixels = _to_array(image)
        elements = [e.replace(color=element_color(pixels, e)) for e in elements]
        labels = ScreenLabels(
            image="",
            width=pixels.shape[1],
            height=pixels.shape[0],
            source=self.source,
            template=f"qt/{template}/v1",
            seed=seed,
            elements=elements,
            meta={
                "style": style_name,
                "dark": dark,
                "font": font.family(),
                "menu_open": open_menu is not None,
            },
        )
        window.close()
        window.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        return Image.fromarray(pixels), labels

    def capture(self, window: QWidget, focus: QWidget | None = None) -> tuple[Image.Image, list[Element]]:
        """Show a window built by the caller, focus ``focus``, grab and label it (the caller deletes it)."""
        if self._app is None:
            self.__enter__()
        image, elements, _ = self._grab(window, focus)
        pixels = _to_array(image)
        return Image.fromarray(pixels), [e.replace(color=element_color(pixels, e)) for e in elements]

    def _grab(
        self,
        window: QWidget,
        focus: QWidget | None,
        menu_bar: QMenuBar | None = None,
        open_action: QAction | None = None,
    ) -> tuple[QImage, list[Element], tuple[QRect, list[Element]] | None]:
        """Show ``window``, focus ``focus``, open ``open_action``'s menu, grab it and label its widgets.

        Returns the image, the window's elements and, when a menu was opened, its rect and item elements
        (the menu is drawn into the image under its menu-bar entry, which shows as active).
        """
        window.show()
        window.activateWindow()
        self._settle()
        if focus is not None and focus.isVisible() and focus.isEnabled():
            focus.setFocus(Qt.FocusReason.OtherFocusReason)
            self._settle()
        opened = menu_bar is not None and open_action is not None and _entry_visible(menu_bar, open_action)
        if opened:
            assert menu_bar is not None and open_action is not None
            menu_bar.setActiveAction(open_action)  # highlights the entry and pops the menu up
            self._settle()
        image = window.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
        elements = _Labeller(window).collect()
        open_menu = None
        if opened:
            assert menu_bar is not None and open_action is not None
            open_menu = _composite_menu(window, menu_bar, open_action, image)
            menu = open_action.menu()
            if isinstance(menu, QMenu):
                menu.close()
            self._settle()
        return image, elements, open_menu

    def _settle(self) -> None:
        assert self._app is not None
        for _ in range(3):
            self._app.processEvents()


def _to_array(image: QImage) -> np.ndarray:
    """An RGB888 QImage as an ``(H, W, 3)`` uint8 array (a copy)."""
    width, height, stride = image.width(), image.height(), image.bytesPerLine()
    buffer = np.frombuffer(image.constBits(), dtype=np.uint8, count=stride * height)
    return buffer.reshape(height, stride)[:, : width * 3].reshape(height, width, 3).copy()


# -- recipes ---------------------------------------------------------------------------------------------


def _main_window(build: _Build) -> tuple[QWidget, QMenuBar | None]:
    window = QMainWindow()
    window.setWindowTitle("Main")
    bar = build.menubar(window)
    if build.p(0.85):
        build.toolbar(window)
    splitter = QSplitter(Qt.Orientation.Horizontal)
    splitter.addWidget(
        build.tree() if build.p(0.5) else build.list_widget(build.sample(FOLDERS, build.n(3, 9)))
    )
    right = QWidget()
    layout = QVBoxLayout(right)
    layout.addWidget(build.tabs([(t, build.page()) for t in build.sample(TABS, build.n(2, 5))]))
    if build.p(0.6):
        layout.addWidget(build.extras())
    splitter.addWidget(right)
    splitter.setSizes([build.n(180, 350), 1000])
    window.setCentralWidget(splitter)
    if build.p(0.7):
        build.status_bar(window)
    return window, bar


def _settings_dialog(build: _Build) -> tuple[QWidget, QMenuBar | None]:
    dialog = QWidget()
    layout = QVBoxLayout(dialog)
    if build.p(0.5):
        layout.addWidget(build.tabs([(t, build.page()) for t in build.sample(TABS, build.n(2, 6))]))
    else:
        body = QHBoxLayout()
        sections = build.sample(TABS, build.n(3, 10))
        sidebar = build.list_widget(sections)
        sidebar.setMaximumWidth(220)
        body.addWidget(sidebar)
        stack = QStackedWidget()
        page = QWidget()
        column = QVBoxLayout(page)
        column.addWidget(build.form())
        column.addWidget(build.group())
        column.addStretch(1)
        stack.addWidget(page)
        body.addWidget(stack, 1)
        layout.addLayout(body)
    layout.addWidget(build.buttons())
    return dialog, None


def _form_dialog(build: _Build) -> tuple[QWidget, QMenuBar | None]:
    dialog = QWidget()
    layout = QGridLayout(dialog)
    title = QLabel(build.pick(("New account", "Connection", "Export", "Properties", "New project")))
    big = QFont(dialog.font())
    big.setPixelSize(max(dialog.font().pixelSize(), 12) + 6)
    big.setBold(True)
    title.setFont(big)
    layout.addWidget(title, 0, 0)
    if build.p(0.5):
        layout.addWidget(build.image_label(), 0, 1, Qt.AlignmentFlag.AlignRight)
    layout.addWidget(build.form(), 1, 0)
    side = QVBoxLayout()
    side.addWidget(build.group())
    if build.p(0.5):
        side.addWidget(build.group())
    side.addStretch(1)
    layout.addLayout(side, 1, 1)
    if build.p(0.7):
        layout.addWidget(QLabel("Notes:"), 2, 0)
        layout.addWidget(build.text_edit(), 3, 0, 1, 2)
    if build.p(0.5):
        layout.addWidget(build.extras(), 4, 0, 1, 2)
    layout.addWidget(build.buttons(), 5, 0, 1, 2)
    return dialog, None


def _table_editor(build: _Build) -> tuple[QWidget, QMenuBar | None]:
    window = QMainWindow()
    bar = build.menubar(window) if build.p(0.8) else None
    build.toolbar(window)
    splitter = QSplitter(Qt.Orientation.Horizontal)
    splitter.addWidget(build.table())
    panel = QWidget()
    column = QVBoxLayout(panel)
    column.addWidget(build.form())
    if build.p(0.6):
        column.addWidget(build.group())
    column.addStretch(1)
    splitter.addWidget(panel)
    splitter.setSizes([1000, build.n(250, 400)])
    window.setCentralWidget(splitter)
    if build.p(0.8):
        build.status_bar(window)
    return window, bar


def _file_browser(build: _Build) -> tuple[QWidget, QMenuBar | None]:
    window = QMainWindow()
    bar = build.menubar(window) if build.p(0.6) else None
    build.toolbar(window)
    central = QWidget()
    layout = QVBoxLayout(central)
    path_row = QHBoxLayout()
    for _ in range(build.n(1, 3)):
        path_row.addWidget(build.icon_button())
    path = QLineEdit("/home/user/" + build.pick(FOLDERS))
    path_row.addWidget(build.states(path))
    if build.p(0.5):
        search = QLineEdit()
        search.setPlaceholderText("Search")
        search.setMaximumWidth(220)
        path_row.addWidget(build.states(search))
    layout.addLayout(path_row)
    splitter = QSplitter(Qt.Orientation.Horizontal)
    splitter.addWidget(build.tree())
    splitter.addWidget(build.list_widget([build.file_name() for _ in range(build.n(5, 40))]))
    splitter.setSizes([build.n(200, 400), 1000])
    layout.addWidget(splitter, 1)
    bottom = QHBoxLayout()
    bottom.addWidget(QLabel("File name:"))
    bottom.addWidget(build.states(QLineEdit(build.file_name())))
    combo = QComboBox()
    combo.addItems(["All files (*)", "Documents (*.pdf *.docx)", "Images (*.png *.jpg)"])
    bottom.addWidget(build.states(combo))
    layout.addLayout(bottom)
    layout.addWidget(build.buttons())
    window.setCentralWidget(central)
    return window, bar


_RECIPES: dict[str, Callable[[_Build], tuple[QWidget, QMenuBar | None]]] = {
    "main-window": _main_window,
    "settings-dialog": _settings_dialog,
    "form-dialog": _form_dialog,
    "table-editor": _table_editor,
    "file-browser": _file_browser,
}


# -- labelling -------------------------------------------------------------------------------------------


def _xyxy(rect: QRect) -> tuple[int, int, int, int] | None:
    if rect.width() < 2 or rect.height() < 2:
        return None
    return rect.x(), rect.y(), rect.x() + rect.width(), rect.y() + rect.height()


class _Labeller:
    """Walks a shown window's widget tree and turns visible leaves into elements."""

    def __init__(self, window: QWidget):
        self.window = window
        self.elements: list[Element] = []

    def collect(self) -> list[Element]:
        self._walk(self.window, self.window.rect())
        return self.elements

    # -- helpers ---------------------------------------------------------------------------------------
    def to_window(self, widget: QWidget, rect: QRect) -> QRect:
        return QRect(widget.mapTo(self.window, rect.topLeft()), rect.size())

    def add(
        self,
        widget: QWidget,
        rect: QRect,
        clip: QRect,
        kind: ElementType,
        text: str | None = None,
        *,
        icon: str | None = None,
        checked: bool | None = None,
        selected: bool | None = None,
        focused: bool | None = None,
        enabled: bool | None = None,
        drop_clipped_text: bool = False,
    ) -> None:
        full = self.to_window(widget, rect)
        visible = full.intersected(clip)
        box = _xyxy(visible)
        if box is None:
            return
        if visible != full:
            if visible.height() < min(full.height(), 8) or visible.width() < min(full.width(), 8):
                return
            if kind is ElementType.TEXT:
                return  # a text cut off is no text element
            if drop_clipped_text:
                text = None
        state = ElementState(
            checked=checked,
            focused=widget.hasFocus() if focused is None else focused,
            selected=selected,
            disabled=not (widget.isEnabled() if enabled is None else enabled),
        )
        self.elements.append(
            Element(bbox=box, type=kind, text=text or None, icon=icon, state=state, source="qt")
        )

    def tight(self, widget: QWidget, alignment: Qt.AlignmentFlag | None = None) -> QRect:
        """The part of a widget its content (size hint) takes, placed by its alignment."""
        align = (
            alignment if alignment is not None else Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        )
        size = widget.sizeHint().boundedTo(widget.size())
        return QStyle.alignedRect(widget.layoutDirection(), align, size, widget.rect())

    # -- walk ------------------------------------------------------------------------------------------
    def _walk(self, widget: QWidget, clip: QRect) -> None:
        for child in widget.children():
            if not isinstance(child, QWidget) or child.isWindow() or not child.isVisible():
                continue
            child_clip = self.to_window(child, child.rect()).intersected(clip)
            if child_clip.isEmpty():
                continue
            if not self._label(child, child_clip):
                self._walk(child, child_clip)

    def _label(self, w: QWidget, clip: QRect) -> bool:
        """Label one widget; True when its children are handled (not walked)."""
        t = ElementType
        if isinstance(w, QTabBar):
            self._tabs(w, clip)
            return True
        if isinstance(w, QMenuBar):
            self._menubar(w, clip)
            return True
        if isinstance(w, QToolButton):
            name = w.property(ICON_PROPERTY)
            shows_text = w.toolButtonStyle() != Qt.ToolButtonStyle.ToolButtonIconOnly and bool(w.text())
            if name and not shows_text:
                self.add(
                    w, w.rect(), clip, t.ICON, icon=name, checked=w.isChecked() if w.isCheckable() else None
                )
            else:
                text = (
                    _clean(w.text())
                    if (shows_text or not name) and w.arrowType() == Qt.ArrowType.NoArrow
                    else None
                )
                self.add(
                    w,
                    w.rect(),
                    clip,
                    t.BUTTON,
                    text,
                    icon=name or None,
                    checked=w.isChecked() if w.isCheckable() else None,
                )
            return True
        if isinstance(w, QPushButton):
            self.add(
                w,
                w.rect(),
                clip,
                t.BUTTON,
                _clean(w.text()),
                checked=w.isChecked() if w.isCheckable() else None,
            )
            return True
        if isinstance(w, QCheckBox):
            self.add(
                w,
                self.tight(w),
                clip,
                t.CHECKBOX,
                _clean(w.text()),
                checked=w.checkState() != Qt.CheckState.Unchecked,
            )
            return True
        if isinstance(w, QRadioButton):
            self.add(w, self.tight(w), clip, t.RADIO, _clean(w.text()), checked=w.isChecked())
            return True
        if isinstance(w, QAbstractSpinBox):
            self.add(w, w.rect(), clip, t.INPUT, w.text())
            return True
        if isinstance(w, QComboBox):
            self.add(w, w.rect(), clip, t.DROPDOWN, w.currentText(), focused=w.hasFocus() or _child_focus(w))
            return True
        if isinstance(w, QLineEdit):
            self.add(w, w.rect(), clip, t.INPUT, w.text() or w.placeholderText())
            return True
        if isinstance(w, QSlider):
            self.add(w, w.rect(), clip, t.SLIDER)
            return True
        if isinstance(w, QScrollBar):
            self.add(w, w.rect(), clip, t.SCROLLBAR)
            return True
        if isinstance(w, QProgressBar):
            self.add(w, w.rect(), clip, t.REGION, w.text() if w.isTextVisible() else None)
            return True
        if isinstance(w, QLabel):
            pixmap = w.pixmap()
            if pixmap is not None and not pixmap.isNull():
                self.add(w, w.rect(), clip, t.IMAGE)
            elif w.text():
                self.add(
                    w, self.tight(w, w.alignment()), clip, t.TEXT, _clean(w.text()) if w.buddy() else w.text()
                )
            return True
        if isinstance(w, QGroupBox):
            self._group_title(w, clip)
            return False
        if isinstance(w, QHeaderView):
            self._header(w, clip)
            return True
        if isinstance(w, QAbstractItemView):
            self._items(w, clip)
            self._scroll_children(w, clip)
            return True
        if isinstance(w, QTextEdit | QPlainTextEdit):
            self.add(w, w.rect(), clip, t.TEXTAREA, w.toPlainText() or w.placeholderText())
            self._scroll_children(w, clip)
            return True
        return False

    def _scroll_children(self, area: QAbstractScrollArea, clip: QRect) -> None:
        """A scroll area's own scroll bars and headers (everything but its viewport)."""
        for child in area.children():
            if isinstance(child, QWidget) and child is not area.viewport() and child.isVisible():
                child_clip = self.to_window(child, child.rect()).intersected(clip)
                if not child_clip.isEmpty() and not self._label(child, child_clip):
                    self._walk(child, child_clip)

    def _tabs(self, bar: QTabBar, clip: QRect) -> None:
        tab_clip = QRect(clip)
        for button in bar.findChildren(QToolButton):
            if button.isVisible():  # scroll arrows: tabs under them are hidden
                self.add(button, button.rect(), clip, ElementType.BUTTON)
                left = self.to_window(button, button.rect()).left()
                tab_clip.setRight(min(tab_clip.right(), left - 1))
        for i in range(bar.count()):
            if not bar.isTabVisible(i):
                continue
            current = i == bar.currentIndex()
            self.add(
                bar,
                bar.tabRect(i),
                tab_clip,
                ElementType.TAB,
                _clean(bar.tabText(i)),
                selected=current,
                focused=bar.hasFocus() and current,
                enabled=bar.isEnabled() and bar.isTabEnabled(i),
                drop_clipped_text=True,
            )

    def _menubar(self, bar: QMenuBar, clip: QRect) -> None:
        item_clip = QRect(clip)
        for button in bar.findChildren(QToolButton):
            if button.isVisible():  # the overflow (>>) button
                self.add(button, button.rect(), clip, ElementType.BUTTON)
                item_clip.setRight(min(item_clip.right(), self.to_window(button, button.rect()).left() - 1))
        for action in bar.actions():
            if action.isSeparator() or not action.isVisible():
                continue
            self.add(
                bar,
                bar.actionGeometry(action),
                item_clip,
                ElementType.MENU_ITEM,
                _clean(action.text()),
                selected=action == bar.activeAction(),
                focused=False,
                enabled=action.isEnabled(),
                drop_clipped_text=True,
            )

    def _group_title(self, box: QGroupBox, clip: QRect) -> None:
        option = QStyleOptionGroupBox()
        box.initStyleOption(option)
        style = box.style()
        control = QStyle.ComplexControl.CC_GroupBox
        label = style.subControlRect(control, option, QStyle.SubControl.SC_GroupBoxLabel, box)
        if box.isCheckable():
            check = style.subControlRect(control, option, QStyle.SubControl.SC_GroupBoxCheckBox, box)
            self.add(
                box,
                label.united(check),
                clip,
                ElementType.CHECKBOX,
                _clean(box.title()),
                checked=box.isChecked(),
            )
        elif box.title():
            self.add(box, label, clip, ElementType.TEXT, _clean(box.title()), focused=False)

    def _header(self, header: QHeaderView, clip: QRect) -> None:
        model = header.model()
        if model is None:
            return
        horizontal = header.orientation() == Qt.Orientation.Horizontal
        kind = ElementType.BUTTON if header.sectionsClickable() else ElementType.TEXT
        viewport = header.viewport()
        for i in range(header.count()):
            if header.isSectionHidden(i):
                continue
            start, size = header.sectionViewportPosition(i), header.sectionSize(i)
            rect = (
                QRect(start, 0, size, viewport.height())
                if horizontal
                else QRect(0, start, viewport.width(), size)
            )
            text = model.headerData(i, header.orientation(), Qt.ItemDataRole.DisplayRole)
            self.add(
                viewport,
                rect,
                clip,
                kind,
                str(text) if text is not None else None,
                focused=False,
                enabled=header.isEnabled(),
                drop_clipped_text=True,
            )

    def _items(self, view: QAbstractItemView, clip: QRect) -> None:
        model = view.model()
        if model is None:
            return
        viewport = view.viewport()
        item_clip = self.to_window(viewport, viewport.rect()).intersected(clip)
        selection = view.selectionModel()
        current = view.currentIndex()

        def visit(parent: QModelIndex) -> None:
            for row in range(model.rowCount(parent)):
                for column in range(1 if isinstance(view, QListView) else model.columnCount(parent)):
                    index = model.index(row, column, parent)
                    rect = view.visualRect(index)
                    if rect.isEmpty():
                        continue
                    text = model.data(index, Qt.ItemDataRole.DisplayRole)
                    if not text:
                        continue
                    check = model.data(index, Qt.ItemDataRole.CheckStateRole)
                    checked = None if check is None else Qt.CheckState(check) == Qt.CheckState.Checked
                    self.add(
                        viewport,
                        rect,
                        item_clip,
                        ElementType.LIST_ITEM,
                        str(text),
                        checked=checked,
                        selected=selection is not None and selection.isSelected(index),
                        focused=view.hasFocus() and index == current,
                        enabled=view.isEnabled(),
                        drop_clipped_text=True,
                    )
                first = model.index(row, 0, parent)
                if isinstance(view, QTreeWidget) and view.isExpanded(first) and model.rowCount(first) > 0:
                    visit(first)

        visit(QModelIndex())


def _child_focus(widget: QWidget) -> bool:
    focus = QApplication.focusWidget()
    return focus is not None and widget.isAncestorOf(focus)


def _entry_visible(bar: QMenuBar, action: QAction) -> bool:
    """Whether a menu-bar entry is shown whole (not pushed into the overflow menu)."""
    geometry = bar.actionGeometry(action)
    return not geometry.isEmpty() and bar.rect().contains(geometry)


def _composite_menu(
    window: QWidget, bar: QMenuBar, action: QAction, image: QImage
) -> tuple[QRect, list[Element]] | None:
    """Draw ``action``'s menu, open, under its entry; return its rect and its items' elements.

    The menu is a popup window of its own (the window grab does not show it), so it is grabbed apart and
    painted where it opens: below the entry, kept inside the window.
    """
    menu = action.menu()
    if not isinstance(menu, QMenu):
        return None
    menu.ensurePolished()
    if not menu.isVisible():
        menu.resize(menu.sizeHint())
    entry = QRect(bar.mapTo(window, bar.actionGeometry(action).topLeft()), bar.actionGeometry(action).size())
    x = min(entry.left(), window.width() - menu.width())
    y = entry.bottom() + 1
    if x < 0 or y + menu.height() > window.height():
        return None
    pixmap = menu.grab()
    painter = QPainter(image)
    painter.drawPixmap(QPoint(x, y), pixmap)
    painter.end()
    menu_rect = QRect(x, y, menu.width(), menu.height())
    elements = []
    for item in menu.actions():
        if item.isSeparator() or not item.isVisible():
            continue
        box = _xyxy(menu.actionGeometry(item).translated(x, y).intersected(menu_rect))
        if box is None:
            continue
        state = ElementState(
            checked=item.isChecked() if item.isCheckable() else None,
            focused=False,
            selected=False,
            disabled=not item.isEnabled(),
        )
        elements.append(
            Element(bbox=box, type=ElementType.MENU_ITEM, text=_clean(item.text()), state=state, source="qt")
        )
    return menu_rect, elements


def _occlude(elements: list[Element], cover: QRect) -> list[Element]:
    """Elements as seen with ``cover`` drawn over them: hidden ones dropped, half-hidden ones trimmed."""
    cx1, cy1, cx2, cy2 = cover.x(), cover.y(), cover.x() + cover.width(), cover.y() + cover.height()
    kept = []
    for element in elements:
        x1, y1, x2, y2 = element.bbox
        if x2 <= cx1 or x1 >= cx2 or y2 <= cy1 or y1 >= cy2:
            kept.append(element)
            continue
        spans_x, spans_y = cx1 <= x1 and x2 <= cx2, cy1 <= y1 and y2 <= cy2
        box: tuple[int, int, int, int] | None = None
        if spans_x and y1 < cy1:
            box = (x1, y1, x2, cy1)  # the cover hides the element's lower part
        elif spans_x and y2 > cy2:
            box = (x1, cy2, x2, y2)
        elif spans_y and x1 < cx1:
            box = (x1, y1, cx1, y2)
        elif spans_y and x2 > cx2:
            box = (cx2, y1, x2, y2)
        if element.type is ElementType.TEXT:
            continue  # partly hidden text: no text element
        if box is not None and box[2] - box[0] >= 8 and box[3] - box[1] >= 8:
            kept.append(element.replace(bbox=box, text=None))  # its text is partly hidden
    return kept


__all__ = ["QtRenderer", "load_icon_catalogue"]
