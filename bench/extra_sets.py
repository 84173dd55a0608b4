#!/usr/bin/env python3
"""Data sets outside ../shared/datasets, for checking the auto rule on data it was not chosen on
(docs/trees_auto_beyond.md): written as CSV + sidecar in the shared sets' format from
Debian's python3-statsmodels (`apt-get install -y python3-statsmodels`), with the data's own
label and feature ranges taken as the public bounds, as the shared sets do.

    /usr/bin/python3 bench/extra_sets.py OUT_DIR
    python3 bench/auto_compare.py RDPKIT --datasets OUT_DIR --sets randhie,fair,grunfeld,engel \
        --methods auto,static,nonprivate,sbdt,sbdt-d2 [--sbdt DIR] --out runs.jsonl
    python3 bench/auto_compare.py RDPKIT --datasets OUT_DIR --sets fair_binary,anes96 \
        --methods auto,static,nonprivate,sbdt,sbdt-d2,sbdt-d5,sbdt-T600 [--sbdt DIR] --out runs.jsonl

Regression:
  randhie   RAND Health Insurance Experiment, 20 190 rows: doctor visits (a count, heavy-tailed)
  fair      Fair (1978), 6 366 rows: time in affairs (mostly 0)
  grunfeld  Grunfeld (1950), 220 rows: gross investment of 11 firms (the firm name dropped)
  engel     Koenker & Bassett (1982), 235 rows: food expenditure against income
Binary:
  fair_binary  the same 6 366 rows of Fair (1978): any affair (32 %)
  anes96       1996 American National Election Study, 944 rows: vote for Dole (42 %)
"""
import json
import os
import sys

# name: (statsmodels data set, label column, task); a binary label is the column's value > 0.
SETS = {"randhie": ("randhie", "mdvis", "regression"), "fair": ("fair", "affairs", "regression"),
        "grunfeld": ("grunfeld", "invest", "regression"),
        "engel": ("engel", "foodexp", "regression"),
        "fair_binary": ("fair", "affairs", "binary"), "anes96": ("anes96", "vote", "binary")}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    import statsmodels.api as sm  # Debian: python3-statsmodels
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, (source, label, task) in SETS.items():
        data = getattr(sm.datasets, source).load_pandas().data
        data = data.select_dtypes("number").dropna()
        y = data.pop(label)
        if task == "binary":
            y = (y > 0).astype(int)
        data["label"] = y
        features = [{"name": c, "categorical": False, "min": float(data[c].min()),
                     "max": float(data[c].max())} for c in data.columns[:-1]]
        sidecar = {"name": name, "file": f"{name}.csv", "task": task,
                   "origin": {"source": "debian", "package": "python3-statsmodels",
                              "module": f"statsmodels.datasets.{source}"},
                   "rows": len(data), "n_features": len(features),
                   "label_rule": f"label = {label}" + (" > 0" if task == "binary" else ""),
                   "label_stats": {"min": float(y.min()), "max": float(y.max())},
                   "features": features}
        data.to_csv(os.path.join(out, f"{name}.csv"), index=False)
        with open(os.path.join(out, f"{name}.json"), "w") as f:
            json.dump(sidecar, f, indent=1)
        print(f"{name}: {len(data)} rows, {len(features)} features, label {label}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
