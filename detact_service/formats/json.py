"""The JSON format: one converter between :class:`ScreenParse` and the public :class:`ParseResponse`."""

from __future__ import annotations

import base64
import dataclasses

from detact_service.core import INTERACTIVE_TYPES, Element, ElementState, ScreenParse
from detact_service.formats.common import element_ids
from detact_service.formats.schema import ElementOut, ImageSize, ParseResponse, StateOut, TextOut


def element_out(element: Element, element_id: int) -> ElementOut:
    """The public model of one element, under its public id."""
    return ElementOut(
        id=element_id,
        type=element.type,
        bbox=element.bbox,
        center=element.center,
        text=element.text,
        icon=element.icon,
        color=element.color,
        state=StateOut(**dataclasses.asdict(element.state)),
        interactive=element.is_interactive,
        score=float(element.score),
        source=element.source,
        relevance=element.relevance,
    )


def to_public(
    parse: ScreenParse,
    *,
    caap: str | None = None,
    detact: str | None = None,
    som_png: bytes | None = None,
) -> ParseResponse:
    """The public model of ``parse``, with the optional text renderings and SoM image attached."""
    elements = [
        element_out(element, element_id)
        for element_id, element in zip(element_ids(parse), parse.elements, strict=True)
    ]
    return ParseResponse(
        image=ImageSize(width=parse.width, height=parse.height),
        elements=elements,
        text=TextOut(caap=caap, detact=detact),
        som_png_base64=base64.b64encode(som_png).decode("ascii") if som_png is not None else None,
        timings_ms=dict(parse.timings_ms),
        models=dict(parse.models),
        task=parse.task,
    )


def from_public(response: ParseResponse) -> ScreenParse:
    """Back from the public model to a :class:`ScreenParse` (for clients and tools reading saved JSON)."""
    elements = []
    for out in response.elements:
        inferred = out.type in INTERACTIVE_TYPES
        elements.append(
            Element(
                bbox=out.bbox,
                type=out.type,
                id=out.id,
                score=out.score,
                source=out.source,
                text=out.text,
                icon=out.icon,
                color=out.color,
                state=ElementState(**out.state.model_dump()),
                interactive=None if out.interactive == inferred else out.interactive,
                relevance=out.relevance,
            )
        )
    return ScreenParse(
        width=response.image.width,
        height=response.image.height,
        elements=elements,
        timings_ms=dict(response.timings_ms),
        models=dict(response.models),
        task=response.task,
    )
