"""Synthetic web pages rendered in headless Chromium, labelled from the DOM.

:func:`generate_page` builds one page (HTML + CSS strings, no network) from a seed: a page kind
(login, sign-up, toolbar, menu, dialog, table, list, tabs, cards, search, settings, dashboard,
inbox, checkout, chat, file manager, wizard) in one of three layout
variants, a random theme (fonts installed in Debian, sizes, colours, dark mode, density, borders,
shadows), random widget state (checked, focused, disabled, selected) and icon-font glyphs from the icon
pack (``icons/index.json``; fonts from qtawesome's ``fonts/`` folder, loaded with ``@font-face`` from
``file://`` URLs). :class:`WebRenderer` renders it at a random viewport, from a phone (412x915 at device
scale 2.6) to desktops (scale 1 and 2), and labels it with :mod:`training.data.sources.dom`.
The template name is ``web/<kind>/v<variant>``.
"""

from __future__ import annotations

import html
import importlib.util
import json
import random
import shutil
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import TracebackType

from PIL import Image
from selenium import webdriver

from training.data.labels import ScreenLabels
from training.data.sources.dom import (
    close_driver,
    labelled_screen,
    make_driver,
    screenshot,
    set_viewport,
    wait_for_fonts,
)
from training.data.sources.looks import NATIVE, Look, framework_looks

REPO = Path(__file__).resolve().parents[3]
ICON_INDEX = REPO / "icons" / "index.json"
KINDS = (
    "login",
    "signup",
    "toolbar",
    "menu",
    "dialog",
    "table",
    "list",
    "tabs",
    "cards",
    "search",
    "settings",
    "dashboard",
    "inbox",
    "checkout",
    "chat",
    "files",
    "wizard",
)
VARIANTS = 3
FONTS = (
    "DejaVu Sans",
    "DejaVu Serif",
    "DejaVu Sans Mono",
    "Liberation Sans",
    "Liberation Serif",
    "Liberation Sans Narrow",
    "DejaVu Sans Condensed",
)
# (css width, css height, device scale, mobile)
VIEWPORTS = (
    (412, 915, 2.6, True),
    (1280, 720, 1.0, False),
    (1366, 768, 1.0, False),
    (1440, 900, 1.0, False),
    (1920, 1080, 1.0, False),
    (2560, 1440, 1.0, False),
    (1280, 720, 2.0, False),
    (1440, 900, 2.0, False),
)
# fmt: off
COMMON_ICONS = (
    "search", "settings", "close", "menu", "home", "user", "mail", "delete", "edit", "copy", "share",
    "star", "heart", "bell", "plus", "download", "upload", "filter", "refresh", "calendar", "lock", "eye",
    "folder", "file", "check", "print", "save", "send", "phone", "camera", "image", "play", "pause",
    "bookmark", "cart", "info", "help", "logout", "link", "cloud", "list", "sort", "minus", "undo", "redo",
    "more vertical", "chevron down", "chevron left", "chevron right", "arrow left", "arrow right",
)
WORDS = (
    "account", "billing", "profile", "project", "report", "invoice", "order", "customer", "team", "member",
    "task", "note", "document", "message", "calendar", "event", "product", "payment", "address", "password",
    "security", "privacy", "storage", "network", "device", "backup", "update", "language", "region",
    "theme", "display", "sound", "notification", "history", "activity", "dashboard", "analytics", "export",
    "import",
)
NAMES = (
    "Alice", "Bob", "Carla", "Deepak", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kemal", "Lena",
    "Mateo", "Nora", "Omar", "Priya",
)
# fmt: on
ACCENTS = (
    "#1a73e8",
    "#0b57d0",
    "#d93025",
    "#188038",
    "#f29900",
    "#9334e6",
    "#e52592",
    "#12b5cb",
    "#5f6368",
    "#202124",
    "#ff6d00",
    "#795548",
    "#3949ab",
    "#00897b",
)


@lru_cache(maxsize=1)
def icon_catalogue() -> dict[str, list[tuple[str, str]]]:
    """Human icon name -> [(font set, codepoint hex)] for the common names present in the pack."""
    index = json.loads(ICON_INDEX.read_text())
    wanted = set(COMMON_ICONS)
    out: dict[str, list[tuple[str, str]]] = {}
    for name, font_set, _glyph, codepoint in index["templates"]:
        if name in wanted:
            out.setdefault(name, []).append((font_set, codepoint))
    return {k: sorted(v) for k, v in sorted(out.items())}


@lru_cache(maxsize=1)
def icon_fonts() -> dict[str, Path]:
    """Font set -> TTF path in qtawesome's fonts folder (qtawesome itself is never imported)."""
    spec = importlib.util.find_spec("qtawesome")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the qtawesome package (icon fonts) is not installed")
    folder = Path(next(iter(spec.submodule_search_locations))) / "fonts"
    sets = json.loads(ICON_INDEX.read_text())["sets"]
    return {name: folder / info["font"] for name, info in sorted(sets.items())}


