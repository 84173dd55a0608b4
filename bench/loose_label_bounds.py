#!/usr/bin/env python3
"""Regression sets with public label bounds looser than the data's range (docs/trees_training.md,
"Adapted gradient clip"): a user who cannot defend the data's own range gives a wider one, so the
labels sit near its lower end. Each set keeps its rows; its sidecar's label range [lo, hi]
becomes [lo, lo + FACTOR·(hi − lo)] and its name gets the suffix _loose.

    python3 bench/loose_label_bounds.py --out DIR [--factor 10] [--datasets DIR ...]
    python3 bench/auto_compare.py RDPKIT --datasets DIR --methods auto \\
        --sets cps1988_loose,diamonds_loose,… --out bench/loose_bounds_runs.jsonl

--datasets: the directories holding the regression sets (default: ../shared/datasets; add
bench/extra_sets.py's output for the statsmodels ones). Writes DIR/NAME_loose.csv (a copy of the
rows) and DIR/NAME_loose.json.
"""
import argparse
import json
import os
import shutil
import sys

from parity import HERE


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--factor", type=float, default=10.0)
    parser.add_argument("--datasets", nargs="*",
                        default=[os.path.join(HERE, "..", "..", "shared", "datasets")])
    args = parser.parse_args()
    if not args.factor >= 1:
        sys.exit(f"--factor = {args.factor}: must be ≥ 1 (bounds at least as wide as the data's)")
    os.makedirs(args.out, exist_ok=True)
    for directory in args.datasets:
        for entry in sorted(os.listdir(directory)):
            if not entry.endswith(".json"):
                continue
            with open(os.path.join(directory, entry)) as f:
                sidecar = json.load(f)
            if sidecar.get("task") != "regression":
                continue
            name = f"{sidecar['name']}_loose"
            lo, hi = sidecar["label_stats"]["min"], sidecar["label_stats"]["max"]
            sidecar.update({"name": name, "file": f"{name}.csv",
                            "label_stats": {"min": lo, "max": lo + args.factor * (hi - lo)},
                            "label_bounds_rule": f"[min, min + {args.factor:g}·(max − min)] of "
                                                 f"{sidecar['file']}'s labels"})
            shutil.copyfile(os.path.join(directory, entry[:-len(".json")] + ".csv"),
                            os.path.join(args.out, f"{name}.csv"))
            with open(os.path.join(args.out, f"{name}.json"), "w") as f:
                json.dump(sidecar, f, indent=1)
            print(f"{name}: labels in [{lo:g}, {hi:g}], public bounds "
                  f"[{lo:g}, {sidecar['label_stats']['max']:g}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
