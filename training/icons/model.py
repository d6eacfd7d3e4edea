"""The icon classifier's networks over the 32x32 normalised ink frame.

``small``: a small CNN trained from scratch (0.75 M parameters). ``mobilenet``: ImageNet MobileNetV2's
first blocks (the reader's pretrained wheel) on the frame enlarged to :data:`PRETRAINED_SIZE`, fine-tuned.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional

ARCHITECTURES = ("small", "mobilenet")
PRETRAINED_SIZE = 48
"""The side the frame is enlarged to for MobileNetV2 (stride 16: a 3x3 grid of 96 features)."""


def block(c_in: int, c_out: int, stride: int) -> nn.Sequential:
    """3x3 conv, batch norm, ReLU."""
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, 3, stride=stride, padding=1, bias=False),
        nn.BatchNorm2d(c_out),
        nn.ReLU(inplace=True),
    )


class IconNet(nn.Module):
    """Frames ``(N, 1, 32, 32)`` (ink 0-1) -> logits ``(N, classes)``; class 0 is ``unknown``."""

    def __init__(self, classes: int, width: int = 32) -> None:
        super().__init__()
        w = width
        self.features = nn.Sequential(
            block(1, w // 2, 1),  # 32
            block(w // 2, w, 2),  # 16
            block(w, w, 1),
            block(w, 2 * w, 2),  # 8
            block(2 * w, 2 * w, 1),
            block(2 * w, 4 * w, 2),  # 4
        )
        self.head = nn.Sequential(
            nn.Flatten(),
            nn.Dropout(0.2),
            nn.Linear(4 * w * 16, 256),
            nn.ReLU(inplace=True),
            nn.Dropout(0.2),
            nn.Linear(256, classes),
        )

    def forward(self, frames: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(frames))  # type: ignore[no-any-return]


class PretrainedIconNet(nn.Module):
    """Frames ``(N, 1, 32, 32)`` -> logits: dark ink on white, enlarged, through MobileNetV2's first blocks.

    The grid is flattened, not pooled, so that where a stroke lies (an arrow's direction) stays readable.
    """

    def __init__(self, classes: int, pretrained: bool = True, size: int = PRETRAINED_SIZE) -> None:
        super().__init__()
        from training.reader.model import MEAN, SPLIT, STD, backbone

        self.size = size
        self.features = backbone(pretrained)[:SPLIT]
        self.register_buffer("mean", torch.tensor(MEAN).reshape(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor(STD).reshape(1, 3, 1, 1))
        cells = (size // 16) ** 2
        self.head = nn.Sequential(
            nn.Flatten(),
            nn.Dropout(0.2),
            nn.Linear(96 * cells, 256),
            nn.ReLU(inplace=True),
            nn.Dropout(0.2),
            nn.Linear(256, classes),
        )

    def forward(self, frames: torch.Tensor) -> torch.Tensor:
        paper = 1.0 - functional.interpolate(
            frames, size=(self.size, self.size), mode="bilinear", align_corners=False
        )
        mean, std = self.get_buffer("mean"), self.get_buffer("std")
        image = (paper.expand(-1, 3, -1, -1) - mean) / std
        return self.head(self.features(image))  # type: ignore[no-any-return]


def build(classes: int, arch: str = "small", width: int = 32, pretrained: bool = False) -> nn.Module:
    """The network a checkpoint names (``arch``, ``width``); ImageNet weights only when ``pretrained``."""
    if arch == "mobilenet":
        return PretrainedIconNet(classes, pretrained=pretrained)
    if arch == "small":
        return IconNet(classes, width)
    raise ValueError(f"unknown icon network {arch!r}; one of {ARCHITECTURES}")
