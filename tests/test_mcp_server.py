"""The MCP server as a subprocess (``detact mcp``), driven by the official SDK's own client over stdio
(and over streamable HTTP for the tool list), with the real pipeline and OCR on a rendered form."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client, StdioServerParameters

from detact_service.formats.schema import LocateResponse, ParseResponse
from tests.render import render_form

ENV = {"DETACT_PROFILE": "detact", "DETACT_RELEVANCE__BACKEND": "lexical", "DETACT_DEVICE": "cpu"}
COMMAND = [sys.executable, "-m", "detact_service.cli", "mcp"]


def _inside(point: list[int], box: tuple[int, int, int, int]) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def test_stdio_server_lists_and_runs_both_tools(tmp_path: Path) -> None:
    screen = render_form(1400, 1000)
    path = tmp_path / "form.png"
    screen.image.save(path)
    encoded = base64.b64encode(path.read_bytes()).decode()
    submit = next(d for d in screen.drawn if d.kind == "button" and d.text == "Submit")
    remember = screen.of_kind("checkbox")[0]
    params = StdioServerParameters(
        command=COMMAND[0], args=COMMAND[1:], env=ENV, cwd=str(Path(__file__).resolve().parents[1])
    )

    async def session() -> dict[str, Any]:
        async with Client(params, read_timeout_seconds=600) as client:
            tools = await client.list_tools()
            parsed = await client.call_tool(
                "parse_screen", {"image": str(path), "task": "click Submit", "format": "caap"}
            )
            found = await client.call_tool(
                "locate_element", {"image": encoded, "description": "the checkbox next to Remember me"}
            )
            missing = await client.call_tool(
                "locate_element", {"image": str(path), "description": "the Delete account button"}
            )
            bad = await client.call_tool("parse_screen", {"image": str(tmp_path / "nope.png")})
            return {"tools": tools, "parsed": parsed, "found": found, "missing": missing, "bad": bad}

    out = asyncio.run(session())
    tools = {tool.name: tool for tool in out["tools"].tools}
    assert set(tools) == {"parse_screen", "locate_element"}
    assert {"image", "profile", "task", "max_elements", "format"} <= set(
        tools["parse_screen"].input_schema["properties"]
    )
    assert tools["locate_element"].input_schema["required"] == ["image", "description"]
    assert tools["locate_element"].output_schema is not None

    parsed = out["parsed"]
    assert not parsed.is_error
    text = parsed.content[0].text
    assert text.startswith("Screen 1400x1000") and "- ID: element_" in text and '"Submit"' in text
    structured = parsed.structured_content
    ParseResponse.model_validate(structured)  # the very model POST /parse answers
    assert structured["image"] == {"width": 1400, "height": 1000}
    assert structured["text"]["caap"] in text and structured["task"] == "click Submit"
    button = next(e for e in structured["elements"] if e["text"] == "Submit")
    assert button["type"] == "button" and _inside(button["center"], submit.bbox)
    assert button["relevance"] == max(e["relevance"] for e in structured["elements"])

    found = out["found"]
    assert not found.is_error
    assert found.structured_content["found"] is True
    LocateResponse.model_validate(found.structured_content)  # the very model POST /locate answers
    element = found.structured_content["element"]
    assert element["element"]["type"] == "checkbox" and _inside(element["point"], remember.bbox)
    assert found.content[0].text.startswith(f"Found element_{element['element']['id']} (checkbox")
    assert 0 < element["point_normalized"][0] < 1

    missing = out["missing"]
    assert missing.structured_content["found"] is False
    assert missing.structured_content["element"] is None
    assert missing.content[0].text.startswith("Not found:")

    bad = out["bad"]
    assert bad.is_error and "nope.png" in bad.content[0].text


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_http_transport_serves_the_tools() -> None:
    port = _free_port()
    env = {**os.environ, **ENV}
    proc = subprocess.Popen(
        [*COMMAND, "--transport", "http", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            with contextlib.suppress(httpx.TransportError):
                httpx.get(f"http://127.0.0.1:{port}/mcp", timeout=1)
                break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"the MCP server did not start: {proc.stderr.read() if proc.stderr else ''}"
                )
            time.sleep(0.2)

        async def names() -> set[str]:
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                return {tool.name for tool in (await client.list_tools()).tools}

        assert asyncio.run(names()) == {"parse_screen", "locate_element"}
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_unknown_transport_is_refused() -> None:
    out = subprocess.run([*COMMAND, "--transport", "carrier-pigeon"], capture_output=True, text=True)
    assert out.returncode == 2 and "unknown transport" in out.stderr


@pytest.mark.parametrize("module", ["detact_service", "detact_service.cli", "detact_service.agent"])
def test_mcp_is_not_imported_with_the_package(module: str) -> None:
    code = f"import sys, {module}; print('mcp' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_parse_screen_takes_previous_in_process(tmp_path: Path) -> None:
    """parse_screen answers a parse_id; with it as previous, a changed screen is re-parsed (MCP SDK's
    in-process client, real pipeline)."""
    from detact_service.mcp_server import create_server
    from detact_service.settings import Settings
    from tests.render import render_dense_dashboard
    from tests.test_reparse import HEIGHT, WIDTH, dialog

    before = render_dense_dashboard().image.crop((0, 0, WIDTH, HEIGHT))
    paths = [tmp_path / "before.png", tmp_path / "after.png"]
    before.save(paths[0])
    dialog(before, "Delete 3 invoices?", "Delete").save(paths[1])
    server = create_server(Settings(device="cpu", profile="fast", relevance_backend="lexical"))

    async def session() -> list[Any]:
        async with Client(server) as client:
            first = await client.call_tool("parse_screen", {"image": str(paths[0])})
            previous = first.structured_content["parse_id"]
            second = await client.call_tool("parse_screen", {"image": str(paths[1]), "previous": previous})
            unknown = await client.call_tool("parse_screen", {"image": str(paths[1]), "previous": "gone"})
            return [first, second, unknown]

    first, second, unknown = asyncio.run(session())
    assert first.structured_content["parse_id"] and first.structured_content["reparse"] is None
    info = second.structured_content["reparse"]
    assert info["previous"] == first.structured_content["parse_id"] and info["reused"]
    assert 0 < info["text_read"] < info["text_reused"]
    assert '"Delete"' in second.content[0].text
    assert unknown.structured_content["reparse"]["reason"] == "previous parse unknown or expired"
    elements = [(e["type"], e["text"], e["bbox"]) for e in second.structured_content["elements"]]
    assert elements == [(e["type"], e["text"], e["bbox"]) for e in unknown.structured_content["elements"]]
