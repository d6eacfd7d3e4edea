"""locate() on hand-made parses: text, icon, type, colour, state, position, ordinal, relation, not found."""

from __future__ import annotations

import pytest

from detact_service.core import Element, ElementState, ElementType, ScreenParse
from detact_service.understanding.locate import locate
from detact_service.understanding.locate_query import LocateQuery, drop_value_quotes, first_step

T = ElementType


def form() -> ScreenParse:
    """A 1000x800 screen: toolbar icons, a labelled form, checkboxes, two buttons, a footer link."""
    elements = [
        Element((10, 10, 40, 40), T.ICON, icon="menu", color="black"),
        Element((900, 10, 930, 40), T.ICON, icon="search", color="black"),
        Element((950, 10, 980, 40), T.ICON, icon="settings", color="grey"),
        Element((100, 100, 260, 124), T.TEXT, text="Email address"),
        Element((100, 130, 600, 170), T.INPUT, text="name@example.com", color="white"),
        Element((100, 190, 200, 214), T.TEXT, text="Password"),
        Element((100, 220, 600, 260), T.INPUT, color="white"),
        Element((100, 290, 122, 312), T.CHECKBOX, state=ElementState(checked=True), color="blue"),
        Element((132, 290, 280, 312), T.TEXT, text="Remember me"),
        Element((100, 330, 122, 352), T.CHECKBOX, state=ElementState(checked=False), color="white"),
        Element((132, 330, 380, 352), T.TEXT, text="Send me the newsletter"),
        Element((100, 400, 240, 450), T.BUTTON, text="Submit", color="blue"),
        Element((260, 400, 400, 450), T.BUTTON, text="Cancel", color="red"),
        Element((100, 740, 300, 764), T.LINK, text="Forgot your password?", color="blue"),
        Element((800, 740, 960, 764), T.LINK, text="Privacy", color="blue"),
    ]
    return ScreenParse(1000, 800, [e.replace(id=i) for i, e in enumerate(elements)])


def located(description: str, parse: ScreenParse | None = None) -> Element:
    result = locate(parse or form(), description)
    assert result.found, (description, result.reason, result.candidates)
    assert result.best is not None
    return result.best.element


def test_text_button() -> None:
    result = locate(form(), "the Submit button")
    assert result.found and result.best is not None
    assert result.best.element.text == "Submit"
    assert result.best.point == (170, 425)
    assert result.best.point_normalized == (0.17, 0.5312)
    assert result.best.element_id == 11
    assert 0 < result.best.score < 1
    assert result.best.match == 1.0
    assert 1 <= len(result.candidates) <= 4
    assert all(c.element.text != "Submit" for c in result.candidates)


def test_quoted_instruction_and_case() -> None:
    assert located('Click on the "cancel" button.').text == "Cancel"
    assert located("privacy").text == "Privacy"


def test_icon_name_and_colour() -> None:
    assert located("the search icon").icon == "search"
    assert located("the red button").text == "Cancel"
    assert located("the grey icon").icon == "settings"


def test_field_by_label() -> None:
    element = located("the password field")
    assert element.type is T.INPUT and element.bbox == (100, 220, 600, 260)
    assert located("Enter your email address").bbox == (100, 130, 600, 170)


def test_checkbox_next_to_label() -> None:
    element = located("the checkbox next to Remember me")
    assert element.type is T.CHECKBOX and element.bbox[1] == 290
    assert located("the checkbox next to newsletter").bbox[1] == 330
    assert located("the checkbox next to Send me the newsletter").bbox[1] == 330
    assert located("the checkbox next to 'Remember me'").bbox[1] == 290


def test_state_words() -> None:
    assert located("the unchecked checkbox").bbox[1] == 330
    assert located("the checked checkbox").bbox[1] == 290


def test_ordinals() -> None:
    assert located("the second checkbox").bbox[1] == 330
    assert located("the first checkbox").bbox[1] == 290
    assert located("the last link").text == "Privacy"
    assert located("the second icon from the right").icon == "search"
    assert located("the first button").text == "Submit"


def test_positions() -> None:
    assert located("the icon in the top right corner").icon == "settings"
    assert located("top left icon").icon == "menu"
    assert located("the link at the bottom right").text == "Privacy"
    assert located("the bottom left link").text.startswith("Forgot")


def test_relations() -> None:
    assert located("the button right of Submit").text == "Cancel"
    assert located("the button left of Cancel").text == "Submit"
    assert located("the field below Password").bbox == (100, 220, 600, 260)


