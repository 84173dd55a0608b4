#!/usr/bin/env python3
"""Effect of public label bounds on private regression (docs/trees_training.md, "Regression").

For each regression dataset (a CSV with a `label` column and its JSON sidecar schema) and each ε,
trains `rdpkit train` on 5 random 70/30 splits and reports the test RMSE (mean ± std) of:

  - no label bounds: the schema without "label"; the labels are used as they are and residuals
    are clipped at gradient_clip = 1 label unit (the behaviour before label bounds);
  - label bounds: the schema with "label": {"min", "max"} (the sidecar's label_stats, treated as
    public as the feature bounds are), default gradient_clip 1 = half the label range;
  - label bounds with gradient_clip 0.5 and 2 (in units of half the label range);
  - the constant predictor (the training mean; what a model that learns nothing scores);
  - non-private: the same trainer with "non_private": true and label bounds.

    bench/regression_labels.py --rdpkit build/release/tools/rdpkit \
        --data-dir ../shared/datasets [--datasets sklearn_diabetes cps1988] [--out results.md]

Every run uses only the trainer's defaults besides what the variant says (and a fixed seed).
"""
import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile

DATASETS = ["sklearn_diabetes", "cps1988", "insteval", "diamonds"]
EPSILONS = [0.1, 0.5, 1.0]
SPLITS = 5

VARIANTS = [
    ("no label bounds", False, {}),
    ("label bounds (default)", True, {}),
    ("label bounds, gradient_clip 0.5", True, {"gradient_clip": 0.5}),
    ("label bounds, gradient_clip 2", True, {"gradient_clip": 2.0}),
]


def read_csv(path):
    with open(path) as handle:
        header = handle.readline()
        rows = handle.read().splitlines()
    return header, rows


def split(header, rows, seed, folder):
    order = list(range(len(rows)))
    random.Random(seed).shuffle(order)
    cut = round(0.7 * len(rows))
    paths = []
    for name, part in (("train", sorted(order[:cut])), ("test", sorted(order[cut:]))):
        path = os.path.join(folder, f"{name}_{seed}.csv")
        with open(path, "w") as handle:
            handle.write(header)
            handle.write("\n".join(rows[i] for i in part) + "\n")
        paths.append(path)
    label_column = header.strip().split(",").index("label")
    train_labels = [float(rows[i].split(",")[label_column]) for i in order[:cut]]
    test_labels = [float(rows[i].split(",")[label_column]) for i in order[cut:]]
    return paths[0], paths[1], statistics.fmean(train_labels), test_labels


def run(cmd):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{result.stderr}")
    return json.loads(result.stdout)


def rmse_of(rdpkit, schema, config, train, test, folder):
    model = os.path.join(folder, "model.json")
    run([rdpkit, "train", "--data", train, "--schema", schema, "--config", json.dumps(config),
         "--out", model, "--quiet"])
    return run([rdpkit, "evaluate", "--model", model, "--data", test])["rmse"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rdpkit", required=True, help="path of the built rdpkit program")
    parser.add_argument("--data-dir", required=True, help="folder of <name>.csv and <name>.json")
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--out", help="also write the markdown table here")
    args = parser.parse_args()

    lines = ["| dataset | ε | variant | test RMSE (mean ± std, 5 splits) |",
             "| --- | ---: | --- | --- |"]
    with tempfile.TemporaryDirectory() as folder:
        for name in args.datasets:
            sidecar = json.load(open(os.path.join(args.data_dir, f"{name}.json")))
            bounds = {"min": sidecar["label_stats"]["min"], "max": sidecar["label_stats"]["max"]}
            schemas = {}
            for with_bounds in (False, True):
                schema = {"task": "regression", "features": sidecar["features"]}
                if with_bounds:
                    schema["label"] = bounds
                path = os.path.join(folder, f"{name}_{with_bounds}.schema.json")
                json.dump(schema, open(path, "w"))
                schemas[with_bounds] = path
            header, rows = read_csv(os.path.join(args.data_dir, f"{name}.csv"))
            splits = [split(header, rows, seed, folder) for seed in range(1, SPLITS + 1)]
            constant = [math.sqrt(statistics.fmean((y - mean) ** 2 for y in test))
                        for _, _, mean, test in splits]
            nonprivate = [rmse_of(args.rdpkit, schemas[True], {"non_private": True, "seed": s},
                                  train, test, folder)
                          for s, (train, test, _, _) in enumerate(splits, 1)]
            for label, values in (("constant (training mean)", constant),
                                  ("non-private, label bounds", nonprivate)):
                lines.append(f"| {name} | – | {label} | {statistics.fmean(values):.4g} ± "
                             f"{statistics.stdev(values):.2g} |")
            for epsilon in EPSILONS:
                for label, with_bounds, extra in VARIANTS:
                    values = []
                    for seed, (train, test, _, _) in enumerate(splits, 1):
                        config = {"privacy": {"epsilon": epsilon}, "seed": seed, **extra}
                        values.append(rmse_of(args.rdpkit, schemas[with_bounds], config, train,
                                              test, folder))
                    lines.append(f"| {name} | {epsilon:g} | {label} | "
                                 f"{statistics.fmean(values):.4g} ± "
                                 f"{statistics.stdev(values):.2g} |")
                    print(lines[-1], file=sys.stderr, flush=True)
    table = "\n".join(lines) + "\n"
    print(table)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(table)


if __name__ == "__main__":
    main()
