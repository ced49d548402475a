"""A user's own recordings for a personal model (numpy only, no TensorFlow).

`headsup record --label POSITION --out NAME.csv` writes a session CSV (first
column 1 = hands, 0 = any carry position) and a sidecar NAME.json beside it
(format "headsup-recording": the position, the devices, the channels that
were measured, the rate, the start). This module finds those pairs, holds
out whole sessions for the evaluation, makes the model's windows through
dataset.py (`headsup dataset windows`: the windows the Swift app scores), and
computes the per-position figures and the report that tools/training/personalize.py
prints and writes. Kept free of TensorFlow so the tests run under the system
python3 and so the split and the figures can be checked on their own.
"""
import hashlib
import html
import json
import os
import re

import numpy as np

from . import evaluation as ev
from . import dataset

SIDECAR_FORMAT = "headsup-recording"
HANDS = "hands"
# Sessions without a sidecar: their position is unknown; the CSV's label still holds.
UNSPECIFIED = "unspecified"


class PersonalDataError(Exception):
    """The recordings folder cannot make a personal model: what is wrong, where, and what to do."""


def sidecar_path(csv_path):
    """`walk.csv` -> `walk.json` (RecordingSidecar.path(forSession:) in Swift)."""
    root, ext = os.path.splitext(csv_path)
    return (root if ext else csv_path) + ".json"


def read_sidecar(path):
    with open(path, encoding="utf-8") as f:
        try:
            sidecar = json.load(f)
        except json.JSONDecodeError as error:
            raise PersonalDataError("%s: not JSON (%s); it should be the sidecar `headsup record` wrote"
                                    % (path, error))
    if sidecar.get("format") != SIDECAR_FORMAT or not isinstance(sidecar.get("position"), str):
        raise PersonalDataError("%s: not a recording sidecar (format %r, want %r with a position)"
                                % (path, sidecar.get("format"), SIDECAR_FORMAT))
    return sidecar


def find_sessions(folder, hop=25):
    """Every session CSV under `folder` with its sidecar and windows, by name.

    A session without a sidecar keeps its CSV labels and gets position
    "hands" when all its windows are label 1, else "unspecified"."""
    if not os.path.isdir(folder):
        raise PersonalDataError("%s: no such folder; give the folder your `headsup record --out` files are in" % folder)
    paths = sorted(os.path.join(root, name) for root, _, names in os.walk(folder)
                   for name in names if name.endswith(".csv"))
    if not paths:
        raise PersonalDataError("%s: no session CSV files; record some with `headsup record --label POSITION --out "
                                "%s/NAME.csv --duration 120`" % (folder, folder))
    sessions = {}
    for path in paths:
        name = dataset.session_name(path)
        if name in sessions:
            raise PersonalDataError("%s: a second session named %s; give each recording its own name" % (path, name))
        side = sidecar_path(path)
        sidecar = read_sidecar(side) if os.path.exists(side) else None
        try:
            windows = dataset.session_windows(path, hop=hop)
        except ValueError as error:
            raise PersonalDataError("%s; fix or remove the file" % error)
        if len(windows) == 0:
            raise PersonalDataError("%s: too short for one window (1 s without a gap); remove it or record longer"
                                    % path)
        if sidecar is not None:
            position = sidecar["position"]
        else:
            position = HANDS if windows.labels.min() == 1 else UNSPECIFIED
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        channels = sidecar.get("channels", list(dataset.CHANNELS)) if sidecar else list(dataset.CHANNELS)
        sessions[name] = {"name": name, "path": path, "position": position, "sidecar": sidecar is not None,
                          "channels": channels, "sha256": digest, "windows": windows,
                          "label": int(np.bincount(windows.labels, minlength=2).argmax())}
    return sessions


