#!/usr/bin/env python3
"""Two builds of rdpkit side by side on the shared binary data sets: noise multiplier and test AUC
of `rdpkit train` with only `privacy` set (the defaults a new user gets), per data set and ε.

    python3 bench/compare_builds.py OLD_RDPKIT NEW_RDPKIT [--datasets DIR] [--splits 3]

For each data set: `--splits` random 70/30 splits (seeded 0, 1, …), ε ∈ {0.1, 0.5, 1}, δ the
trainer's default, config seed = split + 1; both builds train on the same split with the same
config. Prints a markdown table of the means (σ, its relative change, AUC, its change).
DIR defaults to ../shared/datasets beside the checkout.
"""
import argparse
import csv
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BINARY_SETS = ["spambase", "credit_g", "breast_cancer", "aer_creditcard", "ticdata", "satellite",
               "mplsstops", "pima_diabetes"]
EPSILONS = (0.1, 0.5, 1.0)


def write_split(rows, header, indices, path):
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows[i] for i in indices)


def run(binary, train, test, schema, config, scratch):
    model = os.path.join(scratch, "model.json")
    trained = subprocess.run([binary, "train", "--data", train, "--schema", schema, "--config",
                              config, "--out", model, "--quiet"], capture_output=True, text=True)
    if trained.returncode != 0:
        raise RuntimeError(trained.stderr.strip())
    sigma = json.loads(trained.stdout)["noise_multiplier"]
    evaluated = subprocess.run([binary, "evaluate", "--model", model, "--data", test],
                               capture_output=True, text=True, check=True)
    return sigma, json.loads(evaluated.stdout)["auc"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--datasets", default=os.path.join(HERE, "..", "..", "shared", "datasets"))
    parser.add_argument("--splits", type=int, default=3)
    args = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="rdpkit_compare_")
    print("| dataset | ε | σ old | σ new | σ change | AUC old | AUC new | ΔAUC |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in BINARY_SETS:
        with open(os.path.join(args.datasets, f"{name}.csv")) as f:
            rows = list(csv.reader(f))
        header, body = rows[0], rows[1:]
        schema = os.path.join(args.datasets, f"{name}.json")
        results = {eps: [] for eps in EPSILONS}
        for split in range(args.splits):
            order = list(range(len(body)))
            random.Random(split).shuffle(order)
            cut = int(0.7 * len(order))
            train = os.path.join(scratch, "train.csv")
            test = os.path.join(scratch, "test.csv")
            write_split(body, header, order[:cut], train)
            write_split(body, header, order[cut:], test)
            for eps in EPSILONS:
                config = os.path.join(scratch, "config.json")
                with open(config, "w") as f:
                    json.dump({"privacy": {"epsilon": eps}, "seed": split + 1}, f)
                results[eps].append((run(args.old, train, test, schema, config, scratch),
                                     run(args.new, train, test, schema, config, scratch)))
        for eps in EPSILONS:
            pairs = results[eps]
            s_old = statistics.mean(p[0][0] for p in pairs)
            s_new = statistics.mean(p[1][0] for p in pairs)
            a_old = statistics.mean(p[0][1] for p in pairs)
            a_new = statistics.mean(p[1][1] for p in pairs)
            print(f"| {name} | {eps} | {s_old:.2f} | {s_new:.2f} | {100 * (s_new / s_old - 1):+.1f} % "
                  f"| {a_old:.4f} | {a_new:.4f} | {a_new - a_old:+.4f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
