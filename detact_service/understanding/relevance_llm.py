"""The ``llm`` relevance backend: an OpenAI-compatible chat endpoint picks the elements a task needs.

In the spirit of DetACT's filtering step (OmniACT): the model gets the task and the numbered element
list (CAAP lines) and answers the ids of the relevant elements as JSON, most relevant first. Those rank
first (in the model's order), the others follow in lexical order. When the endpoint is not configured,
fails, times out or answers anything but that JSON, the local ``minilm`` ranker scores the parse instead
and ``models["relevance_fallback"]`` says why. The key comes from ``DETACT_LLM__API_KEY``, else
``OPENAI_API_KEY``.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Sequence

import httpx

from detact_service.core import ScreenParse
from detact_service.formats.caap import caap_line
from detact_service.formats.common import element_ids
from detact_service.stages import register
from detact_service.understanding.relevance import (
    MiniLMRelevanceStage,
    score_elements,
    to_relevance,
    with_relevance,
)

log = logging.getLogger("detact_service.relevance")

SYSTEM_PROMPT = (
    "You filter the UI elements of a screen for a GUI agent. You get the agent's task and the numbered "
    "list of the elements on the screen (type, position, text, icon name, colour, state). Answer with "
    "the ids of the elements the agent needs to act on or read to do the task, most relevant first, as "
    'JSON and nothing else: {"ids": [3, 7]}.'
)
MAX_ELEMENTS_IN_PROMPT = 400
FENCE_RE = re.compile(r"^```(?:json)?\s*|\s*```$")


class LLMAnswerError(ValueError):
    """The endpoint answered, but not with the expected JSON."""


def build_messages(parse: ScreenParse) -> list[dict[str, str]]:
    """The chat messages for one parse: the system prompt, then the task and the element list."""
    lines = [
        caap_line(element, element_id)
        for element_id, element in zip(element_ids(parse), parse.elements, strict=True)
    ][:MAX_ELEMENTS_IN_PROMPT]
    user = f"Task: {parse.task}\n\nElements:\n" + "\n".join(lines)
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def parse_answer(content: str, known: Sequence[int]) -> list[int]:
    """The element ids of a model's answer (``{"ids": [...]}`` or a bare list; ``element_3`` accepted).

    Raises :class:`LLMAnswerError` when the answer is not that JSON or names no known element.
    """
    text = FENCE_RE.sub("", content.strip())
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LLMAnswerError(f"not JSON: {content[:80]!r}") from exc
    items = data.get("ids") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise LLMAnswerError(f"no id list in {content[:80]!r}")
    valid = set(known)
    ids: list[int] = []
    for item in items:
        match = re.fullmatch(r"(?:element_)?(\d+)", str(item).strip())
        if match and int(match.group(1)) in valid and int(match.group(1)) not in ids:
            ids.append(int(match.group(1)))
    if not ids:
        raise LLMAnswerError(f"no known element id in {content[:80]!r}")
    return ids


@register("relevance", "llm")
class LLMRelevanceStage(MiniLMRelevanceStage):
    """Relevance from an OpenAI-compatible endpoint, falling back to the local MiniLM ranker."""

    config = ("relevance", "llm")

    def api_key(self) -> str | None:
        """``DETACT_LLM__API_KEY`` (the setting), else ``OPENAI_API_KEY``."""
        if self.settings.llm.api_key is not None:
            return self.settings.llm.api_key.get_secret_value()
        return os.environ.get("OPENAI_API_KEY") or None

    def model_version(self) -> str | None:
        return f"llm:{self.settings.llm.model}"

    def ask(self, parse: ScreenParse) -> list[int]:
        """The relevant ids the endpoint names for ``parse`` (raises on any failure)."""
        base = self.settings.llm.base_url
        if not base:
            raise LLMAnswerError("DETACT_LLM__BASE_URL is not set")
        headers = {"Content-Type": "application/json"}
        key = self.api_key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        body = {"model": self.settings.llm.model, "messages": build_messages(parse), "temperature": 0}
        with httpx.Client(timeout=self.settings.llm.timeout_s, trust_env=False) as client:
            response = client.post(f"{base.rstrip('/')}/chat/completions", json=body, headers=headers)
        response.raise_for_status()
        try:
            content = response.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise LLMAnswerError(f"not a chat completion: {response.text[:80]!r}") from exc
        if not isinstance(content, str):
            raise LLMAnswerError("the completion has no text content")
        return parse_answer(content, element_ids(parse))

    def rank(self, parse: ScreenParse) -> ScreenParse:
        """The endpoint's choice first (relevance 1.0 down to 0.9), the rest by lexical score below 0.5."""
        try:
            chosen = self.ask(parse)
        except (httpx.HTTPError, LLMAnswerError) as exc:
            reason = f"{type(exc).__name__}: {exc}"
            log.warning("llm relevance failed, using the local ranker: %s", reason)
            ranked = super().rank(parse)
            ranked.models["relevance_fallback"] = f"minilm ({reason})"[:200]
            return ranked
        lexical = to_relevance(score_elements(parse.elements, parse.task or ""))
        order = {element_id: rank for rank, element_id in enumerate(chosen)}
        values = [
            round(1.0 - 0.1 * order[element_id] / len(chosen), 4)
            if element_id in order
            else round(0.5 * value, 4)
            for element_id, value in zip(element_ids(parse), lexical, strict=True)
        ]
        return with_relevance(parse, values)
