#!/usr/bin/env python3
"""Groundwork for data-driven defaults (issue 14, point 2): test AUC (binary) or RMSE (regression)
of a small grid of candidate settings of `rdpkit train` on the shared data sets, per ε.

    python3 bench/defaults_grid.py RDPKIT [--datasets DIR] [--splits 3] [--epsilons 0.1,0.5,1]
        [--sets a,b] [--configs a,b] [--out runs.jsonl]
    python3 bench/defaults_grid.py --summarize runs.jsonl

Splits as bench/parity.py (stratified 70/30 for binary sets, seeded 0, 1, …; config seed =
split + 1; regression labels mapped to [−1, 1] by the public label bounds and RMSE reported in
the label's units, since the trainer's clips are in label units); δ is the trainer's default (the largest power of ten below 1/n), so each setting is
measured as a user would get it. Every config is a change of rdpkit's defaults (T 100, depth 4,
η 0.3, λ 1, all features, 32 uniform candidates, no subsampling, spherical noise). One run at a
time; records are appended to --out, so an interrupted run resumes. --summarize prints, per data
set and ε, each config's score relative to the defaults and the best config, and over all cells
the mean regret (gap to the cell's best) of each config, then per (task, n bucket, ε) the configs
with the smallest mean regret over the group's data sets.
"""
import argparse
import atexit
import json
import os
import shutil
import statistics
import sys
import tempfile
from collections import defaultdict

from parity import BINARY, HERE, REGRESSION, SBDT_RDPKIT, read_csv, run_rdpkit, stratified_split
from parity import write_rows

LBN = {"leaf_noise_weights": [0.2, 0.8]}
CONFIGS = {
    "default": {},
    "d2": {"max_depth": 2},
    "d3": {"max_depth": 3},
    "d6": {"max_depth": 6},
    "all": {"split_scope": "all"},
    "all d6": {"split_scope": "all", "max_depth": 6},
    "T300": {"n_estimators": 300},
    "T300 η0.1": {"n_estimators": 300, "learning_rate": 0.1},
    "T1000 η0.1": {"n_estimators": 1000, "learning_rate": 0.1},
    "IH": {"split_candidates": {"method": "iterative_hessian", "count": 32, "rounds": 5}},
    "sub0.1 lbn T300": {"subsample": 0.1, "n_estimators": 300, **LBN},
    "d3 sub0.1 lbn T300": {"max_depth": 3, "subsample": 0.1, "n_estimators": 300, **LBN},
    "init": {"initial_score": {}},
    "init d3 T300 η0.1": {"initial_score": {}, "max_depth": 3, "n_estimators": 300,
                          "learning_rate": 0.1},
    "S-BDT": {**SBDT_RDPKIT, "n_estimators": 300},
}


