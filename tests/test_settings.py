from pathlib import Path

import pytest
from pydantic import ValidationError

from detact_service.pipeline import resolve_backend
from detact_service.settings import Settings

README = Path(__file__).resolve().parent.parent / "README.md"


def test_every_setting_is_documented_in_the_readme() -> None:
    readme = README.read_text()
    missing = [
        f"DETACT_{name.upper()}" for name in Settings.model_fields if f"DETACT_{name.upper()}" not in readme
    ]
    assert missing == []


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DETACT_OCR_BACKEND", "easyocr")
    monkeypatch.setenv("DETACT_ICON_THRESHOLD", "0.9")
    settings = Settings()
    assert settings.ocr_backend == "easyocr" and settings.icon_threshold == 0.9


def test_invalid_settings_are_rejected_at_start_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DETACT_OCR_BACKEND", "tesseract")
    with pytest.raises(ValidationError):
        Settings()


def test_cpu_default_ocr_is_the_fast_one() -> None:
    assert resolve_backend("text", None, Settings(device="cpu")) == "rapidocr"
    assert resolve_backend("text", None, Settings(device="cuda")) == "easyocr"
    assert resolve_backend("regions", None, Settings()) == "classical"
    assert resolve_backend("regions", None, Settings(sam_checkpoint=Path("/x.pth"))) == "sam"
