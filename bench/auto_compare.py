#!/usr/bin/env python3
"""The trainer's "auto" settings against S-BDT's and Maddock et al.'s own code (issue 14, points
3 and 5; docs/trees_auto.md): one command runs every method on every shared data set and writes
the tables the docs quote.

    python3 bench/auto_compare.py RDPKIT [--sbdt DIR] [--maddock DIR] [--datasets DIR]
        [--splits 5] [--epsilons 0.1,0.5,1] [--sets a,b] [--methods a,b]
        [--peer-runs bench/parity_runs.jsonl] [--out runs.jsonl] [--tables docs/...md]
    python3 bench/auto_compare.py --summarize runs.jsonl [--peer-runs …] [--tables FILE]

Protocol (as bench/parity.py): per data set 5 stratified 70/30 splits (each class shuffled with
Random(split), its first 70 % to training; regression and multiclass: the same by label value),
δ = 1/n_train for every method, ε ∈ {0.1, 0.5, 1}, rdpkit seed = split + 1. Methods:

  auto     `rdpkit train` with only `privacy` given: the auto rule chooses everything else
  static   the same with "defaults": "static" (the fixed defaults of the key table)
  auto-fixed-clip  (regression; not in the default list) auto with the initial score given
           without adapt_gradient_clip, so g* stays 0.5: what the adapted clip changes
  auto-dK  (not in the default list) auto with max_depth K given: the depth table
  auto-clipG  (regression; not in the default list) auto with the initial score given without
           adapt_gradient_clip and g* = G given: what a fixed clip does where the rule adapts it
  auto-features-all, auto-features-all-node  (not in the default list) auto with
           feature_interaction all given (and split_scope node): the subsampled branch's trees
           over all features (docs/trees_auto_why.md § Why); the unsampled branch's default already
  auto-cyclical-kK  (not in the default list) auto with K features per tree (cyclical)
  auto-random-kK  (not in the default list) auto with K features per tree, drawn at random
  auto-floorC, auto-lambdaL, auto-hclipH, auto-gclipG  (not in the default list) auto with
           noisy_hessian_floor C, reg_lambda L, hessian_clip H or gradient_clip G given
  auto-subsampleG, auto-lnwW  (not in the default list) auto with the Poisson rate G or
           leaf_noise_weights [W, 1 − W] given
  auto-TN  (not in the default list) auto with n_estimators N given (the rule's total step)
  auto-qQ, auto-logQ  (not in the default list) auto with Q uniform (log-spaced) split
           candidates per feature
  auto-no-subsample  (not in the default list) auto with subsample 1 given
  auto-etaX  (not in the default list) auto with learning_rate X given
  auto-unsampled  (binary; not in the default list) the rule's settings below 10 000 rows
           written out, for binary sets above it (bench/derived_binary.py), with the uniform
           candidates the rule had before uniform_and_log
  auto-unsampled-initS  (not in the default list) the same with a DP initial score (share S)
  auto-initshareS, auto-binitshareS  (regression / binary; not in the default list) auto with
           the initial score's ε share S given (regression keeps adapt_gradient_clip)
  auto-wide-qQ-dD  (binary; not in the default list) the settings the rule gives a schema with
           a wide categorical feature, forced: Q uniform_and_log candidates, one feature per tree,
           split_scope node, depth D (docs/trees_auto_features.md § Wide categorical features)
  auto-unsampled-wide-qQ-dD  (binary; not in the default list) auto-unsampled with those
  auto-unsampled-catwide-cC-dD[-mM]  (binary; not in the default list) auto-unsampled with what
           the rule gives such a schema: C candidates and depth D for categorical features only
           (and depth M for the other trees)
  A+B      (not in the default list) the variants A and B at once, e.g. auto-T1000+auto-eta0.03
  sbdt     S-BDT's code with S-BDT's setting (bench/parity.py; needs --sbdt DIR)
  maddock  Maddock et al.'s DP-TR, their best published setting (needs --maddock DIR)

Regression schemas get the label's public bounds (the sidecar's label range, treated as public as
its feature bounds are), so rdpkit reports RMSE in label units directly. The peers' runs are not
redone when --sbdt/--maddock are not given: their recorded runs (--peer-runs, default
bench/parity_runs.jsonl, same splits and δ) are read instead, and the tables say so. Records are
appended to --out (an interrupted run resumes). The tables: per data set and ε the mean ± sd of
each method, the target (best of S-BDT and Maddock + 0.01 AUC; for regression S-BDT's RMSE) and
whether auto meets it; then whole-process seconds of `rdpkit train` (median over the runs).
"""
import argparse
import atexit
import json
import os
import shutil
import statistics
import sys
import tempfile

