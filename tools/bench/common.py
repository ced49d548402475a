"""What the command (run_bench.py), the peer workers (workers.py) and the
report (report.py) share. Standard library only: the workers import it
inside tools/bench/.venv, the command with any python3."""

import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
TOLERANCE = 1e-5

# The variable that forces HeadsUp's kernel level (unset: the best this CPU
# runs), and the levels a HeadsUp binary knows, best first.
KERNELS_ENV = "HEADSUP_KERNELS"
KERNEL_LEVELS = ["avx512-zen", "avx512", "avx2", "neon", "baseline"]

# One thread for every runtime; set before any of them is imported.
THREAD_ENV = {
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "TF_NUM_INTRAOP_THREADS": "1",
    "TF_NUM_INTEROP_THREADS": "1",
    "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false",
    "TF_CPP_MIN_LOG_LEVEL": "2",
    "CUDA_VISIBLE_DEVICES": "-1",
    "PYTHONHASHSEED": "0",
}


def rel(path):
    try:
        return str(Path(path).resolve().relative_to(REPO))
    except ValueError:
        return str(path)


def loadavg():
    try:
        return list(os.getloadavg())
    except OSError:
        return [float("nan")] * 3
