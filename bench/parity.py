#!/usr/bin/env python3
"""Side-by-side parity of rdpkit with S-BDT (kirschte/sbdt) and Maddock et al.'s DP-TR (issue 14,
point 1; docs/parity.md): the same stratified 70/30 splits, the same public feature bounds and
δ = 1/n_train, ε ∈ {0.1, 0.5, 1}.

    python3 bench/parity.py RDPKIT [--sbdt DIR] [--sbdt-matched DIR] [--maddock DIR]
        [--datasets DIR] [--splits 5] [--epsilons 0.1,0.5,1] [--trees 300]
        [--sets a,b] [--methods a,b] [--maddock-splits N] [--out runs.jsonl]
    python3 bench/parity.py --summarize runs.jsonl RDPKIT

The peers are not part of rdpkit and are never built by this script: DIR is the `code/` folder of
a local copy of S-BDT whose Python wrapper (`sbdt*.so`) was built as its README says, and the
root of a local copy of Maddock et al.'s framework (imported with Debian's Python packages).
Every run is its own process (one at a time); its whole-process wall time is recorded. Methods:

  sbdt          S-BDT's code with S-BDT's setting (below), as published
  sbdt-node     S-BDT with its `ignore_split_constraints` off (splits inside the node's range)
  sbdt-matched  the same with its noise raised to what its accountant assumes (a local change)
  maddock       Maddock et al.'s DP-TR Newton (their best published setting, docs/parity.md)
  rdpkit-sbdt   rdpkit with S-BDT's setting, split_scope all, zero leaves (S-BDT's leaf rule)
  rdpkit        rdpkit's defaults, only privacy set
  rdpkit-raw    regression only: rdpkit's defaults on the raw labels (the others get labels
                mapped to [−1, 1] by the public label bounds, as S-BDT needs; RMSE scaled back)

Binary sets report test AUC, regression sets test RMSE in the label's units. Writes one JSON
record per run to --out (appended, so an interrupted run can be resumed with the same file);
--summarize prints the tables of docs/parity.md, with S-BDT's true ε from `rdpkit epsilon`.
"""
import argparse
import atexit
import copy
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time

from utility import auc  # bench/utility.py, beside this script

HERE = os.path.dirname(os.path.abspath(__file__))
BINARY = ["spambase", "credit_g", "breast_cancer", "aer_creditcard", "ticdata", "satellite",
          "mplsstops", "pima_diabetes"]
REGRESSION = ["diamonds", "cps1988", "insteval", "sklearn_diabetes"]
METHODS = ["sbdt", "sbdt-node", "sbdt-matched", "maddock", "rdpkit-sbdt", "rdpkit", "rdpkit-raw"]

# S-BDT's setting (its paper's experiments and code defaults): depth 6, η 0.1, λ 15 (added), β 2,
# 32 uniform candidates, one feature per tree (cyclical), Poisson rate 0.1, g* 0.5, h* 0.25,
# leaf-balanced Gaussian noise with Hessian weight 0.2, 10 % of ε on the initial score.
SBDT_RDPKIT = {"max_depth": 6, "learning_rate": 0.1, "reg_lambda": 15, "max_leaf_value": 2,
               "split_candidates": {"method": "uniform", "count": 32},
               "feature_interaction": {"method": "cyclical", "k": 1}, "subsample": 0.1,
               "gradient_clip": 0.5, "hessian_clip": 0.25, "leaf_noise_weights": [0.2, 0.8],
               "initial_score": {"epsilon_share": 0.1}, "split_scope": "all",
               "negative_hessian_leaf": "zero", "noisy_hessian_floor": 0}


