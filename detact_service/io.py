"""Image input: bytes or files in, a validated ``(H, W, 3)`` uint8 RGB array out.

Every way a client's bytes can be wrong maps to one :class:`ImageError` subclass with an HTTP status,
so the API answers 4xx with a clear message and never crashes on input.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import io
import warnings
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image, ImageOps

from detact_service.stages import RGBImage

if TYPE_CHECKING:
    import numpy.typing as npt

    ImageLike = str | PathLike[str] | bytes | bytearray | Image.Image | npt.NDArray[np.uint8]
    """Whatever the library entry points take as a screenshot."""
else:
    ImageLike = Any


class ImageError(ValueError):
    """The input is not a usable image."""

    status_code = 400
    code = "invalid_image"


class NotAnImage(ImageError):
    code = "not_an_image"


class TruncatedImage(ImageError):
    code = "truncated_image"


class EmptyImage(ImageError):
    code = "empty_image"


class ImageTooLarge(ImageError):
    status_code = 413
    code = "image_too_large"


class UnsupportedImage(ImageError):
    status_code = 415
    code = "unsupported_image"


def load_image(data: bytes, *, max_pixels: int, max_bytes: int | None = None) -> RGBImage:
    """Decode ``data`` into an RGB array, checking size limits before decoding pixels."""
    if not data:
        raise EmptyImage("the upload is empty (0 bytes)")
    if max_bytes is not None and len(data) > max_bytes:
        raise ImageTooLarge(f"upload is {len(data)} bytes; the limit is {max_bytes} bytes")
    with warnings.catch_warnings():
        # Our own pixel limit below replaces Pillow's bomb warning/error.
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            image = Image.open(io.BytesIO(data))
        except Image.DecompressionBombError as exc:
            raise ImageTooLarge(f"image dimensions are too large: {exc}") from None
        except Exception as exc:  # decoders, and plugins that patch them, raise anything
            raise NotAnImage(f"cannot identify an image in the upload ({type(exc).__name__})") from None
        width, height = image.size
        if width <= 0 or height <= 0:
            raise EmptyImage(f"image has zero size ({width}x{height})")
        if width * height > max_pixels:
            raise ImageTooLarge(
                f"image is {width}x{height} = {width * height} pixels; the limit is {max_pixels} pixels"
            )
        try:
            image.load()
        except Image.DecompressionBombError as exc:
            raise ImageTooLarge(f"image dimensions are too large: {exc}") from None
        except (OSError, ValueError, SyntaxError, EOFError) as exc:
            raise TruncatedImage(f"image data is truncated or corrupt: {exc}") from None
    return to_rgb_array(image)


def load_image_file(path: str | Path, *, max_pixels: int = 40_000_000) -> RGBImage:
    """Read and validate an image file from disk."""
    try:
        data = Path(path).read_bytes()
    except IsADirectoryError:
        raise NotAnImage(f"{path} is a directory") from None
    return load_image(data, max_pixels=max_pixels)


def to_rgb_array(image: Image.Image) -> RGBImage:
    """Convert any Pillow mode to RGB; transparency is composited on white (how screens show it)."""
    # A broken EXIF block must not reject an otherwise good image.
    with contextlib.suppress(Exception):
        image = ImageOps.exif_transpose(image) or image
    mode = image.mode
    if mode in {"I;16", "I;16B", "I;16L", "I;16N", "I", "F"}:
        image = _scale_to_8bit(np.asarray(image, dtype=np.float64))
        mode = image.mode
    if mode in {"RGBA", "LA", "PA"} or (mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        image = Image.alpha_composite(background, rgba)
    try:
        rgb = image.convert("RGB")
    except (ValueError, OSError) as exc:
        raise UnsupportedImage(f"cannot convert image mode {mode!r} to RGB: {exc}") from None
    array = np.asarray(rgb, dtype=np.uint8)
    if array.ndim != 3 or array.shape[2] != 3:
        raise UnsupportedImage(f"unexpected pixel layout {array.shape} for mode {mode!r}")
    return np.ascontiguousarray(array)


def _scale_to_8bit(values: np.ndarray) -> Image.Image:
    if values.ndim == 3:
        values = values[..., 0]
    low, high = float(np.nanmin(values)), float(np.nanmax(values))
    if not np.isfinite(low) or not np.isfinite(high):
        raise UnsupportedImage("image holds non-finite pixel values")
    scale = 255.0 / (high - low) if high > low else 0.0
    scaled = np.clip((values - low) * scale, 0, 255).astype(np.uint8)
    return Image.fromarray(scaled, mode="L")


def _decode_text(text: str) -> bytes | Path:
    """A string image: a file path when one exists, else base64 (a ``data:`` URL prefix allowed)."""
    stripped = text.strip()
    if not stripped:
        raise ValueError("the image is an empty string")
    if stripped.startswith("data:"):
        header, sep, stripped = stripped.partition(",")
        if not sep or not header.endswith(";base64"):
            raise ValueError("a data: URL must be base64-encoded (data:<type>;base64,<data>)")
    elif len(stripped) < 1024 and "\n" not in stripped:
        path = Path(stripped).expanduser()
        if path.exists():
            return path
        if "/" in stripped or "\\" in stripped or "." in stripped[-6:]:
            raise FileNotFoundError(f"no such image file: {stripped}")
    try:
        return base64.b64decode("".join(stripped.split()), validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("the image is neither an existing file path nor valid base64") from None


def load_any_image(image: ImageLike, max_pixels: int = 40_000_000) -> RGBImage:
    """An RGB array from a path, base64 text, file bytes, PIL image or ``(H, W[, C])`` uint8 array.

    Bad input raises :class:`~detact_service.io.ImageError` (or ``FileNotFoundError``, ``ValueError``).
    """
    if isinstance(image, str):
        decoded = _decode_text(image)
        if isinstance(decoded, Path):
            return load_image_file(decoded, max_pixels=max_pixels)
        return load_image(decoded, max_pixels=max_pixels)
    if isinstance(image, PathLike):
        return load_image_file(Path(image), max_pixels=max_pixels)
    if isinstance(image, bytes | bytearray):
        return load_image(bytes(image), max_pixels=max_pixels)
    if isinstance(image, Image.Image):
        return to_rgb_array(image)
    array = np.asarray(image)
    if array.dtype != np.uint8 or array.ndim not in (2, 3):
        raise ValueError(f"an image array must be (H, W[, C]) uint8, not {array.shape} {array.dtype}")
    if array.ndim == 3 and array.shape[2] == 3:
        return np.ascontiguousarray(array)
    buffer = io.BytesIO()
    Image.fromarray(array).save(buffer, format="PNG")
    return to_rgb_array(Image.open(buffer))
