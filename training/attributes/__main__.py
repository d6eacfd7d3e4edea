"""``python -m training.attributes prepare|train|export`` (see each module's docstring)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    """Run one attribute-model command; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m training.attributes")
    sub = parser.add_subparsers(dest="command", required=True)
    prep = sub.add_parser("prepare", help="semi-masked views + target strings from a rendered folder")
    prep.add_argument("folder", type=Path)
    prep.add_argument("--out", type=Path, required=True)
    prep.add_argument("--per-image", type=int, default=24)

    train = sub.add_parser("train", help="train (or --resume) the Pix2Struct attribute model")
    train.add_argument("--data", type=Path, required=True)
    train.add_argument("--out", type=Path, required=True)
    train.add_argument("--size", default="s", choices=["xs", "s", "m"])
    train.add_argument("--max-patches", type=int, default=64)
    train.add_argument("--steps", type=int, default=6000)
    train.add_argument("--batch", type=int, default=64)
    train.add_argument("--lr", type=float, default=1e-3)
    train.add_argument("--device", default="cpu")
    train.add_argument("--workers", type=int, default=2)
    train.add_argument("--eval-every", type=int, default=500)
    train.add_argument("--save-every", type=int, default=250)
    train.add_argument("--eval-samples", type=int, default=512, help="validation views per evaluation")
    train.add_argument("--no-text", action="store_true", help="empty text fields: type and state only")
    train.add_argument("--balance", type=float, default=0.0, help="rare (type, state) oversampling power")
    train.add_argument("--threads", type=int, default=0, help="torch threads (0: default)")
    train.add_argument("--minutes", type=float, default=0.0, help="time budget (0: none); saves on stop")
    train.add_argument("--resume", action="store_true")

    export = sub.add_parser("export", help="copy a checkpoint into models/ with its manifest entry")
    export.add_argument("checkpoint", type=Path)
    export.add_argument("--name", default="ui-pix2struct")
    export.add_argument("--models-dir", type=Path, default=None, help="default: the repo's models/")
    export.add_argument("--data-version", default="")
    export.add_argument("--metrics", default="{}", help="JSON object")
    export.add_argument("--command", dest="made_by", default="")
    args = parser.parse_args(argv)

    if args.command == "prepare":
        from training.attributes.data import prepare

        print(json.dumps(prepare(args.folder, args.out, per_image=args.per_image)))
        return 0
    if args.command == "train":
        from training.attributes.train import TrainConfig
        from training.attributes.train import train as run

        config = TrainConfig(
            data=str(args.data),
            out=str(args.out),
            size=args.size,
            max_patches=args.max_patches,
            steps=args.steps,
            batch=args.batch,
            lr=args.lr,
            device=args.device,
            workers=args.workers,
            eval_every=args.eval_every,
            save_every=args.save_every,
            eval_samples=args.eval_samples,
            text=not args.no_text,
            balance=args.balance,
            threads=args.threads,
            minutes=args.minutes,
        )
        print(run(config, resume=args.resume))
        return 0
    from training.attributes.export import MODELS
    from training.attributes.export import export as ship

    print(
        ship(
            args.checkpoint,
            args.name,
            args.models_dir or MODELS,
            data_version=args.data_version,
            metrics=json.loads(args.metrics),
            command=args.made_by,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