from parity import (BINARY, HERE, REGRESSION, read_csv, recorded_keys, run_rdpkit,
                    run_worker, stratified_split, write_rows)

MULTICLASS = ["satellite_multiclass"]
METHODS = ["auto", "static", "nonprivate", "sbdt", "sbdt-d2", "sbdt-d5", "sbdt-T600", "maddock"]
# Other settings from S-BDT's published grid (its §8: T up to 600, depth {2, 3, 5, 6}, g*, h*,
# r1 ranges), run with its own code to find its best per cell: the Abalone ablation's depth 2 and
# T = 150 (g* 0.1 for regression), the Adult ablation's depth 5, T = 200, r1 = 0.1, h* = 0.1 (at
# Poisson rate 0.1: its 0.005 leaves a handful of rows per tree on these sets), and T = 600.
SBDT_GRID = {"sbdt": ({}, {}),
             "sbdt-d2": ({"max_depth": 2, "nb_trees": 150},
                         {"max_depth": 2, "nb_trees": 150, "l2_threshold": 0.1}),
             "sbdt-d5": ({"max_depth": 5, "nb_trees": 200, "leaf_denom_noise_weight": 0.1,
                          "hess_l2_threshold": 0.1}, None),
             "sbdt-T600": ({"nb_trees": 600}, None)}
# A non-private reference (not a ceiling: it overfits the smallest sets): greedy (histogram)
# trees of depth 6, T = 300, η = 0.1, no noise.
NONPRIVATE = {"non_private": True, "defaults": "static", "split_method": "histogram",
              "max_depth": 6, "n_estimators": 300, "learning_rate": 0.1}


def public_schema(schema, scratch):
    """The sidecar as a schema; regression adds the label's public bounds."""
    out = dict(schema)
    if schema["task"] == "regression":
        out["label"] = {"min": schema["label_stats"]["min"], "max": schema["label_stats"]["max"]}
    path = os.path.join(scratch, f"{schema['name']}.schema.json")
    with open(path, "w") as f:
        json.dump(out, f)
    return path


def prepare_split(datasets, name, split, scratch):
    """Split `split` of data set `name` written to scratch: (schema, path of its public schema,
    task, train CSV, test CSV, training rows)."""
    with open(os.path.join(datasets, f"{name}.json")) as f:
        schema = json.load(f)
    schema_path = public_schema(schema, scratch)
    header, rows = read_csv(os.path.join(datasets, f"{name}.csv"))
    task = schema["task"]
    tr, te = stratified_split([float(r[-1]) for r in rows], split, task != "regression")
    train, test = os.path.join(scratch, "train.csv"), os.path.join(scratch, "test.csv")
    write_rows(train, header, rows, tr)
    write_rows(test, header, rows, te)
    return schema, schema_path, task, train, test, len(tr)