@dataclass
class Theme:
    """Colours, type and spacing of one page."""

    font: str
    size: int
    bg: str
    surface: str
    fg: str
    muted: str
    border: str
    accent: str
    radius: int
    pad: int
    shadow: str
    dark: bool

    @classmethod
    def random(cls, rng: random.Random) -> Theme:
        """A random light or dark theme."""
        dark = rng.random() < 0.3
        accent = rng.choice(ACCENTS)
        if dark:
            bg, surface, fg, muted, border = rng.choice(
                [
                    ("#121212", "#1e1e1e", "#e8eaed", "#9aa0a6", "#3c4043"),
                    ("#0d1117", "#161b22", "#c9d1d9", "#8b949e", "#30363d"),
                    ("#202124", "#2d2e31", "#f1f3f4", "#bdc1c6", "#5f6368"),
                ]
            )
        else:
            bg, surface, fg, muted, border = rng.choice(
                [
                    ("#ffffff", "#ffffff", "#202124", "#5f6368", "#dadce0"),
                    ("#f5f5f5", "#ffffff", "#111111", "#666666", "#cccccc"),
                    ("#f0f4f9", "#ffffff", "#1f1f1f", "#444746", "#c4c7c5"),
                    ("#fafaf7", "#fffdf5", "#2b2b2b", "#77756f", "#d8d4c8"),
                ]
            )
        shadow = rng.choice(["none", "0 1px 3px rgba(0,0,0,.25)", "0 4px 16px rgba(0,0,0,.2)"])
        return cls(
            font=rng.choice(FONTS),
            size=rng.choice([12, 13, 14, 15, 16, 18]),
            bg=bg,
            surface=surface,
            fg=fg,
            muted=muted,
            border=border,
            accent=accent,
            radius=rng.choice([0, 2, 4, 6, 8, 12, 20]),
            pad=rng.choice([4, 6, 8, 10, 12, 16]),
            shadow=shadow,
            dark=dark,
        )

    def structure_css(self) -> str:
        """Layout rules every look needs (flex rows, grids, overlays, the menu's position)."""
        t = self
        return f"""
*{{box-sizing:border-box;transition:none!important;animation:none!important;caret-color:transparent}}
html,body{{margin:0}}
.x-row{{display:flex;align-items:center;gap:{t.pad}px;flex-wrap:wrap}}
.x-grow{{flex:1}}
.x-field{{margin:{t.pad}px 0;display:flex;gap:{t.pad}px}} .x-field.col{{flex-direction:column}}
.x-grid{{display:grid;grid-template-columns:repeat(auto-fill,minmax(220px,1fr));gap:{t.pad}px}}
.x-card{{padding:{t.pad * 2}px;margin:{t.pad}px}}
.x-bar{{display:flex;align-items:center;flex-wrap:nowrap;gap:{t.pad}px;padding:{t.pad}px {t.pad * 2}px}}
.x-sidebar{{width:220px;padding:{t.pad}px;flex-wrap:nowrap}}
.x-ibtn{{padding:{t.pad // 2 + 2}px;margin:1px}}
.x-tabs ul{{margin:0}}
[role=menu]{{position:absolute;z-index:5;min-width:180px;display:block}}
.overlay{{position:fixed;inset:0;background:rgba(0,0,0,.5);z-index:10}}
.dialog{{position:fixed;z-index:11;left:50%;top:50%;transform:translate(-50%,-50%);max-width:90vw;
 width:{420 + t.pad * 10}px}}
.ic{{font-style:normal;line-height:1;display:inline-block}}
.switch{{width:{t.size * 2 + 6}px;height:{t.size + 6}px;border-radius:{t.size}px;border:none;
 background:{t.border};position:relative;padding:0}}
.switch::after{{content:'';position:absolute;top:3px;left:3px;width:{t.size}px;height:{t.size}px;
 border-radius:50%;background:#fff}}
.switch[aria-checked=true]{{background:{t.accent}}} .switch[aria-checked=true]::after{{left:{t.size + 3}px}}
"""

    def css(self) -> str:
        """The native look's stylesheet (colours, borders, fonts), on top of :meth:`structure_css`."""
        t = self
        return f"""
html,body{{background:{t.bg};color:{t.fg};font-family:'{t.font}';font-size:{t.size}px}}
a{{color:{t.accent}}} .muted{{color:{t.muted}}}
.card{{background:{t.surface};border:1px solid {t.border};border-radius:{t.radius}px;box-shadow:{t.shadow};
 padding:{t.pad * 2}px;margin:{t.pad}px}}
.btn{{font:inherit;padding:{t.pad}px {t.pad * 2}px;border-radius:{t.radius}px;border:1px solid {t.border};
 background:{t.surface};color:{t.fg};margin:{t.pad // 2}px}}
.btn.primary{{background:{t.accent};color:#fff;border-color:{t.accent}}}
.btn:disabled{{opacity:.5}}
.ibtn{{font:inherit;background:transparent;border:none;color:inherit;padding:{t.pad // 2 + 2}px;
 border-radius:{t.radius}px;margin:1px}}
.ibtn.boxed{{border:1px solid {t.border}}}
input,select,textarea{{font:inherit;color:{t.fg};background:{t.surface};border:1px solid {t.border};
 border-radius:{t.radius // 2}px;padding:{t.pad}px;accent-color:{t.accent}}}
input[type=checkbox],input[type=radio]{{width:{t.size + 2}px;height:{t.size + 2}px;vertical-align:middle}}
input:focus,select:focus,textarea:focus,button:focus{{outline:2px solid {t.accent};outline-offset:1px}}
.bar{{background:{t.surface};border-bottom:1px solid {t.border}}}
[role=tab]{{font:inherit;background:none;border:none;color:{t.muted};padding:{t.pad}px {t.pad * 2}px;
 border-bottom:2px solid transparent}}
[role=tab][aria-selected=true]{{color:{t.accent};border-bottom-color:{t.accent}}}
.x-tabs{{border-bottom:1px solid {t.border}}}
[role=menu]{{background:{t.surface};border:1px solid {t.border};box-shadow:0 4px 16px rgba(0,0,0,.3);
 border-radius:{t.radius // 2}px;padding:4px 0}}
[role=menuitem]{{display:flex;gap:{t.pad}px;align-items:center;padding:{t.pad}px {t.pad * 2}px}}
[role=menuitem].highlighted{{background:{t.border}}}
[role=menuitem].disabled{{opacity:.45}}
ul.list{{list-style:none;margin:0;padding:0}}
ul.list li{{padding:{t.pad}px {t.pad * 2}px;border-bottom:1px solid {t.border};display:flex;gap:{t.pad}px;
 align-items:center}}
ul.list li.selected{{background:{t.accent}22}}
table{{border-collapse:collapse;width:100%}} td,th{{padding:{t.pad}px;border-bottom:1px solid {t.border};
 text-align:left}}
.sidebar{{border-right:1px solid {t.border};background:{t.surface}}}
.sidebar a{{display:flex;gap:{t.pad}px;align-items:center;padding:{t.pad}px;text-decoration:none;
 color:{t.fg}}}
.sidebar a.active{{color:{t.accent};font-weight:bold}}
"""


