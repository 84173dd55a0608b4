#!/usr/bin/env python3
"""Utility of the private tree trainer (issue 5, point 11): mean ± std test AUC over 5 random
70/30 splits × 3 seeds, delta = 1/n, on spambase and credit-g, for the Maddock et al. 2022
methods, plus Debian's non-private XGBoost (`xgboost` CLI, tree_method=hist) as the ceiling.

    bench/utility.py --driver build/bench/trees_utility [--quick] [--out results.md]

--quick runs only the floor configurations (spambase, DP-TR Newton, T = 300, eps in {1, 0.1})
and XGBoost; the default runs the whole grid. Writes a markdown table (stdout and --out).

The comparison of the trainer's auto settings with S-BDT's and Maddock et al.'s own code on all
shared data sets (issue 14) is its successor, bench/auto_compare.py (docs/trees_auto.md).
"""
import argparse
import csv
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

COMMON = {"max_depth": 4, "learning_rate": 0.3, "max_leaf_value": 2, "reg_lambda": 1,
          "split_candidates": {"method": "uniform", "count": 32}}


def methods(trees):
    """Maddock et al. 2022 §5.3 instantiations (name, config without privacy)."""
    ih = {"method": "iterative_hessian", "count": 32, "rounds": 5}
    return [
        ("DP-TR Newton", {"split_method": "totally_random", "leaf_update": "newton"}),
        ("DP-TR Newton IH (s=5)", {"split_method": "totally_random", "leaf_update": "newton",
                                   "split_candidates": ih}),
        ("DP-TR Newton IH EBM (cyclical k=1)",
         {"split_method": "totally_random", "leaf_update": "newton", "split_candidates": ih,
          "feature_interaction": {"method": "cyclical", "k": 1}}),
        ("DP-TR batched (B=T/4)", {"split_method": "totally_random", "leaf_update": "newton",
                                   "batch_size": max(1, trees // 4)}),
        ("Hist Newton", {"split_method": "histogram", "leaf_update": "newton"}),
        ("PR Newton", {"split_method": "partially_random", "leaf_update": "newton"}),
        ("DP-RF (TR + averaging, B=T)", {"split_method": "totally_random",
                                        "leaf_update": "averaging", "batch_size": trees}),
    ]


def dataset_paths(name, data_dir):
    for csv_name, schema_name in ((f"{name}.csv", f"{name}.schema.json"),
                                  (f"{name}.csv", f"{name}.json")):
        c, s = os.path.join(data_dir, csv_name), os.path.join(data_dir, schema_name)
        if os.path.exists(c) and os.path.exists(s):
            return c, s
    raise SystemExit(f"dataset {name} not found in {data_dir}")


def run_driver(driver, data, schema, config, splits, seeds):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(config, f)
        path = f.name
    try:
        out = subprocess.run([driver, "--data", data, "--schema", schema, "--config", path,
                              "--splits", str(splits), "--seeds", str(seeds)],
                             check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(path)
    return json.loads(out)


def auc(scores, labels):
    """Mann-Whitney AUC with average ranks for ties."""
    order = sorted(range(len(scores)), key=lambda i: scores[i])
    ranks = [0.0] * len(scores)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    pos = sum(1 for y in labels if y == 1)
    neg = len(labels) - pos
    rank_sum = sum(r for r, y in zip(ranks, labels) if y == 1)
    return (rank_sum - pos * (pos + 1) / 2) / (pos * neg)


def run_xgboost(data, trees, splits, seeds):
    """Non-private ceiling: Debian's xgboost CLI, hist, same depth/eta/lambda, same splits."""
    if shutil.which("xgboost") is None:
        return None
    with open(data) as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    label_col = header.index("label")
    aucs = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(splits):
            order = list(range(len(body)))
            random.Random(1000 + r).shuffle(order)  # a split of the same size; not the driver's
            n_test = round(0.3 * len(order))
            test, train = order[:n_test], order[n_test:]
            for name, idx in (("train", train), ("test", test)):
                with open(os.path.join(tmp, f"{name}.csv"), "w", newline="") as f:
                    w = csv.writer(f)
                    for i in idx:
                        w.writerow(["nan" if v in ("", "NaN") else v for v in body[i]])
            labels = [float(body[i][label_col]) for i in test]
            for s in range(seeds):
                conf = os.path.join(tmp, "xgb.conf")
                with open(conf, "w") as f:
                    f.write("booster = gbtree\nobjective = binary:logistic\ntree_method = hist\n"
                            f"max_depth = 4\neta = 0.3\nlambda = 1\nnum_round = {trees}\n"
                            f"seed = {s}\nnthread = 1\n")
                src = f"?format=csv&label_column={label_col}"
                subprocess.run(["xgboost", conf, f"data={tmp}/train.csv{src}",
                                f"model_out={tmp}/m.model"], check=True, capture_output=True)
                subprocess.run(["xgboost", conf, "task=pred", f"test:data={tmp}/test.csv{src}",
                                f"model_in={tmp}/m.model", f"name_pred={tmp}/p.txt"],
                               check=True, capture_output=True)
                with open(f"{tmp}/p.txt") as f:
                    preds = [float(x) for x in f.read().split()]
                aucs.append(auc(preds, labels))
    return statistics.mean(aucs), statistics.stdev(aucs)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--driver", default=os.path.join(ROOT, "build", "bench", "trees_utility"))
    ap.add_argument("--data-dir", default=os.path.join(ROOT, "examples"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--datasets", default="spambase,credit_g")
    ap.add_argument("--trees", default="25,100,300")
    ap.add_argument("--epsilons", default="0.1,0.5,1")
    ap.add_argument("--methods", default="", help="comma-separated name prefixes to keep")
    ap.add_argument("--out", default="")
    args = ap.parse_args()

    if args.quick:
        grid = [("spambase", 300, "DP-TR Newton", eps) for eps in (1.0, 0.1)]
        xgb_grid = [("spambase", 300)]
    else:
        grid = []
        keep = [m for m in args.methods.split(",") if m]
        for ds in args.datasets.split(","):
            for t in (int(x) for x in args.trees.split(",")):
                for name, _ in methods(t):
                    if keep and not any(name.startswith(k) for k in keep):
                        continue
                    for eps in (float(x) for x in args.epsilons.split(",")):
                        grid.append((ds, t, name, eps))
        xgb_grid = [(ds, int(t)) for ds in args.datasets.split(",")
                    for t in args.trees.split(",")]

    lines = ["| dataset | method | T | ε | test AUC (mean ± std) | runs | σ | s/run |",
             "| --- | --- | ---: | ---: | --- | ---: | ---: | ---: |"]
    for ds, t, name, eps in grid:
        data, schema = dataset_paths(ds, args.data_dir)
        cfg = dict(COMMON)
        cfg.update(dict(methods(t))[name])
        cfg["n_estimators"] = t
        cfg["privacy"] = {"epsilon": eps}
        res = run_driver(args.driver, data, schema, cfg, args.splits, args.seeds)
        line = (f"| {ds} | {name} | {t} | {eps:g} | {res['auc_mean']:.4f} ± {res['auc_std']:.4f}"
                f" | {res['runs']} | {res['noise_multiplier']:.3g} |"
                f" {res['train_seconds_mean']:.3f} |")
        print(line, file=sys.stderr, flush=True)
        lines.append(line)
    for ds, t in xgb_grid:
        data, _ = dataset_paths(ds, args.data_dir)
        res = run_xgboost(data, t, args.splits, args.seeds)
        if res is None:
            lines.append(f"| {ds} | XGBoost (non-private, not installed) | {t} | ∞ | – | | | |")
            continue
        line = (f"| {ds} | XGBoost hist (non-private ceiling) | {t} | ∞ |"
                f" {res[0]:.4f} ± {res[1]:.4f} | {args.splits * args.seeds} | – | – |")
        print(line, file=sys.stderr, flush=True)
        lines.append(line)
    table = "\n".join(lines) + "\n"
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(table)


if __name__ == "__main__":
    main()
