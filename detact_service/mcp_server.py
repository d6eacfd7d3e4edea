"""The MCP server (official ``mcp`` SDK): screen parsing and locating as tools for any MCP client.

``detact mcp`` serves over stdio (what desktop clients launch); ``detact mcp --transport http --host
127.0.0.1 --port 8765`` over streamable HTTP at ``/mcp``. Two tools:

* ``parse_screen(image, profile?, task?, max_elements?, format?, previous?)``: the screen as the agent
  reads it (CAAP lines, DetACT sections or the public JSON) plus, as structured content, the very
  :class:`~detact_service.formats.schema.ParseResponse` ``POST /parse`` answers (every element's id,
  type, box, click point ``center``, text, icon, colour, state and relevance, and the ``parse_id`` to
  send as ``previous`` with the next screenshot: a re-parse of only what changed);
* ``locate_element(image, description, profile?)``: the element a short description names, its click
  point (pixels and 0-1) and the next best candidates, or ``found: false`` with the best guesses, as the
  :class:`~detact_service.formats.schema.LocateResponse` of ``POST /locate``.

``image`` is a file path on the server's machine or the image file in base64 (a ``data:`` URL too).
The pipeline is the process-wide one: it loads on the first call and stays warm; calls run one at a
time in a worker thread. This module imports ``mcp``, so nothing imports it at package import time.
"""

from __future__ import annotations

import threading
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from detact_service import __version__
from detact_service.formats.schema import LocateResponse, ParseResponse, ReparseOut
from detact_service.reparse import StateCache
from detact_service.settings import Settings, get_settings

INSTRUCTIONS = (
    "Screen parsing for GUI agents. parse_screen turns a screenshot into a list of UI elements "
    "(id, type, text, icon, colour, state, click point); locate_element finds the element a short "
    "description names and returns where to click. Images are file paths or base64."
)
ImageArg = Annotated[
    str,
    Field(description="The screenshot: a file path on the server's machine, or the image file in base64."),
]


def _error(exc: Exception) -> ToolError:
    return ToolError(f"{type(exc).__name__}: {exc}" if not str(exc) else str(exc))


