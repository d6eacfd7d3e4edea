"""Train the reader on this CPU: cache the frozen trunk's features once, then train the top in minutes.

Steps: :func:`cache_features` runs the frozen trunk over every view of a split once (float16, saved next
to the views); :func:`train` trains the top with batches balanced over (type, state) pairs, so rare pairs
(a checked toggle, a disabled tab) recur. Every ``eval_every`` steps it scores the val split, writes the
metrics per type and per state (``metrics.jsonl``), and keeps ``last.pt`` and ``best.pt`` (by val type
accuracy + mean state accuracy). ``--hours`` bounds the run; ``--resume`` continues from ``last.pt`` (at
``--lr``); ``--cosine`` decays the learning rate to zero by the end of the time budget (or ``--max-steps``).

    python -m training.reader train data/reader --out runs/reader/r1 --hours 0.5
"""

from __future__ import annotations

import json
import math
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from detact_service.understanding.reader import STATES, TYPES
from training.reader.data import ViewSet
from training.reader.model import ReaderTop, build, checkpoint_state, normalise


def cache_features(trunk: nn.Module, views: ViewSet, path: Path, batch: int = 256) -> npt.NDArray[np.float16]:
    """The frozen trunk's output for every view (cached in ``path``; computed once)."""
    if path.is_file():
        cached: npt.NDArray[np.float16] = np.load(path)
        if len(cached) == len(views):
            return cached
    chunks = []
    with torch.inference_mode():
        for start in range(0, len(views), batch):
            chunk = torch.from_numpy(views.views[start : start + batch])
            chunks.append(trunk(normalise(chunk)).numpy().astype(np.float16))
    features = np.concatenate(chunks) if chunks else np.zeros((0, 96, 1, 1), np.float16)
    np.save(path, features)
    return features


@dataclass
class Scores:
    """Type accuracy and state accuracy over a split, overall and per type / state / source."""

    type_accuracy: float
    state_accuracy: dict[str, float]
    per_type: dict[str, dict[str, float]] = field(default_factory=dict)
    per_source: dict[str, float] = field(default_factory=dict)

    @property
    def objective(self) -> float:
        states = [v for v in self.state_accuracy.values() if not np.isnan(v)]
        return self.type_accuracy + (float(np.mean(states)) if states else 0.0)


def scores(
    type_pred: npt.NDArray[np.int64],
    state_prob: npt.NDArray[np.float32],
    views: ViewSet,
) -> Scores:
    """Accuracy of predicted types and states against ``views``' targets (states where labelled)."""
    types = views.types.astype(np.int64)
    correct = type_pred == types
    state_accuracy = {}
    for col, name in enumerate(STATES):
        labelled = views.states[:, col] >= 0
        hits = (state_prob[labelled, col] >= 0.5) == (views.states[labelled, col] == 1)
        state_accuracy[name] = float(hits.mean()) if labelled.any() else float("nan")
    per_type = {}
    for index, kind in enumerate(TYPES):
        mine = types == index
        predicted = type_pred == index
        if mine.any():
            per_type[kind.value] = {
                "n": int(mine.sum()),
                "recall": float(correct[mine].mean()),
                "precision": float(correct[predicted].mean()) if predicted.any() else 0.0,
            }
    per_source = {
        str(s): float(correct[views.sources == s].mean()) for s in sorted(set(views.sources.tolist()))
    }
    return Scores(float(correct.mean()) if len(correct) else 0.0, state_accuracy, per_type, per_source)


