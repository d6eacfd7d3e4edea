"""Rasterise every glyph of every icon set into ink masks: ``data/icons/glyphs/<set>.npz``.

Each glyph is drawn black on transparent (SVG, with cairosvg) or white on black (font, with Pillow) at
:data:`RENDER_SIZE` px, its ink cropped to its box, padded square and area-resampled to
:data:`MASK_SIZE` px (uint8, 255 = ink). Stroke-drawn sets are also drawn at other stroke widths.
Augmentation (size, colour, background, anti-aliasing, JPEG) happens later, in :mod:`training.icons.data`.
"""

from __future__ import annotations

import io
import re
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
from PIL import Image

from training.icons.sources import ICON_SETS, SRC_DIR, IconSet, glyph_svgs, meaning

RENDER_SIZE = 128
MASK_SIZE = 64
GLYPH_DIR = Path("data/icons/glyphs")


def square_mask(ink: npt.NDArray[np.floating], size: int = MASK_SIZE) -> npt.NDArray[np.uint8] | None:
    """Ink (0-1) cropped to its box, padded square and resampled to ``size`` px; None when empty."""
    if np.count_nonzero(ink > 0.5) < 16:
        return None
    rows = np.flatnonzero((ink >= 0.1).any(axis=1))
    cols = np.flatnonzero((ink >= 0.1).any(axis=0))
    crop = ink[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]
    height, width = crop.shape
    side = max(height, width)
    square = np.zeros((side, side), dtype=np.float32)
    top, left = (side - height) // 2, (side - width) // 2
    square[top : top + height, left : left + width] = crop
    small = cv2.resize(
        square, (size, size), interpolation=cv2.INTER_AREA if side > size else cv2.INTER_LINEAR
    )
    return np.asarray(np.clip(np.rint(small * 255.0), 0, 255), dtype=np.uint8)


def render_svg(svg: bytes) -> npt.NDArray[np.float32]:
    """An SVG's alpha at RENDER_SIZE px, 0-1."""
    import cairosvg  # type: ignore[import-untyped]

    png = cairosvg.svg2png(bytestring=svg, output_width=RENDER_SIZE, output_height=RENDER_SIZE)
    rgba = np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"))
    return rgba[..., 3].astype(np.float32) / 255.0


def with_stroke(svg: bytes, width: float) -> bytes:
    """The SVG with every ``stroke-width`` set to ``width``."""
    return re.sub(rb'stroke-width="[0-9.]+"', f'stroke-width="{width:g}"'.encode(), svg)


def render_font_set(icon_set: IconSet) -> tuple[list[npt.NDArray[np.uint8]], list[str], list[str]]:
    """Masks, meanings and glyph names of a qtawesome font set."""
    sys.path.insert(0, str(Path("icons").resolve()))
    import build_pack  # type: ignore[import-not-found]

    font_set = build_pack.SETS_BY_ID[icon_set.where]
    charmap = build_pack.load_charmap(font_set)
    missing = square_mask(build_pack.render_ink(font_set.set_id, 0x10FFFD))
    masks, names, glyphs = [], [], []
    for glyph in sorted(charmap):
        name = meaning(glyph, icon_set)
        if name is None:
            continue
        mask = square_mask(build_pack.render_ink(font_set.set_id, charmap[glyph]))
        if mask is None or (missing is not None and np.array_equal(mask, missing)):
            continue
        masks.append(mask)
        names.append(name)
        glyphs.append(glyph)
    return masks, names, glyphs


def render_svg_set(
    icon_set: IconSet, src_dir: Path
) -> tuple[list[npt.NDArray[np.uint8]], list[str], list[str]]:
    """Masks, meanings and glyph names of an SVG or Iconify set (each stroke width for stroke-drawn sets)."""
    masks, names, glyphs = [], [], []
    for stem, svg in glyph_svgs(icon_set, src_dir):
        name = meaning(stem, icon_set)
        if name is None:
            continue
        for width in icon_set.stroke_widths or (None,):
            try:
                ink = render_svg(svg if width is None else with_stroke(svg, width))
            except Exception:  # a malformed file: leave it out
                continue
            mask = square_mask(ink)
            if mask is None:
                continue
            masks.append(mask)
            names.append(name)
            glyphs.append(stem if width is None else f"{stem}@{width:g}")
    return masks, names, glyphs


def render_all(out_dir: Path = GLYPH_DIR, src_dir: Path = SRC_DIR, only: list[str] | None = None) -> None:
    """Render each set (or those in ``only``) into ``out_dir/<set>.npz``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for icon_set in ICON_SETS:
        if only and icon_set.set_id not in only:
            continue
        start = time.perf_counter()
        if icon_set.kind == "font":
            masks, names, glyphs = render_font_set(icon_set)
        else:
            masks, names, glyphs = render_svg_set(icon_set, src_dir)
        if not masks:
            print(f"{icon_set.set_id}: nothing rendered (package not unpacked under {src_dir}?)")
            continue
        np.savez_compressed(
            out_dir / f"{icon_set.set_id}.npz",
            masks=np.stack(masks),
            names=np.array(names),
            glyphs=np.array(glyphs),
        )
        print(f"{icon_set.set_id}: {len(masks)} glyphs, {time.perf_counter() - start:.0f} s", flush=True)


def load_set(set_id: str, glyph_dir: Path = GLYPH_DIR) -> tuple[npt.NDArray[np.uint8], list[str], list[str]]:
    """Masks, meanings and glyph names of one rendered set.

    Meanings are worked out again from the glyph names (:func:`meaning`), so a change of names needs no
    new render; glyphs whose meaning is now None are left out.
    """
    icon_set = next(s for s in ICON_SETS if s.set_id == set_id)
    with np.load(glyph_dir / f"{set_id}.npz") as data:
        masks, glyphs = data["masks"], [str(g) for g in data["glyphs"]]
    names = [meaning(g.partition("@")[0], icon_set) for g in glyphs]
    keep = [i for i, n in enumerate(names) if n is not None]
    return masks[keep], [str(names[i]) for i in keep], [glyphs[i] for i in keep]
