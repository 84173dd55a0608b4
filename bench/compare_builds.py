#!/usr/bin/env python3
"""Two builds of rdpkit side by side on the shared binary data sets: noise multiplier and test AUC
of `rdpkit train` per data set and ε (by default with only `privacy` set, the defaults a new user
gets).

    python3 bench/compare_builds.py OLD_RDPKIT NEW_RDPKIT [--datasets DIR] [--splits 3] \\
        [--config JSON] [--stratified] [--accountant-check] [--out-json FILE]

For each data set: `--splits` random 70/30 splits (seeded 0, 1, …; `--stratified`: each class
split 70/30 on its own, as bench/parity.py does), ε ∈ {0.1, 0.5, 1}, δ the trainer's default,
config seed = split + 1; both builds train on the same split with the same config. `--config`
is a JSON object merged under the run's `privacy.epsilon` and `seed` (e.g. `{"n_estimators": 300,
"subsample": 0.1}`). Prints a markdown table of the means (σ, its relative change, AUC, its
change). DIR defaults to ../shared/datasets beside the checkout.

`--accountant-check` also asks NEW, for every model it trained, (1) `rdpkit calibrate
--accountant rdp` on the model's privacy.event with σ replaced by "?" at the same ε and δ: the σ
RDP calibrates for the very event (column "σ RDP"; beside an OLD build that calibrated with RDP
it shows that both builds planned the same event), and (2) `rdpkit epsilon --event
<privacy.event> --delta <privacy.delta>`, which must give back privacy.epsilon exactly and name
privacy.accountant; the mismatches, if any, are listed after the table.
"""
import argparse
import atexit
import csv
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile

from parity import stratified_split  # bench/parity.py, beside this script

HERE = os.path.dirname(os.path.abspath(__file__))
BINARY_SETS = ["spambase", "credit_g", "breast_cancer", "aer_creditcard", "ticdata", "satellite",
               "mplsstops", "pima_diabetes"]
EPSILONS = (0.1, 0.5, 1.0)


def write_split(rows, header, indices, path):
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows[i] for i in indices)


def rdpkit_json(binary, *args):
    done = subprocess.run([binary, *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:1])}: {done.stderr.strip()}")
    return json.loads(done.stdout)


def run(binary, train, test, schema, config, scratch):
    """(σ, test AUC, the model's privacy block) of one training run."""
    model = os.path.join(scratch, "model.json")
    trained = rdpkit_json(binary, "train", "--data", train, "--schema", schema, "--config",
                          config, "--out", model, "--quiet")
    evaluated = rdpkit_json(binary, "evaluate", "--model", model, "--data", test)
    with open(model) as f:
        privacy = json.load(f).get("privacy", {})
    return trained["noise_multiplier"], evaluated["auc"], privacy


def with_unknown(event, sigma):
    """The event with every noise_multiplier equal to σ replaced by "?", and how many."""
    if isinstance(event, list):
        parts = [with_unknown(e, sigma) for e in event]
        return [p for p, _ in parts], sum(n for _, n in parts)
    if not isinstance(event, dict):
        return event, 0
    out, count = {}, 0
    for key, value in event.items():
        if key == "noise_multiplier" and value == sigma:
            out[key], count = "?", count + 1
        else:
            out[key], found = with_unknown(value, sigma)
            count += found
    return out, count


