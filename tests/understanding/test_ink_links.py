import numpy as np
import pytest

from detact_service.core import Element, ElementType
from detact_service.understanding.ink_links import ink_and_ground, ink_links, is_link_blue
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
    assert ink_and_ground(crop) is None  # nothing drawn
    crop[8:12, 5:55] = (26, 13, 171)
    found = ink_and_ground(crop)
    assert found is not None
    ink, ground, share = found
    assert (
        ink.tolist() == [26, 13, 171]
        and ground.tolist() == [255, 255, 255]
        and share == pytest.approx(0.167, 0.01)
    )
    assert is_link_blue(ink, ground) and not is_link_blue(ground, ink)
