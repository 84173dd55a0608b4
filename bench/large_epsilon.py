#!/usr/bin/env python3
"""The auto rule beyond the ε it was chosen at (docs/trees_auto_why.md § Larger ε): tables of
the runs of bench/auto_compare.py at ε = 0.02 and 2–8 (bench/auto_large_eps_runs.jsonl) beside its
runs at ε 0.1–1 (bench/auto_compare_runs.jsonl, bench/extra_runs.jsonl).

    python3 bench/auto_compare.py RDPKIT --methods auto,nonprivate --epsilons 0.02,2,4,8 \\
        --out bench/auto_large_eps_runs.jsonl        (and --datasets DIR for more sets)
    python3 bench/large_epsilon.py bench/auto_large_eps_runs.jsonl bench/auto_compare_runs.jsonl \\
        bench/extra_runs.jsonl > docs/trees_auto_large_eps.md

Methods read: auto (the rule of this checkout), auto-0b39a63 (the rule before its ε > 1 changes:
binary T·η = 45·ε^(1/3) at every ε, one feature per subsampled regression tree, binary sets from
10 000 rows subsampled at every ε), auto-features-all, auto-features-all-node, auto-unsampled and
auto-no-subsample (bench/auto_compare.py), nonprivate; the file's auto-etaX, auto-cyclical-kK
runs are quoted in docs/trees_auto.md's text only. bench/derived_binary_runs.jsonl adds three
binary sets of 20 000–51 000 rows (bench/derived_binary.py). Means over the splits both
methods of a comparison ran (the same splits and seeds); regression RMSE in label units.
"""
import json
import statistics
import sys
from collections import defaultdict

METRIC = {"binary": "auc", "regression": "rmse", "multiclass": "accuracy"}


def load(paths):
    runs = defaultdict(dict)  # (dataset, ε, method) -> {split: value}; a later record wins
    task_of = {}
    for path in paths:
        for line in open(path):
            r = json.loads(line)
            task_of[r["dataset"]] = r["task"]
            runs[(r["dataset"], r["epsilon"], r["method"])][r["split"]] = r[METRIC[r["task"]]]
    return runs, task_of


def values(runs, dataset, eps, method):
    return list(runs.get((dataset, eps, method), {}).values())


def epsilons_of(runs, dataset, method):
    return sorted({e for (d, e, m) in runs if (d, m) == (dataset, method)})


def paired(runs, dataset, eps, a, b):
    """Means of a and b over the splits both ran, and how many."""
    runs_a, runs_b = runs.get((dataset, eps, a), {}), runs.get((dataset, eps, b), {})
    splits = sorted(runs_a.keys() & runs_b.keys())
    if not splits:
        return None
    return (statistics.mean(runs_a[s] for s in splits),
            statistics.mean(runs_b[s] for s in splits), len(splits))


def fmt(v, task):
    return f"{v:.4g}" if task == "regression" else f"{v:.3f}"


def across_epsilon(runs, task_of):
    epsilons = sorted({e for (_, e, m) in runs if m == "auto"})
    out = ["The auto rule at every ε measured (mean over the splits; non-private: the greedy "
           "reference of bench/auto_compare.py, no noise).\n",
           "| dataset | metric | " + " | ".join(f"ε = {e:g}" for e in epsilons)
           + " | non-private |", "| --- | --- |" + " ---: |" * (len(epsilons) + 1)]
    for name in sorted(task_of, key=lambda n: (task_of[n], n)):
        task = task_of[name]
        cells = [values(runs, name, e, "auto") for e in epsilons]
        nonprivate = [v for e in epsilons for v in values(runs, name, e, "nonprivate")]
        out.append(f"| {name} | {METRIC[task]} | "
                   + " | ".join(fmt(statistics.mean(c), task) if c else "–" for c in cells)
                   + f" | {fmt(statistics.mean(nonprivate), task) if nonprivate else '–'} |")
    return out