def accountant_check(binary, sigma, epsilon, privacy):
    """(σ by RDP for the model's event, round-trip mismatch or None)."""
    event, unknowns = with_unknown(privacy["event"], sigma)
    sigma_rdp = None
    if unknowns == 1:
        sigma_rdp = rdpkit_json(binary, "calibrate", "--event", json.dumps(event), "--epsilon",
                                repr(epsilon), "--delta", repr(privacy["delta"]),
                                "--accountant", "rdp")["value"]
    back = rdpkit_json(binary, "epsilon", "--event", json.dumps(privacy["event"]), "--delta",
                       repr(privacy["delta"]))
    mismatch = None
    if back["epsilon"] != privacy["epsilon"] or back.get("accountant") != privacy.get(
            "accountant"):
        mismatch = (f"stored ε {privacy['epsilon']!r} ({privacy.get('accountant')}), "
                    f"`rdpkit epsilon` {back['epsilon']!r} ({back.get('accountant')})")
    return sigma_rdp, mismatch


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--datasets", default=os.path.join(HERE, "..", "..", "shared", "datasets"))
    parser.add_argument("--splits", type=int, default=3)
    parser.add_argument("--config", default="{}", help="JSON object of training options")
    parser.add_argument("--stratified", action="store_true")
    parser.add_argument("--accountant-check", action="store_true")
    parser.add_argument("--out-json", help="every run's σ, AUC and privacy block")
    args = parser.parse_args()
    base = json.loads(args.config)
    scratch = tempfile.mkdtemp(prefix="rdpkit_compare_")
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)  # nothing left in /tmp
    check = args.accountant_check
    print("| dataset | ε | σ old | σ new | σ change |" + (" σ RDP | accountant |" if check else "")
          + " AUC old | AUC new | ΔAUC |")
    print("| --- | --- | ---: | ---: | ---: |" + (" ---: | --- |" if check else "")
          + " ---: | ---: | ---: |")
    records, mismatches = [], []
    for name in BINARY_SETS:
        with open(os.path.join(args.datasets, f"{name}.csv")) as f:
            rows = list(csv.reader(f))
        header, body = rows[0], rows[1:]
        schema = os.path.join(args.datasets, f"{name}.json")
        results = {eps: [] for eps in EPSILONS}
        for split in range(args.splits):
            if args.stratified:
                train_rows, test_rows = stratified_split([r[-1] for r in body], split, True)
            else:
                order = list(range(len(body)))
                random.Random(split).shuffle(order)
                cut = int(0.7 * len(order))
                train_rows, test_rows = order[:cut], order[cut:]
            train = os.path.join(scratch, "train.csv")
            test = os.path.join(scratch, "test.csv")
            write_split(body, header, train_rows, train)
            write_split(body, header, test_rows, test)
            for eps in EPSILONS:
                config = os.path.join(scratch, "config.json")
                with open(config, "w") as f:
                    json.dump({**base, "privacy": {**base.get("privacy", {}), "epsilon": eps},
                               "seed": split + 1}, f)
                old = run(args.old, train, test, schema, config, scratch)
                new = run(args.new, train, test, schema, config, scratch)
                record = {"dataset": name, "split": split, "epsilon": eps,
                          "old": {"sigma": old[0], "auc": old[1], "privacy": old[2]},
                          "new": {"sigma": new[0], "auc": new[1], "privacy": new[2]}}
                if check:
                    record["sigma_rdp"], mismatch = accountant_check(args.new, new[0], eps, new[2])
                    if mismatch:
                        mismatches.append(f"{name}, ε {eps}, split {split}: {mismatch}")
                records.append(record)
                results[eps].append(record)
        for eps in EPSILONS:
            runs = results[eps]
            s_old = statistics.mean(r["old"]["sigma"] for r in runs)
            s_new = statistics.mean(r["new"]["sigma"] for r in runs)
            a_old = statistics.mean(r["old"]["auc"] for r in runs)
            a_new = statistics.mean(r["new"]["auc"] for r in runs)
            extra = ""
            if check:
                rdp = [r["sigma_rdp"] for r in runs if r["sigma_rdp"] is not None]
                accountants = sorted({r["new"]["privacy"].get("accountant", "?") for r in runs})
                extra = (f" {statistics.mean(rdp):.3f} |" if len(rdp) == len(runs) else " – |") \
                    + f" {', '.join(accountants)} |"
            print(f"| {name} | {eps} | {s_old:.3f} | {s_new:.3f} | "
                  f"{100 * (s_new / s_old - 1):+.1f} % |{extra} {a_old:.4f} | {a_new:.4f} | "
                  f"{a_new - a_old:+.4f} |", flush=True)
    if check:
        print(f"\nε round trip (`rdpkit epsilon` on each new model's privacy.event and δ): "
              f"{len(records) - len(mismatches)} of {len(records)} give back privacy.epsilon "
              "exactly" + (":" if mismatches else "."))
        for line in mismatches:
            print(f"- {line}")
    if args.out_json:
        with open(args.out_json, "w") as f:
            json.dump(records, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
