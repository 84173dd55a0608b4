#!/usr/bin/env python3
"""Utility of private multiclass training (issue 16, point 4): multi:softprob against multi:ovr at
equal epsilon, with Debian's non-private XGBoost multi:softprob (`xgboost` CLI, tree_method=hist,
same rounds/depth/eta/lambda) as the ceiling. 5 random 70/30 splits per data set, epsilon in
{0.1, 0.5, 1}, delta = the trainer's default (a power of ten below 1/n); mean ± std of test
accuracy, multi-class log loss and macro one-vs-rest AUC, from `rdpkit evaluate`.

    bench/multiclass_utility.py --rdpkit build/tools/rdpkit --data-dir DATASETS [--out table.md]

Data sets: satellite_multiclass (6 classes, as shipped) and diamonds_cut, built here from
diamonds: label = the categorical feature `cut` (5 classes, its codes' names as class names),
features the other columns (price, the regression label, is dropped).
"""
import argparse
import csv
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile

ROUNDS = 50
COMMON = {"n_estimators": ROUNDS, "max_depth": 4, "learning_rate": 0.3, "reg_lambda": 1,
          "max_leaf_value": 2, "split_method": "totally_random", "leaf_update": "newton",
          "split_candidates": {"method": "uniform", "count": 32}}
EPSILONS = [0.1, 0.5, 1.0]
SPLITS = 5


def load(data_dir, name):
    """(header, rows, schema) of a data set; label column last."""
    if name == "satellite_multiclass":
        with open(os.path.join(data_dir, "satellite_multiclass.csv")) as f:
            rows = list(csv.reader(f))
        with open(os.path.join(data_dir, "satellite_multiclass.json")) as f:
            schema = json.load(f)
        return rows[0], rows[1:], schema
    if name == "diamonds_cut":
        with open(os.path.join(data_dir, "diamonds.csv")) as f:
            rows = list(csv.reader(f))
        with open(os.path.join(data_dir, "diamonds.json")) as f:
            source = json.load(f)
        header = rows[0]
        cut = header.index("cut")
        keep = [i for i, h in enumerate(header) if h not in ("cut", "label")]
        features = [f for f in source["features"] if f["name"] != "cut"]
        cut_spec = next(f for f in source["features"] if f["name"] == "cut")
        schema = {"task": "multiclass", "n_classes": cut_spec["n_codes"],
                  "classes": cut_spec["codes"], "features": features}
        body = [[r[i] for i in keep] + [r[cut]] for r in rows[1:]]
        return [header[i] for i in keep] + ["label"], body, schema
    raise SystemExit(f"unknown data set {name}")


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        if header:
            w.writerow(header)
        w.writerows(rows)


def metrics(probabilities, labels, k):
    """accuracy, log loss, macro one-vs-rest AUC (as rdpkit evaluate computes them)."""
    n = len(labels)
    correct = sum(1 for p, y in zip(probabilities, labels) if max(range(k), key=lambda c: (p[c], -c)) == y)
    loss = -sum(math.log(min(max(p[y], 1e-15), 1.0)) for p, y in zip(probabilities, labels)) / n
    aucs = []
    for c in range(k):
        pos = [p[c] for p, y in zip(probabilities, labels) if y == c]
        neg = [p[c] for p, y in zip(probabilities, labels) if y != c]
        if not pos or not neg:
            continue
        scored = sorted([(s, 1) for s in pos] + [(s, 0) for s in neg])
        rank_sum, i = 0.0, 0
        while i < len(scored):
            j = i
            while j < len(scored) and scored[j][0] == scored[i][0]:
                j += 1
            rank_sum += sum(t for _, t in scored[i:j]) * (i + 1 + j) / 2
            i = j
        aucs.append((rank_sum - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))
    return correct / n, loss, sum(aucs) / len(aucs)


