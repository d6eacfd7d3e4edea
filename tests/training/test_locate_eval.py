"""The locate evaluation's pieces that need no browser: descriptions from labels, scoring, the report."""

from __future__ import annotations

import random

from detact_service.core import Element, ElementState, ElementType, ScreenParse
from training.eval.locate import Case, describe_labels, evaluate, held_out_seeds, report

T = ElementType


def labels() -> list[Element]:
    return [
        Element((10, 10, 90, 40), T.BUTTON, text="Save"),
        Element((100, 10, 190, 40), T.BUTTON, text="Save"),  # ambiguous: never described
        Element((10, 60, 30, 80), T.CHECKBOX, state=ElementState(checked=False)),
        Element((36, 60, 160, 80), T.TEXT, text="Remember me"),
        Element((10, 90, 30, 110), T.CHECKBOX, state=ElementState(checked=True)),
        Element((36, 90, 160, 110), T.TEXT, text="Newsletter"),
        Element((10, 130, 100, 150), T.TEXT, text="Email"),
        Element((10, 155, 300, 185), T.INPUT),
        Element((400, 10, 424, 34), T.ICON, icon="search"),
        Element((10, 200, 80, 220), T.LINK, text="Privacy"),
    ]


def test_descriptions_are_generated_only_for_unambiguous_targets() -> None:
    made = describe_labels(labels(), random.Random(0), per_page=20)
    described = {d: box for _, d, box in made}
    assert described["the checkbox next to Remember me"] == (10, 60, 30, 80)
    assert described["the Email field"] == (10, 155, 300, 185)
    assert described["the search icon"] == (400, 10, 424, 34)
    assert described["the Privacy link"] == (10, 200, 80, 220)
    assert described["the second checkbox"] == (10, 90, 30, 110)
    assert not any("Save" in d for d in described)
    assert len(describe_labels(labels(), random.Random(0), per_page=3)) == 3


def test_evaluate_scores_the_point_against_the_target() -> None:
    parse = ScreenParse(500, 300, [e.replace(id=i) for i, e in enumerate(labels())])
    cases = [
        Case("web", 1, "link", "the Privacy link", parse, [(10, 200, 80, 220)], "web/x/v0"),
        Case("web", 1, "field", "the Email field", parse, [(0, 0, 5, 5)], "web/x/v0"),
    ]
    outcomes = evaluate(cases, "lexical")
    assert [o.correct for o in outcomes] == [True, False]
    assert all(o.found for o in outcomes)
    text = report({"lexical": {"Web (held out)": outcomes}}, pages=1)
    assert "| Web (held out) | 2 | 0.50 | 1.00 | 0.50 | 0.50 |" in text
    assert "`web/x/v0`" in text


def test_held_out_seeds_are_test_split_templates() -> None:
    from training.data.export import split_of
    from training.data.sources.web import generate_page

    seeds = held_out_seeds(3)
    assert len(seeds) == 3 and min(seeds) >= 5000
    assert all(split_of(generate_page(s).template) == "test" for s in seeds)
