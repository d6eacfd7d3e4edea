"""``detact parse --task ...``: DetACT's filter (the relevant elements only), ``--max-elements K`` caps it,
ids are those of the full parse, and the process exits cleanly."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from detact_service.cli import app
from detact_service.formats import to_public
from detact_service.pipeline import get_pipeline
from detact_service.settings import get_settings
from tests.render import render_form, render_form_with_icons

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
    pixels = np.asarray(Image.open(form_png).convert("RGB"))
    full = to_public(get_pipeline(get_settings(), "detact").parse(pixels, task=task))  # no cut
    elements = {e["id"]: e for e in full.model_dump(mode="json")["elements"]}
    assert len(elements) > 3 and all(e["relevance"] is not None for e in elements.values())

    cut = runner.invoke(
        app,
        ["parse", str(form_png), "--profile", "detact", "--task", task, "--max-elements", "3", "-f", "caap"],
    )
    assert cut.exit_code == 0, cut.output
    lines = cut.stdout.strip().splitlines()
    assert len(lines) <= 3
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


@pytest.fixture(scope="module")
def busy(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """The busy form's file, and what its parse holds at least: each drawn control and text once, a mark's
    label in its mark."""
    screen = render_form_with_icons()
    path = tmp_path_factory.mktemp("cli-relevance") / "busy.png"
    screen.image.save(path)
    kinds = [d.kind for d in screen.drawn]
    return path, sum(k != "rect" for k in kinds) - sum(k in {"checkbox", "radio"} for k in kinds)


@pytest.mark.parametrize(
    ("task", "named"),
    [
        ('click the "Cancel" button', "Cancel"),
        ("open the search", "search"),
        ("Tick remember me", "checkbox"),  # the control its label names
        ("type your email address", "input"),  # the field under the label
    ],
)
def test_a_task_alone_gives_a_filtered_list_with_the_target(
    busy: tuple[Path, int], task: str, named: str
) -> None:
    busy_png, expected = busy
    untasked = runner.invoke(app, ["parse", str(busy_png), "--profile", "detact"])
    assert untasked.exit_code == 0, untasked.output
    everything = json.loads(untasked.stdout)["elements"]
    assert len(everything) >= expected >= 19  # a busy screen

    tasked = runner.invoke(app, ["parse", str(busy_png), "--profile", "detact", "--task", task])
    assert tasked.exit_code == 0, tasked.output
    kept = json.loads(tasked.stdout)["elements"]
    assert 0 < len(kept) <= len(everything) // 2
    assert any(named in (e["text"], e["icon"], e["type"]) for e in kept), kept
    by_id = {e["id"]: e for e in everything}
    assert all(by_id[e["id"]]["bbox"] == e["bbox"] for e in kept)  # ids of the full parse

    capped = runner.invoke(
        app, ["parse", str(busy_png), "--profile", "detact", "--task", task, "--max-elements", "1"]
    )
    assert capped.exit_code == 0, capped.output
    (only,) = json.loads(capped.stdout)["elements"]
    assert named in (only["text"], only["icon"], only["type"])


@pytest.mark.slow
def test_parse_with_a_task_exits_cleanly(form_png: Path) -> None:
    """The ranker embeds words in a background thread; it is stopped at exit (was: abort, exit 134)."""
    command = [sys.executable, "-m", "detact_service.cli", "parse", str(form_png), "--profile", "detact"]
    for task in ("click Submit", "open the zebra quokka settings"):
        out = subprocess.run(
            [*command, "--task", task, "-f", "caap"], capture_output=True, text=True, timeout=300
        )
        assert out.returncode == 0, out.stderr[-2000:]
        assert "terminate called" not in out.stderr
        assert out.stdout.count("- ID: element_") >= 1
