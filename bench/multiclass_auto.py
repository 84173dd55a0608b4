#!/usr/bin/env python3
"""The auto rule on multiclass data of 10 000 rows or more (issue 14; docs/trees_auto.md): the
subsampled branch's candidates on diamonds_cut (diamonds with label = `cut`, 5 classes, 37 758
training rows; built as bench/multiclass_utility.py builds it), with the protocol of
bench/auto_compare.py (5 stratified 70/30 splits, δ = 1/n_train, seed = split + 1). Test accuracy,
macro one-vs-rest AUC and log loss from `rdpkit evaluate`.

    python3 bench/multiclass_auto.py RDPKIT [--datasets DIR] [--splits 5] [--configs a,b]
        [--out bench/multiclass_auto_runs.jsonl]
    python3 bench/multiclass_auto.py --summarize bench/multiclass_auto_runs.jsonl

Every candidate but "auto" is written in full over "defaults": "static", so it does not move when
the rule changes; "auto" is the rule of the binary run.
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

from auto_compare import prepare_split, run_rdpkit_full
from multiclass_utility import load, write_csv
from parity import HERE, recorded_keys

K = 5  # diamonds_cut's classes
SBDT = {"subsample": 0.1, "leaf_noise_weights": [0.2, 0.8], "max_depth": 6, "reg_lambda": 15,
        "feature_interaction": {"method": "cyclical", "k": 1}, "split_scope": "all",
        "gradient_clip": 0.5, "hessian_clip": 0.25}
SOFTPROB_NORM = ((K - 1) / K) ** 0.5  # ‖1/K − e_y‖, the first round's gradient norm
CONFIGS = {
    "auto": {},
    "S-BDT+floor T300 η0.1 g*0.5": {**SBDT, "n_estimators": 300, "learning_rate": 0.1},
    "S-BDT+floor T300 η0.1 g*√((K−1)/K)": {**SBDT, "n_estimators": 300, "learning_rate": 0.1,
                                          "gradient_clip": SOFTPROB_NORM},
    "unsampled T300 η0.1 g*√((K−1)/K)": {"n_estimators": 300, "learning_rate": 0.1,
                                        "gradient_clip": SOFTPROB_NORM},
    "S-BDT+floor T1000 η0.03 g*0.5": {**SBDT, "n_estimators": 1000, "learning_rate": 0.03},
    "S-BDT+floor T1000 η0.06 g*0.5": {**SBDT, "n_estimators": 1000, "learning_rate": 0.06},
    "S-BDT+floor T300 η0.1 g*0.5 d4": {**SBDT, "n_estimators": 300, "learning_rate": 0.1,
                                       "max_depth": 4},
    # Trees over all features (the regression rule from ε = 1, docs/trees_auto_why.md
    # § Larger ε).
    "S-BDT+floor T300 η0.1 g*√((K−1)/K) all-features": {
        **SBDT, "n_estimators": 300, "learning_rate": 0.1, "gradient_clip": SOFTPROB_NORM,
        "feature_interaction": {"method": "all"}},
}
EPSILONS = (0.1, 0.5, 1.0)


def summarize(path):
    runs = defaultdict(list)
    order = []
    for line in open(path):
        r = json.loads(line)
        runs[(r["config"], r["epsilon"])].append(r)
        if r["config"] not in order:
            order.append(r["config"])
    print("| candidate | " + " | ".join(f"ε = {e:g}" for e in EPSILONS) + " |")
    print("| --- |" + " --- |" * len(EPSILONS))
    for c in order:
        cells = []
        for e in EPSILONS:
            rs = runs.get((c, e), [])
            if not rs:
                cells.append("–")
                continue
            acc = [r["accuracy"] for r in rs]
            sd = f" ± {statistics.stdev(acc):.3f}" if len(acc) > 1 else ""
            n = "" if len(acc) == 5 else f" ({len(acc)})"
            cells.append(f"{statistics.mean(acc):.3f}{sd} / "
                         f"{statistics.mean(r['macro_auc'] for r in rs):.3f}{n}")
        print(f"| {c} | " + " | ".join(cells) + " |")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--summarize":
        summarize(sys.argv[2])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rdpkit")
    ap.add_argument("--datasets", default=os.path.join(HERE, "..", "..", "shared", "datasets"))
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--out", default="multiclass_auto_runs.jsonl")
    args = ap.parse_args()
    scratch = tempfile.mkdtemp(prefix="rdpkit_multiclass_auto_")
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)  # nothing left in /tmp
    header, rows, schema = load(args.datasets, "diamonds_cut")
    schema["name"] = "diamonds_cut"
    write_csv(os.path.join(scratch, "diamonds_cut.csv"), header, rows)
    with open(os.path.join(scratch, "diamonds_cut.json"), "w") as f:
        json.dump(schema, f)
    done = recorded_keys(args.out, ("config", "epsilon", "split"))
    for split in range(args.splits):
        _, schema_path, _, train, test, n_train = prepare_split(scratch, "diamonds_cut", split,
                                                                scratch)
        for eps in EPSILONS:
            for c in args.configs.split(","):
                if (c, eps, split) in done:
                    continue
                config = {**({} if c == "auto" else {"defaults": "static"}), **CONFIGS[c],
                          "seed": split + 1,
                          "privacy": {"epsilon": eps, "delta": 1.0 / n_train,
                                      "allow_large_delta": True}}
                res = run_rdpkit_full(args.rdpkit, config, train, test, schema_path, scratch)
                rec = {"dataset": "diamonds_cut", "config": c, "epsilon": eps, "split": split,
                       "n_train": n_train,
                       **{k: res[k] for k in ("accuracy", "macro_auc", "log_loss", "seconds")
                          if k in res}}
                with open(args.out, "a") as f:
                    f.write(json.dumps(rec, ensure_ascii=False) + "\n")
                print(json.dumps(rec, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
