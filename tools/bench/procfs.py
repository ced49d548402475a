"""/proc readers the daemon benchmarks share (standard library only)."""
from pathlib import Path


def stat_fields(path):
    """/proc/PID/stat's fields from the third (state) on: the command name,
    which may hold spaces and parentheses, is cut off at its last ')'."""
    text = Path(path).read_text()
    return text[text.rindex(")") + 2:].split()


def process_table():
    """{pid: (ppid, starttime)} of every process now."""
    table = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = stat_fields(entry / "stat")
        except OSError:
            continue
        table[int(entry.name)] = (int(fields[1]), int(fields[19]))
    return table


def descendants(pid, table=None):
    """Every process below `pid` (children, their children, ...)."""
    table = table or process_table()
    children = {}
    for child, (parent, _) in table.items():
        children.setdefault(parent, []).append(child)
    found, stack = [], [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found
