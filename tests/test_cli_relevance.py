"""``detact parse --task ... --max-elements K``: the cut list keeps the ids of the full parse."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from detact_service.cli import app
from detact_service.settings import get_settings
from tests.render import render_form

runner = CliRunner()


@pytest.fixture(autouse=True)
def unbudgeted(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Embed every word (no time budget), so two runs score alike."""
    monkeypatch.setenv("DETACT_RELEVANCE__EMBED_BUDGET_MS", "0")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.fixture(scope="module")
def form_png(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli-relevance") / "form.png"
    render_form(1280, 800).image.save(path)
    return path


def test_task_and_max_elements_cut_the_caap_list_with_ids_intact(form_png: Path) -> None:
    task = 'click the "Cancel" button'
    full = runner.invoke(app, ["parse", str(form_png), "--profile", "detact", "--task", task])
    assert full.exit_code == 0, full.output
    elements = {e["id"]: e for e in json.loads(full.stdout)["elements"]}
    assert len(elements) > 3 and all(e["relevance"] is not None for e in elements.values())

    cut = runner.invoke(
        app,
        ["parse", str(form_png), "--profile", "detact", "--task", task, "--max-elements", "3", "-f", "caap"],
    )
    assert cut.exit_code == 0, cut.output
    lines = cut.stdout.strip().splitlines()
    assert len(lines) == 3
    ids = [int(re.match(r"- ID: element_(\d+),", line).group(1)) for line in lines]  # type: ignore[union-attr]
    assert ids == sorted(ids)
    kept = min(elements[i]["relevance"] for i in ids)
    assert all(e["relevance"] <= kept for i, e in elements.items() if i not in ids)
    cancel = [line for line in lines if 'text: "Cancel"' in line]
    assert cancel, lines
    cancel_id = int(cancel[0].split("element_")[1].split(",")[0])
    assert elements[cancel_id]["text"] == "Cancel"


def test_max_elements_must_be_positive(form_png: Path) -> None:
    result = runner.invoke(app, ["parse", str(form_png), "--max-elements", "0"])
    assert result.exit_code == 2
