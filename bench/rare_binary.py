#!/usr/bin/env python3
"""Binary data sets whose positive class is rare (1-2 %), derived from real sets (issue 14). The
binary sets the auto rule was chosen and checked on have at least 5 % positives (lending_club
5.2 %, ticdata 6.0 %); fraud, rare diagnoses and defaults are rarer. Two kinds:

  a fixed public threshold on a regression label (a naturally rare outcome):
    diamonds_17000      price ≥ 17 000 dollars (53 940 rows, 1.3 % positive)
    cps1988_2000        weekly wage ≥ 2 000 dollars (28 155 rows, 1.3 %)
  a binary set with its positives thinned at random (fixed seed; every negative kept):
    mplsstops_2pct      searched stops thinned to 2 % of the rows (about 39 200 rows)
    lending_club_1pct   bad loans thinned to 1 % (about 9 430 rows; R batch 2, bench/r_sets.py)
    smokeban_2pct       smokers thinned to 2 % (about 7 730 rows; R batch 1)

    python3 bench/r_sets.py R_DIR --sets lending_club,smokeban
    python3 bench/rare_binary.py --datasets ../shared/datasets,R_DIR --out DIR
    python3 bench/auto_compare.py RDPKIT --datasets DIR --sets diamonds_17000,… \\
        --methods auto,nonprivate,… --out bench/rare_binary_runs.jsonl

Writes DIR/NAME.csv (the features as they are, label 0/1 last) and DIR/NAME.json (the source's
sidecar with task binary and the rule that made the label). The feature bounds stay the source's
public ones.
"""
import argparse
import os
import random
import sys

from derived_binary import read_labelled_set, threshold_labels, write_binary_set
from parity import HERE, find_set

THRESHOLDS = {  # name: (regression source, threshold on its label)
    "diamonds_17000": ("diamonds", 17000),
    "cps1988_2000": ("cps1988", 2000),
}
THINNED = {  # name: (binary source, share of positives among the rows written)
    "mplsstops_2pct": ("mplsstops", 0.02),
    "lending_club_1pct": ("lending_club", 0.01),
    "smokeban_2pct": ("smokeban", 0.02),
}
SEED = 20261127


def relabel(body, name):
    """The rows with the label this set's rule gives, and the rule in words."""
    if name in THRESHOLDS:
        return threshold_labels(body, *THRESHOLDS[name])
    source, share = THINNED[name]
    positives = [r for r in body if r[-1] == "1"]
    negatives = [r for r in body if r[-1] == "0"]
    if len(positives) + len(negatives) != len(body):
        raise SystemExit(f"{source}.csv: labels other than 0 and 1")
    # k positives make a share k / (k + negatives): k = share·negatives / (1 − share).
    keep = round(share * len(negatives) / (1 - share))
    chosen = set(random.Random(SEED).sample(range(len(positives)), keep))
    return _thin(body, chosen), (f"{source} with its positives thinned at random (seed {SEED}) to "
                  f"{keep} of {len(positives)}, {share:.0%} of the rows; every negative kept")


def _thin(body, chosen):
    """Every negative row, and the positive rows whose rank among the positives is chosen."""
    rows, seen = [], 0
    for r in body:
        if r[-1] == "1":
            if seen in chosen:
                rows.append(r)
            seen += 1
        else:
            rows.append(r)
    return rows


def derive(folders, out, name):
    source = THRESHOLDS[name][0] if name in THRESHOLDS else THINNED[name][0]
    sidecar, header, body = read_labelled_set(find_set(source, folders), source)
    rows, rule = relabel(body, name)
    sidecar["rows"] = len(rows)
    return write_binary_set(out, name, header, rows, sidecar, rule,
                            drop=("csv_sha256", "bytes", "generated_by", "positive_rate",
                                  "label_counts"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", default=os.path.join(HERE, "..", "..", "shared", "datasets"),
                    help="comma-separated folders holding the source sets")
    ap.add_argument("--out", required=True)
    ap.add_argument("--sets", default=",".join([*THRESHOLDS, *THINNED]))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    folders = args.datasets.split(",")
    for name in args.sets.split(","):
        n, positives = derive(folders, args.out, name)
        print(f"{name}: {n} rows, {positives} positive ({positives / n:.4f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
