import pytest

from training.data.phone_real import DEFAULT_ROOT


@pytest.mark.skipif(not (DEFAULT_ROOT / "labels").is_dir(), reason="needs ../shared/data/phone_real")
def test_phone_words_are_read_at_the_phone_side_and_at_the_full_side() -> None:
    from bench.ocr_phone import measure

    full, phone = measure([0, 960], splits=("val",), limit=3)
    assert full.truth_words == phone.truth_words > 20
    assert full.found / full.truth_words > 0.6 and phone.found / phone.truth_words > 0.6
    assert len(full.cpu_ms) == len(phone.cpu_ms) == 3
    assert "| 960 |" in phone.row() and "| off |" in full.row()