@dataclass
class Page:
    """A generated page: HTML, template name and a few facts the tests can check."""

    html: str
    template: str
    kind: str
    variant: int
    fonts: set[str] = field(default_factory=set)
    look: str = "native"


class Builder:
    """HTML snippets with the seed's random choices (one per page)."""

    def __init__(self, rng: random.Random, theme: Theme, look: Look = NATIVE) -> None:
        self.rng = rng
        self.t = theme
        self.look = look
        self.fonts: set[str] = set()
        self.focus_done = False
        self.icon_set = rng.choice(sorted(icon_fonts()))

    # -- text -------------------------------------------------------------------------------------
    def word(self) -> str:
        """A random UI noun."""
        return self.rng.choice(WORDS)

    def title(self, n: int = 2) -> str:
        """A capitalised phrase of ``n`` words."""
        return " ".join(self.word() for _ in range(n)).capitalize()

    def sentence(self) -> str:
        """A short sentence."""
        return (" ".join(self.word() for _ in range(self.rng.randint(5, 12))) + ".").capitalize()

    # -- state ------------------------------------------------------------------------------------
    def focus_attr(self, p: float = 0.15) -> str:
        """Mark at most one element per page to receive focus."""
        if not self.focus_done and self.rng.random() < p:
            self.focus_done = True
            return " data-focus"
        return ""

    def disabled_attr(self, p: float = 0.1) -> str:
        """``disabled`` with probability ``p``."""
        return " disabled" if self.rng.random() < p else ""

    # -- widgets ----------------------------------------------------------------------------------
    def icon(self, name: str | None = None, size: int | None = None, color: str | None = None) -> str:
        """An icon-font glyph labelled with the pack's human name."""
        catalogue = icon_catalogue()
        name = name if name in catalogue else self.rng.choice(sorted(catalogue))
        options = catalogue[name]
        same_set = [o for o in options if o[0] == self.icon_set]
        font_set, codepoint = (
            (same_set or options)[0] if self.rng.random() < 0.8 else self.rng.choice(options)
        )
        self.fonts.add(font_set)
        size = size or self.t.size + self.rng.choice([0, 2, 4, 8])
        style = f"font-family:'ic-{font_set}';font-size:{size}px" + (f";color:{color}" if color else "")
        return f'<i class="ic" data-icon="{html.escape(name)}" style="{style}">&#x{codepoint};</i>'

    def c(self, role: str) -> str:
        """The look's class attribute for a widget role (see :mod:`training.data.sources.looks`)."""
        return self.look.cls(role)

    def icon_button(self, name: str | None = None) -> str:
        """An icon-only button (label: the button and its glyph, both carrying the icon name)."""
        name = name if name in icon_catalogue() else self.rng.choice(sorted(icon_catalogue()))
        cls = self.c("ibtn-boxed" if self.rng.random() < 0.3 else "ibtn")
        return (
            f'<button class="{cls}" aria-label="{name}" data-icon-name="{name}"'
            f"{self.focus_attr(0.05)}{self.disabled_attr(0.05)}>{self.icon(name)}</button>"
        )

    def button(self, text: str, primary: bool = False, icon: str | None = None) -> str:
        """A text button, optionally with a leading icon."""
        cls = self.c("btn-primary" if primary else "btn")
        lead = self.icon(icon, size=self.t.size) + " " if icon else ""
        return (
            f'<button class="{cls}"{self.focus_attr(0.05)}{self.disabled_attr(0.08)}>{lead}'
            f"{html.escape(text)}</button>"
        )

    def text_input(self, label: str, kind: str = "text", value: str = "") -> str:
        """A labelled text field (label above or beside it)."""
        col = " col" if self.rng.random() < 0.6 else ""
        placeholder = f"Enter {label.lower()}" if self.rng.random() < 0.7 else ""
        value = value if self.rng.random() < 0.5 else ""
        return (
            f'<div class="x-field{col}"><label class="{self.c("label")}">{html.escape(label)}</label>'
            f'<input class="{self.c("input")}" type="{kind}" '
            f'placeholder="{html.escape(placeholder)}" value="{html.escape(value)}"'
            f"{self.focus_attr(0.3)}{self.disabled_attr(0.06)}></div>"
        )

    def textarea(self, placeholder: str = "Notes") -> str:
        """A multi-line text field."""
        return (
            f'<textarea class="{self.c("textarea")}" rows="3" '
            f'placeholder="{html.escape(placeholder)}"></textarea>'
        )

    def checkbox(self, label: str, kind: str = "checkbox", name: str = "c") -> str:
        """A checkbox or radio button with its label."""
        checked = " checked" if self.rng.random() < 0.5 else ""
        return (
            f'<label class="{self.c("check-wrap")}"><input class="{self.c("check")}" type="{kind}" '
            f'name="{name}"{checked}{self.focus_attr(0.05)}'
            f"{self.disabled_attr(0.1)}> {html.escape(label)}</label>"
        )

    def toggle(self, label: str) -> str:
        """An on/off switch (role=switch) with its label."""
        on = self.rng.random() < 0.5
        disabled = self.disabled_attr(0.08)
        if self.look.framework == "bootstrap":
            return (
                '<div class="form-check form-switch x-row">'
                f'<label class="x-grow">{html.escape(label)}</label>'
                f'<input class="form-check-input" type="checkbox" role="switch"'
                f"{' checked' if on else ''}{disabled}></div>"
            )
        return (
            f'<div class="x-row"><span class="x-grow">{html.escape(label)}</span><button class="switch" '
            f'role="switch" aria-checked="{"true" if on else "false"}"{disabled}></button></div>'
        )

    def select(self, label: str) -> str:
        """A labelled native drop-down."""
        options = [self.title(1) for _ in range(self.rng.randint(2, 5))]
        opts = "".join(f"<option>{html.escape(o)}</option>" for o in options)
        control = (
            f'<select class="{self.c("select")}"{self.focus_attr(0.05)}{self.disabled_attr(0.06)}>'
            f"{opts}</select>"
        )
        if self.c("select-wrap"):
            control = f'<div class="{self.c("select-wrap")}">{control}</div>'
        label_html = f'<label class="{self.c("label")}">{html.escape(label)}</label>'
        return f'<div class="x-field">{label_html}{control}</div>'

    def slider(self, label: str) -> str:
        """A labelled range slider."""
        return (
            f'<div class="x-field"><label class="{self.c("label")}">{html.escape(label)}</label>'
            f'<input class="{self.c("range")}" type="range" min="0" max="100" '
            f'value="{self.rng.randint(0, 100)}"{self.disabled_attr(0.06)}></div>'
        )

    def link(self, text: str) -> str:
        """A hyperlink."""
        return f'<a href="#">{html.escape(text)}</a>'

    def header(self) -> str:
        """An app bar with a title, a search box and icon buttons."""
        icons = "".join(self.icon_button(n) for n in self.rng.sample(COMMON_ICONS, self.rng.randint(1, 4)))
        search = (
            f'<input class="{self.c("input")}" type="search" placeholder="Search" style="width:240px"'
            f"{self.focus_attr(0.1)}>"
            if self.rng.random() < 0.5
            else ""
        )
        return (
            f'<div class="{self.c("bar")}" role="toolbar">{self.icon_button("menu")}<b>{self.title(1)}</b>'
            f'<span class="x-grow"></span>{search}{icons}</div>'
        )

    def sidebar(self) -> str:
        """A navigation column of icon + text links."""
        active = self.rng.randint(0, 4)
        items = "".join(
            f'<a href="#" class="{self.c("navlink-active" if i == active else "navlink")}">'
            f"{self.icon()} {self.title(1)}</a>"
            for i in range(self.rng.randint(4, 8))
        )
        return f'<nav class="{self.c("sidebar")}">{items}</nav>'

    def tabs(self) -> str:
        """A tab strip with one selected tab."""
        n = self.rng.randint(2, 6)
        sel = self.rng.randrange(n)
        tabs = "".join(
            f'<button role="tab" class="{self.c("tab-active" if i == sel else "tab")}" '
            f'aria-selected="{"true" if i == sel else "false"}">{self.title(1)}</button>'
            for i in range(n)
        )
        return f'<div role="tablist" class="{self.c("tablist")}">{tabs}</div>'

    def menu(self, left: int, top: int) -> str:
        """An open menu at ``left``, ``top`` (CSS px) with one highlighted and maybe a disabled item."""
        n = self.rng.randint(3, 8)
        hl = self.rng.randrange(n)
        items = []
        for i in range(n):
            role = (
                "menuitem-active"
                if i == hl
                else ("menuitem-disabled" if self.rng.random() < 0.12 else "menuitem")
            )
            aria = ' aria-disabled="true"' if role == "menuitem-disabled" else ""
            lead = self.icon() if self.rng.random() < 0.5 else ""
            items.append(
                f'<div role="menuitem" class="{self.c(role)}"{aria}>{lead}<span>{self.title(1)}</span></div>'
            )
        return (
            f'<div role="menu" class="{self.c("menu")}" style="left:{left}px;top:{top}px">'
            f"{''.join(items)}</div>"
        )

    def list_items(self, n: int) -> str:
        """A list with icons, text and a trailing action; one item may be selected."""
        sel = self.rng.randrange(n) if self.rng.random() < 0.5 else -1
        rows = []
        for i in range(n):
            selected = ' aria-selected="true"' if i == sel else ""
            cls = self.c("listitem-active" if i == sel else "listitem")
            action = self.icon_button() if self.rng.random() < 0.4 else ""
            rows.append(
                f'<li class="{cls} x-row"{selected}>{self.icon()}<span class="x-grow">'
                f"{self.rng.choice(NAMES)} - {self.title(2)}</span>{action}</li>"
            )
        return f'<ul class="{self.c("list")}" style="list-style:none;padding:0;margin:0">{"".join(rows)}</ul>'

    def table(self, rows: int) -> str:
        """A data table with selection checkboxes, links and row actions."""
        cols = [self.title(1) for _ in range(self.rng.randint(2, 5))]
        head = "<th></th>" + "".join(f"<th>{c}</th>" for c in cols) + "<th></th>"
        body = []
        for _ in range(rows):
            cells = [f"<td>{self.link(self.rng.choice(NAMES))}</td>"] + [
                f"<td>{self.rng.choice([self.word(), str(self.rng.randint(1, 9999))])}</td>" for _ in cols[1:]
            ]
            check = (
                f'<td><input class="{self.c("check")}" type="checkbox"'
                + (" checked" if self.rng.random() < 0.3 else "")
                + "></td>"
            )
            body.append(f"<tr>{check}{''.join(cells)}<td>{self.icon_button()}</td></tr>")
        return (
            f'<table class="{self.c("table")}"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>"
        )

    def image(self, w: int, h: int) -> str:
        """A picture placeholder (an inline SVG scene)."""
        c1, c2 = self.rng.sample(ACCENTS, 2)
        return (
            f'<svg width="{w}" height="{h}" viewBox="0 0 {w} {h}" style="display:block;max-width:100%">'
            f'<rect width="{w}" height="{h}" fill="{c1}"/><circle cx="{w * 0.3:.0f}" cy="{h * 0.4:.0f}" '
            f'r="{h * 0.2:.0f}" fill="{c2}"/><path d="M0 {h} L{w * 0.5:.0f} {h * 0.5:.0f} L{w} {h}Z" '
            f'fill="#ffffff55"/></svg>'
        )


