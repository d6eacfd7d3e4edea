"""RapidOCR backend: PP-OCR ONNX models shipped inside PyPI wheels, run by our own lean loop (CPU default).

Models (``DETACT_OCR__MODELS``), all read from files inside installed wheels, nothing downloaded:

- ``ppocrv6-small`` (default): PP-OCRv6 small detection and recognition from the ``rapidocr`` 3.x wheel
  (Apache-2.0). Its recogniser keeps the spaces between English words.
- ``ppocrv4``: PP-OCRv4 mobile detection and recognition from the ``rapidocr-onnxruntime`` 1.x wheel
  (what the service used before; the recogniser drops many spaces between English words).

The loop (chosen by measurement, ``python -m bench.ocr``, numbers in ``docs/OCR.md``):

1. Detection once on the screenshot scaled so its long side is at most ``DETACT_OCR__DET_MAX_SIDE`` (small
   screenshots are enlarged until the short side reaches :data:`DET_MIN_SIDE`; PaddleOCR's 736 read
   MiniWoB++ no better and cost 1.8x the time; a landscape screenshot wider than 1920 px is shrunk at most
   ``DETACT_OCR__DET_MAX_SHRINK`` times, a phone-shaped one at most at ``DETACT_OCR__DET_MAX_SIDE_PHONE``:
   :func:`detection_side`), DB post-processing from the ``rapidocr`` package. ``ppocrv6-small`` detects
   with the copy of its detector in ``models/`` whose subnormal weights are zero (manifest entry
   ``ppocrv6-det-small``, ``python -m training.quantize ocr-det``): the same output, 3.4x faster on an
   Intel CPU.
2. No angle classifier (screens have no upside-down text).
3. Each detected line is split at wide blank gaps and colour changes of its ink (menu bars, links:
   :func:`~detact_service.detectors.ocr_base.ink_spans`) *before* recognition, so every crop is read once
   (the old backend read a split line whole and then again piece by piece). Only a crop read as CJK words
   without prose punctuation is read again, cut at narrower gaps into its items (a Chinese nav bar:
   :meth:`RapidOCRStage._split_cjk_bars`).
4. Recognition of all crops sorted by width, each padded to the next rung of a geometric width ladder
   (:func:`rec_bucket`, at most 15% padding) and batched only with crops of its rung, so a crop's text
   depends on its pixels alone (what lets a re-parse read only the changed crops); CTC greedy decoding
   in NumPy.
5. ONNX Runtime sessions with full graph optimisation, ``DETACT_OCR__THREADS`` intra-op threads (0 = the
   cores this process may use) that do not spin while idle, and one inter-op thread. The recognition
   batches are shared among ``DETACT_OCR__REC_WORKERS`` threads (longest first, to the least loaded),
   each with its share of those threads: one single-threaded call per core keeps both cores of a small
   CPU busier than one call on two threads (:func:`split_work`).
6. On a CPU whose bfloat16 pays (``DETACT_OCR__RUNTIME=auto``, the default; :func:`~detact_service.models.
   bf16_recogniser_pays`), OpenVINO runs the recogniser in bfloat16, one crop a call on a stream per
   worker: the same texts on the labelled sets, about 1.5x less recognition time
   (:class:`~detact_service.models.OpenVinoSession`).

With ``DETACT_OCR__INT8=true`` (off by default), ``ppocrv6-small`` recognises with the int8 copy of its
recogniser shipped in ``models/`` (manifest entry ``ppocrv6-rec-small-int8``, made by ``python -m
training.quantize ocr-rec``: static QDQ, per-channel weights). It takes 2.1x less CPU and reads the
rendered test screens as fp32 does, but drops some spaces between words on real desktop JPEGs, hence
opt-in (``docs/OCR.md``). When that file or entry is absent, or on CUDA, the wheel's fp32 one is used.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from detact_service.core import PHONE_ASPECT, PHONE_MAX_WIDTH
from detact_service.detectors.ocr_base import (
    CJK_ITEM_GAP,
    OcrStage,
    TextLine,
    ink_spans,
    is_cjk_bar,
    is_cjk_text,
    rejoin_items,
)
from detact_service.models import (
    ModelSpec,
    OpenVinoSession,
    onnx_session,
    openvino_bf16_native,
    openvino_bf16_pays,
    optional_model_spec,
    ort_threads,
    resolve_device,
)
from detact_service.reparse import Changes, TextMemo, box_fingerprints
from detact_service.settings import Settings
from detact_service.stages import RGBImage, StageUnavailable, cached_model, register

DET_MIN_SIDE = 480  # small screenshots are enlarged until their short side is this long (PaddleOCR: 736)
REC_HEIGHT = 48
REC_MIN_WIDTH = 0  # PaddleOCR pads every batch to at least 320 px: measured no better here, only slower
REC_BATCH = 16  # crops per recognition call at most
REC_BATCH_WIDTH = 4096  # padded pixels of width per call at most: the arena keeps the largest call's memory
TIGHT_CROPS = True
REC_BUCKET_RATIO = 1.15  # crops are padded to the next width of a geometric ladder (16 px, x1.15, ...)
DET_LARGE_SIDE = 1.5  # a large screenshot's detection side is at most this many times det_max_side


def detection_side(height: int, width: int, max_side: int, max_shrink: float, phone_side: int = 0) -> int:
    """The long side text detection reads a screenshot at: ``max_side``, but a landscape screenshot more
    than ``max_shrink`` times wider is shrunk only ``max_shrink`` times, up to ``DET_LARGE_SIDE`` x
    ``max_side``, and a phone-shaped one (:func:`is_phone_text`) at most ``phone_side`` (0 = off).

    Phone text is drawn at 2-3.5 device pixels per point: on the ``phone_real`` val and test apps, 960
    px found every word 1280 did for 0.74x the text stage's CPU (docs/OCR.md).

    Real desktop text (six ScreenAgent desktops at 100 % on a 2560x1440 screen) lost 115 of its 422 lines
    at 1280 px; at 1707 px (the default 1.5) 40, at 1920 none; on a 3840x2160 screen 1280 px found 4 of
    a desktop's 41 lines (docs/OCR.md). Screens up to 1920 px wide are read at ``max_side``, and portrait
    ones never larger: a portrait screenshot that long and not tiled is a high-density phone or tablet,
    its text large.
    """
    if phone_side > 0 and is_phone_text(height, width):
        return min(max_side, phone_side)
    if max_shrink <= 0 or height > width:
        return max_side
    return max(max_side, min(round(DET_LARGE_SIDE * max_side), math.ceil(width / max_shrink)))


def is_phone_text(height: int, width: int) -> bool:
    """A phone-shaped screenshot (as the detector's phone rule: :data:`~detact_service.core.PHONE_ASPECT`)
    no wider than a phone's (:data:`~detact_service.core.PHONE_MAX_WIDTH`): a portrait desktop page keeps
    ``det_max_side``."""
    return height >= PHONE_ASPECT * width and width < PHONE_MAX_WIDTH


def rec_bucket(width: int) -> int:
    """The padded width of a crop resized to ``width``: the next rung of a geometric ladder (multiple of 8).

    A crop is batched only with crops of its rung, so its model input (its pixels, zero padding to the
    rung) and hence its text do not depend on the other crops of the screen: a re-parse that reads only
    the changed crops reads them as a full parse does.
    """
    steps = math.ceil(math.log(max(width, 16) / 16, REC_BUCKET_RATIO) - 1e-9)
    return max(8 * math.ceil(16 * REC_BUCKET_RATIO**steps / 8), 8 * math.ceil(width / 8))


@dataclass(frozen=True)
class ModelSet:
    """Detection and recognition ONNX files inside an installed package."""

    name: str
    package: str
    det: str
    rec: str
    version: str
    rec_int8: str | None = None  # manifest entry (kind ``ocr-rec``) of an int8 copy of ``rec``
    # manifest entry (kind ``ocr-det``) of ``det`` with subnormal weights at zero, used instead when present
    det_flushed: str | None = None
    openvino: bool = False  # measured on OpenVINO (bfloat16 recognition): DETACT_OCR__RUNTIME may pick it

    def path(self, file: str) -> Path:
        spec = find_spec(self.package)
        if spec is None or not spec.submodule_search_locations:
            raise StageUnavailable(f"OCR models {self.name!r} need the {self.package!r} package installed")
        path = Path(next(iter(spec.submodule_search_locations))) / "models" / file
        if not path.is_file():
            raise StageUnavailable(f"{path} is missing from the {self.package!r} package")
        return path


MODEL_SETS = {
    m.name: m
    for m in (
        ModelSet(
            "ppocrv6-small",
            "rapidocr",
            "PP-OCRv6_det_small.onnx",
            "PP-OCRv6_rec_small.onnx",
            "rapidocr:ppocrv6-small",
            rec_int8="ppocrv6-rec-small-int8",
            det_flushed="ppocrv6-det-small",
            openvino=True,
        ),
        ModelSet(
            "ppocrv4",
            "rapidocr_onnxruntime",
            "ch_PP-OCRv4_det_infer.onnx",
            "ch_PP-OCRv4_rec_infer.onnx",
            "rapidocr:ppocrv4",
        ),
    )
}


@dataclass
class OcrProfile:
    """Where one :meth:`RapidOCRStage.read` spent its time (ms) and how many model calls it made."""

    det_pre_ms: float = 0.0
    det_model_ms: float = 0.0
    det_post_ms: float = 0.0
    split_ms: float = 0.0
    rec_pre_ms: float = 0.0
    rec_model_ms: float = 0.0
    rec_decode_ms: float = 0.0
    det_calls: int = 0
    rec_calls: int = 0
    lines: int = 0
    crops: int = 0
    reread_crops: int = 0  # crops read a second time: none in this loop (the old backend re-read splits)
    copied_crops: int = 0  # crops that repeat another's pixels exactly, given its text unread
    det_size: tuple[int, int] = (0, 0)
    rec_widths: list[int] = field(default_factory=list)


class PaddleOcrEngine:
    """PP-OCR detection + recognition sessions and the pre/post-processing around them."""

    def __init__(
        self,
        models: ModelSet,
        threads: int,
        use_cuda: bool,
        rec: Path | None = None,
        rec_workers: int = 1,
        openvino: bool = False,
        det: Path | None = None,
    ) -> None:
        from rapidocr.ch_ppocr_det.utils import DBPostProcess

        self.det = onnx_session(det or models.path(models.det), threads, use_cuda)
        workers = 1 if use_cuda else max(1, min(rec_workers, ort_threads(threads)))
        rec_path = rec or models.path(models.rec)
        self.rec_batch = REC_BATCH
        if openvino:
            # bfloat16 reads MiniWoB++, the dense dashboard and the data engine's texts as float32 does
            # (docs/OCR.md). One compiled model runs the workers' calls as streams, a thread each, one crop
            # a call: as fast as batches, and OpenVINO keeps a compiled plan per input shape, so batches of
            # every size held 900 MiB more than the 31 widths of one crop.
            shared = OpenVinoSession(rec_path, threads, streams=workers, bf16=openvino_bf16_native())
            self.recs: list[Any] = [shared] * workers
            self.rec_batch = 1
        else:
            share = max(1, ort_threads(threads) // workers)
            # One single-threaded session runs on each worker's own thread when called from several at
            # once (ONNX Runtime's run is thread-safe): 100 MiB less than a session each. With more
            # threads to share, each worker needs a session whose thread pool is its own.
            sessions = 1 if share == 1 else workers
            made = [onnx_session(rec_path, share, use_cuda, arena=True) for _ in range(sessions)]
            self.recs = [made[worker % sessions] for worker in range(workers)]
        self.pool = ThreadPoolExecutor(workers - 1, "rec") if workers > 1 else None
        meta = self.recs[0].get_modelmeta().custom_metadata_map
        self.characters = np.asarray(["", *meta["character"].splitlines(), " "], dtype=object)
        self.post = DBPostProcess(
            thresh=0.3,
            box_thresh=0.5,
            max_candidates=1000,
            unclip_ratio=1.6,
            use_dilation=True,
            score_mode="fast",
        )

    def detect(
        self, bgr: npt.NDArray[np.uint8], max_side: int, profile: OcrProfile
    ) -> list[npt.NDArray[np.float64]]:
        """Text line quads ((4, 2), image pixels), top to bottom then left to right."""
        start = time.perf_counter()
        height, width = bgr.shape[:2]
        scale = min(max(1.0, DET_MIN_SIDE / min(height, width)), max_side / max(height, width))
        new_h = max(32, round(height * scale / 32) * 32)
        new_w = max(32, round(width * scale / 32) * 32)
        resized = cv2.resize(
            bgr, (new_w, new_h), interpolation=cv2.INTER_LINEAR if scale > 1 else cv2.INTER_AREA
        )
        blob = cv2.dnn.blobFromImage(resized, 1 / 127.5, (new_w, new_h), (127.5, 127.5, 127.5))
        mark = time.perf_counter()
        profile.det_pre_ms += (mark - start) * 1000
        pred = self.det.run(None, {self.det.get_inputs()[0].name: blob})[0]
        profile.det_calls += 1
        profile.det_size = (new_w, new_h)
        start = time.perf_counter()
        profile.det_model_ms += (start - mark) * 1000
        boxes, _ = self.post(pred, (height, width))
        quads = [np.asarray(b, dtype=np.float64) for b in boxes]
        quads.sort(key=lambda q: (round(q[:, 1].min() / 10), q[:, 0].min()))
        profile.det_post_ms += (time.perf_counter() - start) * 1000
        return quads

    def recognise(
        self, crops: Sequence[npt.NDArray[np.uint8]], profile: OcrProfile
    ) -> list[tuple[str, float]]:
        """Text and confidence of each single-line BGR crop, read in width-sorted batches."""
        start = time.perf_counter()
        resized: list[npt.NDArray[Any]] = []
        for crop in crops:
            h, w = crop.shape[:2]
            new_w = max(1, min(math.ceil(REC_HEIGHT * w / max(h, 1)), 48 * REC_HEIGHT))
            resized.append(cv2.resize(crop, (new_w, REC_HEIGHT), interpolation=cv2.INTER_LINEAR))
        rungs = [max(rec_bucket(image.shape[1]), REC_MIN_WIDTH) for image in resized]
        order = sorted(range(len(crops)), key=lambda i: (rungs[i], i))
        batches: list[list[int]] = []
        for i in order:
            if (
                batches
                and rungs[batches[-1][0]] == rungs[i]
                and len(batches[-1]) < min(self.rec_batch, max(1, REC_BATCH_WIDTH // rungs[i]))
            ):
                batches[-1].append(i)
            else:
                batches.append([i])
        out: list[tuple[str, float]] = [("", 0.0)] * len(crops)
        profile.rec_pre_ms += (time.perf_counter() - start) * 1000
        costs = [len(batch) * rungs[batch[0]] for batch in batches]
        shares = split_work(costs, len(self.recs))
        if self.pool is None or len(batches) < 2:
            parts = [self.read_batches(self.recs[0], batches, resized, rungs, out)]
        else:  # the first share on this thread, the others beside it
            futures = [
                self.pool.submit(self.read_batches, session, [batches[b] for b in share], resized, rungs, out)
                for session, share in zip(self.recs[1:], shares[1:], strict=True)
            ]
            parts = [self.read_batches(self.recs[0], [batches[b] for b in shares[0]], resized, rungs, out)]
            parts += [future.result() for future in futures]
        for part in parts:
            profile.rec_pre_ms += part.rec_pre_ms
            profile.rec_model_ms += part.rec_model_ms
            profile.rec_decode_ms += part.rec_decode_ms
            profile.rec_calls += part.rec_calls
            profile.rec_widths.extend(part.rec_widths)
        return out

    def read_batches(
        self,
        session: Any,
        batches: Sequence[Sequence[int]],
        resized: Sequence[npt.NDArray[Any]],
        rungs: Sequence[int],
        out: list[tuple[str, float]],
    ) -> OcrProfile:
        """Read ``batches`` (crop indices of one rung each) with one session into ``out``; its time."""
        profile = OcrProfile()
        name = session.get_inputs()[0].name
        for batch in batches:
            start = time.perf_counter()
            width = rungs[batch[0]]
            blob = np.zeros((len(batch), 3, REC_HEIGHT, width), dtype=np.float32)
            for row, i in enumerate(batch):
                image = resized[i]
                blob[row, :, :, : image.shape[1]] = image.transpose(2, 0, 1).astype(np.float32) / 127.5 - 1.0
            mark = time.perf_counter()
            profile.rec_pre_ms += (mark - start) * 1000
            preds = session.run(None, {name: blob})[0]
            profile.rec_calls += 1
            profile.rec_widths.append(width)
            start = time.perf_counter()
            profile.rec_model_ms += (start - mark) * 1000
            for row, i in enumerate(batch):
                out[i] = self.decode(preds[row])
            profile.rec_decode_ms += (time.perf_counter() - start) * 1000
        return profile

    def decode(self, probs: npt.NDArray[np.float32]) -> tuple[str, float]:
        """CTC greedy decoding of one crop's (time, classes) probabilities."""
        index = probs.argmax(axis=1)
        keep = index != 0
        keep[1:] &= index[1:] != index[:-1]
        if not keep.any():
            return "", 0.0
        text = "".join(self.characters[index[keep]])
        return text, float(probs[np.flatnonzero(keep), index[keep]].mean())


def split_work(costs: Sequence[int], workers: int) -> list[list[int]]:
    """Indices of ``costs`` shared among ``workers``, each in its given order: the costliest first, each to
    the least loaded worker (longest-processing-time first)."""
    shares: list[list[int]] = [[] for _ in range(workers)]
    loads = [0] * workers
    for index in sorted(range(len(costs)), key=lambda i: -costs[i]):
        least = loads.index(min(loads))
        shares[least].append(index)
        loads[least] += costs[index]
    return [sorted(share) for share in shares]


def distinct_crops(
    boxes: npt.NDArray[np.int64], prints: npt.NDArray[np.uint64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(the crops to read: one of each set of pixel-identical crops, for each crop the position of its
    copy among them). A crop's text depends on its pixels alone (:func:`rec_bucket`), so a table's
    repeated ``Paid`` or ``2024-05-01`` is read once; measured on the rendered dense dashboard: 265 of
    306 crops, 9 % of the recognition width. JPEG screenshots repeat no crop exactly."""
    if not len(boxes):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    keys = np.stack([prints.view(np.int64), boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]], axis=1)
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first)  # the kept crops in their screen order
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return first[order].astype(np.int64), rank[inverse.reshape(-1)].astype(np.int64)


@register("text", "rapidocr")
class RapidOCRStage(OcrStage):
    """Fast OCR: PP-OCRv6 small ONNX models in a lean loop (see the module docstring)."""

    requires = ("rapidocr",)

    @classmethod
    def available(cls, settings: Settings) -> str | None:
        package = MODEL_SETS[settings.ocr.models].package
        if find_spec(package) is None:
            return f"OCR models {settings.ocr.models!r} need the {package!r} package installed"
        return None

    def load(self) -> Any:
        return self._engine()

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.last_profile = OcrProfile()

    def models(self) -> ModelSet:
        return MODEL_SETS[self.settings.ocr.models]

    def rec_int8(self) -> ModelSpec | None:
        """The shipped int8 recogniser to use (its file and version tag), or None for the fp32 one: when
        ``DETACT_OCR__INT8`` is off, on CUDA, or when the manifest entry or its file is absent."""
        models = self.models()
        if not (self.settings.ocr.int8 and models.rec_int8) or resolve_device(self.settings) == "cuda":
            return None
        return optional_model_spec(self.settings.models_dir, "ocr-rec", models.rec_int8)

    def det_flushed(self) -> ModelSpec | None:
        """The shipped copy of the text detector with its subnormal weights at zero (the same output, 3.4x
        faster on an Intel CPU: docs/OCR.md), or None for the wheel's file when the manifest lists none."""
        models = self.models()
        if not models.det_flushed:
            return None
        return optional_model_spec(self.settings.models_dir, "ocr-det", models.det_flushed)

    def openvino(self) -> bool:
        """Whether the recogniser runs on OpenVINO (``DETACT_OCR__RUNTIME``; never on CUDA, nor for models
        or an int8 recogniser measured on ONNX Runtime only)."""
        runtime = self.settings.ocr.runtime
        if runtime == "onnxruntime" or resolve_device(self.settings) == "cuda":
            return False
        if self.rec_int8() or not self.models().openvino:
            return False
        if runtime == "auto":
            return openvino_bf16_pays()
        if find_spec("openvino") is None:
            raise StageUnavailable("DETACT_OCR__RUNTIME=openvino needs the 'openvino' package installed")
        return True

    def _engine(self) -> PaddleOcrEngine:
        use_cuda = resolve_device(self.settings) == "cuda"
        models, threads = self.models(), self.settings.ocr.threads
        int8, openvino, det = self.rec_int8(), self.openvino(), self.det_flushed()

        def load() -> PaddleOcrEngine:
            for spec in (int8, det):
                if spec is not None:
                    spec.verify()  # the file is the one the manifest measured
            rec, det_path = (int8.path if int8 else None), (det.path if det else None)
            return PaddleOcrEngine(models, threads, use_cuda, rec, workers, openvino, det_path)

        workers = self.settings.ocr.rec_workers
        key = (
            "rapidocr",
            models.name,
            threads,
            use_cuda,
            str(int8 and int8.path),
            workers,
            openvino,
            str(det and det.path),
        )
        return cached_model(key, load)

    def read(self, image: RGBImage) -> list[TextLine]:
        return self._read(image, None, None, memo=False)[0]

    def read_boxes(self, image: RGBImage, boxes: npt.NDArray[np.int64]) -> list[tuple[str, float]]:
        """Each box read as one line by the recogniser alone, in width-sorted batches (no detection)."""
        if not len(boxes):
            return []
        bgr = image[..., ::-1]
        crops = [np.ascontiguousarray(bgr[y1:y2, x1:x2]) for x1, y1, x2, y2 in boxes.tolist()]
        return self._engine().recognise(crops, OcrProfile())

    def read_reusing(
        self, image: RGBImage, previous: object | None, changes: Changes | None
    ) -> tuple[list[TextLine], TextMemo]:
        """Detect on the whole image; recognise only the crops ``previous`` (a :class:`TextMemo`) did not
        read with the same pixels at the same place, and take its text for the others (a crop's text
        depends on its pixels alone: :func:`rec_bucket`)."""
        lines, memo = self._read(image, previous, changes, memo=True)
        assert memo is not None
        return lines, memo

    def _read(
        self, image: RGBImage, previous: object | None, changes: Changes | None, *, memo: bool
    ) -> tuple[list[TextLine], TextMemo | None]:
        profile = OcrProfile()
        engine = self._engine()
        bgr = np.ascontiguousarray(image[..., ::-1])
        ocr = self.settings.ocr
        side = detection_side(
            bgr.shape[0], bgr.shape[1], ocr.det_max_side, ocr.det_max_shrink, ocr.det_max_side_phone
        )
        quads = engine.detect(bgr, side, profile)
        start = time.perf_counter()
        boxes, line_quads, line_of = self._crops(image, quads)
        profile.split_ms += (time.perf_counter() - start) * 1000
        profile.lines, profile.crops = len(quads), len(boxes)
        prints = box_fingerprints(image, boxes)
        same = np.full(len(boxes), -1, dtype=np.int64)
        reuse = isinstance(previous, TextMemo) and changes is not None and previous.size == image.shape[:2]
        if reuse and isinstance(previous, TextMemo) and changes is not None:
            same = previous.match(boxes, prints, changes)
        todo = np.flatnonzero(same < 0)
        unique, copy_of = distinct_crops(boxes[todo], prints[todo])
        profile.copied_crops = len(todo) - len(unique)
        read_unique = engine.recognise([bgr[y1:y2, x1:x2] for x1, y1, x2, y2 in boxes[todo][unique]], profile)
        read = [read_unique[i] for i in copy_of.tolist()]
        words = np.full(len(boxes), "", dtype=object)
        scores = np.zeros(len(boxes), dtype=np.float64)
        copied = np.flatnonzero(same >= 0)
        if isinstance(previous, TextMemo) and len(copied):
            words[copied] = np.asarray(previous.texts, dtype=object)[same[copied]]
            scores[copied] = previous.scores[same[copied]]
        if len(todo):
            words[todo] = [text for text, _ in read]
            scores[todo] = [score for _, score in read]
        crops: list[TextLine] = [
            (quad, str(text), float(score))
            for quad, text, score in zip(line_quads, words, scores, strict=True)
        ]
        crops, crop_lines = self._split_cjk_bars(engine, image, bgr, boxes, crops, line_of, profile)
        lines = rejoin_items(crops, crop_lines)
        self.last_profile = profile
        if not memo:
            return lines, None
        texts = tuple(str(w) for w in words)
        size = (image.shape[0], image.shape[1])
        return lines, TextMemo(boxes, prints, texts, scores, size=size, reused=len(copied))

    @staticmethod
    def _split_cjk_bars(
        engine: PaddleOcrEngine,
        image: RGBImage,
        bgr: RGBImage,
        boxes: npt.NDArray[np.int64],
        crops: list[TextLine],
        line_of: npt.NDArray[np.int64],
        profile: OcrProfile,
    ) -> tuple[list[TextLine], npt.NDArray[np.int64]]:
        """``crops`` with each read as CJK words (:func:`is_cjk_bar`) cut at its blank gaps over
        :data:`CJK_ITEM_GAP` line heights and its items read one by one: a nav bar whose gaps are narrower
        than a menu's (``首页 番剧 直播 游戏中心``) comes out item by item, as a menu bar does. The cut
        stands only when the items read the same letters as the whole and each is CJK words (a title's
        `` - `` or `` : ``, a link's ``>`` keep the line whole). The pieces are read on every parse, so a
        re-parse gives what a parse gives."""
        cuts: dict[int, list[tuple[int, int]]] = {}
        for index, (_, text, _) in enumerate(crops):
            if is_cjk_bar(text):
                x1, y1, x2, y2 = boxes[index].tolist()
                quad = np.asarray([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], dtype=np.float64)
                spans = ink_spans(image, quad, gap=CJK_ITEM_GAP)
                if len(spans) > 1:
                    cuts[index] = spans
        if not cuts:
            return crops, line_of
        pieces = [
            bgr[int(boxes[i, 1]) : int(boxes[i, 3]), a:b] for i, spans in cuts.items() for a, b in spans
        ]
        read = iter(engine.recognise(pieces, profile))
        out: list[TextLine] = []
        out_lines: list[int] = []
        for index, (crop, line) in enumerate(zip(crops, line_of.tolist(), strict=True)):
            if index not in cuts:
                out.append(crop)
                out_lines.append(line)
                continue
            _, y1, _, y2 = boxes[index].tolist()
            items = [
                (np.asarray([[a, y1], [b, y1], [b, y2], [a, y2]], dtype=np.float64), *next(read))
                for a, b in cuts[index]
            ]
            texts = [text for _, text, _ in items]
            same = "".join(texts).replace(" ", "") == crop[1].replace(" ", "")
            if same and all(is_cjk_text(text) for text in texts):
                out.extend((quad, text.strip(), score) for quad, text, score in items)
                out_lines.extend([line] * len(items))
            else:
                out.append(crop)
                out_lines.append(line)
        return out, np.asarray(out_lines, dtype=np.int64)

    @staticmethod
    def _crops(
        image: RGBImage, quads: Sequence[npt.NDArray[np.float64]]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.int64]]:
        """The recognition crops of detected lines (a line split into items at wide gaps and colour
        changes: :func:`ink_spans`), each crop's quad (the detected one when the line is not split) and
        the index of its detected line."""
        height, width = image.shape[:2]
        boxes: list[tuple[int, int, int, int]] = []
        line_quads: list[npt.NDArray[np.float64]] = []
        line_of: list[int] = []
        for index, quad in enumerate(quads):
            spans = ink_spans(image, quad)
            x1, y1 = np.clip(np.floor(quad.min(axis=0)).astype(int), 0, [width, height])
            x2, y2 = np.clip(np.ceil(quad.max(axis=0)).astype(int), 0, [width, height])
            if x2 - x1 < 2 or y2 - y1 < 2:
                continue
            if len(spans) < 2:  # read the ink's extent: less blank to pay for in recognition
                a, b = spans[0] if TIGHT_CROPS else (int(x1), int(x2))
                boxes.append((a, int(y1), b, int(y2)))
                line_quads.append(np.asarray(quad, dtype=np.float64))
                line_of.append(index)
            else:
                for a, b in spans:
                    boxes.append((a, int(y1), b, int(y2)))
                    line_quads.append(np.asarray([[a, y1], [b, y1], [b, y2], [a, y2]], dtype=np.float64))
                    line_of.append(index)
        box_array = np.asarray(boxes, dtype=np.int64).reshape(-1, 4)
        quad_array = np.asarray(line_quads, dtype=np.float64).reshape(-1, 4, 2)
        return box_array, quad_array, np.asarray(line_of, dtype=np.int64)

    def model_version(self) -> str | None:
        int8 = self.rec_int8()
        runtime = "+openvino" + ("-bf16" if openvino_bf16_native() else "") if self.openvino() else ""
        return self.models().version + (f"+{int8.version_tag()}" if int8 else "") + runtime
