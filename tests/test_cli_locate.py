"""``detact locate IMAGE DESCRIPTION``: JSON with the click point; exit status 1 when not found."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from detact_service.cli import app
from detact_service.settings import get_settings
from tests.render import RenderedScreen, render_form

runner = CliRunner()


@pytest.fixture(autouse=True)
def lexical(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("DETACT_RELEVANCE__BACKEND", "lexical")
    monkeypatch.setenv("DETACT_PROFILE", "detact")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.fixture(scope="module")
def screen() -> RenderedScreen:
    return render_form(1400, 1000)


def test_locate_prints_the_element_and_its_point(screen: RenderedScreen, tmp_path: Path) -> None:
    path = tmp_path / "form.png"
    screen.image.save(path)
    result = runner.invoke(app, ["locate", str(path), "the Cancel button"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["found"] is True and data["element"]["element"]["text"] == "Cancel"
    box = next(d.bbox for d in screen.drawn if d.kind == "button" and d.text == "Cancel")
    x, y = data["element"]["point"]
    assert box[0] <= x <= box[2] and box[1] <= y <= box[3]
    assert data["element"]["point_normalized"] == [round(x / 1400, 4), round(y / 1000, 4)]

    missing = runner.invoke(app, ["locate", str(path), "the Delete account button"])
    assert missing.exit_code == 1
    assert json.loads(missing.stdout)["found"] is False


def test_locate_refuses_a_bad_file(tmp_path: Path) -> None:
    path = tmp_path / "not.png"
    path.write_bytes(b"not an image")
    result = runner.invoke(app, ["locate", str(path), "the Submit button"])
    assert result.exit_code == 2
    assert "error:" in result.output
