"""The fixtures' CSV files (inputs.csv, outputs.csv): one batch item a line,
flattened in C order, float32 written as %.9g. Pure numpy, so both venvs
(make_fixtures.py's numpy 2.x, make_fixtures_k231.py's 1.23) import it."""
import numpy as np


def write_csv(path, arr):
    arr = np.asarray(arr, dtype=np.float32)
    arr = arr.reshape(arr.shape[0], -1)
    with open(path, "w") as fh:
        for row in arr:
            fh.write(",".join("%.9g" % float(v) for v in row) + "\n")


def read_csv(path):
    with open(path) as fh:
        return np.array([[np.float32(t) for t in line.strip().split(",")]
                         for line in fh if line.strip()], dtype=np.float32)
