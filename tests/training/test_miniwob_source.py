"""MiniWobRenderer: evaluation seeds refused; a real task renders deterministically with DOM labels."""

from __future__ import annotations

from pathlib import Path

import pytest

from training.data.sources.miniwob import MIN_SEED, MiniWobRenderer, task_names

needs_chromium = pytest.mark.skipif(
    not (Path("/usr/bin/chromium").exists() and Path("/usr/bin/chromedriver").exists()),
    reason="needs Debian chromium + chromium-driver",
)


def test_refuses_evaluation_seeds() -> None:
    renderer = MiniWobRenderer()
    for seed in (0, 1, 999):
        with pytest.raises(ValueError, match="reserved for evaluation"):
            renderer.render(seed)
    assert MIN_SEED == 1000


def test_tasks_come_from_the_wheel() -> None:
    names = task_names()
    assert "click-checkboxes" in names and "login-user" in names and len(names) > 100


@needs_chromium
def test_task_renders_deterministically() -> None:
    with MiniWobRenderer(tasks=("click-checkboxes", "login-user")) as renderer:
        for seed in (1000, 1001):
            image, labels = renderer.render(seed)
            _, again = renderer.render(seed)
            task, scale = renderer.task_for(seed)
            assert labels.template == f"miniwob/{task}" and labels.meta["task"] == task
            assert labels.scale == scale
            assert image.size == (round(160 * scale), round(210 * scale))
            assert labels.elements == again.elements
            types = {e.type.value for e in labels.elements}
            assert "text" in types  # the task instruction
            assert types & {"checkbox", "input", "button"}
            for e in labels.elements:
                x1, y1, x2, y2 = e.bbox
                assert 0 <= x1 < x2 <= image.width and 0 <= y1 < y2 <= image.height