def read_csv(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
        rows = [line.rstrip("\n").split(",") for line in f if line.strip()]
    return header, rows


def stratified_split(labels, seed, binary, train_share=0.7):
    """Indices (train, test): each class shuffled with Random(seed), its first 70 % to train."""
    rng = random.Random(seed)
    groups = {}
    for i, y in enumerate(labels):
        groups.setdefault(y if binary else 0, []).append(i)
    train, test = [], []
    for key in sorted(groups):
        idx = groups[key]
        rng.shuffle(idx)
        cut = int(round(train_share * len(idx)))
        train += idx[:cut]
        test += idx[cut:]
    return sorted(train), sorted(test)


def recorded_keys(path, fields):
    """The tuples of `fields` of every record already in the JSON-lines file at path (a run that
    was interrupted resumes after them)."""
    if not os.path.exists(path):
        return set()
    with open(path) as f:
        return {tuple(json.loads(line)[k] for k in fields) for line in f}


def write_rows(path, header, rows, indices):
    with open(path, "w") as f:
        f.write(",".join(header) + "\n")
        for i in indices:
            f.write(",".join(rows[i]) + "\n")


def find_set(name, folders):
    """The first of `folders` that holds NAME.csv; exits naming them all when none does."""
    for folder in folders:
        if os.path.exists(os.path.join(folder, f"{name}.csv")):
            return folder
    sys.exit(f"{name}.csv is in none of {', '.join(folders)}")


def read_set(folder, name):
    """A data set written as NAME.csv + NAME.json sidecar: (sidecar, header, rows)."""
    with open(os.path.join(folder, f"{name}.json")) as f:
        sidecar = json.load(f)
    return (sidecar, *read_csv(os.path.join(folder, f"{name}.csv")))


def write_set(out, name, sidecar, header, rows):
    """Writes rows (of a set read by read_set) as OUT/NAME.csv + sidecar: the sidecar's name, file
    and row count follow; its checksum and size, which described the source file, are dropped."""
    sidecar = copy.deepcopy(sidecar)
    sidecar.update({"name": name, "file": f"{name}.csv", "rows": len(rows)})
    for key in ("csv_sha256", "bytes"):
        sidecar.pop(key, None)
    with open(os.path.join(out, f"{name}.json"), "w") as f:
        json.dump(sidecar, f, indent=1)
    write_rows(os.path.join(out, f"{name}.csv"), header, rows, range(len(rows)))


def score(pred, labels, binary):
    if binary:
        return {"auc": auc(pred, labels)}
    return {"rmse": (sum((p - y) ** 2 for p, y in zip(pred, labels)) / len(labels)) ** 0.5}


# ---- workers: each runs in its own process (python3 parity.py --worker NAME JOB.json) ----------

def load_xy(path, schema, scale):
    """Features as floats (numeric ones mapped to [0, 1] by the public bounds if scale), labels."""
    header, rows = read_csv(path)
    feats = schema["features"]
    x, y = [], []
    for r in rows:
        row = []
        for v, f in zip(r[:-1], feats):
            v = float(v)
            if scale and not f["categorical"] and v == v:
                v = (v - f["min"]) / (f["max"] - f["min"])
            row.append(v)
        x.append(row)
        y.append(float(r[-1]))
    return x, y


def sbdt_params(job, schema):
    """S-BDT's wrapper arguments for S-BDT's setting (as SBDT_RDPKIT), T = job["trees"], ε =
    job["epsilon"]; job["node"] turns its ignore_split_constraints off, job["params"] overrides
    (another setting of S-BDT's grid, bench/auto_compare.py)."""
    binary = schema["task"] == "binary"
    feats = schema["features"]
    params = dict(
        nb_trees=job["trees"], subsampling_ratio=0.1, learning_rate=0.1, max_depth=6,
        newton_boosting=True, balance_partition=True, lambda_reg_mode=1, l2_lambda=15,
        reg_delta=2.0, min_samples_split=0, ignore_split_constraints=not job.get("node"),
        max_features=0,
        max_feature_values=0, criterion=0, reuse_attr=True, use_dp=True,
        privacy_budget=job["epsilon"], privacy_budget_init_score_ratio=0.1,
        privacy_budget_gain_ratio=0.5, leaf_denom_noise_weight=0.2, l2_threshold=0.5,
        hess_l2_threshold=0.25, init_score_threshold=1.0, numeric_feature_weight=1.0,
        leaf_noise=1, use_privacy_filter=False, approximate_privacy_filter=False,
        pf_additional_nb_trees=0, pf_l2_threshold=0.5, pf_hess_l2_threshold=0.25,
        pf_subsampling_ratio_factor=1.0, additional_nb_trees=0, refine_splits_rounds=0,
        num_split_candidates=32, gradient_filtering=False, leaf_clipping=False,
        cyclical_feature_interactions=True, refine_splits=False,
        random_splits_from_candidates=True, refine_splits_subsample=1.0, cut_off_leaf_denom=True,
        custom_noise_scale=-1.0, verbosity=4,
        task="BinaryClassification" if binary else "Regression", feature_val_border=(0.0, 1.0),
        continuous_learning=False, scale_y=not binary,
        cat_idx=[i for i, f in enumerate(feats) if f["categorical"]],
        num_idx=[i for i, f in enumerate(feats) if not f["categorical"]],
        cat_values=[[float(c) for c in range(f["n_codes"])] if f["categorical"] else []
                    for f in feats])
    params.update(job.get("params", {}))
    return params


def sbdt_worker(job):
    """S-BDT through its Python wrapper, with S-BDT's setting (same as SBDT_RDPKIT)."""
    sys.path.insert(0, job["peer"])
    import numpy as np
    import sbdt  # the peer's wrapper; its library is found relative to the working directory
    schema = job["schema"]
    binary = schema["task"] == "binary"
    xtr, ytr = load_xy(job["train"], schema, True)
    xte, yte = load_xy(job["test"], schema, True)
    if not binary:  # labels to [-1, 1] by the public label bounds (S-BDT would use the data's)
        lo, hi = schema["label_stats"]["min"], schema["label_stats"]["max"]
        ytr = [2 * (v - lo) / (hi - lo) - 1 for v in ytr]
    model = sbdt.S_BDT(**sbdt_params(job, schema))
    model.train(np.ascontiguousarray(xtr, dtype=float), np.ascontiguousarray(ytr, dtype=float),
                schema["name"])
    pred = list(model.predict(np.ascontiguousarray(xte, dtype=float)))
    if not binary:
        pred = [(p + 1) / 2 * (hi - lo) + lo for p in pred]
    if not hasattr(model, "privacy"):  # a wrapper built without the accessor (docs/parity.md)
        return score(pred, yte, binary)
    real_eps, alpha, sigma, _ = model.privacy()
    return {**score(pred, yte, binary), "claimed_epsilon": real_eps, "order": alpha,
            "noise_multiplier": sigma}


AUTODP_NAMES = {"mechanism_zoo": ["GaussianMechanism", "SubsampleGaussianMechanism"],
                "transformer_zoo": ["Composition", "ComposeGaussian", "AmplificationBySampling"],
                "calibrator_zoo": ["eps_delta_calibrator", "generalized_eps_delta_calibrator",
                                   "ana_gaussian_calibrator"],
                "privacy_calibrator": ["RDP_mech"]}


def autodp_stand_in(folder):
    """Maddock et al.'s accountant imports autodp (not in Debian) but calibrates DP-TR without
    subsampling with its bundled moments accountant. This stand-in only lets the import succeed:
    each name fails loudly if called, so no number of ours replaces theirs."""
    os.makedirs(os.path.join(folder, "autodp"), exist_ok=True)
    open(os.path.join(folder, "autodp", "__init__.py"), "w").close()
    for module, names in AUTODP_NAMES.items():
        with open(os.path.join(folder, "autodp", module + ".py"), "w") as f:
            for name in names:
                f.write(f"def {name}(*a, **k):\n    raise RuntimeError('autodp.{name} is "
                        "not available: the run needs the autodp package')\n")


def maddock_worker(job):
    """Maddock et al.'s DP-TR Newton with IH (s = 5) and cyclical k = 1 ("DP-TR XGBoost EBM
    w/IH", their best published setting: depth 4, 32 bins, η 0.3, λ 1, β 2; δ = 1/n by their
    code). Features as given (their uniform grid spans each feature's training range)."""
    shim = tempfile.mkdtemp(prefix="autodp_stand_in_")
    atexit.register(shutil.rmtree, shim, ignore_errors=True)  # nothing left in /tmp
    autodp_stand_in(shim)
    sys.path[:0] = [job["peer"], shim]
    import numpy as np
    from federated_gbdt.models.gbdt.private_gbdt import PrivateGBDT
    schema = job["schema"]
    xtr, ytr = load_xy(job["train"], schema, False)
    xte, yte = load_xy(job["test"], schema, False)
    np.random.seed(job["seed"])
    random.seed(job["seed"])
    model = PrivateGBDT(num_trees=job["trees"], max_depth=4, epsilon=job["epsilon"],
                        dp_method="gaussian_cdp", accounting_method="rdp_scaled_improved",
                        split_method="totally_random", weight_update_method="xgboost",
                        sketch_type="adaptive_hessian", sketch_rounds=5,
                        feature_interaction_method="cyclical", feature_interaction_k=1,
                        hist_bin=32, verbose=False)
    model.fit(np.array(xtr), np.array(ytr))
    pred = list(model.predict_proba(np.array(xte))[:, 1])
    return {**score(pred, yte, True), "claimed_epsilon": job["epsilon"],
            "delta_used": model.privacy_accountant.delta}


WORKERS = {"sbdt": sbdt_worker, "maddock": maddock_worker}


def child_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_worker(name, job, cwd, env=None):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(job, f)
    start, cpu = time.perf_counter(), child_cpu()
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", name, f.name],
                          cwd=cwd, capture_output=True, text=True, env=env)
    seconds, cpu = time.perf_counter() - start, child_cpu() - cpu
    os.unlink(f.name)
    if done.returncode != 0:
        raise RuntimeError(f"{name} failed: {done.stderr.strip()[-2000:]}")
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "seconds": seconds,
            "cpu_seconds": cpu}


