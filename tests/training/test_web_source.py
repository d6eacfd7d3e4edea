"""WebRenderer in real headless Chromium: labels checked against the DOM."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from detact_service.core import ElementType
from training.data.sources.dom import dom_elements
from training.data.sources.looks import framework_looks
from training.data.sources.thirdparty import ThirdPartyRenderer, pages
from training.data.sources.web import KINDS, WebRenderer, generate_page, icon_catalogue, look_for

pytestmark = pytest.mark.skipif(
    not (Path("/usr/bin/chromium").exists() and Path("/usr/bin/chromedriver").exists()),
    reason="needs Debian chromium + chromium-driver",
)

PAGE = """<!DOCTYPE html><html><head><style>
body{margin:0;font-family:'DejaVu Sans';font-size:16px} .p{position:absolute}
</style></head><body>
<label class="p" style="left:10px;top:10px"><input id="cb" type="checkbox" checked> Remember me</label>
<input id="name" class="p" style="left:10px;top:50px" placeholder="Your name" data-focus>
<button id="off" class="p" style="left:10px;top:100px" disabled>Off</button>
<button id="go" class="p" style="left:100px;top:100px">Go</button>
<a id="lnk" class="p" href="#" style="left:200px;top:100px">Help</a>
<div class="p" role="tablist" style="left:10px;top:180px"><button role="tab" aria-selected="true">One</button>
<button role="tab" aria-selected="false">Two</button>
<button role="switch" aria-checked="true" aria-label="Wi-Fi" style="width:40px;height:20px"></button></div>
<button class="p" style="left:10px;top:150px;visibility:hidden">Invisible</button>
<button class="p" style="left:-500px;top:150px">Offscreen</button>
<button class="p" style="left:20px;top:260px">Covered</button>
<div class="p" style="left:0;top:220px;width:100%;height:120px;background:rgba(0,0,0,.5)"></div>
<ul class="p" style="left:10px;top:350px;margin:0"><li>Prose point</li>
<li><a href="#">Linked point</a></li></ul>
<ul class="p" style="left:200px;top:350px;margin:0;list-style:none"><li>App row</li></ul>
<nav class="p" style="left:300px;top:350px"><ul style="margin:0"><li>Nav point</li></ul></nav>
</body></html>"""


@pytest.fixture(scope="module")
def renderer() -> Iterator[WebRenderer]:
    with WebRenderer() as r:
        yield r


def test_dom_labels_match_the_page(renderer: WebRenderer) -> None:
    image = renderer.render_html(PAGE, 400, 400, 2.0)
    assert image.size == (800, 800)
    assert renderer.driver is not None
    elements = dom_elements(renderer.driver, image)
    by_text = {e.text: e for e in elements if e.text}
    assert "Covered" not in by_text, "an element under an overlay must be dropped"
    assert "Invisible" not in by_text and "Offscreen" not in by_text
    (checkbox,) = [e for e in elements if e.type is ElementType.CHECKBOX]
    assert checkbox.state.checked is True and checkbox.state.focused is False
    assert by_text["Your name"].type is ElementType.INPUT and by_text["Your name"].state.focused is True
    assert by_text["Off"].type is ElementType.BUTTON and by_text["Off"].state.disabled is True
    assert by_text["Go"].state.disabled is False
    assert by_text["Help"].type is ElementType.LINK
    assert by_text["Remember me"].type is ElementType.TEXT
    assert by_text["One"].type is ElementType.TAB and by_text["One"].state.selected is True
    assert by_text["Two"].state.selected is False
    # a bullet of running text is text; a list styled as a list of choices, or in a navigation, lists items
    assert by_text["Prose point"].type is ElementType.TEXT
    assert by_text["Linked point"].type is ElementType.LINK
    assert by_text["App row"].type is ElementType.LIST_ITEM
    assert by_text["Nav point"].type is ElementType.LIST_ITEM
    (toggle,) = [e for e in elements if e.type is ElementType.TOGGLE]
    assert toggle.state.checked is True
    # boxes are the DOM's client rects times the device pixel ratio
    rect = renderer.driver.execute_script(
        "const r = document.getElementById('go').getBoundingClientRect();"
        "return [r.left, r.top, r.right, r.bottom];"
    )
    expected = [v * 2 for v in rect]
    assert all(abs(a - b) <= 1.01 for a, b in zip(by_text["Go"].bbox, expected, strict=True))


def _seed_of_kind(kind: str, start: int = 0) -> int:
    return next(s for s in range(start, start + 500) if generate_page(s).kind == kind)


def test_generated_pages_cover_every_kind_and_are_deterministic() -> None:
    kinds = {generate_page(s).kind for s in range(200)}
    assert kinds == set(KINDS)
    assert generate_page(5).html == generate_page(5).html
    assert generate_page(5).template.startswith("web/")


@pytest.mark.slow
def test_render_is_deterministic_and_boxes_inside(renderer: WebRenderer) -> None:
    for seed in (_seed_of_kind("login"), _seed_of_kind("table")):
        image, labels = renderer.render(seed)
        _, again = renderer.render(seed)
        assert labels.elements == again.elements
        assert labels.template == again.template and (labels.width, labels.height) == image.size
        assert labels.elements
        for e in labels.elements:
            x1, y1, x2, y2 = e.bbox
            assert 0 <= x1 < x2 <= image.width and 0 <= y1 < y2 <= image.height
            if e.type is ElementType.ICON:
                assert e.icon in icon_catalogue()
            assert e.color is not None


@pytest.mark.slow
def test_dialog_overlay_hides_the_page_below(renderer: WebRenderer) -> None:
    seed = _seed_of_kind("dialog")
    _, labels = renderer.render(seed)
    dialogs = [e for e in labels.elements if e.type is ElementType.REGION and e.width * e.height > 0]
    dialog = max(dialogs, key=lambda e: e.width * e.height)
    x1, y1, x2, y2 = dialog.bbox
    for e in labels.elements:
        cx, cy = e.center
        assert x1 - 2 <= cx <= x2 + 2 and y1 - 2 <= cy <= y2 + 2, f"{e} is outside the dialog"
    assert any(e.type is ElementType.BUTTON for e in labels.elements)


@pytest.mark.slow
@pytest.mark.skipif(not pages(), reason="no third-party HTML collections on this machine")
def test_thirdparty_page_records_its_licence() -> None:
    with ThirdPartyRenderer() as renderer:
        image, labels = renderer.render(3)
    assert labels.template.startswith("thirdparty/") and labels.elements
    assert labels.meta["licence"] and labels.meta["package"] and Path(labels.meta["path"]).exists()
    for e in labels.elements:
        x1, y1, x2, y2 = e.bbox
        assert 0 <= x1 < x2 <= image.width and 0 <= y1 < y2 <= image.height


def test_looks_come_from_installed_frameworks_and_render_offline() -> None:
    looks = framework_looks()
    families = {look.family for look in looks}
    assert {"bootstrap5", "bootstrap4", "bulma"} <= families
    assert len(looks) > 40, "Bootswatch themes for Bootstrap 4 and 5"
    for look in looks:
        assert look.css_path is not None and look.css_path.exists()
        assert "@import" not in look.css(), "web fonts from a CDN would not load offline"
    chosen = {look_for(seed).family for seed in range(300)}
    assert chosen == {"native", *families}
    page = generate_page(next(s for s in range(300) if look_for(s).family == "bootstrap5"))
    assert 'class="btn btn-' in page.html, "Bootstrap pages use Bootstrap's class names"
    native = generate_page(next(s for s in range(300) if look_for(s).family == "native"))
    assert "btn btn-" not in native.html


@pytest.mark.slow
def test_framework_look_labels_come_from_the_dom(renderer: WebRenderer) -> None:
    seed = next(
        s for s in range(2000) if look_for(s).family == "bootstrap5" and generate_page(s).kind == "settings"
    )
    image, labels = renderer.render(seed)
    assert labels.meta["look"] == look_for(seed).name
    assert renderer.driver is not None
    count = renderer.driver.execute_script(
        "return document.querySelectorAll('input[type=checkbox]:not([role=switch]),input[type=radio]').length"
    )
    checks = [e for e in labels.elements if e.type in (ElementType.CHECKBOX, ElementType.RADIO)]
    assert 0 < len(checks) <= count
    assert any(e.type is ElementType.BUTTON and e.text == "Save" for e in labels.elements)
    # The framework's stylesheet really applied: Bootstrap's .form-control is display:block, width 100 %
    display = renderer.driver.execute_script(
        "const e = document.querySelector('.form-control'); return e ? getComputedStyle(e).display : 'block'"
    )
    assert display == "block"
    assert all(0 <= e.bbox[0] < e.bbox[2] <= image.width for e in labels.elements)
