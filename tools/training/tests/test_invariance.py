"""The calibration and pose augmentation (tools/training/invariance.py):
numpy only, no binary and no data set needed."""
import unittest

import numpy as np

from tools.training import invariance


def texting(n, seed=1, pitch_deg=35.0):
    """Portrait windows at `pitch_deg` from flat with a walker's bounce on
    every axis and some rotation on the gyroscope."""
    rng = np.random.default_rng(seed)
    g = invariance.pitch_gravity(np.radians(np.full(n, pitch_deg)))
    x = rng.normal(0.0, 0.05, (n, 50, 9))
    x[:, :, 0:3] += g[:, None, :]
    x[:, :, 6:9] += rng.normal(0.0, 40.0, (n, 1, 3))
    return x.astype(np.float32)


class Feed(unittest.TestCase):
    def test_the_magnetometer_is_fed_as_zero_and_nothing_else_moves(self):
        x = texting(20)
        out = invariance.feed(x)
        self.assertTrue(np.all(out[:, :, 6:9] == 0))
        np.testing.assert_array_equal(out[:, :, :6], x[:, :, :6])
        self.assertTrue(np.any(x[:, :, 6:9] != 0))      # a copy

    def test_a_card_without_zero_feeds_everything(self):
        x = texting(5)
        np.testing.assert_array_equal(invariance.feed(x, {}), x)
        self.assertEqual(invariance.unread_columns({"magnetometer": "measured"}), [])


class CalibrationBias(unittest.TestCase):
    def test_biases_are_constant_per_window_within_bounds_and_skip_a_missing_gyroscope(self):
        x = texting(300)
        x[:100, :, 3:9] = 0.0                            # accelerometer-only windows
        out = invariance.calibration_bias(x, np.random.default_rng(2), 0.05, 0.05)
        shift = (out - x).astype(np.float64)
        np.testing.assert_allclose(shift, np.repeat(shift[:, :1], 50, axis=1), atol=1e-6)
        self.assertLessEqual(np.abs(shift[:, :, :6]).max(), 0.05 + 1e-6)
        self.assertGreater(np.abs(shift[:, 0, 0:3]).max(), 0.03)
        self.assertTrue(np.all(out[:100, :, 3:6] == 0))
        self.assertGreater(np.abs(shift[100:, 0, 3:6]).max(), 0.03)
        np.testing.assert_array_equal(out[:, :, 6:9], x[:, :, 6:9])


class Poses(unittest.TestCase):
    def test_a_turned_window_has_the_drawn_pitch_and_keeps_its_motion(self):
        x = texting(50)
        pitch = np.radians(np.linspace(0.0, 90.0, 50))
        out = invariance.turn_to_pitch(x, pitch)
        mean = out[:, :, 0:3].astype(np.float64).mean(axis=1)
        mean /= np.linalg.norm(mean, axis=1, keepdims=True)
        np.testing.assert_allclose(mean, invariance.pitch_gravity(pitch), atol=1e-5)
        # A rigid turn: every sample's magnitude on each sensor is kept.
        for sensor in (slice(0, 3), slice(3, 6), slice(6, 9)):
            np.testing.assert_allclose(np.linalg.norm(out[:, :, sensor], axis=2),
                                       np.linalg.norm(x[:, :, sensor], axis=2), rtol=1e-4, atol=1e-5)
        # Accelerometer and gyroscope turn together: their dot products are kept.
        np.testing.assert_allclose(np.sum(out[:, :, 0:3] * out[:, :, 3:6], axis=2),
                                   np.sum(x[:, :, 0:3] * x[:, :, 3:6], axis=2), atol=1e-5)

    def test_only_distracted_windows_are_turned_and_they_span_flat_to_upright(self):
        x = texting(2000)
        labels = np.repeat([0, 1], 1000)
        out = invariance.looked_at_poses(x, labels, np.random.default_rng(5), share=1.0, pitch_deg=(0.0, 90.0))
        np.testing.assert_array_equal(out[:1000], x[:1000])
        mean = out[1000:, :, 0:3].astype(np.float64).mean(axis=1)
        angle = np.degrees(np.arccos(np.clip(-mean[:, 2] / np.linalg.norm(mean, axis=1), -1, 1)))
        self.assertLess(angle.min(), 5.0)
        self.assertGreater(angle.max(), 85.0)
        self.assertLess(angle.max(), 90.5)
        # Portrait (gravity along -y: the top up) and landscape (along +-x), never upside down (+y).
        g = mean / np.linalg.norm(mean, axis=1, keepdims=True)
        upright = angle > 60
        plane = np.degrees(np.arctan2(g[upright, 1], g[upright, 0]))
        self.assertTrue(np.any(np.abs(plane + 90) < 20))        # portrait
        self.assertTrue(np.any(np.abs(plane) < 20))             # landscape, one way
        self.assertTrue(np.any(np.abs(np.abs(plane) - 180) < 20))   # and the other
        self.assertFalse(np.any(np.abs(plane - 90) < 30))       # the top down: a pocket's pose

    def test_windows_without_gravity_are_left_alone(self):
        x = np.zeros((3, 50, 9), np.float32)
        np.testing.assert_array_equal(invariance.turn_to_pitch(x, np.ones(3)), x)


class Mirror(unittest.TestCase):
    def test_the_other_hand_negates_acc_x_and_gyro_y_z(self):
        x = texting(400)
        out = invariance.mirror(x, np.random.default_rng(4), share=1.0)
        np.testing.assert_array_equal(out[:, :, 0], -x[:, :, 0])
        np.testing.assert_array_equal(out[:, :, 1:4], x[:, :, 1:4])
        np.testing.assert_array_equal(out[:, :, 4:6], -x[:, :, 4:6])
        half = invariance.mirror(x, np.random.default_rng(4), share=0.5)
        flipped = np.mean(np.all(half[:, :, 0] == -x[:, :, 0], axis=1))
        self.assertTrue(0.4 < flipped < 0.6)


class Recipe(unittest.TestCase):
    def test_the_recipe_augmentation_ends_with_the_unread_sensors_at_zero(self):
        x = texting(100)
        config = {"acc_bias_g": 0.05, "gyro_bias_rad_s": 0.05, "looked_at_share": 0.5, "mirror_share": 0.5,
                  "inputs": invariance.INPUTS}
        out = invariance.augment_invariance(x, np.ones(100), np.random.default_rng(6), config)
        self.assertTrue(np.all(out[:, :, 6:9] == 0))
        self.assertFalse(np.allclose(out[:, :, :6], x[:, :, :6]))


if __name__ == "__main__":
    unittest.main()
