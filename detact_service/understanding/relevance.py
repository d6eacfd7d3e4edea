"""Task relevance: score each element against the agent's task (the ``relevance`` stage).

The score adds lexical and semantic cues, all vectorised over the screen's vocabulary:

* quoted strings in the task (``Click "Submit"``): an element whose text is (or holds) the string wins;
* task words against each element's words (text and icon name): exact, equal up to OCR look-alikes
  (``0``/``o``, ``1``/``l``/``I``), fuzzy (rapidfuzz) or, with the ``minilm`` backend, semantic (MiniLM
  word embeddings), weighted by rarity on the screen and a little by order in the task;
* a field, checkbox or radio also gets most of the text score of its label (the text just left of or
  above it; right of a checkbox or radio);
* colour words (``the black icon``) and type words (``button``, ``icon``, ``checkbox``, ``link``,
  ``field``, ...; ``enter``/``type`` imply a field) against the element's colour and type;
* with ``minilm``, the cosine between the task's sentence embedding and the element's description vector
  (the mean of its word embeddings), as a small tie-breaker;
* the task's own echo on screen (a line of the task, as MiniWoB shows its utterance) is damped.

Speed: embeddings are cached per unique word in a bounded LRU and the task is embedded once, so a screen
costs one small batch of *new* words (none on a repeated screen, as in an agent loop); with
``DETACT_RELEVANCE__EMBED_BUDGET_MS`` set, new words beyond the budget are scored lexically only and
embedded on a later screen. Nothing runs without a task: the stage is then a no-op.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import numpy.typing as npt
from rapidfuzz import fuzz, process

from detact_service.core import COLOR_NAMES, Element, ElementType, ScreenParse
from detact_service.settings import Settings, get_settings
from detact_service.stages import Backend, RGBImage, cached_model, register
from detact_service.understanding.embeddings import WordEmbedder, load_minilm

FloatArray = npt.NDArray[np.float32]

MODEL_NAME = "all-MiniLM-L6-v2"
WORD_RE = re.compile(r"[a-z0-9]+")
QUOTE_RE = re.compile(r"\"([^\"]+)\"|“([^”]+)”|(?:^|(?<=\s))'([^']+)'(?=$|[\s.,;:!?])")


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOPWORDS = _wordset(
    "a an the on in into at to of for from by with and or as is it its this that these those then than "
    "be are was me my your you i we our us please now there here which what where who whose all any "
    "some"
)
ACTION_WORDS = _wordset(
    "click press tap hit push choose pick select check uncheck tick untick enter type fill write input "
    "put set find go open close expand collapse focus switch toggle drag scroll hover"
)
TYPE_WORDS: dict[str, frozenset[ElementType]] = {
    word: frozenset(types)
    for words, types in (
        ("button buttons btn", {ElementType.BUTTON}),
        ("icon icons symbol", {ElementType.ICON}),
        ("checkbox checkboxes", {ElementType.CHECKBOX}),
        ("link links hyperlink", {ElementType.LINK}),
        ("field fields input textbox textfield box entry", {ElementType.INPUT, ElementType.TEXTAREA}),
        ("textarea area", {ElementType.TEXTAREA, ElementType.INPUT}),
        ("tab tabs", {ElementType.TAB}),
        ("radio", {ElementType.RADIO}),
        ("dropdown combobox select", {ElementType.DROPDOWN}),
        ("menu", {ElementType.MENU_ITEM, ElementType.DROPDOWN}),
        ("option options item items", {ElementType.LIST_ITEM, ElementType.MENU_ITEM, ElementType.RADIO}),
        ("slider", {ElementType.SLIDER}),
        ("toggle switch", {ElementType.TOGGLE}),
        ("image picture photo", {ElementType.IMAGE}),
        ("scrollbar", {ElementType.SCROLLBAR}),
    )
    for word in words.split()
}
IMPLIED_TYPES: dict[str, frozenset[ElementType]] = {
    word: frozenset(types)
    for words, types in (
        ("enter type fill write input", {ElementType.INPUT, ElementType.TEXTAREA}),
        ("check uncheck tick untick", {ElementType.CHECKBOX, ElementType.TOGGLE}),
    )
    for word in words.split()
}
TYPE_LABELS: dict[ElementType, str] = {
    ElementType.INPUT: "input field",
    ElementType.TEXTAREA: "text area field",
    ElementType.MENU_ITEM: "menu item",
    ElementType.LIST_ITEM: "list item",
    ElementType.DROPDOWN: "dropdown",
}
COLOR_WORDS = {name: name for name in COLOR_NAMES} | {"gray": "grey", "purple": "violet"}

FUZZY_MIN = 85.0
SEMANTIC_FLOOR = 0.5
SEMANTIC_WEIGHT = 0.8
QUOTE_EXACT, QUOTE_CONTAINED, QUOTE_FUZZY = 4.0, 2.5, 1.5
COLOR_BONUS, TYPE_BONUS, IMPLIED_BONUS, INTERACTIVE_BONUS = 0.5, 0.6, 0.4, 0.05
SENTENCE_WEIGHT = 0.2
ECHO_FACTOR = 0.2
LABEL_SHARE = 0.9
MARK_TYPES = frozenset({ElementType.CHECKBOX, ElementType.RADIO, ElementType.TOGGLE})
LABELLED_TYPES = MARK_TYPES | {
    ElementType.INPUT,
    ElementType.TEXTAREA,
    ElementType.DROPDOWN,
    ElementType.SLIDER,
}


def words_of(text: str | None) -> list[str]:
    """Lower-case word tokens (letters and digits)."""
    return WORD_RE.findall(text.lower()) if text else []


def quoted_strings(task: str) -> list[str]:
    """The quoted strings of a task (double, curly or single quotes), lower-cased and stripped."""
    found = []
    for match in QUOTE_RE.finditer(task):
        text = next(group for group in match.groups() if group is not None).strip().lower()
        if text:
            found.append(text)
    return found


def describe(element: Element) -> str:
    """The short text an element is embedded and matched as: type, text, icon, colour, state."""
    parts = [TYPE_LABELS.get(element.type, element.type.value.replace("_", " "))]
    if element.text:
        parts.append(element.text)
    if element.icon:
        parts.append(element.icon)
    if element.color:
        parts.append(element.color)
    state = element.state
    flags = (("checked", state.checked), ("selected", state.selected), ("disabled", state.disabled))
    parts.extend(name for name, value in flags if value)
    return " ".join(parts)


@dataclass(frozen=True)
class TaskQuery:
    """What the ranker reads from a task once: its words, quotes, colours and types."""

    text: str
    words: tuple[str, ...]
    """Content words matched against element words (no stopwords, action or type words)."""
    quotes: tuple[str, ...]
    colors: frozenset[str]
    types: frozenset[ElementType]
    implied: frozenset[ElementType]
    actions: bool

    @classmethod
    def parse(cls, task: str) -> TaskQuery:
        """Split a task into its cues."""
        tokens = words_of(task)
        quotes = tuple(quoted_strings(task))
        quoted_words = {w for q in quotes for w in words_of(q)}
        colors = frozenset(COLOR_WORDS[w] for w in tokens if w in COLOR_WORDS)
        types: set[ElementType] = set()
        implied: set[ElementType] = set()
        content: list[str] = []
        for word in tokens:
            if word in TYPE_WORDS and word not in quoted_words:
                types |= TYPE_WORDS[word]
                continue
            if word in IMPLIED_TYPES:
                implied |= IMPLIED_TYPES[word]
            plain = word not in STOPWORDS and word not in ACTION_WORDS and word not in COLOR_WORDS
            if (word in quoted_words or plain) and word not in content:
                content.append(word)
        return cls(
            text=task,
            words=tuple(content),
            quotes=quotes,
            colors=colors,
            types=frozenset(types),
            implied=frozenset(implied),
            actions=any(w in ACTION_WORDS for w in tokens),
        )


def minilm_embedder(cache_size: int) -> WordEmbedder:
    """The process-wide embedder (model loaded once, on first use, with the common UI words embedded)."""

    def load() -> WordEmbedder:
        embedder = WordEmbedder(load_minilm(), cache_size)
        common = [*TYPE_WORDS, *IMPLIED_TYPES, *COLOR_WORDS, *(t.value for t in ElementType)]
        embedder.calibrate([w for w in common if w.isalpha()])
        return embedder

    return cached_model(("relevance", MODEL_NAME, cache_size), load)


LOOK_ALIKE = str.maketrans({"0": "o", "1": "l", "i": "l", "|": "l"})
"""OCR's usual confusions (``e6I5kk`` read as ``e615kk``, ``oo`` as ``00``), folded before matching."""


