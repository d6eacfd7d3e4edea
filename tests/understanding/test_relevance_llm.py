"""The ``llm`` relevance backend against a fake OpenAI-compatible server on 127.0.0.1 (real HTTP)."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from detact_service.core import Element, ElementType, ScreenParse
from detact_service.settings import Settings
from detact_service.understanding.relevance_llm import LLMRelevanceStage, build_messages, parse_answer

T = ElementType
ANSWERS = {"good": '```json\n{"ids": [4, "element_1", 99]}\n```', "malformed": "Sure! Element 4."}


class FakeChat(BaseHTTPRequestHandler):
    """``POST /v1/chat/completions``; what it answers is the server's ``mode``."""

    server: FakeServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
        mode = self.server.mode
        if mode == "500":
            self.send_response(500)
            self.end_headers()
            self.wfile.write(b"boom")
            return
        if mode == "slow":
            time.sleep(1.5)
        content = ANSWERS.get(mode, '{"ids": [4]}')
        answer = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client timed out
            self.wfile.write(answer)


class FakeServer(ThreadingHTTPServer):
    mode = "good"
    requests: list[dict[str, Any]]


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeServer]:
    server = FakeServer(("127.0.0.1", 0), FakeChat)
    server.requests = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def stage(server: FakeServer) -> LLMRelevanceStage:
    host, port = server.server_address[:2]
    return LLMRelevanceStage(
        Settings(
            llm_base_url=f"http://{host!s}:{port}/v1",
            llm_model="fake-model",
            llm_api_key=SecretStr("sk-test"),
            llm_timeout_s=0.5,
            relevance_embed_budget_ms=0,
        )
    )


def parse() -> ScreenParse:
    texts = ["Home", "Sign in", "Pricing", "Blog", "Search"]
    elements = [
        Element((10, 10 + 30 * i, 200, 34 + 30 * i), T.BUTTON, id=i, text=t) for i, t in enumerate(texts)
    ]
    return ScreenParse(width=400, height=300, elements=elements, task="open the pricing page")


def best(result: ScreenParse) -> int:
    return max(result.elements, key=lambda e: e.relevance or 0.0).id


def test_good_answer_ranks_the_chosen_ids_first(fake: FakeServer) -> None:
    fake.mode, fake.requests[:] = "good", []
    result = stage(fake).run([], [parse()])[0]
    order = [e.id for e in sorted(result.elements, key=lambda e: -(e.relevance or 0.0))]
    assert order[:2] == [4, 1]
    assert "relevance_fallback" not in result.models
    (request,) = fake.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == "Bearer sk-test"
    assert request["body"]["model"] == "fake-model"
    prompt = request["body"]["messages"][-1]["content"]
    assert "open the pricing page" in prompt and "element_3, data: {type: button" in prompt


@pytest.mark.parametrize("mode", ["malformed", "500", "slow"])
def test_failures_fall_back_to_the_local_ranker(fake: FakeServer, mode: str) -> None:
    fake.mode = mode
    if mode == "slow":
        start = time.perf_counter()
        with pytest.raises(httpx.TimeoutException):
            stage(fake).ask(parse())
        assert time.perf_counter() - start < 1.4  # the 0.5 s timeout fired, not the 1.5 s answer
    result = stage(fake).run([], [parse()])[0]
    assert result.models["relevance_fallback"].startswith("minilm")
    assert best(result) == 2  # "Pricing": the local ranker's answer


def test_unconfigured_endpoint_falls_back() -> None:
    result = LLMRelevanceStage(Settings(relevance_embed_budget_ms=0)).run([], [parse()])[0]
    assert "DETACT_LLM__BASE_URL" in result.models["relevance_fallback"] and best(result) == 2


def test_answer_parsing() -> None:
    assert parse_answer('{"ids": [2, 2, "element_0", 7]}', [0, 1, 2]) == [2, 0]
    assert parse_answer("[1]", [0, 1]) == [1]
    for bad in ("no", '{"ids": "1"}', '{"ids": [9]}', "{}"):
        with pytest.raises(ValueError):
            parse_answer(bad, [0, 1])
    messages = build_messages(parse())
    assert messages[0]["role"] == "system" and '"ids"' in messages[0]["content"]
