"""What OCR reads where a pictogram is drawn: predicates the merge, the icon stage and the ink fit share."""

from __future__ import annotations

import re

WORD_CONFIDENCE = 0.8  # OCR confidence at which two letters of another script are a word, not a glyph


def is_glyph_text(text: str, score: float = 1.0) -> bool:
    """OCR's reading of a pictogram: one or two symbols, no ASCII letter or digit (a menu icon as '三').

    Two letters of another script read with confidence ``score`` >= :data:`WORD_CONFIDENCE` are a word,
    not a glyph: Chinese and Japanese labels are often two characters (``返回`` back, ``主页`` home under
    a phone's tab icons), and were dropped as glyphs; an icon misread as two such letters (``中口``,
    ``人业``) is read with less confidence.
    """
    stripped = text.strip()
    if len(stripped) == 2 and stripped.isalpha() and score >= WORD_CONFIDENCE:
        return False
    return 0 < len(stripped) <= 2 and not any(c.isascii() and c.isalnum() for c in stripped)


def is_letter_text(text: str | None) -> bool:
    """OCR text of one ASCII letter or digit: a letter, or a pictogram read as one (a magnifier as 'Q')."""
    stripped = (text or "").strip()
    return len(stripped) == 1 and stripped.isascii() and stripped.isalnum()


MAGNIFIER_Q = re.compile(r"^Q(?:\s+(?=[^\W\d_])|(?=[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]))")
"""A ``Q`` that is a magnifier OCR read before a placeholder: before a space and a letter, or glued to a
CJK character (``Q 搜索``, ``Q搜索或输入网址``), where no word starts so."""
MAGNIFIER_Q_GLUED = re.compile(r"^Q(?=[A-Z][a-z])")
"""... or glued to a capitalised word (``QSearch``), which a word (Qt's ``QWidget``) may be too."""


def starts_with_magnifier(text: str) -> bool:
    """Whether ``text`` starts with a magnifier OCR read as ``Q`` where no word starts so
    (:data:`MAGNIFIER_Q`)."""
    return MAGNIFIER_Q.match(text) is not None


def without_magnifier(text: str, glued: bool = False) -> str:
    """``text`` without a leading magnifier read as ``Q`` (:data:`MAGNIFIER_Q`; with ``glued``, also one
    glued to a capitalised word, :data:`MAGNIFIER_Q_GLUED`, where the text is known to be a field's)."""
    found = MAGNIFIER_Q.match(text) or (MAGNIFIER_Q_GLUED.match(text) if glued else None)
    return text if found is None else text[found.end() :]
