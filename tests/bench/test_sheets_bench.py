import numpy as np

from bench.sheets import measure, sheet


def test_a_sheet_is_a_jpeg_grid_whose_filled_cells_are_listed() -> None:
    image, cells = sheet(1)
    assert image.shape == (768, 1024, 3) and len(cells) > 100
    inside = image[int(cells[0, 1]) + 2 : int(cells[0, 3]) - 2, int(cells[0, 0]) + 2 : int(cells[0, 2]) - 2]
    assert inside.min() < 100  # a cell listed holds ink
    assert np.array_equal(sheet(1)[1], cells)


def test_the_default_parse_finds_most_cells_of_a_sheet() -> None:
    result = measure(1)
    assert result.sheets == 1 and result.cells > 100
    assert result.recall > 0.8, result