def _body(b: Builder, kind: str, variant: int) -> str:
    """The page content for one kind and layout variant."""
    rng = b.rng
    card, bar_cls, muted, field = b.c("card"), b.c("bar"), b.c("muted"), b.c("input")
    if kind in ("login", "signup"):
        fields = [
            b.text_input("Email", "email", "me@example.com"),
            b.text_input("Password", "password", "secret"),
        ]
        if kind == "signup":
            fields = [
                b.text_input("Full name", "text", rng.choice(NAMES)),
                *fields,
                b.text_input("Confirm password", "password"),
                b.select("Country"),
            ]
        extras = b.checkbox("Remember me" if kind == "login" else "I accept the terms")
        social = "".join(b.icon_button(n) for n in ("mail", "phone", "user")) if variant == 2 else ""
        form = (
            f'<div class="{card}" style="width:{rng.choice([320, 360, 420])}px"><h2>'
            f"{'Sign in' if kind == 'login' else 'Create account'}</h2>{''.join(fields)}{extras}"
            f'<div class="x-row">{b.button("Sign in" if kind == "login" else "Sign up", True)}'
            f'{b.link("Forgot password?")}</div><div class="x-row">{social}</div></div>'
        )
        if variant == 0:
            return f'<div style="display:flex;justify-content:center;padding-top:6vh">{form}</div>'
        if variant == 1:
            return (
                f'<div style="display:flex">{b.image(480, 700)}<div style="padding:40px">{form}</div></div>'
            )
        return f'{b.header()}<div style="padding:20px">{form}</div>'
    if kind == "toolbar":
        tools = "".join(b.icon_button() for _ in range(rng.randint(4, 12)))
        bar = (
            f'<div class="{bar_cls}" role="toolbar">{tools}<span class="x-grow"></span>'
            f"{b.select('Zoom')}</div>"
        )
        doc = "".join(f"<p>{b.sentence()}</p>" for _ in range(rng.randint(3, 8)))
        if variant == 0:
            return f'{b.header()}{bar}<div class="{card}">{doc}</div>'
        if variant == 1:
            return f'{bar}<div style="display:flex">{b.sidebar()}<div class="{card} x-grow">{doc}</div></div>'
        return f'<div class="{card}">{bar}{doc}{b.button("Save", True, "save")}{b.button("Cancel")}</div>'
    if kind == "menu":
        opened = variant != 0 or rng.random() < 0.3
        menu = b.menu(rng.randint(10, 200), rng.randint(40, 90)) if opened else ""
        content = b.list_items(rng.randint(4, 10)) if variant == 2 else b.table(rng.randint(3, 8))
        return f'<div style="position:relative">{b.header()}{menu}<div class="{card}">{content}</div></div>'
    if kind == "dialog":
        under = f'{b.header()}<div class="{card}">{b.list_items(rng.randint(4, 9))}</div>'
        inner = (
            f"<h3>{b.title(3)}</h3><p>{b.sentence()}</p>"
            + (b.text_input(b.title(1)) if variant >= 1 else "")
            + (b.checkbox("Don't ask again") if variant == 2 else "")
        )
        buttons = (
            '<div class="x-row" style="justify-content:flex-end">'
            f"{b.button('Cancel')}{b.button('OK', True)}</div>"
        )
        close = f'<div class="x-row"><span class="x-grow"></span>{b.icon_button("close")}</div>'
        dialog = (
            f'<div class="overlay"></div><div class="{card} dialog" role="dialog">'
            f"{close}{inner}{buttons}</div>"
        )
        return under + dialog
    if kind == "table":
        table = f'<div class="{card}">{b.table(rng.randint(4, 14))}</div>'
        pager = (
            f'<div class="x-row">{b.icon_button("chevron left")}<span>1 of {rng.randint(2, 30)}</span>'
            f"{b.icon_button('chevron right')}</div>"
        )
        if variant == 0:
            return b.header() + table + pager
        if variant == 1:
            return f'<div style="display:flex">{b.sidebar()}<div class="x-grow">{table}{pager}</div></div>'
        return (
            f'<div class="{bar_cls}">{b.button("New", True, "plus")}{b.button("Export", False, "download")}'
            f'<span class="x-grow"></span><input class="{field}" type="search" placeholder="Filter">'
            f"</div>{table}"
        )
    if kind == "list":
        lst = b.list_items(rng.randint(4, 12))
        if variant == 0:
            return b.header() + f'<div class="{card}">{lst}</div>'
        if variant == 1:
            return f'<div style="display:flex">{b.sidebar()}<div class="{card} x-grow">{lst}</div></div>'
        return f'<div class="{card}" style="max-width:480px">{b.tabs()}{lst}</div>'
    if kind == "tabs":
        panel = "".join(f"<p>{b.sentence()}</p>" for _ in range(rng.randint(2, 5)))
        form = "".join(b.checkbox(b.title(2)) for _ in range(rng.randint(1, 4)))
        if variant == 0:
            return f'{b.header()}{b.tabs()}<div class="{card}">{panel}{form}</div>'
        if variant == 1:
            return f'<div class="{card}">{b.tabs()}{panel}{b.button("Apply", True)}</div>'
        side = f'<div style="display:flex">{b.sidebar()}<div class="{card} x-grow">{panel}</div></div>'
        return b.tabs() + side
    if kind == "cards":
        cards = "".join(
            f'<div class="{card}">{b.image(rng.choice([200, 260]), rng.choice([100, 140]))}'
            f"<h4>{b.title(2)}</h4>"
            f'<p class="{muted}">{b.sentence()}</p>'
            f'<div class="x-row">{b.button(b.title(1), rng.random() < 0.5)}'
            f"{b.icon_button('heart')}{b.icon_button('share')}</div></div>"
            for _ in range(rng.randint(2, 8))
        )
        grid = f'<div class="x-grid">{cards}</div>'
        if variant == 1:
            return f'<div style="display:flex">{b.sidebar()}<div class="x-grow">{grid}</div></div>'
        return (b.header() if variant == 0 else b.tabs()) + grid
    if kind == "search":
        box = (
            f'<div class="x-row" style="padding:16px">{b.icon("search")}'
            f'<input class="{field}" type="search" style="flex:1" '
            f'placeholder="Search {b.word()}s" value="{b.word() if rng.random() < 0.6 else ""}"'
            f"{b.focus_attr(0.6)}>{b.button('Search', True)}</div>"
        )
        results = "".join(
            f'<div style="margin:12px 16px">{b.link(b.title(4))}'
            f'<div class="{muted}">{b.sentence()}</div></div>'
            for _ in range(rng.randint(3, 8))
        )
        filters = "".join(b.checkbox(b.title(1)) for _ in range(rng.randint(2, 5)))
        if variant == 0:
            return box + results
        if variant == 1:
            return (
                f'{b.header()}{box}<div style="display:flex"><div class="{card}">{filters}</div>'
                f'<div class="x-grow">{results}</div></div>'
            )
        return f"{box}{b.tabs()}{results}"
    if kind in ("dashboard", "inbox", "checkout", "chat", "files", "wizard"):
        return _app_body(b, kind, variant)
    # settings
    rows = []
    for _ in range(rng.randint(4, 10)):
        widget = rng.choice([b.toggle, b.select, b.slider, b.checkbox, b.text_input])
        rows.append(widget(b.title(2)))
    radios = "".join(b.checkbox(b.title(1), "radio", "r") for _ in range(rng.randint(2, 4)))
    section = (
        f'<div class="{card}"><h3>{b.title(1)}</h3>{"".join(rows)}<fieldset>{radios}</fieldset>'
        f'{b.textarea()}<div class="x-row">{b.button("Save", True)}'
        f"{b.button('Reset')}</div></div>"
    )
    if variant == 0:
        return b.header() + section
    if variant == 1:
        return f'<div style="display:flex">{b.sidebar()}<div class="x-grow">{b.tabs()}{section}</div></div>'
    return f'<div style="max-width:640px;margin:auto">{section}</div>'


