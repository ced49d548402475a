"""The carry-positions helpers: names, channel dropout and the rotation of
not-distracted windows (numpy only, no binary and no data set needed)."""
import unittest

import numpy as np

from tools.training import carry


def windows(n, seed=1):
    return np.random.default_rng(seed).normal(1.0, 0.5, (n, 50, 9)).astype(np.float32)


class Names(unittest.TestCase):
    def test_a_name_gives_phone_walker_floor_position_and_label(self):
        self.assertEqual(carry.parse_name("Pixel_Jamie_Hard_Purse_2_0"), ("Pixel", "Jamie", "Hard", "purse", 0))
        self.assertEqual(carry.parse_name("Nexus_Jamie_Carpet_InHand_1_1"), ("Nexus", "Jamie", "Carpet", "hands", 1))
        with self.assertRaises(SystemExit):
            carry.parse_name("data_sensors_data_3")

    def test_walkers_group_only_carry_sessions(self):
        sessions = {"a": {"meta": {"walker": "B"}}, "b": {"meta": {"walker": "A"}}, "c": {"meta": {}},
                    "d": {"meta": {"walker": "A"}}}
        self.assertEqual(carry.walkers(sessions), {"A": ["b", "d"], "B": ["a"]})


class ChannelDropout(unittest.TestCase):
    def test_missing_windows_lose_gyro_and_mag_and_keep_the_accelerometer(self):
        x = windows(400)
        missing = np.zeros(400, bool)
        missing[:100] = True
        out = carry.drop_channels(x, missing, np.random.default_rng(3), acc_only=0.0, no_mag=0.0)
        self.assertTrue(np.all(out[:100, :, 3:] == 0))
        np.testing.assert_array_equal(out[:, :, :3], x[:, :, :3])
        np.testing.assert_array_equal(out[100:], x[100:])
        self.assertTrue(np.any(x[:100, :, 3:] != 0))    # a copy: the input is untouched

    def test_the_shares_of_dropped_windows_follow_the_settings(self):
        x = windows(20000)
        out = carry.drop_channels(x, np.zeros(len(x), bool), np.random.default_rng(4), acc_only=0.35, no_mag=0.15)
        no_gyro = np.all(out[:, :, 3:6] == 0, axis=(1, 2))
        no_mag = np.all(out[:, :, 6:9] == 0, axis=(1, 2))
        self.assertAlmostEqual(no_gyro.mean(), 0.35, delta=0.015)
        self.assertAlmostEqual((no_mag & ~no_gyro).mean(), 0.15, delta=0.015)
        self.assertTrue(np.all(no_mag[no_gyro]))           # accelerometer-only has no magnetometer either


class Rotation(unittest.TestCase):
    def test_only_not_distracted_windows_turn_and_keep_their_magnitudes(self):
        x = windows(2000)
        labels = np.repeat([0, 1], 1000)
        out = carry.rotate_not_distracted(x, labels, np.random.default_rng(5), share=0.5)
        np.testing.assert_array_equal(out[1000:], x[1000:])
        turned = np.any(np.abs(out[:1000] - x[:1000]) > 1e-4, axis=(1, 2))
        self.assertAlmostEqual(turned.mean(), 0.5, delta=0.06)
        for sensor in range(3):
            cols = slice(3 * sensor, 3 * sensor + 3)
            np.testing.assert_allclose(np.linalg.norm(out[:, :, cols], axis=2), np.linalg.norm(x[:, :, cols], axis=2),
                                       rtol=1e-4, atol=1e-4)


if __name__ == "__main__":
    unittest.main()
