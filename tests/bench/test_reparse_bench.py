"""bench.reparse's before/after pairs change at most 10% of a 1920x1080 screen (what the target is about)."""

import numpy as np
from PIL import ImageDraw

from bench.reparse import PAIRS
from tests.render import render_dense_dashboard


def test_every_edit_covers_at_most_a_tenth_of_the_screen() -> None:
    before = render_dense_dashboard().image
    for name, _, edit in PAIRS:
        after = before.copy()
        edit(ImageDraw.Draw(after))
        differ = np.any(np.asarray(before) != np.asarray(after), axis=2)
        rows, cols = np.flatnonzero(differ.any(axis=1)), np.flatnonzero(differ.any(axis=0))
        assert len(rows), name
        area = (rows[-1] - rows[0] + 1) * (cols[-1] - cols[0] + 1) / differ.size
        assert 0 < area <= 0.10, (name, area)