def rdpkit_config(method, eps, delta, split):
    if "+" in method:  # several variants at once, e.g. auto-T1000+auto-eta0.03
        config = {}
        for part in method.split("+"):
            config.update(rdpkit_config(part, eps, delta, split))
        return config
    config = {"privacy": {"epsilon": eps, "delta": delta, "allow_large_delta": True},
              "seed": split + 1}
    if method == "static":
        config["defaults"] = "static"
    if method == "auto-fixed-clip" or method.startswith("auto-clip"):  # the rule's initial
        # score, g* not adapted: the rule's 0.5, or G given
        config["initial_score"] = {"epsilon_share": 0.1, "label_clip": 1.0}
    if method.startswith("auto-clip"):
        config["gradient_clip"] = float(method[len("auto-clip"):])
    if method.startswith("auto-gclip"):  # auto with the gradient clip g* given (nothing else)
        config["gradient_clip"] = float(method[len("auto-gclip"):])
    if method.startswith("auto-d"):
        config["max_depth"] = int(method[len("auto-d"):])
    if method.startswith("auto-features-all"):
        config["feature_interaction"] = {"method": "all"}
    if method.startswith("auto-cyclical-k"):
        config["feature_interaction"] = {"method": "cyclical",
                                         "k": int(method[len("auto-cyclical-k"):])}
    if method.startswith("auto-floor"):  # auto with the noisy-Hessian floor c given
        config["noisy_hessian_floor"] = float(method[len("auto-floor"):])
    if method.startswith("auto-lambda"):  # auto with λ (reg_lambda) given
        config["reg_lambda"] = float(method[len("auto-lambda"):])
    if method.startswith("auto-hclip"):  # auto with the Hessian clip h* given
        config["hessian_clip"] = float(method[len("auto-hclip"):])
    if method.startswith("auto-subsample") and method != "auto-subsample":  # γ given
        config["subsample"] = float(method[len("auto-subsample"):])
    if method.startswith("auto-lnw"):  # leaf_noise_weights [W, 1 − W] given
        weight = float(method[len("auto-lnw"):])
        config["leaf_noise_weights"] = [weight, 1 - weight]
    if method.startswith("auto-random-k"):
        config["feature_interaction"] = {"method": "random",
                                         "k": int(method[len("auto-random-k"):])}
    if method.startswith("auto-unsampled"):  # the rule's binary branch below 10 000 rows as it
        # was before uniform_and_log candidates, written out; -initS adds a DP initial score
        config.update({"defaults": "static", "n_estimators": 1000, "gradient_clip": 0.5,
                       "hessian_clip": 0.1, "learning_rate": 0.045 * min(eps, 1) ** (1 / 3)})
        if method.startswith("auto-unsampled-init"):
            share = float(method[len("auto-unsampled-init"):])
            config["initial_score"] = {"epsilon_share": share}
    if method.startswith("auto-eta"):  # auto with the learning rate given (T stays the rule's)
        config["learning_rate"] = float(method[len("auto-eta"):])
    if method.startswith("auto-T"):  # auto with n_estimators given (η = the rule's step / T)
        config["n_estimators"] = int(method[len("auto-T"):])
    if method.startswith("auto-q"):  # auto with Q uniform candidates per feature
        config["split_candidates"] = {"count": int(method[len("auto-q"):])}
    if method.startswith("auto-log"):  # auto with Q log-spaced candidates per feature
        config["split_candidates"] = {"method": "log", "count": int(method[len("auto-log"):])}
    if method.startswith("auto-initshare"):  # the rule's initial score with another ε share
        config["initial_score"] = {"epsilon_share": float(method[len("auto-initshare"):]),
                                   "label_clip": 1.0, "adapt_gradient_clip": True}
    if method.startswith("auto-binitshare"):  # the same for binary (no g* to adapt)
        config["initial_score"] = {"epsilon_share": float(method[len("auto-binitshare"):]),
                                   "label_clip": 1.0}
    if method.startswith("auto-unsampled-wide-q"):  # the unsampled binary branch (as above) with
        # the wide-categorical settings of auto-wide-qQ-dD below
        config.update({"defaults": "static", "n_estimators": 1000, "gradient_clip": 0.5,
                       "hessian_clip": 0.1, "learning_rate": 0.045 * min(eps, 1) ** (1 / 3)})
        method = method.replace("auto-unsampled-wide-q", "auto-wide-q")
    if method.startswith("auto-unsampled-catwide-c"):  # the rule's wide-categorical settings
        # forced on a binary set: auto-unsampled with one feature per tree, C candidates and
        # trees of depth D for categorical features (the others: 32 uniform_and_log, depth 4)
        # (-mM: the other trees of depth M)
        count, depth = method[len("auto-unsampled-catwide-c"):].split("-m")[0].split("-d")
        config.update({"split_candidates": {"method": "uniform_and_log", "count": 32,
                                            "categorical_count": int(count)},
                       "feature_interaction": {"method": "cyclical", "k": 1},
                       "categorical_depth": int(depth)})
        if "-m" in method:
            config["max_depth"] = int(method.split("-m")[1])
    if method.startswith("auto-wide-q"):  # the wide-categorical settings forced on a binary set:
        # auto-wide-qQ-dD, Q uniform_and_log candidates, one feature per tree, node scope, depth D
        count, depth = method[len("auto-wide-q"):].split("-d")
        config.update({"split_candidates": {"method": "uniform_and_log", "count": int(count)},
                       "feature_interaction": {"method": "cyclical", "k": 1},
                       "split_scope": "node", "max_depth": int(depth)})
    if method == "auto-no-subsample":  # the subsampled branch's settings on every row
        config["subsample"] = 1.0
    if method == "auto-features-all-node":
        config["split_scope"] = "node"
    return config


