#!/usr/bin/env python3
"""How high a non-private model gets on the binary shared sets, on the splits of
bench/auto_compare.py (5 stratified 70/30 splits, split s shuffled with Random(s)): the ceiling
that issue 14's target (best peer + 0.01 AUC) is compared with in docs/trees_auto.md.

    /usr/bin/python3 bench/nonprivate_ceiling.py [--datasets DIR] [--sets a,b] [--splits 5]

Models: scikit-learn's HistGradientBoostingClassifier (categorical codes as given, treated as
numbers) over a small grid (max_iter 100/300/1000, learning_rate 0.1/0.03, max_depth none/3),
each grid point's mean test AUC over the splits; the best grid point per set is reported (chosen
on the test splits: an optimistic ceiling, as the peers' "S-BDT best" is).
Needs scikit-learn (Debian: python3-sklearn).
"""
import argparse
import itertools
import os
import statistics
import sys

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import roc_auc_score

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from parity import BINARY, HERE, read_csv, stratified_split  # noqa: E402

GRID = list(itertools.product([100, 300, 1000], [0.1, 0.03], [None, 3]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default=os.path.join(HERE, "..", "..", "shared", "datasets"))
    ap.add_argument("--sets", default=",".join(BINARY))
    ap.add_argument("--splits", type=int, default=5)
    args = ap.parse_args()
    print("| dataset | best non-private AUC (mean ± sd over splits) | setting (iterations, rate, depth) |")
    print("| --- | ---: | --- |")
    for name in args.sets.split(","):
        _, rows = read_csv(os.path.join(args.datasets, f"{name}.csv"))
        data = np.array([[float(v) for v in r] for r in rows])
        x, y = data[:, :-1], data[:, -1]
        best = None
        for iters, rate, depth in GRID:
            aucs = []
            for split in range(args.splits):
                tr, te = stratified_split(list(y), split, True)
                model = HistGradientBoostingClassifier(max_iter=iters, learning_rate=rate,
                                                       max_depth=depth, random_state=split)
                model.fit(x[tr], y[tr])
                aucs.append(roc_auc_score(y[te], model.predict_proba(x[te])[:, 1]))
            mean = statistics.mean(aucs)
            if best is None or mean > best[0]:
                best = (mean, statistics.stdev(aucs), (iters, rate, depth))
        print(f"| {name} | {best[0]:.3f} ± {best[1]:.3f} | {best[2]} |", flush=True)


if __name__ == "__main__":
    main()
