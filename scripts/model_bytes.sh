#!/usr/bin/env bash
# Trains one model per trainer option with a fixed seed and writes the model files to OUT_DIR, so
# that two builds of rdpkit can be compared byte for byte after a change that must not alter
# behaviour (e.g. a restructuring of the trainer):
#
#   bash scripts/model_bytes.sh OLD_BUILD/tools/rdpkit /tmp/before
#   bash scripts/model_bytes.sh NEW_BUILD/tools/rdpkit /tmp/after
#   diff -r /tmp/before /tmp/after && echo "same model bytes"
#
# Uses examples/ (binary, numeric and categorical features) and, for regression, a synthetic
# data set written here. Models differ between CPUs with and without AVX2/FMA (the logistic
# kernels are compiled for both), so compare two builds on the same machine.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rdpkit=${1:?usage: model_bytes.sh RDPKIT_BINARY OUT_DIR}
out=${2:?usage: model_bytes.sh RDPKIT_BINARY OUT_DIR}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Regression data: y = 3·x0 − 2·x1 + noise, x in [0, 1] (deterministic, no RNG needed).
python3 - "$work" <<'PY'
import json, math, sys
d = sys.argv[1]
with open(f"{d}/reg.csv", "w") as f:
    f.write("x0,x1,x2,label\n")
    for i in range(1500):
        x0 = (i * 0.6180339887) % 1
        x1 = (i * 0.4142135623) % 1
        x2 = (i * 0.7320508075) % 1
        y = 3 * x0 - 2 * x1 + 0.3 * math.sin(37 * i)
        f.write(f"{x0:.6f},{x1:.6f},{x2:.6f},{y:.6f}\n")
json.dump({"task": "regression",
           "features": [{"name": f"x{j}", "min": 0, "max": 1} for j in range(3)],
           "label": {"min": -2, "max": 3}}, open(f"{d}/reg.schema.json", "w"))
PY

spam=(--data "$root/examples/spambase_train.csv" --schema "$root/examples/spambase.schema.json")
credit=(--data "$root/examples/credit_g.csv" --schema "$root/examples/credit_g.schema.json")
reg=(--data "$work/reg.csv" --schema "$work/reg.schema.json")

