"""Window-level metrics (numpy only): accuracy, ROC AUC, threshold choice;
and the held-out CV predictions file train.py writes."""
import csv
import gzip

import numpy as np


def read_predictions(path):
    """A CV predictions file (session,fold,start_time,label,score; gzipped
    when the name ends in .gz) as arrays."""
    with (gzip.open(path, "rt") if str(path).endswith(".gz") else open(path)) as f:
        rows = list(csv.DictReader(f))
    return {"session": np.array([r["session"] for r in rows]),
            "fold": np.array([int(r["fold"]) for r in rows]),
            "start_time": np.array([float(r["start_time"]) for r in rows]),
            "label": np.array([int(r["label"]) for r in rows]),
            "score": np.array([float(r["score"]) for r in rows])}


def roc_auc(labels, scores):
    """Area under the ROC curve (Mann-Whitney U with tied ranks averaged);
    nan when only one class is present."""
    y = np.asarray(labels).astype(bool)
    p = np.asarray(scores, np.float64)
    positives = int(y.sum())
    negatives = len(y) - positives
    if positives == 0 or negatives == 0:
        return float("nan")
    order = np.argsort(p, kind="mergesort")
    _, inverse, counts = np.unique(p[order], return_inverse=True, return_counts=True)
    ranks_sorted = np.bincount(inverse, np.arange(1, len(p) + 1, dtype=np.float64)) / counts
    ranks = np.empty(len(p))
    ranks[order] = ranks_sorted[inverse]
    return float((ranks[y].sum() - positives * (positives + 1) / 2.0) / (positives * negatives))


def accuracy(labels, scores, threshold=0.5):
    """Share of windows whose (score >= threshold) equals the label."""
    y = np.asarray(labels).astype(bool)
    if len(y) == 0:
        return float("nan")
    return float(np.mean((np.asarray(scores) >= threshold) == y))


def balanced_accuracy(labels, scores, threshold):
    y = np.asarray(labels).astype(bool)
    predicted = np.asarray(scores) >= threshold
    rates = [np.mean(predicted[y] == y[y]) if y.any() else np.nan,
             np.mean(predicted[~y] == y[~y]) if (~y).any() else np.nan]
    return float(np.nanmean(rates))


THRESHOLD_GRID = np.round(np.arange(0.05, 0.951, 0.01), 2)


def choose_threshold(labels, scores, grid=THRESHOLD_GRID):
    """The grid threshold with the best balanced accuracy; ties go to the one
    nearest 0.5 (then the lower). Returns (threshold, balanced accuracy)."""
    best = None
    for t in grid:
        score = balanced_accuracy(labels, scores, t)
        key = (round(score, 12), -abs(t - 0.5), -t)
        if best is None or key > best[0]:
            best = (key, float(t), score)
    return best[1], best[2]


def edge_mask(names, start_times, edge_seconds=5.0):
    """Windows within `edge_seconds` of their session's first window start or
    last window end (the rule `summarize` counts `errors_at_edges` with)."""
    names = np.asarray(names)
    start_times = np.asarray(start_times, np.float64)
    edge = np.zeros(len(names), bool)
    for name in dict.fromkeys(names.tolist()):
        m = names == name
        t = start_times[m]
        edge[m] = (t < t.min() + edge_seconds) | (t + 1.0 > t.max() + 1.0 - edge_seconds)
    return edge


def summarize(names, labels, scores, start_times, threshold=0.5, edge_seconds=5.0):
    """Pooled and per-session figures for windows of several sessions.

    `names`, `labels`, `scores`, `start_times` are per window. Errors within
    `edge_seconds` of a session's first window start or last window end are
    counted separately: there the phone is often still in the hand while the
    recording is labelled "pocket" (or vice versa).
    """
    names = np.asarray(names)
    labels = np.asarray(labels).astype(np.int64)
    scores = np.asarray(scores, np.float64)
    start_times = np.asarray(start_times, np.float64)
    wrong = (scores >= threshold) != labels.astype(bool)
    edge = edge_mask(names, start_times, edge_seconds)
    per_session = {}
    for name in dict.fromkeys(names.tolist()):
        m = names == name
        e = edge[m]
        per_session[name] = {
            "label": int(np.bincount(labels[m], minlength=2).argmax()),
            "windows": int(m.sum()),
            "accuracy": round(accuracy(labels[m], scores[m], threshold), 4),
            "errors": int(wrong[m].sum()),
            "errors_at_edges": int((wrong[m] & e).sum()),
            "mean_score": round(float(scores[m].mean()), 4),
        }
    pooled = {
        "windows": int(len(labels)),
        "accuracy": round(accuracy(labels, scores, threshold), 4),
        "roc_auc": round(roc_auc(labels, scores), 4),
        "balanced_accuracy": round(balanced_accuracy(labels, scores, threshold), 4),
        "errors": int(wrong.sum()),
        "errors_at_edges": int((wrong & edge).sum()),
        "errors_steady_state": int((wrong & ~edge).sum()),
        "accuracy_without_edges": round(accuracy(labels[~edge], scores[~edge], threshold), 4),
        "edge_seconds": edge_seconds,
        "threshold": threshold,
    }
    return pooled, per_session
