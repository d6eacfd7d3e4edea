"""The ``detact`` command line: ``detact parse`` and ``detact serve``; it only translates to library calls."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Screen parsing for GUI agents.")


class OutputFormat(StrEnum):
    json = "json"
    caap = "caap"
    detact = "detact"
    som = "som"


def _load(image: Path) -> Any:
    """The screenshot's pixels; exit 2 with a clear message when it cannot be read."""
    from detact_service.io import ImageError, load_image_file
    from detact_service.settings import get_settings

    try:
        return load_image_file(image, max_pixels=get_settings().max_pixels)
    except (ImageError, FileNotFoundError) as exc:
        typer.echo(f"error: {image}: {exc}", err=True)
        raise typer.Exit(2) from None


@contextlib.contextmanager
def _usage_errors() -> Iterator[None]:
    """An unknown or unavailable profile (or another bad option) exits 2 with its message."""
    from detact_service.pipeline import ProfileUnavailable

    try:
        yield
    except (ProfileUnavailable, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None


@app.command()
def parse(
    image: Annotated[Path, typer.Argument(help="Screenshot to parse (PNG, JPEG, WebP, BMP, ...).")],
    profile: Annotated[
        str | None, typer.Option(help="detact, fast or full; default: best available.")
    ] = None,
    output_format: Annotated[OutputFormat, typer.Option("--format", "-f", help="What to write.")] = (
        OutputFormat.json
    ),
    task: Annotated[
        str | None, typer.Option(help="The agent's task: elements are scored for relevance to it.")
    ] = None,
    max_elements: Annotated[
        int | None,
        typer.Option(
            "--max-elements", min=1, help="Keep only the K most relevant elements (reading order, ids kept)."
        ),
    ] = None,
    out: Annotated[Path | None, typer.Option("-o", "--out", help="Write here instead of stdout.")] = None,
) -> None:
    """Parse one screenshot and print its elements."""
    from detact_service import library
    from detact_service.formats import render_one

    pixels = _load(image)
    with _usage_errors():
        result = library.parse(pixels, task, profile=profile, max_elements=max_elements)
    rendered = render_one(result, output_format.value, pixels)

    if isinstance(rendered, bytes):  # som
        target = out or image.with_name(f"{image.stem}.som.png")
        target.write_bytes(rendered)
        typer.echo(f"wrote {target} ({len(result.elements)} elements)", err=True)
        return
    text = rendered
    if out is not None:
        out.write_text(text + "\n")
        typer.echo(f"wrote {out} ({len(result.elements)} elements)", err=True)
    else:
        sys.stdout.write(text + "\n")


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Bind address (default DETACT_HOST or 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default DETACT_PORT or 8000).")] = None,
) -> None:
    """Run the HTTP API (FastAPI on uvicorn)."""
    import uvicorn

    from detact_service.api.app import create_app
    from detact_service.api.batching import tune_malloc
    from detact_service.api.middleware import logging_config
    from detact_service.settings import get_settings

    tune_malloc()
    settings = get_settings()
    uvicorn.run(
        create_app(settings),
        host=host or settings.host,
        port=port or settings.port,
        log_config=logging_config(settings.log_level),
        log_level=settings.log_level,
        access_log=False,  # the app logs one JSON line per request itself
    )


@app.command()
def batch(
    inputs: Annotated[list[str], typer.Argument(help="Image files, folders or globs (quote globs).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="OUT.jsonl, or OUT.parquet (via a journal).")],
    layout: Annotated[
        str, typer.Option(help="Folder layout: auto, folder, omniact or screenagent.")
    ] = "auto",
    profile: Annotated[
        str | None, typer.Option(help="detact, fast or full; default: best available.")
    ] = None,
    formats: Annotated[
        str | None, typer.Option("--format", "-f", help="Extra text per line: caap, detact (comma list).")
    ] = None,
    workers: Annotated[int, typer.Option(min=1, help="Worker processes (or Ray actors).")] = 1,
    batch_size: Annotated[int, typer.Option(min=1, help="Images per pipeline run.")] = 1,
    engine: Annotated[str, typer.Option(help="local or ray.")] = "local",
    gpus_per_worker: Annotated[
        float | None, typer.Option(min=0, help="Ray: GPUs each actor reserves.")
    ] = None,
    address: Annotated[str | None, typer.Option(help="Ray: address of an existing cluster.")] = None,
    plugin: Annotated[
        str | None, typer.Option(help="module:function called in every worker before its pipeline.")
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
    sequential: Annotated[
        bool,
        typer.Option(
            "--sequential", help="Frames of one screen: re-parse each against the one before (only changes)."
        ),
    ] = False,
) -> None:
    """Parse a dataset into one JSON line per image; resumable (a rerun skips what is done)."""
    from detact_service.batch import run_batch
    from detact_service.pipeline import ProfileUnavailable

    try:
        summary = run_batch(
            inputs,
            out,
            layout=layout,
            profile=profile,
            formats=formats,
            workers=workers,
            batch_size=batch_size,
            engine=engine,
            gpus_per_worker=gpus_per_worker,
            address=address,
            plugin=plugin,
            progress=progress,
            sequential=sequential,
        )
    except (ProfileUnavailable, ValueError, FileNotFoundError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(summary.describe(), err=True)


@app.command()
def locate(
    image: Annotated[Path, typer.Argument(help="Screenshot (PNG, JPEG, WebP, BMP, ...).")],
    description: Annotated[
        str, typer.Argument(help='What to find: "the Submit button", "the search icon", "top right icon".')
    ],
    profile: Annotated[
        str | None, typer.Option(help="detact, fast or full; default: best available.")
    ] = None,
) -> None:
    """Find the element a description names: JSON with its click point, score and the next best ones.

    Exits 1 when nothing matches well (the JSON then says found: false and lists the best guesses).
    """
    from detact_service import library
    from detact_service.understanding.locate import to_response

    pixels = _load(image)
    with _usage_errors():
        parse = library.parse_full(pixels, profile=profile)
    result = library.locate_in(parse, description)
    sys.stdout.write(to_response(result, parse.timings_ms, parse.models).model_dump_json(indent=2) + "\n")
    if not result.found:
        raise typer.Exit(1)


@app.command()
def mcp(
    transport: Annotated[str, typer.Option(help="stdio (default) or http (streamable HTTP at /mcp).")] = (
        "stdio"
    ),
    host: Annotated[str, typer.Option(help="http: bind address.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="http: port.")] = 8765,
) -> None:
    """Run the MCP server (tools parse_screen and locate_element) for MCP clients."""
    if transport not in ("stdio", "http"):
        typer.echo(f"error: unknown transport {transport!r}; choose stdio or http", err=True)
        raise typer.Exit(2)
    from detact_service.mcp_server import run

    run("stdio" if transport == "stdio" else "http", host=host, port=port)


@app.command()
def profiles() -> None:
    """List the profiles and whether their models are present here."""
    from detact_service.pipeline import PROFILES, available_profiles, default_profile
    from detact_service.settings import get_settings

    settings = get_settings()
    available = available_profiles(settings)
    default = default_profile(settings)
    for name, spec in PROFILES.items():
        mark = "available" if name in available else "missing models"
        star = " (default)" if name == default else ""
        typer.echo(f"{name:8} {mark:15} {spec.description}{star}")


if __name__ == "__main__":
    app()
