#!/usr/bin/env python3
"""Checks the module graph in Package.swift: the pure modules (the data
layer, beacon regions, the pipeline, the evaluation) must not reach a C
library target, directly or through another module. Also checks the tests'
layout that `make test-unit` and `make test-system` rely on: a test file
that needs the system (root, namespaces, a daemon: `requireCapability`) is
named *SystemTests.swift, and one named so needs it.

    python3 tools/check_architecture.py            # reads `swift package dump-package`
    python3 tools/check_architecture.py FILE.json  # a saved dump
"""
import json
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# The sections of Package.swift whose targets must reach no C library.
PURE_SECTIONS = ("// MARK: Pure logic", "// MARK: The engine's kernels")


def pure_modules(manifest=REPO / "Package.swift"):
    """The targets declared under Package.swift's pure sections: the list
    lives in the manifest, where a new module is added."""
    names, inside = [], False
    for line in manifest.read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        if stripped.startswith("// MARK:"):
            inside = stripped.startswith(PURE_SECTIONS)
        elif inside:
            names += re.findall(r'\.target\(\s*name:\s*"(\w+)"', stripped)
    return names


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


IMPORT = re.compile(r"^\s*(?:@testable\s+)?import\s+(?:(?:struct|enum|class|func|protocol)\s+)?(\w+)", re.M)


def undeclared_imports(package):
    """Targets whose imports of this package's modules (and its products)
    differ from the dependencies Package.swift declares for them."""
    targets = {t["name"]: t for t in package["targets"]}
    products = {d["product"][0] for t in targets.values() for d in t.get("dependencies", []) if "product" in d}
    problems = []
    for name, target in sorted(targets.items()):
        if target["type"] == "system":
            continue
        folder = REPO / (target.get("path") or ("Tests/" if target["type"] == "test" else "Sources/") + name)
        imported = {m for f in folder.rglob("*.swift") for m in IMPORT.findall(f.read_text(encoding="utf-8"))}
        imported &= set(targets) | products
        declared = set(dependencies(target)) | {d["product"][0] for d in target.get("dependencies", []) if "product" in d}
        if imported != declared:
            problems.append("%s: Package.swift's dependencies differ from its imports (imported, not declared: %s; declared, not "
                            "imported: %s)" % (name, sorted(imported - declared) or "none", sorted(declared - imported) or "none"))
    return problems


def misplaced_tests(root=REPO / "Tests"):
    """Test files whose name does not say whether they need the system."""
    problems = []
    for path in sorted(root.glob("*Tests/*.swift")):
        needs_system = "requireCapability(" in path.read_text(encoding="utf-8")
        named_system = path.name.endswith("SystemTests.swift")
        if needs_system and not named_system:
            problems.append("%s calls requireCapability: move those tests to a *SystemTests.swift file "
                            "(a suite named …SystemTests), so make test-unit skips them" % path.relative_to(REPO))
        elif named_system and not needs_system:
            problems.append("%s is named *SystemTests but needs nothing of the system: rename it, so make test-unit runs it"
                            % path.relative_to(REPO))
    return problems


def main():
    if len(sys.argv) > 1:
        package = json.load(open(sys.argv[1]))
    else:
        package = json.loads(subprocess.run(["swift", "package", "dump-package"], check=True, capture_output=True, text=True).stdout)
    pure = pure_modules()
    if not pure:
        print("architecture: no targets found under %s in Package.swift" % " or ".join(PURE_SECTIONS), file=sys.stderr)
        return 1
    problems = [" → ".join(path) for module in pure for path in paths_to_c(package, module)]
    for problem in problems:
        print("architecture: a pure module reaches a C library: " + problem, file=sys.stderr)
    tests = misplaced_tests() + undeclared_imports(package)
    for problem in tests:
        print("architecture: " + problem, file=sys.stderr)
    if problems or tests:
        return 1
    print("architecture: %s reach no C library target; tests that need the system are in *SystemTests files; every target imports what it declares" % ", ".join(pure))
    return 0


if __name__ == "__main__":
    sys.exit(main())
