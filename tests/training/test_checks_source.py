"""ChecksRenderer in real headless Chromium: settings pages whose checkables are labelled with their state."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from detact_service.core import ElementType
from training.data.export import SPLITS, split_of
from training.data.sources import SOURCES, create_renderer
from training.data.sources.checks import LAYOUTS, LOOKS, page_html

pytestmark = pytest.mark.skipif(
    not (Path("/usr/bin/chromium").exists() and Path("/usr/bin/chromedriver").exists()),
    reason="needs Debian chromium + chromium-driver",
)
CHECKABLE = {ElementType.CHECKBOX, ElementType.RADIO, ElementType.TOGGLE}


def test_every_look_and_layout_gives_a_page_with_controls_on_and_off() -> None:
    rng = random.Random(0)
    for look in LOOKS:
        for layout in LAYOUTS:
            page = page_html(rng, look, layout, mobile=False)
            if look == "native":
                assert "<input" in page and "aria-checked" not in page
            else:
                assert 'aria-checked="true"' in page or 'aria-checked="false"' in page
    # the looks' layouts are the templates: each split holds some (val and test looks never trained on)
    assert {split_of(f"checks/{look}/{layout}") for look in LOOKS for layout in LAYOUTS} == set(SPLITS)


def test_rendered_pages_label_checkables_with_their_state_and_are_deterministic() -> None:
    assert "checks" in SOURCES
    with create_renderer("checks") as renderer:
        screens = [renderer.render(seed) for seed in range(1100, 1106)]
        again_image, again = renderer.render(1100)
    states = set()
    for image, labels in screens:
        assert labels.source == "web-checks" and labels.template.startswith("checks/")
        checkables = [e for e in labels.elements if e.type in CHECKABLE]
        assert len(checkables) >= 5
        for element in checkables:
            x1, y1, x2, y2 = element.bbox
            assert 0 <= x1 < x2 <= image.width and 0 <= y1 < y2 <= image.height
            assert element.state.checked is not None
            states.add((element.type, element.state.checked))
    assert {s for _, s in states} == {True, False} and ElementType.TOGGLE in {t for t, _ in states}
    first_image, first = screens[0]
    assert np.array_equal(np.asarray(first_image), np.asarray(again_image))
    assert [e.bbox for e in first.elements] == [e.bbox for e in again.elements]
