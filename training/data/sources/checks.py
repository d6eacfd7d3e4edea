"""Settings pages full of checkboxes, radios and switches, on and off, in the looks real screens use.

The other web sources draw a few checkables per page, mostly native checkboxes; real screens (Android
settings, iOS, Material, Windows 11, Bootstrap) are full of switches whose state is a thumb's side and a
track's colour. Each page here is one look (:data:`LOOKS`) in one of the web source's themes (light or
dark, accent, font), at a desktop or phone viewport, laid out as settings rows (label left, control
right), a form column (control left, label right) or a grid of options. Half of the controls carry their
role on the whole row (a clickable settings row, as Android's view hierarchy reports it), half on the
indicator alone. Labels come from the DOM pass every web source shares (``role=switch`` is a toggle,
``aria-checked`` its state).
The template is ``checks/<look>/<layout>``, so a split holds looks it never trained on.
"""

from __future__ import annotations

import html
import random

from PIL import Image

from training.data.labels import ScreenLabels
from training.data.sources.dom import labelled_screen
from training.data.sources.web import ACCENTS, Theme, WebRenderer

VIEWPORTS = (
    (1280, 800, 1.0, False),
    (1920, 1080, 1.0, False),
    (1440, 900, 2.0, False),
    (412, 915, 2.6, True),
    (360, 800, 3.0, True),
)
LAYOUTS = ("rows", "form", "grid")
WORDS = (
    "Wi-Fi",
    "Bluetooth",
    "Airplane mode",
    "Notifications",
    "Dark theme",
    "Location",
    "Auto-rotate",
    "Battery saver",
    "Sync",
    "Show hidden files",
    "Remember me",
    "Send usage statistics",
    "Open in new window",
    "Check for updates",
    "Use proxy",
    "Autoplay videos",
    "Subtitles",
    "Two-factor sign-in",
    "Email me",
    "Compact view",
    "Line numbers",
    "Word wrap",
    "Spell check",
    "Night light",
    "Do not disturb",
    "Hotspot",
    "NFC",
    "Vibrate",
    "Sound",
    "Auto-brightness",
    "Backup",
    "Data saver",
    "Public profile",
    "Read receipts",
)
TRACK_OFF = {"light": "#c8c8cc", "dark": "#5c5c60"}

