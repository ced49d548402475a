"""tools/module_graph.py: the transitive reduction and the page's drawing on
made-up graphs, and the repository's drawing against its Package.swift.

    python3 -m unittest discover -s tools/tests -t tools
"""
import tempfile
import unittest
from pathlib import Path

import module_graph


class ReductionTest(unittest.TestCase):
    def test_an_arrow_implied_by_a_longer_path_goes(self):
        graph = {"cli": ["runtime", "data", "system"], "runtime": ["data"], "data": ["system"], "system": []}
        self.assertEqual(module_graph.reduced(graph), {"cli": ["runtime"], "runtime": ["data"], "data": ["system"], "system": []})

    def test_parallel_paths_keep_their_own_arrows(self):
        graph = {"a": ["b", "c"], "b": ["d"], "c": ["d"], "d": []}
        self.assertEqual(module_graph.reduced(graph), graph)


class PageTest(unittest.TestCase):
    def test_the_drawing_goes_under_the_title_then_is_replaced_in_place(self):
        block = module_graph.BEGIN + "\nold\n" + module_graph.END + "\n"
        page = module_graph.with_drawing("# Architecture\nIntro.\n", block)
        self.assertEqual(page, "# Architecture\n\n" + block + "Intro.\n")
        newer = module_graph.BEGIN + "\nnew\n" + module_graph.END + "\n"
        self.assertEqual(module_graph.with_drawing(page, newer), "# Architecture\n\n" + newer + "Intro.\n")

    def test_sections_and_arrows_come_from_the_manifest(self):
        with tempfile.TemporaryDirectory() as folder:
            manifest = Path(folder) / "Package.swift"
            manifest.write_text('''
        // MARK: C libraries
        .systemLibrary(
            name: "CLib"),
        // MARK: Pure logic
        .target(name: "Data"),
        .target(name: "Pipeline", dependencies: ["Data"]),
        // MARK: Tests
        .testTarget(name: "DataTests", dependencies: ["Data"]),
''')
            package = {"targets": [
                {"name": "CLib", "type": "system", "dependencies": []},
                {"name": "Data", "type": "regular", "dependencies": [{"byName": ["CLib", None]}]},
                {"name": "Pipeline", "type": "regular", "dependencies": [{"byName": ["Data", None]}, {"byName": ["CLib", None]}]},
                {"name": "DataTests", "type": "test", "dependencies": [{"byName": ["Data", None]}]},
                {"name": "fuzz-x", "type": "executable", "path": "tools/fuzz/X", "dependencies": [{"byName": ["Data", None]}]},
            ]}
            text = module_graph.drawing(package, manifest)
        self.assertIn('subgraph s0 ["C libraries"]\n        CLib[CLib]\n    end', text)
        self.assertIn('subgraph s1 ["Pure logic"]\n        Data[Data]\n        Pipeline[Pipeline]\n    end', text)
        self.assertIn("Pipeline --> Data", text)
        self.assertNotIn("Pipeline --> CLib", text)
        self.assertNotIn("DataTests", text)
        self.assertNotIn("fuzz", text)


class RepositoryTest(unittest.TestCase):
    def test_the_architecture_page_draws_package_swift_as_it_is(self):
        block = module_graph.drawing(module_graph.dump_package())
        text = module_graph.PAGE.read_text(encoding="utf-8")
        self.assertEqual(module_graph.with_drawing(text, block), text, "docs/architecture.md's drawing is stale: run `make graph`")


if __name__ == "__main__":
    unittest.main()
