"""Output formats: pure functions of a :class:`~detact_service.core.ScreenParse`.

* ``json``: the public schema (:class:`~detact_service.formats.schema.ParseResponse`)
* ``caap``: one line per element, for an LLM agent (CAAP prompt style)
* ``detact``: text / icons / colours sections (OmniACT's DetACT prompt style)
* ``som``: the Set-of-Mark PNG (numbered boxes over the screenshot); needs the image

Ask for several as a comma list: ``render(parse, "json,caap", image)``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from PIL import Image

from detact_service.core import ScreenParse
from detact_service.formats.caap import to_caap
from detact_service.formats.detact import to_detact
from detact_service.formats.json import from_public, to_public
from detact_service.formats.schema import ParseResponse
from detact_service.formats.select import select_relevant, select_top
from detact_service.formats.som import to_som_png
from detact_service.stages import RGBImage

FORMATS: tuple[str, ...] = ("json", "caap", "detact", "som")

__all__ = [
    "FORMATS",
    "ParseResponse",
    "from_public",
    "parse_formats",
    "render",
    "render_one",
    "select_relevant",
    "select_top",
    "to_caap",
    "to_detact",
    "to_public",
    "to_response",
    "to_som_png",
]


def parse_formats(formats: str | Iterable[str] | None, default: str = "json") -> tuple[str, ...]:
    """Validate a comma list (or iterable) of format names; order kept, duplicates dropped.

    Raises ``ValueError`` naming the known formats when one is unknown.
    """
    if formats is None:
        formats = default
    items = formats.split(",") if isinstance(formats, str) else list(formats)
    names: list[str] = []
    for item in items:
        name = item.strip().lower()
        if not name:
            continue
        if name not in FORMATS:
            raise ValueError(f"unknown format {item.strip()!r}; known formats: {', '.join(FORMATS)}")
        if name not in names:
            names.append(name)
    if not names:
        raise ValueError(f"no format requested; known formats: {', '.join(FORMATS)}")
    return tuple(names)


def _rendering(parse: ScreenParse, name: str, image: RGBImage | Image.Image | None) -> str | bytes:
    """One text or image rendering by name: the one place a format name picks its function."""
    if name == "caap":
        return to_caap(parse)
    if name == "detact":
        return to_detact(parse)
    if name == "som":
        if image is None:
            raise ValueError("the 'som' format needs the screenshot")
        return to_som_png(image, parse)
    raise ValueError(f"unknown format {name!r}; known formats: {', '.join(FORMATS)}")


def _renderings(
    parse: ScreenParse, names: Iterable[str], image: RGBImage | Image.Image | None
) -> dict[str, str | bytes]:
    return {name: _rendering(parse, name, image) for name in names if name != "json"}


def _public(parse: ScreenParse, parts: dict[str, str | bytes]) -> ParseResponse:
    caap, detact, som = parts.get("caap"), parts.get("detact"), parts.get("som")
    return to_public(
        parse,
        caap=caap if isinstance(caap, str) else None,
        detact=detact if isinstance(detact, str) else None,
        som_png=som if isinstance(som, bytes) else None,
    )


def to_response(
    parse: ScreenParse, formats: str | Iterable[str], image: RGBImage | Image.Image | None = None
) -> ParseResponse:
    """The public model with the requested text and SoM parts filled in (what the API and the batch runner
    answer, what MCP returns as structured content). Elements are always included; ``json`` in
    ``formats`` changes nothing here."""
    return _public(parse, _renderings(parse, parse_formats(formats), image))


def render(
    parse: ScreenParse, formats: str | Iterable[str], image: RGBImage | Image.Image | None = None
) -> dict[str, Any]:
    """Render ``parse`` in each requested format: the dispatcher every face calls.

    Returns ``{"json": dict, "caap": str, "detact": str, "som": bytes}`` restricted to the requested
    names, in the order asked. The JSON dict embeds whatever text/SoM renderings were requested with it.
    ``som`` needs ``image`` (``ValueError`` otherwise).
    """
    names = parse_formats(formats)
    out: dict[str, Any] = dict(_renderings(parse, names, image))
    if "json" in names:
        out["json"] = _public(parse, out).model_dump(mode="json")
    return {name: out[name] for name in names}


def render_one(
    parse: ScreenParse, fmt: str, image: RGBImage | Image.Image | None = None, indent: int | None = 2
) -> str | bytes:
    """One format as a face writes it: the public JSON as text (``indent``), CAAP or DetACT text, or the
    SoM PNG's bytes."""
    (name,) = parse_formats(fmt)
    if name == "json":
        return to_public(parse).model_dump_json(indent=indent)
    return _rendering(parse, name, image)