def run_rdpkit(binary, config, train, test, schema_path, work):
    cfg = os.path.join(work, "config.json")
    with open(cfg, "w") as f:
        json.dump(config, f)
    model = os.path.join(work, "model.json")
    start, cpu = time.perf_counter(), child_cpu()
    trained = subprocess.run([binary, "train", "--data", train, "--schema", schema_path,
                              "--config", cfg, "--out", model, "--quiet"],
                             capture_output=True, text=True)
    seconds, cpu = time.perf_counter() - start, child_cpu() - cpu
    if trained.returncode != 0:
        raise RuntimeError(trained.stderr.strip())
    out = json.loads(trained.stdout)
    evaluated = subprocess.run([binary, "evaluate", "--model", model, "--data", test],
                               capture_output=True, text=True, check=True)
    res = json.loads(evaluated.stdout)
    keep = {k: res[k] for k in ("auc", "rmse") if k in res}
    return {**keep, "noise_multiplier": out.get("noise_multiplier"), "seconds": seconds,
            "cpu_seconds": cpu}


def true_event(rec, matched):
    """The event S-BDT's code runs (docs/parity.md): T Poisson-sampled leaf releases and the
    initial score. Its Hessian noise is half of what its accountant assumes (sensitivity h*,
    noise 0.5·σ·h*/√(2·0.2)), i.e. leaf_balanced_gaussian(σ/2) with ratios [1, 1/2]; its binary
    and regression initial scores draw Laplace(0.5·m*/(n·ε_init)) for a mean of sensitivity m*/n
    (binary, [0, m*]) or 2m*/n (regression, [−m*, m*]). `matched`: the local copy with noise as
    accounted (full Hessian noise, Laplace(m*/(n·ε_init)) resp. 2m*/(n·ε_init))."""
    eps_init = 0.1 * rec["epsilon"]
    sigma = rec["noise_multiplier"]
    binary = "auc" in rec
    if matched or not binary:  # regression counts: noise as accounted
        leaf = {"leaf_balanced_gaussian": {"noise_multiplier": sigma, "weights": [0.2, 0.8]}}
    else:
        leaf = {"leaf_balanced_gaussian": {"noise_multiplier": sigma / 2, "weights": [0.2, 0.8],
                                           "sensitivity_ratios": [1, 0.5]}}
    # matched: binary Laplace b = m*/(n ε_i), Δ = m*/n; regression unchanged from the code
    laplace = 1 / eps_init if matched and binary else 0.5 / eps_init
    return {"composed": [{"laplace": {"noise_multiplier": laplace}},
                         {"self_composed": {"count": rec["trees"], "event": {"poisson_sampled": {
                             "sampling_probability": 0.1, "event": leaf}}}}]}


