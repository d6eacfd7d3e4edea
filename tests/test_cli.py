import json
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

from detact_service.cli import app
from detact_service.settings import get_settings
from tests.render import render_form

runner = CliRunner()


@pytest.fixture(scope="module")
def form_png(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "form.png"
    render_form(1280, 800).image.save(path)
    return path


def test_parse_prints_public_json(form_png: Path) -> None:
    result = runner.invoke(app, ["parse", str(form_png), "--profile", "detact"])
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    assert body["image"] == {"width": 1280, "height": 800}
    texts = {e["text"] for e in body["elements"] if e["text"]}
    assert {"Submit", "Cancel", "Remember me"} <= texts
    assert {"text", "regions", "merge", "icons", "colors", "total"} <= set(body["timings_ms"])


def test_parse_caap_and_task(form_png: Path, tmp_path: Path) -> None:
    out = tmp_path / "form.txt"
    result = runner.invoke(
        app, ["parse", str(form_png), "-f", "caap", "--task", "submit the form", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    lines = out.read_text().splitlines()
    assert any('text: "Submit"' in line and line.startswith("- ID: element_") for line in lines)


def test_parse_som_writes_a_png_of_the_same_size(form_png: Path, tmp_path: Path) -> None:
    out = tmp_path / "som.png"
    result = runner.invoke(app, ["parse", str(form_png), "-f", "som", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert Image.open(out).size == (1280, 800)


@pytest.mark.parametrize("content", [b"", b"not an image at all"])
def test_bad_input_exits_2_with_a_message(tmp_path: Path, content: bytes) -> None:
    bad = tmp_path / "bad.png"
    bad.write_bytes(content)
    result = runner.invoke(app, ["parse", str(bad)])
    assert result.exit_code == 2
    assert "error:" in result.stderr


def test_unavailable_profile_is_explained(
    form_png: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DETACT_MODELS_DIR", str(tmp_path))
    get_settings.cache_clear()
    try:
        result = runner.invoke(app, ["parse", str(form_png), "--profile", "fast"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 2
    assert "not available" in result.stderr


@pytest.mark.slow
def test_console_script_runs_the_shipped_example() -> None:
    example = Path(__file__).resolve().parent.parent / "examples" / "form.png"
    detact = shutil.which("detact")
    assert detact, "the console script is installed with the package"
    out = subprocess.run(
        [detact, "parse", str(example), "--format", "detact"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    assert "Submit" in out.stdout
