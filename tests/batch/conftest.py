from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.batch import cheap

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def cheap_profile() -> Iterator[str]:
    """The ``batch-test`` profile in this process (workers register it through ``cheap.PLUGIN``)."""
    cheap.register()
    try:
        yield cheap.PROFILE
    finally:
        cheap.unregister()


@pytest.fixture
def images(tmp_path: Path) -> Path:
    """A folder of six small PNGs with a non-image and a pipeline-poisoning image in the middle."""
    folder = tmp_path / "images"
    (folder / "sub").mkdir(parents=True)
    for i in range(6):
        target = folder / ("sub" if i % 2 else "") / f"{i}.png"
        target.write_bytes(cheap.png(64 + i, 32, (i * 10, 0, 0)))
    (folder / "3_bad.png").write_bytes(b"this is not an image")
    (folder / "3_poisoned.png").write_bytes(cheap.png(16, 16, (255, 0, 0)))
    (folder / "notes.txt").write_text("not a screenshot")
    return folder
