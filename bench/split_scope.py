#!/usr/bin/env python3
"""Test AUC of the data-independent options taken from S-BDT's code (kirschte/sbdt), split_scope and
negative_hessian_leaf, on the shared binary data sets (docs/trees_training.md, "Split scope and
negative Hessians").

    python3 bench/split_scope.py RDPKIT [--datasets DIR] [--splits 3] [--jobs 2] [--variants a,b]

Splits as bench/compare_builds.py (random 70/30, seeded 0, 1, …; config seed = split + 1),
ε ∈ {0.1, 0.5, 1}, δ the trainer's default. Every variant trains on the same splits; the options
cost no privacy, so all variants of one ε have the same event. Prints a markdown table of the mean
test AUC per data set and ε (± the standard deviation over the splits for the defaults).
"""
import argparse
import concurrent.futures
import atexit
import csv
import json
import os
import random
import shutil
import statistics
import sys
import tempfile

from compare_builds import BINARY_SETS, EPSILONS, HERE, run, write_split

# S-BDT's setting (its paper's experiments and code): depth 6, η 0.1, λ 15, β 2, 32 uniform
# candidates, one feature per tree (cyclical), subsampling 0.1, clips 0.5 / 0.25, leaf-balanced
# noise [0.2, 0.8], T = 300.
SBDT = {"n_estimators": 300, "max_depth": 6, "learning_rate": 0.1, "reg_lambda": 15,
        "max_leaf_value": 2, "split_candidates": {"method": "uniform", "count": 32},
        "feature_interaction": {"method": "cyclical", "k": 1}, "subsample": 0.1,
        "gradient_clip": 0.5, "hessian_clip": 0.25, "leaf_noise_weights": [0.2, 0.8]}
ALL = {"split_scope": "all"}
ZERO = {"negative_hessian_leaf": "zero"}
VARIANTS = {
    "default": {},
    "all": ALL,
    "all+zero": {**ALL, **ZERO},
    "d3": {"max_depth": 3},
    "all d3": {**ALL, "max_depth": 3},
    "d6": {"max_depth": 6},
    "all d6": {**ALL, "max_depth": 6},
    "S-BDT node": SBDT,
    "S-BDT all": {**SBDT, **ALL},
    "S-BDT all+zero": {**SBDT, **ALL, **ZERO},
    "S-BDT all+zero c=0": {**SBDT, **ALL, **ZERO, "noisy_hessian_floor": 0},
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("rdpkit")
    parser.add_argument("--datasets", default=os.path.join(HERE, "..", "..", "shared", "datasets"))
    parser.add_argument("--splits", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    args = parser.parse_args()
    variants = args.variants.split(",")
    scratch = tempfile.mkdtemp(prefix="rdpkit_split_scope_")
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)  # nothing left in /tmp
    print("| dataset | ε | " + " | ".join(variants) + " |")
    print("| --- | --- |" + " ---: |" * len(variants))
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for name in BINARY_SETS:
            with open(os.path.join(args.datasets, f"{name}.csv")) as f:
                rows = list(csv.reader(f))
            header, body = rows[0], rows[1:]
            schema = os.path.join(args.datasets, f"{name}.json")
            futures = {}
            for split in range(args.splits):
                order = list(range(len(body)))
                random.Random(split).shuffle(order)
                cut = int(0.7 * len(order))
                train = os.path.join(scratch, f"{name}_{split}_train.csv")
                test = os.path.join(scratch, f"{name}_{split}_test.csv")
                write_split(body, header, order[:cut], train)
                write_split(body, header, order[cut:], test)
                for eps in EPSILONS:
                    for v in variants:
                        work = os.path.join(scratch, f"{name}_{split}_{eps}_{v.replace(' ', '_')}")
                        os.makedirs(work, exist_ok=True)
                        config = os.path.join(work, "config.json")
                        with open(config, "w") as f:
                            json.dump({**VARIANTS[v], "privacy": {"epsilon": eps},
                                       "seed": split + 1}, f)
                        futures[(eps, v, split)] = pool.submit(run, args.rdpkit, train, test,
                                                               schema, config, work)
            for eps in EPSILONS:
                cells = []
                for v in variants:
                    aucs = [futures[(eps, v, s)].result()[1] for s in range(args.splits)]
                    cell = f"{statistics.mean(aucs):.3f}"
                    if v == "default" and len(aucs) > 1:
                        cell += f" ± {statistics.stdev(aucs):.3f}"
                    cells.append(cell)
                print(f"| {name} | {eps} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
