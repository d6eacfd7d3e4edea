"""Reading a locate description once: its first step and target, position, ordinal, state and relation
cues, and the words left for the ranker (:class:`LocateQuery`; used by :mod:`.locate`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from detact_service.understanding.relevance import ACTION_WORDS, TYPE_WORDS, words_of

__all__ = ["LocateQuery", "drop_value_quotes", "first_step", "first_target"]

ENTER_WORDS = frozenset({"enter", "type", "write", "fill", "input", "put"})
NAMING_WORDS = frozenset(
    {
        "into",
        "in",
        "to",
        "the",
        "on",
        "at",
        "labelled",
        "labeled",
        "called",
        "named",
        "titled",
        "says",
        "reads",
    }
)
POSITIONS = {
    "top": ("y", 0.0),
    "upper": ("y", 0.0),
    "bottom": ("y", 1.0),
    "lower": ("y", 1.0),
    "left": ("x", 0.0),
    "leftmost": ("x", 0.0),
    "right": ("x", 1.0),
    "rightmost": ("x", 1.0),
    "topmost": ("y", 0.0),
    "bottommost": ("y", 1.0),
    "middle": ("c", 0.5),
    "center": ("c", 0.5),
    "centre": ("c", 0.5),
}
ORDINALS = {
    "first": 1,
    "1st": 1,
    "second": 2,
    "2nd": 2,
    "third": 3,
    "3rd": 3,
    "fourth": 4,
    "4th": 4,
    "fifth": 5,
    "5th": 5,
    "sixth": 6,
    "6th": 6,
    "last": -1,
}
STATES: dict[str, tuple[str, bool]] = {
    "checked": ("checked", True),
    "ticked": ("checked", True),
    "unchecked": ("checked", False),
    "unticked": ("checked", False),
    "selected": ("selected", True),
    "unselected": ("selected", False),
    "disabled": ("disabled", True),
    "greyed": ("disabled", True),
    "enabled": ("disabled", False),
    "focused": ("focused", True),
}
FILLER = frozenset(
    {"corner", "side", "edge", "screen", "page", "element", "of", "most", "hand", "both"}
    | {"labeled", "labelled", "called", "named", "titled", "saying", "reading"}
)
TEXT_TYPES = frozenset({"field", "fields", "box", "boxes", "input", "inputs", "area", "areas", "entry"})
"""``text`` before these is part of the type (``text field``), not a word to match."""
LIST_VERBS = frozenset({"select", "choose", "pick", "check", "tick", "click", "mark"})
RELATION_RE = re.compile(
    r"\s+(?P<rel>next\s+to|beside|besides|near|(?:to\s+the\s+)?left\s+of|(?:to\s+the\s+)?right\s+of|"
    r"above|below|under|underneath|beneath)\s+(?P<anchor>.+)$",
    re.IGNORECASE,
)
RELATIONS = {
    "next to": "near",
    "beside": "near",
    "besides": "near",
    "near": "near",
    "left of": "left",
    "right of": "right",
    "above": "above",
    "below": "below",
    "under": "below",
    "underneath": "below",
    "beneath": "below",
}
STEP_RE = re.compile(
    r"\s*(?:[,;]\s*(?:and\s+)?then\b|\bthen\b|[;.]\s+|,?\s+and\s+(?=(?:then\s+)?(?:click|press|tap|hit|submit|"
    r"select|choose|pick|enter|type|check|uncheck|open|close|go)\b))",
    re.IGNORECASE,
)
QUOTED_RE = re.compile(r"\"[^\"]*\"|“[^”]*”|(?:^|(?<=\s))'[^']*'(?=$|[\s.,;:!?])")


@dataclass(frozen=True)
class LocateQuery:
    """What :func:`locate` reads from a description, once."""

    description: str
    text: str
    """What the ranker scores: the first step, without value quotes, position, ordinal or state words."""
    positions: tuple[tuple[str, float], ...] = ()
    ordinal: int | None = None
    horizontal: bool = False
    """The ordinal counts from the left or right (``the second icon from the left``)."""
    states: tuple[tuple[str, bool], ...] = ()
    relation: str | None = None
    anchor: str | None = None

    @classmethod
    def parse(cls, description: str, screen_texts: Sequence[str] = ()) -> LocateQuery:
        """Split a description into its cues; ``screen_texts`` keeps ``First name`` from being an ordinal."""
        step = first_step(description)
        step = first_target(drop_value_quotes(step))
        texts = {" ".join(words_of(t)) for t in screen_texts}
        relation = anchor = None
        outside = QUOTED_RE.sub(lambda m: "q" * len(m.group(0)), step)
        match = RELATION_RE.search(outside)
        phrase = " ".join(words_of(step[match.start() :])) if match is not None else ""
        if match is not None and match.start() > 0 and not any(phrase in t for t in texts):
            rel = " ".join(match.group("rel").lower().split()).removeprefix("to the ")
            relation, anchor = RELATIONS[rel], step[match.start("anchor") :].strip(" .!?")
            step = step[: match.start()]
        kept: list[str] = []
        positions: list[tuple[str, float]] = []
        states: list[tuple[str, bool]] = []
        ordinal: int | None = None
        horizontal = False
        pieces = re.split(f"({QUOTED_RE.pattern})", step)
        for index, piece in enumerate(pieces):
            if index % 2:  # a quoted string, kept whole
                kept.append(piece)
                continue
            tokens = words_of(piece)
            for i, word in enumerate(tokens):
                following = tokens[i + 1] if i + 1 < len(tokens) else ""
                on_screen = any(f"{word} {following}" in t for t in texts) if following else False
                if word in ORDINALS and not on_screen:
                    ordinal = ORDINALS[word]
                elif word in POSITIONS and not on_screen:
                    if word in ("left", "right") and "from" in tokens[max(i - 2, 0) : i]:
                        horizontal = True
                        if ordinal is None:
                            ordinal = 1
                        if word == "right" and ordinal is not None and ordinal > 0:
                            ordinal = -ordinal
                    else:
                        positions.append(POSITIONS[word])
                elif word in STATES and not on_screen:
                    states.append(STATES[word])
                elif (
                    word in FILLER
                    or (word == "from" and following in ("left", "right"))
                    or (word == "text" and following in TEXT_TYPES)
                ):
                    continue
                else:
                    kept.append(word)
        return cls(
            description=description,
            text=" ".join(kept).strip(),
            positions=tuple(dict.fromkeys(positions)),
            ordinal=ordinal,
            horizontal=horizontal,
            states=tuple(dict.fromkeys(states)),
            relation=relation,
            anchor=anchor,
        )


def first_step(description: str) -> str:
    """The first step of a description that chains several (``, then``, ``and click``, ``;``)."""
    outside = QUOTED_RE.sub(lambda m: "x" * len(m.group(0)), description)
    head = description
    for match in STEP_RE.finditer(outside):
        if words_of(description[: match.start()]):
            head = description[: match.start()]
            break
    # ``Select K6, ZPQbb4, NCCY``: a list after a selecting verb starts with its first item.
    words = words_of(head)
    comma = outside.find(",", 0, len(head))
    if words and words[0] in LIST_VERBS and comma > 0 and len(words_of(head[:comma])) >= 2:
        head = head[:comma]
    return head.strip()


def first_target(step: str) -> str:
    """The first of several targets an instruction names (``Enter the username and the password into the
    fields`` -> ``Enter the username fields``): cut at ``and`` outside quotes, keeping the type words of the
    rest; a leading ``select``/``choose``/``pick`` is the action, not the ``select`` (dropdown) type."""
    words = words_of(step)
    if not words or words[0] not in ACTION_WORDS:
        return step
    if words[0] in ("select", "choose", "pick"):
        step = re.sub(r"^\s*\w+", "click", step, count=1)
    outside = QUOTED_RE.sub(lambda m: "q" * len(m.group(0)), step)
    match = re.search(r"\s+and\s+", outside)
    if match is None or not words_of(step[: match.start()])[1:]:
        return step
    rest = [w for w in words_of(step[match.end() :]) if w in TYPE_WORDS]
    return " ".join([step[: match.start()], *rest])


def drop_value_quotes(step: str) -> str:
    """``step`` without the quoted values it asks to type (``Enter "x" into the field``): with an entering
    verb, a quote counts as a value unless a naming word (``into``, ``the``, ``labelled``) precedes it."""
    if not ENTER_WORDS & set(words_of(step)):
        return step

    def keep(match: re.Match[str]) -> str:
        before = words_of(step[: match.start()])
        return match.group(0) if before and before[-1] in NAMING_WORDS else " "

    return QUOTED_RE.sub(keep, step)
