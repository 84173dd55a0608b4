#!/usr/bin/env python3
"""Writes a large synthetic credit-style table for the scale benchmarks (docs/distributed.md).

    python3 bench/make_large_csv.py OUT.csv [--rows 3000000] [--seed 17] [--shards K]

7 features: four numeric (age, income, debt_ratio, hours_per_week; income heavy-tailed, some
values outside the schema's public bounds so that clipping is exercised), three categorical codes
(region 0..11, product 0..4, employment 0..3), 2-6 % missing values (empty fields, or NaN) in
five columns, and a binary label from a logistic model with interactions (about 30 % positives).
Writes OUT.csv, OUT.schema.json beside it and, with --shards K, OUT_0.csv .. OUT_{K-1}.csv
(contiguous row ranges: their concatenation is OUT.csv, for `mpirun -np K ... --data OUT_%d.csv`).
Deterministic for a seed (numpy's PCG64).
"""
import argparse
import bisect
import io
import json
import os

import numpy as np

FEATURES = [
    {"name": "age", "min": 18, "max": 90},
    {"name": "income", "min": 0, "max": 250000},
    {"name": "debt_ratio", "min": 0, "max": 5},
    {"name": "hours_per_week", "min": 0, "max": 80},
    {"name": "region", "categorical": True, "n_codes": 12},
    {"name": "product", "categorical": True, "n_codes": 5},
    {"name": "employment", "categorical": True, "n_codes": 4},
]


def columns(n, rng):
    age = np.clip(rng.normal(42, 13, n), 16, 95).round()
    income = rng.lognormal(10.6, 0.7, n).round(2)  # a few above the bound of 250000
    debt = np.abs(rng.normal(0.8, 0.9, n)).round(4)
    hours = np.clip(rng.normal(38, 10, n), 0, 99).round(1)
    region = rng.integers(0, 12, n)
    product = rng.choice(5, n, p=[0.4, 0.25, 0.15, 0.15, 0.05])
    employment = rng.choice(4, n, p=[0.6, 0.2, 0.15, 0.05])
    z = (-1.2 + 0.03 * (age - 42) - 0.9 * np.log(income / 40000) + 0.8 * (debt - 0.8)
         - 0.02 * (hours - 38) + 0.5 * (product == 4) + 0.4 * (employment == 2)
         + 0.3 * np.sin(region) + 0.6 * (debt > 2) * (age < 30))
    label = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(int)
    values = [age, income, debt, hours, region, product, employment]
    missing_rate = [0.0, 0.06, 0.03, 0.04, 0.0, 0.02, 0.05]
    return values, missing_rate, label


def write_rows(f, values, missing_rate, label, rng):
    n = len(label)
    text = []
    formats = ["%d", "%.2f", "%.4f", "%.1f", "%d", "%d", "%d"]
    for j, (v, rate, fmt) in enumerate(zip(values, missing_rate, formats)):
        s = np.char.mod(fmt, v)
        if rate > 0:
            gone = rng.random(n) < rate
            # Most missing values are empty fields, some are written NaN.
            s = np.where(gone, np.where(rng.random(n) < 0.8, "", "NaN"), s)
        text.append(s)
    text.append(np.char.mod("%d", label))
    rows = text[0]
    for s in text[1:]:
        rows = np.char.add(np.char.add(rows, ","), s)
    f.write("\n".join(rows.tolist()))
    f.write("\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--rows", type=int, default=3_000_000)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--shards", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    header = ",".join([f["name"] for f in FEATURES] + ["label"]) + "\n"
    chunk = 250_000
    stem = os.path.splitext(args.out)[0]
    bounds = [args.rows * k // args.shards for k in range(args.shards + 1)] if args.shards else []
    shard_files = [open(f"{stem}_{k}.csv", "w") for k in range(args.shards)]
    for f in shard_files:
        f.write(header)
    with open(args.out, "w") as out:
        out.write(header)
        for first in range(0, args.rows, chunk):
            n = min(chunk, args.rows - first)
            values, rates, label = columns(n, rng)
            buffer = io.StringIO()
            write_rows(buffer, values, rates, label, rng)
            text = buffer.getvalue()
            out.write(text)
            if shard_files:
                lines = text.splitlines(keepends=True)
                for i, line in enumerate(lines):
                    shard_files[bisect.bisect_right(bounds, first + i) - 1].write(line)
    for f in shard_files:
        f.close()
    schema = {"task": "binary", "name": "synthetic credit (bench/make_large_csv.py)",
              "features": FEATURES}
    with open(stem + ".schema.json", "w") as f:
        json.dump(schema, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
