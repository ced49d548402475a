"""Conditioning check shared by make_fixtures.py and make_fixtures_k231.py.

A fixture is only useful if a correct float32 implementation can match it.
An input whose output moves by more than the test tolerance when the input
is rounded differently (chaotic recurrences, near-ties in a saturating
network) cannot be matched by anyone.  So every case is checked on the model
as loaded back from its file: each input row is perturbed N_PERTURB times by
a random relative 1e-7 (x * (1 +- 1e-7) per element, rounded to float32:
about one float32 ulp), and the output change must stay below LIMIT
(absolute, relative where |y| > 1) -- a gain of at most 10 from
input-rounding level to output.  Rows that fail are replaced by fresh draws
of the same kind (a 5x row by a 5x row); a case that needs more than
MAX_REDRAWN replacements is refused (lower its weight scale instead).

Pure numpy so both venvs (numpy 2.x / 1.23) import it.
"""
import numpy as np

REL = 1e-7          # relative perturbation per element (float32 rounding level)
N_PERTURB = 16      # random perturbations per row
LIMIT = 1e-6        # allowed output change: |dy| / max(1, |y|)
MAX_REDRAWN = 3     # input rows a case may replace (of 8) before it is refused
PERTURB_SEED = 20240607


class IllConditioned(Exception):
    pass


def perturbations(x, n=N_PERTURB, seed=PERTURB_SEED):
    """n copies of x, each element times (1 +- REL) with a random sign, in float32."""
    rng = np.random.RandomState(seed)
    x64 = np.asarray(x, dtype=np.float32).astype(np.float64)
    return [(x64 * (1.0 + REL * rng.choice([-1.0, 1.0], x64.shape))).astype(np.float32) for _ in range(n)]


def sensitivity(predict, x, n=N_PERTURB, seed=PERTURB_SEED):
    """Per-row worst |y(x') - y(x)| / max(1, |y(x)|) over n perturbations x'.

    predict(batch) -> outputs; the unperturbed rows and all perturbed copies go
    through ONE call, so every row is computed by the same kernels."""
    x = np.asarray(x, dtype=np.float32)
    batch = np.concatenate([x] + perturbations(x, n, seed))
    y = np.asarray(predict(batch), dtype=np.float64).reshape(n + 1, len(x), -1)
    base = y[0]
    rel = np.abs(y[1:] - base[None]) / np.maximum(1.0, np.abs(base))[None]
    return rel.max(axis=(0, 2))


def condition(name, predict, x, redraw=None, limit=LIMIT, max_redrawn=MAX_REDRAWN):
    """Returns (x, per-row sensitivity, replaced row indices).  Rows of x
    whose sensitivity reaches `limit` are replaced by redraw(i) (a fresh row
    of the same kind as row i); raises IllConditioned when that is not
    possible or needs more than `max_redrawn` replacements."""
    x = np.array(x, dtype=np.float32, copy=True)
    replaced = []
    while True:
        s = sensitivity(predict, x)
        bad = [int(i) for i in np.nonzero(s >= limit)[0]]
        if not bad:
            return x, s, replaced
        if redraw is None or len(replaced) + len(bad) > max_redrawn:
            raise IllConditioned(
                "%s: rows %s change by up to %.2e under 1e-7 relative input noise (limit %.0e; "
                "%d rows replaced already) -- lower the weight scale of this case"
                % (name, bad, float(s.max()), limit, len(replaced)))
        for i in bad:
            x[i] = np.asarray(redraw(i), dtype=np.float32).reshape(x.shape[1:])
            replaced.append(i)
