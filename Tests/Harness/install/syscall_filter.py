#!/usr/bin/env python3
"""Runs a command under a unit file's SystemCallFilter=, as systemd would
install it (these machines run no systemd as PID 1, so the unit itself
cannot be started): the allow lists' groups, expanded by `systemd-analyze
syscall-filter`, less the `~` lists' groups, everything else failing with
SystemCallErrorNumber= (EPERM). Made with libseccomp (python3-seccomp).

    syscall_filter.py UNIT -- COMMAND [ARGS...]

Exits with the command's status; 77 when python3-seccomp or systemd-analyze
is missing (a skip for the caller).
"""
import errno
import os
import subprocess
import sys


def groups_of(unit_text):
    """(allowed names and groups, denied names and groups, errno) from the unit's lines."""
    allowed, denied, number = [], [], errno.EPERM
    for line in unit_text.splitlines():
        line = line.strip()
        if line.startswith("SystemCallFilter="):
            value = line.split("=", 1)[1].strip()
            if value.startswith("~"):
                denied += value[1:].split()
            else:
                allowed += value.split()
        elif line.startswith("SystemCallErrorNumber="):
            number = getattr(errno, line.split("=", 1)[1].strip())
    return allowed, denied, number


def expand(names, cache={}):
    """System call names of `names`, groups (@x) expanded recursively."""
    calls = set()
    for name in names:
        if not name.startswith("@"):
            calls.add(name)
            continue
        if name not in cache:
            listed = subprocess.run(["systemd-analyze", "syscall-filter", name], stdout=subprocess.PIPE, text=True, check=True).stdout
            members = [line.strip() for line in listed.splitlines()[1:] if line.strip() and not line.strip().startswith("#")]
            cache[name] = expand(members)
        calls |= cache[name]
    return calls


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        raise SystemExit(__doc__)
    try:
        import seccomp
    except ImportError:
        print("syscall_filter: python3-seccomp is not installed", file=sys.stderr)
        return 77
    if subprocess.run(["sh", "-c", "command -v systemd-analyze"], stdout=subprocess.DEVNULL).returncode != 0:
        print("syscall_filter: systemd-analyze is missing", file=sys.stderr)
        return 77
    allowed, denied, number = groups_of(open(sys.argv[1]).read())
    permitted = (expand(allowed) if allowed else set()) - expand(denied)
    # execve must pass for the command to start (systemd installs the filter at the same point).
    permitted |= {"execve", "exit", "exit_group", "rt_sigreturn"}
    rules = seccomp.SyscallFilter(defaction=seccomp.ERRNO(number) if allowed else seccomp.ALLOW)
    unknown = 0
    for call in sorted(permitted if allowed else expand(denied)):
        try:
            rules.add_rule(seccomp.ALLOW if allowed else seccomp.ERRNO(number), call)
        except (RuntimeError, ValueError):
            unknown += 1  # a name this architecture or libseccomp does not know
    print("syscall_filter: %d system calls allowed (%d names unknown here), the rest fail with %s"
          % (len(permitted) - unknown, unknown, errno.errorcode[number]), file=sys.stderr, flush=True)
    rules.load()
    os.execvp(sys.argv[3], sys.argv[3:])


if __name__ == "__main__":
    sys.exit(main())
