"""Shared headless-Chromium plumbing for the web sources: the driver, viewports, screenshots and DOM labels.

Labels come from ONE injected JavaScript pass per page (:data:`LABEL_JS`): every element whose tag or
role maps to an :class:`~detact_service.core.ElementType` (or that is small and has a click handler set
by attribute, d3 or jQuery: a button; or that matches a caller-given selector; a ``<li>`` that is a
bullet of running text, its marker drawn and nothing making it a choice, is text, not a list item), plus
runs of text, each with its box in CSS pixels (clipped to the viewport), state and visible text.
Elements that are hidden (``display``/``visibility``/opacity along the ancestor chain) or covered
(``elementFromPoint`` at the centre and four inner points hits something that is neither the element,
inside it, nor around it) are dropped. Python scales boxes by the device pixel ratio into screenshot
pixels and names each element's colour with the runtime's own
:func:`~detact_service.understanding.colors.element_color`.
"""

from __future__ import annotations

import base64
import contextlib
import io
import shutil
import tempfile
from collections.abc import Sequence
from typing import Any

import numpy as np
from PIL import Image
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from detact_service.core import Element, ElementState, ElementType
from detact_service.understanding.colors import element_color
from training.data.labels import ScreenLabels

CHROME_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
CHROME_BINARY = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"

