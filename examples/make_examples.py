"""Renders the shipped example screenshot (``python examples/make_examples.py``)."""

from pathlib import Path

from tests.render import render_form_with_icons

if __name__ == "__main__":
    target = Path(__file__).resolve().parent / "form.png"
    render_form_with_icons(1920, 1080).image.save(target, optimize=True)
    print(f"wrote {target}")