def _app_body(b: Builder, kind: str, variant: int) -> str:
    """Application screens: dashboard, inbox, checkout, chat, file manager, wizard."""
    rng = b.rng
    card, muted = b.c("card"), b.c("muted")
    if kind == "dashboard":
        stats = "".join(
            f'<div class="{card}"><div class="{muted}">{b.title(1)}</div><h3>{rng.randint(10, 99999):,}</h3>'
            f'<div class="x-row">{b.icon(rng.choice(["arrow right", "chevron down"]))}'
            f"<span>{rng.randint(1, 40)}%</span>{b.link('Details')}</div></div>"
            for _ in range(rng.randint(3, 6))
        )
        chart = f'<div class="{card}"><h4>{b.title(2)}</h4>{b.image(rng.choice([480, 640]), 220)}</div>'
        filters = f'<div class="x-row">{b.select("Period")}{b.button("Refresh", False, "refresh")}</div>'
        if variant == 0:
            return f'{b.header()}<div class="x-grid">{stats}</div>{chart}'
        if variant == 1:
            return (
                f'<div style="display:flex">{b.sidebar()}<div class="x-grow">{filters}'
                f'<div class="x-grid">{stats}</div><div class="{card}">{b.table(rng.randint(3, 6))}</div>'
                "</div></div>"
            )
        return f'{b.header()}{b.tabs()}{filters}{chart}<div class="x-grid">{stats}</div>'
    if kind == "inbox":
        rows = "".join(
            f'<li class="{b.c("listitem")} x-row"><input class="{b.c("check")}" type="checkbox"'
            f"{' checked' if rng.random() < 0.2 else ''}>{b.icon_button('star')}"
            f'<b>{rng.choice(NAMES)}</b><span class="x-grow">{b.title(3)} - '
            f'<span class="{muted}">{b.sentence()}</span></span><span>{rng.randint(1, 28)} Nov</span></li>'
            for _ in range(rng.randint(5, 12))
        )
        inbox = f'<ul class="{b.c("list")}" style="list-style:none;padding:0;margin:0">{rows}</ul>'
        actions = (
            f'<div class="x-row">{b.button("Compose", True, "edit")}{b.icon_button("refresh")}'
            f"{b.icon_button('delete')}{b.icon_button('more vertical')}</div>"
        )
        if variant == 0:
            main = f'<div class="x-grow">{actions}{inbox}</div>'
            return f'{b.header()}<div style="display:flex">{b.sidebar()}{main}</div>'
        if variant == 1:
            reading = (
                f'<div class="{card}"><h3>{b.title(3)}</h3><p class="{muted}">{rng.choice(NAMES)}</p>'
                + "".join(f"<p>{b.sentence()}</p>" for _ in range(rng.randint(2, 5)))
                + f'<div class="x-row">{b.button("Reply", True, "send")}{b.button("Forward")}</div></div>'
            )
            split = f'<div style="display:grid;grid-template-columns:1fr 1fr">{inbox}{reading}</div>'
            return f"{b.header()}{actions}{split}"
        return f"{b.tabs()}{actions}{inbox}"
    if kind == "checkout":
        address = "".join(b.text_input(label) for label in ("Full name", "Address", "City", "Postal code"))
        payment = (
            "".join(b.checkbox(m, "radio", "pay") for m in ("Credit card", "PayPal", "Bank transfer"))
            + b.text_input("Card number", "text", "4242 4242 4242 4242")
            + f'<div class="x-row">{b.text_input("Expiry", "text", "12/28")}{b.text_input("CVC")}</div>'
        )
        items = "".join(
            f'<div class="x-row">{b.image(64, 64)}<span class="x-grow">{b.title(2)}</span>'
            f'<input class="{b.c("input")}" type="number" value="{rng.randint(1, 4)}" style="width:70px">'
            f"<b>${rng.randint(5, 500)}.{rng.randint(0, 99):02d}</b>{b.icon_button('delete')}</div>"
            for _ in range(rng.randint(1, 4))
        )
        summary = (
            f'<div class="{card}"><h3>Order summary</h3>{items}{b.checkbox("Gift wrap")}'
            f'<div class="x-row">{b.text_input("Coupon")}{b.button("Apply")}</div>'
            f"{b.button('Place order', True, 'cart')}</div>"
        )
        form = (
            f'<div class="{card}"><h3>Shipping</h3>{address}{b.select("Country")}'
            f"<h3>Payment</h3>{payment}</div>"
        )
        if variant == 0:
            return (
                f'{b.header()}<div style="display:grid;grid-template-columns:3fr 2fr">{form}{summary}</div>'
            )
        if variant == 1:
            return f"{form}{summary}"
        return f'<div style="max-width:720px;margin:auto">{summary}{form}</div>'
    if kind == "chat":
        bubbles = "".join(
            f'<div class="x-row" style="justify-content:{"flex-end" if i % 2 else "flex-start"}">'
            f'<div class="{card}" style="max-width:60%">{b.sentence()}</div></div>'
            for i in range(rng.randint(3, 9))
        )
        composer = (
            f'<div class="x-row">{b.icon_button("plus")}<input class="{b.c("input")} x-grow" type="text" '
            f'placeholder="Type a message"{b.focus_attr(0.5)}>{b.icon_button("send")}</div>'
        )
        people = b.list_items(rng.randint(4, 9))
        if variant == 0:
            thread = f"<div>{bubbles}{composer}</div>"
            return f'<div style="display:grid;grid-template-columns:1fr 2fr">{people}{thread}</div>'
        if variant == 1:
            return f"{b.header()}{bubbles}{composer}"
        return f'{b.tabs()}<div class="{card}">{bubbles}{composer}</div>'
    if kind == "files":
        crumbs = " / ".join(b.link(b.title(1)) for _ in range(rng.randint(2, 4)))
        tools = (
            f'<div class="{b.c("bar")}" role="toolbar">{b.button("Upload", True, "upload")}'
            f'{b.button("New folder", False, "folder")}<span class="x-grow"></span>'
            f"{b.icon_button('list')}{b.icon_button('sort')}{b.icon_button('more vertical')}</div>"
        )
        tiles = "".join(
            f'<div class="{card}" style="text-align:center">'
            f"{b.icon(rng.choice(['folder', 'file', 'image']), 40)}<div>{b.word()}_{rng.randint(1, 99)}."
            f"{rng.choice(['pdf', 'png', 'docx', 'txt', 'zip'])}</div></div>"
            for _ in range(rng.randint(4, 12))
        )
        if variant == 0:
            return f'{tools}<div style="padding:8px">{crumbs}</div><div class="x-grid">{tiles}</div>'
        if variant == 1:
            main = f'<div class="x-grow">{tools}{crumbs}{b.table(rng.randint(4, 10))}</div>'
            return f'<div style="display:flex">{b.sidebar()}{main}</div>'
        return f"{b.header()}{tools}{b.list_items(rng.randint(5, 10))}"
    # wizard
    steps = [b.title(1) for _ in range(rng.randint(3, 5))]
    current = rng.randrange(len(steps))
    stepper = (
        '<div class="x-row">'
        + "".join(
            f'<span class="x-row"><b style="border:2px solid;border-radius:50%;width:28px;height:28px;'
            "display:inline-flex;align-items:center;justify-content:center;"
            f'{"opacity:.5" if i > current else ""}">'
            f"{i + 1}</b><span>{step}</span></span>"
            for i, step in enumerate(steps)
        )
        + "</div>"
    )
    fields = "".join(
        rng.choice([b.text_input, b.select, b.checkbox, b.toggle])(b.title(2))
        for _ in range(rng.randint(2, 5))
    )
    nav = (
        f'<div class="x-row" style="justify-content:space-between">{b.button("Back")}'
        f"{b.button('Next', True)}</div>"
    )
    progress = (
        f'<progress value="{current + 1}" max="{len(steps)}" style="width:100%"></progress>'
        if variant == 2
        else ""
    )
    body = (
        f'<div class="{card}" style="max-width:760px;margin:auto">{stepper}{progress}'
        f"<h3>{steps[current]}</h3>{fields}{nav}</div>"
    )
    return (b.header() if variant == 1 else "") + body


