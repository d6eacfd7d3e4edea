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


def render(
    parse: ScreenParse, formats: str | Iterable[str], image: RGBImage | Image.Image | None = None
) -> dict[str, Any]:
    """Render ``parse`` in each requested format.

    Returns ``{"json": dict, "caap": str, "detact": str, "som": bytes}`` restricted to the requested
    names. The JSON dict embeds whatever text/SoM renderings were requested with it. ``som`` needs
    ``image`` (``ValueError`` otherwise).
    """
    names = parse_formats(formats)
    out: dict[str, Any] = {}
    if "caap" in names:
        out["caap"] = to_caap(parse)
    if "detact" in names:
        out["detact"] = to_detact(parse)
    if "som" in names:
        if image is None:
            raise ValueError("the 'som' format needs the screenshot")
        out["som"] = to_som_png(image, parse)
    if "json" in names:
        public = to_public(parse, caap=out.get("caap"), detact=out.get("detact"), som_png=out.get("som"))
        out["json"] = public.model_dump(mode="json")
    return {name: out[name] for name in names}


def to_response(
    parse: ScreenParse, formats: str | Iterable[str], image: RGBImage | Image.Image | None = None
) -> ParseResponse:
    """The public model with the requested text and SoM parts filled in (what the API answers).

    Elements are always included; ``json`` in ``formats`` changes nothing here.
    """
    names = parse_formats(formats)
    som_png = None
    if "som" in names:
        if image is None:
            raise ValueError("the 'som' format needs the screenshot")
        som_png = to_som_png(image, parse)
    return to_public(
        parse,
        caap=to_caap(parse) if "caap" in names else None,
        detact=to_detact(parse) if "detact" in names else None,
        som_png=som_png,
    )
