"""The MCP server (official ``mcp`` SDK): screen parsing and locating as tools for any MCP client.

``detact mcp`` serves over stdio (what desktop clients launch); ``detact mcp --transport http --host
127.0.0.1 --port 8765`` over streamable HTTP at ``/mcp``. Two tools:

* ``parse_screen(image, profile?, task?, max_elements?, format?)``: the screen as the agent reads it
  (CAAP lines, DetACT sections or the public JSON) plus, as structured content, every element's id,
  type, text and click point;
* ``locate_element(image, description, profile?)``: the element a short description names, its click
  point (pixels and 0-1) and the next best candidates, or ``found: false`` with the best guesses.

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
from pydantic import BaseModel, Field

from detact_service import __version__
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


class ElementPoint(BaseModel):
    """One element of the screen, as structured content."""

    id: int
    type: str
    text: str | None = None
    icon: str | None = None
    color: str | None = None
    bbox: tuple[int, int, int, int]
    point: tuple[int, int] = Field(..., description="Click point [x, y] in pixels.")
    relevance: float | None = None


class ParseScreenOutput(BaseModel):
    """Structured content of ``parse_screen``."""

    width: int
    height: int
    format: str
    prompt: str = Field(..., description="The elements as text for the agent's prompt.")
    elements: list[ElementPoint]
    timings_ms: dict[str, float] = Field(default_factory=dict)


class LocatedElement(BaseModel):
    """A located element or a candidate."""

    id: int
    type: str
    text: str | None = None
    icon: str | None = None
    bbox: tuple[int, int, int, int]
    point: tuple[int, int] = Field(..., description="Click point [x, y] in pixels.")
    point_normalized: tuple[float, float] = Field(..., description="Click point as fractions (0-1).")
    score: float
    match: float


class LocateElementOutput(BaseModel):
    """Structured content of ``locate_element``."""

    description: str
    found: bool
    element: LocatedElement | None = None
    candidates: list[LocatedElement] = Field(default_factory=list)
    reason: str | None = None
    width: int
    height: int


def _error(exc: Exception) -> ToolError:
    return ToolError(f"{type(exc).__name__}: {exc}" if not str(exc) else str(exc))


def create_server(settings: Settings | None = None) -> MCPServer[Any]:
    """The MCP server with its two tools (the pipeline is built on the first call, not here)."""
    from detact_service import agent
    from detact_service.io import ImageError
    from detact_service.pipeline import ProfileUnavailable
    from detact_service.stages import StageUnavailable
    from detact_service.understanding.locate import Candidate

    server: MCPServer[Any] = MCPServer(
        "detact", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING"
    )
    lock = threading.Lock()
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
    ) -> Annotated[CallToolResult, ParseScreenOutput]:
        """Parse a screenshot into UI elements: the text an agent reads (one line per element with its
        id, type, position, text, icon, colour and state) and each element's click point."""
        try:
            with lock:
                view = agent.describe(image, task, format, profile, max_elements, current())
        except expected as exc:
            raise _error(exc) from None
        elements = [
            ElementPoint(
                id=element_id,
                type=element.type.value,
                text=element.text,
                icon=element.icon,
                color=element.color,
                bbox=element.bbox,
                point=view.points[element_id],
                relevance=element.relevance,
            )
            for element_id, element in zip(view.points, view.parse.elements, strict=True)
        ]
        output = ParseScreenOutput(
            width=view.width,
            height=view.height,
            format=view.format,
            prompt=view.prompt,
            elements=elements,
            timings_ms=dict(view.parse.timings_ms),
        )
        header = f"Screen {view.width}x{view.height}, {len(elements)} elements ({view.format}):\n"
        return CallToolResult(
            content=[TextContent(type="text", text=header + (view.prompt or "(no elements)"))],
            structured_content=output.model_dump(mode="json"),
        )

    def located(candidate: Candidate) -> LocatedElement:
        element = candidate.element
        return LocatedElement(
            id=candidate.element_id,
            type=element.type.value,
            text=element.text,
            icon=element.icon,
            bbox=element.bbox,
            point=candidate.point,
            point_normalized=candidate.point_normalized,
            score=candidate.score,
            match=candidate.match,
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
    ) -> Annotated[CallToolResult, LocateElementOutput]:
        """Find the element a short description names and where to click it (pixels and 0-1 fractions),
        with the next best candidates; says found: false (with the best guesses) when nothing matches."""
        try:
            with lock:
                result = agent.locate(image, description, profile, current())
        except expected as exc:
            raise _error(exc) from None
        output = LocateElementOutput(
            description=description,
            found=result.found,
            element=located(result.best) if result.best is not None else None,
            candidates=[located(c) for c in result.candidates],
            reason=result.reason,
            width=result.width,
            height=result.height,
        )
        if result.best is not None:
            best = output.element
            assert best is not None
            what = best.text or best.icon or best.type
            text = (
                f"Found element_{best.id} ({best.type} {what!r}): click at x={best.point[0]}, "
                f"y={best.point[1]} (normalised {best.point_normalized[0]}, {best.point_normalized[1]})."
            )
        else:
            text = f"Not found: {result.reason}."
        if output.candidates:
            label = "Other candidates" if result.found else "Best guesses"
            text += f"\n{label}: " + "; ".join(
                f"element_{c.id} ({c.type} {c.text or c.icon or ''!r}) at ({c.point[0]}, {c.point[1]}), "
                f"score {c.score:.2f}"
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
