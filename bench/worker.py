"""One benchmark configuration (a parser at one screen size) in its own process: ``python -m bench.worker
SPEC.json OUT.json``. A process of its own makes the peak RSS (``ru_maxrss``) the configuration's own.

Parsers:

- ``profile:<name>``: one of our profiles through :func:`~detact_service.pipeline.get_pipeline`, device
  auto-detected (CUDA when onnxruntime sees one); per-stage times from the pipeline's own timings.
- ``rapidocr+omniparser``: RapidOCR with its defaults, every OCR line an element (row ``rapidocr``: what a
  user without a detector would do; our ``text`` stage adds line splitting at wide gaps and drops the
  angle classifier); then OmniParser v2's icon detector and overlap removal on those lines (row
  ``omniparser-fast``: OmniParser's fastest configuration, its detector at 640 + RapidOCR). ``rapidocr``
  alone runs the first row only.
- ``easyocr+omniparser``: EasyOCR called as OmniParser v2's server calls it (``text_threshold=0.8``,
  ``paragraph=False``), every line an element (row ``easyocr``); then OmniParser v2's icon detector
  (YOLO11m, one class ``icon``; ``conf=0.05``, NMS IoU 0.1, Ultralytics' default input size 640, as its
  server runs it) and its overlap removal (:func:`omniparser_merge`) on those EasyOCR lines (row
  ``omniparser``: its latency is EasyOCR + detector + merge). The peak RSS of ``easyocr`` is read before the
  detector is loaded.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar, overload

import numpy as np
import numpy.typing as npt
from PIL import Image

from bench.screens import fit_image
from detact_service import geometry
from training.eval.peers import OMNI_CONF, OMNI_INSIDE, OMNI_NMS_IOU, OMNI_OVERLAP

RGB = npt.NDArray[np.uint8]
Pred = tuple[int, int, int, int, str | None]
"""A predicted element: x1, y1, x2, y2 and its text (``None`` without one)."""

T = TypeVar("T")


def peak_rss_mib() -> float:
    """This process's RSS high-water mark, MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def quad_to_pred(quad: Any, text: str, width: int, height: int) -> Pred | None:
    """An axis-aligned, clipped element from an OCR quad; ``None`` when empty."""
    points = np.asarray(quad, dtype=np.float64).reshape(-1, 2)
    x1, y1 = np.floor(np.clip(points.min(axis=0), 0, [width, height])).astype(int)
    x2, y2 = np.ceil(np.clip(points.max(axis=0), 0, [width, height])).astype(int)
    if x2 <= x1 or y2 <= y1 or not str(text).strip():
        return None
    return int(x1), int(y1), int(x2), int(y2), str(text).strip()


def _timed(fn: Callable[..., T], *args: Any) -> tuple[T, float]:
    """``fn(*args)`` and its wall time, ms."""
    start = time.perf_counter()
    out = fn(*args)
    return out, (time.perf_counter() - start) * 1000.0


def _record(key: str, wall_ms: float, stages: dict[str, float], preds: Sequence[Pred]) -> dict[str, Any]:
    return {
        "key": key,
        "wall_ms": round(wall_ms, 2),
        "stages_ms": stages,
        "elements": [list(p) for p in preds],
    }


def run_profile(name: str, keys: Sequence[str], images: Sequence[RGB], batch: int) -> dict[str, Any]:
    """Our pipeline: warm-up, then each image once, then one batch over the first ``batch`` images."""
    from detact_service.models import resolve_device
    from detact_service.pipeline import get_pipeline
    from detact_service.settings import Settings

    settings = Settings()
    pipeline = get_pipeline(settings, name)
    _, first_ms = _timed(pipeline.parse, images[0])
    records = []
    for key, image in zip(keys, images, strict=True):
        parse, wall = _timed(pipeline.parse, image)
        stages = {k: float(v) for k, v in parse.timings_ms.items() if k != "total"}
        preds = [(*e.bbox, e.text) for e in parse.elements]
        records.append(_record(key, wall, stages, preds))
    subset = list(images[:batch])
    _, batch_ms = _timed(pipeline.parse_batch, subset)
    return {
        "images": records,
        "first_call_ms": round(first_ms, 1),
        "batch": {"n": len(subset), "ms": round(batch_ms, 1), "mode": "parse_batch"},
        "peak_rss_mib": round(peak_rss_mib(), 1),
        "device": resolve_device(settings),
        "models": dict(parse.models),
    }


