import io

import numpy as np
import pytest
from PIL import Image

from detact_service.core import Element, ElementType
from detact_service.understanding.ink_links import INK_SHARE, ink_links, ink_of, is_link_blue
from tests.browser import page_with_boxes

PAGE = """<!doctype html><html><body style="font: 16px serif; margin: 40px; background: #fff">
<p><span id="link" style="color: #1a0dab; text-decoration: underline">Declaration of Competing Interest
</span></p>
<p><span id="plain" style="color: #222">Received 11 August 2023</span></p>
<p><span id="button" style="background: #1a73e8; color: #fff; padding: 8px 16px">Sign in</span></p>
<p><span id="selected" style="background: #c6dcf5; color: #000">question answering, and translation</span></p>
<p style="background: #202124; padding: 10px"><span id="dark" style="color: #8ab4f8">View PDF</span></p>
<p><span id="teal" style="color: #00897b">Pattern Recognition</span></p>
<p><span id="author" style="color: #1a0dab">Shi Han,</span>
   <span id="coauthor" style="color: #1a0dab">Lun Du</span></p>
<p style="font: 16px monospace"><span id="keyword" style="color: #0000ff">const</span>
   <span id="code">x = 1;</span></p>
</body></html>"""
IDS = ("link", "plain", "button", "selected", "dark", "teal", "author", "coauthor", "keyword", "code")
Page = tuple[np.ndarray, dict[str, tuple[int, int, int, int]]]


@pytest.fixture(scope="module")
def page() -> Page:
    return page_with_boxes(PAGE, IDS, (1000, 600))


def test_words_in_a_links_blue_become_a_link(page: Page) -> None:
    """A light page's and a dark page's blue words are links, and so are names side by side in blue; black
    words, white words on a blue button, black words on a selection's blue and teal words stay text; so do a
    blue paragraph of many words and a code line's blue keyword beside its black code."""
    image, boxes = page
    elements = [Element(boxes[i], ElementType.TEXT, text=i.title(), source="ocr") for i in IDS]
    elements.append(Element(boxes["link"], ElementType.TEXT, text=" ".join(["word"] * 20), source="ocr"))
    elements.append(Element(boxes["link"], ElementType.BUTTON, text="Declaration", source="detector"))
    types = [e.type for e in ink_links(image, elements)]
    link, text = ElementType.LINK, ElementType.TEXT
    assert types == [link, text, text, text, link, text, link, link, text, text, text, ElementType.BUTTON]


def test_ink_is_told_from_its_ground() -> None:
    crop = np.full((20, 60, 3), 255, dtype=np.uint8)
    assert ink_of(crop) is None  # nothing drawn
    crop[8:12, 5:55] = (26, 13, 171)
    ink = ink_of(crop)
    assert ink is not None
    assert ink.colour.tolist() == [26, 13, 171] and ink.ground.tolist() == [255, 255, 255]
    assert ink.share == pytest.approx(0.167, 0.01)
    assert ink.hue == pytest.approx(245, abs=1) and ink.tint == pytest.approx(158 / 242, 0.01)
    assert ink.chroma_kept == pytest.approx(1.0)  # drawn, not JPEG'd
    assert is_link_blue(ink)
    crop[8:12, 5:55] = (100, 116, 139)  # a slate grey (#64748b): no link
    slate = ink_of(crop)
    assert slate is not None and slate.tint == pytest.approx(39 / 155, 0.01) and not is_link_blue(slate)


LINK_BLUES = (
    "#0000ee",
    "#1a0dab",
    "#2440b3",
    "#0645ad",
    "#0969da",
    "#2563eb",
    "#3366cc",
    "#4e6ef2",
    "#1e88e5",
)
NOT_LINKS = (
    "#64748b",
    "#475569",
    "#334155",
    "#6b7280",
    "#5f6368",
    "#42526e",
    "#54698d",
    "#00897b",
    "#7c3aed",
)
SIZES = (12, 14, 16)
WORDS = (("latin", "Services and pricing"), ("cjk", "整租合租 高薪职位"))


@pytest.fixture(scope="module")
def swatches() -> Page:
    """Words in link blues and in slate greys and muted blues (and a teal and a violet) at 12-16 px, Latin and
    Chinese."""
    spans = []
    for colour in LINK_BLUES + NOT_LINKS:
        for size in SIZES:
            for script, words in WORDS:
                name = f"{colour[1:]}-{size}-{script}"
                style = f"color: {colour}; font-size: {size}px"
                spans.append(f'<div><span id="{name}" style="{style}">{words}</span></div>')
    html = f"""<!doctype html><html><body style="font-family: sans-serif; margin: 8px; background: #fff">
{"".join(spans)}</body></html>"""
    ids = [
        f"{colour[1:]}-{size}-{script}"
        for colour in LINK_BLUES + NOT_LINKS
        for size in SIZES
        for script, _ in WORDS
    ]
    return page_with_boxes(html, ids, (600, 1700))


def links_found(
    image: np.ndarray, boxes: dict[str, tuple[int, int, int, int]], colours: tuple[str, ...]
) -> int:
    found = 0
    for name, (x0, y0, x1, y1) in boxes.items():
        if f"#{name.split('-')[0]}" in colours:
            ink = ink_of(image[y0 - 2 : y1 + 2, x0 - 2 : x1 + 2])
            found += ink is not None and ink.share <= INK_SHARE and is_link_blue(ink)
    return found


@pytest.mark.parametrize("quality", [None, 75])
def test_link_blues_are_told_from_slate_greys_in_png_and_jpeg(swatches: Page, quality: int | None) -> None:
    """Thin blue strokes in a JPEG lose half their chroma: their median ink pixel reads as grey as a slate
    caption's, so the tint is read from the box's summed difference from its ground, against a lower bar
    where JPEG spread the chroma off the strokes. Every link blue is found in PNG, nearly all in JPEG, and
    no grey, muted blue, teal or violet in either."""
    image, boxes = swatches
    if quality is not None:
        buffer = io.BytesIO()
        Image.fromarray(image).save(buffer, "JPEG", quality=quality)
        image = np.asarray(Image.open(buffer).convert("RGB"))
    per_colour = len(SIZES) * len(WORDS)
    assert links_found(image, boxes, NOT_LINKS) == 0
    found = links_found(image, boxes, LINK_BLUES)
    assert (
        found == len(LINK_BLUES) * per_colour
        if quality is None
        else found >= 0.85 * len(LINK_BLUES) * per_colour
    )
