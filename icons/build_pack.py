"""Build the icon template pack (``icons/pack.npz`` + ``icons/index.json``) from icon fonts.

The fonts come from the PyPI package ``qtawesome`` (its ``fonts/`` folder: ``*.ttf`` plus
``*-charmap-*.json``); qtawesome itself is never imported (it needs Qt). Every glyph is rendered with
Pillow, turned into an ink mask, cropped to its ink box, padded square and resampled to 48x48 with the
same code the matcher uses on screenshots. Glyphs that render empty (or as the font's missing-glyph
box) are skipped, each gets a human name (see :func:`human_name`), and near-identical templates under
one name are kept once. The output is deterministic: same fonts + same Pillow/FreeType, same bytes.

Run from the repository root: ``python icons/build_pack.py`` (``--help`` for options).
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import re
import sys
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFont

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from detact_service.understanding.icons import (  # noqa: E402
    INDEX_FILE,
    INK_FLOOR,
    MIN_BLUR,
    PACK_FILE,
    TEMPLATE_SIZE,
    batched_ssim,
    blur,
    frame_ink,
    prefilter_features,
    resize_matrix,
)

RENDER_SIZE = 128  # font size (px) glyphs are rendered at before being reduced to TEMPLATE_SIZE
DEDUP_SSIM = 0.99  # templates this similar (SSIM as matched, least blur) are the same drawing
NEIGHBOURS = 16  # most correlated templates each one is checked against for cross-name duplicates
GREY_LEVELS = 16  # templates are stored with 16 grey levels (0, 17, ..., 255): half the size, same scores
MIN_INK_PIXELS = 16  # rendered glyphs with fewer ink pixels than this count as empty
ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed timestamp in pack.npz so the file is byte-for-byte reproducible


@dataclass(frozen=True)
class FontSet:
    """One icon font shipped in qtawesome, with what the NOTICE says about it."""

    set_id: str
    family: str  # qtawesome's file stem: ``<family>-<version>.ttf``, ``<family>-charmap-<version>.json``
    version: str
    title: str
    licence: str
    copyright: str

    @property
    def font_file(self) -> str:
        return f"{self.family}-{self.version}.ttf"

    @property
    def charmap_file(self) -> str:
        return f"{self.family}-charmap-{self.version}.json"


FA_LICENCE = "Font Awesome Free licence: icons CC BY 4.0, font SIL OFL 1.1"
FA_C = "Copyright (c) Fonticons, Inc."
MDI_C = "Copyright (c) Austin Andrews and the Pictogrammers contributors"
MS_C = "Copyright (c) Microsoft Corporation"
FA6, FA5 = "Font Awesome 6 Free", "Font Awesome 5 Free"
# Priority order: of near-identical templates under one name, the first set's stays.
FONT_SETS: tuple[FontSet, ...] = (
    FontSet("fa6-solid", "fontawesome6-solid-webfont", "6.7.2", f"{FA6} Solid", FA_LICENCE, FA_C),
    FontSet("fa6-regular", "fontawesome6-regular-webfont", "6.7.2", f"{FA6} Regular", FA_LICENCE, FA_C),
    FontSet("mdi6", "materialdesignicons6-webfont", "6.9.96", "Material Design Icons 6", "Apache-2.0", MDI_C),
    FontSet("codicons", "codicon", "0.0.36", "Codicons", "CC BY 4.0", MS_C),
    FontSet("fa5-solid", "fontawesome5-solid-webfont", "5.15.4", f"{FA5} Solid", FA_LICENCE, FA_C),
    FontSet("fa5-regular", "fontawesome5-regular-webfont", "5.15.4", f"{FA5} Regular", FA_LICENCE, FA_C),
)
SETS_BY_ID = {s.set_id: s for s in FONT_SETS}

# --- human names -----------------------------------------------------------------------------------

# Trailing words that name a drawing style, not a meaning ("cog-outline" is still "settings").
STYLE_WORDS = frozenset(
    {"outline", "alt", "o", "variant", "fill", "filled", "solid", "line", "empty", "full"}
)
# Whole names (dash-joined, style words already stripped) with a common UI meaning.
NAME_ALIASES: dict[str, str] = {
    "magnify": "search",
    "magnifying-glass": "search",
    "search": "search",
    "cog": "settings",
    "gear": "settings",
    "settings-gear": "settings",
    "cogs": "settings",
    "gears": "settings",
    "xmark": "close",
    "times": "close",
    "close": "close",
    "chrome-close": "close",
    "content-copy": "copy",
    "copy": "copy",
    "clone": "copy",
    "menu": "menu",
    "bars": "menu",
    "hamburger": "menu",
    "navicon": "menu",
    "share-nodes": "share",
    "share": "share",
    "trash": "delete",
    "trash-can": "delete",
    "delete": "delete",
    "pencil": "edit",
    "pen": "edit",
    "edit": "edit",
    "pen-to-square": "edit",
    "square-pen": "edit",
    "dots-vertical": "more vertical",
    "ellipsis-vertical": "more vertical",
    "ellipsis-v": "more vertical",
    "kebab-vertical": "more vertical",
    "dots-horizontal": "more horizontal",
    "ellipsis": "more horizontal",
    "ellipsis-h": "more horizontal",
    "kebab-horizontal": "more horizontal",
    "more": "more horizontal",
    "content-save": "save",
    "floppy-disk": "save",
    "save": "save",
    "add": "plus",
    "remove": "minus",
    "dash": "minus",
    "bell-slash": "bell off",
    "square-root": "square root",
    "square-root-variable": "square root",
    "arrows-rotate": "refresh",
    "sync": "refresh",
    "rotate": "refresh",
    "refresh": "refresh",
    "triangle-exclamation": "warning",
    "exclamation-triangle": "warning",
    "alert": "warning",
    "warning": "warning",
    "eye-slash": "eye off",
    "eye-closed": "eye off",
    "arrow-up-right-from-square": "external link",
    "external-link": "external link",
    "open-in-new": "external link",
    "link-external": "external link",
    "right-from-bracket": "logout",
    "sign-out": "logout",
    "arrow-right-from-bracket": "logout",
    "logout": "logout",
    "log-out": "logout",
    "right-to-bracket": "login",
    "sign-in": "login",
    "arrow-right-to-bracket": "login",
    "login": "login",
    "log-in": "login",
    "cart-shopping": "cart",
    "shopping-cart": "cart",
    "cart": "cart",
    "mic": "microphone",
    "microphone": "microphone",
    "location-dot": "location",
    "map-marker": "location",
    "map-marker-alt": "location",
    "info": "info",
    "information": "info",
    "question": "help",
    "help": "help",
}
# Single words renamed wherever they appear ("circle-xmark" -> "close circle").
WORD_ALIASES: dict[str, str] = {
    "xmark": "close",
    "times": "close",
    "magnify": "search",
    "cog": "settings",
    "gear": "settings",
    "account": "user",
    "envelope": "mail",
    "email": "mail",
    "information": "info",
    "question": "help",
    "house": "home",
    "angle": "chevron",
    "angles": "chevron double",
}
CONTAINERS = frozenset({"circle", "square"})
DIRECTIONS = frozenset({"up", "down", "left", "right"})
_PREFIXES = sorted((w for w in NAME_ALIASES if "-" in w), key=lambda w: (-len(w), w))
# Names left out: letters and digits (OCR's job), and MDI's letter/number glyphs.
EXCLUDE = re.compile(r"^(.|alpha(-[a-z])?(-.*)?|numeric(-\d+)?(-.*)?|roman-numeral-.*|\d+-.*)$")


def human_name(glyph: str) -> str | None:
    """A readable, set-independent name for a glyph name, words separated by spaces; None to skip it.

    Style words at the end are dropped (``-outline``, ``-alt``, ``-variant``...), common names are
    unified (:data:`NAME_ALIASES`, then :data:`WORD_ALIASES` word by word), a leading ``circle``/``square``
    (or one followed only by directions) moves to the end (Font Awesome 6 ``circle-check`` == Font
    Awesome 5 ``check-circle``) and MDI's trailing ``box`` (a glyph in a square) reads ``square``.
    """
    if EXCLUDE.match(glyph):
        return None
    words = glyph.lower().split("-")
    while len(words) > 1 and (words[-1] in STYLE_WORDS or (words[-1].isdigit() and words[-2] in STYLE_WORDS)):
        words.pop()
    base = "-".join(words)
    if base in NAME_ALIASES:
        return NAME_ALIASES[base]
    if len(words) > 1 and words[0] in CONTAINERS:
        words = [*words[1:], words[0]]
    for at in range(1, len(words) - 1):  # Font Awesome 5 "arrow-circle-up" -> "arrow up circle"
        if words[at] in CONTAINERS and set(words[at + 1 :]) <= DIRECTIONS:
            words = [*words[:at], *words[at + 1 :], words[at]]
            break
    if len(words) > 1 and words[-1] == "box":
        words[-1] = "square"
    base = "-".join(words)
    if base in NAME_ALIASES:
        return NAME_ALIASES[base]
    for whole in _PREFIXES:  # e.g. "magnifying-glass-plus" -> "search plus"
        if base.startswith(whole + "-"):
            base = NAME_ALIASES[whole].replace(" ", "-") + base[len(whole) :]
            break
    return " ".join(WORD_ALIASES.get(word, word) for word in base.split("-"))


# --- rendering -------------------------------------------------------------------------------------


def fonts_dir() -> Path:
    """qtawesome's ``fonts/`` folder, found without importing qtawesome."""
    spec = importlib.util.find_spec("qtawesome")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("qtawesome is not installed: pip install qtawesome (only its font files are used)")
    return Path(next(iter(spec.submodule_search_locations))) / "fonts"


