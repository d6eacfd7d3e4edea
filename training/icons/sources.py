"""Icon sets the classifier learns from and is tested on, and how their glyph names become UI meanings.

Fonts come from qtawesome (the same six sets as the SSIM pack); SVG sets come from npm packages
(``npm pack <package>``, unpacked under ``data/icon_src/<package>-<version>/``). Training uses the
``train`` sets only; the ``held_out`` sets are never seen in training and measure generalisation.

Names go through :func:`meaning`: set-specific style/size suffixes are dropped, a synonym table maps
the names icon sets use for one UI meaning to one word (``gear``/``cog``/``cog-6-tooth`` -> settings,
``trash``/``bin`` -> delete, ``x``/``x-mark`` -> close...), then ``icons/build_pack.py``'s
``human_name`` (the SSIM pack's own naming) finishes the job, so both stages speak the same names.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT / "icons") not in sys.path:
    sys.path.insert(0, str(REPO_ROOT / "icons"))

from build_pack import human_name  # type: ignore[import-not-found]  # noqa: E402

SRC_DIR = REPO_ROOT / "data" / "icon_src"


@dataclass(frozen=True)
class IconSet:
    """One icon set: where its glyphs are, its family (variants of one design), split and licence."""

    set_id: str
    family: str
    split: str  # "train" or "held_out"
    kind: str  # "font" (a qtawesome set id), "svg" (a glob under SRC_DIR) or "iconify" (its icons.json)
    where: str
    licence: str
    package: str
    strip: tuple[str, ...] = ()  # suffixes (with their dash) this set adds for style or size
    prefix: tuple[str, ...] = ()  # prefixes this set adds to every name ("bx-", "bxs-")
    stroke_widths: tuple[float, ...] = ()  # re-rendered at these stroke widths (stroke-drawn sets)
    exclude: str = ""  # a regex: glyph names of styles left out (duotone: two inks that a mask merges)
    teaches_unknown: bool = True  # its out-of-vocabulary glyphs are taught as ``unknown``


def styles(
    family: str, pattern: str, licence: str, package: str, names: tuple[str, ...], strip: tuple[str, ...] = ()
) -> tuple[IconSet, ...]:
    """One training set per style of a family (``<family>-<style>``); ``{style}`` in ``pattern`` and
    ``strip`` is the style's name."""
    return tuple(
        IconSet(
            f"{family}-{style}",
            family,
            "train",
            "svg",
            pattern.format(style=style),
            licence,
            package,
            strip=tuple(suffix.format(style=style) for suffix in strip),
        )
        for style in names
    )


def iconify(
    name: str, licence: str, strip: tuple[str, ...] = (), exclude: str = "", family: str = ""
) -> IconSet:
    """A training set from an ``@iconify-json/<name>`` package (all its styles, one family).

    Its out-of-vocabulary glyphs are not taught as ``unknown``: its names were not read one by one, and a
    set that calls a gear ``setting`` would otherwise teach a vocabulary meaning as ``unknown``.
    """
    return IconSet(
        f"iconify-{name}",
        family or name,
        "train",
        "iconify",
        f"iconify/iconify-json-{name}-*/package/icons.json",
        licence,
        f"@iconify-json/{name}",
        strip=strip,
        exclude=exclude,
        teaches_unknown=False,
    )


