#!/usr/bin/env python3
"""Checks the relative links of the project's Markdown pages: every link to
a file or folder of the repository must resolve, and a link with a #fragment
to a Markdown page must name one of its headings (GitHub's anchors). Then
checks that no page and no code comment cites a repository path that does
not exist (`Sources/…`, `tools/…`, `docs/…` and the other top folders), so a
file that moves or goes takes its mentions with it. The dated notes
(docs/notes/) are a record of their day and may cite files since removed.

    python3 tools/check_docs.py            # every .md file, every comment
    python3 tools/check_docs.py FILE...    # only these pages (links only)

Links with a scheme (https:, mailto:) are not followed. Links inside code
(fenced blocks and `inline code`) are not links. Exit status 1 when a link
is broken; each is printed as FILE:LINE: what. Standard library only.
"""
import io
import os
import re
import tokenize
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# Pages another branch is writing, linked to before they land. A link to one
# is reported but not a failure; once the page exists, the check fails until
# it is taken off this list.
PENDING: set[str] = set()

# Folders that hold no project pages (build output, virtualenvs, caches).
SKIPPED_FOLDERS = {".git", ".build", ".build-dist", ".build-arm64", ".venv", ".venv-k231", "node_modules", "out", "__pycache__"}

INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
INLINE_CODE = re.compile(r"(`+)(.+?)\1")
FENCE = re.compile(r"^\s{0,3}(```+|~~~+)")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def markdown_files(root):
    """Every .md file under `root`, outside build and tool-cache folders."""
    found = []
    for folder, folders, files in os.walk(root):
        folders[:] = sorted(f for f in folders if f not in SKIPPED_FOLDERS and not f.startswith(".build"))
        found += [Path(folder) / name for name in sorted(files) if name.endswith(".md")]
    return found


def prose_lines(text):
    """(line number, line) for the lines outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        match = FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)[0] * len(match.group(1))
            continue
        if fence is not None:
            if line.strip().startswith(fence):
                fence = None
            continue
        yield number, line


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = INLINE_CODE.sub(lambda m: m.group(2), heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link's text only
    text = re.sub(r"<[^>]+>", "", text)  # HTML tags
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    """The anchors of a Markdown page's headings, with GitHub's -1, -2 for repeats."""
    seen = {}
    result = set()
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        match = HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        result.add(base if count == 0 else "%s-%d" % (base, count))
    return result


def links(text):
    """(line number, target) for each link in the prose."""
    for number, line in prose_lines(text):
        definition = REFERENCE_DEFINITION.match(line)
        if definition:
            yield number, definition.group(1)
            continue
        without_code = INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)
        for match in INLINE_LINK.finditer(without_code):
            yield number, match.group(1)


def check(page, root=REPO, pending=PENDING):
    """Problems with one page's links: (line, message, is_failure)."""
    problems = []
    cache = {}
    for number, target in links(page.read_text(encoding="utf-8")):
        if SCHEME.match(target):
            continue
        path_part, _, fragment = target.partition("#")
        destination = (page.parent / path_part).resolve() if path_part else page.resolve()
        try:
            relative = destination.relative_to(root.resolve()).as_posix()
        except ValueError:
            problems.append((number, "%s points outside the repository" % target, True))
            continue
        if relative in pending:
            if destination.exists():
                problems.append((number, "%s exists now: take it off PENDING in tools/check_docs.py" % relative, True))
            else:
                problems.append((number, "%s is not written yet (pending)" % target, False))
            continue
        if not destination.exists():
            problems.append((number, "%s: no such file or folder" % target, True))
            continue
        if fragment and destination.is_file() and destination.suffix == ".md":
            if destination not in cache:
                cache[destination] = anchors(destination)
            if fragment not in cache[destination]:
                problems.append((number, "%s: no heading with the anchor #%s in %s" % (target, fragment, relative), True))
    return problems


# A path into one of the repository's top folders, written in a page or a comment.
CITED_PATH = re.compile(r"(?<![\w./$-])((?:Sources|Tests|tools|docs|dist|datasets|weights)/[A-Za-z0-9_.\-/]*[A-Za-z0-9_/])")
CODE_COMMENT = {".swift": "//", ".c": "//", ".h": "//", ".py": "#", ".sh": "#", ".yaml": "#", ".yml": "#", ".in": "#"}
# Folders whose files are data or generated output, not prose or code to check.
CITATION_SKIPPED = SKIPPED_FOLDERS | {"notes", "corpus", "Fixtures", "datasets"}


def cited_lines(path):
    """(line number, text) of a file's prose: a page's lines outside code
    fences, or a source file's comments (after // or #)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".md":
        yield from prose_lines(text)
        return
    if path.suffix == ".py":
        yield from python_comments(text)
        return
    marker = "#" if path.name == "Makefile" else CODE_COMMENT.get(path.suffix)
    if marker is None:
        return
    for number, line in enumerate(text.splitlines(), 1):
        position = line.find(marker)
        if position >= 0:
            yield number, line[position + len(marker):]


def python_comments(text):
    """(line number, text) of a Python file's comments and docstrings."""
    previous = tokenize.NEWLINE
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            is_docstring = token.type == tokenize.STRING and previous in (tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT)
            if token.type == tokenize.COMMENT or is_docstring:
                for offset, line in enumerate(token.string.splitlines()):
                    yield token.start[0] + offset, line
            if token.type not in (tokenize.COMMENT, tokenize.NL):
                previous = token.type
    except (tokenize.TokenError, SyntaxError):
        return


def missing_citations(root=REPO):
    """(file, line, path) for each cited repository path that does not exist.
    A path followed by a placeholder or a pattern (`weights/<name>.h5`,
    `model.{h5,json}`, `*`) and one with a hidden or upper-case placeholder
    part (`.venv`, `NAME`) is a pattern, not a citation."""
    found = []
    for folder, folders, files in os.walk(root):
        folders[:] = sorted(f for f in folders if f not in CITATION_SKIPPED and not f.startswith(".build"))
        for name in sorted(files):
            path = Path(folder) / name
            if path.suffix not in CODE_COMMENT and path.suffix != ".md" and name != "Makefile":
                continue
            for number, line in cited_lines(path):
                for match in CITED_PATH.finditer(line):
                    cited, following = match.group(1), line[match.end():match.end() + 2]
                    if (following[:1] and following[:1] in "*<$({…") or following in (".{", ".*", ".<", "-*", "-<"):
                        continue
                    parts = cited.rstrip("/").split("/")
                    if any(part.startswith(".") or part in SKIPPED_FOLDERS or (part.isupper() and len(part) > 1) for part in parts):
                        continue
                    if not (root / cited).exists():
                        found.append((path.relative_to(root), number, cited))
    return found


def main(argv):
    pages = [Path(a).resolve() for a in argv] if argv else markdown_files(REPO)
    failures = 0
    pending = 0
    for page in pages:
        for number, message, failure in check(page):
            shown = page.relative_to(REPO) if page.is_relative_to(REPO) else page
            print("%s:%d: %s" % (shown, number, message), file=sys.stderr if failure else sys.stdout)
            failures += failure
            pending += not failure
    note = ", %d to pages not written yet" % pending if pending else ""
    if not argv:
        for path, number, cited in missing_citations():
            print("%s:%d: cites %s, which does not exist" % (path, number, cited), file=sys.stderr)
            failures += 1
    if failures:
        print("check_docs: %d broken link(s) or citation(s) in %d page(s)%s" % (failures, len(pages), note), file=sys.stderr)
        return 1
    print("check_docs: the links of %d page(s) resolve%s%s" % (len(pages), note, "" if argv else "; every cited path exists"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
