"""Train the semi-masked Pix2Struct attribute model from scratch.

    python -m training.attributes train --data data/attributes-sm --out runs/attributes/s64 \\
        --size s --max-patches 64 --steps 6000 --batch 64 --device cpu|cuda [--resume]

Checkpoints (model, tokenizer, image processor, optimiser, step) go to ``OUT/last`` every
``--save-every`` steps, so an interrupted run continues with ``--resume``; the checkpoint with the best
validation type accuracy is kept in ``OUT/best``. Ship it with ``python -m training.attributes export``.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from PIL import Image

from detact_service.understanding.attribute_codec import decode_attributes
from training.attributes.data import Sample, balanced_batches, batches, read_samples
from training.attributes.model import image_processor, small_config, train_tokenizer


@dataclass
class TrainConfig:
    """Everything that defines a run (written to ``OUT/train_config.json``)."""

    data: str
    out: str
    size: str = "s"
    max_patches: int = 64
    steps: int = 6000
    batch: int = 64
    lr: float = 1e-3
    warmup: int = 300
    device: str = "cpu"
    workers: int = 2
    save_every: int = 250
    eval_every: int = 500
    eval_samples: int = 512
    vocab_size: int = 1024
    seed: int = 0
    max_target_tokens: int = 24
    text: bool = True
    """Train on the element's text too; ``False`` leaves the text field empty (OCR supplies text)."""
    balance: float = 0.0
    """Sample views with weight frequency**-balance of their (type, state) key; 0 is uniform."""
    threads: int = 0
    """Torch threads (0: torch's default)."""
    minutes: float = 0.0
    """Stop (evaluate, save) after this many minutes; 0: no limit (how a run fits a 10-minute device call)."""


class Encoder:
    """Images + targets -> model tensors (the image processor and tokenizer of one run)."""

    def __init__(self, folder: Path, processor: Any, tokenizer: Any, max_target_tokens: int) -> None:
        self.folder = folder
        self.processor = processor
        self.tokenizer = tokenizer
        self.max_target_tokens = max_target_tokens

    def images(self, samples: Sequence[Sample]) -> list[np.ndarray]:
        arrays = []
        for sample in samples:
            with Image.open(self.folder / sample.image) as opened:
                arrays.append(np.asarray(opened.convert("RGB")))
        return arrays

    def __call__(self, samples: Sequence[Sample]) -> dict[str, Any]:
        encoded = self.processor(images=self.images(samples), return_tensors="pt")
        labels = self.tokenizer(
            [s.target for s in samples],
            padding="longest",
            truncation=True,
            max_length=self.max_target_tokens,
            return_tensors="pt",
        ).input_ids
        labels[labels == self.tokenizer.pad_token_id] = -100
        return {
            "flattened_patches": encoded["flattened_patches"],
            "attention_mask": encoded["attention_mask"],
            "labels": labels,
        }


def _lr(step: int, config: TrainConfig, time_spent: float = 0.0) -> float:
    """Linear warm-up, then cosine decay to 0 by ``steps`` or, with a time budget, by its end if sooner.

    ``time_spent`` is the share of ``minutes`` used so far, so a time-boxed run ends with a decayed rate
    however many steps the machine manages.
    """
    if step < config.warmup:
        return config.lr * (step + 1) / config.warmup
    progress = max((step - config.warmup) / max(1, config.steps - config.warmup), time_spent)
    return config.lr * 0.5 * (1 + math.cos(math.pi * min(progress, 1.0)))


def generate(
    model: Any, encoder: Encoder, samples: Sequence[Sample], device: str, batch: int = 128
) -> list[str]:
    """Greedy decoding of ``samples``' views (the runtime stage decodes the same way)."""
    outputs: list[str] = []
    model.eval()
    with torch.inference_mode():
        for start in range(0, len(samples), batch):
            chunk = samples[start : start + batch]
            encoded = encoder.processor(images=encoder.images(chunk), return_tensors="pt")
            ids = model.generate(
                flattened_patches=encoded["flattened_patches"].to(device),
                attention_mask=encoded["attention_mask"].to(device),
                max_new_tokens=encoder.max_target_tokens,
                do_sample=False,
            )
            outputs += encoder.tokenizer.batch_decode(ids, skip_special_tokens=True)
    model.train()
    return outputs


def type_accuracy(samples: Sequence[Sample], outputs: Sequence[str]) -> float:
    """Share of views whose decoded type is the labelled one."""
    right = 0
    for sample, output in zip(samples, outputs, strict=True):
        decoded = decode_attributes(output)
        right += decoded is not None and decoded.type.value == sample.type
    return right / max(1, len(samples))


def save(out: Path, model: Any, tokenizer: Any, processor: Any, extra: dict[str, Any]) -> None:
    """A loadable model folder (safetensors + config + tokenizer + image processor) and ``state.json``."""
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    processor.save_pretrained(out)
    (out / "state.json").write_text(json.dumps(extra, indent=1) + "\n")


