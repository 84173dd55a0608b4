#!/usr/bin/env python3
"""Variants of the auto rule against the rule itself, per data set and ε: each variant's mean over
the splits minus auto's (binary sets: test AUC; multiclass: test accuracy; regression sets: test
RMSE, in % of auto's), then per variant and task the mean difference over the cells both have, in
how many cells it is better, and its worst and best cell.

    python3 bench/auto_variants.py VARIANT_RUNS [--base RUNS ...] [--against auto]
        [--epsilons 0.1,0.5,1]

VARIANT_RUNS: records of `bench/auto_compare.py RDPKIT --methods auto-…` (any method but the
base); the base runs (method --against, default auto) default to the recorded tables' runs:
bench/auto_compare_runs.jsonl, bench/derived_binary_runs.jsonl and bench/extra_runs.jsonl. A cell
counts only when both have runs for the same splits.
"""
import argparse
import collections
import json
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = [os.path.join(HERE, name) for name in
        ("auto_compare_runs.jsonl", "derived_binary_runs.jsonl", "extra_runs.jsonl")]
METRIC = {"binary": "auc", "multiclass": "accuracy", "regression": "rmse"}


def read(paths, epsilons):
    """{(dataset, ε, method): {split: (task, auc, accuracy or rmse)}} of the runs at the given
    ε."""
    runs = collections.defaultdict(dict)
    for path in paths:
        with open(path) as f:
            for line in f:
                r = json.loads(line)
                if r.get("task") in METRIC and r["epsilon"] in epsilons:
                    value = r[METRIC[r["task"]]]
                    runs[(r["dataset"], r["epsilon"], r["method"])][r["split"]] = (r["task"], value)
    return runs


def difference(runs, auto, splits):
    """(task, the variant's mean minus auto's: AUC or accuracy, or RMSE in % of auto's)."""
    task = auto[splits[0]][0]
    mine = statistics.mean(runs[s][1] for s in splits)
    theirs = statistics.mean(auto[s][1] for s in splits)
    return task, (100 * (mine / theirs - 1) if task == "regression" else mine - theirs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variants")
    parser.add_argument("--base", nargs="+", default=BASE)
    parser.add_argument("--against", default="auto")
    parser.add_argument("--epsilons", default="0.1,0.5,1")
    args = parser.parse_args()
    epsilons = {float(e) for e in args.epsilons.split(",")}
    base = read(args.base, epsilons)
    variants = read([args.variants], epsilons)
    methods = sorted({m for (_, _, m) in variants if m != args.against})
    cells = sorted({(d, e) for (d, e, m) in variants if m in methods})
    print(f"| dataset | ε | {args.against} | " + " | ".join(methods) + " |")
    print("| --- | --- | ---: |" + " ---: |" * len(methods))
    diffs = collections.defaultdict(list)
    for name, eps in cells:
        auto = base.get((name, eps, args.against), {})
        row = []
        for m in methods:
            runs = variants.get((name, eps, m), {})
            splits = sorted(set(runs) & set(auto))
            if not splits:
                row.append("–")
                continue
            task, d = difference(runs, auto, splits)
            diffs[(m, task)].append(d)
            row.append(f"{d:+.2f} %" if task == "regression" else f"{d:+.4f}")
        mean = f"{statistics.mean(v for _, v in auto.values()):.4g}" if auto else "–"
        print(f"| {name} | {eps:g} | {mean} | " + " | ".join(row) + " |")
    print("\n| variant | task | cells | mean difference | better in | worst | best |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for (m, task), d in sorted(diffs.items()):
        sign = -1 if task == "regression" else 1  # higher AUC or accuracy, lower RMSE is better
        form = "{:+.2f} %" if task == "regression" else "{:+.4f}"
        worst, best = min(d, key=lambda x: sign * x), max(d, key=lambda x: sign * x)
        print(f"| {m} | {task} | {len(d)} | {form.format(statistics.mean(d))} | "
              f"{sum(sign * x > 0 for x in d)} | {form.format(worst)} | {form.format(best)} |")


if __name__ == "__main__":
    main()
