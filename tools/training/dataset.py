"""The sessions and their model windows, as HeadsUp itself makes them: each
session through `headsup dataset windows` (HeadsUpData: the CSV reader, the
50 Hz resampler, the windower), so Keras trains on exactly the windows the
app scores. The Python port of that data layer lives in
tools/training/tests/headsup_data.py, kept only as the independent reading
that tests/test_windows_match_swift.py checks the Swift one against.

    from tools.training import dataset
    manifest = dataset.load_manifest("datasets/phone-motion-v1")
    windows = dataset.session_windows(manifest["sessions"][0]["path"], hop=25)

The engine's binary comes from engine.find_binary ($HEADSUP_BIN, then the
builds); `use_binary` names another.
"""
import json
import os
import subprocess
from dataclasses import dataclass, field

import numpy as np

from tools.training import engine

CHANNELS = ("acc_x", "acc_y", "acc_z", "gyro_x", "gyro_y", "gyro_z", "mag_x", "mag_y", "mag_z")
LENGTH = 50
LAYOUTS = ("time-major", "channel-major")
LABEL_POLICIES = ("majority", "uniform")

_binary = None


def use_binary(path):
    """Makes windows with the headsup binary at `path` (train --headsup)."""
    global _binary
    _binary = engine.find_binary(path) if path else None


def binary():
    """The headsup binary that makes the windows; a clear error when there is none."""
    global _binary
    if _binary is None:
        _binary = engine.find_binary()
    if _binary is None:
        raise engine.EngineError("no headsup binary to read the sessions with: build it (swift build -c release --product "
                                 "headsup) or set HEADSUP_BIN")
    return _binary


@dataclass
class Windows:
    """A batch of model windows, in time order."""
    start_times: np.ndarray   # (N,) float64, time of each window's first sample
    labels: np.ndarray        # (N,) int8
    uniform: np.ndarray       # (N,) bool, all samples share the label
    values: np.ndarray        # (N, length, 9) float32, time-major
    sessions: list = field(default_factory=list)  # (N,) session name per window (when concatenated)

    def __len__(self):
        return len(self.labels)

    def flattened(self, layout="time-major"):
        """(N, length·9) float32: time-major index t·9 + c, channel-major c·length + t."""
        if layout == "time-major":
            return self.values.reshape(len(self), -1)
        if layout == "channel-major":
            return np.ascontiguousarray(self.values.transpose(0, 2, 1)).reshape(len(self), -1)
        raise ValueError("layout must be time-major or channel-major, got %r" % (layout,))


def empty(length=LENGTH):
    return Windows(np.zeros((0,), np.float64), np.zeros((0,), np.int8), np.zeros((0,), bool),
                   np.zeros((0, length, len(CHANNELS)), np.float32))


def session_name(path):
    base = os.path.basename(path)
    return base[:-4] if base.endswith((".csv", ".txt")) else base


def session_windows(path, hop=25, length=LENGTH, label_policy="majority"):
    """The windows `headsup dataset windows` makes from the session CSV at `path`."""
    if label_policy not in LABEL_POLICIES:
        raise ValueError("label_policy must be majority or uniform")
    command = [str(binary()), "dataset", "windows", str(path), "--hop", str(hop), "--length", str(length),
               "--label-policy", label_policy, "--layout", "time-major"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "exit status %d" % done.returncode
        raise ValueError("%s: %s" % (path, said))
    rows = [line for line in done.stdout.splitlines() if line.strip()]
    if not rows:
        w = empty(length)
    else:
        table = np.array([line.split(",") for line in rows], dtype=np.float64)
        w = Windows(table[:, 0], table[:, 1].astype(np.int8), table[:, 2] != 0,
                    table[:, 3:].astype(np.float32).reshape(len(rows), length, len(CHANNELS)))
    w.sessions = [session_name(path)] * len(w)
    return w


def concat(windows_list, names=None):
    """Concatenates Windows; `names` (one per item) fills `sessions`."""
    parts = [w for w in windows_list if w is not None]
    if names is not None:
        sessions = [name for w, name in zip(windows_list, names) if w is not None for _ in range(len(w))]
    else:
        sessions = [s for w in parts for s in w.sessions]
    if not parts:
        w = empty()
        w.sessions = sessions
        return w
    return Windows(np.concatenate([w.start_times for w in parts]), np.concatenate([w.labels for w in parts]),
                   np.concatenate([w.uniform for w in parts]), np.concatenate([w.values for w in parts]), sessions)


def load_manifest(dataset_dir):
    """A data set's manifest.json, each session with its `name` and `path`."""
    with open(os.path.join(dataset_dir, "manifest.json")) as f:
        manifest = json.load(f)
    for s in manifest["sessions"]:
        s["name"] = session_name(s["file"])
        s["path"] = os.path.join(dataset_dir, s["file"])
    return manifest
