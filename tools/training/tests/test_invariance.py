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

    def test_only_windows_with_a_gyroscope_are_turned_upright(self):
        x = texting(2000)
        x[:1000, :, 3:9] = 0.0                                  # accelerometer only
        out = invariance.looked_at_poses(x, np.ones(2000), np.random.default_rng(7), share=1.0,
                                         pitch_deg=(0.0, 60.0), measured_pitch_deg=(0.0, 90.0))
        mean = out[:, :, 0:3].astype(np.float64).mean(axis=1)
        angle = np.degrees(np.arccos(np.clip(-mean[:, 2] / np.linalg.norm(mean, axis=1), -1, 1)))
        self.assertLess(angle[:1000].max(), 60.5)
        self.assertGreater(angle[1000:].max(), 85.0)
        self.assertTrue(np.all(out[:1000, :, 3:6] == 0))        # a missing gyroscope stays missing

    def test_ear_negatives_are_upright_screen_sideways_and_labelled_zero(self):
        x = texting(3000)
        x[:1000, :, 3:9] = 0.0                                  # accelerometer only: never made ear windows
        labels = np.repeat([1.0, 1.0, 0.0], 1000)
        out, y = invariance.ear_negatives(x, labels, np.random.default_rng(8), share=0.5)
        made = np.flatnonzero(np.any(out != x, axis=(1, 2)))
        self.assertTrue(np.all((made >= 1000) & (made < 2000)))
        self.assertTrue(0.4 < len(made) / 1000 < 0.6)
        np.testing.assert_array_equal(y[made], 0.0)
        np.testing.assert_array_equal(np.delete(y, made), np.delete(labels, made))
        g = out[made, :, 0:3].astype(np.float64).mean(axis=1)
        g /= np.linalg.norm(g, axis=1, keepdims=True)
        # Upright (no gravity along the screen normal beyond the pitch spread), rolled EAR_ROLL_DEG either way.
        self.assertLess(np.percentile(np.abs(g[:, 2]), 90), np.sin(np.radians(20)))
        roll = np.degrees(np.arctan2(np.abs(g[:, 0]), -g[:, 1]))
        low, high = invariance.EAR_ROLL_DEG
        self.assertGreater(np.percentile(roll, 10), low - 5)
        self.assertLess(np.percentile(roll, 90), high + 5)
        self.assertTrue(np.any(np.sign(g[:, 0]) > 0) and np.any(np.sign(g[:, 0]) < 0))     # either way
        # The walker's surge, along the texting phone's y-z plane, now lies along x: the screen faces sideways.
        surge = np.zeros((1, 50, 9), np.float32)
        surge[0, :, 0:3] = invariance.pitch_gravity(np.radians(35.0))[None, :]
        surge[0, ::2, 2] += 0.3
        surge[0, :, 3] = 0.01
        ear = invariance.held_out_ear_poses(surge)["right ear"][0, :, 0:3].astype(np.float64)
        wobble = ear - ear.mean(axis=0)
        self.assertGreater(np.abs(wobble[:, 0]).mean(), 2 * np.abs(wobble[:, 2]).mean())

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
