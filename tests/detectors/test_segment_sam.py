"""The SAM regions stage, end to end on a tiny randomly initialised SAM (no real weights exist here)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from detact_service.core import Element, ElementType, ScreenParse
from detact_service.detectors.regions import SOURCE, postprocess_regions
from detact_service.detectors.segment_sam import SamSegmenter, build_sam_vit_tiny, masks_to_regions
from detact_service.settings import Settings
from detact_service.stages import Stage, StageUnavailable, create_stage, loaded_model_keys
from tests.render import ScreenPainter, ocr_truth


@pytest.fixture(scope="module")
def tiny_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("sam") / "sam_vit_tiny.pth"
    torch.save(build_sam_vit_tiny().state_dict(), path)
    return path


def tiny_settings(checkpoint: Path | None) -> Settings:
    return Settings(sam_checkpoint=checkpoint, sam_model_type="vit_tiny", sam_points_per_side=4, device="cpu")


def small_screen() -> tuple[np.ndarray, ScreenParse]:
    p = ScreenPainter(480, 320)
    p.text((20, 16), "Sign in", size=24, bold=True)
    p.input((20, 60, 460, 100), placeholder="Email")
    p.checkbox((20, 120), checked=True)
    p.text((52, 120), "Remember me", size=18)
    p.button((20, 170, 200, 220), "Go", fill=(37, 99, 235))
    screen = p.done()
    texts = [
        Element(bbox=d.bbox, type=ElementType.TEXT, source="ocr", text=d.text) for d in ocr_truth(screen)
    ]
    return np.asarray(screen.image), ScreenParse(width=480, height=320, elements=texts)


def mask(x: float, y: float, w: float, h: float, predicted_iou: float = 0.9) -> dict[str, Any]:
    """A record shaped like SamAutomaticMaskGenerator's output (bbox is XYWH)."""
    return {"bbox": [x, y, w, h], "area": int(w * h), "predicted_iou": predicted_iou, "stability_score": 0.95}


def assert_valid_regions(parse: ScreenParse, before: ScreenParse) -> list[Element]:
    assert (parse.width, parse.height) == (before.width, before.height)
    assert parse.elements[: len(before.elements)] == before.elements
    regions = parse.elements[len(before.elements) :]
    for e in regions:
        assert isinstance(e, Element) and e.source == SOURCE
        assert e.type in (ElementType.REGION, ElementType.ICON)
        assert 0 <= e.bbox[0] < e.bbox[2] <= parse.width and 0 <= e.bbox[1] < e.bbox[3] <= parse.height
        assert 0.0 <= e.score <= 1.0
    return regions


def test_is_a_regions_stage_and_loads_nothing_when_built() -> None:
    stage = create_stage("regions", "sam", Settings())
    assert isinstance(stage, SamSegmenter) and isinstance(stage, Stage)
    assert (stage.slot, stage.name) == ("regions", "sam")


@pytest.mark.parametrize("where", ["unset", "missing"])
def test_missing_checkpoint_is_unavailable(tmp_path: Path, where: str) -> None:
    checkpoint = None if where == "unset" else tmp_path / "nope.pth"
    stage = SamSegmenter(tiny_settings(checkpoint))
    image, parse = small_screen()
    with pytest.raises(StageUnavailable, match="checkpoint"):
        stage.run([image], [parse])


def test_unreadable_or_mismatched_checkpoint_is_unavailable(tmp_path: Path, tiny_checkpoint: Path) -> None:
    garbage = tmp_path / "garbage.pth"
    garbage.write_bytes(b"not a checkpoint")
    partial_state = torch.load(tiny_checkpoint, weights_only=True)
    partial_state.pop(next(iter(partial_state)))
    truncated = tmp_path / "truncated.pth"
    torch.save(partial_state, truncated)
    image, parse = small_screen()
    for bad in (garbage, truncated):
        with pytest.raises(StageUnavailable, match="could not be loaded"):
            SamSegmenter(tiny_settings(bad)).run([image], [parse])


def test_tiny_sam_end_to_end(tiny_checkpoint: Path) -> None:
    stage = SamSegmenter(tiny_settings(tiny_checkpoint))
    image, parse = small_screen()
    out = stage.run([image, image[:200, :300]], [parse, ScreenParse(width=300, height=200)])
    assert len(out) == 2
    assert_valid_regions(out[0], parse)
    assert_valid_regions(out[1], ScreenParse(width=300, height=200))
    assert any(key[:2] == ("sam", "vit_tiny") for key in loaded_model_keys() if isinstance(key, tuple))
    assert stage.model_version() == "sam-vit_tiny:sam_vit_tiny.pth"


def test_masks_become_typed_deduplicated_regions(
    tiny_checkpoint: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stage's path from masks to elements, with the generator's masks fixed."""
    image, parse = small_screen()
    records = [
        mask(300, 120, 24, 24),  # icon-sized
        mask(20, 60, 441, 41),  # the input: a region
        mask(21, 61, 438, 39, predicted_iou=0.7),  # its near-duplicate
        mask(20, 16, 85, 26),  # the title text: covered by OCR
        mask(400, 250, 3, 2),  # a speck
        mask(0, 0, 480, 320),  # the whole screen
        mask(-5, 280, 130, 60),  # spills past the bottom-left corner
    ]
    from segment_anything import SamAutomaticMaskGenerator

    monkeypatch.setattr(SamAutomaticMaskGenerator, "generate", lambda self, rgb: records)
    out = SamSegmenter(tiny_settings(tiny_checkpoint)).run([image], [parse])[0]
    found = sorted((e.type.value, e.bbox) for e in assert_valid_regions(out, parse))
    assert found == [
        ("icon", (300, 120, 324, 144)),
        ("region", (0, 280, 125, 320)),
        ("region", (20, 60, 461, 101)),
    ]


def test_masks_to_regions_types_by_size() -> None:
    elements = masks_to_regions(
        [mask(10, 10, 20, 20), mask(10, 50, 300, 120), mask(5, 5, 200, 3)], 640, 480, icon_min=8, icon_max=96
    )
    assert [(e.type, e.bbox) for e in elements] == [
        (ElementType.ICON, (10, 10, 30, 30)),
        (ElementType.REGION, (10, 50, 310, 170)),
    ]
    assert postprocess_regions(elements, np.zeros((0, 4), dtype=np.int64), 640, 480, 6.0) == elements