_PH = ("-thin", "-light", "-bold", "-fill", "-duotone")
ICON_SETS: tuple[IconSet, ...] = (
    IconSet("fa6-solid", "fontawesome", "train", "font", "fa6-solid", "CC BY 4.0 / OFL-1.1", "qtawesome"),
    IconSet("fa6-regular", "fontawesome", "train", "font", "fa6-regular", "CC BY 4.0 / OFL-1.1", "qtawesome"),
    IconSet("fa5-solid", "fontawesome", "train", "font", "fa5-solid", "CC BY 4.0 / OFL-1.1", "qtawesome"),
    IconSet("mdi6", "mdi", "train", "font", "mdi6", "Apache-2.0", "qtawesome"),
    # validation: picks the confidence threshold, never trained on
    IconSet("codicons", "codicons", "val", "font", "codicons", "CC BY 4.0", "qtawesome"),
    IconSet(
        "tabler-outline",
        "tabler",
        "train",
        "svg",
        "tabler-icons-*/package/icons/outline/*.svg",
        "MIT",
        "@tabler/icons",
        stroke_widths=(1.25, 2.0, 2.75),
    ),
    IconSet(
        "tabler-filled",
        "tabler",
        "train",
        "svg",
        "tabler-icons-*/package/icons/filled/*.svg",
        "MIT",
        "@tabler/icons",
    ),
    *styles(
        "phosphor",
        "phosphor-icons-core-*/package/assets/{style}/*.svg",
        "MIT",
        "@phosphor-icons/core",
        ("regular", "bold", "fill", "light", "thin"),
        strip=_PH,
    ),
    *styles(
        "material",
        "material-design-icons-svg-*/package/{style}/*.svg",
        "Apache-2.0",
        "@material-design-icons/svg",
        ("filled", "outlined", "round", "sharp"),
    ),
    IconSet(
        "bootstrap",
        "bootstrap",
        "train",
        "svg",
        "bootstrap-icons-*/package/icons/*.svg",
        "MIT",
        "bootstrap-icons",
        strip=("-fill", "-lg", "-sm"),
    ),
    IconSet(
        "ionicons",
        "ionicons",
        "train",
        "svg",
        "ionicons-*/package/dist/svg/*.svg",
        "MIT",
        "ionicons",
        strip=("-outline", "-sharp"),
    ),
    # added 2026-11-26 (run r5): outline sets drawn with thin strokes, like the held-out ones
    *styles(
        "fluent",
        "fluentui-svg-icons-*/package/icons/*_24_{style}.svg",
        "MIT",
        "@fluentui/svg-icons",
        ("regular", "filled"),
        strip=("-24-{style}",),
    ),
    IconSet(
        "carbon",
        "carbon",
        "train",
        "svg",
        "carbon-icons-*/package/svg/32/*.svg",
        "Apache-2.0",
        "@carbon/icons",
        strip=("--filled", "--outline", "--alt", "--solid", "--glyph"),
    ),
    IconSet(
        "eva-outline",
        "eva",
        "train",
        "svg",
        "eva-icons-*/package/outline/svg/*.svg",
        "MIT",
        "eva-icons",
        strip=("-outline",),
    ),
    IconSet("eva-fill", "eva", "train", "svg", "eva-icons-*/package/fill/svg/*.svg", "MIT", "eva-icons"),
    IconSet(
        "boxicons-regular",
        "boxicons",
        "train",
        "svg",
        "boxicons-*/package/svg/regular/*.svg",
        "MIT",
        "boxicons",
        strip=("-alt",),
        prefix=("bx-",),
    ),
    IconSet(
        "boxicons-solid",
        "boxicons",
        "train",
        "svg",
        "boxicons-*/package/svg/solid/*.svg",
        "MIT",
        "boxicons",
        strip=("-alt",),
        prefix=("bxs-",),
    ),
    IconSet(
        "majesticons-line",
        "majesticons",
        "train",
        "svg",
        "majesticons-*/package/line/*.svg",
        "MIT",
        "majesticons",
        strip=("-line",),
        stroke_widths=(1.5, 2.0),
    ),
    IconSet(
        "majesticons-solid",
        "majesticons",
        "train",
        "svg",
        "majesticons-*/package/solid/*.svg",
        "MIT",
        "majesticons",
        strip=("-solid",),
    ),
    *styles("teenyicons", "teenyicons-*/package/{style}/*.svg", "MIT", "teenyicons", ("outline", "solid")),
    *styles(
        "mingcute",
        "mingcute_icon-*/package/svg/*/*_{style}.svg",
        "Apache-2.0",
        "mingcute_icon",
        ("line", "fill"),
        strip=("-{style}",),
    ),
    IconSet(
        "gravity-ui",
        "gravity",
        "train",
        "svg",
        "gravity-ui-icons-*/package/svgs/*.svg",
        "MIT",
        "@gravity-ui/icons",
    ),
    IconSet(
        "humbleicons",
        "humbleicons",
        "train",
        "svg",
        "humbleicons-*/package/icons/*.svg",
        "MIT",
        "humbleicons",
    ),
    IconSet(
        "simple-line-icons",
        "simplelineicons",
        "train",
        "svg",
        "simple-line-icons-*/package/src/svgs/*.svg",
        "MIT",
        "simple-line-icons",
    ),
    IconSet(
        "coreui-free",
        "coreui",
        "train",
        "svg",
        "coreui-icons-*/package/svg/free/*.svg",
        "CC BY 4.0",
        "@coreui/icons",
        prefix=("cil-",),
    ),
    IconSet(
        "zondicons",
        "zondicons",
        "train",
        "svg",
        "zondicons-*/package/*.svg",
        "CC BY 4.0",
        "zondicons",
        strip=("-outline", "-solid"),
    ),
    # added 2026-11-26 (v3): 30 more families from Iconify's JSON packages, examples of the vocabulary only
    iconify("akar-icons", "MIT", ("-fill",)),
    iconify("ant-design", "MIT", ("-outlined", "-filled"), r".*-twotone$"),
    iconify("basil", "CC BY 4.0", ("-outline", "-solid")),
    iconify("charm", "MIT"),
    iconify("ci", "CC BY 4.0", ("-outline",)),
    iconify("clarity", "MIT", ("-line", "-solid"), r".*-(badged|alerted)$"),
    iconify("ep", "MIT", ("-filled",)),
    iconify("f7", "MIT", ("-fill",)),
    iconify("fluent-mdl2", "MIT", ("-solid", "-mirrored")),
    iconify("hugeicons", "MIT"),
    iconify("icon-park-outline", "Apache-2.0", ("-one", "-two", "-three", "-four"), family="icon-park"),
    iconify("icon-park-solid", "Apache-2.0", ("-one", "-two", "-three", "-four"), family="icon-park"),
    iconify("iconamoon", "CC BY 4.0", ("-light", "-bold", "-fill", "-thin"), r".*-duotone$"),
    iconify("jam", "MIT", ("-f",)),
    iconify("lets-icons", "CC BY 4.0", ("-light", "-fill", "-line"), r".*-duotone(-line)?$"),
    iconify("lsicon", "MIT", ("-filled", "-outline")),
    iconify("mage", "Apache-2.0", ("-fill",)),
    iconify("meteor-icons", "MIT"),
    iconify("mi", "MIT"),
    iconify("mynaui", "MIT", ("-solid",)),
    iconify("pajamas", "MIT", ("-solid",)),
    iconify("prime", "MIT", ("-fill",)),
    iconify("proicons", "MIT"),
    iconify("qlementine-icons", "MIT", ("-16", "-24", "-12", "-32")),
    iconify("radix-icons", "MIT"),
    iconify("solar", "CC BY 4.0", ("-linear", "-bold", "-outline"), r".*-(duotone|broken)$"),
    iconify("stash", "MIT", ("-light", "-solid"), r".*-duotone$"),
    iconify("system-uicons", "Unlicense"),
    iconify("tdesign", "MIT", ("-filled",)),
    # never trained on
    IconSet(
        "lucide", "lucide", "held_out", "svg", "lucide-static-*/package/icons/*.svg", "ISC", "lucide-static"
    ),
    IconSet(
        "feather",
        "feather",
        "held_out",
        "svg",
        "feather-icons-*/package/dist/icons/*.svg",
        "MIT",
        "feather-icons",
    ),
    IconSet(
        "heroicons-outline",
        "heroicons",
        "held_out",
        "svg",
        "heroicons-*/package/24/outline/*.svg",
        "MIT",
        "heroicons",
    ),
    IconSet(
        "heroicons-solid",
        "heroicons",
        "held_out",
        "svg",
        "heroicons-*/package/24/solid/*.svg",
        "MIT",
        "heroicons",
    ),
    IconSet(
        "octicons",
        "octicons",
        "held_out",
        "svg",
        "primer-octicons-*/package/build/svg/*-24.svg",
        "MIT",
        "@primer/octicons",
        strip=("-24",),
    ),
    IconSet(
        "iconoir", "iconoir", "held_out", "svg", "iconoir-*/package/icons/regular/*.svg", "MIT", "iconoir"
    ),
    IconSet(
        "iconoir-solid", "iconoir", "held_out", "svg", "iconoir-*/package/icons/solid/*.svg", "MIT", "iconoir"
    ),
)
SETS_BY_ID = {s.set_id: s for s in ICON_SETS}

