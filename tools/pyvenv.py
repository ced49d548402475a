"""The virtualenv bootstrap the Python tools share (standard library only).

A tool keeps its venv next to itself (git-ignored) and names the pinned
requirement files it is made from:

    from tools import pyvenv
    python, failed = pyvenv.ensure(HERE / ".venv", HERE / "requirements.txt",
                                   HERE / "constraints.txt", log=print)
    pyvenv.reexec_module(python, "tools.mytool", "HEADSUP_MYTOOL_IN_VENV", extra_env)

`ensure` creates the venv when it is missing, or anew when the requirement
and constraint files have changed since it was made (a SHA-256 of their
bytes, kept in the venv as `.requirements.sha256`), and pip-installs the
requirements with the constraints. It returns the venv's python.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

STAMP = ".requirements.sha256"
FAILED = ".requirements-failed.json"

# What the TensorFlow tools (training, keras_fixtures) re-execute with: CPU
# only, a fixed hash seed, deterministic ops, no oneDNN (its kernels may
# reorder float sums). Each adds its TF_CPP_MIN_LOG_LEVEL.
TENSORFLOW_ENV = {
    "PYTHONHASHSEED": "0",
    "CUDA_VISIBLE_DEVICES": "-1",
    "TF_ENABLE_ONEDNN_OPTS": "0",
    "TF_DETERMINISTIC_OPS": "1",
    "KERAS_BACKEND": "tensorflow",
    "PYTHONDONTWRITEBYTECODE": "1",
}


class VenvError(RuntimeError):
    """The venv could not be made or its requirements installed."""


def python_of(venv):
    return Path(venv) / "bin" / "python"


def digest(files):
    """SHA-256 of the files' bytes, in order (a missing file counts as empty)."""
    h = hashlib.sha256()
    for f in files:
        f = Path(f)
        h.update(f.read_bytes() if f.exists() else b"")
    return h.hexdigest()


def requirement_lines(path):
    """The requirement specifiers of a requirements file (no comments, no options)."""
    lines = []
    for line in Path(path).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            lines.append(line)
    return lines


def last_line(text):
    """The line of pip's output that says what went wrong."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    for line in reversed(lines):
        if "error" in line.lower() or "exception" in line.lower():
            return line[:400]
    return lines[-1][:400] if lines else "(no output)"


def is_current(venv, requirements, constraints=None):
    """Whether the venv exists and was made from these very files."""
    venv = Path(venv)
    stamp = venv / STAMP
    want = digest(_files(requirements, constraints))
    return python_of(venv).exists() and stamp.exists() and stamp.read_text().strip() == want


def ensure(venv, requirements, constraints=None, log=None, one_by_one=False):
    """The venv's python and {requirement: why it did not install}.

    Reuses the venv while `requirements` and `constraints` are unchanged;
    otherwise removes it and makes it again. When pip cannot install the whole
    set: with `one_by_one`, installs each requirement on its own and reports
    the ones that failed (they are remembered until the files change);
    without it, raises VenvError."""
    venv, requirements = Path(venv), Path(requirements)
    constraints = Path(constraints) if constraints else None
    log = log or (lambda message: print(message, flush=True))
    python = python_of(venv)
    if is_current(venv, requirements, constraints):
        failed = venv / FAILED
        return python, (json.loads(failed.read_text()) if failed.exists() else {})
    if venv.exists():
        shutil.rmtree(venv)
    log("creating %s from %s (pinned; a few minutes the first time)" % (_show(venv), _show(requirements)))
    r = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True, text=True)
    if r.returncode != 0:
        raise VenvError("%s -m venv failed: %s" % (sys.executable, last_line(r.stderr or r.stdout)))
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    constraint = ["-c", str(constraints)] if constraints else []
    # cwd: options inside a requirements file (-c constraints.txt) are relative to it
    r = subprocess.run(pip + ["-r", str(requirements)] + constraint, cwd=str(requirements.parent),
                       capture_output=True, text=True)
    failed = {}
    if r.returncode != 0:
        if not one_by_one:
            raise VenvError("pip could not install %s: %s" % (_show(requirements), last_line(r.stderr or r.stdout)))
        log("  the whole set did not install (%s); trying one requirement at a time" % last_line(r.stderr))
        for req in requirement_lines(requirements):
            r1 = subprocess.run(pip + [req] + constraint, cwd=str(requirements.parent),
                                capture_output=True, text=True)
            if r1.returncode != 0:
                failed[req] = last_line(r1.stderr or r1.stdout)
                log("  could not install %s: %s" % (req, failed[req]))
        (venv / FAILED).write_text(json.dumps(failed, indent=1) + "\n")
    (venv / STAMP).write_text(digest(_files(requirements, constraints)) + "\n")
    return python, failed


def warn_python(tool, version=(3, 11)):
    """Warns on stderr when the running Python is not the one the pins were made for."""
    if sys.version_info[:2] != tuple(version):
        print("%s: warning: made for Python %s, running %s"
              % (tool, ".".join(map(str, version)), sys.version.split()[0]), file=sys.stderr)


def reexec_module(python, module, marker, env=None):
    """Replaces this process by `python -m module <the same arguments>`
    (a tool of the `tools` package), with the repository on PYTHONPATH so
    the module is found from any working directory, `env` added to the
    environment and `marker`=1 (check it with in_venv)."""
    e = dict(os.environ)
    e.update(env or {})
    e[marker] = "1"
    repo = str(Path(__file__).resolve().parent.parent)
    e["PYTHONPATH"] = os.pathsep.join([repo] + ([e["PYTHONPATH"]] if e.get("PYTHONPATH") else []))
    os.execve(str(python), [str(python), "-m", module] + sys.argv[1:], e)


def in_venv(marker):
    """Whether this process is the re-executed one."""
    return os.environ.get(marker) == "1"


def _files(requirements, constraints):
    return [requirements] + ([constraints] if constraints else [])


def _show(path):
    """A path relative to the working directory when it is below it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