LABEL_JS = r"""
const opts = arguments[0] || {};
const W = window.innerWidth, H = window.innerHeight;
const INPUT_TYPES = {checkbox: 'checkbox', radio: 'radio', range: 'slider', button: 'button',
  submit: 'button', reset: 'button', image: 'button', color: 'button', file: 'button'};
const ROLES = {button: 'button', link: 'link', checkbox: 'checkbox', radio: 'radio', tab: 'tab',
  menuitem: 'menu_item', menuitemcheckbox: 'menu_item', menuitemradio: 'menu_item', option: 'list_item',
  listitem: 'list_item', slider: 'slider', switch: 'toggle', scrollbar: 'scrollbar', combobox: 'dropdown',
  textbox: 'input', searchbox: 'input', img: 'image', dialog: 'region', alertdialog: 'region',
  menu: 'region', toolbar: 'region', tablist: 'region', navigation: 'region'};
const CARRIES_TEXT = new Set(['button', 'link', 'tab', 'menu_item', 'list_item', 'dropdown', 'input',
  'textarea', 'toggle']);
// Caller-given [selector, type] pairs (e.g. a widget library's drop-down) win over the rules below.
for (const [selector, type] of (opts.types || [])) {
  for (const el of document.querySelectorAll(selector)) el.setAttribute('data-detact-type', type);
}
const AREA = W * H;
function hasClickHandler(el) {
  // Click handlers set by attribute/property, d3 v3 (__onclick), d3 v4 (__on) or jQuery (_data events).
  let on = typeof el.onclick === 'function' || typeof el.__onclick === 'function'
    || (Array.isArray(el.__on) && el.__on.some(o => o.type === 'click'));
  if (!on && window.jQuery && jQuery._data) {
    const ev = jQuery._data(el, 'events');
    on = !!(ev && ev.click);
  }
  return on;
}
function clickable(el) {
  if (!hasClickHandler(el) || el === document.body || el === document.documentElement) return false;
  const r = el.getBoundingClientRect();
  if (r.width * r.height > 0.25 * AREA) return false;  // a handler on a container is not a button
  return !el.querySelector('a[href],button,input,select,textarea,[role=button]');
}
function proseBullet(el) {
  // A bullet or numbered point of running text (a manual's list): its marker drawn and nothing making it a
  // choice. Its text is text; a link inside it keeps its own label.
  const cs = getComputedStyle(el);
  if (cs.display !== 'list-item' || cs.listStyleType === 'none' || cs.cursor === 'pointer') return false;
  if (el.hasAttribute('aria-selected') || el.hasAttribute('tabindex') || hasClickHandler(el)) return false;
  return !el.closest('nav,[role=navigation],[role=listbox],[role=menu],[role=menubar],[role=tablist],'
                     + '[role=tree],[role=tree] *');
}
function typeOf(el) {
  if (el.hasAttribute('data-label-skip')) return null;
  if (el.hasAttribute('data-icon')) return 'icon';
  if (el.hasAttribute('data-detact-type')) return el.getAttribute('data-detact-type');
  const role = el.getAttribute('role');
  if (role && ROLES[role]) return ROLES[role];
  const tag = el.tagName.toLowerCase();
  if (tag === 'a' && el.hasAttribute('href')) return 'link';
  if (tag === 'button') return 'button';
  if (tag === 'input') {
    const t = (el.getAttribute('type') || 'text').toLowerCase();
    if (t === 'hidden') return null;
    return INPUT_TYPES[t] || 'input';
  }
  if (tag === 'textarea') return 'textarea';
  if (tag === 'select') return 'dropdown';
  if (tag === 'li') return el.querySelector('li') || proseBullet(el) ? null : 'list_item';  // leaf items only
  if (tag === 'img') return 'image';
  if (tag === 'svg' && !el.parentElement.closest('svg')) {
    const r = el.getBoundingClientRect();
    return Math.max(r.width, r.height) <= 48 ? 'icon' : 'image';
  }
  if (tag === 'dialog') return 'region';
  if (clickable(el)) return 'button';
  return null;
}
function shown(el) {
  let opacity = 1;
  for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
    const cs = getComputedStyle(e);
    if (cs.display === 'none') return false;
    opacity *= parseFloat(cs.opacity);
  }
  const cs = getComputedStyle(el);
  return cs.visibility === 'visible' && opacity > 0.1;
}
function clip(r) {
  const x1 = Math.max(r.left, 0), y1 = Math.max(r.top, 0);
  const x2 = Math.min(r.right, W), y2 = Math.min(r.bottom, H);
  return [x1, y1, x2, y2];
}
function related(el, hit) {
  return hit && (hit === el || el.contains(hit) || hit.contains(el));
}
function uncovered(el, b) {
  const [x1, y1, x2, y2] = b, w = x2 - x1, h = y2 - y1;
  const pts = [[0.5, 0.5], [0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]];
  let ok = 0;
  for (const [fx, fy] of pts) {
    if (related(el, document.elementFromPoint(x1 + fx * w, y1 + fy * h))) ok++;
  }
  return ok >= 3;
}
function clean(s) {
  s = (s || '').replace(/[\uE000-\uF8FF\u{F0000}-\u{FFFFD}]/gu, '').replace(/\s+/g, ' ').trim();
  return s.length ? s.slice(0, 200) : null;
}
function textOf(el, type) {
  const tag = el.tagName.toLowerCase();
  if (type === 'icon' || type === 'image' || type === 'region' || type === 'scrollbar') return null;
  if (tag === 'input' || tag === 'textarea') {
    const t = (el.getAttribute('type') || '').toLowerCase();
    if (t === 'checkbox' || t === 'radio' || t === 'range') return null;
    if (t === 'password') return el.value ? '\u2022'.repeat(el.value.length) : clean(el.placeholder);
    return clean(el.value) || clean(el.placeholder);
  }
  if (tag === 'select') return el.selectedIndex >= 0 ? clean(el.options[el.selectedIndex].text) : null;
  return clean(el.innerText);
}
function stateOf(el, type) {
  const interactive = !['region', 'image'].includes(type);
  const cls = el.classList;
  const checked = ['checkbox', 'radio', 'toggle'].includes(type)
    ? (el.checked === true || el.getAttribute('aria-checked') === 'true') : null;
  const selected = ['tab', 'list_item', 'menu_item'].includes(type)
    ? (el.getAttribute('aria-selected') === 'true' || el.selected === true || cls.contains('active')
       || cls.contains('selected')) : null;
  return {
    checked: checked,
    focused: interactive ? el === document.activeElement : null,
    disabled: interactive ? (el.disabled === true || el.getAttribute('aria-disabled') === 'true'
                             || !!el.closest('fieldset[disabled]') || cls.contains('disabled')) : null,
    selected: selected,
    highlighted: interactive ? (cls.contains('highlighted') || cls.contains('hover')) : null,
  };
}
const out = [];
function push(el, type, r, text, icon) {
  if (r.width < 2 || r.height < 2) return;
  const b = clip(r);
  if (b[2] - b[0] < 2 || b[3] - b[1] < 2) return;
  // Partly outside the viewport: keep it if half of it shows, or if what shows is still big.
  const vw = b[2] - b[0], vh = b[3] - b[1];
  if (vw * vh < 0.5 * r.width * r.height && (vw < 32 || vh < 32)) return;
  if (!uncovered(el, b)) return;
  const st = stateOf(el, type);
  out.push({type: type, box: b, text: text, icon: icon, state: st});
}
for (const el of document.body.querySelectorAll('*')) {
  const type = typeOf(el);
  if (!type || !shown(el)) continue;
  const r = el.getBoundingClientRect();
  const icon = type === 'icon' ? el.getAttribute('data-icon') : (el.getAttribute('data-icon-name') || null);
  push(el, type, r, textOf(el, type), icon);
}
// Text: runs of text nodes under one parent that no text-carrying element already covers.
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
const byParent = new Map();
for (let n = walker.nextNode(); n; n = walker.nextNode()) {
  if (!n.textContent.trim()) continue;
  const p = n.parentElement;
  if (!p || ['SCRIPT', 'STYLE', 'NOSCRIPT', 'OPTION', 'TITLE', 'TEXTAREA'].includes(p.tagName)) continue;
  let owned = false;
  for (let e = p; e && e !== document.body; e = e.parentElement) {
    const t = typeOf(e);
    if (t && (CARRIES_TEXT.has(t) || t === 'icon')) { owned = true; break; }
  }
  if (owned) continue;
  if (!byParent.has(p)) byParent.set(p, []);
  byParent.get(p).push(n);
}
for (const [p, nodes] of byParent) {
  if (!shown(p)) continue;
  let x1 = Infinity, y1 = Infinity, x2 = -Infinity, y2 = -Infinity, text = '';
  for (const n of nodes) {
    const range = document.createRange();
    range.selectNodeContents(n);
    for (const r of range.getClientRects()) {
      if (r.width < 1 || r.height < 1) continue;
      x1 = Math.min(x1, r.left); y1 = Math.min(y1, r.top);
      x2 = Math.max(x2, r.right); y2 = Math.max(y2, r.bottom);
    }
    text += ' ' + n.textContent;
  }
  if (!(x2 > x1)) continue;
  push(p, 'text', new DOMRect(x1, y1, x2 - x1, y2 - y1), clean(text), null);
}
return {dpr: window.devicePixelRatio, width: W, height: H, elements: out};
"""