def depth_table(recs, values):
    """Regression RMSE of the auto-dK runs (auto with max_depth K) per set and ε, and each
    depth's regret (RMSE over the cell's best, in %) averaged over the cells; `values(name, ε,
    method)` gives a cell's runs (summarize's)."""
    depths = sorted({r["method"] for r in recs
                     if r["method"].startswith("auto-d") and r["method"][len("auto-d"):].isdigit()},
                    key=lambda m: int(m[len("auto-d"):]))
    if not depths:
        return []
    cells = sorted({(r["dataset"], r["epsilon"]) for r in recs if r["method"] in depths})
    out = ["\nDepth of the auto settings' trees (regression, `auto-dK`: max_depth K given), test "
           "RMSE, mean over the splits; regret: RMSE over the cell's best depth.\n",
           "| dataset | n_train | ε | " + " | ".join(depths) + " |",
           "| --- | ---: | --- |" + " ---: |" * len(depths)]
    regret = {m: [] for m in depths}
    for name, eps in cells:
        means = {}
        for m in depths:
            v = values(name, eps, m)
            means[m] = statistics.mean(v) if v else None
        best = min(v for v in means.values() if v is not None)
        for m, v in means.items():
            if v is not None:
                regret[m].append(100 * (v / best - 1))
        n_train = next(r["n_train"] for r in recs if r["dataset"] == name)
        out.append(f"| {name} | {n_train} | {eps:g} | " +
                   " | ".join(f"{v:.4g}" if v is not None else "–" for v in means.values()) + " |")
    out.append("| mean / max regret (%) | | | " + " | ".join(
        f"{statistics.mean(regret[m]):.2f} / {max(regret[m]):.1f}" for m in depths) + " |")
    return out


def metric_of(task):
    return {"binary": "auc", "regression": "rmse", "multiclass": "accuracy"}[task]