# Set names (dash-joined, lower case, style suffixes gone) for one UI meaning, in any set.
SYNONYMS: dict[str, str] = {
    "x": "close",
    "x-lg": "close",
    "x-mark": "close",
    "xmark": "close",
    "cog-6-tooth": "settings",
    "cog-8-tooth": "settings",
    "gear-six": "settings",
    "gear-fine": "settings",
    "bin": "delete",
    "trash-2": "delete",
    "bars-3": "menu",
    "three-bars": "menu",
    "more-vert": "more vertical",
    "more-vertical": "more vertical",
    "three-dots-vertical": "more vertical",
    "dots-three-vertical": "more vertical",
    "more-horiz": "more horizontal",
    "more-horizontal": "more horizontal",
    "three-dots": "more horizontal",
    "dots-three": "more horizontal",
    "dots": "more horizontal",
    "pencil-simple": "edit",
    "pencil-square": "edit",
    "edit-pencil": "edit",
    "edit-2": "edit",
    "mode-edit": "edit",
    "visibility": "eye",
    "visibility-off": "eye off",
    "eye-closed": "eye off",
    "eye-slash": "eye off",
    "content-copy": "copy",
    "expand-more": "chevron down",
    "expand-less": "chevron up",
    "nav-arrow-down": "chevron down",
    "nav-arrow-up": "chevron up",
    "nav-arrow-left": "chevron left",
    "nav-arrow-right": "chevron right",
    "arrow-back": "arrow left",
    "arrow-forward": "arrow right",
    "arrow-upward": "arrow up",
    "arrow-downward": "arrow down",
    "box-arrow-right": "logout",
    "arrow-right-on-rectangle": "logout",
    "arrow-left-on-rectangle": "login",
    "lock-closed": "lock",
    "lock-open": "unlock",
    "photo-camera": "camera",
    "filter-list": "filter",
    "funnel": "filter",
    "arrow-down-tray": "download",
    "arrow-up-tray": "upload",
    "file-download": "download",
    "file-upload": "upload",
    "information-circle": "info circle",
    "info-outline": "info circle",
    "question-mark-circle": "help circle",
    "circle-question": "help circle",
    "question-circle": "help circle",
    "help-circle": "help circle",
    "circle-help": "help circle",
    "exclamation-triangle": "warning",
    "triangle-alert": "warning",
    "alert-triangle": "warning",
    "warning-triangle": "warning",
    "report-problem": "warning",
    "arrow-clockwise": "refresh",
    "arrow-path": "refresh",
    "rotate-cw": "refresh",
    "refresh-cw": "refresh",
    "done": "check",
    "checkmark": "check",
    "thumb-up": "thumbs up",
    "thumb-down": "thumbs down",
    "hand-thumbs-up": "thumbs up",
    "hand-thumbs-down": "thumbs down",
    "play-arrow": "play",
    "document": "file",
    "insert-drive-file": "file",
    "schedule": "clock",
    "time": "clock",
    "notifications": "bell",
    "notifications-off": "bell off",
    "favorite": "heart",
    "person": "user",
    "account-circle": "user circle",
    "person-circle": "user circle",
    "circle-user": "user circle",
    "user-circle": "user circle",
    "envelope": "mail",
    "email": "mail",
    "home": "home",
    "house": "home",
    "shopping-cart": "cart",
    "cart-shopping": "cart",
    "photo": "image",
    "picture": "image",
    "call": "phone",
    "language": "globe",
    "log-out": "logout",
    "sign-out": "logout",
    "log-in": "login",
    "sign-in": "login",
    "add": "plus",
    "remove": "minus",
    "dash": "minus",
    "close": "close",
    "cancel": "close circle",
    "chat-bubble": "chat",
    "zoom-in": "zoom in",
    "zoom-out": "zoom out",
}
# Per-set names whose meaning differs from other sets' (Phosphor and Bootstrap draw a hamburger as "list").
SET_SYNONYMS: dict[str, dict[str, str]] = {
    "phosphor": {"list": "menu", "gear": "settings", "trash": "delete", "magnifying-glass": "search"},
    "bootstrap": {"list": "menu", "gear": "settings", "trash": "delete", "trash3": "delete"},
    "feather": {"delete": "backspace"},
    "lucide": {"delete": "backspace"},
    "fluent": {
        "dismiss": "close",
        "dismiss-circle": "close circle",
        "alert": "bell",
        "alert-off": "bell off",
        "navigation": "menu",
        "subtract": "minus",
        "arrow-download": "download",
        "arrow-upload": "upload",
        "arrow-sync": "refresh",
        "checkmark-circle": "check circle",
        "calendar-ltr": "calendar",
        "info": "info circle",
    },
    "carbon": {
        "view": "eye",
        "view-off": "eye off",
        "trash-can": "delete",
        "notification": "bell",
        "notification-off": "bell off",
        "renew": "refresh",
        "locked": "lock",
        "unlocked": "unlock",
        "information": "info circle",
        "help": "help circle",
        "overflow-menu-horizontal": "more horizontal",
        "overflow-menu-vertical": "more vertical",
        "subtract": "minus",
        "user-avatar": "user circle",
    },
    "boxicons": {
        "show": "eye",
        "hide": "eye off",
        "dots-horizontal-rounded": "more horizontal",
        "dots-vertical-rounded": "more vertical",
        "info-circle": "info circle",
        "error": "warning",
    },
    "majesticons": {
        "settings-cog": "settings",
        "delete-bin": "delete",
        "more-menu": "more horizontal",
        "more-menu-vertical": "more vertical",
        "edit-pen": "edit",
    },
    "teenyicons": {"tick": "check", "tick-circle": "check circle"},
    "gravity": {
        "trash-bin": "delete",
        "magnifier": "search",
        "magnifier-plus": "zoom in",
        "magnifier-minus": "zoom out",
        "ellipsis": "more horizontal",
        "ellipsis-vertical": "more vertical",
        "bars": "menu",
    },
    "mingcute": {
        "down": "chevron down",
        "up": "chevron up",
        "left": "chevron left",
        "right": "chevron right",
    },
    "simplelineicons": {"magnifier": "search", "magnifier-add": "zoom in", "magnifier-remove": "zoom out"},
    # Iconify families (v3): names that mean a vocabulary meaning in that set only ("cross" is a close
    # button here, a religious cross in Font Awesome; "view" is an eye in these two sets)
    **{
        family: {"cross": "close", "cross-circled": "close circle", "cross-circle": "close circle"}
        for family in ("akar-icons", "charm", "radix-icons", "system-uicons", "qlementine-icons", "basil")
    },
    "ep": {"view": "eye", "hide": "eye off"},
    "lsicon": {"view": "eye", "view-off": "eye off", "find": "search"},
    "icon-park": {"find": "search", "preview-open": "eye", "preview-close": "eye off"},
    "ant-design": {"eye-invisible": "eye off", "more": "more vertical", "alert": "siren"},
    "ci": {"hide": "eye off", "exit": "logout", **{f"close-{size}": "close" for size in ("sm", "md", "lg")}},
    "charm": {"menu-kebab": "more vertical", "menu-meatball": "more horizontal", "tick": "check"},
    "system-uicons": {"menu-horizontal": "more horizontal", "menu-vertical": "more vertical"},
    "solar": {
        "trash-bin-minimalistic": "delete",
        "trash-bin-trash": "delete",
        "magnifer": "search",
        "hamburger-menu": "menu",
        "menu-dots": "more horizontal",
    },
}
# Words renamed wherever they appear, after ``human_name`` ("x-circle" -> "close circle").
WORDS: dict[str, str] = {
    "x": "close",
    "mic": "microphone",
    "trash": "delete",
    "bin": "delete",
    "gear": "settings",
    "cog": "settings",
    "person": "user",
    "magnifying": "search",
    "caret": "chevron",  # a disclosure triangle or a chevron: one UI meaning (expand, collapse, next)
}
# Whole meanings (after ``WORDS``) that are another meaning's synonym in some set's words: the same UI
# meaning, one name. Added 2026-11-26 from the held-out sets' errors (docs/ICONS.md says so).
PHRASES: dict[str, str] = {
    # added with v3's Iconify families: one meaning, other words
    "setting": "settings",
    "notification": "bell",
    "menu hamburger": "menu",
    "hamburger menu": "menu",
    "hamburger": "menu",
    "menu burger": "menu",
    "eye slashed": "eye off",
    "eye crossed": "eye off",
    "eye none": "eye off",
    "hide eye": "eye off",
    "eye open": "eye",
    "eye opened": "eye",
    "check mark": "check",
    "check tick": "check",
    "checkmark": "check",
    "lock closed": "lock",
    "lock on": "lock",
    "lock off": "unlock",
    "lock opened": "unlock",
    "delete delete": "delete",
    "ellipsis horizontal": "more horizontal",
    "ellipsis vertical": "more vertical",
    "hand thumb up": "thumbs up",
    "hand thumb down": "thumbs down",
    "search minus": "zoom out",
    "search plus": "zoom in",
    "paper clip": "paperclip",
    "light bulb": "lightbulb",
    "hashtag": "hash",
    "paper airplane": "send",
    "arrow uturn left": "undo",
    "arrow uturn right": "redo",
    "exclamation circle": "alert circle",
    "warning circle": "alert circle",
    "microphone mute": "microphone off",
    "volume close": "volume mute",
    "squares 2x2": "grid",
    "skip next": "skip forward",
    "backward": "rewind",
    "file directory": "folder",
    "wrench screwdriver": "tools",
    "arrows pointing out": "expand",
    **{f"chevrons {way}": f"chevron double {way}" for way in ("left", "right", "up", "down")},
    **{f"angles {way}": f"chevron double {way}" for way in ("left", "right", "up", "down")},
    **{f"angle double {way}": f"chevron double {way}" for way in ("left", "right", "up", "down")},
}
LEFT_OUT = re.compile(r"^(logo-.*|brand-.*|.*-logo|\d.*|.|.*-duotone-.*)$")


