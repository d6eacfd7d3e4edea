"""Fine-tune the detector on a lent GPU and judge checkpoints there: ``python -m training.detector.sweep``.

    python -m training.detector.sweep --data YOLO/dataset.yaml --screens EVAL --base BASE.pt --out DIR \\
        --minutes 7 --device 0

One device call (``training/device_call.sh detector-sweep MINUTES``) trains a few recipes from the base, one
after another, and judges the checkpoints of some of their epochs, each mixed with the base at a few weights
(WiSE-FT, :mod:`training.detector.interpolate`), as ``python -m training.eval candidates`` judges one: recall
at the base's box count on each labelled group of ``--screens`` (``candidates.export_screens``: phone_real's
held-out apps, the data engine's test split), keep-rate on the unlabelled ones (real desktops). Only one
checkpoint fits in what a call returns, so the judging happens there: ``DIR/sweep.json`` holds every row,
``DIR/best-tuned.pt`` the best recipe's epoch un-mixed (its weight is in the json; re-mix it here with
``training.detector.interpolate``). Partial results are written after every judged checkpoint and the call
stops starting work that its time budget cannot hold.
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from training.detector.interpolate import interpolate
from training.detector.train import train
from training.eval.candidates import Predictions, compare, exported_screens, predict, table

PHONE_PREFIX = "phone-"
MIN_KEEP = 0.95  # a mix that drops more of the base's confident desktop boxes forgets desktops
ALPHAS = (0.3, 0.6, 1.0)


@dataclass(frozen=True)
class Recipe:
    """One fine-tune: how much of the network trains, how fast, how long, and which epochs get judged."""

    name: str
    freeze: int
    lr0: float
    epochs: int
    judged: tuple[int, ...]


RECIPES = (
    Recipe("head", freeze=11, lr0=1e-3, epochs=6, judged=(1, 2, 4, 6)),
    Recipe("all", freeze=0, lr0=5e-4, epochs=6, judged=(1, 2, 4, 6)),
    Recipe("all-long", freeze=0, lr0=5e-4, epochs=16, judged=(4, 8, 12, 16)),
    Recipe("all-mid", freeze=0, lr0=5e-4, epochs=12, judged=(6, 9, 12)),
)


def score(rows: Sequence[dict[str, float | str]], model: str) -> float:
    """Half the mean recall of the phone groups, half that of the other labelled groups; a model that keeps
    under ``MIN_KEEP`` of the base's confident boxes on an unlabelled group scores nothing."""
    mine = [row for row in rows if row["model"] == model]
    if any(float(row["keep"]) < MIN_KEEP for row in mine if "keep" in row):
        return 0.0
    labelled = [row for row in mine if "recall" in row]
    phone = [float(row["recall"]) for row in labelled if str(row["group"]).startswith(PHONE_PREFIX)]
    other = [float(row["recall"]) for row in labelled if not str(row["group"]).startswith(PHONE_PREFIX)]
    parts = [sum(values) / len(values) for values in (phone, other) if values]
    return sum(parts) / max(len(parts), 1)


def epoch_checkpoint(run: Path, epoch: int) -> Path:
    """The checkpoint saved after ``epoch`` (1-based; Ultralytics numbers its files from 0)."""
    return run / "weights" / f"epoch{epoch - 1}.pt"


