"""live_daemon.py --callgrind: reading callgrind_annotate's inclusive table and the dump's total (canned text)."""
import tempfile
import unittest
from pathlib import Path

from tools.bench import live_daemon

ANNOTATE = """--------------------------------------------------------------------------------
Ir
--------------------------------------------------------------------------------
24,163,220 (100.0%)  PROGRAM TOTALS

--------------------------------------------------------------------------------
Ir                   file:function
--------------------------------------------------------------------------------
12,000,000 (49.66%)  ???:$s14HeadsUpRuntime11ModelScorerV0aB8Pipeline06WindowE0AadEP5scoreySd0aB4Data06MotionG0VFTW [/x/headsup]
 3,400,100 (14.07%)  ???:sd_bus_process [/usr/lib/x86_64-linux-gnu/libsystemd.so.0.35.0]
 1,000,000  ???:sd_bus_process [/usr/lib/x86_64-linux-gnu/libsystemd.so.0.35.0]
"""


class CallgrindTests(unittest.TestCase):
    def test_inclusive_counts_by_function_keep_the_largest(self):
        found = live_daemon.parse_inclusive(ANNOTATE)
        self.assertEqual(found["???:sd_bus_process [/usr/lib/x86_64-linux-gnu/libsystemd.so.0.35.0]"], 3_400_100)
        self.assertEqual(found["???:$s14HeadsUpRuntime11ModelScorerV0aB8Pipeline06WindowE0AadEP5scoreySd0aB4Data06MotionG0VFTW [/x/headsup]"], 12_000_000)
        self.assertNotIn("PROGRAM TOTALS", " ".join(found), "the total is not a function")

    def test_figures_per_window_and_update_and_the_a53_share(self):
        with tempfile.TemporaryDirectory() as directory:
            dump = Path(directory, "callgrind.out.1")
            dump.write_text("# callgrind format\nversion: 1\nevents: Ir\nsummary: 66000000\n")
            original = live_daemon.callgrind_inclusive
            live_daemon.callgrind_inclusive = lambda path: live_daemon.parse_inclusive(ANNOTATE)
            try:
                options = type("Options", (), {"beacons": 4})()
                figures = live_daemon.callgrind_figures(dump, {"seconds": 60.0, "windows_scored": 120}, {}, options)
            finally:
                live_daemon.callgrind_inclusive = original
        self.assertEqual(figures["instructions_per_s"], 1_100_000)
        self.assertEqual(figures["instructions_per_window"], 100_000)
        self.assertEqual(figures["instructions_per_ble_update"], round(3_400_100 / 240))
        self.assertAlmostEqual(figures["a53_percent"], 100 * 1.1e6 / (0.61 * 1.1e9), places=3)
        self.assertAlmostEqual(figures["a53_percent_half_ipc"], 2 * figures["a53_percent"], places=2)


if __name__ == "__main__":
    unittest.main()
