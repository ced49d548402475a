"""tools/check_docs.py: the link check on made-up pages, and on the
repository's own pages.

    python3 -m unittest discover -s tools/tests -t tools
"""
import tempfile
import unittest
from pathlib import Path

import check_docs


class PagesTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.root = Path(self.folder.name)
        (self.root / "docs").mkdir()
        (self.root / "tools").mkdir()
        (self.root / "tools" / "x.py").write_text("")
        (self.root / "docs" / "guide.md").write_text(
            "# The guide\n\n## Set-up: `make install` (as root)\n\n## Notes\n\n## Notes\n\n## tools/tune_decision.py\n")

    def tearDown(self):
        self.folder.cleanup()

    def problems(self, text, pending=frozenset()):
        page = self.root / "docs" / "page.md"
        page.write_text(text)
        return [(line, message) for line, message, failure in check_docs.check(page, self.root, pending) if failure]

    def test_files_folders_and_anchors_that_exist(self):
        text = "\n".join([
            "[guide](guide.md) [tool](../tools/x.py) [folder](../tools/) [up](../docs)",
            "[anchor](guide.md#set-up-make-install-as-root) [repeat](guide.md#notes-1)",
            "[underscores](guide.md#toolstune_decisionpy) [here](#a-heading)",
            "## A heading",
            "[ref]: guide.md#the-guide",
        ])
        self.assertEqual(self.problems(text), [])

    def test_a_missing_file_or_anchor_is_named_with_its_line(self):
        problems = self.problems("fine\n[gone](gone.md)\n[anchor](guide.md#nowhere) [self](#nowhere)\n")
        self.assertEqual([line for line, _ in problems], [2, 3, 3])
        self.assertIn("gone.md: no such file or folder", problems[0][1])
        self.assertIn("no heading with the anchor #nowhere in docs/guide.md", problems[1][1])

    def test_code_and_urls_are_not_links(self):
        text = "\n".join([
            "`[not](a-link.md)` and https://example.org/x.md [web](https://example.org/missing.md)",
            "[mail](mailto:someone@example.org)",
            "```",
            "[inside](a-fence.md)",
            "```",
            "    ~~~ is not a fence here",
        ])
        self.assertEqual(self.problems(text), [])

    def test_outside_the_repository_is_broken(self):
        self.assertEqual(len(self.problems("[out](../../elsewhere.md)\n")), 1)

    def test_a_pending_page_is_noted_until_it_exists(self):
        text = "[later](later.md)\n"
        self.assertEqual(self.problems(text, pending={"docs/later.md"}), [])
        (self.root / "docs" / "later.md").write_text("# Later\n")
        problems = self.problems(text, pending={"docs/later.md"})
        self.assertEqual(len(problems), 1)
        self.assertIn("take it off PENDING", problems[0][1])


class CitationsTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.root = Path(self.folder.name)
        for folder in ("Sources/Mod", "tools", "docs/notes"):
            (self.root / folder).mkdir(parents=True)
        (self.root / "tools" / "there.py").write_text("")

    def tearDown(self):
        self.folder.cleanup()

    def missing(self):
        return [(str(path), line, cited) for path, line, cited in check_docs.missing_citations(self.root)]

    def test_a_comment_citing_a_gone_file_is_found(self):
        (self.root / "Sources/Mod/A.swift").write_text(
            "// tools/there.py measures it\nlet path = \"tools/gone.py\"  // and tools/gone.sh too\n")
        self.assertEqual(self.missing(), [("Sources/Mod/A.swift", 2, "tools/gone.sh")])

    def test_python_comments_and_docstrings_but_not_strings(self):
        (self.root / "tools/b.py").write_text(
            '"""Reads tools/missing.py."""\nx = "tools/also-missing.py#frag"  # see tools/there.py\n# and docs/none.md\n')
        self.assertEqual(self.missing(), [("tools/b.py", 1, "tools/missing.py"), ("tools/b.py", 3, "docs/none.md")])

    def test_pages_and_makefiles_but_not_notes_code_or_patterns(self):
        (self.root / "docs/page.md").write_text(
            "See tools/gone.py and `tools/there.py`.\n```\ntools/in-a-fence.py\n```\n"
            "weights/<name>.h5, weights/model.{h5,json}, tools/NAME/x, tools/.venv/bin, tools/out/x, tools/map-*\n")
        (self.root / "docs/notes/2020-01-01-old.md").write_text("tools/removed-since.py\n")
        (self.root / "Makefile").write_text("# tools/gone.mk\nrun:\n\ttools/not-a-comment.sh\n")
        self.assertEqual(self.missing(), [("Makefile", 1, "tools/gone.mk"), ("docs/page.md", 1, "tools/gone.py")])


class RepositoryTest(unittest.TestCase):
    def test_no_page_or_comment_cites_a_missing_path(self):
        self.assertEqual(check_docs.missing_citations(), [])

    def test_every_link_of_the_repository_resolves(self):
        broken = []
        for page in check_docs.markdown_files(check_docs.REPO):
            for line, message, failure in check_docs.check(page):
                if failure:
                    broken.append("%s:%d: %s" % (page.relative_to(check_docs.REPO), line, message))
        self.assertEqual(broken, [])


if __name__ == "__main__":
    unittest.main()
