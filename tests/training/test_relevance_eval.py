"""The relevance evaluation's target finding and ranking (no browser)."""

from __future__ import annotations

import pytest

from detact_service.core import Element, ElementType, ScreenParse
from training.eval.relevance import Episode, hits, recall, target_rank, targets

T = ElementType
LABELS = [
    Element((4, 104, 66, 146), T.BUTTON, text="no"),
    Element((4, 190, 112, 232), T.INPUT),
    Element((4, 254, 194, 296), T.INPUT),
    Element((6, 6, 220, 28), T.TEXT, text='Click on the "no" button.'),
]


def test_targets_from_the_utterance() -> None:
    assert targets("click-button", 'Click on the "no" button.', LABELS) == [LABELS[0]]
    assert targets("enter-text", 'Enter "x" into the text field.', LABELS) == [LABELS[1]]  # topmost field
    assert targets("click-checkboxes", "Select nothing and click Submit.", LABELS) == []
    assert targets("click-link", 'Click on the link "yes".', LABELS) == []


def test_hits_and_rank() -> None:
    target = LABELS[0]
    inner_text = Element((20, 114, 50, 136), T.TEXT, text="no")
    whole_form = Element((0, 0, 300, 300), T.REGION)
    assert hits(inner_text, target) and not hits(whole_form, target)
    scored = [(whole_form, 0.9), (LABELS[1], 0.5), (inner_text, 0.7)]
    parse = ScreenParse(320, 420, [e.replace(relevance=r) for e, r in scored])
    assert target_rank(parse, [target]) == 2
    assert target_rank(parse, [Element((300, 400, 310, 410))]) is None


def test_recall_counts_detected_episodes_unless_end_to_end() -> None:
    episodes = [Episode(1000 + i, "t", "u", 5, ranks={"r": rank}) for i, rank in enumerate([1, 6, None, 3])]
    assert recall(episodes, "r", 5) == pytest.approx(2 / 3)
    assert recall(episodes, "r", 5, end_to_end=True) == pytest.approx(2 / 4)