# name | data | config (JSON, seed and privacy added unless given)
cases=(
  "tr_newton|spam|{\"n_estimators\": 30}"
  "tr_gradient|spam|{\"n_estimators\": 30, \"leaf_update\": \"gradient\"}"
  "tr_averaging_rf|spam|{\"n_estimators\": 20, \"leaf_update\": \"averaging\", \"batch_size\": 20}"
  "batched|spam|{\"n_estimators\": 30, \"batch_size\": 10}"
  "pr_k_all|spam|{\"n_estimators\": 5, \"split_method\": \"partially_random\", \"max_depth\": 3}"
  "pr_cyclical_k1|spam|{\"n_estimators\": 20, \"split_method\": \"partially_random\", \"feature_interaction\": {\"method\": \"cyclical\", \"k\": 1}}"
  "hist|spam|{\"n_estimators\": 5, \"split_method\": \"histogram\", \"max_depth\": 3}"
  "hist_cyclical_k1|spam|{\"n_estimators\": 20, \"split_method\": \"histogram\", \"feature_interaction\": {\"method\": \"cyclical\", \"k\": 1}}"
  "hist_random_k2|spam|{\"n_estimators\": 10, \"split_method\": \"histogram\", \"max_depth\": 3, \"feature_interaction\": {\"method\": \"random\", \"k\": 2}}"
  "exponential|spam|{\"n_estimators\": 5, \"split_method\": \"exponential\", \"max_depth\": 3}"
  "log_candidates|spam|{\"n_estimators\": 30, \"split_candidates\": {\"method\": \"log\", \"count\": 32}}"
  "many_candidates|spam|{\"n_estimators\": 10, \"split_candidates\": {\"method\": \"uniform\", \"count\": 300}}"
  "ih_tr|spam|{\"n_estimators\": 30, \"split_candidates\": {\"method\": \"iterative_hessian\", \"rounds\": 3}}"
  "ih_hist|spam|{\"n_estimators\": 5, \"split_method\": \"histogram\", \"max_depth\": 3, \"split_candidates\": {\"method\": \"iterative_hessian\", \"rounds\": 3}}"
  "ih_subsample|spam|{\"n_estimators\": 20, \"subsample\": 0.2, \"split_candidates\": {\"method\": \"iterative_hessian\", \"rounds\": 2}}"
  "leaf_balanced|spam|{\"n_estimators\": 30, \"leaf_noise_weights\": [0.2, 0.8]}"
  "subsample|spam|{\"n_estimators\": 30, \"subsample\": 0.3}"
  "subsample_balanced_init|spam|{\"n_estimators\": 30, \"subsample\": 0.1, \"leaf_noise_weights\": [0.2, 0.8], \"initial_score\": {\"epsilon_share\": 0.05, \"label_clip\": 1.0}}"
  "exponential_subsample|spam|{\"n_estimators\": 5, \"split_method\": \"exponential\", \"max_depth\": 3, \"subsample\": 0.5}"
  "renyi_filter|spam|{\"n_estimators\": 20, \"subsample\": 0.2, \"leaf_noise_weights\": [0.2, 0.8], \"renyi_filter\": {\"extra_rounds\": 5}}"
  "renyi_filter_init|spam|{\"n_estimators\": 20, \"initial_score\": {\"epsilon_share\": 0.1, \"label_clip\": 1.0}, \"renyi_filter\": {\"extra_rounds\": 3}}"
  "threads2|spam|{\"n_estimators\": 30, \"threads\": 2}"
  "non_private_tr|spam|{\"n_estimators\": 30, \"non_private\": true}"
  "non_private_hist|spam|{\"n_estimators\": 5, \"non_private\": true, \"split_method\": \"histogram\"}"
  "non_private_exp|spam|{\"n_estimators\": 5, \"non_private\": true, \"split_method\": \"exponential\", \"max_depth\": 3}"
  "quantile|spam|{\"n_estimators\": 30, \"split_candidates\": {\"method\": \"quantile\"}}"
  "credit_tr|credit|{\"n_estimators\": 30, \"privacy\": {\"epsilon\": 1, \"delta\": 1e-4}}"
  "credit_hist|credit|{\"n_estimators\": 5, \"split_method\": \"histogram\", \"max_depth\": 3, \"privacy\": {\"epsilon\": 1, \"delta\": 1e-4}}"
  "credit_ih|credit|{\"n_estimators\": 20, \"split_candidates\": {\"method\": \"iterative_hessian\", \"rounds\": 2}, \"privacy\": {\"epsilon\": 1, \"delta\": 1e-4}}"
  "reg_tr|reg|{\"objective\": \"reg:squarederror\", \"n_estimators\": 30, \"gradient_clip\": 3}"
  "reg_hist|reg|{\"objective\": \"reg:squarederror\", \"n_estimators\": 5, \"split_method\": \"histogram\", \"max_depth\": 3}"
  "reg_averaging|reg|{\"objective\": \"reg:squarederror\", \"n_estimators\": 10, \"leaf_update\": \"averaging\", \"batch_size\": 10}"
  "reg_init_subsample|reg|{\"objective\": \"reg:squarederror\", \"n_estimators\": 20, \"subsample\": 0.5, \"initial_score\": {\"epsilon_share\": 0.05, \"label_clip\": 3}}"
)

for entry in "${cases[@]}"; do
  IFS='|' read -r name data config <<<"$entry"
  config=$(python3 -c '
import json, sys
c = json.loads(sys.argv[1])
c.setdefault("seed", 7)
if "privacy" not in c and "non_private" not in c:
    c["privacy"] = {"epsilon": 1.0}
print(json.dumps(c))' "$config")
  echo "$config" >"$work/$name.json"
  case $data in
    spam) args=("${spam[@]}") ;;
    credit) args=("${credit[@]}") ;;
    reg) args=("${reg[@]}") ;;
  esac
  if "$rdpkit" train "${args[@]}" --config "$work/$name.json" --out "$out/$name.model.json" \
    >"$out/$name.stdout" 2>"$work/$name.stderr"; then
    # stdout without the timing and the output path, which differ between runs
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d.pop("seconds", None)
d.pop("model", None)
json.dump(d, open(sys.argv[1], "w"), sort_keys=True)' "$out/$name.stdout"
    echo "model_bytes.sh: $name $(sha256sum <"$out/$name.model.json" | cut -c1-16)"
  else
    echo "model_bytes.sh: $name FAILED: $(tail -1 "$work/$name.stderr")" | tee "$out/$name.failed"
  fi
done
