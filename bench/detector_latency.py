"""Latency of the detect stage alone at 1920x1080: ``python -m bench.detector_latency``.

Issue 19 asks for a median of at most 350 ms per 1920x1080 screen on this 2-core CPU. The stage of the
default profile (every detector it runs on a landscape screen, their boxes joined) is timed on its own,
warm, on the bench's cached screens of each source resized to 1920x1080 (`data/bench`, written by
``python -m bench``) and on the rendered 1920x1080 form, each screen ``--repeats`` times (medians).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
from PIL import Image

from detact_service.core import ScreenParse
from detact_service.pipeline import default_profile, get_pipeline
from detact_service.settings import Settings

CACHE = Path("data/bench")


def screens(cache: Path = CACHE, per_source: int = 3) -> list[tuple[str, np.ndarray]]:
    """The form and up to ``per_source`` cached screens of each source, as 1920x1080 RGB arrays."""
    from bench.pipeline_latency import screen

    out = [("form", screen(1920, 1080))]
    for prefix in ("grid", "qt", "web-", "thirdparty", "dense-dashboard"):
        for path in sorted(cache.glob(f"{prefix}*.png"))[:per_source]:
            image = Image.open(path).convert("RGB").resize((1920, 1080), Image.Resampling.BILINEAR)
            out.append((path.stem, np.asarray(image)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--profile", default=None, help="pipeline profile (default: the service's default)")
    args = parser.parse_args()
    settings = Settings()
    profile = args.profile or default_profile(settings)
    (stage,) = [s for s in get_pipeline(settings, profile).stages if getattr(s, "slot", "") == "detect"]
    images = screens()
    empty = ScreenParse(1920, 1080)
    stage.run([images[0][1]], [empty])  # warm-up: the models load
    medians = []
    for name, image in images:
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            stage.run([image], [empty])
            times.append((time.perf_counter() - start) * 1000.0)
        medians.append(statistics.median(times))
        print(f"{name}: {medians[-1]:.0f} ms")
    p90 = float(np.percentile(medians, 90))
    median = statistics.median(medians)
    print(
        f"detect stage ({profile}), {len(images)} screens at 1920x1080: "
        f"median {median:.0f} ms, p90 {p90:.0f} ms"
    )


if __name__ == "__main__":
    main()