def look_alike(word: str) -> str:
    """``word`` with the characters OCR confuses folded together."""
    return word.translate(LOOK_ALIKE)


def _match_matrix(task_words: Sequence[str], vocab: Sequence[str]) -> FloatArray:
    """``(len(task_words), len(vocab))`` lexical match: 1 exact, 0.9 same up to OCR look-alikes, else
    0.8 x the fuzzy ratio (on look-alike folded words of 4+ letters) above :data:`FUZZY_MIN`, else 0."""
    match = np.zeros((len(task_words), len(vocab)), dtype=np.float32)
    folded_vocab = [look_alike(v) for v in vocab]
    folded_task = [look_alike(t) for t in task_words]
    scores = process.cdist(folded_task, folded_vocab, scorer=fuzz.ratio, dtype=np.float32, workers=1)
    fuzzy = np.where(scores >= FUZZY_MIN, scores / 100.0 * 0.8, 0.0).astype(np.float32)
    short = np.asarray([len(t) < 4 for t in task_words])[:, None] | np.asarray([len(v) < 4 for v in vocab])
    fuzzy[np.broadcast_to(short, fuzzy.shape)] = 0.0
    exact = {v: j for j, v in enumerate(vocab)}
    folded: dict[str, list[int]] = {}
    for j, v in enumerate(folded_vocab):
        folded.setdefault(v, []).append(j)
    for i, (t, f) in enumerate(zip(task_words, folded_task, strict=True)):
        match[i, folded.get(f, [])] = 0.9
        if t in exact:
            match[i, exact[t]] = 1.0
    return np.maximum(match, fuzzy)


