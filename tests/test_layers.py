"""The layers run one way (import-linter contracts in ``pyproject.toml``, checked here so that the README's
test command, and CI, enforce them): the runtime imports neither ``training`` nor ``bench``, ``training``
does not import ``bench``, and the runtime has no import cycles, function-local imports included."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parent.parent


def test_import_contracts_hold(capsys: pytest.CaptureFixture[str]) -> None:
    code = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)
    assert code == 0, capsys.readouterr().out


def test_a_function_local_import_cycle_breaks_the_contract(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    package = tmp_path / "toy"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from toy import b\n")
    (package / "b.py").write_text("def later() -> None:\n    from toy import a  # hidden in a function\n")
    config = tmp_path / "contracts.toml"
    config.write_text(
        textwrap.dedent(
            """
            [tool.importlinter]
            root_packages = ["toy"]

            [[tool.importlinter.contracts]]
            name = "toy is acyclic"
            type = "acyclic_siblings"
            ancestors = ["toy"]
            """
        )
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(os.fspath(tmp_path))
    assert lint_imports(config_filename=str(config), no_cache=True, no_logo=True) == 1
    assert "BROKEN" in capsys.readouterr().out
