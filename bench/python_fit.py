#!/usr/bin/env python3
"""Training speed from Python against `rdpkit train` on the same data and settings.

    PYTHONPATH=<site with rdpkit> python3 bench/python_fit.py RDPKIT_BINARY [--rows N] [--reps R]

Writes a synthetic binary data set (N rows, 20 features in [-4, 4]) as CSV + schema + config in a
scratch folder, then times, R times each and in alternation: DPGBTClassifier.fit on the float64
array (wall time in this process), and `rdpkit train` on the CSV (whole process, wall time, so
it includes reading the CSV and writing the model). Also times fit + save_model, the work the
CLI does besides parsing. Prints medians and the ratio; checks both wrote the same model.
"""
import argparse
import json
import pathlib
import statistics
import subprocess
import tempfile
import time

import numpy as np

import rdpkit

SETTINGS = {"n_estimators": 100, "max_depth": 6, "split_method": "histogram",
            "split_candidates": {"method": "uniform", "count": 32}}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cli")
    parser.add_argument("--rows", type=int, default=200000)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    X = np.clip(rng.normal(size=(args.rows, 20)), -4, 4)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=args.rows) > 0).astype(int)
    clf = rdpkit.DPGBTClassifier(epsilon=1.0, delta=1e-7, bounds=(-4.0, 4.0), random_state=1,
                                 **SETTINGS)
    names = [f"x{i}" for i in range(X.shape[1])]
    with tempfile.TemporaryDirectory() as scratch:
        folder = pathlib.Path(scratch)
        with open(folder / "train.csv", "w") as out:
            out.write(",".join(names + ["label"]) + "\n")
            for row, label in zip(X.tolist(), y.tolist()):
                out.write(",".join(map(repr, row)) + f",{label}\n")
        (folder / "schema.json").write_text(json.dumps(clf.schema(20, names)))
        (folder / "config.json").write_text(json.dumps(clf.trainer_config()))
        command = [args.cli, "train", "--data", str(folder / "train.csv"), "--schema",
                   str(folder / "schema.json"), "--config", str(folder / "config.json"),
                   "--out", str(folder / "cli.json"), "--quiet"]
        fit, fit_save, cli = [], [], []
        for _ in range(args.reps):
            start = time.perf_counter()
            clf.fit(X, y)
            fit.append(time.perf_counter() - start)
            clf.save_model(folder / "py.json")
            fit_save.append(time.perf_counter() - start)
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            cli.append(time.perf_counter() - start)
        same = (folder / "py.json").read_bytes() == (folder / "cli.json").read_bytes()
    med = {name: statistics.median(v) for name, v in
           (("fit", fit), ("fit+save", fit_save), ("cli", cli))}
    print(json.dumps({"rows": args.rows, "features": 20, "reps": args.reps, **SETTINGS,
                      "median_seconds": med, "fit_over_cli": med["fit"] / med["cli"],
                      "fit_save_over_cli": med["fit+save"] / med["cli"],
                      "same_model": same, "fit_all": fit, "cli_all": cli}, indent=1))


if __name__ == "__main__":
    main()
