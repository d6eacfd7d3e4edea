"""Human checks of a rendered folder: a contact sheet (labels drawn over a sample) and a datasheet."""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from detact_service.core import ElementType
from training.data.export import SPLITS, YOLO_MERGE, load_items, split_of
from training.data.labels import ScreenLabels, read_labels
from training.data.sources.looks import LOOK_LICENCES

REPO = Path(__file__).resolve().parents[2]
TYPE_COLOURS: dict[ElementType, str] = {
    ElementType.TEXT: "#9e9e9e",
    ElementType.LINK: "#2962ff",
    ElementType.BUTTON: "#d50000",
    ElementType.INPUT: "#00c853",
    ElementType.TEXTAREA: "#00bfa5",
    ElementType.CHECKBOX: "#ff6d00",
    ElementType.RADIO: "#ffab00",
    ElementType.DROPDOWN: "#aa00ff",
    ElementType.TAB: "#c51162",
    ElementType.MENU_ITEM: "#6200ea",
    ElementType.LIST_ITEM: "#304ffe",
    ElementType.ICON: "#ff1744",
    ElementType.IMAGE: "#795548",
    ElementType.SLIDER: "#64dd17",
    ElementType.SCROLLBAR: "#455a64",
    ElementType.TOGGLE: "#ffd600",
    ElementType.REGION: "#00b8d4",
}
FONT_LICENCES = {
    "DejaVu": "DejaVu fonts licence (Bitstream Vera derivative, free)",
    "Liberation": "SIL Open Font License 1.1",
}


def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    try:
        return ImageFont.truetype("DejaVuSans.ttf", size)
    except OSError:
        return ImageFont.load_default()


def draw_labels(image: Image.Image, labels: ScreenLabels, tag: bool = True) -> Image.Image:
    """A copy of ``image`` with every element's box drawn in its type's colour (and a type tag)."""
    canvas = image.convert("RGB").copy()
    draw = ImageDraw.Draw(canvas)
    width = max(1, round(min(image.size) / 400))
    font = _font(max(10, round(min(image.size) / 60)))
    for element in sorted(labels.elements, key=lambda e: -e.width * e.height):
        colour = TYPE_COLOURS[element.type]
        x1, y1, x2, y2 = element.bbox
        draw.rectangle([x1, y1, x2 - 1, y2 - 1], outline=colour, width=width)
        if tag and element.type is not ElementType.TEXT:
            marks = "".join(
                m
                for m, on in (
                    ("✓", element.state.checked),
                    ("F", element.state.focused),
                    ("D", element.state.disabled),
                    ("S", element.state.selected),
                )
                if on
            )
            text = element.type.value + (f" {marks}" if marks else "")
            draw.text(
                (x1 + 1, max(0, y1 - font.size - 1) if hasattr(font, "size") else y1),
                text,
                fill=colour,
                font=font,
            )
    return canvas


def contact_sheet(
    folder: Path, out: Path, n: int = 12, tile: int = 480, columns: int = 4, seed: int = 0
) -> Path:
    """Draw labels over ``n`` sampled screenshots, tile them (``tile`` px wide) into one small PNG."""
    paths = sorted(folder.glob("*.json"))
    if not paths:
        raise ValueError(f"no labels in {folder}")
    sample = sorted(random.Random(seed).sample(paths, min(n, len(paths))))
    tiles = []
    for path in sample:
        labels = read_labels(path)
        with Image.open(path.parent / labels.image) as image:
            drawn = draw_labels(image, labels)
        scale = tile / drawn.width
        height = min(round(drawn.height * scale), tile * 2)
        resized = drawn.resize((tile, max(1, round(drawn.height * scale))), Image.Resampling.LANCZOS)
        tiles.append((resized.crop((0, 0, tile, height)), f"{labels.template}  seed {labels.seed}"))
    columns = min(columns, len(tiles))
    rows = [tiles[i : i + columns] for i in range(0, len(tiles), columns)]
    caption = 16
    heights = [max(t.height for t, _ in row) + caption for row in rows]
    sheet = Image.new("RGB", (columns * (tile + 4), sum(heights)), "white")
    draw = ImageDraw.Draw(sheet)
    font = _font(12)
    y = 0
    for row, h in zip(rows, heights, strict=True):
        for c, (picture, name) in enumerate(row):
            x = c * (tile + 4)
            draw.text((x + 2, y + 1), name, fill="black", font=font)
            sheet.paste(picture, (x, y + caption))
        y += h
    out.parent.mkdir(parents=True, exist_ok=True)
    sheet.quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(out, optimize=True)
    return out


