#!/usr/bin/env bash
# The 3M-row comparison of docs/trees.md "Large data" and docs/distributed.md "Measured":
# rdpkit train (DP-TR and histogram splits, 100 trees of depth 6) against Debian's XGBoost CLI
# (`apt-get install xgboost`, tree_method hist, the same trees, depth and nthread) on the table of
# bench/make_large_csv.py, and rdpkit over 1, 2 and 4 MPI ranks (an rdpkit built with
# -DRDPKIT_WITH_MPI=ON, given as MPI_RDPKIT). Whole-process wall time and peak memory from
# /usr/bin/time -v, RUNS runs each, interleaved; prints one line per run.
#
#   bash bench/scale_vs_xgboost.sh RDPKIT [MPI_RDPKIT] [WORK_DIR=/tmp/rdpkit_scale] [RUNS=3]
#
# RDPKIT_SCALE_ROWS (default 3000000) sets the table's rows (a small value for a quick check).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rdpkit=$(realpath "${1:?usage: scale_vs_xgboost.sh RDPKIT [MPI_RDPKIT] [WORK_DIR] [RUNS]}")
mpi_rdpkit=${2:+$(realpath "$2")}
work=${3:-/tmp/rdpkit_scale}
runs=${4:-3}
mkdir -p "$work"
cd "$work"
if [[ ! -f credit.csv ]]; then
  /usr/bin/python3 "$root/bench/make_large_csv.py" credit.csv --rows "${RDPKIT_SCALE_ROWS:-3000000}" \
    --shards 4
  /usr/bin/python3 - <<'PY'
lines = open("credit.csv").read().splitlines(keepends=True)
header, rows = lines[0], lines[1:]
open("credit.noheader.csv", "w").writelines(rows)  # XGBoost's CSV reader takes no header
with open("credit_2of3.csv", "w") as f:  # two thirds of the rows: the memory's slope
    f.write(header)
    f.writelines(rows[:len(rows) * 2 // 3])
for k in range(2):
    with open(f"credit_2x{k}.csv", "w") as f:
        f.write(header)
        f.writelines(rows[len(rows) * k // 2:len(rows) * (k + 1) // 2])
PY
fi
for t in 1 2; do
  echo "{\"n_estimators\": 100, \"max_depth\": 6, \"seed\": 1, \"threads\": $t, \"privacy\": {\"epsilon\": 1}}" >"tr$t.json"
  echo "{\"n_estimators\": 100, \"max_depth\": 6, \"seed\": 1, \"threads\": $t, \"split_method\": \"histogram\", \"privacy\": {\"epsilon\": 1}}" >"hist$t.json"
  for bins in 32 256; do
    cat >"xgb${t}_$bins.conf" <<CONF
booster = gbtree
objective = binary:logistic
tree_method = hist
max_depth = 6
num_round = 100
eta = 0.3
max_bin = $bins
nthread = $t
data = "credit.noheader.csv?format=csv&label_column=7"
model_out = xgb.model
CONF
  done
done

timed() {  # timed LABEL COMMAND...: one line "LABEL wall_s peak_KiB"
  local label=$1
  shift
  /usr/bin/time -v "$@" >/dev/null 2>"$work/time.txt"
  printf '%-40s %8s s %8s KiB\n' "$label" \
    "$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt")" \
    "$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")"
}

schema=(--schema credit.schema.json)
for ((run = 1; run <= runs; run++)); do
  for t in 1 2; do
    timed "rdpkit DP-TR threads=$t" "$rdpkit" train --data credit.csv "${schema[@]}" \
      --config "tr$t.json" --out m.json --quiet
    timed "xgboost hist nthread=$t max_bin=32" xgboost "xgb${t}_32.conf"
    timed "xgboost hist nthread=$t max_bin=256" xgboost "xgb${t}_256.conf"
    timed "rdpkit histogram threads=$t" "$rdpkit" train --data credit.csv "${schema[@]}" \
      --config "hist$t.json" --out m.json --quiet
  done
  # Peak memory at 2/3 and all of the rows: the difference over the rows is the bytes a row.
  timed "rdpkit DP-TR threads=1, 2/3 of the rows" "$rdpkit" train --data credit_2of3.csv \
    "${schema[@]}" --config tr1.json --out m.json --quiet
  if [[ -n $mpi_rdpkit ]]; then
    mpirun=(mpirun --oversubscribe --allow-run-as-root)
    timed "rdpkit DP-TR ranks=1" "${mpirun[@]}" -np 1 "$mpi_rdpkit" train --data credit.csv \
      "${schema[@]}" --config tr1.json --out r1.json --quiet
    timed "rdpkit DP-TR ranks=2" "${mpirun[@]}" -np 2 "$mpi_rdpkit" train \
      --data 'credit_2x%d.csv' "${schema[@]}" --config tr1.json --out r2.json --report r2.log.json --quiet
    timed "rdpkit DP-TR ranks=4" "${mpirun[@]}" -np 4 "$mpi_rdpkit" train --data 'credit_%d.csv' \
      "${schema[@]}" --config tr1.json --out r4.json --report r4.log.json --quiet
    for k in 2 4; do
      echo "ranks=$k: $(/usr/bin/python3 -c "import json; print(json.load(open('r$k.log.json'))['communication_bytes'] // 100)") bytes to collectives per tree (all ranks)"
    done
  fi
done
