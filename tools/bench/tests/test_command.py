"""The command's venv choice (--python, --no-install, tools/pyvenv.py's stamp)
and the worker protocol, without installing anything."""
import json
import subprocess
import sys
import tempfile
import types
import unittest
from pathlib import Path

from tools import pyvenv
from tools.bench import run_bench

BENCH = Path(__file__).resolve().parent.parent


def no_log(message):
    raise AssertionError("nothing to log, got: %s" % message)


class VenvChoiceTests(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        self.requirements = self.dir / "requirements.txt"
        self.requirements.write_text("# pinned\nnumpy==2.4.6  # why\n\n-c constraints.txt\nonnx==1.23.2\n")
        self.constraints = self.dir / "constraints.txt"
        self.constraints.write_text("protobuf==7.36.2\n")
        self.venv = self.dir / ".venv"

    def tearDown(self):
        self.tmp.cleanup()

    def fake_venv(self, failed=None):
        """A venv directory pyvenv takes for one made from the files as they are."""
        pyvenv.python_of(self.venv).parent.mkdir(parents=True)
        pyvenv.python_of(self.venv).write_text("")
        (self.venv / pyvenv.STAMP).write_text(pyvenv.digest([self.requirements, self.constraints]) + "\n")
        if failed is not None:
            (self.venv / pyvenv.FAILED).write_text(json.dumps(failed))

    def test_python_flag_wins(self):
        args = types.SimpleNamespace(python="/opt/py/bin/python3", no_install=False)
        self.assertEqual(run_bench.ensure_venv(args, no_log), ("/opt/py/bin/python3", {}))

    def test_no_install_without_a_venv_makes_every_peer_unavailable(self):
        args = types.SimpleNamespace(python=None, no_install=True)
        original = run_bench.VENV
        run_bench.VENV = self.venv
        try:
            python, failed = run_bench.ensure_venv(args, no_log)
            self.assertIsNone(python)
            self.assertIn("--no-install", failed["*"])
            self.fake_venv()
            self.assertEqual(run_bench.ensure_venv(args, no_log), (str(pyvenv.python_of(self.venv)), {}))
        finally:
            run_bench.VENV = original

    def test_a_venv_made_from_the_same_files_is_reused_with_its_failures(self):
        self.fake_venv(failed={"onnx==1.23.2": "no wheel"})
        self.assertTrue(pyvenv.is_current(self.venv, self.requirements, self.constraints))
        python, failed = pyvenv.ensure(self.venv, self.requirements, self.constraints, log=no_log)
        self.assertEqual(python, pyvenv.python_of(self.venv))
        self.assertEqual(failed, {"onnx==1.23.2": "no wheel"})

    def test_a_changed_constraint_file_makes_the_venv_stale(self):
        self.fake_venv()
        self.constraints.write_text("protobuf==7.36.3\n")
        self.assertFalse(pyvenv.is_current(self.venv, self.requirements, self.constraints))
        self.assertFalse(pyvenv.is_current(self.venv, self.requirements), "the stamp covers both files")

    def test_requirement_lines_skip_comments_and_options(self):
        self.assertEqual(pyvenv.requirement_lines(self.requirements), ["numpy==2.4.6", "onnx==1.23.2"])


FAKE_HEADSUP = """#!%s
# A stand-in for headsup: the levels this CPU runs, and HEADSUP_KERNELS, as the real one reads them.
import json, os, sys
LEVELS, MESSAGE = %r, %r
level = os.environ.get("HEADSUP_KERNELS") or LEVELS[0]
if level not in LEVELS:
    sys.exit(MESSAGE and "Error: HEADSUP_KERNELS=%%s names no kernel level; use one of %%s (this CPU), or unset it"
             %% (level, ", ".join(LEVELS)) or "Error: no such level")
if sys.argv[1:2] == ["--version"]:
    print("0.1.0")
elif sys.argv[1:3] == ["model", "predict"]:
    print("0.5\\n0.25")
else:
    print(json.dumps({"kernel_level": level, "cpu": "Test CPU, Linux 6.0", "single_median_us": 20.0}))
"""


class KernelLevelTests(unittest.TestCase):
    def fake(self, levels=("avx512", "avx2", "baseline"), message=True):
        path = Path(self.tmp.name) / "headsup"
        path.write_text(FAKE_HEADSUP % (sys.executable, list(levels), message))
        path.chmod(0o755)
        return str(path)

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def test_the_levels_come_from_headsups_error(self):
        self.assertEqual(run_bench.levels_from_error(
            "Error: HEADSUP_KERNELS=sse9 names no kernel level; use one of avx512, avx2, baseline (this CPU), "
            "or unset it\n"), ["avx512", "avx2", "baseline"])
        self.assertEqual(run_bench.levels_from_error(
            "Error: HEADSUP_KERNELS=? names no kernel level; use one of avx512-zen, avx512, avx2, baseline (this CPU), "
            "or unset it\n"), ["avx512-zen", "avx512", "avx2", "baseline"])
        self.assertIsNone(run_bench.levels_from_error("Error: cannot open model.h5"))
        self.assertEqual(run_bench.supported_levels(self.fake(["avx2", "baseline"]), "model.h5"), ["avx2", "baseline"])

    def test_without_the_list_in_the_error_each_level_is_tried(self):
        self.assertEqual(run_bench.supported_levels(self.fake(["avx2", "baseline"], message=False), "model.h5"),
                         ["avx2", "baseline"])

    def test_a_binary_that_ignores_the_variable_has_no_levels(self):
        with self.assertRaisesRegex(RuntimeError, "ignores HEADSUP_KERNELS"):
            run_bench.supported_levels(self.fake(["?"]), "model.h5")

    def test_kernels_option(self):
        cpu = ["avx512", "avx2", "baseline"]
        self.assertEqual(run_bench.choose_levels(None, cpu), [None], "the automatic choice")
        self.assertEqual(run_bench.choose_levels("all", cpu), cpu)
        self.assertEqual(run_bench.choose_levels("baseline, AVX2", cpu), ["avx2", "baseline"], "best first")
        with self.assertRaisesRegex(ValueError, "sse9 names no kernel level; the levels this CPU runs: avx2, baseline"):
            run_bench.choose_levels("sse9", ["avx2", "baseline"])
        with self.assertRaisesRegex(ValueError, "this CPU cannot run avx512"):
            run_bench.choose_levels("avx512,avx2", ["avx2", "baseline"])
        self.assertEqual(run_bench.parse_args(["--kernels", "all"]).kernels, "all")
        self.assertIsNone(run_bench.parse_args([]).kernels)

    def test_headsup_runs_on_the_level_it_is_given(self):
        binary = self.fake()
        args = run_bench.parse_args(["--quick"])
        out = Path(self.tmp.name)
        logged = []
        original = dict(run_bench.os.environ)
        run_bench.os.environ["HEADSUP_KERNELS"] = "avx2"  # the caller's, never passed on
        try:
            auto = run_bench.run_headsup(args, binary, "model.h5", out / "w.csv", out / "auto.csv", logged.append)
            forced = run_bench.run_headsup(args, binary, "model.h5", out / "w.csv", out / "b.csv", logged.append,
                                           level="baseline")
        finally:
            run_bench.os.environ.clear()
            run_bench.os.environ.update(original)
        self.assertEqual(auto["benches"]["256"]["kernel_level"], "avx512")
        self.assertEqual(forced["benches"]["256"]["kernel_level"], "baseline")
        self.assertEqual(forced["level"], "baseline")
        self.assertIn("HeadsUp (baseline): headsup model bench --batch 256", logged[-1])
        self.assertIn("HEADSUP_KERNELS=baseline", logged[-1])
        with self.assertRaisesRegex(RuntimeError, "names no kernel level"):
            run_bench.run_headsup(args, self.fake(["avx2"]), "model.h5", out / "w.csv", out / "c.csv", logged.append,
                                  level="avx512")

    def test_a_levels_outputs_against_the_reference(self):
        ref, other = Path(self.tmp.name) / "ref.csv", Path(self.tmp.name) / "other.csv"
        ref.write_text("0.5\n0.25\n0.125\n")
        other.write_text("0.5000001\n0.25\n0.126\n")
        got = run_bench.compare_outputs(ref, other)
        self.assertAlmostEqual(got["max_abs_diff"], 0.001)
        self.assertEqual((got["agrees"], got["windows_over_tolerance"], got["checked_windows"]), (False, 1, 3))
        self.assertTrue(run_bench.compare_outputs(ref, ref)["agrees"])
        other.write_text("0.5\n")
        with self.assertRaises(RuntimeError):
            run_bench.compare_outputs(ref, other)


class WorkerTests(unittest.TestCase):
    def test_a_failing_worker_still_writes_its_result(self):
        with tempfile.TemporaryDirectory() as tmp:
            spec, result = Path(tmp) / "spec.json", Path(tmp) / "result.json"
            spec.write_text(json.dumps({"windows": str(Path(tmp) / "missing.csv"), "onnx": "missing.onnx"}))
            r = subprocess.run([sys.executable, str(run_bench.WORKERS), "ort", str(spec), str(result)],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            got = json.loads(result.read_text())
            self.assertEqual(got["worker"], "ort")
            self.assertEqual(got["rows"], [])
            self.assertTrue(got["error"], "the reason is in the result")

    def test_an_unknown_worker_is_a_usage_error(self):
        r = subprocess.run([sys.executable, str(run_bench.WORKERS), "nope", "a", "b"], capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("usage: workers.py", r.stderr)


if __name__ == "__main__":
    unittest.main()
