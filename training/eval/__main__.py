"""``python -m training.eval relevance [--out docs/RELEVANCE.md] [--seeds 1000-1099]``."""

from __future__ import annotations

import argparse
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m training.eval", description="detact-service evaluations")
    sub = parser.add_subparsers(dest="command", required=True)
    relevance = sub.add_parser("relevance", help="task relevance ranking on MiniWoB++ (seeds 1000-1099)")
    relevance.add_argument("--out", type=Path, default=None, help="Markdown file (default docs/RELEVANCE.md)")
    relevance.add_argument("--seeds", default="1000-1099", help="first-last seed, within 1000-1099")
    args = parser.parse_args()
    if args.command == "relevance":
        from training.eval import relevance as evaluation

        first, _, last = args.seeds.partition("-")
        seeds = range(int(first), int(last or first) + 1)
        if seeds.start < 1000 or seeds.stop > 1100:
            parser.error("seeds must lie within 1000-1099")
        print(evaluation.main(args.out or evaluation.OUT, seeds))


if __name__ == "__main__":
    main()
