#!/usr/bin/env python3
"""More data sets outside ../shared/datasets, for checking the auto rule on data it was not
chosen on (docs/trees_auto_beyond.md): the binary, regression and multiclass
data frames of Debian's R packages r-cran-aer and r-cran-cardata (the first batch) and
r-cran-modeldata, r-cran-mlbench, r-cran-mlmrev and r-cran-dslabs (the second; the third adds
r-cran-hsaur3 and R's own MASS and survival), written as CSV +
sidecar in the shared sets' format (factors, character and logical columns as integer codes 0..K−1
in R's level order, `categorical`; dates as numbers; missing values as NaN; the data's own label and
feature ranges as the public bounds, as the shared sets take them).

    apt-get install -y --no-install-recommends r-base-core r-cran-aer r-cran-cardata \
        r-cran-modeldata r-cran-mlbench r-cran-mlmrev r-cran-dslabs r-cran-hsaur3
    python3 bench/r_sets.py OUT_DIR [--sets a,b]
    python3 bench/auto_compare.py RDPKIT --datasets OUT_DIR --sets smokeban,... \
        --methods auto,static,nonprivate,sbdt,sbdt-d2,sbdt-d5,sbdt-T600 [--sbdt DIR] --out runs.jsonl

Rows whose label is missing are dropped; the columns a set drops are other outcomes of the same
record (they would leak the label), redundant, or a code unique to each row (a row number: it can
carry no signal). Identifiers shared by several rows (a person, a school) are kept, as a user
might keep them.
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

# name: (R package, data frame, label column, task, positive level for binary (a number: the
# label is 1 from that value on), columns dropped)
SETS = {
    # binary
    "smokeban": ("AER", "SmokeBan", "smoker", "binary", "yes", []),
    "health_insurance": ("AER", "HealthInsurance", "insurance", "binary", "yes", []),
    "resume_names": ("AER", "ResumeNames", "call", "binary", "yes", []),
    "hmda": ("AER", "HMDA", "deny", "binary", "yes", []),
    "arrests": ("carData", "Arrests", "released", "binary", "Yes", []),
    "titanic": ("carData", "TitanicSurvival", "survived", "binary", "yes", []),
    "mroz": ("carData", "Mroz", "lfp", "binary", "yes", []),
    "cowles": ("carData", "Cowles", "volunteer", "binary", "yes", []),
    # a numeric label with a round public threshold: the binary subsampled branch (n ≥ 10 000)
    "cpssw8_20": ("AER", "CPSSW8", "earnings", "binary", 20.0, []),
    # regression
    "cpssw8": ("AER", "CPSSW8", "earnings", "regression", None, []),
    "psid7682": ("AER", "PSID7682", "wage", "regression", None, []),
    "doctorvisits": ("AER", "DoctorVisits", "visits", "regression", None, []),
    "nmes1988": ("AER", "NMES1988", "visits", "regression", None,
                 ["nvisits", "ovisits", "novisits", "emergency", "hospital"]),
    "slid": ("carData", "SLID", "wages", "regression", None, []),
    # multiclass
    "chile": ("carData", "Chile", "vote", "multiclass", None, []),
    "wvs": ("carData", "WVS", "poverty", "multiclass", None, []),
    # second batch: binary
    "credit_data": ("modeldata", "credit_data", "Status", "binary", "bad", []),
    "lending_club": ("modeldata", "lending_club", "Class", "binary", "bad", []),
    "mlc_churn": ("modeldata", "mlc_churn", "churn", "binary", "yes", []),
    "wa_churn": ("modeldata", "wa_churn", "churn", "binary", "Yes", []),
    "attrition": ("modeldata", "attrition", "Attrition", "binary", "Yes", []),
    "stackoverflow": ("modeldata", "stackoverflow", "Remote", "binary", "Remote", []),
    "cells": ("modeldata", "cells", "class", "binary", "PS", ["case"]),  # case: train/test tag
    "ionosphere": ("mlbench", "Ionosphere", "Class", "binary", "good", []),
    "house_votes": ("mlbench", "HouseVotes84", "Class", "binary", "democrat", []),
    "guimmun": ("mlmRev", "guImmun", "immun", "binary", "Y", ["kid"]),
    "contraception": ("mlmRev", "Contraception", "use", "binary", "Y", ["woman"]),
    # second batch: regression
    "ames": ("modeldata", "ames", "Sale_Price", "regression", None, []),
    "concrete": ("modeldata", "concrete", "compressive_strength", "regression", None, []),
    "chicago": ("modeldata", "Chicago", "ridership", "regression", None, []),
    "boston": ("mlbench", "BostonHousing", "medv", "regression", None, []),
    "exam": ("mlmRev", "Exam", "normexam", "regression", None, []),
    "hsb82": ("mlmRev", "Hsb82", "mAch", "regression", None, []),
    "egsingle": ("mlmRev", "egsingle", "math", "regression", None, []),
    "chem97": ("mlmRev", "Chem97", "score", "regression", None, ["student"]),
    # second batch: multiclass
    "hpc": ("modeldata", "hpc_data", "class", "multiclass", None, []),
    "vehicle": ("mlbench", "Vehicle", "Class", "multiclass", None, []),
    "dna": ("mlbench", "DNA", "Class", "multiclass", None, []),
    "olive": ("dslabs", "olive", "region", "multiclass", None, ["area"]),  # area: a finer label
    "letter": ("mlbench", "LetterRecognition", "lettr", "multiclass", None, []),
    "shuttle": ("mlbench", "Shuttle", "Class", "multiclass", None, []),
    # third batch (binary: r-cran-hsaur3, MASS, survival and the packages above); dropped: record
    # numbers, times to the event and other outcomes (Rossi's weekly employment ends at arrest)
    "rossi": ("carData", "Rossi", "arrest", "binary", 1.0,
              ["week"] + [f"emp{i}" for i in range(1, 53)]),
    "college_income": ("AER", "CollegeDistance", "income", "binary", "high", []),
    "nwtco": ("survival", "nwtco", "rel", "binary", 1.0, ["seqno", "edrel"]),
    "colon": ("survival", "colon", "status", "binary", 1.0, ["id", "study", "time"]),
    "respiratory": ("HSAUR3", "respiratory", "status", "binary", "good", []),
    "biopsy": ("MASS", "biopsy", "class", "binary", "malignant", ["ID"]),
    "flchain": ("survival", "flchain", "death", "binary", 1.0, ["futime", "chapter"]),
    "rotterdam": ("survival", "rotterdam", "death", "binary", 1.0,
                  ["pid", "rtime", "dtime", "recur"]),
    "ces11": ("carData", "CES11", "abortion", "binary", "Yes", ["id"]),
    "aids2": ("MASS", "Aids2", "status", "binary", "D", ["death"]),
    "gbsg": ("survival", "gbsg", "status", "binary", 1.0, ["pid", "rfstime"]),
}

# Writes the frame with factors as 0-based codes, and one line per factor: name, ordered, levels.
R_EXPORT = r"""
args <- commandArgs(trailingOnly = TRUE)
suppressMessages(library(args[1], character.only = TRUE))
found <- new.env()
suppressWarnings(data(list = args[2], package = args[1], envir = found))
# survival's data sets are lazy data under other names: take them from the namespace
d <- if (exists(args[2], envir = found)) get(args[2], envir = found) else
  getExportedValue(args[1], args[2])
