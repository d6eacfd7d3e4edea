"""The server's malloc settings: one definition for the Docker image, ``detact serve`` and the bench."""

import re
from pathlib import Path

from detact_service.api.batching import SERVER_MALLOC, tune_malloc

ROOT = Path(__file__).resolve().parents[2]


def test_the_docker_image_sets_the_servers_malloc_settings() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    for name, value in SERVER_MALLOC.items():
        assert re.search(rf"^\s*{re.escape(name)}={value}\b", dockerfile, re.MULTILINE), name


def test_glibc_takes_the_settings() -> None:
    assert tune_malloc() is True
