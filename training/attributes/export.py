"""Ship a trained attribute model: copy it into ``models/<name>/`` and record it in the manifest.

    python -m training.attributes export runs/attributes/s64/best --name ui-pix2struct \\
        --data-version ... --metrics '{...}' --command '...'
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

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
        "file": f"{name}/model.safetensors",
        "folder": name,
        "sha256": hashlib.sha256(weights.read_bytes()).hexdigest(),
        "max_patches": processor.get("max_patches"),
        "parameters": _parameters(config),
        "data_version": data_version,
        "metrics": metrics or {},
        "command": command,
    }
    manifest_path = models_dir / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.is_file() else {"models": []}
    manifest["models"] = [m for m in manifest["models"] if m.get("name") != name] + [entry]
    manifest_path.write_text(json.dumps(manifest, indent=1) + "\n")
    return target


def _parameters(config: dict[str, Any]) -> dict[str, int]:
    text, vision = config.get("text_config", {}), config.get("vision_config", {})
    return {
        "hidden_size": int(text.get("hidden_size", 0)),
        "encoder_layers": int(vision.get("num_hidden_layers", 0)),
        "decoder_layers": int(text.get("num_layers", 0)),
        "vocab_size": int(text.get("vocab_size", 0)),
    }
