#!/usr/bin/env bash
# Runs the libFuzzer harnesses of fuzz/ one after the other for a total time (docs/fuzzing.md).
#
#   bash scripts/fuzz.sh [TOTAL_SECONDS] [HARNESS...]     default: 600 s, every harness
#   bash scripts/fuzz.sh 3600                             one hour, 12 minutes per harness
#   bash scripts/fuzz.sh 300 event_json model             two harnesses, 150 s each
#
# Builds (or updates) the fuzz build first: clang, -DRDPKIT_BUILD_FUZZ=ON, in $RDPKIT_FUZZ_BUILD
# (default <repo>/build-fuzz, git-ignored). Each harness runs in libFuzzer's fork mode with one
# worker, so a crash, timeout (-timeout=10 s) or out-of-memory (-rss_limit_mb=2048) is saved and
# fuzzing goes on: reproducers go to fuzz/crashes/<harness>/ (git-ignored), inputs that found new
# coverage to $RDPKIT_FUZZ_BUILD/corpus/<harness>/ (the committed seeds in fuzz/corpus/ and
# reproducers of fixed findings in fuzz/regressions/ are only read). The last lines are a table
# per harness: seconds, executions, coverage (edges), corpus size, out-of-memory/timeout/crash
# events, reproducers saved, libFuzzer's exit status.
# Exit status 0 only when no harness found anything.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${RDPKIT_FUZZ_BUILD:-$root/build-fuzz}
total=${1:-600}
shift || true
all_harnesses=(event_json trainer_config schema csv model)
harnesses=("$@")
[[ ${#harnesses[@]} -eq 0 ]] && harnesses=("${all_harnesses[@]}")
if ! [[ $total =~ ^[0-9]+$ ]] || [[ $total -lt ${#harnesses[@]} ]]; then
  echo "fuzz.sh: TOTAL_SECONDS must be an integer >= the number of harnesses (got '$total')" >&2
  exit 2
fi
per=$((total / ${#harnesses[@]}))

if [[ ! -f $build/CMakeCache.txt ]]; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DRDPKIT_BUILD_FUZZ=ON -DRDPKIT_WERROR=OFF \
    -DRDPKIT_BUILD_TESTS=OFF -DRDPKIT_BUILD_BENCH=OFF -DRDPKIT_BUILD_TOOLS=ON || exit 1
fi
targets=()
for harness in "${harnesses[@]}"; do targets+=("${harness}_fuzzer"); done
cmake --build "$build" -j 2 --target "${targets[@]}" || exit 1

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
rows=()
found_total=0
for harness in "${harnesses[@]}"; do
  crashes=$root/fuzz/crashes/$harness
  corpus=$build/corpus/$harness
  log=$build/fuzz-$harness.log
  mkdir -p "$crashes" "$corpus"
  before=$(find "$crashes" -type f | wc -l)
  echo "==== $harness: ${per}s (log: $log)"
  start=$SECONDS
  inputs=("$corpus" "$root/fuzz/corpus/$harness")
  [[ -d $root/fuzz/regressions/$harness ]] && inputs+=("$root/fuzz/regressions/$harness")
  "$build/fuzz/${harness}_fuzzer" "${inputs[@]}" \
    -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$per" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$crashes/" >"$log" 2>&1
  status=$?
  seconds=$((SECONDS - start))
  found=$(($(find "$crashes" -type f | wc -l) - before))
  found_total=$((found_total + found))
  # Fork mode prints one status line per job, totals so far:
  # "#EXECS: cov: C ft: F corp: K exec/s E oom/timeout/crash: O/T/X time: Ss job: J ...".
  last=$(grep -E '^#[0-9]+: cov:' "$log" | tail -n 1)
  execs=$(sed -n 's/^#\([0-9]*\):.*/\1/p' <<<"$last")
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
  otc=$(sed -n 's/.* oom\/timeout\/crash: \([0-9/]*\).*/\1/p' <<<"$last")
  rows+=("$(printf '%-16s %6s %12s %7s %7s %16s %6s %5s' "$harness" "$seconds" "${execs:-?}" \
    "${cov:-?}" "${corp:-?}" "${otc:-?}" "$found" "$status")")
  tail -n 3 "$log"
done

echo
echo "==================== fuzz summary (${total}s total) ===================="
printf '%-16s %6s %12s %7s %7s %16s %6s %5s\n' harness seconds execs cov corpus \
  oom/timeout/crash saved exit
printf '%s\n' "${rows[@]}"
if [[ $found_total -gt 0 ]]; then
  echo "fuzz.sh: $found_total new reproducer(s) in fuzz/crashes/ (minimise with" \
    "<harness>_fuzzer -minimize_crash=1 -runs=10000 FILE)"
  exit 1
fi
echo "fuzz.sh: no crashes, timeouts or out-of-memory"
