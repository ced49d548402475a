#!/usr/bin/env python3
"""Compares two `headsup evaluate --json` reports of the same model on the
same sessions, made by two builds (the amd64 release binary and the arm64
package under qemu): every figure must be equal, to the last bit (the
per-window scores included). Only the date may differ, and the paths: one
side reads the source tree, the other /usr/share/headsup, so a path is
compared by its file name.

    compare_evaluations.py REFERENCE.json OTHER.json

Prints how many values were compared and the headline figures, or the
differences (exit 1).
"""
import json
import os
import sys


def normalize(value):
    if isinstance(value, dict):
        return {key: normalize(item) for key, item in value.items() if key != "date"}
    if isinstance(value, list):
        return [normalize(item) for item in value]
    if isinstance(value, str) and "/" in value:
        return os.path.basename(value.rstrip("/"))
    return value


def compare(reference, other, path, differences, counts):
    if isinstance(reference, dict) and isinstance(other, dict):
        for key in sorted(set(reference) | set(other)):
            if key not in reference or key not in other:
                differences.append(f"{path}.{key}: only in {'the reference' if key in reference else 'the other'}")
            else:
                compare(reference[key], other[key], f"{path}.{key}", differences, counts)
    elif isinstance(reference, list) and isinstance(other, list):
        if len(reference) != len(other):
            differences.append(f"{path}: {len(reference)} items against {len(other)}")
        for index, (left, right) in enumerate(zip(reference, other)):
            compare(left, right, f"{path}[{index}]", differences, counts)
    else:
        counts[0] += 1
        # Exact: JSON numbers written by the same encoder from equal doubles are equal text.
        if type(reference) is not type(other) or reference != other:
            differences.append(f"{path}: {reference!r} against {other!r}")


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 64
    with open(sys.argv[1]) as file:
        reference = normalize(json.load(file))
    with open(sys.argv[2]) as file:
        other = normalize(json.load(file))
    differences, counts = [], [0]
    compare(reference, other, "$", differences, counts)
    if differences:
        print(f"{len(differences)} of {counts[0]} values differ:")
        for line in differences[:20]:
            print(f"  {line}")
        return 1
    overall = reference.get("overall", {})
    figures = [f"{counts[0]} values equal"]
    if "overallAccuracy" in reference:
        figures.append(f"accuracy {reference['overallAccuracy']:.4f}")
    if overall.get("rocAUC") is not None:
        figures.append(f"ROC AUC {overall['rocAUC']:.4f}")
    print(", ".join(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
