"""The label record every data-engine source writes: one screenshot and its visible UI elements.

Elements are the runtime's own :class:`~detact_service.core.Element` (types, state, colours), so the
labels speak the same language as the parser that is trained and evaluated on them.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from detact_service.core import Element, ElementState, ElementType


@dataclass
class ScreenLabels:
    """One rendered screenshot's ground truth."""

    image: str
    """PNG file name, relative to the labels file's folder."""
    width: int
    height: int
    source: str
    """Which renderer made it: ``web-synthetic``, ``miniwob``, ``web-thirdparty``, ``qt``, ``grid``, ..."""
    template: str
    """The page/window template (splits keep templates apart: no template in two splits)."""
    seed: int
    scale: float = 1.0
    """Device pixel ratio the screen was rendered at."""
    elements: list[Element] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)


def element_to_dict(element: Element) -> dict[str, Any]:
    """An element as a JSON-ready dict (the only serialisation of labels)."""
    return {
        "type": element.type.value,
        "bbox": list(element.bbox),
        "text": element.text,
        "icon": element.icon,
        "color": element.color,
        "state": asdict(element.state),
        "interactive": element.is_interactive,
    }


def element_from_dict(data: dict[str, Any]) -> Element:
    """Inverse of :func:`element_to_dict`."""
    return Element(
        bbox=tuple(int(v) for v in data["bbox"]),  # type: ignore[arg-type]
        type=ElementType(data["type"]),
        text=data.get("text"),
        icon=data.get("icon"),
        color=data.get("color"),
        state=ElementState(**data.get("state", {})),
        interactive=data.get("interactive"),
        source="label",
    )


def write_labels(labels: ScreenLabels, path: Path) -> None:
    """Write ``labels`` as JSON next to its image (atomically: a killed run leaves no half file)."""
    record = {k: v for k, v in asdict(labels).items() if k != "elements"}
    record["elements"] = [element_to_dict(e) for e in labels.elements]
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(record, ensure_ascii=False, indent=1))
    tmp.replace(path)


def read_labels(path: Path) -> ScreenLabels:
    """Read a labels JSON written by :func:`write_labels`."""
    record = json.loads(path.read_text())
    elements = [element_from_dict(e) for e in record.pop("elements")]
    return ScreenLabels(**record, elements=elements)