def _table(header: list[str], rows: list[list[object]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def datasheet(folder: Path, out: Path) -> Path:
    """Write a Markdown datasheet: sources, counts by type and source, splits, resolutions, licences."""
    items = load_items(folder)
    by_source: Counter[str] = Counter()
    templates: defaultdict[str, set[str]] = defaultdict(set)
    types: defaultdict[str, Counter[str]] = defaultdict(Counter)
    sizes: Counter[str] = Counter()
    scales: Counter[float] = Counter()
    split_counts: Counter[tuple[str, str]] = Counter()
    split_templates: defaultdict[tuple[str, str], set[str]] = defaultdict(set)
    thirdparty: dict[tuple[str, str], set[str]] = defaultdict(set)
    icon_fonts: set[str] = set()
    looks: Counter[str] = Counter()
    for item in items:
        labels = item.labels
        by_source[labels.source] += 1
        templates[labels.source].add(labels.template)
        sizes[f"{labels.width}x{labels.height}"] += 1
        scales[labels.scale] += 1
        split_counts[(labels.source, split_of(labels.template))] += 1
        split_templates[(labels.source, split_of(labels.template))].add(labels.template)
        for element in labels.elements:
            types[labels.source][element.type.value] += 1
        if "licence" in labels.meta and "package" in labels.meta:
            thirdparty[(labels.meta["package"], labels.meta["licence"])].add(labels.meta.get("path", ""))
        icon_fonts.update(labels.meta.get("icon_fonts", []))
        if "look" in labels.meta:
            looks[str(labels.meta["look"])] += 1
    sources = sorted(by_source)
    all_types = [t.value for t in ElementType if any(types[s][t.value] for s in sources)]
    lines = [
        "# Data engine datasheet",
        "",
        f"Generated by `python -m training.data datasheet {folder.name}` from {len(items)} screenshots "
        f"({sum(sum(c.values()) for c in types.values())} labelled elements).",
        "Regenerate after a bigger run; the numbers below describe this sample only.",
        "",
        "## Sources",
        "",
        *_table(
            ["source", "screenshots", "templates", "elements", "elements / screenshot"],
            [
                [
                    s,
                    by_source[s],
                    len(templates[s]),
                    sum(types[s].values()),
                    f"{sum(types[s].values()) / by_source[s]:.1f}",
                ]
                for s in sources
            ],
        ),
        "",
        "- `web-synthetic`: pages generated from a seed (`training/data/sources/web.py`), headless Chromium.",
        "- `miniwob`: MiniWoB++ task pages from the `miniwob` PyPI wheel (MIT licence), "
        "training seeds >= 1100 only (below 1000: reserved for outside evaluation; "
        "1000-1099: this project's evaluation episodes).",
        "- `web-thirdparty`: documentation HTML shipped in Debian packages (licences below).",
        "- `qt` / `grid`: desktop widgets and dense synthetic grids (their own modules).",
        "",
        "## How it is made",
        "",
        *_timing(folder),
        "```",
        "python -m training.data render --source mixed --n 5000 --out data/rendered --seed 1100 --workers 2",
        "python -m training.data export-yolo data/rendered --out data/yolo",
        "python -m training.data export-attributes data/rendered --out data/attributes",
        "python -m training.data contact-sheet data/rendered --out sheet.png --n 12",
        f"python -m training.data datasheet data/rendered --out {out.as_posix()}",
        "```",
        "",
        "Web labels come from the DOM in one JavaScript pass per page (`training/data/sources/dom.py`):",
        "boxes are client rects times the device pixel ratio, clipped to the viewport; hidden and covered",
        "elements (`elementFromPoint` at the centre and four inner points) are dropped; colours use the",
        "runtime's own `element_color`. A `<li>` that is a bullet of running text (its marker drawn, nothing",
        "making it a choice: no navigation, menu or list box round it, no pointer cursor, handler or",
        "selection) is text, not a list item (2026-11-28). YOLO merges: "
        + ", ".join(f"{t.value} -> {c}" for t, c in YOLO_MERGE.items() if t.value != c)
        + ". Splits are by template (stable hash), near-duplicates across splits dropped.",
        "",
        "## Element counts by type and source",
        "",
        *_table(
            ["type", *sources, "total"],
            [[t, *[types[s][t] for s in sources], sum(types[s][t] for s in sources)] for t in all_types],
        ),
        "",
        "## Splits (by template: stable hash, or held out by name for sources with few templates)",
        "",
        "Screenshots (templates) per split and source:",
        "",
        *_table(
            ["split", *sources, "total"],
            [
                [
                    split,
                    *[f"{split_counts[(s, split)]} ({len(split_templates[(s, split)])})" for s in sources],
                    sum(split_counts[(s, split)] for s in sources),
                ]
                for split in SPLITS
            ],
        ),
        "",
        "## Resolutions (screenshot pixels)",
        "",
        *_table(["size", "screenshots"], [[k, v] for k, v in sizes.most_common(15)]),
        "",
        "Device scales: " + ", ".join(f"{k:g} ({v})" for k, v in sorted(scales.items())),
        "",
        "## Looks of the synthetic web pages",
        "",
        "A page is drawn in the generator's own stylesheet (`native`) or in a real CSS framework's look "
        "(`training/data/sources/looks.py`): Bootstrap 5 and 4 with the Bootswatch themes, and Bulma.",
        "",
        *_table(["look family", "screenshots", "looks"], _look_rows(looks)),
        "",
        "## Licences",
        "",
        "Third-party HTML (package, licence, pages used in this sample):",
        "",
        *_table(
            ["package", "licence", "pages"],
            [[p, lic, len(paths)] for (p, lic), paths in sorted(thirdparty.items())] or [["-", "-", 0]],
        ),
        "",
        "Each third-party screenshot's labels record its page path, package, licence and the package's",
        "Debian copyright file in `meta`.",
        "",
        "Fonts: " + "; ".join(f"{k}: {v}" for k, v in FONT_LICENCES.items()) + ".",
        "",
        "CSS frameworks: " + "; ".join(f"{k}: {v}" for k, v in LOOK_LICENCES.items()) + ".",
        "",
        "Icon fonts (qtawesome's font files, see `icons/NOTICE`): "
        + (", ".join(_icon_set_titles(icon_fonts)) or "none in this sample")
        + ".",
        "",
    ]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines))
    return out


def _timing(folder: Path) -> list[str]:
    """The render run's timing line, when the folder was rendered in one run from scratch."""
    path = folder / "render_timing.jsonl"
    if not path.is_file():
        return []
    timing = json.loads(path.read_text())
    minutes = timing["seconds"] / 60
    rate = timing["rendered"] / max(timing["seconds"], 1e-9)
    return [
        f"This folder: `{timing['command']}` rendered {timing['rendered']} screenshots "
        f"({timing['failed']} failed) in {minutes:.1f} min on {timing['cpus']} cores ({rate:.2f} img/s).",
        "",
    ]


def _look_rows(looks: Counter[str]) -> list[list[object]]:
    families: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for name, count in looks.items():
        stem = name.split("-")[0]
        family = "bulma" if stem == "bulma" else stem.replace("bootswatch", "bootstrap")
        families[family][name] += count
    return [[f, sum(c.values()), len(c)] for f, c in sorted(families.items())] or [["-", 0, 0]]


def _icon_set_titles(sets: set[str]) -> list[str]:
    index = json.loads((REPO / "icons" / "index.json").read_text())["sets"]
    return [f"{index[s]['title']} ({index[s]['licence']})" for s in sorted(sets) if s in index]