class Sweep:
    """The recipes' runs, their judged mixes and the rows of the comparison, kept in ``out``."""

    def __init__(self, data: Path, screens: Path, base: Path, out: Path, device: str, seconds: float) -> None:
        self.data, self.base, self.out, self.device = data, base, out, device
        self.deadline = time.monotonic() + seconds
        self.screens = exported_screens(screens)
        self.base_predictions = predict(base, self.screens, device=device)
        self.rows: list[dict[str, float | str]] = compare(self.screens, self.base_predictions, {})
        self.judged: dict[str, tuple[Recipe, int, float]] = {}
        self.seconds_per_judgement = 0.0
        self.seconds_per_epoch = 0.0

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def run(self, recipe: Recipe, batch: int, workers: int) -> None:
        """Train one recipe and judge its epochs, if the time left holds them."""
        judging = len(recipe.judged) * len(ALPHAS) * self.seconds_per_judgement
        if self.seconds_per_epoch and recipe.epochs * self.seconds_per_epoch + judging > self.left():
            print(f"skipped {recipe.name}: {self.left():.0f} s left", flush=True)
            return
        started = time.monotonic()
        train(
            self.data, imgsz=640, epochs=recipe.epochs, batch=batch, device=self.device,
            project=self.out / "runs", name=recipe.name, workers=workers, init=self.base, cache="ram",
            warmup_epochs=0.5, close_mosaic=2, freeze=recipe.freeze, lr0=recipe.lr0,
        )  # fmt: skip
        self.seconds_per_epoch = max(self.seconds_per_epoch, (time.monotonic() - started) / recipe.epochs)
        for epoch in recipe.judged:
            for alpha in ALPHAS:
                if self.left() < self.seconds_per_judgement:
                    return
                self.judge(recipe, epoch, alpha)

    def judge(self, recipe: Recipe, epoch: int, alpha: float) -> None:
        started = time.monotonic()
        name = f"{recipe.name}/e{epoch}-a{alpha}"
        mixed = interpolate(
            self.base, epoch_checkpoint(self.out / "runs" / recipe.name, epoch), alpha, self.out / "mixed.pt"
        )
        candidate: Predictions = predict(mixed, self.screens, device=self.device)
        self.rows += [row for row in compare(self.screens, self.base_predictions, {name: candidate})
                      if row["model"] == name]  # fmt: skip
        self.judged[name] = (recipe, epoch, alpha)
        self.seconds_per_judgement = max(self.seconds_per_judgement, time.monotonic() - started)
        self.write()
        print(f"{name}: {score(self.rows, name):.4f} ({self.left():.0f} s left)", flush=True)

    def best(self) -> str | None:
        scored = {name: score(self.rows, name) for name in self.judged}
        return max(scored, key=lambda name: scored[name]) if scored else None

    def write(self) -> None:
        best = self.best()
        report = {
            "scores": {name: round(score(self.rows, name), 4) for name in ["base", *self.judged]},
            "best": best,
            "best_recipe": asdict(self.judged[best][0]) if best else None,
            "rows": self.rows,
        }
        (self.out / "sweep.json").write_text(json.dumps(report, indent=1))
        (self.out / "sweep.md").write_text(table(self.rows) + "\n")

    def keep_best(self) -> Path | None:
        """Write the best judged recipe's epoch, un-mixed and stripped, to ``best-tuned.pt``."""
        best = self.best()
        if best is None:
            return None
        recipe, epoch, _ = self.judged[best]
        target = self.out / "best-tuned.pt"
        interpolate(self.base, epoch_checkpoint(self.out / "runs" / recipe.name, epoch), 1.0, target)
        for run in (self.out / "runs").iterdir():
            shutil.rmtree(run / "weights", ignore_errors=True)  # the returned files are the results
        return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="dataset.yaml of the training set")
    parser.add_argument("--screens", type=Path, required=True, help="folder of candidates.export_screens")
    parser.add_argument("--base", type=Path, required=True, help="the base Ultralytics .pt")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--minutes", type=float, required=True, help="training and judging, all recipes")
    parser.add_argument("--device", default="0")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--recipes", default=",".join(r.name for r in RECIPES), help="comma list of names")
    parser.add_argument("--epochs", type=int, default=0, help="override every recipe's epochs (a dry run)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    sweep = Sweep(args.data, args.screens, args.base, args.out, args.device, args.minutes * 60)
    chosen = {recipe.name: recipe for recipe in RECIPES}
    for name in args.recipes.split(","):
        recipe = chosen[name]  # in the order given: the recipes that matter most first
        if args.epochs:
            recipe = Recipe(recipe.name, recipe.freeze, recipe.lr0, args.epochs, (args.epochs,))
        sweep.run(recipe, args.batch, args.workers)
    sweep.write()
    print(table(sweep.rows))
    print(f"best: {sweep.best()} -> {sweep.keep_best()}")


if __name__ == "__main__":
    main()