def make_driver() -> tuple[webdriver.Chrome, str]:
    """A headless Chromium (the project's fixed flags) with a fresh temporary profile folder."""
    profile = tempfile.mkdtemp(prefix="detact-chrome-")
    options = webdriver.ChromeOptions()
    for flag in CHROME_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.binary_location = CHROME_BINARY
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(30)
    return driver, profile


def close_driver(driver: webdriver.Chrome | None, profile: str | None) -> None:
    """Quit the browser and remove its profile folder."""
    if driver is not None:
        with contextlib.suppress(Exception):
            driver.quit()
    if profile:
        shutil.rmtree(profile, ignore_errors=True)


def set_viewport(
    driver: webdriver.Chrome, width: int, height: int, scale: float, mobile: bool = False
) -> None:
    """Emulate a viewport of ``width`` x ``height`` CSS pixels at device pixel ratio ``scale``."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": mobile},
    )


def screenshot(driver: webdriver.Chrome) -> Image.Image:
    """The viewport as an RGB image in device pixels."""
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": False})
    return Image.open(io.BytesIO(base64.b64decode(shot["data"]))).convert("RGB")


def wait_for_fonts(driver: webdriver.Chrome) -> None:
    """Block until the page's web fonts have loaded (or failed)."""
    driver.execute_async_script("const done = arguments[0]; document.fonts.ready.then(() => done(true));")


def labelled_screen(
    driver: webdriver.Chrome,
    source: str,
    template: str,
    seed: int,
    scale: float,
    meta: dict[str, Any],
    image: Image.Image | None = None,
    types: Sequence[tuple[str, str]] = (),
) -> tuple[Image.Image, ScreenLabels]:
    """The page as shown now (or ``image``, already taken) and its DOM labels, as every DOM source returns."""
    image = image if image is not None else screenshot(driver)
    labels = ScreenLabels(
        image="",
        width=image.width,
        height=image.height,
        source=source,
        template=template,
        seed=seed,
        scale=scale,
        elements=dom_elements(driver, image, types),
        meta=meta,
    )
    return image, labels


def dom_elements(
    driver: webdriver.Chrome, image: Image.Image, types: Sequence[tuple[str, str]] = ()
) -> list[Element]:
    """Run :data:`LABEL_JS` once and turn its records into elements in screenshot pixels, with colours.

    ``types``: extra ``(CSS selector, element type)`` pairs for widgets the tag/role rules miss.
    """
    result: dict[str, Any] = driver.execute_script(LABEL_JS, {"types": [list(t) for t in types]})
    return records_to_elements(result, image)


def records_to_elements(result: dict[str, Any], image: Image.Image) -> list[Element]:
    """Scale the JS records by the screenshot/viewport ratio, clip to the image and name colours."""
    pixels = np.asarray(image)
    height, width = pixels.shape[:2]
    sx = width / max(float(result["width"]), 1.0)
    sy = height / max(float(result["height"]), 1.0)
    elements: list[Element] = []
    for record in result["elements"]:
        x1, y1, x2, y2 = (float(v) for v in record["box"])
        box = (
            min(max(x1 * sx, 0.0), width - 1.0),
            min(max(y1 * sy, 0.0), height - 1.0),
            min(max(x2 * sx, 1.0), float(width)),
            min(max(y2 * sy, 1.0), float(height)),
        )
        if box[2] - box[0] < 1 or box[3] - box[1] < 1:
            continue
        element = Element.from_xyxy(
            box,
            type=ElementType(record["type"]),
            text=record.get("text"),
            icon=record.get("icon"),
            state=ElementState(**record["state"]),
            source="label",
        )
        x1i, y1i, x2i, y2i = element.bbox
        element = element.replace(bbox=(x1i, y1i, min(x2i, width), min(y2i, height)))
        elements.append(element.replace(color=element_color(pixels, element)))
    return elements