# Each look: CSS for .cb (checkbox), .rd (radio) and .sw (switch); the state is the [aria-checked] flag.
LOOKS: dict[str, str] = {
    "material": """
.cb{width:18px;height:18px;border:2px solid var(--muted);border-radius:2px;position:relative}
.cb[data-on]{background:var(--accent);border-color:var(--accent)}
.cb[data-on]::after{content:'';position:absolute;left:4px;top:0;width:5px;height:10px;border:solid #fff;
 border-width:0 2px 2px 0;transform:rotate(45deg)}
.rd{width:20px;height:20px;border:2px solid var(--muted);border-radius:50%;position:relative}
.rd[data-on]{border-color:var(--accent)} .rd[data-on]::after{content:'';position:absolute;inset:3px;
 border-radius:50%;background:var(--accent)}
.sw{width:36px;height:14px;border-radius:7px;background:var(--track);position:relative;margin:3px 0}
.sw::after{content:'';position:absolute;top:-3px;left:-2px;width:20px;height:20px;border-radius:50%;
 background:#f1f1f1;box-shadow:0 1px 3px rgba(0,0,0,.5)}
.sw[data-on]{background:color-mix(in srgb,var(--accent) 50%,transparent)}
.sw[data-on]::after{left:18px;background:var(--accent)}""",
    "material3": """
.cb{width:18px;height:18px;border:2px solid var(--muted);border-radius:3px;position:relative}
.cb[data-on]{background:var(--accent);border-color:var(--accent)}
.cb[data-on]::after{content:'';position:absolute;left:4px;top:0;width:5px;height:10px;border:solid #fff;
 border-width:0 2px 2px 0;transform:rotate(45deg)}
.rd{width:20px;height:20px;border:2px solid var(--muted);border-radius:50%;position:relative}
.rd[data-on]{border-color:var(--accent)} .rd[data-on]::after{content:'';position:absolute;inset:3px;
 border-radius:50%;background:var(--accent)}
.sw{width:52px;height:32px;border-radius:16px;border:2px solid var(--muted);background:var(--surface);
 position:relative;box-sizing:border-box}
.sw::after{content:'';position:absolute;top:6px;left:6px;width:16px;height:16px;border-radius:50%;
 background:var(--muted)}
.sw[data-on]{background:var(--accent);border-color:var(--accent)}
.sw[data-on]::after{top:2px;left:22px;width:24px;height:24px;background:#fff}""",
    "ios": """
.cb{width:22px;height:22px;border:1.5px solid var(--muted);border-radius:50%;position:relative}
.cb[data-on]{background:var(--accent);border-color:var(--accent)}
.cb[data-on]::after{content:'';position:absolute;left:7px;top:3px;width:5px;height:10px;border:solid #fff;
 border-width:0 2px 2px 0;transform:rotate(45deg)}
.rd{width:18px;height:18px;position:relative}
.rd[data-on]::after{content:'';position:absolute;left:5px;top:0;width:6px;height:12px;
 border:solid var(--accent);border-width:0 2.5px 2.5px 0;transform:rotate(45deg)}
.sw{width:51px;height:31px;border-radius:16px;background:var(--track);position:relative}
.sw::after{content:'';position:absolute;top:2px;left:2px;width:27px;height:27px;border-radius:50%;
 background:#fff;box-shadow:0 2px 4px rgba(0,0,0,.3)}
.sw[data-on]{background:var(--accent)} .sw[data-on]::after{left:22px}""",
    "windows": """
.cb{width:20px;height:20px;border:1px solid var(--muted);border-radius:4px;position:relative}
.cb[data-on]{background:var(--accent);border-color:var(--accent)}
.cb[data-on]::after{content:'';position:absolute;left:6px;top:2px;width:5px;height:10px;border:solid #fff;
 border-width:0 1.5px 1.5px 0;transform:rotate(45deg)}
.rd{width:20px;height:20px;border:1px solid var(--muted);border-radius:50%;position:relative}
.rd[data-on]{background:var(--accent);border-color:var(--accent)}
.rd[data-on]::after{content:'';position:absolute;inset:5px;border-radius:50%;background:#fff}
.sw{width:40px;height:20px;border-radius:10px;border:1px solid var(--muted);position:relative;
 box-sizing:border-box}
.sw::after{content:'';position:absolute;top:4px;left:4px;width:10px;height:10px;border-radius:50%;
 background:var(--muted)}
.sw[data-on]{background:var(--accent);border-color:var(--accent)}
.sw[data-on]::after{left:24px;background:#fff}""",
    "classic": """
.cb{width:13px;height:13px;border:1px solid var(--muted);background:var(--surface);position:relative}
.cb[data-on]::after{content:'';position:absolute;left:3px;top:0;width:4px;height:8px;border:solid var(--fg);
 border-width:0 2px 2px 0;transform:rotate(45deg)}
.rd{width:13px;height:13px;border:1px solid var(--muted);border-radius:50%;background:var(--surface);
 position:relative}
.rd[data-on]::after{content:'';position:absolute;inset:3px;border-radius:50%;background:var(--fg)}
.sw{width:34px;height:16px;border:1px solid var(--muted);background:var(--surface);position:relative}
.sw::after{content:'';position:absolute;top:1px;left:1px;width:14px;height:12px;background:var(--muted)}
.sw[data-on]::after{left:17px;background:var(--accent)}""",
    "bootstrap": """
.cb{width:16px;height:16px;border:1px solid var(--muted);border-radius:4px;position:relative}
.cb[data-on]{background:var(--accent);border-color:var(--accent)}
.cb[data-on]::after{content:'';position:absolute;left:5px;top:1px;width:4px;height:9px;border:solid #fff;
 border-width:0 2px 2px 0;transform:rotate(45deg)}
.rd{width:16px;height:16px;border:1px solid var(--muted);border-radius:50%;position:relative}
.rd[data-on]{background:var(--accent);border-color:var(--accent)}
.rd[data-on]::after{content:'';position:absolute;inset:4px;border-radius:50%;background:#fff}
.sw{width:32px;height:16px;border-radius:8px;border:1px solid var(--muted);position:relative;
 box-sizing:border-box}
.sw::after{content:'';position:absolute;top:2px;left:2px;width:10px;height:10px;border-radius:50%;
 background:var(--muted)}
.sw[data-on]{background:var(--accent);border-color:var(--accent)}
.sw[data-on]::after{left:18px;background:#fff}""",
    "native": "",
}


def _variables(theme: Theme) -> str:
    """The CSS variables the looks use, from one of the synthetic web source's themes."""
    track = TRACK_OFF["dark" if theme.dark else "light"]
    return (
        f":root{{--accent:{theme.accent};--bg:{theme.bg};--surface:{theme.surface};--fg:{theme.fg};"
        f"--muted:{theme.muted};--track:{track};color-scheme:{'dark' if theme.dark else 'light'};"
        f"accent-color:{theme.accent}}}"
    )


def _control(kind: str, on: bool, look: str) -> str:
    """The indicator of one control (a native input in the ``native`` look)."""
    if look == "native":
        if kind == "sw":
            return f'<input type="checkbox"{" checked" if on else ""} tabindex="-1">'
        kind_name = "checkbox" if kind == "cb" else "radio"
        return f'<input type="{kind_name}"{" checked" if on else ""} tabindex="-1">'
    return f'<span class="{kind} ind"{" data-on" if on else ""}></span>'


