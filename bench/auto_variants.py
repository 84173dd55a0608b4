#!/usr/bin/env python3
"""Variants of the auto rule against the rule itself, per data set and ε (binary sets, test AUC):
each variant's mean over the splits minus auto's, then per variant the mean difference over the
cells both have, in how many cells it is higher, and the largest loss and gain.

    python3 bench/auto_variants.py VARIANT_RUNS [--base RUNS ...] [--epsilons 0.1,0.5,1]

VARIANT_RUNS: records of `bench/auto_compare.py RDPKIT --methods auto-…` (any method but auto);
the base runs (auto) default to the recorded tables' runs: bench/auto_compare_runs.jsonl,
bench/derived_binary_runs.jsonl and bench/extra_runs.jsonl. A cell counts only when both have
runs for the same splits.
"""
import argparse
import collections
import json
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = [os.path.join(HERE, name) for name in
        ("auto_compare_runs.jsonl", "derived_binary_runs.jsonl", "extra_runs.jsonl")]


def read(paths, epsilons):
    """{(dataset, ε, method): {split: auc}} of the binary runs at the given ε."""
    runs = collections.defaultdict(dict)
    for path in paths:
        with open(path) as f:
            for line in f:
                r = json.loads(line)
                if r.get("task") == "binary" and r["epsilon"] in epsilons:
                    runs[(r["dataset"], r["epsilon"], r["method"])][r["split"]] = r["auc"]
    return runs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variants")
    parser.add_argument("--base", nargs="+", default=BASE)
    parser.add_argument("--epsilons", default="0.1,0.5,1")
    args = parser.parse_args()
    epsilons = {float(e) for e in args.epsilons.split(",")}
    base = read(args.base, epsilons)
    variants = read([args.variants], epsilons)
    methods = sorted({m for (_, _, m) in variants if m != "auto"})
    cells = sorted({(d, e) for (d, e, m) in variants if m in methods})
    print("| dataset | ε | auto | " + " | ".join(methods) + " |")
    print("| --- | --- | ---: |" + " ---: |" * len(methods))
    diffs = collections.defaultdict(list)
    for name, eps in cells:
        auto = base.get((name, eps, "auto"), {})
        row = []
        for m in methods:
            runs = variants.get((name, eps, m), {})
            splits = sorted(set(runs) & set(auto))
            if not splits:
                row.append("–")
                continue
            d = statistics.mean(runs[s] - auto[s] for s in splits)
            diffs[m].append(d)
            row.append(f"{d:+.4f}")
        mean = f"{statistics.mean(auto.values()):.4f}" if auto else "–"
        print(f"| {name} | {eps:g} | {mean} | " + " | ".join(row) + " |")
    print("\n| variant | cells | mean difference | higher in | largest loss | largest gain |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for m in methods:
        d = diffs[m]
        if d:
            print(f"| {m} | {len(d)} | {statistics.mean(d):+.4f} | {sum(x > 0 for x in d)} | "
                  f"{min(d):+.4f} | {max(d):+.4f} |")


if __name__ == "__main__":
    main()
