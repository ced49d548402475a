"""Orientation augmentation for (N, 50, 9) windows (numpy only).

A phone's three motion sensors share one body frame, so turning the phone is
one rotation R applied to all three vectors alike: acc' = R acc,
gyro' = R gyro, mag' = R mag (the rotation is constant over a 1 s window).

The rotations drawn here are "the same phone held differently":
  * a uniform angle about the device z axis (the screen normal): portrait,
    landscape, upside down and everything between. Gravity's component along
    z (screen up or not) is kept, its direction in the screen plane is not.
    This is what makes session data_new_20190530_180235_1 (held in landscape,
    gravity along +x) look like the portrait hand sessions (gravity along -y).
  * then a small tilt: a rotation by N(0, tilt) radians about a random axis
    in the screen plane.
Full random 3-D rotations were measured too: they also erase "screen up vs
screen vertical", the strongest cue, and cost ~5 points of CV accuracy.

Magnetometer hard-iron offsets differ from phone to phone (the raw field here
reads 40-160 uT in magnitude): a random constant offset per window,
N(0, mag_offset) uT per axis, keeps the model from keying on one phone's
offset.
"""
import numpy as np


def about_z(angle):
    """Rotations by `angle` (n,) radians about the device z axis (the screen normal)."""
    angle = np.asarray(angle, np.float64)
    c, s = np.cos(angle), np.sin(angle)
    r = np.zeros((len(angle), 3, 3))
    r[:, 0, 0], r[:, 0, 1], r[:, 1, 0], r[:, 1, 1], r[:, 2, 2] = c, -s, s, c, 1.0
    return r


def rotations_about_z(n, rng):
    return about_z(rng.uniform(0.0, 2.0 * np.pi, n))


def axis_angle(axis, angle):
    """Rodrigues: rotations by `angle` (n,) about unit `axis` (n, 3)."""
    n = len(axis)
    k = np.zeros((n, 3, 3))
    k[:, 0, 1], k[:, 0, 2] = -axis[:, 2], axis[:, 1]
    k[:, 1, 0], k[:, 1, 2] = axis[:, 2], -axis[:, 0]
    k[:, 2, 0], k[:, 2, 1] = -axis[:, 1], axis[:, 0]
    s = np.sin(angle)[:, None, None]
    c = np.cos(angle)[:, None, None]
    return np.eye(3)[None] + s * k + (1.0 - c) * (k @ k)


def tilts(n, rng, sigma):
    """Rotations by N(0, sigma) rad about random axes in the x-y plane."""
    phi = rng.uniform(0.0, 2.0 * np.pi, n)
    axis = np.stack([np.cos(phi), np.sin(phi), np.zeros(n)], axis=1)
    return axis_angle(axis, rng.normal(0.0, sigma, n))


def random_rotations(n, rng, tilt=0.15):
    """Uniform rotation about z, then a small tilt (see module docstring)."""
    r = rotations_about_z(n, rng)
    if tilt > 0:
        r = tilts(n, rng, tilt) @ r
    return r


def rotate(windows, rotations):
    """Applies one rotation per window to acc, gyro and mag alike."""
    n, steps, channels = windows.shape
    assert channels == 9 and rotations.shape == (n, 3, 3)
    v = windows.reshape(n, steps, 3, 3).astype(np.float64)        # (n, t, sensor, xyz)
    out = np.einsum("nij,ntsj->ntsi", rotations, v)
    return out.reshape(n, steps, channels)


def uniform_rotations(n, rng):
    """Uniform random rotations of 3-D space (from random unit quaternions)."""
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    w, x, y, z = q.T
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1)], 1)


MODES = ("z", "so3", "none")


def augment(windows, rng, tilt=0.15, mag_offset=50.0, mode="z"):
    """A freshly rotated copy of `windows` (N, 50, 9), float32.

    mode "z": rotation about z plus tilt (the recipe); "so3": uniform 3-D
    rotations (for comparison); "none": the windows as they are."""
    n = len(windows)
    if mode == "none":
        return windows.astype(np.float32)
    rotations = random_rotations(n, rng, tilt) if mode == "z" else uniform_rotations(n, rng)
    out = rotate(windows, rotations)
    if mag_offset > 0:
        out[:, :, 6:9] += rng.normal(0.0, mag_offset, (n, 1, 3))
    return out.astype(np.float32)
