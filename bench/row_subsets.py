#!/usr/bin/env python3
"""Smaller copies of data sets: each set's rows shuffled with a fixed seed and the first ROWS kept,
written as NAME_SUFFIX.csv + sidecar (the same public bounds as the full set). They put data of
the large sets on the rule's branch below 10 000 rows (docs/trees_auto_why.md § Larger ε:
regression trees over all features, measured on diamonds_10k, cps1988_10k, insteval_10k,
randhie_10k and cpssw8_10k).

    python3 bench/row_subsets.py OUT_DIR --sets diamonds,cps1988,insteval,randhie,cpssw8 \\
        [--rows 10000] [--seed 10000] [--datasets DIR ...]

--datasets: the directories to look for NAME.csv and NAME.json in, in order (default
../shared/datasets; add bench/extra_sets.py's and bench/r_sets.py's output for theirs).
"""
import argparse
import os
import random
import sys

from parity import HERE, find_set, read_set, write_set


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--sets", required=True)
    parser.add_argument("--rows", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=10000)
    parser.add_argument("--datasets", nargs="*",
                        default=[os.path.join(HERE, "..", "..", "shared", "datasets")])
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    suffix = f"{args.rows // 1000}k" if args.rows % 1000 == 0 else str(args.rows)
    for name in args.sets.split(","):
        sidecar, header, rows = read_set(find_set(name, args.datasets), name)
        random.Random(args.seed).shuffle(rows)
        rows = rows[:args.rows]
        sidecar["subset"] = f"{len(rows)} rows of {name} (shuffled with seed {args.seed})"
        write_set(args.out, f"{name}_{suffix}", sidecar, header, rows)
        print(f"{name}_{suffix}: {len(rows)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