def run(args):
    done = recorded_keys(args.out, ("dataset", "method", "epsilon", "split"))
    scratch = tempfile.mkdtemp(prefix="rdpkit_auto_")
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)  # nothing left in /tmp
    peers = {name: args.sbdt for name in SBDT_GRID}
    peers["maddock"] = args.maddock
    for split in range(args.splits):
        for name in args.sets.split(","):
            schema, schema_path, task, train, test, n_train = prepare_split(
                args.datasets, name, split, scratch)
            delta = 1.0 / n_train
            for eps in (float(e) for e in args.epsilons.split(",")):
                for method in args.methods.split(","):
                    if (name, method, eps, split) in done:
                        continue
                    if method in peers:
                        if not peers[method] or (method == "maddock" and task != "binary"):
                            continue
                        params = SBDT_GRID.get(method, ({}, {}))[task == "regression"]
                        if task == "multiclass" or params is None:
                            continue
                        job = {"train": train, "test": test, "schema": schema, "epsilon": eps,
                               "delta": delta, "trees": 300, "seed": split + 1, "params": params,
                               "peer": os.path.abspath(peers[method]), "node": False}
                        env = dict(os.environ, SBDT_DELTA=repr(delta))
                        worker = "maddock" if method == "maddock" else "sbdt"
                        res = run_worker(worker, job, os.path.abspath(peers[method]), env)
                    else:
                        config = (dict(NONPRIVATE, seed=split + 1) if method == "nonprivate"
                                  else rdpkit_config(method, eps, delta, split))
                        res = run_rdpkit_full(args.rdpkit, config, train, test, schema_path,
                                              scratch)
                    rec = {"dataset": name, "method": method, "epsilon": eps, "split": split,
                           "delta": delta, "n_train": n_train, "task": task, **res}
                    print(json.dumps(rec), flush=True)
                    with open(args.out, "a") as f:
                        f.write(json.dumps(rec) + "\n")


def run_rdpkit_full(binary, config, train, test, schema_path, scratch):
    """run_rdpkit plus multiclass accuracy (parity.py's keeps auc and rmse only)."""
    import subprocess
    res = run_rdpkit(binary, config, train, test, schema_path, scratch)
    if "auc" not in res and "rmse" not in res:
        model = os.path.join(scratch, "model.json")
        out = subprocess.run([binary, "evaluate", "--model", model, "--data", test],
                             capture_output=True, text=True, check=True)
        ev = json.loads(out.stdout)
        res.update({k: ev[k] for k in ("accuracy", "macro_auc", "log_loss") if k in ev})
    return res


def cell(values, digits):
    """mean ± sd (and the run count when it is not 5): AUC/accuracy with `digits` decimals,
    RMSE (digits 4) with 4 significant digits and a 2-digit sd."""
    if not values:
        return "–"
    mean = statistics.mean(values)
    fmt = (lambda v: f"{v:.4g}") if digits == 4 else (lambda v: f"{v:.{digits}f}")
    fsd = (lambda v: f"{float(f'{v:.2g}'):g}") if digits == 4 else fmt
    if len(values) == 1:
        return f"{fmt(mean)} (1)"
    n = "" if len(values) == 5 else f" ({len(values)})"
    return f"{fmt(mean)} ± {fsd(statistics.stdev(values))}{n}"