def load_charmap(font_set: FontSet) -> dict[str, int]:
    """Glyph name -> codepoint for one set."""
    with (fonts_dir() / font_set.charmap_file).open(encoding="utf-8") as handle:
        raw: dict[str, str] = json.load(handle)
    return {name: int(code, 16) for name, code in raw.items()}


_FONTS: dict[tuple[str, int], ImageFont.FreeTypeFont] = {}


def set_font(set_id: str, size: int) -> ImageFont.FreeTypeFont:
    """The Pillow font of a set at a pixel size (cached)."""
    key = (set_id, size)
    if key not in _FONTS:
        path = fonts_dir() / SETS_BY_ID[set_id].font_file
        _FONTS[key] = ImageFont.truetype(str(path), size, layout_engine=ImageFont.Layout.BASIC)
    return _FONTS[key]


def render_ink(set_id: str, codepoint: int, size: int = RENDER_SIZE) -> npt.NDArray[np.float64]:
    """The glyph drawn white on black at ``size`` px, as ink in 0-1 (all zero when it is empty)."""
    font = set_font(set_id, size)
    char = chr(codepoint)
    left, top, right, bottom = (int(v) for v in font.getbbox(char))
    width, height = max(right - left, 1) + 4, max(bottom - top, 1) + 4
    canvas = Image.new("L", (width, height), 0)
    ImageDraw.Draw(canvas).text((2 - left, 2 - top), char, font=font, fill=255)
    return np.asarray(canvas, dtype=np.float64) / 255.0


