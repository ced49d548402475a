"""A small recorded set for the personal-model tests, made in a temporary
folder (never committed): whole-second cuts of real walks, written as
`headsup record` writes them, each with its sidecar NAME.json.

The walks are one phone and one walker of ../shared/datasets/carry-positions-v1
(Pixel, Jamie, hard floor: accelerometer only, as many phones record), so
the set looks like one user's recordings: two in the hands, two in a front
pocket, two in a purse. Their times (seconds since the phone's boot) are
moved to Unix time, as `record` writes them.
"""
import json
import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent.parent
CARRY = Path(os.environ.get("HEADSUP_CARRY_DATASET", REPO.parent / "shared" / "datasets" / "carry-positions-v1"))

# (source walk, recording name, position)
WALKS = [
    ("Pixel_Jamie_Hard_InHand_1_1", "hands-1", "hands"),
    ("Pixel_Jamie_Hard_InHand_2_1", "hands-2", "hands"),
    ("Pixel_Jamie_Hard_FrontPocket_1_0", "pocket-1", "pocket"),
    ("Pixel_Jamie_Hard_FrontPocket_2_0", "pocket-2", "pocket"),
    ("Pixel_Jamie_Hard_Purse_1_0", "purse-1", "purse"),
    ("Pixel_Jamie_Hard_Purse_2_0", "purse-2", "purse"),
]
START = 1_764_300_000.0


def available():
    return all((CARRY / "sessions" / (walk + ".csv")).exists() for walk, _, _ in WALKS)


def make(folder, seconds=40.0, walks=WALKS):
    """Writes the recordings into `folder`: the `seconds` after the first 10 s
    of each walk (its middle, away from pocketing the phone)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for index, (walk, name, position) in enumerate(walks):
        lines = (CARRY / "sessions" / (walk + ".csv")).read_text().splitlines()
        first = float(lines[0].split(",")[1])
        start = START + 3600.0 * index
        rows = []
        for line in lines:
            fields = line.split(",")
            t = float(fields[1]) - first
            if 10.0 <= t < 10.0 + seconds:
                rows.append(",".join([fields[0], "%.6f" % (start + t)] + fields[2:]))
        (folder / (name + ".csv")).write_text("\n".join(rows) + "\n")
        sidecar = {"format": "headsup-recording", "format_version": 1, "session": name + ".csv", "position": position,
                   "label": 1 if position == "hands" else 0, "context": "local:", "devices": [],
                   "channels": ["acc_x", "acc_y", "acc_z"], "sample_rate_hz": 50, "axis_convention": "coremotion",
                   "start_time": start + 10.0, "start_time_utc": ""}
        (folder / (name + ".json")).write_text(json.dumps(sidecar, indent=2) + "\n")
    return folder
