#!/usr/bin/env python3
"""Draws HeadsUp's modules and their dependencies from Package.swift, as a
Mermaid graph (GitHub shows it as a picture; it reads as text too), and
keeps the drawing at the top of docs/architecture.md up to date.

    python3 tools/module_graph.py            # rewrite the drawing in docs/architecture.md (make graph)
    python3 tools/module_graph.py --check    # exit 1 when the drawing is stale (make test-unit)
    python3 tools/module_graph.py --print    # the drawing alone

The modules under Sources/ are drawn in the manifest's sections (its
`// MARK:` lines); an arrow is a dependency, and one implied by a longer
path is left out (the graph's transitive reduction), so each arrow says
something. Tests, fuzzers and benchmarks are not drawn. Standard library only.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

import check_architecture

REPO = Path(__file__).resolve().parent.parent
PAGE = REPO / "docs" / "architecture.md"
BEGIN = "<!-- module graph: made by `make graph` (tools/module_graph.py) from Package.swift; do not edit by hand -->"
END = "<!-- end of module graph -->"
SECTION = re.compile(r"//\s*MARK:\s*(.*)")
DECLARED = re.compile(r'\.(?:target|executableTarget|systemLibrary)\(\s*name:\s*"([\w-]+)"')


def sections(manifest=REPO / "Package.swift"):
    """(section title, [target names]) in the manifest's order."""
    result, title = [], None
    text = manifest.read_text(encoding="utf-8")
    for line in text.splitlines():
        mark = SECTION.search(line)
        if mark:
            title = mark.group(1).strip()
            result.append((title, []))
            continue
        if result:
            result[-1][1].extend(DECLARED.findall(line))
    # A declaration split over lines (`.systemLibrary(` then `name:` on the next).
    for match in re.finditer(r'\.(?:target|executableTarget|systemLibrary)\(\s*\n\s*name:\s*"([\w-]+)"', text):
        title = [m for m in SECTION.finditer(text[:match.start()])][-1].group(1).strip()
        for section, names in result:
            if section == title and match.group(1) not in names:
                names.append(match.group(1))
    return [(title, names) for title, names in result if names]


def modules(package):
    """The drawn targets (those under Sources/) and their direct dependencies on each other."""
    drawn = {}
    for target in package["targets"]:
        path = target.get("path") or ("Tests/" if target["type"] == "test" else "Sources/") + target["name"]
        if target["type"] == "test" or not path.startswith("Sources"):
            continue
        drawn[target["name"]] = check_architecture.dependencies(target)
    return {name: [d for d in deps if d in drawn] for name, deps in drawn.items()}


def reduced(graph):
    """The transitive reduction: a → c is dropped when a reaches c through another module."""
    def reach(start, skip_edge):
        seen, stack = set(), [d for d in graph[start] if d != skip_edge]
        while stack:
            node = stack.pop()
            if node not in seen:
                seen.add(node)
                stack.extend(graph[node])
        return seen
    return {name: sorted(d for d in deps if d not in reach(name, d)) for name, deps in graph.items()}


def drawing(package, manifest=REPO / "Package.swift"):
    """The Mermaid block, between its markers."""
    graph = reduced(modules(package))
    node = lambda name: name.replace("-", "_")  # noqa: E731
    lines = [BEGIN, "```mermaid", "flowchart BT"]
    placed = set()
    for index, (title, names) in enumerate(sections(manifest)):
        names = [n for n in names if n in graph]
        if not names:
            continue
        lines.append('    subgraph s%d ["%s"]' % (index, title.replace('"', "'")))
        lines += ["        %s[%s]" % (node(n), n) for n in names]
        lines.append("    end")
        placed.update(names)
    lines += ["    %s[%s]" % (node(n), n) for n in sorted(set(graph) - placed)]
    for name in sorted(graph):
        lines += ["    %s --> %s" % (node(name), node(dependency)) for dependency in graph[name]]
    lines += ["```", END]
    return "\n".join(lines) + "\n"


def with_drawing(page_text, block):
    """The page with its drawing replaced (or put under the title when it has none)."""
    if BEGIN in page_text and END in page_text:
        head, rest = page_text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        return head + block.rstrip("\n") + tail
    title, _, body = page_text.partition("\n")
    return title + "\n\n" + block + body


def dump_package():
    return json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=REPO, check=True, capture_output=True, text=True).stdout)


def main(argv):
    block = drawing(dump_package())
    if "--print" in argv:
        sys.stdout.write(block)
        return 0
    text = PAGE.read_text(encoding="utf-8")
    updated = with_drawing(text, block)
    if "--check" in argv:
        if updated != text:
            print("module_graph: the drawing in docs/architecture.md is stale: run `make graph`", file=sys.stderr)
            return 1
        print("module_graph: docs/architecture.md draws Package.swift's modules as they are")
        return 0
    PAGE.write_text(updated, encoding="utf-8")
    print("module_graph: wrote the drawing in docs/architecture.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
