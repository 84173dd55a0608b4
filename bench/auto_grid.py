#!/usr/bin/env python3
"""The candidate settings the auto rule was chosen from (issue 14, point 2; docs/trees_auto.md):
test AUC (binary), RMSE (regression, label units) or accuracy (multiclass) of each candidate on
every shared data set, per ε, with the protocol of bench/auto_compare.py (5 stratified 70/30
splits, δ = 1/n_train, seed = split + 1; regression schemas with the label's public bounds).

    python3 bench/auto_grid.py RDPKIT [--datasets DIR] [--splits 5] [--epsilons 0.1,0.5,1]
        [--sets a,b] [--configs a,b] [--out runs.jsonl]
    python3 bench/auto_grid.py --summarize runs.jsonl

Every candidate is written in full over "defaults": "static" (the key table's fixed defaults),
so it does not move when the auto rule changes. --summarize prints each candidate's mean per
cell and its mean regret (gap to the cell's best candidate: AUC/accuracy points, or % RMSE).
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

from auto_compare import MULTICLASS, prepare_split, run_rdpkit_full
from parity import BINARY, HERE, REGRESSION, recorded_keys

LBN = {"leaf_noise_weights": [0.2, 0.8]}
# S-BDT's setting (docs/parity.md) with rdpkit's floored leaf rule; regression takes h* = 1.
SBDT = {"max_depth": 6, "learning_rate": 0.1, "reg_lambda": 15,
        "feature_interaction": {"method": "cyclical", "k": 1}, "subsample": 0.1,
        "gradient_clip": 0.5, "hessian_clip": 0.25, **LBN,
        "initial_score": {"epsilon_share": 0.1}, "split_scope": "all", "n_estimators": 300}
SBDT_ALL = {**SBDT, "feature_interaction": {"method": "all"}, "split_scope": "node",
            "max_depth": 4}
CONFIGS = {
    "static": {},
    "T300 η0.1": {"n_estimators": 300, "learning_rate": 0.1},
    "T300 η0.1 init": {"n_estimators": 300, "learning_rate": 0.1,
                       "initial_score": {"epsilon_share": 0.05}},
    "T300 η0.1 lbn": {"n_estimators": 300, "learning_rate": 0.1, "hessian_clip": 0.25, **LBN},
    "T1000 η0.03": {"n_estimators": 1000, "learning_rate": 0.03},
    "T1000 η0.015": {"n_estimators": 1000, "learning_rate": 0.015},
    "T1000 η0.06": {"n_estimators": 1000, "learning_rate": 0.06},
    "T1000 η0.03 d3": {"n_estimators": 1000, "learning_rate": 0.03, "max_depth": 3},
    "T1000 η0.03 d5": {"n_estimators": 1000, "learning_rate": 0.03, "max_depth": 5},
    "S-BDT+floor": SBDT,
    "S-BDT+floor node": {**SBDT, "split_scope": "node"},
    "S-BDT+floor all-features d4": SBDT_ALL,
    "S-BDT+floor all-features d6": {**SBDT_ALL, "max_depth": 6},
    "S-BDT exact leaf": {**SBDT, "negative_hessian_leaf": "zero", "noisy_hessian_floor": 0},
    "T1000 η0.03 init lbn": {"n_estimators": 1000, "learning_rate": 0.03, "gradient_clip": 0.5,
                             "initial_score": {"epsilon_share": 0.1}, **LBN},
    "T1000 η0.03 filter +500": {"n_estimators": 1000, "learning_rate": 0.03,
                                "renyi_filter": {"extra_rounds": 500}},
    "T300 η0.1 filter +300": {"n_estimators": 300, "learning_rate": 0.1,
                              "renyi_filter": {"extra_rounds": 300}},
    "exponential T100 η0.3 d3": {"split_method": "exponential", "n_estimators": 100,
                                 "max_depth": 3},
    "exponential T300 η0.1": {"split_method": "exponential", "n_estimators": 300,
                              "learning_rate": 0.1},
    "T1000 η0.03 g*0.3": {"n_estimators": 1000, "learning_rate": 0.03, "gradient_clip": 0.3},
    "T1000 η0.03 g*0.4": {"n_estimators": 1000, "learning_rate": 0.03, "gradient_clip": 0.4},
    "T1000 η0.03 g*0.5": {"n_estimators": 1000, "learning_rate": 0.03, "gradient_clip": 0.5},
    "T1000 η0.03 g*0.6": {"n_estimators": 1000, "learning_rate": 0.03, "gradient_clip": 0.6},
    "T1000 η0.05 g*0.5": {"n_estimators": 1000, "learning_rate": 0.05, "gradient_clip": 0.5},
    "T1000 η0.03 g*0.5 h*0.2": {"n_estimators": 1000, "learning_rate": 0.03,
                                "gradient_clip": 0.5, "hessian_clip": 0.2},
    "T1000 η0.03 g*0.5 h*0.15": {"n_estimators": 1000, "learning_rate": 0.03,
                                 "gradient_clip": 0.5, "hessian_clip": 0.15},
    "T1000 η0.03 g*0.5 h*0.1": {"n_estimators": 1000, "learning_rate": 0.03,
                                "gradient_clip": 0.5, "hessian_clip": 0.1},
    "T1000 η0.02 g*0.5 h*0.1": {"n_estimators": 1000, "learning_rate": 0.02,
                                "gradient_clip": 0.5, "hessian_clip": 0.1},
    "T1000 η0.04 g*0.5 h*0.1": {"n_estimators": 1000, "learning_rate": 0.04,
                                "gradient_clip": 0.5, "hessian_clip": 0.1},
    "T1000 η0.05 g*0.5 h*0.1": {"n_estimators": 1000, "learning_rate": 0.05,
                                "gradient_clip": 0.5, "hessian_clip": 0.1},
    "T300 η0.1 g*0.5": {"n_estimators": 300, "learning_rate": 0.1, "gradient_clip": 0.5},
    "T300 η0.1 g*0.7": {"n_estimators": 300, "learning_rate": 0.1, "gradient_clip": 0.7},
    "T300 η0.1 g*√(5/6)": {"n_estimators": 300, "learning_rate": 0.1,
                           "gradient_clip": (5 / 6) ** 0.5},
    "S-BDT+floor T600 η0.05": {**SBDT, "n_estimators": 600, "learning_rate": 0.05},
    "S-BDT+floor γ0.2": {**SBDT, "subsample": 0.2},
    "S-BDT+floor d5": {**SBDT, "max_depth": 5},
    "S-BDT+floor r1 0.1": {**SBDT, "leaf_noise_weights": [0.1, 0.9]},
    "S-BDT+floor h*0.15": {**SBDT, "hessian_clip": 0.15},
    "S-BDT+floor g*0.1": {**SBDT, "gradient_clip": 0.1},
    "S-BDT+floor g*0.2": {**SBDT, "gradient_clip": 0.2},
    "S-BDT+floor g*0.1 d2 T150 η0.2": {**SBDT, "gradient_clip": 0.1, "max_depth": 2,
                                       "n_estimators": 150, "learning_rate": 0.2},
    "S-BDT+floor d2": {**SBDT, "max_depth": 2},
    "S-BDT+floor d3": {**SBDT, "max_depth": 3},
    "S-BDT+floor d4": {**SBDT, "max_depth": 4},
    # Greedy splits on large n (mplsstops; runs in bench/auto_grid_trees_runs.jsonl): noisy
    # histograms cost one query per feature and level, exponential ones their own budget.
    "histogram d3 T100 η0.3 g*0.5 h*0.1": {"split_method": "histogram", "max_depth": 3,
                                           "n_estimators": 100, "learning_rate": 0.3,
                                           "gradient_clip": 0.5, "hessian_clip": 0.1},
    "histogram d3 T50 η0.5 g*0.5 h*0.1": {"split_method": "histogram", "max_depth": 3,
                                          "n_estimators": 50, "learning_rate": 0.5,
                                          "gradient_clip": 0.5, "hessian_clip": 0.1},
    "histogram d4 T200 η0.15 g*0.5 h*0.1": {"split_method": "histogram", "max_depth": 4,
                                            "n_estimators": 200, "learning_rate": 0.15,
                                            "gradient_clip": 0.5, "hessian_clip": 0.1},
    "S-BDT+floor all-features histogram d4": {**SBDT_ALL, "split_method": "histogram"},
    "S-BDT+floor all-features histogram d3 T150 η0.2": {**SBDT_ALL, "split_method": "histogram",
                                                        "max_depth": 3, "n_estimators": 150,
                                                        "learning_rate": 0.2},
    "S-BDT+floor all-features exponential d4": {**SBDT_ALL, "split_method": "exponential"},
    "S-BDT+floor d5 T600 η0.1": {**SBDT, "max_depth": 5, "n_estimators": 600,
                                 "learning_rate": 0.1},
}
# T and T·η of the subsampled branch (docs/trees_auto_why.md § Why; runs in
# bench/auto_grid_trees_runs.jsonl): S-BDT's setting with more trees, and for regression with the
# adapted clip of the auto rule ("adapt"), at depth 6 and 4.
ADAPT = {"initial_score": {"epsilon_share": 0.1, "adapt_gradient_clip": True}}
for _t, _eta in [(300, 0.2), (600, 0.1), (1000, 0.05), (1000, 0.1), (2000, 0.023), (2000, 0.03),
                 (2000, 0.04), (2000, 0.05), (2000, 0.1), (3000, 0.05), (4000, 0.025)]:
    CONFIGS[f"S-BDT+floor T{_t} η{_eta}"] = {**SBDT, "n_estimators": _t, "learning_rate": _eta}
CONFIGS["S-BDT+floor adapt"] = {**SBDT, **ADAPT}
CONFIGS["S-BDT+floor adapt d4"] = {**SBDT, **ADAPT, "max_depth": 4}
for _t, _eta in [(1000, 0.03), (1000, 0.05), (2000, 0.023), (2000, 0.03), (2000, 0.04),
                 (2000, 0.05), (3000, 0.05)]:
    CONFIGS[f"S-BDT+floor adapt T{_t} η{_eta}"] = {**SBDT, **ADAPT, "n_estimators": _t,
                                                   "learning_rate": _eta}
    CONFIGS[f"S-BDT+floor adapt d4 T{_t} η{_eta}"] = {**SBDT, **ADAPT, "max_depth": 4,
                                                      "n_estimators": _t, "learning_rate": _eta}
# Beyond ε = 1 (docs/trees_auto_why.md § Larger ε; runs in bench/auto_grid_large_eps_runs.jsonl):
# the unsampled binary branch with its total step held at ε = 1's, deeper random trees, greedy
# noisy-histogram trees, and the subsampled branch with all features per tree or greedy splits.
CLIPS = {"gradient_clip": 0.5, "hessian_clip": 0.1}  # binary's clips (§ Why)
LARGE_EPS_BINARY = set()
for _d in (4, 5, 6):
    LARGE_EPS_BINARY.add(f"T1000 η0.045 g*0.5 h*0.1 d{_d}")
    CONFIGS[f"T1000 η0.045 g*0.5 h*0.1 d{_d}"] = {"n_estimators": 1000, "learning_rate": 0.045,
                                                  "max_depth": _d, **CLIPS}
for _d, _t, _eta in [(4, 300, 0.1), (6, 300, 0.1), (6, 100, 0.3)]:
    LARGE_EPS_BINARY.add(f"histogram d{_d} T{_t} η{_eta} g*0.5 h*0.1")
    CONFIGS[f"histogram d{_d} T{_t} η{_eta} g*0.5 h*0.1"] = {
        "split_method": "histogram", "max_depth": _d, "n_estimators": _t, "learning_rate": _eta,
        **CLIPS}
CONFIGS["S-BDT+floor T2000 η0.03 all-features"] = {
    **SBDT, "n_estimators": 2000, "learning_rate": 0.03, "feature_interaction": {"method": "all"}}
CONFIGS["S-BDT+floor T2000 η0.03 all-features node"] = {
    **CONFIGS["S-BDT+floor T2000 η0.03 all-features"], "split_scope": "node"}
CONFIGS["S-BDT+floor adapt T2000 η0.03 all-features"] = {
    **SBDT, **ADAPT, "n_estimators": 2000, "learning_rate": 0.03,
    "feature_interaction": {"method": "all"}}
CONFIGS["S-BDT+floor adapt T2000 η0.03 all-features node"] = {
    **SBDT, **ADAPT, "n_estimators": 2000, "learning_rate": 0.03,
    "feature_interaction": {"method": "all"}, "split_scope": "node"}
CONFIGS["S-BDT+floor adapt histogram d6 T300 η0.1"] = {
    **SBDT, **ADAPT, "split_method": "histogram", "feature_interaction": {"method": "all"},
    "split_scope": "node"}
REGRESSION_ONLY = {"S-BDT exact leaf", "T1000 η0.03 init lbn", "S-BDT+floor g*0.1",
                   "S-BDT+floor g*0.2", "S-BDT+floor g*0.1 d2 T150 η0.2",
                   *(name for name in CONFIGS if name.startswith("S-BDT+floor adapt"))}
BINARY_ONLY = {*LARGE_EPS_BINARY, "T1000 η0.03 filter +500", "T300 η0.1 filter +300", "exponential T100 η0.3 d3",
               "exponential T300 η0.1"}


def config_for(name, task):
    config = {"defaults": "static", **CONFIGS[name]}
    if task == "regression" and "subsample" in config:
        config["hessian_clip"] = 1  # regression Hessians are counts
    if task == "multiclass":
        config.pop("initial_score", None)  # refused with multiclass objectives
    return config


def summarize(path):
    cells = defaultdict(list)
    task_of = {}
    for line in open(path):
        r = json.loads(line)
        task_of[r["dataset"]] = r["task"]
        metric = {"binary": "auc", "regression": "rmse", "multiclass": "accuracy"}[r["task"]]
        cells[(r["dataset"], r["epsilon"], r["config"])].append(r[metric])
    names = [c for c in CONFIGS if any(k[2] == c for k in cells)]
    regret = defaultdict(lambda: defaultdict(list))
    by_epsilon = defaultdict(lambda: defaultdict(list))  # binary regret per ε
    print("| dataset | ε | " + " | ".join(names) + " |")
    print("| --- | --- |" + " ---: |" * len(names))
    for name in BINARY + REGRESSION + MULTICLASS:
        for eps in sorted({k[1] for k in cells if k[0] == name}):
            means = {c: statistics.mean(cells[(name, eps, c)]) for c in names
                     if (name, eps, c) in cells}
            lower_better = task_of[name] == "regression"
            best = min(means.values()) if lower_better else max(means.values())
            for c, v in means.items():
                regret[task_of[name]][c].append(100 * (v / best - 1) if lower_better else best - v)
                if task_of[name] == "binary":
                    by_epsilon[c][eps].append(best - v)
            fmt = "{:.4g}" if lower_better else "{:.3f}"
            print(f"| {name} | {eps:g} | "
                  + " | ".join(fmt.format(means[c]) if c in means else "–" for c in names) + " |")
    print("\n| candidate | binary: mean / max regret (AUC) | regression: mean / max regret (% RMSE)"
          " | multiclass: mean regret (accuracy) |")
    print("| --- | ---: | ---: | ---: |")
    for c in names:
        parts = []
        for task, fmt in (("binary", "{:.4f}"), ("regression", "{:.1f}"), ("multiclass", "{:.4f}")):
            v = regret[task].get(c)
            parts.append(f"{fmt.format(statistics.mean(v))} / {fmt.format(max(v))} ({len(v)})"
                         if v else "–")
        print(f"| {c} | " + " | ".join(parts) + " |")
    epsilons = sorted({e for c in by_epsilon for e in by_epsilon[c]})
    print("\n| candidate | " + " | ".join(f"binary mean regret at ε = {e:g}" for e in epsilons)
          + " |")
    print("| --- |" + " ---: |" * len(epsilons))
    for c in names:
        if len(by_epsilon[c]) == len(epsilons) and all(len(v) == 8 for v in by_epsilon[c].values()):
            print(f"| {c} | " + " | ".join(f"{statistics.mean(by_epsilon[c][e]):.4f}"
                                           for e in epsilons) + " |")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--summarize":
        summarize(sys.argv[2])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rdpkit")
    ap.add_argument("--datasets", default=os.path.join(HERE, "..", "..", "shared", "datasets"))
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--epsilons", default="0.1,0.5,1")
    ap.add_argument("--sets", default=",".join(BINARY + REGRESSION + MULTICLASS))
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--out", default="auto_grid_runs.jsonl")
    args = ap.parse_args()
    done = recorded_keys(args.out, ("dataset", "config", "epsilon", "split"))
    scratch = tempfile.mkdtemp(prefix="rdpkit_auto_grid_")
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)  # nothing left in /tmp
    for split in range(args.splits):
        for name in args.sets.split(","):
            _, schema_path, task, train, test, n_train = prepare_split(args.datasets, name, split,
                                                                      scratch)
            delta = 1.0 / n_train
            for eps in (float(e) for e in args.epsilons.split(",")):
                for c in args.configs.split(","):
                    if ((name, c, eps, split) in done
                            or (c in REGRESSION_ONLY and task != "regression")
                            or (c in BINARY_ONLY and task != "binary")):
                        continue
                    config = {**config_for(c, task), "seed": split + 1,
                              "privacy": {"epsilon": eps, "delta": delta,
                                          "allow_large_delta": True}}
                    res = run_rdpkit_full(args.rdpkit, config, train, test, schema_path, scratch)
                    rec = {"dataset": name, "config": c, "epsilon": eps, "split": split,
                           "task": task, "n_train": n_train, **res}
                    with open(args.out, "a") as f:
                        f.write(json.dumps(rec) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
