"""The one box-geometry module: hand-made boxes with known answers."""

from __future__ import annotations

import numpy as np
import pytest

from detact_service import geometry


def test_areas_and_intersections_of_hand_made_boxes() -> None:
    a = [(0, 0, 10, 10), (5, 5, 15, 25)]
    assert geometry.areas(a).tolist() == [100.0, 200.0]
    assert geometry.intersections(a, [(0, 0, 10, 10)]).tolist() == [[100.0], [25.0]]
    assert geometry.areas([]).shape == (0,)
    assert geometry.intersections([], a).shape == (0, 2)


def test_iou_matrix_of_hand_made_boxes() -> None:
    iou = geometry.iou_matrix([(0, 0, 10, 10)], [(0, 0, 10, 10), (5, 0, 15, 10), (20, 20, 30, 30)])
    assert np.allclose(iou, [[1.0, 50 / 150, 0.0]])
    assert geometry.iou_matrix([], [(0, 0, 1, 1)]).shape == (0, 1)
    assert geometry.iou((0, 0, 10, 10), (5, 0, 15, 10)) == pytest.approx(50 / 150)


def test_containment_is_share_of_inner_area_and_smaller_is_symmetric() -> None:
    inner = np.array([[10, 10, 20, 20], [0, 0, 20, 20]])
    outer = np.array([[10, 10, 30, 30]])
    np.testing.assert_allclose(geometry.containment(inner, outer), [[1.0], [0.25]])
    ios = geometry.intersection_over_smaller(inner, outer)
    np.testing.assert_allclose(ios, [[1.0], [100 / 400]])
    np.testing.assert_allclose(geometry.intersection_over_smaller(outer, inner), ios.T)


def test_nms_and_deduplicate_keep_the_best_scored_of_duplicates() -> None:
    boxes = [(0, 0, 10, 10), (1, 0, 11, 10), (50, 50, 60, 60)]
    assert geometry.nms(boxes, [0.5, 0.9, 0.1], 0.5).tolist() == [False, True, True]
    assert geometry.deduplicate(["a", "b", "c"], boxes, [0.5, 0.9, 0.1], 0.5) == ["b", "c"]
    assert geometry.deduplicate([], [], [], 0.5) == []


def test_expand_union_clip_and_centres() -> None:
    assert geometry.expand([(10, 10, 20, 20)], 2).tolist() == [[8, 8, 22, 22]]
    assert geometry.union_box([(10, 10, 20, 20), (0, 15, 12, 30)]) == (0, 10, 20, 30)
    clipped = geometry.clip(np.array([[-5, -5, 50, 8]], dtype=np.int64), 40, 30)
    assert clipped.dtype == np.int64 and clipped.tolist() == [[0, 0, 40, 8]]
    assert geometry.centers([(0, 0, 10, 20)]).tolist() == [[5.0, 10.0]]


def test_greedy_match_is_one_to_one_by_descending_iou() -> None:
    iou = np.array([[0.9, 0.6], [0.7, 0.4], [0.2, 0.3]])
    assert geometry.greedy_match(iou, 0.5) == [(0, 0)]  # row 0 takes column 0; row 1's 0.7 is then taken
    assert sorted(geometry.greedy_match(iou, 0.35)) == [(0, 0), (1, 1)]
    assert geometry.greedy_match(np.zeros((0, 3)), 0.5) == []
