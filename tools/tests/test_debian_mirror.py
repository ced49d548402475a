"""tools/package/debian_mirror.py: the machine's Debian archive read from
made-up apt sources (one-line and deb822), and none on Ubuntu.

    python3 -m unittest discover -s tools/tests -t tools
"""
import tempfile
import unittest
from pathlib import Path

from package import debian_mirror


class DebianMirrorTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.root = Path(self.folder.name)
        (self.root / "etc/apt/sources.list.d").mkdir(parents=True)

    def tearDown(self):
        self.folder.cleanup()

    def test_deb822_sources_give_the_archive_and_its_security_archive(self):
        (self.root / "etc/apt/sources.list.d/debian.sources").write_text(
            "Types: deb\n# a comment\nURIs: http://mirror.example/debian/\nSuites: bookworm bookworm-updates\nComponents: main\n\n"
            "Types: deb\nURIs: http://mirror.example/debian-security\nSuites: bookworm-security\nComponents: main\n")
        self.assertEqual(debian_mirror.mirror(root=self.root), "http://mirror.example/debian")
        self.assertEqual(debian_mirror.mirror(security=True, root=self.root), "http://mirror.example/debian-security")

    def test_one_line_sources_with_options_and_a_disabled_stanza(self):
        (self.root / "etc/apt/sources.list").write_text(
            "# deb http://old.example/debian bookworm main\ndeb-src http://src.example/debian trixie main\n"
            "deb [arch=amd64 signed-by=/k.gpg] http://proxy.local:3142/debian trixie main\n")
        (self.root / "etc/apt/sources.list.d/off.sources").write_text(
            "Enabled: no\nTypes: deb\nURIs: http://first.example/debian\nSuites: sid\n")
        self.assertEqual(debian_mirror.mirror(root=self.root), "http://proxy.local:3142/debian")
        self.assertIsNone(debian_mirror.mirror(security=True, root=self.root))

    def test_ubuntu_has_no_debian_archive(self):
        (self.root / "etc/apt/sources.list").write_text("deb http://archive.ubuntu.com/ubuntu noble main\n")
        self.assertIsNone(debian_mirror.mirror(root=self.root))


if __name__ == "__main__":
    unittest.main()
