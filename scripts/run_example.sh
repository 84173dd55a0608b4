#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds rdpkit (Release) and runs the main job on bundled
# examples:
#
#   bash scripts/run_example.sh
#
#   1. the accountant: calibrate the Gaussian noise for (ε = 1, δ = 1e-6) over 500 Poisson-
#      subsampled rounds (rate 0.01), then ask for the ε of the calibrated event;
#   2. private trees: train on examples/spambase, print the test AUC next to a non-private
#      baseline and the ε recorded in the model;
#   3. install the program for this user (into $RDPKIT_PREFIX, default ~/.local) so that `rdpkit`
#      works as the README writes it, and end with a short summary.
#
# The build goes to $RDPKIT_BUILD_ROOT/example (default: <repo>/build-example, git-ignored); its
# output goes to build.log there and is shown only when the build fails.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ -n ${RDPKIT_BUILD_ROOT:-} ]]; then
  build=$RDPKIT_BUILD_ROOT/example
else
  build=$root/build-example
fi

echo "== setup: scripts/setup.sh"
bash "$root/scripts/setup.sh"

echo "== build: Release, target rdpkit (a few minutes on 2 cores; log: $build/build.log)"
mkdir -p "$build"
if ! { cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRDPKIT_BUILD_TESTS=OFF \
  -DRDPKIT_BUILD_BENCH=OFF -DRDPKIT_BUILD_TOOLS=ON &&
  cmake --build "$build" -j "$(nproc)" --target rdpkit; } >"$build/build.log" 2>&1; then
  tail -n 40 "$build/build.log"
  echo "run_example.sh: the build failed (whole log: $build/build.log)" >&2
  exit 1
fi
rdpkit=$build/tools/rdpkit
delta=1e-6

# Prints the JSON value at a key path (python3 ships with the setup) of the object on stdin.
json_get() {
  python3 -c 'import json, sys
value = json.load(sys.stdin)
for key in sys.argv[1:]:
    value = value[key]
print(json.dumps(value) if isinstance(value, (dict, list)) else value)' "$@"
}

show() {  # prints the command line as a user would type it
  printf '\n$ rdpkit'
  local arg
  for arg in "$@"; do
    if [[ $arg =~ ^[A-Za-z0-9_./:=,+-]+$ ]]; then printf ' %s' "$arg"; else printf " '%s'" "$arg"; fi
  done
  printf '\n'
}

run() {
  show "$@"
  "$rdpkit" "$@"
}

# ------------------------------------------------------------------ 1. accountant
echo
echo "== 1. accountant: noise for epsilon = 1 at delta = $delta over 500 rounds, each a Gaussian"
echo "==    on a Poisson sample of rate 0.01"
template='{"self_composed": {"count": 500, "event": {"poisson_sampled": {"sampling_probability": 0.01, "event": {"gaussian": {"noise_multiplier": "?"}}}}}}'
show calibrate --event "$template" --epsilon 1 --delta "$delta"
calibrated=$("$rdpkit" calibrate --event "$template" --epsilon 1 --delta "$delta")
echo "$calibrated"
event=$(json_get event <<<"$calibrated")
echo
echo "== the calibrated event, checked independently by 'rdpkit epsilon' (certified upper bound):"
run epsilon --event "$event" --delta "$delta"

# ------------------------------------------------------------------ 2. private trees
data=$root/examples
echo
echo "== 2. private gradient-boosted trees on examples/spambase"
workdir=$build/example_run
mkdir -p "$workdir"
config=$data/spambase.config.json
run train --data "$data/spambase_train.csv" --schema "$data/spambase.schema.json" \
  --config "$config" --out "$workdir/spambase_model.json" --quiet
run evaluate --model "$workdir/spambase_model.json" --data "$data/spambase_test.csv"
private_auc=$("$rdpkit" evaluate --model "$workdir/spambase_model.json" \
  --data "$data/spambase_test.csv" | json_get auc)
model_event=$(json_get privacy event <"$workdir/spambase_model.json")
model_delta=$(json_get privacy delta <"$workdir/spambase_model.json")
model_epsilon=$(json_get privacy epsilon <"$workdir/spambase_model.json")
sigma=$(json_get self_composed event gaussian noise_multiplier <<<"$model_event")
echo
echo "== epsilon of the training run, recomputed from the event recorded in the model:"
run epsilon --event "$model_event" --delta "$model_delta"
echo
echo "== the same trees without any noise (a non-private baseline, not for release):"
baseline='{"n_estimators": 100, "max_depth": 4, "learning_rate": 0.3, "split_candidates": {"method": "log", "count": 32}, "non_private": true, "seed": 1}'
run train --data "$data/spambase_train.csv" --schema "$data/spambase.schema.json" \
  --config "$baseline" --out "$workdir/baseline_model.json" --quiet
baseline_auc=$("$rdpkit" evaluate --model "$workdir/baseline_model.json" \
  --data "$data/spambase_test.csv" | json_get auc)

# ------------------------------------------------------------------ 3. install
prefix=${RDPKIT_PREFIX:-$HOME/.local}
cmake --install "$build" --prefix "$prefix" >>"$build/build.log" 2>&1
calibrated_sigma=$(json_get value <<<"$calibrated")

printf '\n== summary\n'
printf '  accountant: 500 subsampled rounds at (epsilon 1, delta %s) need noise multiplier %.4f\n' \
  "$delta" "$calibrated_sigma"
printf '  trees:      test AUC %.4f with epsilon %.6f (delta %s, noise multiplier %.2f);\n' \
  "$private_auc" "$model_epsilon" "$model_delta" "$sigma"
printf '              %.4f without privacy (the ceiling)\n' "$baseline_auc"
printf '  installed:  %s/bin/rdpkit (libraries, headers and the CMake package too)\n' "$prefix"
case ":$PATH:" in
  *":$prefix/bin:"*) ;;
  *) printf '  to type `rdpkit` as the README does:  export PATH="%s/bin:$PATH"\n' "$prefix" ;;
esac
