"""tools/check_architecture.py: the pure list read from a manifest's
sections, and the test-file naming rule, on made-up trees.

    python3 -m unittest discover -s tools/tests -t tools
"""
import sys
import tempfile
import unittest
from pathlib import Path

import check_architecture


class ArchitectureCheckTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.root = Path(self.folder.name)

    def tearDown(self):
        self.folder.cleanup()

    def test_the_pure_modules_are_the_targets_under_the_pure_sections(self):
        manifest = self.root / "Package.swift"
        manifest.write_text(
            '        // MARK: C libraries\n        .systemLibrary(name: "CIIO"),\n'
            '        // MARK: Pure logic: no C library\n        .target(name: "A"),\n'
            '        .target(name: "B", dependencies: ["A"]),\n'
            "        // MARK: The engine's kernels\n        .target(name: \"K\"),\n"
            '        // MARK: Parts that talk to the system\n        .target(name: "S", dependencies: ["CIIO"]),\n')
        self.assertEqual(check_architecture.pure_modules(manifest), ["A", "B", "K"])

    def test_a_test_that_needs_the_system_must_say_so_in_its_name(self):
        tests = self.root / "Tests" / "FooTests"
        tests.mkdir(parents=True)
        (tests / "PlainTests.swift").write_text("struct PlainTests {}\n")
        (tests / "BusTests.swift").write_text("try requireCapability(bus, reason)\n")
        (tests / "IdleSystemTests.swift").write_text("struct IdleSystemTests {}\n")
        (tests / "BrokerSystemTests.swift").write_text("try requireCapability(broker, reason)\n")
        old = check_architecture.REPO
        check_architecture.REPO = self.root
        try:
            problems = check_architecture.misplaced_tests(self.root / "Tests")
        finally:
            check_architecture.REPO = old
        self.assertEqual(len(problems), 2)
        self.assertIn("BusTests.swift calls requireCapability", problems[0])
        self.assertIn("IdleSystemTests.swift is named *SystemTests", problems[1])

    def test_this_repository_passes(self):
        self.assertGreater(len(check_architecture.pure_modules()), 5)
        self.assertEqual(check_architecture.misplaced_tests(), [])


if __name__ == "__main__":
    unittest.main()
