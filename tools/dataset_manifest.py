#!/usr/bin/env python3
"""Writes datasets/<name>/manifest.json and SHA256SUMS for a folder of session CSVs.

The manifest records provenance, each file's checksum, rows, label and
duration, and which whole sessions are reserved for testing. The test split
is drawn once, reproducibly: two sessions per label with random.Random(2019)
from the sorted session names, so nobody picks the easy ones by hand.

Usage: python3 tools/dataset_manifest.py datasets/phone-motion-v1
"""
import hashlib
import json
import random
import sys
from pathlib import Path

SEED = 2019
TEST_SESSIONS_PER_LABEL = 2

PROVENANCE = {
    "name": "phone-motion-v1",
    "description": "Labelled phone motion sessions: an iPhone held in the hands while looking at it "
    "(label 1, distracted) or carried in a pocket (label 0).",
    "source": "Recorded in 2019 with the public iOS demo app of danylokos/activity-demo-model "
    "(folders data/ and data_new/); file names are <folder>_<original name>.",
    "license": "MIT (the author's repository)",
    "format": "mode,timestamp,acc_x,acc_y,acc_z,gyro_x,gyro_y,gyro_z,mag_x,mag_y,mag_z; no header; "
    "g, rad/s, uT, seconds",
    "axis_convention": "CoreMotion (iPhone): gravity reads about -1 g on the axis pointing up",
    "notes": "Real rate about 100 Hz; timestamps go backwards; gaps up to 575 s; "
    "data_sensors_data_2, 5, 7 and 11 end with one stray row of the other label. See README.md.",
}


def describe(path: Path) -> dict:
    data = path.read_bytes()
    labels = {}
    times = []
    for line in data.decode().splitlines():
        fields = line.split(",")
        labels[fields[0]] = labels.get(fields[0], 0) + 1
        times.append(float(fields[1]))
    majority = max(labels, key=labels.get)
    return {
        "file": f"sessions/{path.name}",
        "original_name": path.stem + ".txt",
        "sha256": hashlib.sha256(data).hexdigest(),
        "bytes": len(data),
        "rows": len(times),
        "label": int(majority),
        "stray_rows": sum(n for label, n in labels.items() if label != majority),
        "duration_s": round(max(times) - min(times), 3),
    }


def main() -> None:
    root = Path(sys.argv[1])
    sessions = [describe(p) for p in sorted((root / "sessions").glob("*.csv"))]
    rng = random.Random(SEED)
    test = set()
    for label in (1, 0):
        names = sorted(s["file"] for s in sessions if s["label"] == label)
        test.update(rng.sample(names, TEST_SESSIONS_PER_LABEL))
    for s in sessions:
        s["split"] = "test" if s["file"] in test else "train"
    manifest = dict(PROVENANCE)
    manifest["test_split_rule"] = (
        f"{TEST_SESSIONS_PER_LABEL} whole sessions per label, random.Random({SEED}).sample over sorted names "
        "(hands first, then pocket); tools/dataset_manifest.py"
    )
    manifest["sessions"] = sessions
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    sums = "".join(f"{s['sha256']}  {s['file']}\n" for s in sessions)
    (root / "SHA256SUMS").write_text(sums)
    print(f"{len(sessions)} sessions; test: {sorted(test)}")


if __name__ == "__main__":
    main()
