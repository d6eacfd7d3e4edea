"""Design-system looks for the synthetic web pages: the same widgets dressed by real CSS frameworks.

A detector trained on one hand-written stylesheet fails on the next look, so a page picks a look:
``native`` (the generator's own themed stylesheet) or a real framework's CSS as shipped in PyPI wheels
(MIT): Bootstrap 5 and 4 with their Bootswatch themes (``bootstrap-flask``) and Bulma
(``django-bulma``). A :class:`Look` maps the generator's widget roles to the framework's class names;
labels still come from the DOM's tags and ARIA roles, so they do not depend on the look.
The CSS is inlined with its ``@import`` lines (web fonts from a CDN) removed: pages render offline.
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

# Widget roles the generator asks classes for; a look maps each to the framework's class names.
NATIVE_CLASSES: dict[str, str] = {
    "card": "card",
    "btn": "btn",
    "btn-primary": "btn primary",
    "ibtn": "ibtn",
    "ibtn-boxed": "ibtn boxed",
    "input": "",
    "textarea": "",
    "select": "",
    "select-wrap": "",
    "check": "",
    "check-wrap": "x-row",
    "range": "",
    "switch": "switch",
    "table": "",
    "tablist": "x-row x-tabs",
    "tab": "",
    "tab-active": "",
    "menu": "",
    "menuitem": "",
    "menuitem-active": "highlighted",
    "menuitem-disabled": "disabled",
    "list": "list",
    "listitem": "",
    "listitem-active": "selected",
    "bar": "bar",
    "sidebar": "sidebar",
    "navlink": "",
    "navlink-active": "active",
    "label": "",
    "muted": "muted",
}

BOOTSTRAP5_CLASSES: dict[str, str] = {
    "card": "card x-card",
    "btn": "btn btn-outline-secondary",
    "btn-primary": "btn btn-primary",
    "ibtn": "btn btn-link x-ibtn",
    "ibtn-boxed": "btn btn-sm btn-outline-secondary x-ibtn",
    "input": "form-control",
    "textarea": "form-control",
    "select": "form-select",
    "select-wrap": "",
    "check": "form-check-input",
    "check-wrap": "form-check x-row",
    "range": "form-range",
    "switch": "form-check-input",
    "table": "table table-hover",
    "tablist": "nav nav-tabs",
    "tab": "nav-link",
    "tab-active": "nav-link active",
    "menu": "dropdown-menu show",
    "menuitem": "dropdown-item",
    "menuitem-active": "dropdown-item active",
    "menuitem-disabled": "dropdown-item disabled",
    "list": "list-group list-group-flush",
    "listitem": "list-group-item",
    "listitem-active": "list-group-item active",
    "bar": "navbar bg-body-tertiary x-bar",
    "sidebar": "nav flex-column x-sidebar",
    "navlink": "nav-link",
    "navlink-active": "nav-link active",
    "label": "form-label",
    "muted": "text-muted",
}

BOOTSTRAP4_CLASSES: dict[str, str] = {
    **BOOTSTRAP5_CLASSES,
    "select": "custom-select",
    "range": "custom-range",
    "bar": "navbar navbar-light bg-light x-bar",
    "label": "",
}

BULMA_CLASSES: dict[str, str] = {
    "card": "card x-card",
    "btn": "button",
    "btn-primary": "button is-primary",
    "ibtn": "button is-white x-ibtn",
    "ibtn-boxed": "button is-small x-ibtn",
    "input": "input",
    "textarea": "textarea",
    "select": "",
    "select-wrap": "select",
    "check": "",
    "check-wrap": "checkbox x-row",
    "range": "",
    "switch": "switch",
    "table": "table is-fullwidth is-hoverable",
    "tablist": "tabs x-row",
    "tab": "button is-text",
    "tab-active": "button is-link is-light",
    "menu": "dropdown-content",
    "menuitem": "dropdown-item",
    "menuitem-active": "dropdown-item is-active",
    "menuitem-disabled": "dropdown-item has-text-grey-light",
    "list": "panel",
    "listitem": "panel-block",
    "listitem-active": "panel-block is-active has-background-link-light",
    "bar": "navbar has-shadow x-bar",
    "sidebar": "menu x-sidebar",
    "navlink": "",
    "navlink-active": "is-active",
    "label": "label",
    "muted": "has-text-grey",
}

_IMPORT = re.compile(r"@import\s+url\([^)]*\)\s*;?|@import\s+['\"][^'\"]*['\"]\s*;?")


@dataclass(frozen=True)
class Look:
    """A look: its name, its stylesheet (None for native) and class names per widget role."""

    name: str
    css_path: Path | None
    classes: dict[str, str] = field(default_factory=lambda: dict(NATIVE_CLASSES))
    dark: bool = False
    framework: str = "native"
    family: str = "native"

    def cls(self, role: str) -> str:
        """The class attribute value for a widget role."""
        return self.classes[role]

    def css(self) -> str:
        """The framework stylesheet, offline (``@import`` removed); empty for native."""
        return "" if self.css_path is None else _offline_css(self.css_path)


@lru_cache(maxsize=64)
def _offline_css(path: Path) -> str:
    return _IMPORT.sub("", path.read_text(encoding="utf-8"))


def _package_dir(module: str) -> Path | None:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


DARK_BOOTSWATCH = frozenset({"cyborg", "darkly", "slate", "solar", "superhero", "vapor", "quartz"})


@lru_cache(maxsize=1)
def framework_looks() -> tuple[Look, ...]:
    """Every framework look whose CSS is installed (the ``training`` extra installs all of them)."""
    looks: list[Look] = []
    bootstrap = _package_dir("flask_bootstrap")
    if bootstrap is not None:
        for major, classes in (("5", BOOTSTRAP5_CLASSES), ("4", BOOTSTRAP4_CLASSES)):
            root = bootstrap / "static" / f"bootstrap{major}" / "css"
            family = f"bootstrap{major}"
            plain = root / "bootstrap.min.css"
            if plain.exists():
                looks.append(Look(family, plain, classes, False, "bootstrap", family))
                if major == "5":  # Bootstrap 5.3 colour modes: the same CSS in dark
                    looks.append(Look(f"{family}-dark", plain, classes, True, "bootstrap", family))
            themes = root / "bootswatch"
            for theme in sorted(themes.iterdir()) if themes.is_dir() else []:
                css = theme / "bootstrap.min.css"
                if css.exists():
                    dark = theme.name in DARK_BOOTSWATCH
                    name = f"bootswatch{major}-{theme.name}"
                    looks.append(Look(name, css, classes, dark, "bootstrap", family))
    bulma = _package_dir("bulma")
    if bulma is not None and (bulma / "static/bulma/css/style.min.css").exists():
        css = bulma / "static/bulma/css/style.min.css"
        looks.append(Look("bulma", css, BULMA_CLASSES, False, "bulma", "bulma"))
        looks.append(Look("bulma-dark", css, BULMA_CLASSES, True, "bulma", "bulma"))
    return tuple(looks)


NATIVE = Look("native", None)
LOOK_LICENCES = {
    "bootstrap": "MIT (Bootstrap and Bootswatch, via the bootstrap-flask wheel)",
    "bulma": "MIT (Bulma, via the django-bulma wheel)",
    "native": "this project's own stylesheet",
}
