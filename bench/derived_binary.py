#!/usr/bin/env python3
"""Binary data sets of 10 000 rows or more, derived from the shared regression sets (issue 14;
docs/trees_auto_why.md § Larger binary sets). Only mplsstops among the shared binary sets is that
large, so the auto rule's subsampled binary branch was chosen on one set; these three check it on
more real data. Each label is a fixed public threshold on the regression label:

  diamonds_5000   price ≥ 5000 dollars (53 940 rows, 9 features)
  cps1988_500     weekly wage ≥ 500 dollars (28 155 rows, 6 features)
  insteval_4      lecture rating ≥ 4 (73 421 rows, 6 features)

    python3 bench/derived_binary.py [--datasets ../shared/datasets] --out DIR
    python3 bench/auto_compare.py RDPKIT --datasets DIR --sets diamonds_5000,cps1988_500,insteval_4 \\
        --methods auto,… --out bench/derived_binary_runs.jsonl

Writes DIR/NAME.csv (the features as they are, label 0/1 last) and DIR/NAME.json (the source's
sidecar with task binary and the label rule).
"""
import argparse
import json
import os
import sys

from multiclass_utility import write_csv
from parity import HERE, read_set

DERIVED = {  # name: (source set, threshold on its label)
    "diamonds_5000": ("diamonds", 5000),
    "cps1988_500": ("cps1988", 500),
    "insteval_4": ("insteval", 4),
}


def write_binary_set(out, name, header, rows, sidecar, rule,
                     drop=("csv_sha256", "bytes", "generated_by")):
    """Writes out/NAME.csv and out/NAME.json: the source's sidecar with task binary, the label's
    rule and statistics, without the keys in `drop` (they described the source's file). Returns
    the row and positive counts."""
    write_csv(os.path.join(out, f"{name}.csv"), header, rows)
    positives = sum(r[-1] == "1" for r in rows)
    sidecar.update({"name": name, "file": f"{name}.csv", "task": "binary", "label_rule": rule,
                    "label_stats": {"min": 0, "max": 1, "mean": round(positives / len(rows), 6)}})
    for key in drop:
        sidecar.pop(key, None)
    with open(os.path.join(out, f"{name}.json"), "w") as f:
        json.dump(sidecar, f, indent=1)
    return len(rows), positives


def read_labelled_set(folder, source):
    """SOURCE.csv + sidecar (parity.read_set) whose last column is its label."""
    sidecar, header, body = read_set(folder, source)
    if header[-1] != "label":
        raise SystemExit(f"{source}.csv: the last column is {header[-1]!r}, not label")
    return sidecar, header, body


def threshold_labels(body, source, threshold):
    """The rows labelled 1 where the source's label is ≥ threshold, else 0, and the rule."""
    return ([r[:-1] + ["1" if float(r[-1]) >= threshold else "0"] for r in body],
            f"label = {source} label ≥ {threshold:g}")


def derive(datasets, out, name):
    source, threshold = DERIVED[name]
    sidecar, header, body = read_labelled_set(datasets, source)
    rows, rule = threshold_labels(body, source, threshold)
    return write_binary_set(out, name, header, rows, sidecar, rule)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", default=os.path.join(HERE, "..", "..", "shared", "datasets"))
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name in DERIVED:
        n, positives = derive(args.datasets, args.out, name)
        print(f"{name}: {n} rows, {positives / n:.3f} positive")
    return 0


if __name__ == "__main__":
    sys.exit(main())
