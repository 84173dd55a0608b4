#!/usr/bin/env python3
"""Data sets for measuring the auto rule's identifier settings (docs/trees_auto_features.md § Wide
categorical features) at fewer rows than insteval's: written as CSV + sidecar beside the sets
they come from.

    python3 bench/identifier_cuts.py OUT_DIR --shared DIR --derived DIR --r-sets DIR
    python3 bench/auto_compare.py RDPKIT --datasets OUT_DIR --methods auto --sets … --out runs.jsonl
    python3 bench/identifier_cuts.py --summarize runs.jsonl [more.jsonl …]

  insteval, insteval4       the whole sets (with the variants below)
  insteval_M, insteval4_M   the first M rows (M = 7000, 14000, 28000) of insteval and insteval_4
                            (bench/derived_binary.py) after a shuffle with Random(7)
  psid7682b                 psid7682 (bench/r_sets.py) with the binary label wage ≥ 1000 (29 %)
  X_idnum                   X with its identifiers (more than 256 codes) declared numeric, so the
                            rule treats them as any feature (32 uniform candidates, no deep trees)
  X_noid                    X without its identifiers (psid7682 and psid7682b)
"""
import argparse
import collections
import copy
import json
import os
import random
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from auto_compare import metric_of  # noqa: E402
from parity import read_set, write_set  # noqa: E402

CUTS = (7000, 14000, 28000)
WIDE = 256  # the rule's kWideCategoricalCodes


def identifiers(sidecar):
    return [f["name"] for f in sidecar["features"]
            if f.get("categorical") and f.get("n_codes", 0) > WIDE]


def numeric_identifiers(sidecar):
    names = identifiers(sidecar)
    sidecar = copy.deepcopy(sidecar)
    for f in sidecar["features"]:
        if f["name"] in names:
            f["categorical"] = False
            f.pop("n_codes", None)
            f.pop("codes", None)
    return sidecar


def without_identifiers(sidecar, header, rows):
    names = identifiers(sidecar)
    keep = [i for i, c in enumerate(header) if c not in names]
    sidecar = copy.deepcopy(sidecar)
    sidecar["features"] = [f for f in sidecar["features"] if f["name"] not in names]
    sidecar["n_features"] = len(sidecar["features"])
    return sidecar, [header[i] for i in keep], [[r[i] for i in keep] for r in rows]


def write_variants(out, name, sidecar, header, rows, noid):
    write_set(out, name, sidecar, header, rows)
    write_set(out, f"{name}_idnum", numeric_identifiers(sidecar), header, rows)
    if noid:
        write_set(out, f"{name}_noid", *without_identifiers(sidecar, header, rows))


def summarize(paths):
    """Per set and ε: the test metric's mean over the splits of each method on the set as it is,
    and of auto on its _idnum and _noid variants."""
    means = collections.defaultdict(list)
    for path in paths:
        with open(path) as f:
            for line in f:
                r = json.loads(line)
                value = r[metric_of(r["task"])]
                means[(r["dataset"], r["epsilon"], r["method"])].append(value)
    bases = sorted({d for d, _, _ in means if not d.endswith(("_idnum", "_noid"))})
    methods = sorted({m for _, _, m in means})
    columns = [(m, "") for m in methods] + [("auto", "_idnum"), ("auto", "_noid")]
    print("| set | ε | " + " | ".join(m + (f" on {v}" if v else "") for m, v in columns) + " |")
    print("| --- | --- |" + " ---: |" * len(columns))
    for base in bases:
        for eps in sorted({e for d, e, _ in means if d == base}):
            cells = []
            for method, variant in columns:
                values = means.get((base + variant, eps, method))
                cells.append(f"{statistics.mean(values):.4g} ({len(values)})" if values else "–")
            print(f"| {base} | {eps:g} | " + " | ".join(cells) + " |")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--summarize":
        summarize(sys.argv[2:])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--shared", required=True, help="../shared/datasets (insteval)")
    ap.add_argument("--derived", required=True, help="bench/derived_binary.py's output")
    ap.add_argument("--r-sets", required=True, help="bench/r_sets.py's output (psid7682)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for folder, source, prefix in ((args.shared, "insteval", "insteval"),
                                   (args.derived, "insteval_4", "insteval4")):
        sidecar, header, rows = read_set(folder, source)
        write_variants(args.out, prefix, sidecar, header, rows, False)  # the splits of the set
        random.Random(7).shuffle(rows)
        for m in CUTS:
            write_variants(args.out, f"{prefix}_{m}", sidecar, header, rows[:m], False)
    sidecar, header, rows = read_set(args.r_sets, "psid7682")
    write_variants(args.out, "psid7682", sidecar, header, rows, True)
    binary = copy.deepcopy(sidecar)
    binary.update({"task": "binary", "label_rule": "label = wage >= 1000"})
    binary.pop("label_stats", None)
    labels = [r[:-1] + ["1" if float(r[-1]) >= 1000 else "0"] for r in rows]
    write_variants(args.out, "psid7682b", binary, header, labels, True)
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