def split(sessions, seed=0):
    """Holds out whole sessions: one session of every position that has two
    or more (chosen with `seed`), so each position is judged on a walk the
    model was not tuned on. Returns (train names, held-out names, notes)."""
    rng = np.random.default_rng(seed)
    by_position = {}
    for name in sorted(sessions):
        by_position.setdefault(sessions[name]["position"], []).append(name)
    train, held, notes = [], [], []
    for position in sorted(by_position):
        names = by_position[position]
        if len(names) < 2:
            train.extend(names)
            notes.append("%s: one session (%s), used for tuning only: record another to see its figures"
                         % (position, names[0]))
            continue
        pick = names[int(rng.integers(len(names)))]
        held.append(pick)
        train.extend(n for n in names if n != pick)
    labels = {sessions[n]["label"] for n in train}
    if labels != {0, 1}:
        raise PersonalDataError("the sessions left for tuning hold only label %s windows; record at least two sessions "
                                "in the hands and two in a carry position" % sorted(labels))
    if not held:
        raise PersonalDataError("no position has two sessions, so none can be held out to judge the personal model; "
                                "record at least two sessions of a position")
    return sorted(train), sorted(held), notes


def stack(sessions, names):
    return dataset.concat([sessions[n]["windows"] for n in names], names)


def channel_mask(sessions, windows):
    """(N, 9) float32: 1 where the window's session measured the channel, 0
    where its sidecar says it did not (the CSV holds 0 there, as the live
    aligner writes for a sensor a device lacks). Training multiplies the
    augmented windows by it, so a missing magnetometer stays 0 and is never
    given the random hard-iron offset a measured one gets."""
    index = {name: i for i, name in enumerate(dataset.CHANNELS)}
    per_session = {}
    for name, session in sessions.items():
        row = np.zeros(len(dataset.CHANNELS), np.float32)
        row[[index[c] for c in session["channels"] if c in index]] = 1.0
        per_session[name] = row
    return np.stack([per_session[n] for n in windows.sessions]) if len(windows) else np.zeros((0, 9), np.float32)


def position_of_windows(sessions, windows):
    return np.array([sessions[n]["position"] for n in windows.sessions])


def figures(sessions, windows, scores, threshold):
    """Per position: windows, the share called distracted (score >= threshold)
    and, for the hands, recall; plus pooled accuracy and ROC AUC."""
    scores = np.asarray(scores, np.float64)
    called = scores >= threshold
    positions = position_of_windows(sessions, windows)
    rows = {}
    for position in sorted(set(positions.tolist())):
        m = positions == position
        labels = windows.labels[m]
        row = {"sessions": sorted(set(np.asarray(windows.sessions)[m].tolist())), "windows": int(m.sum()),
               "called_distracted": round(float(called[m].mean()), 4)}
        if (labels == 1).any():
            row["hands_recall"] = round(float(called[m][labels == 1].mean()), 4)
        if (labels == 0).any():
            row["false_share"] = round(float(called[m][labels == 0].mean()), 4)
        rows[position] = row
    pooled = {"windows": int(len(scores)), "accuracy": round(ev.accuracy(windows.labels, scores, threshold), 4),
              "roc_auc": round(ev.roc_auc(windows.labels, scores), 4), "threshold": threshold}
    return {"positions": rows, "pooled": pooled}


def comparison(base, personal):
    """{"base": figures, "personal": figures} -> rows for the table, one per position."""
    rows = []
    for position in sorted(set(base["positions"]) | set(personal["positions"])):
        b = base["positions"].get(position, {})
        p = personal["positions"].get(position, {})
        rows.append({"position": position, "windows": p.get("windows", b.get("windows")),
                     "base_called": b.get("called_distracted"), "personal_called": p.get("called_distracted"),
                     "base_hands_recall": b.get("hands_recall"), "personal_hands_recall": p.get("hands_recall")})
    return rows


def _percent(value):
    return "-" if value is None else "%.1f %%" % (100.0 * value)


