"""The personal model's data side (numpy only, no TensorFlow, no binary):
sessions and sidecars, the held-out split, the per-position figures, the
config line --install writes."""
import json
import os
import tempfile
import unittest
from pathlib import Path

import numpy as np

from tools.training import personal
from tools.training.tests import personal_sessions

HERE = Path(__file__).resolve().parent


def fake_sessions(positions):
    """{name: session} with the fields split() reads."""
    return {"%s-%d" % (p, i): {"position": p, "label": 1 if p == "hands" else 0}
            for p, count in positions.items() for i in range(count)}


class Split(unittest.TestCase):
    def test_one_session_of_each_position_with_two_is_held_out(self):
        sessions = fake_sessions({"hands": 2, "pocket": 3, "bag": 1})
        train, held, notes = personal.split(sessions, seed=1)
        self.assertEqual(sorted(sessions[n]["position"] for n in held), ["hands", "pocket"])
        self.assertEqual(sorted(train + held), sorted(sessions))
        self.assertFalse(set(train) & set(held))
        self.assertIn("bag-0", train)
        self.assertEqual(len(notes), 1)
        self.assertIn("bag", notes[0])

    def test_the_split_follows_the_seed_only(self):
        sessions = fake_sessions({"hands": 4, "pocket": 4})
        reordered = dict(reversed(list(sessions.items())))
        self.assertEqual(personal.split(sessions, seed=3), personal.split(reordered, seed=3))
        picks = {tuple(personal.split(sessions, seed=s)[1]) for s in range(20)}
        self.assertGreater(len(picks), 1)

    def test_tuning_needs_both_labels(self):
        with self.assertRaises(personal.PersonalDataError) as raised:
            personal.split(fake_sessions({"hands": 3}), seed=0)
        self.assertIn("record at least two sessions", str(raised.exception))

    def test_nothing_to_hold_out(self):
        with self.assertRaises(personal.PersonalDataError):
            personal.split(fake_sessions({"hands": 1, "pocket": 1}), seed=0)


class Figures(unittest.TestCase):
    def test_per_position_shares_and_recall(self):
        class W:
            labels = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
            sessions = ["h"] * 4 + ["b"] * 6
        sessions = {"h": {"position": "hands"}, "b": {"position": "bag"}}
        scores = [0.9, 0.8, 0.1, 0.7, 0.0, 0.5, 0.1, 0.2, 0.0, 0.0]
        f = personal.figures(sessions, W, scores, threshold=0.5)
        self.assertEqual(f["positions"]["hands"]["hands_recall"], 0.75)
        self.assertEqual(f["positions"]["bag"]["called_distracted"], round(1 / 6, 4))
        self.assertNotIn("hands_recall", f["positions"]["bag"])
        self.assertEqual(f["pooled"]["accuracy"], 0.8)
        rows = personal.comparison(f, f)
        self.assertEqual([r["position"] for r in rows], ["bag", "hands"])
        table = personal.text_table({"table": rows, "base": f, "personal": f})
        self.assertIn("75.0 %", table)
        self.assertIn("16.7 %", table)


class Sessions(unittest.TestCase):
    def test_sidecars_name_the_positions(self):
        if not personal_sessions.available():
            self.skipTest("no carry-positions set at %s" % personal_sessions.CARRY)
        with tempfile.TemporaryDirectory() as folder:
            walks = personal_sessions.WALKS[:2] + personal_sessions.WALKS[4:5]
            personal_sessions.make(folder, seconds=5.0, walks=walks)
            os.remove(os.path.join(folder, "hands-2.json"))   # no sidecar: all label 1, so the hands
            found = personal.find_sessions(folder)
        self.assertEqual({n: s["position"] for n, s in found.items()},
                         {"hands-1": "hands", "hands-2": "hands", "purse-1": "purse"})
        self.assertEqual(found["purse-1"]["label"], 0)
        self.assertEqual(found["purse-1"]["channels"], ["acc_x", "acc_y", "acc_z"])
        self.assertTrue(found["hands-1"]["sidecar"])
        self.assertFalse(found["hands-2"]["sidecar"])
        self.assertGreaterEqual(len(found["hands-1"]["windows"]), 7)

    def test_what_is_not_a_recording_is_named(self):
        with tempfile.TemporaryDirectory() as folder:
            with self.assertRaises(personal.PersonalDataError) as raised:
                personal.find_sessions(folder)
            self.assertIn("headsup record", str(raised.exception))
            Path(folder, "a.csv").write_text("1,1764300000.0,0,0,-1,0,0,0,0,0,0\n")
            Path(folder, "a.json").write_text(json.dumps({"name": "not a sidecar"}))
            with self.assertRaises(personal.PersonalDataError) as raised:
                personal.find_sessions(folder)
            self.assertIn("a.json", str(raised.exception))

    def test_sidecar_path_matches_record(self):
        self.assertEqual(personal.sidecar_path("/w/a.b/walk.csv"), "/w/a.b/walk.json")


class Config(unittest.TestCase):
    def test_model_line_replaced_or_added(self):
        self.assertEqual(personal.set_model_line("", "/m/p.h5"), 'model: "/m/p.h5"\n')
        self.assertEqual(personal.set_model_line("warning:\n  cooldown: 30", "/m/p.h5"),
                         'warning:\n  cooldown: 30\nmodel: "/m/p.h5"\n')
        self.assertEqual(personal.set_model_line("# x\nmodel: /old.h5\nbeacons: {}\n", "/m/p.h5"),
                         '# x\nmodel: "/m/p.h5"\nbeacons: {}\n')

    def test_config_path(self):
        self.assertEqual(personal.config_path({"XDG_CONFIG_HOME": "/x"}), "/x/headsup/config.yaml")
        self.assertEqual(personal.config_path({"HOME": "/home/u"}), "/home/u/.config/headsup/config.yaml")


if __name__ == "__main__":
    unittest.main()


class InstallKeepsTheFile(unittest.TestCase):
    """--install rewrote a 0600 config holding a token as 0644 (and HeadsUp
    then refused it), and replaced a symlinked config with a plain file."""

    def test_mode_symlink_and_text(self):
        with tempfile.TemporaryDirectory() as folder:
            real = Path(folder) / "dotfiles" / "headsup.yaml"
            real.parent.mkdir()
            real.write_text("notifications:\n  webhook: https://h/token\n")
            os.chmod(real, 0o600)
            link = Path(folder) / "config.yaml"
            link.symlink_to(real)
            old = link.read_text()
            personal.replace_text_keeping_file(link, personal.set_model_line(old, "/m/personal.h5"))
            self.assertTrue(link.is_symlink())
            self.assertEqual(os.stat(real).st_mode & 0o7777, 0o600)
            self.assertIn('model: "/m/personal.h5"', real.read_text())
            self.assertIn("webhook", real.read_text())
            self.assertEqual(sorted(p.name for p in real.parent.iterdir()), ["headsup.yaml"], "no temporary left")

    def test_group_readable_stays_and_new_file_is_private(self):
        with tempfile.TemporaryDirectory() as folder:
            shared = Path(folder) / "shared.yaml"
            shared.write_text("model: old\n")
            os.chmod(shared, 0o640)
            personal.replace_text_keeping_file(shared, "model: new\n")
            self.assertEqual(os.stat(shared).st_mode & 0o7777, 0o640)
            fresh = Path(folder) / "sub" / "config.yaml"
            personal.replace_text_keeping_file(fresh, "model: x\n")
            self.assertEqual(os.stat(fresh).st_mode & 0o7777, 0o600)
            self.assertEqual(fresh.read_text(), "model: x\n")
