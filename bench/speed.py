#!/usr/bin/env python3
"""Whole-command speed and memory of `rdpkit train` (issue 5, point 12), next to Debian's
non-private XGBoost (`xgboost` CLI, tree_method=hist) with the same number of trees and depth.

    bench/speed.py [--rdpkit build/tools/rdpkit] [--repeats 5] [--out speed.md]

Each command runs under `/usr/bin/time -v`; the table gives the median wall time, the median
user CPU time and the largest peak RSS over the repeats. Data: spambase's training split
(examples/spambase_train.csv) and a generated 50 000 × 14 table (features uniform on [0, 1],
label 1 iff a noisy linear score is positive — the distribution of bench/trees_bench.cc's
Synthetic50k, drawn here with Python's generator). Trees: 1000 totally random Newton trees of
depth 6 at ε = 1 (calibration included), threads 1 and 2; XGBoost: 1000 rounds of depth 6,
nthread 1 and 2. Training time only is measured in-process by bench/trees_bench.cc.
"""
import argparse
import csv
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def generate_50k(path, schema_path):
    rng = random.Random(2024)
    m, n = 14, 50000
    with open(path, "w") as f:
        f.write(",".join([f"f{j}" for j in range(m)] + ["label"]) + "\n")
        for _ in range(n):
            xs = [rng.random() for _ in range(m)]
            score = sum((1.0 if j % 3 == 0 else -0.5) * (x - 0.5) for j, x in enumerate(xs))
            label = 1 if score + rng.gauss(0, 0.5) > 0 else 0
            f.write(",".join(f"{x:.6f}" for x in xs) + f",{label}\n")
    with open(schema_path, "w") as f:
        json.dump({"task": "binary", "label": "label",
                   "features": [{"name": f"f{j}", "min": 0, "max": 1} for j in range(m)]}, f)


def timed(cmd):
    """Runs cmd under /usr/bin/time -v; returns (wall s, user s, peak RSS MB)."""
    out = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{out.stderr}")
    err = out.stderr
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", err).group(1)
    seconds = 0.0
    for part in wall.split(":"):
        seconds = seconds * 60 + float(part)
    user = float(re.search(r"User time \(seconds\): (\S+)", err).group(1))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err).group(1)) / 1024
    return seconds, user, rss


def headerless(src, dst):
    """XGBoost's CSV reader takes no header; label column index returned."""
    with open(src) as f:
        rows = list(csv.reader(f))
    with open(dst, "w", newline="") as f:
        csv.writer(f).writerows(rows[1:])
    return rows[0].index("label")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rdpkit", default=os.path.join(ROOT, "build", "tools", "rdpkit"))
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default="")
    args = ap.parse_args()

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        big, big_schema = os.path.join(tmp, "synthetic50k.csv"), os.path.join(tmp, "s.json")
        generate_50k(big, big_schema)
        datasets = [("spambase train split (3220 × 57)",
                     os.path.join(ROOT, "examples", "spambase_train.csv"),
                     os.path.join(ROOT, "examples", "spambase.schema.json")),
                    ("generated 50 000 × 14", big, big_schema)]
        for name, data, schema in datasets:
            raw_mb = os.path.getsize(data) / 2**20
            for threads in (1, 2):
                config = os.path.join(tmp, "config.json")
                with open(config, "w") as f:
                    json.dump({"n_estimators": 1000, "max_depth": 6,
                               "split_method": "totally_random", "leaf_update": "newton",
                               "privacy": {"epsilon": 1.0}, "seed": 1, "threads": threads}, f)
                runs = [timed([args.rdpkit, "train", "--data", data, "--schema", schema,
                               "--config", config, "--out", os.path.join(tmp, "m.json"),
                               "--quiet"]) for _ in range(args.repeats)]
                rows.append((name, f"rdpkit train, threads {threads}", raw_mb, runs))
            if shutil.which("xgboost"):
                plain = os.path.join(tmp, "plain.csv")
                label = headerless(data, plain)
                for threads in (1, 2):
                    conf = os.path.join(tmp, "xgb.conf")
                    with open(conf, "w") as f:
                        f.write("booster = gbtree\nobjective = binary:logistic\n"
                                "tree_method = hist\nmax_depth = 6\nnum_round = 1000\n"
                                f"nthread = {threads}\nseed = 1\n")
                    runs = [timed(["xgboost", conf,
                                   f"data={plain}?format=csv&label_column={label}",
                                   f"model_out={tmp}/x.model"]) for _ in range(args.repeats)]
                    rows.append((name, f"xgboost hist (non-private), nthread {threads}", raw_mb,
                                 runs))
            else:
                rows.append((name, "xgboost: SKIPPED (no xgboost on PATH)", raw_mb, []))

    lines = ["| data | command | wall s (median) | user s (median) | peak RSS MB (max) | CSV MB |",
             "| --- | --- | --- | --- | --- | --- |"]
    for name, what, raw_mb, runs in rows:
        if not runs:
            lines.append(f"| {name} | {what} | | | | {raw_mb:.1f} |")
            continue
        wall = statistics.median(r[0] for r in runs)
        user = statistics.median(r[1] for r in runs)
        rss = max(r[2] for r in runs)
        lines.append(f"| {name} | {what} | {wall:.2f} | {user:.2f} | {rss:.0f} | {raw_mb:.1f} |")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