def run_rapidocr(
    keys: Sequence[str], images: Sequence[RGB], batch: int, weights: str | None = None
) -> dict[str, Any]:
    """RapidOCR with its defaults, every line an element; then OmniParser's detector on those lines."""
    import onnxruntime
    from rapidocr_onnxruntime import RapidOCR

    cuda = "CUDAExecutionProvider" in onnxruntime.get_available_providers()
    start = time.perf_counter()
    engine = RapidOCR(det_use_cuda=cuda, cls_use_cuda=cuda, rec_use_cuda=cuda, print_verbose=False)

    def parse(image: RGB) -> list[Pred]:
        result, _ = engine(np.ascontiguousarray(image[..., ::-1]))
        preds = [quad_to_pred(q, t, image.shape[1], image.shape[0]) for q, t, _s in (result or [])]
        return [p for p in preds if p is not None]

    first_ms, records = _ocr_records(parse, keys, images, start)
    out: dict[str, Any] = {
        "rapidocr": {
            "images": records,
            "first_call_ms": round(first_ms, 1),
            "batch": _sequential_batch(records, batch),
            "peak_rss_mib": round(peak_rss_mib(), 1),
            "device": "cuda" if cuda else "cpu",
            "models": {"text": "rapidocr-onnxruntime defaults (PP-OCRv4 det + cls + rec)"},
        }
    }
    if weights is not None:
        out["omniparser-fast"] = run_omniparser_detector(
            records, images, batch, weights, cuda, first_ms, "rapidocr-onnxruntime defaults"
        )
    return out


def _ocr_records(
    read: Callable[[RGB], list[Pred]], keys: Sequence[str], images: Sequence[RGB], start: float
) -> tuple[float, list[dict[str, Any]]]:
    """An OCR-only parser's first call (model load since ``start`` included, ms) and per-image records."""
    read(images[0])
    first_ms = (time.perf_counter() - start) * 1000.0
    records = []
    for key, image in zip(keys, images, strict=True):
        preds, wall = _timed(read, image)
        records.append(_record(key, wall, {"text": round(wall, 2)}, preds))
    return first_ms, records


def _sequential_batch(records: Sequence[dict[str, Any]], batch: int) -> dict[str, Any]:
    """A peer has no batch mode: a list of images is a loop; its time is the sum of the single parses."""
    subset = records[:batch]
    return {"n": len(subset), "ms": round(sum(r["wall_ms"] for r in subset), 1), "mode": "loop"}


def omniparser_merge(ocr: Sequence[Pred], icons: Sequence[tuple[float, float, float, float]]) -> list[Pred]:
    """OmniParser v2's overlap removal, re-implemented from its published description.

    1. Between detector boxes: a pair overlaps when its IoU, or the share of either box covered by the
       other, exceeds 0.7; the larger box of an overlapping pair is dropped.
    2. A remaining icon that lies mostly (80 % of its area) inside an OCR text box is dropped: the text
       box stands for it. Otherwise the OCR boxes lying mostly inside the icon are absorbed by it: the
       icon takes their text and they leave the list.
    3. The result is the OCR boxes left plus the icons kept (text from what they absorbed, else none).
    """
    boxes = np.asarray(icons, dtype=np.float64).reshape(-1, 4)
    if len(boxes):
        # IoU or either box's share covered: the larger is intersection over the smaller area
        iou = geometry.iou_matrix(boxes, boxes)
        overlap = np.maximum(iou, geometry.intersection_over_smaller(boxes, boxes))
        np.fill_diagonal(overlap, 0.0)
        area = geometry.areas(boxes)
        larger = area[:, None] > area[None, :]
        boxes = boxes[~((overlap > OMNI_OVERLAP) & larger).any(axis=1)]
    ocr_boxes = np.asarray([p[:4] for p in ocr], dtype=np.float64).reshape(-1, 4)
    absorbed = np.zeros(len(ocr), dtype=bool)
    kept: list[Pred] = []
    if len(boxes) and len(ocr_boxes):
        icon_inside = geometry.containment(boxes, ocr_boxes) >= OMNI_INSIDE
        ocr_inside = geometry.containment(ocr_boxes, boxes).T >= OMNI_INSIDE
    for i, box in enumerate(boxes):
        x1, y1, x2, y2 = (
            int(np.floor(box[0])),
            int(np.floor(box[1])),
            int(np.ceil(box[2])),
            int(np.ceil(box[3])),
        )
        if x2 <= x1 or y2 <= y1:
            continue
        text: str | None = None
        if len(ocr_boxes):
            if icon_inside[i].any():
                continue
            inside = np.flatnonzero(ocr_inside[i] & ~absorbed)
            if len(inside):
                absorbed[inside] = True
                text = " ".join(str(ocr[int(j)][4]) for j in inside)
        kept.append((x1, y1, x2, y2, text))
    return [p for p, gone in zip(ocr, absorbed, strict=True) if not gone] + kept