def text_table(report):
    """The table personalize prints: per held-out position, both models."""
    head = ("position", "windows", "distracted: shipped", "personal", "hands recall: shipped", "personal")
    body = [(r["position"], str(r["windows"]), _percent(r["base_called"]), _percent(r["personal_called"]),
             _percent(r["base_hands_recall"]), _percent(r["personal_hands_recall"])) for r in report["table"]]
    b, p = report["base"]["pooled"], report["personal"]["pooled"]
    body.append(("all held out", str(p["windows"]), "acc %.4f" % b["accuracy"], "acc %.4f" % p["accuracy"],
                 "AUC %.4f" % b["roc_auc"] if not np.isnan(b["roc_auc"]) else "AUC -",
                 "AUC %.4f" % p["roc_auc"] if not np.isnan(p["roc_auc"]) else "AUC -"))
    widths = [max(len(row[i]) for row in [head] + body) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
             for row in [head] + body]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def html_report(report):
    """A self-contained HTML page with the same table and the sessions."""
    def cells(values, tag="td"):
        return "".join("<%s>%s</%s>" % (tag, html.escape(str(v)), tag) for v in values)
    rows = "".join("<tr>%s</tr>" % cells([r["position"], r["windows"], _percent(r["base_called"]),
                                          _percent(r["personal_called"]), _percent(r["base_hands_recall"]),
                                          _percent(r["personal_hands_recall"])]) for r in report["table"])
    sessions = "".join("<tr>%s</tr>" % cells([s["name"], s["position"], s["label"], s["windows"], s["role"]])
                       for s in report["sessions"])
    notes = "".join("<li>%s</li>" % html.escape(n) for n in report["notes"])
    return ("<!doctype html><html><head><meta charset='utf-8'><title>HeadsUp personal model</title>"
            "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
            "td,th{border:1px solid #999;padding:4px 8px;text-align:right}td:first-child{text-align:left}</style>"
            "</head><body><h1>Personal model against the shipped one</h1>"
            "<p>Held-out sessions only (never used for tuning), threshold %s (the shipped card's). "
            "Windows called distracted: want low for every carry position, high (recall) in the hands.</p>"
            "<table><tr>%s</tr>%s</table><h2>Sessions</h2><table><tr>%s</tr>%s</table><ul>%s</ul>"
            "<p>Scores from %s.</p></body></html>\n"
            % (html.escape(str(report["threshold"])),
               cells(("position", "windows", "distracted: shipped", "personal", "hands recall: shipped",
                      "personal"), "th"),
               rows, cells(("session", "position", "label", "windows", "role"), "th"), sessions, notes,
               html.escape(report["scored_by"])))


def session_rows(sessions, train, held):
    return [{"name": n, "position": sessions[n]["position"], "label": sessions[n]["label"],
             "windows": len(sessions[n]["windows"]), "sha256": sessions[n]["sha256"],
             "channels": sessions[n]["channels"], "role": "held out" if n in held else "tuning"}
            for n in sorted(sessions)]


def config_path(environment=None):
    """The user's HeadsUp config: $XDG_CONFIG_HOME/headsup/config.yaml (~/.config by default)."""
    environment = os.environ if environment is None else environment
    home = environment.get("HOME") or os.path.expanduser("~")
    base = environment.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    return os.path.join(base, "headsup", "config.yaml")


def replace_text_keeping_file(path, text):
    """Writes `text` to the config at `path` atomically, as the file it
    replaces was: through a symlink to its target (the link stays), with
    the target's mode (a 0600 file holding a token stays 0600: HeadsUp
    refuses a world-readable one) and, where allowed, its owner and group.
    A new file gets mode 0600. The temporary file is created with the final
    mode, so the text is never readable by more users than the file's."""
    target = os.path.realpath(path)
    folder = os.path.dirname(target) or "."
    os.makedirs(folder, exist_ok=True)
    try:
        existing = os.stat(target)
    except FileNotFoundError:
        existing = None
    mode = (existing.st_mode & 0o7777) if existing else 0o600
    temporary = os.path.join(folder, ".%s.tmp-%d" % (os.path.basename(target), os.getpid()))
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(descriptor, "w") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)  # the umask narrowed os.open's mode
        if existing is not None and (existing.st_uid, existing.st_gid) != (os.getuid(), os.getgid()):
            try:
                os.chown(temporary, existing.st_uid, existing.st_gid)
            except PermissionError:
                pass  # only root may give a file away; the mode still holds
        os.replace(temporary, target)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    return target


def set_model_line(text, model_path):
    """The config text with its top-level `model:` set to `model_path`: the
    first such line replaced, or one appended; every other line kept."""
    line = "model: %s" % json.dumps(str(model_path))
    pattern = re.compile(r"^model:.*$", re.MULTILINE)
    if pattern.search(text):
        return pattern.sub(lambda _: line, text, count=1)
    return text + ("" if not text or text.endswith("\n") else "\n") + line + "\n"
