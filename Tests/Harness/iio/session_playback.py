"""Plays a recorded HeadsUp session through the fake IIO driver.

With FAKE_IIO_SESSION=path/to/session.csv the fake devices report that
recording instead of the synthetic signals: the session's CoreMotion values
(g, rad/s, µT) are turned back into what the kernel would report — IIO sign
(acceleration negated), m/s², Gauss — and into each chip's own frame (the
inverse of its mount matrix, i.e. its transpose), so HeadsUp's reader must
undo all of it to get the recording back. Time wraps around the session's
length; playback starts when the driver first asks for a value.
"""
import bisect
import time


def _load(path):
    times, rows = [], []
    last = None
    for line in open(path):
        fields = line.strip().split(",")
        if len(fields) != 11:
            continue
        t = float(fields[1])
        if last is not None and t <= last:
            continue  # the reader drops these too
        last = t
        times.append(t)
        rows.append([float(v) for v in fields[2:]])
    return times, rows


def signals(path, accel_matrix, magn_matrix, standard_gravity):
    times, rows = _load(path)
    start, length = times[0], times[-1] - times[0]
    origin = []

    def board_vector(t, first_column):
        if not origin:
            origin.append(t)
        s = start + ((t - origin[0]) % length)
        i = max(1, min(len(times) - 1, bisect.bisect_left(times, s)))
        t0, t1 = times[i - 1], times[i]
        f = (s - t0) / (t1 - t0) if t1 > t0 else 0.0
        a, b = rows[i - 1], rows[i]
        return [a[first_column + k] + (b[first_column + k] - a[first_column + k]) * f for k in range(3)]

    def device(matrix, vector):
        # v_device = M^T . v_board (mount matrices are rotations or reflections)
        return [sum(matrix[r][c] * vector[r] for r in range(3)) for c in range(3)]

    def channel(kind, axis):
        index = "xyz".index(axis)

        def value(t):
            if kind == "accel":
                board = [-g * standard_gravity for g in board_vector(t, 0)]
                return device(accel_matrix, board)[index]
            if kind == "anglvel":
                return device(accel_matrix, board_vector(t, 3))[index]
            return device(magn_matrix, [ut / 100.0 for ut in board_vector(t, 6)])[index]
        return value

    class SessionSignal:
        def __init__(self, kind, axis):
            self.kind, self.axis, self.fn = kind, axis, channel(kind, axis)

        def __call__(self, t):
            return self.fn(t)

        def to_json(self):
            return {"kind": "session", "path": path, "channel": "%s_%s" % (self.kind, self.axis),
                    "formula": "recorded session, CoreMotion -> IIO sign, units and chip frame"}

    return {kind: {axis: SessionSignal(kind, axis) for axis in "xyz"} for kind in ("accel", "anglvel", "magn")}
