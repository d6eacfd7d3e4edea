"""Screen sources of the data engine, by name. Each is a :class:`~training.data.sources.base.Renderer`."""

from __future__ import annotations

import importlib

from training.data.sources.base import Renderer

# name -> "module:RendererClass"; imported on demand (Chromium and Qt are heavy).
SOURCES: dict[str, str] = {
    "web": "training.data.sources.web:WebRenderer",
    "miniwob": "training.data.sources.miniwob:MiniWobRenderer",
    "thirdparty": "training.data.sources.thirdparty:ThirdPartyRenderer",
    "qt": "training.data.sources.qt:QtRenderer",
    "grid": "training.data.sources.grid:GridRenderer",
    "checks": "training.data.sources.checks:ChecksRenderer",
}


def create_renderer(name: str) -> Renderer:
    """A renderer by source name (not yet entered: use it as a context manager)."""
    try:
        module_name, _, attr = SOURCES[name].partition(":")
    except KeyError:
        raise ValueError(f"unknown source {name!r}; known: {sorted(SOURCES)}") from None
    renderer: Renderer = getattr(importlib.import_module(module_name), attr)()
    return renderer