def train(config: TrainConfig, resume: bool = False) -> Path:
    """Run (or continue) training; returns the folder of the best checkpoint."""
    from transformers import (
        Pix2StructForConditionalGeneration,
        Pix2StructImageProcessor,
        PreTrainedTokenizerFast,
    )

    random.seed(config.seed)
    torch.manual_seed(config.seed)
    data, out = Path(config.data), Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "train_config.json").write_text(json.dumps(config.__dict__, indent=1) + "\n")
    if config.threads:
        torch.set_num_threads(config.threads)
    train_samples = read_samples(data, "train", with_text=config.text)
    val_all = read_samples(data, "val", with_text=config.text)
    # a seeded sample across all val templates (the file is ordered by source)
    val_samples = random.Random(config.seed).sample(val_all, min(config.eval_samples, len(val_all)))
    last, best = out / "last", out / "best"
    step, best_accuracy = 0, -1.0
    if resume and (last / "state.json").is_file():
        model = Pix2StructForConditionalGeneration.from_pretrained(last)
        tokenizer = PreTrainedTokenizerFast.from_pretrained(last)
        processor = Pix2StructImageProcessor.from_pretrained(last)
        state = json.loads((last / "state.json").read_text())
        step, best_accuracy = int(state["step"]), float(state.get("best_val_type_accuracy", -1.0))
    else:
        tokenizer = train_tokenizer((s.target for s in train_samples), config.vocab_size)
        model = Pix2StructForConditionalGeneration(
            small_config(len(tokenizer), config.size, config.max_patches)
        )
        processor = image_processor(config.max_patches)
    model.to(config.device).train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=0.01)
    if resume and (last / "optimizer.pt").is_file():
        optimizer.load_state_dict(torch.load(last / "optimizer.pt", map_location=config.device))
    encoder = Encoder(data, processor, tokenizer, config.max_target_tokens)
    loader = torch.utils.data.DataLoader(
        _BatchStream(train_samples, config.batch, config.seed + step, config.balance),
        batch_size=None,
        num_workers=config.workers,
        collate_fn=encoder,
        persistent_workers=config.workers > 0,
    )
    params = sum(p.numel() for p in model.parameters())
    print(f"{len(train_samples)} train views, {len(val_samples)} val views, {params / 1e6:.1f} M parameters")
    started, seen = time.perf_counter(), 0
    history = out / "loss.jsonl"
    deadline = started + 60 * config.minutes if config.minutes else math.inf
    for batch in loader:
        if step >= config.steps:
            break
        now = time.perf_counter()
        out_of_time = now >= deadline
        time_spent = (now - started) / (60 * config.minutes) if config.minutes else 0.0
        for group in optimizer.param_groups:
            group["lr"] = _lr(step, config, time_spent)
        batch = {k: v.to(config.device) for k, v in batch.items()}
        loss = model(**batch).loss
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        step += 1
        seen += config.batch
        with history.open("a") as log:
            log.write(json.dumps({"step": step, "loss": round(loss.item(), 5)}) + "\n")
        if step % 50 == 0:
            rate = seen / (time.perf_counter() - started)
            lr = optimizer.param_groups[0]["lr"]
            print(f"step {step} loss {loss.item():.4f} lr {lr:.2e} {rate:.0f} views/s", flush=True)
        if step % config.eval_every == 0 or step == config.steps or out_of_time:
            accuracy = type_accuracy(val_samples, generate(model, encoder, val_samples, config.device))
            print(f"step {step} val type accuracy {accuracy:.4f}", flush=True)
            if accuracy > best_accuracy:
                best_accuracy = accuracy
                save(best, model, tokenizer, processor, {"step": step, "val_type_accuracy": accuracy})
        if step % config.save_every == 0 or step == config.steps or out_of_time:
            save(last, model, tokenizer, processor, {"step": step, "best_val_type_accuracy": best_accuracy})
            torch.save(optimizer.state_dict(), last / "optimizer.pt")
        if out_of_time:
            print(f"stopped at step {step}: the {config.minutes:g}-minute budget is spent", flush=True)
            break
    if not best.is_dir():
        save(best, model, tokenizer, processor, {"step": step, "val_type_accuracy": best_accuracy})
    return best


class _BatchStream(torch.utils.data.IterableDataset):  # type: ignore[type-arg]
    """An iterable of sample batches for the DataLoader (workers each take every n-th batch)."""

    def __init__(self, samples: Sequence[Sample], size: int, seed: int, balance: float = 0.0) -> None:
        self.samples, self.size, self.seed, self.balance = samples, size, seed, balance

    def __iter__(self) -> Any:
        info = torch.utils.data.get_worker_info()
        worker, workers = (info.id, info.num_workers) if info else (0, 1)
        stream = (
            balanced_batches(self.samples, self.size, self.seed, self.balance)
            if self.balance
            else batches(self.samples, self.size, random.Random(self.seed))
        )
        for i, batch in enumerate(stream):
            if i % workers == worker:
                yield batch
