"""``python -m training.reader prepare|train|export``: the CPU type and state reader's recipe."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from detact_service.understanding.semimask import ViewGeometry


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.reader", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    prepare = commands.add_parser("prepare", help="semi-masked views + targets per split (npz)")
    prepare.add_argument("screens", type=Path, nargs="?", help="a data-engine render folder")
    prepare.add_argument("--out", type=Path, required=True)
    prepare.add_argument("--per-image", type=int, default=16)
    prepare.add_argument("--copies", type=int, default=1, help="augmented passes over the train screens")
    prepare.add_argument("--size", type=int, default=ViewGeometry.size)
    prepare.add_argument("--no-phone", action="store_true", help="leave out ../shared/data/phone_real")
    train = commands.add_parser("train", help="train the top on cached trunk features")
    train.add_argument("data", type=Path)
    train.add_argument("--out", type=Path, required=True)
    train.add_argument("--hours", type=float, default=0.5)
    train.add_argument("--max-steps", type=int)
    train.add_argument("--batch", type=int, default=128)
    train.add_argument("--lr", type=float, default=1e-3)
    train.add_argument("--resume", action="store_true")
    train.add_argument("--threads", type=int, default=2)
    train.add_argument("--cosine", action="store_true", help="decay the learning rate over the budget")
    export = commands.add_parser("export", help="ONNX + manifest entry")
    export.add_argument("checkpoint", type=Path)
    export.add_argument("--data", type=Path, required=True, help="the prepared folder (its geometry.json)")
    export.add_argument("--models-dir", type=Path, default=Path("models"))
    export.add_argument("--name", default="ui-reader")
    export.add_argument("--metrics", type=Path, help="a JSON file of metrics to record")
    export.add_argument("--data-version", default="", help="what the training data was, for the manifest")
    export.add_argument("--recipe", default="", help="the commands that made it, for the manifest")
    checks = commands.add_parser("checks", help="the check-state model: views, training, export")
    checks.add_argument("screens", type=Path, nargs="+", help="data-engine render folders")
    checks.add_argument("--out", type=Path, required=True)
    checks.add_argument("--hours", type=float, default=0.25)
    checks.add_argument("--copies", type=int, default=4, help="augmented passes over the train screens")
    checks.add_argument("--export", action="store_true", help="write models/<name>.onnx and its entry")
    checks.add_argument("--models-dir", type=Path, default=Path("models"))
    checks.add_argument("--name", default="ui-checks")
    args = parser.parse_args(argv)

    if args.command == "checks":
        from training.reader import checks as check_recipe

        best = check_recipe.train(args.screens, args.out, args.hours, copies=args.copies)
        print(json.dumps(best))
        if args.export:
            folders = " ".join(str(p) for p in args.screens)
            command = (
                f"python -m training.reader checks {folders} --out {args.out} --hours {args.hours} --export"
            )
            print(check_recipe.export(args.out / "best.pt", args.models_dir, args.name, command))
    elif args.command == "prepare":
        from training.reader.data import prepare as run_prepare

        counts = run_prepare(
            args.screens,
            args.out,
            ViewGeometry(size=args.size),
            args.per_image,
            not args.no_phone,
            args.copies,
        )
        print(json.dumps(counts))
    elif args.command == "train":
        from training.reader.train import train as run_train

        best = run_train(
            args.data,
            args.out,
            args.hours,
            args.batch,
            args.lr,
            max_steps=args.max_steps,
            resume=args.resume,
            threads=args.threads,
            cosine=args.cosine,
        )
        print(json.dumps({"type_accuracy": best.type_accuracy, "states": best.state_accuracy}))
    else:
        from training.reader.export import export as run_export
        from training.reader.export import geometry_of

        metrics = json.loads(args.metrics.read_text()) if args.metrics else None
        path = run_export(
            args.checkpoint,
            geometry_of(args.data),
            args.models_dir,
            args.name,
            metrics=metrics,
            data_version=args.data_version,
            command=args.recipe,
        )
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