def true_epsilon(rdpkit, rec, matched):
    out = subprocess.run([rdpkit, "epsilon", "--event", json.dumps(true_event(rec, matched)),
                          "--delta", repr(rec["delta"])], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout)["epsilon"]


def cell(values, auc):
    """mean ± sample std, and the number of runs when it is not 5."""
    if not values:
        return "–"
    mean = sum(values) / len(values)
    fmt = (lambda v: f"{v:.3f}") if auc else (lambda v: f"{v:.4g}")
    fsd = (lambda v: f"{v:.3f}") if auc else (lambda v: f"{float(f'{v:.2g}'):g}")
    if len(values) == 1:
        return f"{fmt(mean)} (1)"
    sd = (sum((v - mean) ** 2 for v in values) / (len(values) - 1)) ** 0.5
    return f"{fmt(mean)} ± {fsd(sd)}" + ("" if len(values) == 5 else f" ({len(values)})")


def summarize(path, rdpkit):
    recs = [json.loads(line) for line in open(path)]
    groups = {}
    for r in recs:
        groups.setdefault((r["dataset"], r["epsilon"], r["method"]), []).append(r)
    eps_list = sorted({r["epsilon"] for r in recs})
    for task, sets, metric in (("binary", BINARY, "auc"), ("regression", REGRESSION, "rmse")):
        methods = [m for m in METHODS if any(k[2] == m for k in groups)]
        print(f"\n{task} ({metric}):\n")
        print("| dataset | ε | " + " | ".join(methods) + " | S-BDT true ε | matched true ε |")
        print("| --- | --- |" + " ---: |" * (len(methods) + 2))
        for name in sets:
            for eps in eps_list:
                if not any((name, eps, m) in groups for m in methods):
                    continue
                row = [cell([r[metric] for r in groups.get((name, eps, m), [])], metric == "auc")
                       for m in methods]
                trues = []
                for m, matched in (("sbdt", False), ("sbdt-matched", True)):
                    g = groups.get((name, eps, m))
                    trues.append(f"{true_epsilon(rdpkit, g[0], matched):.3f}" if g else "–")
                print(f"| {name} | {eps:g} | " + " | ".join(row) + " | " + " | ".join(trues) + " |")
    print("\nwhole-process wall seconds, median over runs (CPU seconds of the process):\n")
    methods = [m for m in METHODS if any(r["method"] == m for r in recs)]
    print("| dataset | n_train | " + " | ".join(methods) + " |")
    print("| --- | ---: |" + " ---: |" * len(methods))
    for name in BINARY + REGRESSION:
        rs = [r for r in recs if r["dataset"] == name]
        if not rs:
            continue
        cells = []
        for m in methods:
            w = sorted(r["seconds"] for r in rs if r["method"] == m)
            c = sorted(r["cpu_seconds"] for r in rs if r["method"] == m)
            cells.append(f"{w[len(w) // 2]:.1f} ({c[len(c) // 2]:.2f})" if w else "–")
        print(f"| {name} | {rs[0]['n_train']} | " + " | ".join(cells) + " |")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--summarize":
        summarize(sys.argv[2], sys.argv[3])
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "--worker":
        with open(sys.argv[3]) as f:
            job = json.load(f)
        print(json.dumps(WORKERS[sys.argv[2]](job)))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rdpkit")
    ap.add_argument("--sbdt", default="")
    ap.add_argument("--sbdt-matched", default="")
    ap.add_argument("--maddock", default="")
    ap.add_argument("--datasets", default=os.path.join(HERE, "..", "..", "shared", "datasets"))
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--epsilons", default="0.1,0.5,1")
    ap.add_argument("--trees", type=int, default=300)
    ap.add_argument("--maddock-splits", type=int, default=5, help="Maddock on the first N only")
    ap.add_argument("--sets", default=",".join(BINARY + REGRESSION))
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--out", default="parity_runs.jsonl")
    args = ap.parse_args()
    done = set()
    if os.path.exists(args.out):
        with open(args.out) as f:
            for line in f:
                r = json.loads(line)
                done.add((r["dataset"], r["method"], r["epsilon"], r["split"], r["trees"]))
    scratch = tempfile.mkdtemp(prefix="rdpkit_parity_")
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)  # nothing left in /tmp
    peers = {"sbdt": args.sbdt, "sbdt-node": args.sbdt, "sbdt-matched": args.sbdt_matched,
             "maddock": args.maddock}
    data = {}
    for name in args.sets.split(","):
        schema_path = os.path.join(args.datasets, f"{name}.json")
        with open(schema_path) as f:
            schema = json.load(f)
        header, rows = read_csv(os.path.join(args.datasets, f"{name}.csv"))
        data[name] = (schema_path, schema, header, rows)
    # Split outermost: an interrupted run still covers every data set with its first splits.
    for split in range(args.splits):
        for name, (schema_path, schema, header, rows) in data.items():
            binary = schema["task"] == "binary"
            tr, te = stratified_split([float(r[-1]) for r in rows], split, binary)
            train = os.path.join(scratch, "train.csv")
            test = os.path.join(scratch, "test.csv")
            write_rows(train, header, rows, tr)
            write_rows(test, header, rows, te)
            delta = 1.0 / len(tr)
            unit = 1.0
            if not binary:  # rdpkit: labels mapped to [−1, 1] by the public bounds, as S-BDT's
                lo, hi = schema["label_stats"]["min"], schema["label_stats"]["max"]
                unit = (hi - lo) / 2
                scaled = [r[:-1] + [repr((float(r[-1]) - lo) / unit - 1)] for r in rows]
                train_s = os.path.join(scratch, "train_scaled.csv")
                test_s = os.path.join(scratch, "test_scaled.csv")
                write_rows(train_s, header, scaled, tr)
                write_rows(test_s, header, scaled, te)
            for eps in (float(e) for e in args.epsilons.split(",")):
                for method in args.methods.split(","):
                    key = (name, method, eps, split, args.trees)
                    if key in done or (method in peers and not peers[method]):
                        continue
                    if method == "maddock" and (not binary or split >= args.maddock_splits):
                        continue
                    privacy = {"epsilon": eps, "delta": delta, "allow_large_delta": True}
                    if method == "rdpkit-raw" and binary:
                        continue
                    if method.startswith("rdpkit"):
                        config = {"privacy": privacy, "seed": split + 1}
                        if method == "rdpkit-sbdt":
                            config.update(SBDT_RDPKIT, n_estimators=args.trees)
                            if not binary:  # S-BDT's regression leaves count rows (h = 1)
                                config["hessian_clip"] = 1
                        if binary or method == "rdpkit-raw":
                            res = run_rdpkit(args.rdpkit, config, train, test, schema_path,
                                             scratch)
                        else:
                            res = run_rdpkit(args.rdpkit, config, train_s, test_s, schema_path,
                                             scratch)
                            res["rmse"] *= unit
                    else:
                        job = {"train": train, "test": test, "schema": schema, "epsilon": eps,
                               "delta": delta, "trees": args.trees, "seed": split + 1,
                               "peer": os.path.abspath(peers[method]),
                               "node": method == "sbdt-node"}
                        env = dict(os.environ, SBDT_DELTA=repr(delta))
                        res = run_worker("maddock" if method == "maddock" else "sbdt", job,
                                         os.path.abspath(peers[method]), env)
                    rec = {"dataset": name, "method": method, "epsilon": eps, "split": split,
                           "trees": args.trees, "delta": delta, "n_train": len(tr), **res}
                    print(json.dumps(rec), flush=True)
                    with open(args.out, "a") as f:
                        f.write(json.dumps(rec) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
