#!/usr/bin/env python3
"""Checks the module graph in Package.swift: the pure modules (the data
layer, beacon regions, the pipeline, the evaluation) must not reach a C
library target, directly or through another module.

    python3 tools/check_architecture.py            # reads `swift package dump-package`
    python3 tools/check_architecture.py FILE.json  # a saved dump
"""
import json
import subprocess
import sys

PURE = ["HeadsUpData", "HeadsUpBeacons", "HeadsUpPipeline", "HeadsUpEvaluation", "HeadsUpKernels", "HeadsUpKernelsAVX512",
        "HeadsUpKernelsAVX512Zen", "HeadsUpKernelsNEON",
        "HeadsUpKernelsAVX2", "HeadsUpKernelsBaseline"]


def dependencies(target):
    """Names of the targets of this package that `target` depends on."""
    names = []
    for dependency in target.get("dependencies", []):
        for kind in ("byName", "target"):
            if kind in dependency:
                names.append(dependency[kind][0])
    return names


def paths_to_c(package, start):
    """Every dependency path from `start` that ends at a system-library target."""
    targets = {t["name"]: t for t in package["targets"]}
    found = []

    def walk(name, path):
        target = targets.get(name)
        if target is None:  # a product of another package
            return
        if target["type"] == "system":
            found.append(path)
            return
        for dependency in dependencies(target):
            walk(dependency, path + [dependency])

    walk(start, [start])
    return found


def main():
    if len(sys.argv) > 1:
        package = json.load(open(sys.argv[1]))
    else:
        package = json.loads(subprocess.run(["swift", "package", "dump-package"], check=True, capture_output=True, text=True).stdout)
    problems = [" → ".join(path) for module in PURE for path in paths_to_c(package, module)]
    for problem in problems:
        print("architecture: a pure module reaches a C library: " + problem, file=sys.stderr)
    if problems:
        return 1
    print("architecture: %s reach no C library target" % ", ".join(PURE))
    return 0


if __name__ == "__main__":
    sys.exit(main())
