"""Grid screens (Pillow only): coloured square buttons with short labels on a coloured background.

In the style of vision-only navigation environments ("click the red 7"): a grid of filled buttons, each
with a word or number, seen through a random viewport. Every button is labelled as a ``button`` with its
text and the colour name its fill was drawn from, and its text again as a ``text`` element (colour =
what :func:`~detact_service.understanding.colors.element_color` calls its ink). Fill colours are drawn
inside one colour bucket of :mod:`detact_service.understanding.colors`, so the button labels agree with
what the runtime would name them.
"""

from __future__ import annotations

import colorsys
from functools import lru_cache
from pathlib import Path
from types import TracebackType

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from detact_service.core import COLOR_NAMES, Element, ElementState, ElementType
from detact_service.understanding.colors import color_names, element_color
from training.data.labels import ScreenLabels

FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
FONT_FILES = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf", "DejaVuSerif.ttf")

# (hue ranges in degrees, saturation range, value range) well inside each bucket of colors.py.
_HSV_RANGES: dict[str, tuple[tuple[tuple[float, float], ...], tuple[float, float], tuple[float, float]]] = {
    "red": (((0.0, 6.0), (352.0, 360.0)), (0.65, 1.0), (0.55, 1.0)),
    "orange": (((18.0, 36.0),), (0.7, 1.0), (0.8, 1.0)),
    "yellow": (((48.0, 62.0),), (0.6, 1.0), (0.8, 1.0)),
    "green": (((85.0, 150.0),), (0.45, 1.0), (0.35, 0.9)),
    "blue": (((180.0, 245.0),), (0.45, 1.0), (0.4, 1.0)),
    "violet": (((262.0, 305.0),), (0.4, 1.0), (0.35, 1.0)),
    "pink": (((320.0, 340.0),), (0.35, 0.8), (0.8, 1.0)),
    "brown": (((18.0, 38.0),), (0.55, 0.9), (0.3, 0.55)),
    "white": (((0.0, 360.0),), (0.0, 0.06), (0.93, 1.0)),
    "black": (((0.0, 360.0),), (0.0, 0.5), (0.0, 0.15)),
    "grey": (((0.0, 360.0),), (0.0, 0.08), (0.4, 0.78)),
}
assert set(_HSV_RANGES) == set(COLOR_NAMES)

WORDS = (
    "go", "ok", "yes", "no", "up", "down", "left", "right", "stop", "play", "next", "back", "home",
    "open", "save", "quit", "help", "menu", "find", "add", "cut", "copy", "undo", "redo", "cat", "dog",
    "sun", "moon", "star", "tree", "fish", "bird", "key", "door", "box", "map", "run", "jump", "exit",
    "red", "blue", "A", "B", "C", "D", "E", "F", "X", "Y", "Z",
)  # fmt: skip
LAYOUTS = ("uniform", "sparse", "keypad", "viewport")


def sample_color(rng: np.random.Generator, name: str) -> tuple[int, int, int]:
    """A random RGB colour that :func:`~detact_service.understanding.colors.color_names` calls ``name``."""
    hues, sats, vals = _HSV_RANGES[name]
    for _ in range(100):
        lo, hi = hues[int(rng.integers(len(hues)))]
        h = float(rng.uniform(lo, hi)) % 360.0
        s, v = float(rng.uniform(*sats)), float(rng.uniform(*vals))
        r, g, b = colorsys.hsv_to_rgb(h / 360.0, s, v)
        rgb = (round(r * 255), round(g * 255), round(b * 255))
        if color_names(np.asarray([rgb]))[0] == name:
            return rgb
    raise RuntimeError(f"could not sample colour {name!r}")  # pragma: no cover - ranges are inside buckets


@lru_cache(maxsize=64)
def _font(file: str, size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    path = FONT_DIR / file
    if path.exists():
        return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size)


def _ink_for(rgb: tuple[int, int, int]) -> tuple[str, tuple[int, int, int]]:
    """Black or white text, whichever contrasts more with a fill."""
    luminance = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]
    return ("black", (10, 10, 10)) if luminance > 140 else ("white", (250, 250, 250))


def _padded(box: tuple[float, float, float, float], within: tuple[int, int, int, int]) -> tuple[int, ...]:
    """A text ink box grown by 2 px (as OCR boxes are: the border shows the background), kept ``within``."""
    pad = 2
    return (
        max(int(box[0]) - pad, within[0]),
        max(int(box[1]) - pad, within[1]),
        min(int(np.ceil(box[2])) + pad, within[2]),
        min(int(np.ceil(box[3])) + pad, within[3]),
    )