def _compact(text: str) -> str:
    return "".join(words_of(text))


def _is_echo(text: str | None, task: str, task_tokens: set[str], task_len: int) -> bool:
    """A text that is (a line of) the task itself, shown on the screen (MiniWoB's utterance, a chat).

    Either a long text made almost only of the task's words, or a piece of the task (fuzzy, spaces
    ignored, so OCR's merged words count; not much longer than the task) that carries the task's function
    words: an action or type
    word counts 2, a stopword 1, 20+ letters 1; it needs 2 (``button TWO.`` yes; ``Add to cart`` no).
    """
    element_words = words_of(text)
    if not text or len(element_words) < 2:
        return False
    inside = sum(w in task_tokens for w in element_words)
    if (
        len(element_words) >= 5
        and len(element_words) >= 0.5 * task_len
        and inside >= 0.8 * len(element_words)
    ):
        return True
    compact = _compact(text)
    task_compact = _compact(task)
    # A piece of the task: not a longer text that merely contains a short task (``Send me the newsletter``
    # is no echo of ``newsletter``).
    if len(compact) < 6 or len(compact) > len(task_compact) + 4:
        return False
    if fuzz.partial_ratio(compact, task_compact) < 90:
        return False
    weight = sum(
        2 if w in ACTION_WORDS or w in TYPE_WORDS else 1 if w in STOPWORDS else 0 for w in element_words
    )
    return weight + (len(compact) >= 20) >= 2