def summarize(path):
    cells = defaultdict(list)  # (dataset, eps, config) -> scores
    for line in open(path):
        r = json.loads(line)
        cells[(r["dataset"], r["epsilon"], r["config"])].append(r.get("auc", r.get("rmse")))
    configs = [c for c in CONFIGS if any(k[2] == c for k in cells)]
    sets = [s for s in BINARY + REGRESSION if any(k[0] == s for k in cells)]
    wins = defaultdict(int)
    print("| dataset | ε | defaults | best config | best | 2nd | 2nd score |")
    print("| --- | --- | ---: | --- | ---: | --- | ---: |")
    for name in sets:
        binary = name in BINARY
        for eps in sorted({k[1] for k in cells if k[0] == name}):
            means = {c: statistics.mean(cells[(name, eps, c)]) for c in configs
                     if (name, eps, c) in cells}
            if "default" not in means:
                continue
            order = sorted(means, key=lambda c: -means[c] if binary else means[c])
            best = means[order[0]]
            wins[order[0]] += 1
            fmt = "{:.3f}" if binary else "{:.4g}"
            print(f"| {name} | {eps:g} | {fmt.format(means['default'])} | {order[0]} | "
                  f"{fmt.format(best)} | {order[1]} | {fmt.format(means[order[1]])} |")
    print()
    print("| config | cells won | mean regret, binary (AUC) | max regret, binary | "
          "mean regret, regression (% RMSE) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for c in configs:  # regret: AUC below the cell's best, or RMSE in % above it
        rb, rr = [], []
        for name in sets:
            for eps in sorted({k[1] for k in cells if k[0] == name}):
                if (name, eps, c) not in cells or (name, eps, "default") not in cells:
                    continue
                means = {d: statistics.mean(cells[(name, eps, d)]) for d in configs
                         if (name, eps, d) in cells}
                v = means[c]
                if name in BINARY:
                    rb.append(max(means.values()) - v)
                else:
                    rr.append(100 * (v / min(means.values()) - 1))
        mb = f"{statistics.mean(rb):.4f}" if rb else "–"
        xb = f"{max(rb):.3f}" if rb else "–"
        mr = f"{statistics.mean(rr):.1f}" if rr else "–"
        print(f"| {c} | {wins[c]} | {mb} | {xb} | {mr} |")


def bucket(n_train):
    return "n < 1000" if n_train < 1000 else ("1000 ≤ n < 10000" if n_train < 10000 else
                                                "n ≥ 10000")


def summarize_groups(path):
    """Per (task, n bucket, ε): mean regret of each config over the group's data sets."""
    cells = defaultdict(list)
    size = {}
    for line in open(path):
        r = json.loads(line)
        cells[(r["dataset"], r["epsilon"], r["config"])].append(r.get("auc", r.get("rmse")))
        size[r["dataset"]] = r["n_train"]
    groups = defaultdict(lambda: defaultdict(list))
    members = defaultdict(set)
    for name in size:
        binary = name in BINARY
        for eps in sorted({k[1] for k in cells if k[0] == name}):
            means = {c: statistics.mean(cells[(name, eps, c)]) for c in CONFIGS
                     if (name, eps, c) in cells}
            if len(means) < len(CONFIGS):
                continue  # only cells where every config ran
            best = max(means.values()) if binary else min(means.values())
            key = ("binary" if binary else "regression", bucket(size[name]), eps)
            members[key].add(name)
            for c, v in means.items():
                groups[key][c].append(best - v if binary else 100 * (v / best - 1))
    print("| task | n | ε | data sets | best 3 configs (mean regret) | default's regret |")
    print("| --- | --- | --- | --- | --- | ---: |")
    for key in sorted(groups, key=lambda k: (k[0], k[1], k[2])):
        reg = {c: statistics.mean(v) for c, v in groups[key].items()}
        top = sorted(reg, key=reg.get)[:3]
        fmt = (lambda v: f"{v:.3f}") if key[0] == "binary" else (lambda v: f"{v:.0f} %")
        print(f"| {key[0]} | {key[1]} | {key[2]:g} | {', '.join(sorted(members[key]))} | "
              + "; ".join(f"{c} ({fmt(reg[c])})" for c in top) + f" | {fmt(reg['default'])} |")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--summarize":
        summarize(sys.argv[2])
        print()
        summarize_groups(sys.argv[2])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rdpkit")
    ap.add_argument("--datasets", default=os.path.join(HERE, "..", "..", "shared", "datasets"))
    ap.add_argument("--splits", type=int, default=3)
    ap.add_argument("--epsilons", default="0.1,0.5,1")
    ap.add_argument("--sets", default=",".join(BINARY + REGRESSION))
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--out", default="defaults_grid_runs.jsonl")
    args = ap.parse_args()
    done = set()
    if os.path.exists(args.out):
        for line in open(args.out):
            r = json.loads(line)
            done.add((r["dataset"], r["config"], r["epsilon"], r["split"]))
    scratch = tempfile.mkdtemp(prefix="rdpkit_grid_")
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)  # nothing left in /tmp
    for split in range(args.splits):
        for name in args.sets.split(","):
            schema_path = os.path.join(args.datasets, f"{name}.json")
            with open(schema_path) as f:
                schema = json.load(f)
            header, rows = read_csv(os.path.join(args.datasets, f"{name}.csv"))
            binary = schema["task"] == "binary"
            tr, te = stratified_split([float(r[-1]) for r in rows], split, binary)
            unit = 1.0
            if not binary:  # labels mapped to [−1, 1] by the public label bounds (bench/parity.py)
                lo, hi = schema["label_stats"]["min"], schema["label_stats"]["max"]
                unit = (hi - lo) / 2
                rows = [r[:-1] + [repr((float(r[-1]) - lo) / unit - 1)] for r in rows]
            train = os.path.join(scratch, "train.csv")
            test = os.path.join(scratch, "test.csv")
            write_rows(train, header, rows, tr)
            write_rows(test, header, rows, te)
            for eps in (float(e) for e in args.epsilons.split(",")):
                for c in args.configs.split(","):
                    if (name, c, eps, split) in done:
                        continue
                    config = {**CONFIGS[c], "privacy": {"epsilon": eps}, "seed": split + 1}
                    res = run_rdpkit(args.rdpkit, config, train, test, schema_path, scratch)
                    if not binary:
                        res["rmse"] *= unit
                    rec = {"dataset": name, "config": c, "epsilon": eps, "split": split,
                           "n_train": len(tr), "n_features": len(schema["features"]), **res}
                    with open(args.out, "a") as f:
                        f.write(json.dumps(rec) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