levels_out <- file(args[4], "w")
for (col in names(d)) {
  x <- d[[col]]
  if (is.character(x) || is.logical(x)) x <- factor(x)
  if (inherits(x, "Date") || inherits(x, "POSIXt")) x <- as.numeric(x)
  d[[col]] <- x
  if (is.factor(x)) {
    writeLines(paste(c(col, if (is.ordered(x)) "1" else "0", levels(x)), collapse = "\t"),
               levels_out)
    d[[col]] <- as.integer(x) - 1L
  } else if (!is.numeric(x)) {
    stop(paste("column", col, "is neither a factor nor numeric"))
  }
}
close(levels_out)
write.csv(d, args[3], row.names = FALSE, na = "NaN")
"""


def export(package, frame, scratch):
    """The data frame as (header, rows of floats, {factor column: (ordered, levels)})."""
    script, data, levels = (os.path.join(scratch, n) for n in ("export.R", "data.csv", "levels"))
    with open(script, "w") as f:
        f.write(R_EXPORT)
    subprocess.run(["Rscript", "--vanilla", script, package, frame, data, levels], check=True)
    factors = {}
    with open(levels) as f:
        for line in f.read().splitlines():
            col, ordered, *codes = line.split("\t")
            factors[col] = (ordered == "1", codes)
    with open(data) as f:
        reader = csv.reader(f)
        header = next(reader)
        rows = [[float(v) for v in r] for r in reader]
    return header, rows, factors


def write_set(name, spec, out, scratch):
    package, frame, label, task, positive, dropped = spec
    header, rows, factors = export(package, frame, scratch)
    keep = [i for i, c in enumerate(header) if c != label and c not in dropped]
    li = header.index(label)
    rows = [r for r in rows if not math.isnan(r[li])]
    labels = [r[li] for r in rows]
    if task == "binary" and isinstance(positive, float):
        labels = [float(v >= positive) for v in labels]
    elif task == "binary":
        labels = [float(v == factors[label][1].index(positive)) for v in labels]
    features = []
    for i in keep:
        col = header[i]
        values = [r[i] for r in rows if not math.isnan(r[i])]
        missing = len(rows) - len(values)
        if col in factors:  # an ordered factor is a numeric feature over its level indices
            ordered, codes = factors[col]
            feature = {"name": col, "categorical": not ordered, "ordered": ordered,
                       "min": 0, "max": len(codes) - 1}
            feature.update({"levels": codes} if ordered else
                           {"n_codes": len(codes), "codes": codes})
        else:
            feature = {"name": col, "categorical": False, "min": min(values),
                       "max": max(values)}
        feature.update({"n_missing": missing, "n_unique": len(set(values))})
        features.append(feature)
    sidecar = {"name": name, "file": f"{name}.csv", "task": task,
               "origin": {"source": "debian", "package": f"r-cran-{package.lower()}",
                          "object": f"{package}::{frame}"},
               "rows": len(rows), "n_features": len(features),
               "label_rule": f"label = {label}" + (f" >= {positive:g}" if isinstance(positive, float)
                                                   else f" == '{positive}'" if positive else "")
               + (" (codes 0..K−1 in R's level order)" if task == "multiclass" else ""),
               "label_stats": {"min": min(labels), "max": max(labels)},
               "missing_values": "written as literal NaN",
               "features": features}
    if task == "multiclass":
        sidecar["classes"] = factors[label][1]
        sidecar["n_classes"] = len(factors[label][1])
    with open(os.path.join(out, f"{name}.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow([header[i] for i in keep] + ["label"])
        for r, y in zip(rows, labels):
            w.writerow([fmt(r[i]) for i in keep] + [fmt(y)])
    with open(os.path.join(out, f"{name}.json"), "w") as f:
        json.dump(sidecar, f, indent=1)
    print(f"{name}: {len(rows)} rows, {len(features)} features, {task}, label {label}")


def fmt(v):
    if math.isnan(v):
        return "NaN"
    return str(int(v)) if v == int(v) else repr(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--sets", default=",".join(SETS))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        for name in args.sets.split(","):
            write_set(name, SETS[name], args.out, scratch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
