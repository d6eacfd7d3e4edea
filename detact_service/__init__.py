"""detact-service: screen parsing for GUI agents.

Importing this package loads no model. The library entry is :func:`parse`, :func:`locate` and
:func:`reparse` (:mod:`detact_service.library`, imported on first use); the API, CLI, MCP server and agent
helper call it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["__version__", "locate", "parse", "reparse"]

if TYPE_CHECKING:
    from detact_service.library import locate, parse, reparse


def __getattr__(name: str) -> Any:
    """``detact_service.parse`` / ``.locate`` / ``.reparse``, imported lazily (the package stays light)."""
    if name in ("parse", "locate", "reparse"):
        from detact_service import library

        return getattr(library, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
