"""The one way HeadsUp's Python tools run its Swift engine, so every number
they quote as "what the app computes" comes from the same call:

    from tools.training import engine
    binary = engine.find_binary()                       # HEADSUP_BIN, then the builds
    scores = engine.predict(binary, "weights/model.h5", rows)   # one row per window
    engine.inspect(binary, "personal-model.h5")         # the model and its card checked
    engine.selftest(binary)                             # the kernels on this CPU

Each runs `headsup model …` as a child process and raises EngineError,
naming the command and the engine's own last words, when it fails.
Standard library only (numpy is imported by `predict`, which returns an
array): the benchmark's and the training's virtualenvs both use it.
"""
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent


class EngineError(RuntimeError):
    """A `headsup` command failed; the message names it and what it said."""


def find_binary(explicit=None, environment=os.environ):
    """The headsup binary: `explicit` (must exist), else $HEADSUP_BIN, else
    the release build, the debug build, then `headsup` on PATH; None when
    there is none."""
    if explicit:
        path = Path(explicit)
        if not path.exists():
            raise EngineError("no headsup binary at %s: build it with `swift build -c release --product headsup`" % path)
        return path.resolve()
    for candidate in (environment.get("HEADSUP_BIN"), REPO / ".build" / "release" / "headsup",
                      REPO / ".build" / "debug" / "headsup", shutil.which("headsup")):
        if candidate and Path(candidate).exists():
            return Path(candidate).resolve()
    return None


def run(binary, arguments, env=None):
    """`headsup ARGUMENTS…`; its standard output. `env` is the child's whole environment (default: this process's)."""
    command = [str(binary)] + [str(a) for a in arguments]
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "exit status %d" % done.returncode
        raise EngineError("`%s` failed: %s" % (" ".join(command[1:]), said))
    return done.stdout


def predict_file(binary, model, inputs, env=None, reference=False):
    """`headsup model predict` on a file of rows (comma-separated floats, one
    window a line, flattened in the model's layout); its output text, one
    line of outputs a window."""
    return run(binary, ["model", "predict", "--model", model, inputs] + (["--reference"] if reference else []), env)


def predict(binary, model, rows, env=None):
    """Scores of `rows` (an array or list of flattened windows) in the Swift engine, as float64."""
    import numpy as np
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        for row in rows:
            f.write(",".join("%.9g" % v for v in row) + "\n")
        inputs = f.name
    try:
        out = predict_file(binary, model, inputs, env)
    finally:
        os.unlink(inputs)
    return np.array(out.split(), dtype=np.float64)


def inspect(binary, model):
    """`headsup model inspect`: loads the model and checks the card beside it; its report."""
    return run(binary, ["model", "inspect", model])


def selftest(binary, fixtures=None):
    """`headsup model selftest`: every kernel level this CPU runs against the reference layers."""
    return run(binary, ["model", "selftest"] + (["--fixtures", fixtures] if fixtures else []))
