"""The data engine's command line.

::

    python -m training.data render --source web|miniwob|thirdparty|qt|grid|mixed --n N --out DIR \\
        [--seed S] [--workers W] [--mix web=0.6,miniwob=0.4]
    python -m training.data export-yolo DIR --out YOLO_DIR
    python -m training.data export-attributes DIR --out ATTR_DIR [--context 0.5] [--per-image 40] [--mark]
    python -m training.data contact-sheet DIR --out PNG [--n 12] [--tile 480]
    python -m training.data datasheet DIR --out docs/DATASHEET.md
    python -m training.data pack EXPORT --out PACK [--kind yolo|attributes] [--imgsz N] [--splits train,val]
    python -m training.data unpack PACK/shard-* --out DIR
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path

from training.data.sources import SOURCES


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m training.data", description="detact-service data engine")
    sub = parser.add_subparsers(dest="command", required=True)

    render = sub.add_parser("render", help="render screenshots and labels (resumable)")
    render.add_argument("--source", required=True, choices=[*sorted(SOURCES), "mixed"])
    render.add_argument("--n", type=int, required=True, help="number of seeds to render")
    render.add_argument("--out", type=Path, required=True)
    render.add_argument("--seed", type=int, default=1100, help="first seed (miniwob needs >= 1100)")
    render.add_argument("--workers", type=int, default=1, help="processes, each with its own renderers")
    render.add_argument("--mix", default=None, help="mixed only: weights, e.g. web=0.6,miniwob=0.4")
    render.add_argument("--no-progress", action="store_true")

    yolo = sub.add_parser("export-yolo", help="YOLO dataset split by template")
    yolo.add_argument("folder", type=Path)
    yolo.add_argument("--out", type=Path, required=True)
    yolo.add_argument("--keep-duplicates", action="store_true")

    attrs = sub.add_parser("export-attributes", help="per-element crops + attribute strings (JSONL)")
    attrs.add_argument("folder", type=Path)
    attrs.add_argument("--out", type=Path, required=True)
    attrs.add_argument("--context", type=float, default=0.5, help="context around the box, times its size")
    attrs.add_argument("--per-image", type=int, default=40)
    attrs.add_argument("--mark", action="store_true", help="draw the element's box on its crop")

    sheet = sub.add_parser("contact-sheet", help="labels drawn over a sample, for checking by eye")
    sheet.add_argument("folder", type=Path)
    sheet.add_argument("--out", type=Path, required=True)
    sheet.add_argument("--n", type=int, default=12)
    sheet.add_argument("--tile", type=int, default=480)
    sheet.add_argument("--seed", type=int, default=0)

    packer = sub.add_parser("pack", help="size-capped WebP shards of an export, for a GPU machine")
    packer.add_argument("folder", type=Path)
    packer.add_argument("--out", type=Path, required=True)
    packer.add_argument("--kind", choices=["yolo", "attributes"], default="yolo")
    packer.add_argument(
        "--imgsz", type=int, default=None, help="longest image side (yolo default 1024, views as they are)"
    )
    packer.add_argument("--splits", default="train,val,test", help="comma list of splits to pack")
    packer.add_argument("--quality", type=int, default=85)
    packer.add_argument("--max-mb", type=float, default=60)

    unpacker = sub.add_parser("unpack", help="merge packed shards back into a dataset folder")
    unpacker.add_argument("shards", type=Path, nargs="+")
    unpacker.add_argument("--out", type=Path, required=True)

    data = sub.add_parser("datasheet", help="Markdown datasheet of a rendered folder")
    data.add_argument("folder", type=Path)
    data.add_argument("--out", type=Path, default=Path("docs/DATASHEET.md"))
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one data-engine command; returns the exit status."""
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    if args.command == "render":
        from training.data.engine import parse_mix, render

        try:
            report = render(
                args.source,
                args.n,
                args.out,
                seed=args.seed,
                workers=args.workers,
                mix=parse_mix(args.mix),
                progress=not args.no_progress,
            )
        except ValueError as exc:  # unknown source or mix, or a reserved seed range
            print(f"error: {exc}", file=sys.stderr)
            return 2
        if report.rendered and not report.skipped:  # a whole run from scratch: keep its timing
            timing = {
                "command": "python -m training.data " + " ".join(argv if argv is not None else sys.argv[1:]),
                "rendered": report.rendered,
                "failed": len(report.failed),
                "seconds": round(report.seconds, 1),
                "cpus": os.cpu_count(),
            }
            (args.out / "render_timing.jsonl").write_text(json.dumps(timing) + "\n")
        print(
            f"rendered {report.rendered}, skipped {report.skipped} (already there), "
            f"failed {len(report.failed)}, "
            f"{report.elements} elements, {report.seconds:.1f} s ({report.per_second:.2f} img/s)"
        )
        for stem, error in report.failed[:20]:
            print(f"  failed {stem}: {error}", file=sys.stderr)
        return 1 if report.failed and not report.rendered else 0
    if args.command == "export-yolo":
        from training.data.export import export_yolo

        print(json.dumps(export_yolo(args.folder, args.out, dedupe=not args.keep_duplicates)))
        return 0
    if args.command == "export-attributes":
        from training.data.export import export_attributes

        counts = export_attributes(
            args.folder, args.out, context=args.context, per_image=args.per_image, mark=args.mark
        )
        print(json.dumps(counts))
        return 0
    if args.command == "pack":
        from training.data.pack import pack

        splits = tuple(s.strip() for s in args.splits.split(",") if s.strip())
        imgsz = args.imgsz or (1024 if args.kind == "yolo" else None)
        counts = pack(args.folder, args.out, args.kind, imgsz, args.quality, args.max_mb, splits)
        print(json.dumps(counts))
        return 0
    if args.command == "unpack":
        from training.data.pack import unpack

        print(unpack(args.shards, args.out))
        return 0
    if args.command == "contact-sheet":
        from training.data.report import contact_sheet

        print(contact_sheet(args.folder, args.out, n=args.n, tile=args.tile, seed=args.seed))
        return 0
    from training.data.report import datasheet

    print(datasheet(args.folder, args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
