"""The carry-positions data set (accelerometer only) for training, and the
two things that let one model learn from it honestly: channel dropout and
random 3-D rotations of not-distracted windows.

The set is not in the repository (it is CC BY 4.0 data from the Oxford
step-counter set, 84 MB): it is read from ../shared/datasets/carry-positions-v1
relative to the repository root (CI has shared/ beside its clone), or from
--carry-dataset. Its file names say phone, walker, floor, position, take
and label: Pixel_Jamie_Hard_Purse_2_0.csv.

Its gyroscope and magnetometer columns are missing, written as 0. The
runtime's aligner also writes 0 for a channel a device does not have (a
PinePhone Pro has no magnetometer), so a model that is shown such windows
with those channels at 0, and is shown the same at times for sessions that
do have them (channel dropout), learns that 0 there means "not measured",
not "perfectly still".
"""
import hashlib
import os

import numpy as np

from . import augment
from . import dataset

# The set's position tokens and the positions HeadsUp reports (the same
# names as Sources/HeadsUpData/Samples/PhonePosition.swift).
POSITIONS = {
    "InHand": "hands", "FrontPocket": "pocket", "BackPocket": "pocket", "Purse": "purse",
    "Armband": "armband", "NeckPouch": "neck-pouch", "SwingingArm": "swinging-arm",
}
# What the file name says of the pose within a position (the card's pose
# column); positions without one are "as carried".
POSES = {"InHand": "texting", "FrontPocket": "front", "BackPocket": "back"}
SOURCE = ("carry-positions-v1: a subset of the Oxford step-counter data set (Oxford-step-counter/DataSet on GitHub, "
          "optimisation/data/), CC BY 4.0; accelerometer only")
LICENSE = "CC BY 4.0 (Creative Commons Attribution 4.0 International): credit the Oxford step-counter data set"

# Channel dropout (training only): the share of windows of sessions that have
# every channel shown accelerometer-only, and the share shown without the
# magnetometer. The design that worked before (the stop-35 note): 35 % / 15 %.
DROPOUT = {"acc_only": 0.35, "no_mag": 0.15}
# The share of not-distracted windows given a uniform random 3-D rotation: a
# bag or an armband holds the phone at any angle, while "in the hands, looked
# at" keeps the screen up, so only the not-distracted class is spun freely.
ROTATE_NOT_DISTRACTED = 0.5


def parse_name(name):
    """(phone, walker, floor, position, label) from a carry session's name."""
    parts = name.split("_")
    if len(parts) != 6 or parts[3] not in POSITIONS or parts[5] not in ("0", "1"):
        raise SystemExit("train: %s is not a carry-positions session name (Phone_Walker_Floor_Position_Take_Label)" % name)
    return parts[0], parts[1], parts[2], POSITIONS[parts[3]], int(parts[5])


def load(folder, hop):
    """Every session of the set, checked against SHA256SUMS: {name: {"meta", "windows"}}."""
    sums = os.path.join(folder, "SHA256SUMS")
    if not os.path.exists(sums):
        raise SystemExit("train: %s: no carry-positions data set here (no SHA256SUMS); give its folder with "
                         "--carry-dataset DIR" % folder)
    sessions = {}
    with open(sums) as f:
        entries = [line.split() for line in f if line.strip()]
    for digest, file in entries:
        if not file.endswith(".csv"):
            continue
        path = os.path.join(folder, "sessions", os.path.basename(file))
        with open(path, "rb") as g:
            if hashlib.sha256(g.read()).hexdigest() != digest:
                raise SystemExit("train: %s does not match its SHA256SUMS entry" % path)
        name = dataset.session_name(path)
        phone, walker, floor, position, label = parse_name(name)
        meta = {"name": name, "path": path, "split": "train", "label": label, "phone": phone, "walker": walker,
                "floor": floor, "position": position, "pose": POSES.get(name.split("_")[3], "as carried"),
                "channels": "acc", "sha256": digest}
        # Seconds since the phone's boot, not Unix time: read as they are.
        windows = dataset.session_windows(path, hop=hop)
        sessions[name] = {"meta": meta, "windows": windows}
    if not sessions:
        raise SystemExit("train: %s lists no sessions" % sums)
    return sessions


def walkers(sessions):
    """{walker: [session names]} of the carry sessions, sorted."""
    out = {}
    for name, s in sorted(sessions.items()):
        if "walker" in s["meta"]:
            out.setdefault(s["meta"]["walker"], []).append(name)
    return out


def drop_channels(x, missing, rng, acc_only=DROPOUT["acc_only"], no_mag=DROPOUT["no_mag"]):
    """Zeroes gyroscope and magnetometer (columns 3..8) where they are
    `missing` (per window), and, for the other windows, in a random
    `acc_only` share; zeroes the magnetometer alone in a further `no_mag`
    share. `x` (N, 50, 9) after rotation and magnetometer offsets, which
    must not leak into a missing channel. Returns a new array."""
    x = x.copy()
    draw = rng.random(len(x))
    without_motion = missing | (draw < acc_only)
    without_mag = without_motion | (draw < acc_only + no_mag)
    x[without_motion, :, 3:6] = 0.0
    x[without_mag, :, 6:9] = 0.0
    return x


def rotate_not_distracted(x, labels, rng, share=ROTATE_NOT_DISTRACTED):
    """A uniform random 3-D rotation for `share` of the label-0 windows (one
    rotation per window, alike for every sensor)."""
    chosen = np.flatnonzero((np.asarray(labels) < 0.5) & (rng.random(len(x)) < share))
    if len(chosen) == 0:
        return x
    x = x.copy()
    x[chosen] = augment.rotate(x[chosen], augment.uniform_rotations(len(chosen), rng)).astype(x.dtype)
    return x
