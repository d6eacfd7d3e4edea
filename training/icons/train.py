"""Train the icon classifier on CPU: fresh augmented crops of the training sets every epoch.

python -m training.icons train --out runs/icons/r2
"""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from training.icons.data import (
    LOOKALIKE,
    MAX_VOCAB,
    build_vocabulary,
    clutter_mask,
    drop_lookalikes,
    epoch_indices,
    labels_for,
    load_glyphs,
    make_frames,
    merged_meanings,
    save_vocabulary,
    split_sets,
)
from training.icons.model import build
from training.icons.sources import SETS_BY_ID


def train(
    out: Path,
    epochs: int = 8,
    per_class: int = 160,
    unknown: int = 8000,
    clutter: int = 3000,
    batch: int = 256,
    lr: float = 2e-3,
    seed: int = 0,
    threads: int = 1,
    minutes: float = 30.0,
    lookalike: float = 1.0,
    width: int = 32,
    max_vocab: int = MAX_VOCAB,
    vocab_file: Path | None = None,
    all_unknowns: bool = False,
    fold_aliases: bool = False,
    arch: str = "small",
    trunk_lr_scale: float = 0.5,
) -> Path:
    """Train, saving ``out/last.pt`` (weights + classes) after each epoch; returns its path.

    ``vocab_file``: an earlier run's ``vocab.json``, whose classes and common meanings are kept (so that
    runs on other sets compare on the same meanings); otherwise they are built from the sets.
    ``all_unknowns``: the out-of-vocabulary glyphs of sets that do not teach ``unknown`` by default
    (``IconSet.teaches_unknown``) teach it too, but for those drawn like a vocabulary glyph.
    ``fold_aliases``: the vocabulary's aliases (one meaning under two names) are taught as one class.
    ``arch``: ``small`` (from scratch) or ``mobilenet`` (ImageNet weights; its trunk at ``trunk_lr_scale``
    times the rate).
    """
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    train_sets, held_sets = split_sets()
    glyphs = load_glyphs([s for s in train_sets if s.split == "train"])
    held = load_glyphs(held_sets)
    if vocab_file is not None:
        fixed = json.loads(vocab_file.read_text("utf-8"))
        aliases: dict[str, str] = fixed.get("aliases", {}) if fold_aliases else {}
        meanings, _ = merged_meanings(fixed["classes"], aliases)
        vocab, common = meanings[1:], list(dict.fromkeys(aliases.get(c, c) for c in fixed["common"]))
        glyphs = replace(glyphs, names=[aliases.get(name, name) for name in glyphs.names])
    else:
        vocab, common = build_vocabulary(glyphs, held, max_vocab)
    classes = ["unknown", *vocab]
    out.mkdir(parents=True, exist_ok=True)
    save_vocabulary(out / "vocab.json", vocab, common, sorted(set(glyphs.sets)), sorted(set(held.sets)))
    labels = labels_for(glyphs, vocab)
    silent = np.array([not SETS_BY_ID[set_id].teaches_unknown for set_id in glyphs.sets])
    if all_unknowns:  # their names were not read: leave out those drawn like a meaning (a gear as "setting")
        screened = drop_lookalikes(glyphs, labels, LOOKALIKE)
        labels[silent] = screened[silent]
    else:
        labels[(labels == 0) & silent] = -1
    if lookalike < 1.0:
        before = int((labels == 0).sum())
        labels = drop_lookalikes(glyphs, labels, lookalike)
        print(
            f"{before - int((labels == 0).sum())} unknown glyphs drawn like a meaning's left out", flush=True
        )
    print(
        f"{len(glyphs.names)} training glyphs, {len(vocab)} meanings, "
        f"{int((labels > 0).sum())} in vocabulary, {int((labels == 0).sum())} unknown, "
        f"{int((labels < 0).sum())} left out (related to a meaning)",
        flush=True,
    )
    model = build(len(classes), arch, width, pretrained=True)
    in_trunk = {
        name: arch == "mobilenet" and name.startswith("features.") for name, _ in model.named_parameters()
    }
    groups: list[dict[str, Any]] = [
        {"params": [p for name, p in model.named_parameters() if not in_trunk[name]], "lr": lr}
    ]
    if any(in_trunk.values()):
        trunk = [p for name, p in model.named_parameters() if in_trunk[name]]
        groups.append({"params": trunk, "lr": lr * trunk_lr_scale})
    optimiser = torch.optim.AdamW(groups, lr=lr, weight_decay=1e-4)
    steps_per_epoch = (per_class * len(vocab) + unknown + clutter) // batch
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimiser,
        max_lr=[group["lr"] for group in groups],
        total_steps=epochs * steps_per_epoch + 10,
        pct_start=0.15,
    )
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    start = time.perf_counter()
    for epoch in range(epochs):
        t0 = time.perf_counter()
        index = epoch_indices(labels, per_class, unknown, rng)
        masks = glyphs.masks[index]
        y = labels[index]
        extra = np.stack([clutter_mask(rng) for _ in range(clutter)])
        masks = np.concatenate([masks, extra])
        y = np.concatenate([y, np.zeros(clutter, dtype=np.int64)])
        x, y = make_frames(masks, y, rng)
        order = rng.permutation(len(y))
        x_t, y_t = torch.from_numpy(x[order][:, None]), torch.from_numpy(y[order])
        t1 = time.perf_counter()
        model.train()
        total, correct, seen = 0.0, 0, 0
        for step in range(min(steps_per_epoch, len(y_t) // batch)):
            xb, yb = x_t[step * batch : (step + 1) * batch], y_t[step * batch : (step + 1) * batch]
            logits = model(xb)
            loss = loss_fn(logits, yb)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach()) * len(yb)
            correct += int((logits.argmax(1) == yb).sum())
            seen += len(yb)
        torch.save(
            {"model": model.state_dict(), "classes": classes, "epoch": epoch, "width": width, "arch": arch},
            out / "last.pt",
        )
        print(
            f"epoch {epoch}: loss {total / seen:.3f}, train acc {correct / seen:.3f}, "
            f"data {t1 - t0:.0f} s, train {time.perf_counter() - t1:.0f} s",
            flush=True,
        )
        if (time.perf_counter() - start) / 60.0 > minutes:
            print("time budget spent", flush=True)
            break
    (out / "train.json").write_text(
        json.dumps({"epochs": epoch + 1, "minutes": (time.perf_counter() - start) / 60.0}), encoding="utf-8"
    )
    return out / "last.pt"
