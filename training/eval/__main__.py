"""``python -m training.eval relevance [--out docs/RELEVANCE.md] [--seeds 1000-1099]``,
``python -m training.eval detector|attributes|reader [--data DIR] [--out docs/...] [--seeds 1000-1099]`` and
``python -m training.eval locate [--out docs/LOCATE.md] [--seeds 1000-1099] [--pages 30] [--cache DIR]`` and
``python -m training.eval phone [--split val] [--methods detector,fast,full,detact] [--limit N]`` and
``python -m training.eval candidates BASE.pt [CKPT.pt ...] [--engine DIR] [--desktops DIR]``."""

from __future__ import annotations

import argparse
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m training.eval", description="detact-service evaluations")
    sub = parser.add_subparsers(dest="command", required=True)
    relevance = sub.add_parser("relevance", help="task relevance ranking on MiniWoB++ (seeds 1000-1099)")
    relevance.add_argument("--out", type=Path, default=None, help="Markdown file (default docs/RELEVANCE.md)")
    relevance.add_argument("--seeds", default="1000-1099", help="first-last seed, within 1000-1099")
    locate = sub.add_parser("locate", help="locate accuracy on MiniWoB++ and held-out web pages")
    locate.add_argument("--out", type=Path, default=None, help="Markdown file (default docs/LOCATE.md)")
    locate.add_argument("--seeds", default="1000-1099", help="first-last MiniWoB++ seed, within 1000-1099")
    locate.add_argument("--pages", type=int, default=30, help="held-out web pages (test-split templates)")
    locate.add_argument("--cache", type=Path, default=None, help="parse cache (default data/locate-eval)")
    locate.add_argument("--backends", default="minilm,lexical", help="comma list of minilm, lexical")
    locate.add_argument("--verbose", action="store_true", help="print every wrong answer")
    for name, what in (
        ("detector", "the detector"),
        ("attributes", "the attribute model"),
        ("reader", "the type and state reader"),
    ):
        sub_parser = sub.add_parser(name, help=f"{what} on held-out screens and MiniWoB++ (seeds 1000-1099)")
        sub_parser.add_argument(
            "--data", type=Path, default=None, help="rendered / prepared folder (test split)"
        )
        sub_parser.add_argument(
            "--out", type=Path, default=None, help=f"Markdown file (default docs/{name.upper()}.md)"
        )
        sub_parser.add_argument(
            "--seeds", default="1000-1099", help="MiniWoB++ first-last seed within 1000-1099; '' for none"
        )
        if name == "detector":
            sub_parser.add_argument(
                "--peer", action="store_true", help="also run OmniParser v2's icon detector, side by side"
            )
            sub_parser.add_argument(
                "--profile", default=None, help="side by side with our whole parse with this profile instead"
            )
            sub_parser.add_argument("--per-source", type=int, default=None, help="test screens per source")
            sub_parser.add_argument(
                "--stack",
                type=int,
                default=1,
                help="each source's test screens N to a page, one above another",
            )
    phone = sub.add_parser("phone", help="clickable-view recall on phone_real (split by app)")
    phone.add_argument("--split", default="val", choices=["train", "val", "test"])
    phone.add_argument(
        "--methods",
        default="detector,fast,full,detact",
        help="detector, omniparser (the peer alone), profiles",
    )
    phone.add_argument("--limit", type=int, default=None, help="first N screens of the split")
    phone.add_argument("--out", type=Path, default=None, help="Markdown file (default docs/PHONE.md)")
    candidates = sub.add_parser("candidates", help="detector checkpoints against the base at its box count")
    candidates.add_argument("base", type=Path, help="the base Ultralytics .pt")
    candidates.add_argument("checkpoints", type=Path, nargs="*", help="fine-tuned .pt files")
    candidates.add_argument(
        "--engine", type=Path, default=None, help="rendered data-engine folder (test split)"
    )
    candidates.add_argument("--desktops", type=Path, default=None, help="unlabelled screenshots (keep-rate)")
    candidates.add_argument("--miniwob", type=Path, default=None, help="all screens here (held out)")
    candidates.add_argument(
        "--export", type=Path, default=None, help="write the screens here (shrunk) instead of judging"
    )
    candidates.add_argument("--per-source", type=int, default=15, help="engine test screens per source")
    candidates.add_argument("--imgsz", type=int, default=640)
    candidates.add_argument(
        "--cache", default="data/candidates", help="predictions kept per model ('' for none)"
    )
    args = parser.parse_args()
    if args.command == "candidates":
        from training.eval import candidates as compared

        print(
            compared.main(
                Path(args.cache) if args.cache else None,
                args.base,
                args.checkpoints,
                args.engine,
                args.desktops,
                args.per_source,
                args.imgsz,
                args.miniwob,
                args.export,
            )
        )
        return
    if args.command == "phone":
        from detact_service.settings import get_settings
        from training.eval import phone as phone_eval

        print(
            phone_eval.main(
                args.out or phone_eval.OUT, args.split, args.methods.split(","), args.limit, get_settings()
            )
        )
        return
    if args.command in ("detector", "attributes", "reader"):
        from detact_service.settings import get_settings

        if args.command == "detector":
            from training.eval import detector as model_eval
        elif args.command == "reader":
            from training.eval import reader as model_eval  # type: ignore[no-redef]
        else:
            from training.eval import attributes as model_eval  # type: ignore[no-redef]
        first, _, last = args.seeds.partition("-")
        chosen = range(int(first), int(last or first) + 1) if first else range(0)
        if len(chosen) and (chosen.start < 1000 or chosen.stop > 1100):
            parser.error("seeds must lie within 1000-1099")
        from detact_service.stages import StageUnavailable

        extra = (
            {"peer": args.peer, "per_source": args.per_source, "profile": args.profile, "stack": args.stack}
            if args.command == "detector"
            else {}
        )
        try:
            print(model_eval.main(args.out or model_eval.OUT, args.data, chosen, get_settings(), **extra))
        except StageUnavailable as exc:
            parser.exit(2, f"error: {exc}\n")
        return
    if args.command == "locate":
        from training.eval import locate as located

        first, _, last = args.seeds.partition("-")
        seeds = range(int(first), int(last or first) + 1)
        if seeds.start < 1000 or seeds.stop > 1100:
            parser.error("seeds must lie within 1000-1099")
        print(
            located.main(
                args.out or located.OUT,
                seeds,
                args.pages,
                args.cache or located.CACHE,
                [b.strip() for b in args.backends.split(",") if b.strip()],
                args.verbose,
            )
        )
    if args.command == "relevance":
        from training.eval import relevance as evaluation

        first, _, last = args.seeds.partition("-")
        seeds = range(int(first), int(last or first) + 1)
        if seeds.start < 1000 or seeds.stop > 1100:
            parser.error("seeds must lie within 1000-1099")
        print(evaluation.main(args.out or evaluation.OUT, seeds))


if __name__ == "__main__":
    main()
