"""Screens the tests render themselves with Pillow, with the ground truth of what was drawn."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")


def ui_font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """DejaVu Sans when installed, else Pillow's bundled scalable font."""
    path = FONT_DIR / ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")
    if path.is_file():
        return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size=size)


@dataclass
class Drawn:
    """One widget the renderer drew, with its box and attributes."""

    kind: str
    bbox: tuple[int, int, int, int]
    text: str | None = None
    color: str | None = None
    checked: bool | None = None


@dataclass
class RenderedScreen:
    image: Image.Image
    drawn: list[Drawn] = field(default_factory=list)

    def png_bytes(self) -> bytes:
        buffer = io.BytesIO()
        self.image.save(buffer, format="PNG")
        return buffer.getvalue()

    def of_kind(self, kind: str) -> list[Drawn]:
        return [d for d in self.drawn if d.kind == kind]


class ScreenPainter:
    """Draws common widgets on a canvas and records what it drew."""

    def __init__(self, width: int, height: int, background: tuple[int, int, int] = (255, 255, 255)) -> None:
        self.image = Image.new("RGB", (width, height), background)
        self.draw = ImageDraw.Draw(self.image)
        self.drawn: list[Drawn] = []

    def text(
        self,
        xy: tuple[int, int],
        text: str,
        size: int = 22,
        fill: tuple[int, int, int] = (20, 20, 20),
        bold: bool = False,
        color: str | None = "black",
    ) -> Drawn:
        font = ui_font(size, bold)
        x1, y1, x2, y2 = (int(v) for v in self.draw.textbbox(xy, text, font=font))
        self.draw.text(xy, text, font=font, fill=fill)
        return self._add(Drawn("text", (x1, y1, x2, y2), text=text, color=color))

    def button(
        self,
        box: tuple[int, int, int, int],
        label: str,
        fill: tuple[int, int, int],
        text_fill: tuple[int, int, int] = (255, 255, 255),
        color: str | None = None,
        size: int = 22,
        bold: bool = True,
        outline: tuple[int, int, int] | None = None,
        radius: int = 6,
    ) -> Drawn:
        self.draw.rounded_rectangle(box, radius=radius, fill=fill, outline=outline)
        font = ui_font(size, bold=bold)
        tx1, ty1, tx2, ty2 = self.draw.textbbox((0, 0), label, font=font)
        cx, cy = (box[0] + box[2]) // 2, (box[1] + box[3]) // 2
        self.draw.text(
            (cx - (tx2 - tx1) // 2 - tx1, cy - (ty2 - ty1) // 2 - ty1), label, font=font, fill=text_fill
        )
        return self._add(Drawn("button", box, text=label, color=color))

    def input(self, box: tuple[int, int, int, int], placeholder: str = "") -> Drawn:
        self.draw.rectangle(box, fill=(255, 255, 255), outline=(150, 150, 150), width=2)
        if placeholder:
            font = ui_font(20)
            self.draw.text(
                (box[0] + 12, box[1] + (box[3] - box[1] - 20) // 2),
                placeholder,
                font=font,
                fill=(120, 120, 120),
            )
        return self._add(Drawn("input", box, text=placeholder or None, color="white"))

    def checkbox(self, xy: tuple[int, int], checked: bool, size: int = 22) -> Drawn:
        x, y = xy
        box = (x, y, x + size, y + size)
        if checked:
            self.draw.rectangle(box, fill=(30, 100, 220), outline=(30, 100, 220), width=2)
            self.draw.line(
                [(x + 5, y + size // 2), (x + size // 2 - 1, y + size - 6), (x + size - 5, y + 5)],
                fill=(255, 255, 255),
                width=3,
            )
        else:
            self.draw.rectangle(box, fill=(255, 255, 255), outline=(110, 110, 110), width=2)
        return self._add(Drawn("checkbox", box, checked=checked))

    def radio(self, xy: tuple[int, int], checked: bool, size: int = 22) -> Drawn:
        x, y = xy
        box = (x, y, x + size, y + size)
        self.draw.ellipse(box, fill=(255, 255, 255), outline=(110, 110, 110), width=2)
        if checked:
            inset = size // 4
            self.draw.ellipse((x + inset, y + inset, x + size - inset, y + size - inset), fill=(30, 100, 220))
        return self._add(Drawn("radio", box, checked=checked))

    def rect(
        self, box: tuple[int, int, int, int], fill: tuple[int, int, int], color: str | None = None
    ) -> Drawn:
        self.draw.rectangle(box, fill=fill)
        return self._add(Drawn("rect", box, color=color))

    def _add(self, drawn: Drawn) -> Drawn:
        self.drawn.append(drawn)
        return drawn

    def done(self) -> RenderedScreen:
        return RenderedScreen(self.image, self.drawn)


def render_form(width: int = 1920, height: int = 1080) -> RenderedScreen:
    """An ordinary sign-up form: title, labelled inputs, checkboxes, radios and two buttons."""
    p = ScreenPainter(width, height, background=(246, 247, 249))
    p.rect((0, 0, width, 64), fill=(33, 37, 41), color="black")
    p.text((32, 18), "Acme Portal", size=26, fill=(255, 255, 255), bold=True, color="white")
    p.rect((560, 120, 1360, 960), fill=(255, 255, 255), color="white")
    p.text((620, 160), "Create your account", size=34, bold=True)
    p.text((620, 240), "Email address", size=22)
    p.input((620, 276, 1300, 326), placeholder="name@example.com")
    p.text((620, 356), "Password", size=22)
    p.input((620, 392, 1300, 442))
    p.checkbox((620, 482), checked=True)
    p.text((660, 480), "Remember me", size=22)
    p.checkbox((620, 532), checked=False)
    p.text((660, 530), "Send me the newsletter", size=22)
    p.radio((620, 592), checked=True)
    p.text((660, 590), "Personal", size=22)
    p.radio((820, 592), checked=False)
    p.text((860, 590), "Business", size=22)
    p.button((620, 660, 860, 716), "Submit", fill=(37, 99, 235), color="blue")
    p.button((900, 660, 1140, 716), "Cancel", fill=(220, 38, 38), color="red")
    p.text((620, 760), "Forgot your password?", size=20, fill=(37, 99, 235), color="blue")
    return p.done()


def ocr_truth(screen: RenderedScreen) -> list[Drawn]:
    """What a perfect OCR would read from a screen: its text runs plus the button labels and input
    placeholders the painter drew (their boxes recomputed with the painter's fonts and layout)."""
    measure = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    lines: list[Drawn] = []
    for d in screen.drawn:
        if d.kind == "text":
            lines.append(d)
        elif d.kind == "button" and d.text:
            font = ui_font(22, bold=True)
            tx1, ty1, tx2, ty2 = (int(v) for v in measure.textbbox((0, 0), d.text, font=font))
            cx, cy = (d.bbox[0] + d.bbox[2]) // 2, (d.bbox[1] + d.bbox[3]) // 2
            x, y = cx - (tx2 - tx1) // 2, cy - (ty2 - ty1) // 2
            lines.append(Drawn("text", (x, y, x + tx2 - tx1, y + ty2 - ty1), text=d.text))
        elif d.kind == "input" and d.text:
            font = ui_font(20)
            xy = (d.bbox[0] + 12, d.bbox[1] + (d.bbox[3] - d.bbox[1] - 20) // 2)
            x1, y1, x2, y2 = (int(v) for v in measure.textbbox(xy, d.text, font=font))
            lines.append(Drawn("text", (x1, y1, x2, y2), text=d.text))
    return lines


def draw_icon(
    painter: ScreenPainter,
    xy: tuple[int, int],
    set_id: str,
    glyph: str,
    size: int = 24,
    fill: tuple[int, int, int] = (20, 20, 20),
) -> Drawn:
    """Draw an icon-font glyph (a set of ``icons/index.json``, a glyph of its charmap) with its box's
    top-left at ``xy``, from the font files shipped in the qtawesome package (not imported: it needs Qt)."""
    import importlib.util
    import json

    spec = importlib.util.find_spec("qtawesome")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("qtawesome is not installed (its font files draw the icons)")
    fonts = Path(next(iter(spec.submodule_search_locations))) / "fonts"
    index = json.loads((Path(__file__).resolve().parent.parent / "icons" / "index.json").read_text("utf-8"))
    font_file = index["sets"][set_id]["font"]
    family, _, version = font_file.removesuffix(".ttf").rpartition("-")
    charmap = json.loads((fonts / f"{family}-charmap-{version}.json").read_text("utf-8"))
    char = chr(int(charmap[glyph], 16))
    font = ImageFont.truetype(str(fonts / font_file), size, layout_engine=ImageFont.Layout.BASIC)
    left, top, _, _ = (int(v) for v in font.getbbox(char))
    origin = (xy[0] - left, xy[1] - top)
    x1, y1, x2, y2 = (int(v) for v in painter.draw.textbbox(origin, char, font=font))
    painter.draw.text(origin, char, font=font, fill=fill)
    return painter._add(Drawn("icon", (x1, y1, x2, y2)))


TOOLBAR_ICONS = (
    ("bars", "menu"),
    ("magnifying-glass", "search"),
    ("bell", "bell"),
    ("gear", "settings"),
    ("location-dot", "location"),
    ("xmark", "close"),
)


def render_form_with_icons(width: int = 1920, height: int = 1080) -> RenderedScreen:
    """:func:`render_form` plus a toolbar of icons (recorded with their pack names as ``text``)."""
    screen = render_form(width, height)
    painter = ScreenPainter(width, height)
    painter.image, painter.draw, painter.drawn = screen.image, ImageDraw.Draw(screen.image), screen.drawn
    painter.rect((0, 64, width, 120), fill=(255, 255, 255), color="white")
    colours = ((20, 20, 20), (37, 99, 235), (220, 38, 38), (22, 163, 74), (20, 20, 20), (100, 100, 100))
    for index, ((glyph, name), fill) in enumerate(zip(TOOLBAR_ICONS, colours, strict=True)):
        drawn = draw_icon(painter, (40 + index * 72, 78), "fa6-solid", glyph, size=28, fill=fill)
        drawn.text = name
    return painter.done()


DASHBOARD_WORDS = (
    "revenue", "orders", "refunds", "customers", "sessions", "region", "north", "south", "east", "west",
    "pending", "shipped", "paid", "overdue", "active", "paused", "archived", "invoice", "account", "total",
    "weekly", "monthly", "report", "sales", "team", "support", "tickets", "open", "closed", "average",
    "growth", "target", "budget", "forecast", "status", "owner", "updated", "priority", "review", "billing",
)  # fmt: skip
DASHBOARD_MENU = (
    "Overview", "Analytics", "Customers", "Orders", "Products", "Inventory", "Invoices", "Payments",
    "Reports", "Campaigns", "Support", "Tickets", "Team", "Calendar", "Messages", "Documents", "Integrations",
    "Settings", "Billing", "Help Center", "Sign out",
)  # fmt: skip


def render_dense_dashboard(width: int = 1920, height: int = 1080, seed: int = 7) -> RenderedScreen:
    """A text-dense admin dashboard (about 280 text lines at 13-16 px): a side menu, KPI cards, a wide
    table and an activity feed, every string recorded as a ``text`` drawing (fixed by ``seed``)."""
    import random

    rng = random.Random(seed)
    p = ScreenPainter(width, height, background=(244, 246, 250))

    def phrase(n: int) -> str:
        return " ".join(rng.choice(DASHBOARD_WORDS) for _ in range(n)).capitalize()

    p.rect((0, 0, 220, height), fill=(30, 34, 44), color="black")
    p.text((20, 18), "Northwind Admin", size=18, bold=True, fill=(255, 255, 255), color="white")
    for i, item in enumerate(DASHBOARD_MENU):
        p.text((28, 64 + i * 32), item, size=15, fill=(210, 214, 222), color="white")
    p.rect((220, 0, width, 56), fill=(255, 255, 255), color="white")
    p.text((244, 16), "Sales dashboard", size=20, bold=True)
    p.text((width - 420, 19), "Last updated 12 minutes ago", size=14, fill=(90, 90, 90))
    p.text((width - 160, 19), "Jane Cooper", size=14, fill=(37, 99, 235), color="blue")
    for i in range(6):  # KPI cards: a label, a figure and a trend each
        x = 244 + i * 276
        p.rect((x, 76, x + 260, 170), fill=(255, 255, 255), color="white")
        p.text((x + 14, 88), phrase(2), size=14, fill=(90, 90, 90))
        p.text((x + 14, 112), f"{rng.randint(1000, 99999):,}", size=22, bold=True)
        p.text((x + 14, 146), f"+{rng.randint(1, 40)}.{rng.randint(0, 9)}% vs last week", size=13,
               fill=(22, 130, 60), color="green")  # fmt: skip
    table_x, table_y, row_h = 244, 196, 26
    columns = (("Invoice", 110), ("Customer", 200), ("Region", 110), ("Status", 110), ("Amount", 110),
               ("Updated", 120), ("Owner", 150))  # fmt: skip
    p.rect((table_x, table_y, 1340, height - 20), fill=(255, 255, 255), color="white")
    x = table_x + 14
    for name, w in columns:
        p.text((x, table_y + 10), name, size=14, bold=True)
        x += w
    first, last = (
        ("Ava", "Liam", "Noah", "Emma", "Mia", "Lucas", "Zoe", "Omar"),
        ("Reed", "Park", "Diaz", "Khan"),
    )
    for r in range(31):
        y = table_y + 40 + r * row_h
        cells = (
            f"INV-{rng.randint(10000, 99999)}",
            f"{rng.choice(first)} {rng.choice(last)}",
            rng.choice(("North", "South", "East", "West")),
            rng.choice(("Paid", "Pending", "Overdue", "Shipped")),
            f"${rng.randint(10, 9999)}.{rng.randint(10, 99)}",
            f"{rng.randint(1, 28)} Mar 2024",
            rng.choice(("Sales team", "Support", "Billing", "Partners")),
        )
        x = table_x + 14
        for (_, w), cell in zip(columns, cells, strict=True):
            p.text((x, y), cell, size=14, fill=(40, 40, 40))
            x += w
    feed_x = 1360
    p.rect((feed_x, table_y, width - 20, height - 20), fill=(255, 255, 255), color="white")
    p.text((feed_x + 14, table_y + 10), "Recent activity", size=15, bold=True)
    for r in range(38):
        p.text((feed_x + 14, table_y + 40 + r * 22), phrase(rng.randint(3, 5)), size=13, fill=(60, 60, 60))
    return p.done()


def render_small_controls_page(width: int = 1920, height: int = 3240) -> RenderedScreen:
    """A full-page capture of compact controls: every 1080 px, four rows of ten 72x26 toolbar buttons
    (13 px labels) and five 14 px checkboxes with labels."""
    p = ScreenPainter(width, height, background=(246, 247, 249))
    labels = ["Open", "Save", "Copy", "Paste", "Undo", "Redo", "Print", "Share", "Find", "Zoom"]
    for top in range(100, height - 800, 1080):
        for y in range(top, top + 800, 200):
            for k, label in enumerate(labels):
                x = 120 + 170 * k
                p.button(
                    (x, y, x + 72, y + 26),
                    label,
                    fill=(225, 228, 232),
                    text_fill=(30, 30, 30),
                    size=13,
                    bold=False,
                    outline=(160, 165, 170),
                    radius=4,
                )
            for k in range(5):
                p.checkbox((120 + 300 * k, y + 80), checked=k % 2 == 0, size=14)
                p.text((142 + 300 * k, y + 79), f"Option {k + 1}", size=13)
    return p.done()