def template_from_ink(ink: npt.NDArray[np.float64]) -> npt.NDArray[np.uint8] | None:
    """A rendered glyph as a stored template: ink box, padded square, TEMPLATE_SIZE px, 16 grey levels."""
    if np.count_nonzero(ink > 0.5) < MIN_INK_PIXELS:
        return None
    rows = np.flatnonzero((ink >= INK_FLOOR).any(axis=1))
    cols = np.flatnonzero((ink >= INK_FLOOR).any(axis=0))
    crop = ink[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]
    height, width = crop.shape
    side = max(height, width)
    square = np.zeros((side, side), dtype=np.float64)
    top, left = (side - height) // 2, (side - width) // 2
    square[top : top + height, left : left + width] = crop
    m = resize_matrix(side, TEMPLATE_SIZE)
    small = m @ square @ m.T
    levels = np.rint(small / small.max() * (GREY_LEVELS - 1)) * (255 // (GREY_LEVELS - 1))
    return np.asarray(np.clip(levels, 0, 255), dtype=np.uint8)


def render_template(set_id: str, glyph: str) -> npt.NDArray[np.uint8] | None:
    """The template ``build_pack`` stores for a glyph (None when it renders empty)."""
    return template_from_ink(render_ink(set_id, load_charmap(SETS_BY_ID[set_id])[glyph]))


# --- the pack --------------------------------------------------------------------------------------


@dataclass
class Entry:
    """One kept template and where it came from."""

    name: str
    set_id: str
    glyph: str
    codepoint: int
    template: npt.NDArray[np.uint8]


def candidate_entries(sets: tuple[FontSet, ...]) -> Iterator[Entry]:
    """Every glyph of every set with a human name and non-empty ink, in a fixed order."""
    for font_set in sets:
        charmap = load_charmap(font_set)
        missing = template_from_ink(render_ink(font_set.set_id, 0x10FFFD))  # the font's "no glyph" box
        for glyph in sorted(charmap):
            name = human_name(glyph)
            if name is None:
                continue
            template = template_from_ink(render_ink(font_set.set_id, charmap[glyph]))
            if template is None or (missing is not None and np.array_equal(template, missing)):
                continue
            yield Entry(name, font_set.set_id, glyph, charmap[glyph], template)


def deduplicate(entries: list[Entry]) -> list[Entry]:
    """Drop near-identical templates (SSIM >= DEDUP_SSIM as matched), keeping one per drawing.

    Under one name the first set's stays. Across names the shortest name stays (fewest words, then
    set order), so a glyph drawn the same as ``close`` and ``window-close`` always reads ``close``
    rather than whichever a tie falls to.
    """
    stack = np.stack([e.template for e in entries]).astype(np.float64) / 255.0
    framed = blur(frame_ink(np.where(stack >= INK_FLOOR, stack, 0.0))[0], MIN_BLUR)
    features = prefilter_features(framed)
    count = len(entries)
    neighbours = np.empty((count, NEIGHBOURS), dtype=np.int64)
    similar = np.empty((count, NEIGHBOURS), dtype=bool)
    for start in range(0, count, 256):  # the NEIGHBOURS most correlated other templates of each
        block = np.arange(start, min(start + 256, count))
        correlation = features[block] @ features.T
        correlation[block - start, block] = -2.0
        neighbours[block] = np.argsort(-correlation, axis=1, kind="stable")[:, :NEIGHBOURS]
        pairs = framed[neighbours[block].reshape(-1)]
        scores = batched_ssim(np.repeat(framed[block], NEIGHBOURS, axis=0), pairs)
        similar[block] = scores.reshape(len(block), NEIGHBOURS) >= DEDUP_SSIM
    set_rank = {s.set_id: rank for rank, s in enumerate(FONT_SETS)}
    order = sorted(range(count), key=lambda i: (len(entries[i].name.split()), set_rank[entries[i].set_id], i))
    kept = np.zeros(count, dtype=bool)
    by_name: dict[str, list[int]] = {}
    for i in order:
        if kept[neighbours[i][similar[i]]].any():
            continue
        same_name = by_name.setdefault(entries[i].name, [])
        if same_name:
            others = framed[same_name]
            if float(batched_ssim(others, np.broadcast_to(framed[i], others.shape)).max()) >= DEDUP_SSIM:
                continue
        same_name.append(i)
        kept[i] = True
    return [entry for entry, keep in zip(entries, kept, strict=True) if keep]


def write_npz(path: Path, arrays: dict[str, npt.NDArray[np.generic]]) -> None:
    """``np.savez_compressed`` with fixed zip timestamps, so rebuilding gives identical bytes."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for key, array in arrays.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.ascontiguousarray(array), allow_pickle=False)
            info = zipfile.ZipInfo(f"{key}.npy", date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, buffer.getvalue(), compresslevel=9)


def write_index(path: Path, entries: list[Entry]) -> None:
    """``index.json``: the sets and one ``[name, set, glyph, codepoint]`` row per template, one per line."""
    header = {
        "format": 1,
        "template_size": TEMPLATE_SIZE,
        "render_size": RENDER_SIZE,
        "count": len(entries),
        "names": len({e.name for e in entries}),
        "sets": {
            s.set_id: {"title": s.title, "version": s.version, "licence": s.licence, "font": s.font_file}
            for s in FONT_SETS
        },
        "fields": ["name", "set", "glyph", "codepoint"],
    }
    lines = json.dumps(header, indent=1, ensure_ascii=True)[:-2] + ',\n "templates": [\n'
    rows = [json.dumps([e.name, e.set_id, e.glyph, f"{e.codepoint:x}"], ensure_ascii=True) for e in entries]
    path.write_text(lines + ",\n".join(rows) + "\n ]\n}\n", encoding="utf-8")


def build(out_dir: Path) -> list[Entry]:
    """Render, name, de-duplicate and write the pack into ``out_dir``."""
    entries = deduplicate(list(candidate_entries(FONT_SETS)))
    out_dir.mkdir(parents=True, exist_ok=True)
    write_npz(out_dir / PACK_FILE, {"templates": np.stack([e.template for e in entries])})
    write_index(out_dir / INDEX_FILE, entries)
    return entries


def main() -> None:
    """Command line: build the pack (default: next to this script)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent, help="output folder")
    args = parser.parse_args()
    start = time.perf_counter()
    entries = build(args.out)
    sizes = sum((args.out / f).stat().st_size for f in (PACK_FILE, INDEX_FILE))
    per_set: dict[str, int] = {}
    for entry in entries:
        per_set[entry.set_id] = per_set.get(entry.set_id, 0) + 1
    print(
        f"{len(entries)} templates, {len({e.name for e in entries})} names, {sizes / 1e6:.2f} MB, "
        f"{time.perf_counter() - start:.0f} s; per set: {per_set}"
    )


if __name__ == "__main__":
    main()