def viewport_for(seed: int) -> tuple[int, int, float, bool]:
    """The viewport (CSS width, CSS height, device scale, mobile) a seed renders at."""
    return random.Random(f"viewport-{seed}").choice(VIEWPORTS)


SIDE_KINDS = ("list", "table", "cards", "settings", "tabs", "search")  # no overlays in a side panel


def generate_page(seed: int) -> Page:
    """The synthetic page for ``seed`` (deterministic).

    On wide viewports (1280 CSS px and more) most pages get a second panel of another kind beside the
    main one, so desktop screenshots are not mostly empty; the template stays the main kind's.
    """
    rng = random.Random(f"web-{seed}")
    kind = rng.choice(KINDS)
    variant = rng.randrange(VARIANTS)
    theme = Theme.random(rng)
    look = look_for(seed)
    b = Builder(rng, theme, look)
    body = _body(b, kind, variant)
    if viewport_for(seed)[0] >= 1280 and rng.random() < 0.6:
        side = _body(b, rng.choice(SIDE_KINDS), rng.randrange(VARIANTS))
        columns = rng.choice(["2fr 1fr", "1fr 1fr", "3fr 2fr"])
        body = (
            f'<div style="display:grid;grid-template-columns:{columns};gap:8px"><div>{body}</div>'
            f"<div>{side}</div></div>"
        )
    faces = "".join(
        f"@font-face{{font-family:'ic-{name}';src:url('{icon_fonts()[name].as_uri()}')}}"
        for name in sorted(b.fonts)
    )
    skin = theme.css() if look.css_path is None else look.css()
    mode = ' data-bs-theme="dark" data-theme="dark"' if look.dark and look.css_path is not None else ""
    doc = (
        f'<!DOCTYPE html><html{mode}><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width">'
        f"<style>{skin}</style><style>{faces}{theme.structure_css()}</style></head><body>{body}</body></html>"
    )
    return Page(
        html=doc,
        template=f"web/{kind}/v{variant}",
        kind=kind,
        variant=variant,
        fonts=set(b.fonts),
        look=look.name,
    )


