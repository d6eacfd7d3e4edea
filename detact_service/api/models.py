"""Request and status models of the HTTP API (the parse result itself is ``formats.schema``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ParseRequest(BaseModel):
    """JSON body of ``POST /parse`` (the alternative to a multipart upload)."""

    model_config = ConfigDict(extra="forbid")

    image_base64: str | None = Field(
        None, description="The screenshot file (PNG, JPEG, ...) in base64; a data: URL prefix is allowed."
    )
    profile: str | None = Field(None, description="Profile (detact, fast, full); default: the server's.")
    formats: str | None = Field(None, description="Comma list of json, caap, detact, som; default json.")
    task: str | None = Field(
        None, description="The agent's task: echoed back, and elements get a relevance score for it."
    )
    max_elements: int | None = Field(
        None, ge=1, description="Keep only the K elements most relevant to the task (ids unchanged)."
    )
    previous: str | None = Field(
        None,
        max_length=64,
        description="`parse_id` of the previous screenshot of this screen: only what changed is parsed "
        "again (same result); an unknown or expired id gives a full parse.",
    )


class LocateRequest(BaseModel):
    """JSON body of ``POST /locate`` (the alternative to a multipart upload)."""

    model_config = ConfigDict(extra="forbid")

    image_base64: str | None = Field(
        None, description="The screenshot file (PNG, JPEG, ...) in base64; a data: URL prefix is allowed."
    )
    description: str | None = Field(
        None,
        description='What to find: text, icon, colour, type, state, position ("the Submit button", '
        '"the search icon", "the checkbox next to Remember me", "the second link", "top right icon").',
    )
    profile: str | None = Field(None, description="Profile (detact, fast, full); default: the server's.")


class HealthResponse(BaseModel):
    """Liveness."""

    status: str = "ok"


class ReadyResponse(BaseModel):
    """Readiness of the default profile."""

    ready: bool
    profile: str | None = Field(None, description="The default profile.")
    missing: list[str] = Field(default_factory=list, description="Stages whose models are not loaded yet.")
    warming: bool = Field(False, description="A warm-up is in progress.")
    reason: str | None = None
    loaded_models: list[str] = Field(default_factory=list)


class ProfileInfo(BaseModel):
    """One profile and whether it can run here."""

    name: str
    description: str
    stages: list[str] = Field(..., description="slot:backend, in run order.")
    available: bool
    reason: str | None = None


class VersionResponse(BaseModel):
    """What this server is and can do."""

    name: str = "detact-service"
    version: str
    default_profile: str | None
    available_profiles: list[str]
    profiles: list[ProfileInfo]
    backends: dict[str, list[str]] = Field(..., description="Registered backends per stage slot.")
    device: str | None = None
    formats: list[str]