def predict(
    top: ReaderTop, features: npt.NDArray[np.float16], boxes: npt.NDArray[np.float32], batch: int = 512
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
    """Type indices and state probabilities of cached features."""
    top.eval()
    type_out, state_out = [], []
    with torch.inference_mode():
        for start in range(0, len(features), batch):
            t, s = top(
                torch.from_numpy(features[start : start + batch].astype(np.float32)),
                torch.from_numpy(boxes[start : start + batch]),
            )
            type_out.append(t.argmax(1).numpy())
            state_out.append(s.sigmoid().numpy())
    top.train()
    if not type_out:
        return np.zeros(0, np.int64), np.zeros((0, len(STATES)), np.float32)
    return np.concatenate(type_out), np.concatenate(state_out)


def reader_loss(
    type_logits: torch.Tensor, state_logits: torch.Tensor, types: torch.Tensor, states: torch.Tensor
) -> torch.Tensor:
    """Cross-entropy on the type (label smoothing 0.05) + BCE on the states that are labelled (>= 0)."""
    labelled = (states >= 0).float()
    type_loss = nn.functional.cross_entropy(type_logits, types, label_smoothing=0.05)
    state_loss = nn.functional.binary_cross_entropy_with_logits(
        state_logits, states.clamp(min=0), reduction="none"
    )
    return type_loss + (state_loss * labelled).sum() / labelled.sum().clamp(min=1)


def sample_weights(views: ViewSet, power: float) -> npt.NDArray[np.float64]:
    """Per-view sampling weight ``count(type, states) ** -power`` (rare pairs recur)."""
    keys = [f"{t}|{s.tobytes().hex()}" for t, s in zip(views.types.tolist(), views.states, strict=True)]
    counts = Counter(keys)
    weights = np.array([counts[k] ** -power for k in keys], dtype=np.float64)
    return weights / weights.sum()


def train(
    data: Path,
    out: Path,
    hours: float = 0.5,
    batch: int = 128,
    lr: float = 1e-3,
    power: float = 0.5,
    eval_every: int = 200,
    max_steps: int | None = None,
    resume: bool = False,
    pretrained: bool = True,
    threads: int = 2,
    seed: int = 0,
    cosine: bool = False,
) -> Scores:
    """Train the top on ``data/{train,val}.npz``; returns the best val scores."""
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    out.mkdir(parents=True, exist_ok=True)
    trunk, top = build(pretrained)
    train_views, val_views = ViewSet.load(data / "train.npz"), ViewSet.load(data / "val.npz")
    train_features = cache_features(trunk, train_views, data / "train.trunk.npy")
    val_features = cache_features(trunk, val_views, data / "val.trunk.npy")
    optimizer = torch.optim.AdamW(top.parameters(), lr=lr, weight_decay=1e-4)
    step, best = 0, -1.0
    if resume and (out / "last.pt").is_file():
        state: dict[str, Any] = torch.load(out / "last.pt", map_location="cpu", weights_only=False)
        top.load_state_dict(state["top"])
        optimizer.load_state_dict(state["optimizer"])
        step, best = state["step"], state["best"]
        for group in optimizer.param_groups:
            group["lr"] = lr
    weights = sample_weights(train_views, power)
    rng = np.random.default_rng(seed + step)
    started = time.monotonic()
    deadline = started + hours * 3600
    best_scores = None
    top.train()
    while time.monotonic() < deadline and (max_steps is None or step < max_steps):
        if cosine:
            done = (time.monotonic() - started) / max(deadline - started, 1e-9)
            if max_steps is not None:
                done = max(done, step / max_steps)
            for group in optimizer.param_groups:
                group["lr"] = lr * 0.5 * (1 + math.cos(math.pi * min(done, 1.0)))
        index = rng.choice(len(train_views), size=batch, p=weights)
        features = torch.from_numpy(train_features[index].astype(np.float32))
        boxes = torch.from_numpy(train_views.features[index])
        types = torch.from_numpy(train_views.types[index].astype(np.int64))
        states = torch.from_numpy(train_views.states[index].astype(np.float32))
        type_logits, state_logits = top(features, boxes)
        loss = reader_loss(type_logits, state_logits, types, states)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step += 1
        last = max_steps is not None and step >= max_steps
        if step % eval_every == 0 or last or time.monotonic() >= deadline:
            val = scores(*predict(top, val_features, val_views.features), val_views)
            record = {"step": step, "loss": float(loss.detach()), **val.__dict__}
            with (out / "metrics.jsonl").open("a") as handle:
                handle.write(json.dumps(record) + "\n")
            print(
                f"step {step} loss {float(loss.detach()):.3f} val type {val.type_accuracy:.3f}",
                val.state_accuracy,
                flush=True,
            )
            if val.objective > best:
                best, best_scores = val.objective, val
                torch.save(checkpoint_state(top, {"step": step}), out / "best.pt")
            torch.save(
                checkpoint_state(top, {"step": step, "best": best, "optimizer": optimizer.state_dict()}),
                out / "last.pt",
            )
    if best_scores is None:
        best_scores = scores(*predict(top, val_features, val_views.features), val_views)
    return best_scores
