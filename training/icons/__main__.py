"""``python -m training.icons render|train|export|eval``: the icon classifier's recipe (see docs/ICONS.md)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.icons", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    render = commands.add_parser("render", help="rasterise every icon set into data/icons/glyphs")
    render.add_argument("--only", nargs="*", help="set ids (default: all)")
    train = commands.add_parser("train", help="train the CNN on augmented crops of the training sets")
    train.add_argument("--out", type=Path, required=True)
    train.add_argument("--epochs", type=int, default=8)
    train.add_argument("--per-class", type=int, default=160)
    train.add_argument("--unknown", type=int, default=8000)
    train.add_argument("--clutter", type=int, default=3000)
    train.add_argument("--minutes", type=float, default=30.0)
    train.add_argument("--threads", type=int, default=1)
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--lookalike", type=float, default=1.0, help="below 1: drop lookalike unknowns")
    train.add_argument("--width", type=int, default=32, help="the CNN's base channel count")
    train.add_argument("--max-vocab", type=int, default=400, help="the most meanings the CNN learns")
    train.add_argument("--all-unknowns", action="store_true", help="every set's other glyphs teach unknown")
    train.add_argument("--vocab", type=Path, help="keep an earlier run's vocab.json (classes, common 100)")
    train.add_argument("--fold-aliases", action="store_true", help="teach the vocab's aliases as one class")
    train.add_argument("--arch", choices=("small", "mobilenet"), default="small", help="the network")
    train.add_argument("--lr", type=float, default=2e-3)
    train.add_argument("--batch", type=int, default=256)
    train.add_argument("--trunk-lr-scale", type=float, default=0.5, help="mobilenet: the trunk's rate factor")
    export = commands.add_parser("export", help="ONNX + manifest entry")
    export.add_argument("checkpoint", type=Path, nargs="+", help="one run, or several: an ensemble")
    export.add_argument("--models-dir", type=Path, default=Path("models"))
    export.add_argument("--name", default="ui-icons")
    export.add_argument("--metrics", type=Path, help="the eval's JSON report, recorded in the manifest")
    export.add_argument(
        "--threshold", type=float, default=0.5, help="the model's own (manifest conf); metrics are at it"
    )
    export.add_argument("--made-by", help="the commands that made it, recorded in the manifest")
    export.add_argument("--vocab", type=Path, help="a vocabulary whose aliases fold classes into one meaning")
    export.add_argument(
        "--join", type=Path, nargs="*", help="exported classifiers (same classes) averaged in"
    )
    export.add_argument("--join-weight", type=float, default=0.5, help="the joined files' share of the mean")
    evaluate = commands.add_parser("eval", help="held-out sets: top-1, unknown-or-right, latency")
    evaluate.add_argument("model", type=Path, help="an exported .onnx")
    evaluate.add_argument("--vocab", type=Path, required=True, help="the run's vocab.json")
    evaluate.add_argument("--out", type=Path, help="write the JSON report here")
    page = commands.add_parser("page", help="the issue's page (8 outline icon buttons) through a profile")
    page.add_argument("--profile", default="fast")
    args = parser.parse_args(argv)

    if args.command == "render":
        from training.icons.render import render_all

        render_all(only=args.only)
    elif args.command == "train":
        from training.icons.train import train as run_train

        run_train(
            args.out,
            epochs=args.epochs,
            per_class=args.per_class,
            unknown=args.unknown,
            clutter=args.clutter,
            minutes=args.minutes,
            threads=args.threads,
            lookalike=args.lookalike,
            width=args.width,
            seed=args.seed,
            max_vocab=args.max_vocab,
            vocab_file=args.vocab,
            all_unknowns=args.all_unknowns,
            fold_aliases=args.fold_aliases,
            arch=args.arch,
            lr=args.lr,
            batch=args.batch,
            trunk_lr_scale=args.trunk_lr_scale,
        )
    elif args.command == "export":
        from training.icons.evaluate import summary
        from training.icons.export import export as run_export

        metrics = None
        if args.metrics:
            metrics = summary(json.loads(args.metrics.read_text("utf-8")), args.threshold)
        checkpoints = list(args.checkpoint)
        aliases = json.loads(args.vocab.read_text("utf-8")).get("aliases") if args.vocab else None
        made_by = args.made_by
        print(
            run_export(
                checkpoints,
                args.models_dir,
                args.name,
                metrics,
                args.threshold,
                made_by,
                aliases,
                args.join,
                args.join_weight,
            )
        )
    elif args.command == "eval":
        from training.icons.evaluate import evaluate as run_eval

        report = run_eval(args.model, args.vocab)
        text = json.dumps(report, indent=1)
        print(text)
        if args.out:
            args.out.write_text(text + "\n", encoding="utf-8")
    elif args.command == "page":
        from training.icons.evaluate import page_check

        for row in page_check(args.profile):
            print(json.dumps(row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