def _item(rng: random.Random, kind: str, look: str, layout: str) -> str:
    """One labelled control; its role sits on the whole row or on the indicator alone."""
    on = rng.random() < 0.5
    label = html.escape(" ".join(rng.sample(WORDS, rng.randint(1, 2))))
    text = f'<span class="lbl">{label}</span>'
    if rng.random() < 0.4 and layout == "rows":
        sub = html.escape(rng.choice(WORDS))
        text = f'<span class="lbl">{label}<br><small class="sub">{sub}</small></span>'
    control = _control(kind, on, look)
    inner = text + control if layout == "rows" else control + text
    if look == "native":  # the input carries its own role and checked state
        return f'<label class="item {layout}">{inner}</label>'
    role = {"cb": "checkbox", "rd": "radio", "sw": "switch"}[kind]
    aria = f'role="{role}" aria-checked="{"true" if on else "false"}"'
    if rng.random() < 0.5:  # a clickable row, as Android's view hierarchy reports a settings row
        return f'<div class="item {layout}" {aria}>{inner}</div>'
    marked = control.replace("<span ", f"<span {aria} ", 1)
    return f'<div class="item {layout}">{inner.replace(control, marked)}</div>'


def page_html(rng: random.Random, look: str, layout: str, mobile: bool) -> str:
    """One settings page of ``look`` and ``layout``, its groups filling the viewport in columns.

    A full page (a title bar, groups in columns, some in tinted cards) keeps screens apart for the
    near-duplicate check of the splits, which drops sparse pages that look alike.
    """
    theme = Theme.random(rng)
    size = theme.size + (2 if mobile else 0)
    kinds = ("sw",) * 3 + ("cb",) * 2 + ("rd",)
    sections = []
    for _ in range(rng.randint(3, 4) if mobile else rng.randint(4, 9)):
        kind = rng.choice(kinds)
        items = "".join(_item(rng, kind, look, layout) for _ in range(rng.randint(2, 6)))
        tint = f" style='background:{rng.choice(ACCENTS)}22'" if rng.random() < 0.3 else ""
        title = html.escape(rng.choice(WORDS))
        sections.append(f"<section><h3>{title}</h3><div class='group'{tint}>{items}</div></section>")
    column = "100%" if mobile else f"{rng.choice((300, 360, 420, 520))}px"
    bar = html.escape(" ".join(rng.sample(WORDS, 2)))
    return f"""<!doctype html><html><head><style>{_variables(theme)}
* {{box-sizing:border-box}} body{{margin:0;background:var(--bg);color:var(--fg);font:{size}px '{theme.font}'}}
header{{padding:{rng.choice((10, 16, 22))}px 16px;font-size:{size + 4}px;background:{rng.choice(ACCENTS)};
 color:#fff}}
main{{padding:12px;display:grid;grid-template-columns:repeat(auto-fill,minmax({column},1fr));gap:12px;
 align-items:start}}
.sub{{color:var(--muted)}} h3{{font-size:{size + 1}px;margin:10px 8px 4px}}
.group{{background:var(--surface);border-radius:{rng.choice((0, 4, 8, 12))}px}}
.item{{display:flex;align-items:center;gap:12px;padding:{rng.choice((8, 12, 16))}px 12px;cursor:pointer}}
.item.rows{{justify-content:space-between;
 border-bottom:1px solid color-mix(in srgb,var(--muted) 30%,transparent)}}
.item.grid{{display:inline-flex;width:48%}}
.ind{{display:inline-block;flex:none}}
{LOOKS[look]}
</style></head><body><header>{bar}</header><main>{"".join(sections)}</main></body></html>"""


class ChecksRenderer(WebRenderer):
    """Settings pages of checkables in headless Chromium (see the module docstring); the browser, the page
    loading and the screenshot are the synthetic web source's."""

    source = "web-checks"

    def render(self, seed: int) -> tuple[Image.Image, ScreenLabels]:
        """One page: a look, a layout and a viewport drawn from the seed."""
        rng = random.Random(f"checks-{seed}")
        look = rng.choice(sorted(LOOKS))
        layout = rng.choice(LAYOUTS)
        width, height, scale, mobile = rng.choice(VIEWPORTS)
        image = self.render_html(page_html(rng, look, layout, mobile), width, height, scale, mobile)
        assert self.driver is not None
        meta = {"look": look, "layout": layout, "viewport": [width, height]}
        return labelled_screen(
            self.driver, self.source, f"checks/{look}/{layout}", seed, scale, meta, image=image
        )
