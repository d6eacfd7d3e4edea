from pathlib import Path

import pytest
from pydantic import ValidationError

from detact_service.pipeline import resolve_backend
from detact_service.settings import LEGACY_NAMES, OcrSettings, Settings, env_names

README = Path(__file__).resolve().parent.parent / "README.md"


def test_every_setting_is_documented_in_the_readme() -> None:
    readme = README.read_text()
    names = env_names()
    assert "DETACT_OCR__ENGINE" in names and "DETACT_MAX_QUEUE" in names
    assert [name for name in names if f"`{name}`" not in readme] == []


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DETACT_OCR__ENGINE", "easyocr")
    monkeypatch.setenv("DETACT_ICONS__THRESHOLD", "0.9")
    monkeypatch.setenv("DETACT_MAX_QUEUE", "3")
    settings = Settings()
    assert settings.ocr.engine == "easyocr" and settings.icons.threshold == 0.9
    assert settings.max_queue == 3


def test_flat_names_of_earlier_versions_still_work(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DETACT_OCR_BACKEND", "easyocr")
    monkeypatch.setenv("DETACT_SEGMENTER", "sam")
    settings = Settings(icon_threshold=0.8, llm_model="local")
    assert settings.ocr.engine == "easyocr" and settings.regions.segmenter == "sam"
    assert settings.icons.threshold == 0.8 and settings.llm.model == "local"
    assert Settings(ocr=OcrSettings(min_score=0.1), ocr_backend="easyocr").ocr == OcrSettings(
        engine="easyocr", min_score=0.1
    )
    # the grouped name wins over the flat one
    monkeypatch.setenv("DETACT_OCR__ENGINE", "rapidocr")
    assert Settings().ocr.engine == "rapidocr"
    groups = set(Settings.model_fields)
    assert all(group in groups for group, _ in LEGACY_NAMES.values())


def test_invalid_settings_are_rejected_at_start_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DETACT_OCR__ENGINE", "tesseract")
    with pytest.raises(ValidationError):
        Settings()
    monkeypatch.delenv("DETACT_OCR__ENGINE")
    monkeypatch.setenv("DETACT_OCR__ENGNIE", "easyocr")  # a typo in a group is an error, not ignored
    with pytest.raises(ValidationError, match="engnie"):
        Settings()


def test_cpu_default_ocr_is_the_fast_one() -> None:
    assert resolve_backend("text", None, Settings(device="cpu")) == "rapidocr"
    assert resolve_backend("text", None, Settings(device="cuda")) == "easyocr"
    assert resolve_backend("regions", None, Settings()) == "classical"
    assert resolve_backend("regions", None, Settings(regions={"sam_checkpoint": Path("/x.pth")})) == "sam"
