"""Ship a trained attribute model: copy it into ``models/<name>/`` and record it in the manifest.

    python -m training.attributes export runs/attributes/s64/best --name ui-pix2struct \\
        --data-version ... --metrics '{...}' --command '...'
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from detact_service.models import file_sha256, write_manifest_entry

MODELS = Path(__file__).resolve().parents[2] / "models"
SHIPPED_FILES = (
    "config.json",
    "generation_config.json",
    "model.safetensors",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "preprocessor_config.json",
)


def export(
    checkpoint: Path,
    name: str = "ui-pix2struct",
    models_dir: Path = MODELS,
    data_version: str = "",
    metrics: dict[str, Any] | None = None,
    command: str = "",
) -> Path:
    """Copy the loadable files of ``checkpoint`` to ``models_dir/name`` and upsert its manifest entry."""
    target = models_dir / name
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    for file in SHIPPED_FILES:
        if (checkpoint / file).is_file():
            shutil.copy2(checkpoint / file, target / file)
    weights = target / "model.safetensors"
    config = json.loads((target / "config.json").read_text())
    processor = json.loads((target / "preprocessor_config.json").read_text())
    entry = {
        "name": name,
        "kind": "attributes",
        "backend": "pix2struct",
        "file": f"{name}/model.safetensors",
        "folder": name,
        "sha256": file_sha256(weights),
        "max_patches": processor.get("max_patches"),
        "parameters": _parameters(config),
        "data_version": data_version,
        "metrics": metrics or {},
        "command": command,
    }
    write_manifest_entry(models_dir, entry)
    return target


def _parameters(config: dict[str, Any]) -> dict[str, int]:
    text, vision = config.get("text_config", {}), config.get("vision_config", {})
    return {
        "hidden_size": int(text.get("hidden_size", 0)),
        "encoder_layers": int(vision.get("num_hidden_layers", 0)),
        "decoder_layers": int(text.get("num_layers", 0)),
        "vocab_size": int(text.get("vocab_size", 0)),
    }