# Share of pages per look family; the rest of a family's share is spread evenly over its looks.
LOOK_MIX = {"native": 0.35, "bootstrap5": 0.35, "bootstrap4": 0.15, "bulma": 0.15}


def look_for(seed: int) -> Look:
    """The look a seed renders with (its own random stream: the page's content does not depend on it)."""
    rng = random.Random(f"look-{seed}")
    families: dict[str, list[Look]] = {"native": [NATIVE]}
    for look in framework_looks():
        families.setdefault(look.family, []).append(look)
    names = [name for name in LOOK_MIX if families.get(name)]
    family = rng.choices(names, weights=[LOOK_MIX[n] for n in names])[0]
    return rng.choice(families[family])


FOCUS_JS = "const e = document.querySelector('[data-focus]'); if (e) e.focus();"


class WebRenderer:
    """Synthetic web pages in headless Chromium (see the module docstring)."""

    source = "web-synthetic"

    def __init__(self) -> None:
        self.driver: webdriver.Chrome | None = None
        self.profile: str | None = None
        self.workdir: Path | None = None

    def __enter__(self) -> WebRenderer:
        self.driver, self.profile = make_driver()
        self.workdir = Path(tempfile.mkdtemp(prefix="detact-web-"))
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        close_driver(self.driver, self.profile)
        self.driver = None
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def render_html(
        self, doc: str, width: int, height: int, scale: float, mobile: bool = False
    ) -> Image.Image:
        """Load ``doc`` at a viewport, focus its ``[data-focus]`` element, wait for fonts, screenshot."""
        if self.driver is None or self.workdir is None:
            raise RuntimeError("use the renderer as a context manager")
        path = self.workdir / "page.html"
        path.write_text(doc, encoding="utf-8")
        set_viewport(self.driver, width, height, scale, mobile)
        self.driver.get(path.as_uri())
        self.driver.execute_script(FOCUS_JS)
        wait_for_fonts(self.driver)
        return screenshot(self.driver)

    def render(self, seed: int) -> tuple[Image.Image, ScreenLabels]:
        """One synthetic page and its DOM labels."""
        page = generate_page(seed)
        width, height, scale, mobile = viewport_for(seed)
        image = self.render_html(page.html, width, height, scale, mobile)
        assert self.driver is not None
        meta = {
            "viewport": [width, height],
            "mobile": mobile,
            "icon_fonts": sorted(page.fonts),
            "look": page.look,
        }
        return labelled_screen(self.driver, self.source, page.template, seed, scale, meta, image=image)