def test_first_step_only() -> None:
    assert located("Click Cancel, then click Submit").text == "Cancel"
    assert located("Select Remember me and click Submit.").text == "Remember me"
    assert first_step('Click "a, then b" now') == 'Click "a, then b" now'


def test_value_quotes_are_not_targets() -> None:
    assert drop_value_quotes('Enter "Submit" into the password field').count('"') == 0
    assert drop_value_quotes('Type into the "Search" field') == 'Type into the "Search" field'
    element = located('Enter "Submit" into the password field')
    assert element.type is T.INPUT and element.bbox[1] == 220


def test_ordinal_word_that_is_a_label_is_not_an_ordinal() -> None:
    parse = ScreenParse(
        800,
        600,
        [
            Element((10, 10, 120, 30), T.TEXT, text="Last name", id=0),
            Element((10, 40, 300, 70), T.INPUT, id=1),
            Element((10, 90, 120, 110), T.TEXT, text="First name", id=2),
            Element((10, 120, 300, 150), T.INPUT, id=3),
        ],
    )
    assert LocateQuery.parse("the first name field", ["First name"]).ordinal is None
    assert located("the first name field", parse).bbox == (10, 120, 300, 150)
    assert located("the first field", parse).bbox == (10, 40, 300, 70)


@pytest.mark.parametrize(
    "description",
    ["the Delete account button", "the download icon", 'Click on the "maybe" button.', "zebra", "the slider"],
)
def test_not_found_says_so(description: str) -> None:
    result = locate(form(), description)
    assert not result.found
    assert result.best is None
    assert result.reason
    assert len(result.candidates) <= 5


def test_not_found_still_lists_best_guesses_that_partly_match() -> None:
    result = locate(form(), "the Submit order button")
    assert not result.found
    assert result.candidates and result.candidates[0].element.text == "Submit"


def test_empty_screen_and_empty_description() -> None:
    assert not locate(ScreenParse(100, 100, []), "Submit").found
    result = locate(form(), "  ")
    assert not result.found and result.candidates == []


def test_ids_default_to_index() -> None:
    parse = ScreenParse(100, 100, [Element((0, 0, 10, 10), T.BUTTON, text="Go")])
    result = locate(parse, "Go")
    assert result.found and result.best is not None and result.best.element_id == 0


def test_the_description_shown_on_screen_is_not_the_target() -> None:
    # MiniWoB-style: the instruction is printed at the top, split by OCR into fragments.
    elements = [
        Element((2, 3, 16, 13), T.TEXT, text="Se"),
        Element((15, 3, 60, 13), T.TEXT, text="lect Tab#2"),
        Element((58, 3, 90, 13), T.TEXT, text="and cli"),
        Element((20, 60, 50, 72), T.TEXT, text="Tab#1"),
        Element((60, 60, 90, 72), T.TEXT, text="Tab#2"),
    ]
    parse = ScreenParse(160, 210, [e.replace(id=i) for i, e in enumerate(elements)])
    assert located("Select Tab#2 and click Submit.", parse).bbox == (60, 60, 90, 72)


def test_a_label_that_equals_the_description_is_found() -> None:
    # the label or the checkbox it labels: both on that row
    assert located("Send me the newsletter").bbox[1] == 330
    assert located('Click the button in the dialog box labeled "Cancel".').text == "Cancel"


def test_first_of_several_targets_and_label_to_control() -> None:
    elements = [
        Element((10, 10, 120, 30), T.TEXT, text="Username"),
        Element((10, 55, 300, 85), T.INPUT),
        Element((10, 110, 120, 130), T.TEXT, text="Password"),
        Element((10, 155, 300, 185), T.INPUT),
        Element((10, 220, 100, 250), T.BUTTON, text="Login"),
    ]
    parse = ScreenParse(400, 300, [e.replace(id=i) for i, e in enumerate(elements)])
    description = 'Enter the username "kim" and the password "xy" into the text fields and press login.'
    assert located(description, parse).bbox == (10, 55, 300, 85)
    assert located("the password field", parse).bbox == (10, 155, 300, 185)
    assert located("Select Login", parse).text == "Login"


def test_a_text_is_never_an_icon() -> None:
    parse = ScreenParse(
        800,
        600,
        [
            Element((10, 10, 80, 30), T.TEXT, text="Search", id=0),
            Element((700, 10, 724, 34), T.ICON, id=1),
        ],
    )
    result = locate(parse, "the search icon")
    assert not result.found and result.reason and "icon" in result.reason
    assert result.candidates[0].element.text == "Search"
    assert located("Search", parse).text == "Search"
