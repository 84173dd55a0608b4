#!/usr/bin/env python3
"""Whole-process time of `rdpkit train` with the auto settings next to S-BDT's own code (issue 14,
point 4; docs/trees_auto_results.md "Speed").

    python3 bench/auto_speed.py RDPKIT [--sbdt DIR] [--datasets DIR] [--sets a,b]
        [--epsilons 0.1,1] [--repeats 3] [--out speed.jsonl]
    python3 bench/auto_speed.py --summarize speed.jsonl

Each command runs under `/usr/bin/time -v` on split 0 of a data set (bench/parity.py's 70/30
split), one at a time, the methods interleaved within each repeat: `rdpkit train` with only
`privacy` (auto settings) and with `n_estimators` 1000 as well (calibration included, --quiet),
and S-BDT's code through its Python wrapper with S-BDT's setting at T = 300 and T = 1000 (a
driver that reads the CSV with NumPy and trains; the process includes the interpreter, NumPy
and the wrapper, ~0.3 s, and its in-process training time is recorded beside). The summary
gives, per data set, ε and method, the median wall and user CPU seconds and the largest RSS.
"""
import argparse
import atexit
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

from parity import BINARY, HERE, REGRESSION, read_csv, sbdt_params, stratified_split, write_rows

TIME = "/usr/bin/time"


def sbdt_driver(job):
    """Runs in its own process: S-BDT trains on the job's CSV (numeric features mapped to [0, 1]
    by the public bounds, as bench/parity.py does); prints its in-process training seconds."""
    import time
    sys.path.insert(0, job["peer"])
    import numpy as np
    import sbdt
    schema = job["schema"]
    data = np.genfromtxt(job["train"], delimiter=",", skip_header=1)
    x, y = np.ascontiguousarray(data[:, :-1]), np.ascontiguousarray(data[:, -1])
    for j, f in enumerate(schema["features"]):
        if not f["categorical"]:
            x[:, j] = (x[:, j] - f["min"]) / (f["max"] - f["min"])
    binary = schema["task"] == "binary"
    if not binary:
        lo, hi = schema["label_stats"]["min"], schema["label_stats"]["max"]
        y = np.ascontiguousarray(2 * (y - lo) / (hi - lo) - 1)
    model = sbdt.S_BDT(**sbdt_params(job, schema))
    start = time.perf_counter()
    model.train(x, y, schema["name"])
    print(json.dumps({"train_seconds": time.perf_counter() - start}))


def timed(cmd, cwd=None, env=None):
    """Runs cmd under /usr/bin/time -v: wall and user seconds, max RSS in MB, stdout."""
    done = subprocess.run([TIME, "-v"] + cmd, capture_output=True, text=True, cwd=cwd, env=env)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    err = done.stderr

    def field(name):
        return re.search(re.escape(name) + r":\s*(\S+)", err).group(1)

    wall = field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":")
    seconds = sum(float(p) * 60 ** i for i, p in enumerate(reversed(wall)))
    return {"wall": seconds, "user": float(field("User time (seconds)")),
            "rss_mb": int(field("Maximum resident set size (kbytes)")) / 1000}, done.stdout


def summarize(path):
    recs = [json.loads(line) for line in open(path)]
    keys = []
    for r in recs:
        k = (r["dataset"], r["epsilon"], r["method"])
        if k not in keys:
            keys.append(k)
    print("| dataset | n_train | ε | method | wall s | user s | max RSS MB | S-BDT train() s |")
    print("| --- | ---: | --- | --- | ---: | ---: | ---: | ---: |")
    for k in keys:
        rs = [r for r in recs if (r["dataset"], r["epsilon"], r["method"]) == k]
        inner = [r["train_seconds"] for r in rs if "train_seconds" in r]
        print(f"| {k[0]} | {rs[0]['n_train']} | {k[1]:g} | {k[2]} | "
              f"{statistics.median(r['wall'] for r in rs):.2f} | "
              f"{statistics.median(r['user'] for r in rs):.2f} | "
              f"{max(r['rss_mb'] for r in rs):.0f} | "
              + (f"{statistics.median(inner):.2f} |" if inner else "– |"))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--summarize":
        summarize(sys.argv[2])
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == "--sbdt-driver":
        with open(sys.argv[2]) as f:
            sbdt_driver(json.load(f))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rdpkit")
    ap.add_argument("--sbdt", default="")
    ap.add_argument("--datasets", default=os.path.join(HERE, "..", "..", "shared", "datasets"))
    ap.add_argument("--sets", default=",".join(BINARY + REGRESSION))
    ap.add_argument("--epsilons", default="0.1,1")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default="auto_speed.jsonl")
    args = ap.parse_args()
    scratch = tempfile.mkdtemp(prefix="rdpkit_speed_")
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)  # nothing left in /tmp
    for name in args.sets.split(","):
        with open(os.path.join(args.datasets, f"{name}.json")) as f:
            schema = json.load(f)
        header, rows = read_csv(os.path.join(args.datasets, f"{name}.csv"))
        task = schema["task"]
        tr, _ = stratified_split([float(r[-1]) for r in rows], 0, task != "regression")
        train = os.path.join(scratch, "train.csv")
        write_rows(train, header, rows, tr)
        public = dict(schema)
        if task == "regression":
            public["label"] = {"min": schema["label_stats"]["min"],
                               "max": schema["label_stats"]["max"]}
        schema_path = os.path.join(scratch, "schema.json")
        with open(schema_path, "w") as f:
            json.dump(public, f)
        delta = 1.0 / len(tr)
        for eps in (float(e) for e in args.epsilons.split(",")):
            for repeat in range(args.repeats):
                runs = [("rdpkit auto", None), ("rdpkit auto, T = 1000", 1000)]
                if args.sbdt:
                    runs += [("S-BDT T = 300", 300), ("S-BDT T = 1000", 1000)]
                for method, trees in runs:
                    rec = {"dataset": name, "n_train": len(tr), "epsilon": eps,
                           "method": method, "repeat": repeat}
                    if method.startswith("rdpkit"):
                        config = {"privacy": {"epsilon": eps, "delta": delta,
                                              "allow_large_delta": True}, "seed": repeat + 1}
                        if trees:
                            config["n_estimators"] = trees
                        t, _ = timed([args.rdpkit, "train", "--data", train, "--schema",
                                      schema_path, "--config", json.dumps(config), "--out",
                                      os.path.join(scratch, "model.json"), "--quiet"])
                        rec.update(t)
                    else:
                        job = os.path.join(scratch, "job.json")
                        with open(job, "w") as f:
                            json.dump({"train": train, "schema": schema, "epsilon": eps,
                                       "trees": trees, "peer": os.path.abspath(args.sbdt)}, f)
                        env = dict(os.environ, SBDT_DELTA=repr(delta))
                        t, out = timed([sys.executable, os.path.abspath(__file__),
                                        "--sbdt-driver", job], cwd=os.path.abspath(args.sbdt),
                                       env=env)
                        rec.update(t, **json.loads(out.strip().splitlines()[-1]))
                    print(json.dumps(rec), flush=True)
                    with open(args.out, "a") as f:
                        f.write(json.dumps(rec) + "\n")
    summarize(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