class GridRenderer:
    """Renders grid-of-buttons screens; see the module docstring."""

    source = "grid"

    def __enter__(self) -> GridRenderer:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        return None

    def render(self, seed: int) -> tuple[Image.Image, ScreenLabels]:
        """One grid screen and its labels, deterministic for ``seed``."""
        rng = np.random.default_rng([seed, 0x6B1D])
        layout = LAYOUTS[int(rng.integers(len(LAYOUTS)))]
        width = int(rng.integers(20, 81)) * 16
        height = int(rng.integers(15, 61)) * 16
        bg_name = COLOR_NAMES[int(rng.integers(len(COLOR_NAMES)))]
        background = sample_color(rng, bg_name)
        image = Image.new("RGB", (width, height), background)
        draw = ImageDraw.Draw(image)
        elements: list[Element] = []

        title_h = 0
        if rng.random() < 0.5:
            elements += self._title(rng, draw, width, background)
            title_h = elements[-1].bbox[3] + 4 if elements else 0

        if layout == "keypad":
            rows, cols = 4, 3
            texts = [*"123456789", "*", "0", "#"]
        else:
            rows, cols = int(rng.integers(2, 9)), int(rng.integers(2, 11))
            numbers = rng.random() < 0.4
            texts = [
                str(int(rng.integers(0, 100))) if numbers else WORDS[int(rng.integers(len(WORDS)))]
                for _ in range(rows * cols)
            ]
        avail_w, avail_h = width, height - title_h
        cell = min(avail_w / (cols + 0.5), avail_h / (rows + 0.5))
        if layout == "viewport":  # a grid larger than the screen, seen through a shifted viewport
            cell *= float(rng.uniform(1.2, 1.8))
        cell = max(cell, 24.0)
        gap = cell * float(rng.uniform(0.08, 0.3))
        size = int(cell - gap)
        grid_w, grid_h = cols * cell - gap, rows * cell - gap
        if layout == "viewport":
            x0 = float(rng.uniform(-(grid_w - avail_w) - cell / 2, cell / 2)) if grid_w > avail_w else 0.0
            slack = grid_h - avail_h
            y0 = title_h + (float(rng.uniform(-slack - cell / 2, 0)) if slack > 0 else 0.0)
        else:
            x0 = (avail_w - grid_w) / 2 + float(rng.uniform(-0.25, 0.25)) * (avail_w - grid_w)
            y0 = title_h + (avail_h - grid_h) / 2
        radius = int(size * float(rng.choice([0.0, 0.0, 0.08, 0.15])))
        font_file = FONT_FILES[int(rng.integers(len(FONT_FILES)))]
        font_scale = float(rng.uniform(0.22, 0.34))
        palette = [n for n in COLOR_NAMES if n != bg_name]
        n_colours = int(rng.integers(2, min(8, len(palette)) + 1))
        palette = list(rng.choice(palette, size=n_colours, replace=False))
        selected = int(rng.integers(rows * cols)) if rng.random() < 0.3 else -1

        for i in range(rows * cols):
            if layout == "sparse" and rng.random() < 0.3:
                continue
            r, c = divmod(i, cols)
            x1, y1 = round(x0 + c * cell), round(y0 + r * cell)
            x2, y2 = x1 + size, y1 + size
            name = str(palette[int(rng.integers(len(palette)))])
            fill = sample_color(rng, name)
            is_selected = i == selected
            outline = _ink_for(fill)[1] if is_selected else None
            draw.rounded_rectangle(
                (x1, y1, x2 - 1, y2 - 1), radius=radius, fill=fill, outline=outline,
                width=max(2, size // 20) if is_selected else 0,
            )  # fmt: skip
            box = (max(x1, 0), max(y1, 0), min(x2, width), min(y2, height))
            if box[2] - box[0] < 4 or box[3] - box[1] < 4:
                continue
            text = texts[i]
            font = _font(font_file, max(8, int(size * font_scale * (1.0 if len(text) <= 3 else 0.8))))
            ink_name, ink = _ink_for(fill)
            centre = ((x1 + x2) / 2, (y1 + y2) / 2)
            draw.text(centre, text, fill=ink, font=font, anchor="mm")
            ink_box = draw.textbbox(centre, text, font=font, anchor="mm")
            tx1, ty1, tx2, ty2 = _padded(ink_box, (x1, y1, x2, y2))
            text_visible = 0 <= tx1 < tx2 <= width and 0 <= ty1 < ty2 <= height
            state = ElementState(disabled=False, selected=is_selected)
            elements.append(
                Element(bbox=box, type=ElementType.BUTTON, text=text if text_visible else None, color=name,
                        state=state, interactive=True)
            )  # fmt: skip
            if text_visible:
                elements.append(
                    Element(bbox=(int(tx1), int(ty1), int(tx2), int(ty2)), type=ElementType.TEXT, text=text,
                            color=ink_name, interactive=False)
                )  # fmt: skip
        # Text colour as the runtime names it (thin anti-aliased ink on a coloured fill is often the fill's
        # hue); button colours are the fill's name by construction (the tests check element_color agrees).
        pixels = np.asarray(image)
        elements = [
            e.replace(color=element_color(pixels, e)) if e.type is ElementType.TEXT else e for e in elements
        ]
        labels = ScreenLabels(
            image="", width=width, height=height, source=self.source, template=f"grid/{layout}/v1",
            seed=seed, elements=elements, meta={"rows": rows, "cols": cols, "background": bg_name},
        )  # fmt: skip
        return image, labels

    def _title(
        self,
        rng: np.random.Generator,
        draw: ImageDraw.ImageDraw,
        width: int,
        background: tuple[int, int, int],
    ) -> list[Element]:
        """An instruction line at the top ("Click the blue 7"), labelled as text."""
        target = WORDS[int(rng.integers(len(WORDS)))]
        colour = COLOR_NAMES[int(rng.integers(len(COLOR_NAMES)))]
        text = f"Click the {colour} {target}"
        font = _font("DejaVuSans.ttf", int(rng.integers(14, 26)))
        ink_name, ink = _ink_for(background)
        x, y = 12, 8
        x1, y1, x2, y2 = _padded(draw.textbbox((x, y), text, font=font, anchor="lt"), (0, 0, width, 10**6))
        if x2 > width:
            return []
        draw.text((x, y), text, fill=ink, font=font, anchor="lt")
        box = (int(x1), int(y1), int(x2), int(y2))
        return [Element(bbox=box, type=ElementType.TEXT, text=text, color=ink_name, interactive=False)]
