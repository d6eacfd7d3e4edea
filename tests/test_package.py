"""Importing the package and building settings and pipelines must stay cheap: no model loads."""

import subprocess
import sys

HEAVY = (
    "torch",
    "onnxruntime",
    "rapidocr",
    "rapidocr_onnxruntime",
    "easyocr",
    "segment_anything",
    "cv2",
    "fastapi",
)


def test_import_loads_nothing_heavy() -> None:
    code = (
        "import sys, detact_service, detact_service.core, detact_service.settings, detact_service.pipeline;"
        "import detact_service.cli;"
        f"print([m for m in {HEAVY!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_building_a_pipeline_loads_no_model() -> None:
    code = (
        "from detact_service.pipeline import get_pipeline; from detact_service.settings import Settings;"
        "from detact_service.stages import loaded_model_keys;"
        "p = get_pipeline(Settings(device='cpu'), 'detact'); print(len(p.stages), loaded_model_keys())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "6 []"