def run_rdpkit(rdpkit, tmp, schema_path, objective, epsilon, seed):
    config = dict(COMMON, objective=objective, seed=seed, privacy={"epsilon": epsilon})
    model = os.path.join(tmp, "model.json")
    subprocess.run([rdpkit, "train", "--data", os.path.join(tmp, "train.csv"), "--schema",
                    schema_path, "--config", json.dumps(config), "--out", model],
                   check=True, capture_output=True)
    out = subprocess.run([rdpkit, "evaluate", "--model", model, "--data",
                          os.path.join(tmp, "test.csv")], check=True, capture_output=True,
                         text=True).stdout
    m = json.loads(out)
    return m["accuracy"], m["log_loss"], m["macro_auc"]


def run_xgboost(tmp, k, n_features, labels, seed):
    conf = os.path.join(tmp, "xgb.conf")
    with open(conf, "w") as f:
        f.write(f"booster = gbtree\nobjective = multi:softprob\nnum_class = {k}\n"
                f"tree_method = hist\nmax_depth = 4\neta = 0.3\nlambda = 1\n"
                f"num_round = {ROUNDS}\nseed = {seed}\nnthread = 1\n")
    src = f"?format=csv&label_column={n_features}"
    subprocess.run(["xgboost", conf, f"data={tmp}/xtrain.csv{src}", f"model_out={tmp}/x.model"],
                   check=True, capture_output=True)
    subprocess.run(["xgboost", conf, "task=pred", f"test:data={tmp}/xtest.csv{src}",
                    f"model_in={tmp}/x.model", f"name_pred={tmp}/p.txt"],
                   check=True, capture_output=True)
    with open(f"{tmp}/p.txt") as f:
        values = [float(x) for x in f.read().split()]
    probabilities = [values[i * k:(i + 1) * k] for i in range(len(labels))]
    return metrics(probabilities, labels, k)


def summary(values):
    return statistics.mean(values), (statistics.stdev(values) if len(values) > 1 else 0.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rdpkit", required=True)
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--datasets", default="satellite_multiclass,diamonds_cut")
    ap.add_argument("--out")
    args = ap.parse_args()
    have_xgboost = shutil.which("xgboost") is not None
    lines = [f"T = {ROUNDS} rounds, depth 4, η = 0.3, λ = 1, totally random splits, Newton leaves, "
             f"{SPLITS} random 70/30 splits; mean ± std over the splits.", "",
             "| data set | K | method | ε | accuracy | log loss | macro AUC |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for name in args.datasets.split(","):
        header, body, schema = load(args.data_dir, name)
        k = schema["n_classes"]
        results = {}
        with tempfile.TemporaryDirectory() as tmp:
            schema_path = os.path.join(tmp, "schema.json")
            with open(schema_path, "w") as f:
                json.dump(schema, f)
            for split in range(SPLITS):
                order = list(range(len(body)))
                random.Random(2000 + split).shuffle(order)
                n_test = round(0.3 * len(order))
                test = [body[i] for i in order[:n_test]]
                train = [body[i] for i in order[n_test:]]
                write_csv(os.path.join(tmp, "train.csv"), header, train)
                write_csv(os.path.join(tmp, "test.csv"), header, test)
                for objective in ("multi:softprob", "multi:ovr"):
                    for eps in EPSILONS:
                        r = run_rdpkit(args.rdpkit, tmp, schema_path, objective, eps, split + 1)
                        results.setdefault((objective, eps), []).append(r)
                if have_xgboost:
                    write_csv(os.path.join(tmp, "xtrain.csv"), None, train)
                    write_csv(os.path.join(tmp, "xtest.csv"), None, test)
                    labels = [int(r[-1]) for r in test]
                    results.setdefault(("XGBoost multi:softprob (non-private)", None), []).append(
                        run_xgboost(tmp, k, len(header) - 1, labels, split))
                print(f"{name}: split {split + 1}/{SPLITS} done", file=sys.stderr)
        for (method, eps), runs in results.items():
            cols = [summary([r[i] for r in runs]) for i in range(3)]
            cells = " | ".join(f"{m:.3f} ± {s:.3f}" for m, s in cols)
            lines.append(f"| {name} | {k} | {method} | {'∞' if eps is None else eps} | {cells} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
