"""FastAPI dependencies: the app's settings, its pipeline getter and its parse service.

All come from ``app.state`` (set once by :func:`~detact_service.api.app.create_app`), so tests can
swap them with ``app.dependency_overrides``.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from detact_service.api.service import ParseService, PipelineGetter
from detact_service.settings import Settings


def get_app_settings(request: Request) -> Settings:
    """The settings the app was created with."""
    settings: Settings = request.app.state.settings
    return settings


def get_parse_service(request: Request) -> ParseService:
    """The app's parse service (readiness, warm-up, worker limiter)."""
    service: ParseService = request.app.state.service
    return service


def get_pipeline_getter(service: Annotated[ParseService, Depends(get_parse_service)]) -> PipelineGetter:
    """Profile name -> pipeline, bound to the app's settings."""
    return service.get_pipeline


SettingsDep = Annotated[Settings, Depends(get_app_settings)]
ServiceDep = Annotated[ParseService, Depends(get_parse_service)]
PipelineGetterDep = Annotated[PipelineGetter, Depends(get_pipeline_getter)]
