"""A trainable Ultralytics checkpoint rebuilt from a shipped ONNX detector and its base checkpoint.

    python -m training.detector.from_onnx models/ui-detector-phone.onnx runs/omniparser-v2-icon-detect.pt \
        --images ../shared/data/phone_real/images --out runs/detector/phone-v1.pt

The fine-tuned ``.pt`` files are kept out of git; the shipped ``.onnx`` holds the same network with each
convolution's batch norm folded into it (``w * g / s``, ``b - m * g / s``). This puts the folded
weights back into the base checkpoint's architecture so that a later session can train on from them.

A folded convolution has a bias and no norm; the network it goes back into has a norm after each of
them. The norm is given the statistics of its input measured on real screens (mean ``m``, variance
``v``) and the scale and shift that undo them (``g = sqrt(v + eps)``, ``beta = b + m``): in eval mode the
rebuilt network computes exactly what the ONNX file does, and in train mode, where a norm uses the
batch's own statistics, nearly so, so fine-tuning starts where the shipped model stands.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from training.detector.offline import go_offline

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


def detector_input(path: Path, size: int) -> np.ndarray:
    """A screenshot as the ``yolo-onnx`` backend feeds it to a detector reading at ``size`` (1, 3, h, w)."""
    from detact_service.detectors.yolo_onnx import input_hw, letterbox

    with Image.open(path) as opened:
        image = np.asarray(opened.convert("RGB"))
    shape = input_hw(("batch", 3, "height", "width"), image.shape[0], image.shape[1], size)
    return letterbox(image, shape)[0][None]


def onnx_weights(onnx_path: Path) -> dict[str, np.ndarray]:
    """The ONNX graph's named initializers (the exporter keeps the torch parameter names)."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(onnx_path))
    return {init.name: numpy_helper.to_array(init) for init in model.graph.initializer}


def rebuild(onnx_path: Path, base: Path, images: list[Path], out: Path, size: int = 640) -> Path:
    """Write ``out``: the base checkpoint's network carrying the ONNX file's weights, norms calibrated."""
    go_offline()
    import torch

    checkpoint = torch.load(base, map_location="cpu", weights_only=False)
    model = (checkpoint.get("ema") or checkpoint["model"]).float().eval()
    modules = dict(model.named_modules())
    folded: dict[str, tuple[Any, Any, torch.Tensor]] = {}  # conv name -> (conv, its norm, folded bias)
    loaded: set[str] = set()
    with torch.no_grad():
        for name, value in onnx_weights(onnx_path).items():
            owner, _, leaf = name.rpartition(".")
            module = modules.get(owner)
            if module is None or leaf not in ("weight", "bias"):
                continue
            tensor = torch.from_numpy(value.copy()).float()
            block = owner.rpartition(".")[0]  # an Ultralytics Conv: .conv then .bn
            norm = getattr(modules.get(block), "bn", None) if owner.endswith(".conv") else None
            if isinstance(norm, torch.nn.BatchNorm2d) and leaf == "bias":
                folded[owner] = (module, norm, tensor)
                # until measured: a norm that adds the folded bias and changes nothing else
                norm.weight.fill_(1.0)
                norm.bias.copy_(tensor)
                norm.running_mean = torch.zeros_like(tensor)
                norm.running_var = torch.full_like(tensor, 1.0 - norm.eps)
                loaded.update({f"{block}.bn.weight", f"{block}.bn.bias"})
            else:
                getattr(module, leaf).copy_(tensor)
            loaded.add(name)
    missing = [name for name, _ in model.named_parameters() if name not in loaded]
    if missing:
        raise ValueError(f"{onnx_path} lacks {len(missing)} of the network's parameters: {missing[:5]}")

    moments: dict[str, list[torch.Tensor]] = {owner: [] for owner in folded}

    def recorder(owner: str) -> Any:
        def record(_module: Any, _inputs: Any, output: torch.Tensor) -> None:
            moments[owner].append(torch.stack([output.mean(dim=(0, 2, 3)), (output**2).mean(dim=(0, 2, 3))]))

        return record

    hooks = [conv.register_forward_hook(recorder(owner)) for owner, (conv, _, _) in folded.items()]
    with torch.no_grad():
        for path in images:  # one at a time: each keeps its aspect ratio, as the runtime reads it
            model(torch.from_numpy(detector_input(path, size)))
    for hook in hooks:
        hook.remove()
    with torch.no_grad():
        for owner, (_conv, norm, bias) in folded.items():
            mean, mean_square = torch.stack(moments[owner]).mean(dim=0)
            variance = (mean_square - mean**2).clamp_min(1e-6)
            norm.running_mean = mean
            norm.running_var = variance
            norm.weight.copy_(torch.sqrt(variance + norm.eps))
            norm.bias.copy_(bias + mean)
    checkpoint.update(model=model, ema=None, optimizer=None, epoch=-1, updates=None)
    checkpoint["rebuilt_from"] = {"onnx": str(onnx_path), "base": str(base), "screens": len(images)}
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(checkpoint, out)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("onnx", type=Path, help="a detector exported by training.detector.export")
    parser.add_argument("base", type=Path, help="the Ultralytics checkpoint it was fine-tuned from")
    parser.add_argument("--images", type=Path, required=True, help="a folder of screens for the norms")
    parser.add_argument("--limit", type=int, default=64, help="screens used to measure the norms")
    parser.add_argument("--imgsz", type=int, default=640)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    images = sorted(p for p in args.images.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)[: args.limit]
    print(rebuild(args.onnx, args.base, images, args.out, args.imgsz))


if __name__ == "__main__":
    main()
