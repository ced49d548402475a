#!/usr/bin/env python3
"""Prints the Debian archive this machine's apt uses, for the roots that the
install test and the arm64 cross build make with debootstrap: a user's own
mirror (or caching proxy) then serves them too, and nothing names an
archive's address.

    tools/package/debian_mirror.py              # the archive (…/debian)
    tools/package/debian_mirror.py --security   # the security archive (…/debian-security)

It reads /etc/apt/sources.list and /etc/apt/sources.list.d/ (one-line and
deb822 forms) and prints the first source of Debian's suites, or nothing
when the machine has none (Ubuntu, say): the caller then leaves the mirror
to debootstrap's default and takes the one debootstrap wrote into the new
root. Standard library only.
"""
import sys
from pathlib import Path

# Debian's suites by codename and by name, with and without -updates.
DEBIAN_SUITES = {"buster", "bullseye", "bookworm", "trixie", "forky", "duke", "sid", "stable", "testing", "unstable", "oldstable"}


def sources(root=Path("/")):
    """(types, uris, suites) of every enabled apt source, in apt's order."""
    folder = root / "etc/apt"
    found = []
    files = [folder / "sources.list"] + sorted((folder / "sources.list.d").glob("*.list"))
    for path in files:
        if not path.is_file():
            continue
        for line in path.read_text(errors="replace").splitlines():
            words = line.split("#", 1)[0].split()
            if len(words) >= 3 and words[0] in ("deb", "deb-src"):
                words = [w for w in words if not (w.startswith("[") or w.endswith("]") or "=" in w)]
                found.append(([words[0]], [words[1]], [words[2]]))
    for path in sorted((folder / "sources.list.d").glob("*.sources")):
        for stanza in path.read_text(errors="replace").split("\n\n"):
            fields = {}
            for line in stanza.splitlines():
                if line.startswith("#") or ":" not in line or line[:1].isspace():
                    continue
                key, value = line.split(":", 1)
                fields[key.strip().lower()] = value.split()
            if fields.get("enabled", ["yes"])[0].lower() == "no" or "uris" not in fields:
                continue
            found.append((fields.get("types", ["deb"]), fields["uris"], fields.get("suites", [])))
    return found


def mirror(security=False, root=Path("/")):
    """The first Debian source's URI, or None."""
    for types, uris, suites in sources(root):
        if "deb" not in types:
            continue
        for suite in suites:
            base, _, pocket = suite.partition("-")
            if base not in DEBIAN_SUITES or (pocket == "security") != security:
                continue
            return uris[0].rstrip("/")
    return None


if __name__ == "__main__":
    found = mirror(security="--security" in sys.argv[1:])
    if found:
        print(found)