def create_server(settings: Settings | None = None) -> MCPServer[Any]:
    """The MCP server with its two tools (the pipeline is built on the first call, not here)."""
    from detact_service import agent, library
    from detact_service.formats import select_relevant, to_response
    from detact_service.io import ImageError
    from detact_service.pipeline import ProfileUnavailable
    from detact_service.stages import StageUnavailable
    from detact_service.understanding.locate import to_response as locate_response

    server: MCPServer[Any] = MCPServer(
        "detact", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING"
    )
    lock = threading.Lock()
    cache: list[StateCache] = []

    def states(settings_now: Settings) -> StateCache:
        """The server's remembered parses (made on first use, sized by the settings then)."""
        if not cache:
            cache.append(StateCache(settings_now.reparse_cache_size, settings_now.reparse_ttl_s))
        return cache[0]

    expected = (ImageError, FileNotFoundError, ValueError, ProfileUnavailable, StageUnavailable)

    def current() -> Settings:
        return settings or get_settings()

    @server.tool(
        annotations=ToolAnnotations(title="Parse a screenshot", read_only_hint=True, open_world_hint=False)
    )
    def parse_screen(
        image: ImageArg,
        profile: Annotated[str | None, Field(description="detact, fast or full; default: best here.")] = None,
        task: Annotated[
            str | None, Field(description="The agent's task: elements are ranked for relevance to it.")
        ] = None,
        max_elements: Annotated[
            int | None, Field(ge=1, description="Keep only the K elements most relevant to the task.")
        ] = None,
        format: Annotated[
            Literal["caap", "detact", "json"], Field(description="How the elements are written as text.")
        ] = "caap",
        previous: Annotated[
            str | None,
            Field(
                max_length=64,
                description="parse_id of the previous screenshot of this screen: only what changed is "
                "parsed again (same result); unknown or expired: a full parse.",
            ),
        ] = None,
    ) -> Annotated[CallToolResult, ParseResponse]:
        """Parse a screenshot into UI elements: the text an agent reads (one line per element with its
        id, type, position, text, icon, colour and state) and each element's click point. Pass the
        answer's parse_id as previous with the next screenshot to re-parse only what changed."""
        try:
            with lock:
                settings_now = current()
                state = states(settings_now).get(previous) if previous else None
                result = library.reparse(image, state, task, profile=profile, settings=settings_now)
                view = agent.view_of(select_relevant(result.parse, max_elements), format)
                parse_id = states(settings_now).put(result.state)
        except expected as exc:
            raise _error(exc) from None
        text_formats = [format] if format != "json" else []
        output = to_response(view.parse, text_formats)  # what POST /parse answers
        output.parse_id = parse_id
        if previous:
            info = result.info
            output.reparse = ReparseOut(
                previous=previous,
                reused=info.reused,
                changed=info.changed,
                text_reused=info.text_reused,
                text_read=info.text_read,
                elements_reused=info.elements_reused,
                elements_read=info.elements_read,
                reason=info.reason if state is not None else "previous parse unknown or expired",
            )
        header = f"Screen {view.width}x{view.height}, {len(output.elements)} elements ({view.format}):\n"
        return CallToolResult(
            content=[TextContent(type="text", text=header + (view.prompt or "(no elements)"))],
            structured_content=output.model_dump(mode="json"),
        )

    @server.tool(
        annotations=ToolAnnotations(title="Locate an element", read_only_hint=True, open_world_hint=False)
    )
    def locate_element(
        image: ImageArg,
        description: Annotated[
            str,
            Field(
                min_length=1,
                max_length=1000,
                description='What to find: "the Submit button", "the search icon", "the checkbox next '
                'to Remember me", "the second link", "top right icon".',
            ),
        ],
        profile: Annotated[str | None, Field(description="detact, fast or full; default: best here.")] = None,
    ) -> Annotated[CallToolResult, LocateResponse]:
        """Find the element a short description names and where to click it (pixels and 0-1 fractions),
        with the next best candidates; says found: false (with the best guesses) when nothing matches."""
        try:
            with lock:
                settings_now = current()
                parse = library.parse_full(image, profile=profile, settings=settings_now)
                result = library.locate_in(parse, description, settings_now)
        except expected as exc:
            raise _error(exc) from None
        output = locate_response(result, parse.timings_ms, parse.models)  # what POST /locate answers
        if output.element is not None:
            best = output.element
            what = best.element.text or best.element.icon or best.element.type.value
            text = (
                f"Found element_{best.element.id} ({best.element.type.value} {what!r}): click at "
                f"x={best.point[0]}, y={best.point[1]} (normalised {best.point_normalized[0]}, "
                f"{best.point_normalized[1]})."
            )
        else:
            text = f"Not found: {result.reason}."
        if output.candidates:
            label = "Other candidates" if result.found else "Best guesses"
            text += f"\n{label}: " + "; ".join(
                f"element_{c.element.id} ({c.element.type.value} {c.element.text or c.element.icon or ''!r}) "
                f"at ({c.point[0]}, {c.point[1]}), score {c.score:.2f}"
                for c in output.candidates
            )
        return CallToolResult(
            content=[TextContent(type="text", text=text)],
            structured_content=output.model_dump(mode="json"),
        )

    return server


def run(
    transport: Literal["stdio", "http"] = "stdio",
    host: str = "127.0.0.1",
    port: int = 8765,
    settings: Settings | None = None,
) -> None:
    """Serve the MCP server over stdio or streamable HTTP (at ``/mcp``) until stopped."""
    server = create_server(settings)
    if transport == "stdio":
        server.run("stdio")
    elif transport == "http":
        server.run("streamable-http", host=host, port=port)
    else:
        raise ValueError(f"unknown transport {transport!r}; choose stdio or http")