def _label_scores(
    elements: Sequence[Element], text_scores: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """For each control (field, checkbox, ...), the text score of its label: the nearest text element
    just left of it or just above it (a field), or just right of it (a checkbox, radio or toggle)."""
    boxes = np.asarray([e.bbox for e in elements], dtype=np.float64)
    is_text = np.asarray([e.type is ElementType.TEXT and bool(e.text) for e in elements])
    out = np.zeros(len(elements))
    if not is_text.any():
        return out
    tb = boxes[is_text]
    ts = text_scores[is_text]
    th = np.maximum(tb[:, 3] - tb[:, 1], 1.0)
    for i, element in enumerate(elements):
        if element.type not in LABELLED_TYPES:
            continue
        x1, y1, x2, y2 = boxes[i]
        v_overlap = np.minimum(y2, tb[:, 3]) - np.maximum(y1, tb[:, 1])
        h_overlap = np.minimum(x2, tb[:, 2]) - np.maximum(x1, tb[:, 0])
        same_row = v_overlap >= 0.5 * np.minimum(th, y2 - y1)
        left = same_row & (tb[:, 2] <= x1 + 2) & (x1 - tb[:, 2] <= 2 * th)
        right = same_row & (tb[:, 0] >= x2 - 2) & (tb[:, 0] - x2 <= 2 * th)
        above = (h_overlap > 0) & (tb[:, 3] <= y1 + 2) & (y1 - tb[:, 3] <= 0.75 * th)
        near = left | above | (right if element.type in MARK_TYPES else np.zeros_like(left))
        if near.any():
            gap = np.where(left, x1 - tb[:, 2], np.where(above, y1 - tb[:, 3], tb[:, 0] - x2))
            out[i] = float(ts[near][np.argmin(gap[near])])
    return out


def _quote_score(text: str | None, quotes: Sequence[str]) -> float:
    if not text or not quotes:
        return 0.0
    low = " ".join(words_of(text))
    best = 0.0
    for quote in quotes:
        q = " ".join(words_of(quote)) or quote
        if low == q:
            best = max(best, QUOTE_EXACT)
        elif re.search(rf"(?<![a-z0-9]){re.escape(q)}(?![a-z0-9])", low) and len(low) <= 2 * len(q) + 12:
            best = max(best, QUOTE_CONTAINED)
        elif len(q) >= 3 and fuzz.ratio(low, q) >= 85:
            best = max(best, QUOTE_FUZZY)
    return best


def score_elements(
    elements: Sequence[Element], task: str, embedder: WordEmbedder | None = None, budget_ms: float = 0.0
) -> npt.NDArray[np.float64]:
    """Raw relevance scores (higher first) of ``elements`` for ``task``; see the module docstring."""
    n = len(elements)
    if n == 0:
        return np.zeros(0)
    query = TaskQuery.parse(task)
    element_words = [[*words_of(e.text), *words_of(e.icon)] for e in elements]
    vocab = sorted({w for ws in element_words for w in ws})
    index = {w: i for i, w in enumerate(vocab)}
    scores = np.zeros(n)
    vectors: dict[str, FloatArray] = {}
    task_vec: FloatArray | None = None
    if query.words and vocab:
        match = _match_matrix(query.words, vocab)
        semantic_words: set[str] = set()
        if embedder is not None:
            begun = time.perf_counter()
            task_vec = embedder.task(task, budget_ms)
            if budget_ms > 0:
                budget_ms = max(budget_ms - (time.perf_counter() - begun) * 1000.0, 1e-3)
            # Within a time budget, words of interactive elements are embedded first.
            ordered = sorted(range(n), key=lambda i: not elements[i].is_interactive)
            wanted = list(
                dict.fromkeys(w for i in ordered for w in element_words[i] if w.isalpha() and len(w) >= 2)
            )
            targets = [w for w in query.words if w.isalpha()]
            vectors = embedder.lookup([*targets, *wanted], budget_ms)
            have_t = [i for i, w in enumerate(query.words) if w in vectors]
            have_v = [index[w] for w in wanted if w in vectors]
            if have_t and have_v:
                tv = np.stack([vectors[query.words[i]] for i in have_t])
                vv = np.stack([vectors[vocab[j]] for j in have_v])
                sims = tv @ vv.T
                sem = np.clip((sims - SEMANTIC_FLOOR) / (1.0 - SEMANTIC_FLOOR), 0.0, 1.0) * SEMANTIC_WEIGHT
                sub = match[np.ix_(have_t, have_v)]
                match[np.ix_(have_t, have_v)] = np.maximum(sub, sem.astype(np.float32))
                semantic_words = {vocab[j] for j in have_v}
        per_element = np.zeros((n, len(query.words)), dtype=np.float32)
        for i, ws in enumerate(element_words):
            if ws:
                per_element[i] = match[:, [index[w] for w in ws]].max(axis=1)
        # Rarer matches weigh more: a word found on every element tells them apart poorly.
        df = (per_element >= 0.5).sum(axis=0)
        weight = 1.0 / (1.0 + 0.5 * np.log(np.maximum(df, 1)))
        # Earlier task words weigh a little more: the first target named is usually the next step.
        weight = weight * np.linspace(1.0, 0.8, num=len(query.words))
        scores += per_element @ weight
        if task_vec is not None and semantic_words:
            for i, ws in enumerate(element_words):
                known = [vectors[w] for w in ws if w in semantic_words]
                if known:
                    mean = np.mean(known, axis=0)
                    norm = float(np.linalg.norm(mean))
                    if norm > 0:
                        scores[i] += SENTENCE_WEIGHT * max(0.0, float(task_vec @ mean) / norm)
    task_tokens = set(words_of(task))
    task_len = len(words_of(task))
    quote = np.asarray([_quote_score(e.text, query.quotes) for e in elements])
    scores += quote
    scores += LABEL_SHARE * _label_scores(elements, scores)
    for i, element in enumerate(elements):
        if query.colors and element.color in query.colors:
            scores[i] += COLOR_BONUS
        if element.type in query.types:
            scores[i] += TYPE_BONUS
        elif element.type in query.implied:
            scores[i] += IMPLIED_BONUS
        if query.actions and element.is_interactive:
            scores[i] += INTERACTIVE_BONUS
        if _is_echo(element.text, task, task_tokens, task_len) and quote[i] < QUOTE_EXACT:
            scores[i] *= ECHO_FACTOR
    return scores


def to_relevance(scores: npt.NDArray[np.float64]) -> list[float]:
    """Raw scores squashed into ``[0, 1)``, order kept."""
    return [round(1.0 - math.exp(-max(float(s), 0.0) / 3.0), 4) for s in scores]


def with_relevance(parse: ScreenParse, values: Iterable[float]) -> ScreenParse:
    """A copy of ``parse`` whose elements carry ``values`` as their relevance."""
    return parse.with_elements(
        element.replace(relevance=value) for element, value in zip(parse.elements, values, strict=True)
    )


def has_task(parse: ScreenParse) -> bool:
    """Whether the parse has a non-blank task."""
    return parse.task is not None and parse.task.strip() != ""


@register("relevance", "lexical")
class LexicalRelevanceStage(Backend):
    """Lexical ranker: quotes, exact/fuzzy words, colours, types; no model."""

    config: ClassVar[tuple[str, ...]] = ("relevance",)

    def embedder(self) -> WordEmbedder | None:
        return None

    def rank(self, parse: ScreenParse) -> ScreenParse:
        """Score one parse that has a task."""
        scores = score_elements(
            parse.elements, parse.task or "", self.embedder(), self.settings.relevance.embed_budget_ms
        )
        return with_relevance(parse, to_relevance(scores))

    def run(self, images: Sequence[RGBImage], parses: Sequence[ScreenParse]) -> list[ScreenParse]:
        return [self.rank(parse) if has_task(parse) and parse.elements else parse for parse in parses]


@register("relevance", "minilm")
class MiniLMRelevanceStage(LexicalRelevanceStage):
    """The local ranker (default): lexical cues plus MiniLM word and sentence embeddings."""

    def load(self) -> WordEmbedder | None:
        return self.embedder()

    def embedder(self) -> WordEmbedder | None:
        return minilm_embedder(self.settings.relevance.cache_size)

    def model_version(self) -> str | None:
        return f"minilm:{MODEL_NAME}"


def rank_elements(
    parse: ScreenParse, settings: Settings | None = None, backend: str = "minilm"
) -> ScreenParse:
    """Score ``parse`` for its task with a local backend (``minilm`` or ``lexical``) outside a pipeline."""
    settings = settings or get_settings()
    stage = MiniLMRelevanceStage(settings) if backend == "minilm" else LexicalRelevanceStage(settings)
    return stage.run([], [parse])[0]