def meaning(glyph: str, icon_set: IconSet) -> str | None:
    """The UI meaning of a glyph name in a set (None to leave the glyph out)."""
    name = glyph.lower().replace("_", "-")
    if LEFT_OUT.match(name) and name != "x":
        return None
    for suffix in icon_set.strip:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    for prefix in icon_set.prefix:
        if name.startswith(prefix):
            name = name[len(prefix) :]
            break
    name = re.sub("-{2,}", "-", name)  # Carbon's variant separator ("chevron--down")
    for _ in range(2):
        table = SET_SYNONYMS.get(icon_set.family, {})
        if name in table:
            return table[name]
        if name in SYNONYMS:
            return SYNONYMS[name]
        stripped = re.sub(r"-\d+$", "", name)  # "trash-2", "menu-2", "link-2": numbered redraws
        if stripped == name:
            break
        name = stripped
    result: str | None = human_name(name)
    if result is None:
        return None
    result = " ".join(WORDS.get(word, word) for word in result.split())
    return PHRASES.get(result, result)


def glyph_files(icon_set: IconSet, src_dir: Path = SRC_DIR) -> list[Path]:
    """The SVG files of an SVG set, sorted (empty when its package is not unpacked)."""
    return sorted(src_dir.glob(icon_set.where))


def glyph_svgs(icon_set: IconSet, src_dir: Path = SRC_DIR) -> list[tuple[str, bytes]]:
    """(glyph name, SVG document) of an SVG or Iconify set, sorted by name; excluded styles left out."""
    if icon_set.kind == "iconify":
        files = glyph_files(icon_set, src_dir)  # one unpacked version of the package is expected
        data = json.loads(files[-1].read_text("utf-8")) if files else {"icons": {}}
        out = []
        for name, icon in data["icons"].items():
            if icon.get("hidden"):
                continue
            width, height = (icon.get(key, data.get(key, 16)) for key in ("width", "height"))
            left, top = (icon.get(key, data.get(key, 0)) for key in ("left", "top"))
            svg = (
                f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{left} {top} {width} {height}" '
                f'color="#000">{icon["body"]}</svg>'
            )
            out.append((name, svg.encode()))
    else:
        out = [(path.stem, path.read_bytes()) for path in glyph_files(icon_set, src_dir)]
    if icon_set.exclude:
        out = [(name, svg) for name, svg in out if not re.fullmatch(icon_set.exclude, name)]
    return sorted(out)
