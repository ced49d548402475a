"""Metrics and augmentation helpers (numpy only, no binary needed)."""
import itertools
import unittest

import numpy as np

from tools.training import augment
from tools.training import evaluation as ev


class Metrics(unittest.TestCase):
    def test_auc_matches_pair_counting(self):
        rng = np.random.default_rng(7)
        for _ in range(20):
            y = rng.integers(0, 2, 40)
            p = np.round(rng.random(40), 1)  # many ties
            if y.min() == y.max():
                continue
            pos, neg = p[y == 1], p[y == 0]
            pairs = [(a > b) + 0.5 * (a == b) for a, b in itertools.product(pos, neg)]
            self.assertAlmostEqual(ev.roc_auc(y, p), float(np.mean(pairs)), places=12)

    def test_auc_one_class_is_nan(self):
        self.assertTrue(np.isnan(ev.roc_auc([1, 1], [0.2, 0.3])))

    def test_threshold_prefers_balanced_then_near_half(self):
        y = np.array([0, 0, 0, 1, 1, 1])
        p = np.array([0.0, 0.1, 0.2, 0.9, 0.95, 1.0])
        t, score = ev.choose_threshold(y, p)
        self.assertEqual(score, 1.0)
        self.assertEqual(t, 0.5)
        p = np.array([0.0, 0.1, 0.2, 0.25, 0.3, 0.35])
        t, score = ev.choose_threshold(y, p)
        self.assertEqual(score, 1.0)
        self.assertEqual(t, 0.25)  # perfect for t in (0.2, 0.25] (score >= t is hands); nearest 0.5

    def test_summary_counts_edge_errors(self):
        names = ["a"] * 20
        t = np.arange(20) * 0.5
        y = np.zeros(20, int)
        p = np.zeros(20)
        p[0] = 1.0   # first window: an edge error
        p[10] = 1.0  # middle
        pooled, per = ev.summarize(names, y, p, t, 0.5, edge_seconds=2.0)
        self.assertEqual(pooled["errors"], 2)
        self.assertEqual(pooled["errors_at_edges"], 1)
        self.assertEqual(per["a"]["accuracy"], 0.9)


class Rotations(unittest.TestCase):
    def test_rotations_are_proper(self):
        r = augment.random_rotations(500, np.random.default_rng(1), tilt=0.3)
        np.testing.assert_allclose(r @ r.transpose(0, 2, 1), np.broadcast_to(np.eye(3), r.shape), atol=1e-12)
        np.testing.assert_allclose(np.linalg.det(r), 1.0, atol=1e-12)

    def test_z_rotation_keeps_screen_normal(self):
        r = augment.rotations_about_z(100, np.random.default_rng(2))
        np.testing.assert_allclose(r[:, :, 2], np.broadcast_to([0, 0, 1.0], (100, 3)), atol=1e-15)

    def test_same_rotation_for_all_three_sensors(self):
        rng = np.random.default_rng(3)
        w = rng.normal(size=(4, 50, 9))
        r = augment.random_rotations(4, rng)
        out = augment.rotate(w, r)
        for n in range(4):
            for sensor in range(3):
                block = w[n, :, 3 * sensor:3 * sensor + 3]
                np.testing.assert_allclose(out[n, :, 3 * sensor:3 * sensor + 3], block @ r[n].T, atol=1e-12)
        # lengths are kept
        np.testing.assert_allclose(np.linalg.norm(out.reshape(4, 50, 3, 3), axis=-1),
                                   np.linalg.norm(w.reshape(4, 50, 3, 3), axis=-1), atol=1e-12)

    def test_augment_is_reproducible(self):
        w = np.random.default_rng(4).normal(size=(8, 50, 9)).astype(np.float32)
        a = augment.augment(w, np.random.default_rng(9))
        b = augment.augment(w, np.random.default_rng(9))
        self.assertEqual(a.dtype, np.float32)
        np.testing.assert_array_equal(a, b)


if __name__ == "__main__":
    unittest.main()