def before_and_now(runs, task_of):
    out = ["\nThe rule before (0b39a63) and now from ε = 1, on the same splits; change: AUC or "
           "accuracy points, or % RMSE (negative is better).\n",
           "| dataset | ε | before | now | change | splits |", "| --- | --- | ---: | ---: | ---: | ---: |"]
    for name in sorted(task_of, key=lambda n: (task_of[n], n)):
        task = task_of[name]
        for eps in epsilons_of(runs, name, "auto-0b39a63"):
            p = paired(runs, name, eps, "auto-0b39a63", "auto")
            if p is None:
                continue
            before, now, n = p
            change = (f"{100 * (now / before - 1):+.1f} %" if task == "regression"
                      else f"{now - before:+.4f}")
            out.append(f"| {name} | {eps:g} | {fmt(before, task)} | {fmt(now, task)} | {change} "
                       f"| {n} |")
    return out


def feature_interaction(runs, task_of):
    """One feature per subsampled tree (the rule below ε = 1; auto-0b39a63 above) against all."""
    out = ["\nSubsampled trees over one feature (S-BDT's) or all features (`split_scope` all, "
           "and node), RMSE or AUC on the same splits; ratio or difference: all / one.\n",
           "| dataset | ε | one feature | all features | all, scope node | all vs one | splits |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for name in sorted(task_of, key=lambda n: (task_of[n], n)):
        task = task_of[name]
        for eps in epsilons_of(runs, name, "auto-features-all"):
            # The rule before grew one-feature trees at every ε; where it did not run, the rule
            # now does (regression below ε = 1, classification at every ε).
            one = baseline_of(runs, name, eps)
            p = paired(runs, name, eps, one, "auto-features-all")
            q = paired(runs, name, eps, one, "auto-features-all-node")
            if p is None:
                continue
            rel = (f"{p[1] / p[0]:.3f}" if task == "regression" else f"{p[1] - p[0]:+.4f}")
            node = fmt(q[1], task) if q else "–"
            out.append(f"| {name} | {eps:g} | {fmt(p[0], task)} | {fmt(p[1], task)} | {node} "
                       f"| {rel} | {p[2]} |")
    return out


def baseline_of(runs, name, eps):
    """The rule before where it ran (it differs from the rule now there), else the rule now."""
    return "auto-0b39a63" if (name, eps, "auto-0b39a63") in runs else "auto"


def versus(runs, task_of, method, intro, columns, before=True):
    """method against the rule (of 0b39a63 where it ran and `before`) on the same splits."""
    out = [intro, f"| dataset | ε | {columns[0]} | {columns[1]} | change | splits |",
           "| --- | --- | ---: | ---: | ---: | ---: |"]
    for name in sorted(task_of, key=lambda n: (task_of[n], n)):
        task = task_of[name]
        for eps in epsilons_of(runs, name, method):
            base = baseline_of(runs, name, eps) if before else "auto"
            p = paired(runs, name, eps, base, method)
            if p is None:
                continue
            change = (f"{100 * (p[1] / p[0] - 1):+.1f} %" if task == "regression"
                      else f"{p[1] - p[0]:+.4f}")
            out.append(f"| {name} | {eps:g} | {fmt(p[0], task)} | {fmt(p[1], task)} | {change} "
                       f"| {p[2]} |")
    return out


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    runs, task_of = load(sys.argv[1:])
    head = ["# The auto rule beyond ε = 1: the tables\n",
            "Written by `python3 bench/large_epsilon.py " + " ".join(
                "bench/" + p.split("/")[-1] for p in sys.argv[1:])
            + " > docs/trees_auto_large_eps.md` (protocol: bench/auto_compare.py; why: "
            "docs/trees_auto_why.md § Larger ε). Do not edit by hand.\n"]
    print("\n".join(head + across_epsilon(runs, task_of) + before_and_now(runs, task_of)
                    + feature_interaction(runs, task_of)
                    + versus(runs, task_of, "auto-unsampled",
                             "\nBinary sets of 10 000 rows or more: the subsampled branch (Poisson 0.1, "
                             "S-BDT's trees; the rule of 0b39a63 at every ε) against the unsampled "
                             "one (the rule's settings below 10 000 rows), on the same splits.\n",
                             ("subsampled", "unsampled"))
                    + versus(runs, task_of, "auto-no-subsample",
                             "\nRegression: the rule's subsampled settings on every row "
                             "(`subsample` 1) against the rule, on the same splits.\n",
                             ("subsampled", "every row"), before=False)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
