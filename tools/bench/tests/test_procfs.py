"""The /proc parsers and rates the daemon benches print (canned text, no process)."""
import tempfile
import unittest
from pathlib import Path

from tools.bench import procfs

STAT = "4242 (headsup (live) x) S 1 4242 4242 0 -1 4194560 900 0 0 0 250 75 0 0 20 0 6 0 12345 300000000 9000 18446744073709551615"
STATUS = """Name:\theadsup
VmHWM:\t   24560 kB
VmRSS:\t   22000 kB
RssAnon:\t    4000 kB
voluntary_ctxt_switches:\t120
nonvoluntary_ctxt_switches:\t7
"""
ROLLUP = """55d0c0a00000-7ffd6a413000 ---p 00000000 00:00 0                          [rollup]
Rss:               22000 kB
Pss:               15360 kB
Pss_Dirty:          3900 kB
Pss_Anon:           3800 kB
Pss_File:          11500 kB
Pss_Shmem:            60 kB
Shared_Clean:       9000 kB
"""


class ParserTests(unittest.TestCase):
    def test_stat_cuts_the_name_at_its_last_parenthesis(self):
        fields = procfs.parse_stat(STAT)
        self.assertEqual(fields[0], "S")
        self.assertEqual((int(fields[11]), int(fields[12])), (250, 75), "utime and stime")
        self.assertEqual(int(fields[19]), 12345, "starttime")

    def test_status_switches_and_memory(self):
        status = procfs.parse_status(STATUS)
        self.assertEqual(int(status["voluntary_ctxt_switches"]), 120)
        self.assertEqual(procfs.kilobytes(status["VmHWM"]), 24560)
        self.assertEqual(procfs.kilobytes(status.get("VmSwap")), 0)

    def test_schedstat_three_fields(self):
        self.assertEqual(procfs.parse_schedstat("183829301 5283912 1207\n"), (183829301, 5283912, 1207))
        with self.assertRaises(ValueError):
            procfs.parse_schedstat("183829301 5283912")

    def test_smaps_rollup_skips_the_range_line(self):
        rollup = procfs.parse_smaps_rollup(ROLLUP)
        self.assertEqual(rollup["Pss"], 15360)
        self.assertEqual(rollup["Pss_File"], 11500)
        self.assertNotIn("55d0c0a00000-7ffd6a413000 ---p 00000000 00", rollup)

    def test_cpu_model_x86_and_aarch64(self):
        self.assertEqual(procfs.parse_cpu_model("processor\t: 0\nmodel name\t: AMD EPYC 9R14\n"), "AMD EPYC 9R14")
        self.assertEqual(procfs.parse_cpu_model("processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd03\n"), "CPU part 0xd03")


def thread(run_ns, slices, voluntary, nonvoluntary):
    return {"name": "t", "run_ns": run_ns, "wait_ns": 0, "timeslices": slices, "voluntary": voluntary, "nonvoluntary": nonvoluntary}


class RateTests(unittest.TestCase):
    def test_rates_over_the_interval_with_a_thread_that_came_and_one_that_went(self):
        first = {"time": 100.0, "cpu_ticks": 10, "rss_kb": 20480, "hwm_kb": 20480, "pss_kb": 10240,
                 "threads": {1: thread(1_000_000_000, 100, 90, 10), 2: thread(0, 5, 5, 0)}}
        last = {"time": 110.0, "cpu_ticks": 10 + procfs.TICK // 10, "rss_kb": 22528, "hwm_kb": 23552, "pss_kb": 15360,
                "threads": {1: thread(1_050_000_000, 250, 220, 30), 3: thread(10_000_000, 20, 20, 0)}}
        rates = procfs.costs(first, last)
        self.assertEqual(rates["seconds"], 10.0)
        self.assertAlmostEqual(rates["core_percent"], 1.0, places=3)  # 0.1 s of CPU in 10 s
        self.assertAlmostEqual(rates["core_percent_schedstat"], 0.6, places=3)  # 50 ms + 10 ms
        self.assertEqual(rates["wakeups_per_s"], 15.0)  # (130 + 20) voluntary; the gone thread's 5 stay counted from zero
        self.assertEqual(rates["switches_per_s"], 17.0)  # + 20 involuntary
        self.assertEqual(rates["timeslices_per_s"], 17.0)  # 150 + thread 3's 20 from zero; thread 2 unchanged
        self.assertEqual((rates["rss_mb"], rates["rss_peak_mb"], rates["pss_mb"]), (22.0, 23.0, 15.0))

    def test_samples_out_of_order_are_refused(self):
        sample = {"time": 5.0, "cpu_ticks": 0, "rss_kb": 0, "hwm_kb": 0, "pss_kb": None, "threads": {}}
        with self.assertRaises(ValueError):
            procfs.costs(sample, sample)

    def test_sample_reads_a_proc_tree(self):
        with tempfile.TemporaryDirectory() as root:
            base = Path(root, "4242")
            (base / "task/4242").mkdir(parents=True)
            (base / "task/4243").mkdir(parents=True)
            (base / "stat").write_text(STAT)
            (base / "status").write_text(STATUS)
            (base / "smaps_rollup").write_text(ROLLUP)
            for tid, text in (("4242", "100 2 9\n"), ("4243", "50 1 4\n")):
                (base / "task" / tid / "status").write_text(STATUS)
                (base / "task" / tid / "schedstat").write_text(text)
                (base / "task" / tid / "comm").write_text("headsup\n")
            taken = procfs.sample(4242, root=root)
        self.assertEqual(taken["cpu_ticks"], 325)
        self.assertEqual((taken["rss_kb"], taken["hwm_kb"], taken["pss_kb"]), (22000, 24560, 15360))
        self.assertEqual(sorted(taken["threads"]), [4242, 4243])
        self.assertEqual(taken["threads"][4243]["timeslices"], 4)
        self.assertEqual(taken["threads"][4242]["voluntary"], 120)


if __name__ == "__main__":
    unittest.main()
