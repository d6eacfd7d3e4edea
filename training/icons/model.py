"""The icon classifier: a small CNN over the 32x32 normalised ink frame (about 0.3 M parameters)."""

from __future__ import annotations

import torch
from torch import nn


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
