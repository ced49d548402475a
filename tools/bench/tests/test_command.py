"""The command's venv choice (--python, --no-install, tools/pyvenv.py's stamp)
and the worker protocol, without installing anything."""
import json
import subprocess
import sys
import tempfile
import types
import unittest
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BENCH))
import run_bench  # noqa: E402
import pyvenv  # noqa: E402  (run_bench put tools/ on the path)


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