def run_easyocr_omniparser(
    keys: Sequence[str], images: Sequence[RGB], batch: int, weights: str | None
) -> dict[str, Any]:
    """EasyOCR alone, then OmniParser's detector and merge on top of the same EasyOCR lines."""
    import easyocr
    import easyocr_en_models
    import torch

    cuda = torch.cuda.is_available()
    start = time.perf_counter()
    reader = easyocr.Reader(
        ["en"],
        gpu=cuda,
        model_storage_directory=str(easyocr_en_models.model_dir()),
        download_enabled=False,
        verbose=False,
    )

    def read(image: RGB) -> list[Pred]:
        results = reader.readtext(image, text_threshold=0.8, paragraph=False)
        preds = [quad_to_pred(q, t, image.shape[1], image.shape[0]) for q, t, _s in results]
        return [p for p in preds if p is not None]

    first_ms, easy_records = _ocr_records(read, keys, images, start)
    device = "cuda" if cuda else "cpu"
    out: dict[str, Any] = {
        "easyocr": {
            "images": easy_records,
            "first_call_ms": round(first_ms, 1),
            "batch": _sequential_batch(easy_records, batch),
            "peak_rss_mib": round(peak_rss_mib(), 1),
            "device": device,
            "models": {"text": "easyocr craft_mlt_25k + english_g2, text_threshold 0.8"},
        }
    }
    if cuda:
        out["easyocr"]["peak_gpu_mib"] = round(torch.cuda.max_memory_allocated() / 2**20, 1)
    if weights is None:
        return out
    out["omniparser"] = run_omniparser_detector(
        easy_records, images, batch, weights, cuda, first_ms, "easyocr, text_threshold 0.8"
    )
    if cuda:
        out["omniparser"]["peak_gpu_mib"] = round(torch.cuda.max_memory_allocated() / 2**20, 1)
    return out


def run_omniparser_detector(
    ocr_records: Sequence[dict[str, Any]],
    images: Sequence[RGB],
    batch: int,
    weights: str,
    cuda: bool,
    ocr_first_ms: float,
    ocr_name: str,
) -> dict[str, Any]:
    """OmniParser v2's icon detector and overlap removal on top of an OCR peer's lines (its records)."""
    os.environ.setdefault("YOLO_OFFLINE", "1")
    from ultralytics import YOLO  # imported here only: it patches PIL.Image.open

    start = time.perf_counter()
    model = YOLO(weights)

    def detect(image: RGB) -> list[tuple[float, float, float, float]]:
        result: Any = model.predict(
            source=Image.fromarray(image), conf=OMNI_CONF, iou=OMNI_NMS_IOU, verbose=False,
            device=0 if cuda else "cpu",
        )  # fmt: skip
        return [
            (float(b[0]), float(b[1]), float(b[2]), float(b[3])) for b in result[0].boxes.xyxy.cpu().numpy()
        ]

    detect(images[0])
    first_yolo_ms = (time.perf_counter() - start) * 1000.0
    omni_records = []
    for lines, image in zip(ocr_records, images, strict=True):
        icons, detect_ms = _timed(detect, image)
        ocr: list[Pred] = [(e[0], e[1], e[2], e[3], e[4]) for e in lines["elements"]]
        merged, merge_ms = _timed(omniparser_merge, ocr, icons)
        stages = {"text": lines["wall_ms"], "detect": round(detect_ms, 2), "merge": round(merge_ms, 2)}
        omni_records.append(_record(lines["key"], lines["wall_ms"] + detect_ms + merge_ms, stages, merged))
    return {
        "images": omni_records,
        "first_call_ms": round(ocr_first_ms + first_yolo_ms, 1),
        "batch": _sequential_batch(omni_records, batch),
        "peak_rss_mib": round(peak_rss_mib(), 1),
        "device": "cuda" if cuda else "cpu",
        "models": {"text": ocr_name, "detect": "OmniParser v2 icon_detect (YOLO11m)"},
    }


class ScreenImages(Sequence[RGB]):
    """The screens' images fitted to the size, each decoded and fitted when it is taken (outside the timed
    calls): the process holds the screens it is parsing, as a service holds its requests', rather than all
    of the set (15 screens at 1920x1080 are 90 MiB), so the peak RSS is the parser's own."""

    def __init__(self, paths: Sequence[str], size: tuple[int, int]) -> None:
        self.paths, self.size = list(paths), size

    def __len__(self) -> int:
        return len(self.paths)

    def load(self, index: int) -> RGB:
        with Image.open(self.paths[index]) as im:
            return fit_image(im, self.size)

    @overload
    def __getitem__(self, index: int) -> RGB: ...

    @overload
    def __getitem__(self, index: slice) -> list[RGB]: ...

    def __getitem__(self, index: int | slice) -> RGB | list[RGB]:
        if isinstance(index, slice):
            return [self.load(i) for i in range(len(self))[index]]
        return self.load(range(len(self))[index])


def main(argv: Sequence[str] | None = None) -> int:
    """Run the configuration in ``SPEC`` and write its measurements to ``OUT``."""
    spec_path, out_path = (argv if argv is not None else sys.argv[1:])[:2]
    spec = json.loads(Path(spec_path).read_text())
    size = (int(spec["size"][0]), int(spec["size"][1]))
    keys = [s["key"] for s in spec["screens"]]
    images = ScreenImages([s["image"] for s in spec["screens"]], size)
    parser, batch = spec["parser"], int(spec["batch"])
    if parser.startswith("profile:"):
        result = {parser: run_profile(parser.split(":", 1)[1], keys, images, batch)}
    elif parser == "rapidocr":
        result = run_rapidocr(keys, images, batch)
    elif parser == "rapidocr+omniparser":
        result = run_rapidocr(keys, images, batch, spec.get("weights"))
    elif parser == "easyocr+omniparser":
        result = run_easyocr_omniparser(keys, images, batch, spec.get("weights"))
    else:
        raise SystemExit(f"unknown parser {parser!r}")
    Path(out_path).write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