def summarize(paths, peer_runs, tables_path="docs/trees_auto_results.md"):
    recs = []
    for path in paths:
        recs += [json.loads(line) for line in open(path)]
    live = {(r["dataset"], r["epsilon"], r["method"]) for r in recs}
    recorded = set()
    if peer_runs:
        for line in open(peer_runs):
            r = json.loads(line)
            # parity.py's "rdpkit" runs are the static defaults on the same splits and δ
            # (regression labels mapped by the public bounds, as here).
            method = {"sbdt": "sbdt", "maddock": "maddock", "rdpkit": "static"}.get(r["method"])
            if method and (r["dataset"], r["epsilon"], method) not in live:
                recorded.add(method)
                recs.append({**r, "method": method,
                             "task": "binary" if "auc" in r else "regression"})
    groups = {}
    for r in recs:
        key = (r["dataset"], r["epsilon"], r["method"])
        groups.setdefault(key, []).append(r.get(metric_of(r["task"])))
    sbdt_methods = list(SBDT_GRID)
    out = ["# Auto settings against S-BDT's and Maddock et al.'s own code: the tables\n",
           "Written by `python3 bench/auto_compare.py --summarize " + " ".join(paths) +
           ("" if peer_runs else " --peer-runs ''") + " --tables " + tables_path + "` (the runs: `bench/auto_compare.py RDPKIT --sbdt "
           "DIR`, protocol in its docstring and docs/trees_auto.md). Do not edit by hand.\n"]
    # Sets beyond the shared ones (bench/extra_sets.py) follow the shared ones.
    extra = sorted({r["dataset"] for r in recs} - set(BINARY + REGRESSION + MULTICLASS))

    def with_extra(shared, task):
        return shared + [n for n in extra if any(r["dataset"] == n and r["task"] == task
                                                 for r in recs)]
    binary = with_extra(BINARY, "binary")
    regression = with_extra(REGRESSION, "regression")
    multiclass = with_extra(MULTICLASS, "multiclass")
    if recorded:
        out.append("Runs of " + ", ".join(sorted(recorded)) + " where this run has none: the "
                   "recorded runs of bench/parity_runs.jsonl (same splits and δ).\n")
    # A section without runs (a summary of the extra regression sets) is left out.
    binary_start = len(out)
    out.append("Binary sets, test AUC, mean ± sd over 5 splits (Maddock: 2). S-BDT best: the best "
               "mean of S-BDT's code over its settings run here (" + ", ".join(sbdt_methods) +
               "), chosen per cell on the test splits, so an optimistic peer. Target: the best of "
               "S-BDT best and Maddock + 0.01; margin: auto − target.\n")
    out.append("| dataset | ε | auto | static (old defaults) | non-private | S-BDT as is | "
               "S-BDT best | Maddock DP-TR | target | margin | met | met vs S-BDT as is |")
    out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    met = met_as_is = total = 0
    eps_list = sorted({r["epsilon"] for r in recs})

    def values(name, eps, method):
        return [v for v in groups.get((name, eps, method), []) if v is not None]

    def best_sbdt(name, eps, lower_better):
        means = {m: statistics.mean(values(name, eps, m)) for m in sbdt_methods
                 if values(name, eps, m)}
        if not means:
            return None, None
        m = (min if lower_better else max)(means, key=means.get)
        return m, means[m]

    for name in binary:
        for eps in eps_list:
            auto = values(name, eps, "auto")
            if not auto:
                continue
            best_m, best = best_sbdt(name, eps, False)
            mad = values(name, eps, "maddock")
            peers = [v for v in (best, statistics.mean(mad) if mad else None) if v is not None]
            as_is = [statistics.mean(v) for v in (values(name, eps, "sbdt"), mad) if v]
            target = max(peers) + 0.01 if peers else None
            mean = statistics.mean(auto)
            ok = target is not None and mean >= target
            ok_as_is = bool(as_is) and mean >= max(as_is) + 0.01
            met += ok
            met_as_is += ok_as_is
            total += target is not None
            best_text = f"{best:.3f} ({best_m})" if best is not None else "–"
            out.append(f"| {name} | {eps:g} | {cell(auto, 3)} | "
                       f"{cell(values(name, eps, 'static'), 3)} | "
                       f"{cell(values(name, eps, 'nonprivate'), 3)} | "
                       f"{cell(values(name, eps, 'sbdt'), 3)} | {best_text} | {cell(mad, 3)} | "
                       + (f"{target:.3f} | {mean - target:+.3f} | {'yes' if ok else '**no**'} | "
                          f"{'yes' if ok_as_is else '**no**'} |"
                          if target is not None else "– | – | – | – |"))
    out.append(f"\nTarget met in {met} of {total} binary cells ({met_as_is} against S-BDT as is "
               "and Maddock).\n")
    if total == 0:
        del out[binary_start:]
    out.append("Regression sets, test RMSE in label units, mean ± sd over 5 splits. Target: below "
               "S-BDT's RMSE (its best setting per cell). \"auto, g* fixed\": the auto settings "
               "without initial_score.adapt_gradient_clip (g* = 0.5).\n")
    out.append("| dataset | ε | auto | auto, g* fixed | static (old defaults) | non-private | "
               "S-BDT as is | S-BDT best | auto / S-BDT best | met |")
    out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    met = total = 0
    for name in regression:
        for eps in eps_list:
            auto = values(name, eps, "auto")
            if not auto:
                continue
            best_m, best = best_sbdt(name, eps, True)
            ratio = statistics.mean(auto) / best if best else None
            ok = ratio is not None and ratio < 1
            met += ok
            total += ratio is not None
            best_text = f"{best:.4g} ({best_m})" if best is not None else "–"
            out.append(f"| {name} | {eps:g} | {cell(auto, 4)} | "
                       f"{cell(values(name, eps, 'auto-fixed-clip'), 4)} | "
                       f"{cell(values(name, eps, 'static'), 4)} | "
                       f"{cell(values(name, eps, 'nonprivate'), 4)} | "
                       f"{cell(values(name, eps, 'sbdt'), 4)} | {best_text} | "
                       + (f"{ratio:.3f} | {'yes' if ok else '**no**'} |" if ratio
                          else "– | – |"))
    out.append(f"\nTarget met in {met} of {total} regression cells.\n")
    multiclass_start = len(out)
    out.append("Multiclass sets, test accuracy, mean ± sd over 5 splits (neither peer trains "
               "multiclass).\n")
    out.append("| dataset | ε | auto | static (old defaults) | non-private |")
    out.append("| --- | --- | ---: | ---: | ---: |")
    for name in multiclass:
        for eps in eps_list:
            if values(name, eps, "auto"):
                out.append(f"| {name} | {eps:g} | {cell(values(name, eps, 'auto'), 3)} | "
                           f"{cell(values(name, eps, 'static'), 3)} | "
                           f"{cell(values(name, eps, 'nonprivate'), 3)} |")
    if not any(values(name, eps, "auto") for name in multiclass for eps in eps_list):
        del out[multiclass_start:]
    out += depth_table(recs, values)
    out.append("\n`rdpkit train` whole-process seconds with the auto settings (wall, and the "
               "process's CPU in parentheses), median over the 5 runs of a data set and ε, on the "
               "shared 2-core machine while other jobs ran:\n")
    out.append("| dataset | n_train | ε = " + " | ε = ".join(f"{e:g}" for e in eps_list) + " |")
    out.append("| --- | ---: |" + " ---: |" * len(eps_list))
    for name in binary + regression + multiclass:
        rs = [r for r in recs if r["dataset"] == name and r["method"] == "auto"]
        if not rs:
            continue
        row = []
        for eps in eps_list:
            w = [r["seconds"] for r in rs if r["epsilon"] == eps]
            c = [r["cpu_seconds"] for r in rs if r["epsilon"] == eps]
            row.append(f"{statistics.median(w):.2f} ({statistics.median(c):.2f})" if w else "–")
        out.append(f"| {name} | {rs[0]['n_train']} | " + " | ".join(row) + " |")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rdpkit", nargs="?")
    ap.add_argument("--summarize", nargs="+", default=None, metavar="RUNS")
    ap.add_argument("--sbdt", default="")
    ap.add_argument("--maddock", default="")
    ap.add_argument("--datasets", default=os.path.join(HERE, "..", "..", "shared", "datasets"))
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--epsilons", default="0.1,0.5,1")
    ap.add_argument("--sets", default=",".join(BINARY + REGRESSION + MULTICLASS))
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--peer-runs", default=os.path.join(HERE, "parity_runs.jsonl"))
    ap.add_argument("--out", default="auto_compare_runs.jsonl")
    ap.add_argument("--tables", default="", help="also write the tables to this file")
    args = ap.parse_args()
    if args.summarize is None:
        if not args.rdpkit:
            ap.error("RDPKIT (the rdpkit binary) is required unless --summarize is given")
        run(args)
    tables = summarize(args.summarize or [args.out], args.peer_runs,
                       args.tables or "docs/trees_auto_results.md")
    print(tables)
    if args.tables:
        with open(args.tables, "w") as f:
            f.write(tables)
    return 0


if __name__ == "__main__":
    sys.exit(main())
