#!/usr/bin/env bash
# Distributed training on localhost (docs/distributed.md), as CI runs it (scripts/test.sh):
#
#   bash scripts/mpi_check.sh MPI_BUILD/tools/rdpkit
#
# With a seed and distributed_noise "central", `mpirun -np K rdpkit train` must give the model of
# one process on the concatenated data: for K = 2 and 4, on shards (--data part_%d.csv) and on row
# ranges of one file, for totally random and histogram splits, predictions are compared (at most
# 1e-6 apart). One "shares" run (secure aggregation) must report the single-process privacy
# event. Shards with categorical names train the model of their codes. Prints one line per check and "mpi: N passed, M failed"; exit status 0 when all passed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rdpkit=${1:?usage: mpi_check.sh MPI_BUILD/tools/rdpkit}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpirun=(mpirun --oversubscribe --allow-run-as-root)
data=$root/examples/credit_g.csv
schema=$root/examples/credit_g.schema.json
passed=0
failed=0

check() {  # check NAME COMMAND...
  local name=$1
  shift
  if "$@" >"$work/$name.log" 2>&1; then
    echo "mpi: PASS $name"
    passed=$((passed + 1))
  else
    echo "mpi: FAIL $name"
    tail -n 20 "$work/$name.log"
    failed=$((failed + 1))
  fi
}

# Contiguous shards part_0..part_{K-1} of the data (header on each).
shard() {  # shard K
  python3 - "$data" "$work" "$1" <<'PY'
import sys
path, out, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = open(path).read().splitlines(keepends=True)
header, rows = lines[0], lines[1:]
for r in range(k):
    with open(f"{out}/part{k}_{r}.csv", "w") as f:
        f.write(header)
        f.writelines(rows[len(rows) * r // k:len(rows) * (r + 1) // k])
PY
}

same_predictions() {  # same_predictions MODEL_A MODEL_B
  "$rdpkit" predict --model "$1" --data "$data" --out "$work/a.csv" >/dev/null &&
    "$rdpkit" predict --model "$2" --data "$data" --out "$work/b.csv" >/dev/null &&
    python3 - "$work/a.csv" "$work/b.csv" <<'PY'
import sys
a = [float(x) for x in open(sys.argv[1]).read().split()[1:]]
b = [float(x) for x in open(sys.argv[2]).read().split()[1:]]
worst = max(abs(x - y) for x, y in zip(a, b))
print(f"{len(a)} rows, largest difference {worst:.3g}")
sys.exit(0 if len(a) == len(b) and worst <= 1e-6 else 1)
PY
}

same_privacy() {  # same_privacy MODEL_A MODEL_B: equal privacy blocks
  python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p))["privacy"] for p in sys.argv[1:])
print(json.dumps(a)[:200])
sys.exit(0 if a == b else 1)
PY
}

# mpi_matches SINGLE_MODEL OUT K DATA CONFIG: a K-rank run predicts as the single-process model.
mpi_matches() {
  "${mpirun[@]}" -np "$3" "$rdpkit" train --data "$4" --schema "$schema" --config "$5" \
    --out "$2" --quiet && same_predictions "$1" "$2"
}

configs=(
  "tr|{\"n_estimators\": 20, \"seed\": 5, \"privacy\": {\"epsilon\": 1, \"delta\": 1e-4}}"
  "hist|{\"n_estimators\": 4, \"max_depth\": 3, \"split_method\": \"histogram\", \"seed\": 5, \"privacy\": {\"epsilon\": 1, \"delta\": 1e-4}}"
)
for entry in "${configs[@]}"; do
  IFS='|' read -r name config <<<"$entry"
  check "${name}_single" "$rdpkit" train --data "$data" --schema "$schema" --config "$config" \
    --out "$work/$name.single.json" --quiet
  for k in 2 4; do
    shard "$k"
    check "${name}_np${k}_shards" mpi_matches "$work/$name.single.json" "$work/$name.np$k.json" \
      "$k" "$work/part${k}_%d.csv" "$config"
    check "${name}_np${k}_row_ranges" mpi_matches "$work/$name.single.json" \
      "$work/$name.ranges$k.json" "$k" "$data" "$config"
  done
done
# Secure aggregation: noise as shares; the event is the single-process one.
shares="{\"n_estimators\": 20, \"seed\": 5, \"distributed_noise\": \"shares\", \"privacy\": {\"epsilon\": 1, \"delta\": 1e-4}}"
check shares_np4 "${mpirun[@]}" -np 4 "$rdpkit" train --data "$work/part4_%d.csv" \
  --schema "$schema" --config "$shares" --out "$work/shares.json" --quiet
check shares_event same_privacy "$work/shares.json" "$work/tr.single.json"
# Shards that write the categorical codes by their names (the schema's "codes") train the model
# of the codes, byte for byte (docs/trees.md § CSV).
named_shards() {
  shard 2
  python3 - "$schema" "$work" <<'PY'
import json, sys
schema, work = json.load(open(sys.argv[1])), sys.argv[2]
names = {f["name"]: f["codes"] for f in schema["features"] if f.get("categorical")}
for r in range(2):
    lines = open(f"{work}/part2_{r}.csv").read().splitlines()
    header = lines[0].split(",")
    with open(f"{work}/named2_{r}.csv", "w") as out:
        out.write(lines[0] + "\n")
        for line in lines[1:]:
            cells = line.split(",")
            for i, column in enumerate(header):
                if column in names and cells[i]:
                    name = names[column][int(float(cells[i]))]
                    cells[i] = f'"{name}"' if "," in name else name
            out.write(",".join(cells) + "\n")
PY
  "${mpirun[@]}" -np 2 "$rdpkit" train --data "$work/named2_%d.csv" --schema "$schema" \
    --config "${configs[0]#*|}" --out "$work/named.json" --quiet &&
    "${mpirun[@]}" -np 2 "$rdpkit" train --data "$work/part2_%d.csv" --schema "$schema" \
      --config "${configs[0]#*|}" --out "$work/codes.json" --quiet &&
    grep -q '^<0,' "$work/named2_0.csv" && cmp "$work/named.json" "$work/codes.json"
}
check names_np2_same_model named_shards
# A rank with bad data ends the whole job: exit status 2, the rank and the value named, no model.
bad_shard() {
  shard 2
  sed -i '3s/^[^,]*,/abc,/' "$work/part2_1.csv"
  local status=0
  "${mpirun[@]}" -np 2 "$rdpkit" train --data "$work/part2_%d.csv" --schema "$schema" \
    --epsilon 1 --out "$work/bad.json" --quiet 2>"$work/bad.err" || status=$?
  cat "$work/bad.err"
  [[ $status -eq 2 && ! -e $work/bad.json ]] && grep -q '(rank 1) data: .*row 2 .*"abc" is neither a number' "$work/bad.err"
}
check bad_rank_aborts_the_job bad_shard
echo "mpi: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
