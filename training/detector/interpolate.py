"""Weight-space interpolation of a fine-tuned detector with its base (WiSE-FT, Wortsman et al. 2022).

    python -m training.detector.interpolate BASE.pt TUNED.pt --alpha 0.5 --out runs/detector/mix-0.5.pt

The fine-tunes of this project gain on phones and forget part of what the base knows of desktops
(models/README.md, "CPU sessions"). Averaging the two checkpoints' weights, ``(1 - alpha) * base +
alpha * tuned``, keeps much of a fine-tune's gain where it trained and the base's behaviour elsewhere, at
no cost at run time: the result is one model of the same architecture. ``alpha`` is chosen by measurement
(``python -m training.eval candidates``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from training.detector.offline import go_offline


def _model(checkpoint: dict[str, Any]) -> Any:
    """The network an Ultralytics checkpoint predicts with (its EMA when it has one), in float32."""
    model = checkpoint.get("ema") or checkpoint["model"]
    return model.float()


def interpolate(base: Path, tuned: Path, alpha: float, out: Path) -> Path:
    """Write a checkpoint whose floating-point weights are ``(1 - alpha) * base + alpha * tuned``."""
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must lie within [0, 1], got {alpha}")
    go_offline()
    import torch

    base_ckpt = torch.load(base, map_location="cpu", weights_only=False)
    tuned_ckpt = torch.load(tuned, map_location="cpu", weights_only=False)
    base_state = _model(base_ckpt).state_dict()
    model = _model(tuned_ckpt)
    state = model.state_dict()
    if state.keys() != base_state.keys():
        raise ValueError(f"{base} and {tuned} are not the same architecture")
    mixed = {
        key: torch.lerp(base_state[key], value, alpha) if value.is_floating_point() else value
        for key, value in state.items()
    }
    model.load_state_dict(mixed)
    checkpoint = {
        key: value for key, value in tuned_ckpt.items() if key not in ("model", "ema", "optimizer", "updates")
    }
    checkpoint.update(model=model.half(), ema=None, optimizer=None, epoch=-1)
    checkpoint["interpolation"] = {"base": str(base), "tuned": str(tuned), "alpha": alpha}
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(checkpoint, out)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", type=Path)
    parser.add_argument("tuned", type=Path)
    parser.add_argument("--alpha", type=float, default=0.5, help="weight of the fine-tuned model")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    print(interpolate(args.base, args.tuned, args.alpha, args.out))


if __name__ == "__main__":
    main()
