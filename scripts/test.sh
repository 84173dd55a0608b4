#!/usr/bin/env bash
# Builds rdpkit and runs every check that CI runs (CI calls exactly this script, see .ci/run):
#
#   1. dependencies           scripts/setup.sh (idempotent)
#   2. Release build          -Werror, tests + benchmarks + tools, then ctest (all tests)
#   2b. MPI                   the rdpkit program alone built with -DRDPKIT_WITH_MPI=ON, then
#                             scripts/mpi_check.sh: 2- and 4-rank mpirun jobs on localhost against
#                             the single-process model (docs/distributed.md)
#   3. clang-format           every tracked *.h / *.cc must be formatted (.clang-format)
#   4. sanitizers             ASan + UBSan build of the accountant, mechanisms and trees suites,
#                             ctest -L 'accountant|mechanisms|trees'
#   5. install + consumer     install the Release build to a temporary prefix, then build and run
#                             tests/consumer (C++17, find_package(rdpkit), rdpkit::accountant alone)
#                             and the README's C++ example (README.md must quote it verbatim)
#   6. fuzz                   clang build of fuzz/ (libFuzzer + ASan + UBSan); each harness runs
#                             $RDPKIT_FUZZ_SECONDS (default 20) s from its committed seeds and
#                             regressions (docs/fuzzing.md); any crash, timeout or OOM fails
#   7. Python package         pip install . --no-build-isolation into a folder, then pytest
#                             python/tests (README "Python"), comparing with step 2's rdpkit
#
#   bash scripts/test.sh
#
# Build folders go under $RDPKIT_BUILD_ROOT (default: <repo>/build-test, git-ignored).
# Exit status 0 only when every step passed. The last line is "summary: N passed, M failed",
# counting ctest cases of steps 2 and 4, the checks of step 2b, one for each of steps 3 and 5, one per fuzz harness
# of step 6 and the pytest cases of step 7 (a step that fails before its tests run counts as one
# failure).
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_root=${RDPKIT_BUILD_ROOT:-$root/build-test}
jobs=$(nproc)
ctest_jobs=2
start_all=$SECONDS
# ccache, when present, lets the MPI build of step 2b reuse step 2's objects (and later runs on
# the same machine reuse both); paths relative to the checkout so that any clone hits.
launcher=()
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR=$root
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

# Step bookkeeping for the summary table.
step_names=()
step_results=()
step_details=()
step_seconds=()
cases_passed=0
cases_failed=0

record() {  # record NAME RESULT DETAIL SECONDS
  step_names+=("$1")
  step_results+=("$2")
  step_details+=("$3")
  step_seconds+=("$4")
}

banner() {
  echo
  echo "==================== $* ===================="
}

duration() {
  printf '%dm%02ds' $(($1 / 60)) $(($1 % 60))
}

# Lines that say why a step failed, repeated just above the summary table, so that the end of
# the output (all a CI page may keep) names the cause.
failure_notes=()

print_summary() {
  local i
  if [[ ${#failure_notes[@]} -gt 0 ]]; then
    banner "why steps failed"
    printf '  %s\n' "${failure_notes[@]}"
  fi
  banner "rdpkit test summary"
  for i in "${!step_names[@]}"; do
    printf '  %-28s %-8s %-34s %s\n' "${step_names[$i]}" "${step_results[$i]}" \
      "${step_details[$i]}" "$(duration "${step_seconds[$i]}")"
  done
  echo "  total wall time: $(duration $((SECONDS - start_all)))"
  local failed_steps=0 result
  for result in "${step_results[@]}"; do
    [[ $result == FAIL ]] && failed_steps=$((failed_steps + 1))
  done
  if [[ $failed_steps -eq 0 ]]; then
    echo "test.sh: ALL STEPS PASSED"
  else
    echo "test.sh: $failed_steps STEP(S) FAILED"
  fi
  echo "summary: $cases_passed passed, $cases_failed failed"
  [[ $failed_steps -eq 0 ]]
}

# run_ctest LOG ARGS...: runs ctest, tees its output to LOG, sets ctest_total/ctest_failed.
run_ctest() {
  local log=$1
  shift
  ctest "$@" --output-on-failure --timeout 900 2>&1 | tee "$log"
  local status=${PIPESTATUS[0]}
  ctest_total=$(sed -n 's/.*tests passed, [0-9]* tests\{0,1\} failed out of \([0-9]*\).*/\1/p' \
    "$log" | tail -n 1)
  ctest_failed=$(sed -n 's/.*tests passed, \([0-9]*\) tests\{0,1\} failed out of.*/\1/p' \
    "$log" | tail -n 1)
  ctest_total=${ctest_total:-0}
  ctest_failed=${ctest_failed:-0}
  if [[ $status -ne 0 ]]; then
    # ctest's list of failed tests ("  12 - Suite.Test (Failed)"), at most 10 of them.
    mapfile -t why < <(sed -n '/The following tests FAILED/,$p' "$log" | sed -n '2,11p')
    failure_notes+=("ctest $(basename "$log" .log) (exit $status):" "${why[@]}")
  fi
  return "$status"
}

mkdir -p "$build_root"

# ---------------------------------------------------------------- 1. dependencies
banner "1/7 dependencies (scripts/setup.sh)"
t=$SECONDS
if bash "$root/scripts/setup.sh"; then
  record "dependencies" PASS "" $((SECONDS - t))
else
  record "dependencies" FAIL "scripts/setup.sh failed" $((SECONDS - t))
  cases_failed=$((cases_failed + 1))
  print_summary
  exit 1
fi

# ---------------------------------------------------------------- 2. Release build + ctest
banner "2/7 Release build (-Werror, tests, bench, tools) + ctest"
release=$build_root/release
t=$SECONDS
if cmake -S "$root" -B "$release" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DRDPKIT_WERROR=ON -DRDPKIT_BUILD_TESTS=ON -DRDPKIT_BUILD_BENCH=ON -DRDPKIT_BUILD_TOOLS=ON \
  -DRDPKIT_SANITIZE=OFF "${launcher[@]}" &&
  cmake --build "$release" -j "$jobs"; then
  record "Release build (-Werror)" PASS "" $((SECONDS - t))
else
  record "Release build (-Werror)" FAIL "compile/configure error above" $((SECONDS - t))
  cases_failed=$((cases_failed + 1))
  print_summary
  exit 1
fi

t=$SECONDS
if run_ctest "$build_root/ctest-release.log" --test-dir "$release" -j "$ctest_jobs" &&
  [[ $ctest_total -gt 0 ]]; then
  record "ctest (all tests)" PASS "$ctest_total/$ctest_total tests" $((SECONDS - t))
else
  record "ctest (all tests)" FAIL "$ctest_failed of $ctest_total tests failed" $((SECONDS - t))
  [[ $ctest_total -eq 0 ]] && cases_failed=$((cases_failed + 1))
fi
cases_passed=$((cases_passed + ctest_total - ctest_failed))
cases_failed=$((cases_failed + ctest_failed))

# ---------------------------------------------------------------- 2b. MPI
banner "2b/7 MPI: rdpkit with -DRDPKIT_WITH_MPI=ON, 2- and 4-rank jobs (scripts/mpi_check.sh)"
mpi=$build_root/mpi
t=$SECONDS
if ! cmake -S "$root" -B "$mpi" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRDPKIT_WERROR=ON \
  -DRDPKIT_WITH_MPI=ON -DRDPKIT_BUILD_TESTS=OFF -DRDPKIT_BUILD_BENCH=OFF "${launcher[@]}" ||
  ! cmake --build "$mpi" -j "$jobs" --target rdpkit; then
  record "MPI (2 and 4 ranks)" FAIL "MPI build failed" $((SECONDS - t))
  cases_failed=$((cases_failed + 1))
else
  bash "$root/scripts/mpi_check.sh" "$mpi/tools/rdpkit" 2>&1 | tee "$build_root/mpi.log"
  mpi_status=${PIPESTATUS[0]}
  mpi_passed=$(sed -n 's/^mpi: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$build_root/mpi.log")
  mpi_failed=$(sed -n 's/^mpi: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$build_root/mpi.log")
  mpi_passed=${mpi_passed:-0}
  mpi_failed=${mpi_failed:-1}
  if [[ $mpi_status -eq 0 && $mpi_passed -gt 0 ]]; then
    record "MPI (2 and 4 ranks)" PASS "$mpi_passed checks" $((SECONDS - t))
  else
    record "MPI (2 and 4 ranks)" FAIL "$mpi_failed of $((mpi_passed + mpi_failed)) checks failed" \
      $((SECONDS - t))
    [[ $mpi_failed -eq 0 ]] && mpi_failed=1
  fi
  cases_passed=$((cases_passed + mpi_passed))
  cases_failed=$((cases_failed + mpi_failed))
fi

# ---------------------------------------------------------------- 3. clang-format
banner "3/7 clang-format check ($(clang-format --version | head -n 1))"
t=$SECONDS
mapfile -t sources < <(git -C "$root" -c safe.directory="$root" ls-files -- '*.h' '*.cc')
unformatted=()
for file in "${sources[@]}"; do
  if ! clang-format --style=file --dry-run --Werror "$root/$file" >/dev/null 2>&1; then
    unformatted+=("$file")
  fi
done
if [[ ${#sources[@]} -eq 0 ]]; then
  echo "no tracked *.h/*.cc files found (is $root a git checkout?)"
  record "clang-format" FAIL "no tracked sources found" $((SECONDS - t))
  cases_failed=$((cases_failed + 1))
elif [[ ${#unformatted[@]} -eq 0 ]]; then
  echo "all ${#sources[@]} tracked *.h/*.cc files are formatted"
  record "clang-format" PASS "${#sources[@]} files" $((SECONDS - t))
  cases_passed=$((cases_passed + 1))
else
  echo "not formatted (fix with: clang-format -i <file>):"
  printf '  %s\n' "${unformatted[@]}"
  record "clang-format" FAIL "${#unformatted[@]} of ${#sources[@]} files unformatted" \
    $((SECONDS - t))
  cases_failed=$((cases_failed + 1))
fi

# ---------------------------------------------------------------- 4. sanitizers
sanitize_labels='accountant|mechanisms|trees'
# Too slow under ASan + UBSan, so left to the Release ctest of step 2 (which runs every test):
#   Train.SameSeedGivesTheSameModelBytes  16 trainings, each calibrating a Poisson-subsampled
#     event on the certified path: 185 s here (the whole trees suite: 294 s), for a determinism
#     property that instrumentation cannot change; the same code paths run in other trees tests.
#   PlanPrivacy.SubsamplingAndInitialScoreStayWithinTarget  three certified calibrations of
#     Poisson-subsampled runs: 150 s here on a loaded machine (50 s in Release); the accountant
#     code it runs is covered under the sanitizers by the accountant suite's calibration tests.
sanitize_exclude='^(Train\.SameSeedGivesTheSameModelBytes|PlanPrivacy\.SubsamplingAndInitialScoreStayWithinTarget)$'
banner "4/7 ASan + UBSan build of the accountant, mechanisms and trees tests, ctest -L '$sanitize_labels'"
sanitize=$build_root/sanitize
t=$SECONDS
# Each suite's executable(s): every rdpkit_add_test_suite(<name> ...) in tests/<module>/, plus the
# rdpkit program that the mechanisms and trees suites run end to end.
sanitize_targets=()
for module in accountant mechanisms trees; do
  if [[ -f $root/tests/$module/CMakeLists.txt ]]; then
    mapfile -t -O "${#sanitize_targets[@]}" sanitize_targets < <(sed -n \
      's/^ *rdpkit_add_test_suite( *\([A-Za-z0-9_]*\).*/\1/p' "$root/tests/$module/CMakeLists.txt")
  fi
done
if [[ ${#sanitize_targets[@]} -eq 0 ]]; then
  echo "SKIPPED: tests/{accountant,mechanisms,trees}/CMakeLists.txt define no test suite yet"
  record "sanitizers (ASan+UBSan)" SKIPPED "no test target" $((SECONDS - t))
else
  # Warnings are checked by the Release build; GCC's sanitizer instrumentation adds false
  # -Wmaybe-uninitialized reports, so this build does not use -Werror.
  # -O1 -g1: the usual sanitizer setting; much cheaper to compile than -O2 -g on 2 cores.
  if cmake -S "$root" -B "$sanitize" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
    -DRDPKIT_SANITIZE=ON -DRDPKIT_WERROR=OFF -DRDPKIT_BUILD_TESTS=ON -DRDPKIT_BUILD_TOOLS=ON \
    -DRDPKIT_BUILD_BENCH=OFF &&
    cmake --build "$sanitize" -j "$jobs" --target "${sanitize_targets[@]}" rdpkit; then
    export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:strict_string_checks=1
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    if run_ctest "$build_root/ctest-sanitize.log" --test-dir "$sanitize" -j "$ctest_jobs" \
      -L "$sanitize_labels" -E "$sanitize_exclude" && [[ $ctest_total -gt 0 ]]; then
      record "sanitizers (ASan+UBSan)" PASS "$ctest_total/$ctest_total acc+mech+trees tests" \
        $((SECONDS - t))
    else
      record "sanitizers (ASan+UBSan)" FAIL "$ctest_failed of $ctest_total tests failed" \
        $((SECONDS - t))
      [[ $ctest_total -eq 0 ]] && cases_failed=$((cases_failed + 1))
    fi
    cases_passed=$((cases_passed + ctest_total - ctest_failed))
    cases_failed=$((cases_failed + ctest_failed))
  else
    record "sanitizers (ASan+UBSan)" FAIL "sanitizer build failed" $((SECONDS - t))
    cases_failed=$((cases_failed + 1))
  fi
fi

# ---------------------------------------------------------------- 5. install + consumer
banner "5/7 install to a temporary prefix, build + run tests/consumer against it"
t=$SECONDS
prefix=$(mktemp -d "${TMPDIR:-/tmp}/rdpkit-install.XXXXXX")
trap 'rm -rf "$prefix"' EXIT
consumer=$build_root/consumer
rm -rf "$consumer"
consumer_ok=false
# No package registry: the consumer must find the installed package and nothing else.
if cmake --install "$release" --prefix "$prefix" &&
  cmake -S "$root/tests/consumer" -B "$consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON \
    -DCMAKE_FIND_PACKAGE_NO_SYSTEM_PACKAGE_REGISTRY=ON &&
  cmake --build "$consumer" -j "$jobs"; then
  found=$(sed -n 's/^rdpkit_DIR:PATH=//p' "$consumer/CMakeCache.txt")
  if [[ $found != "$prefix"/* ]]; then
    echo "consumer found rdpkit at '$found', not in the installed prefix $prefix"
  elif "$consumer/rdpkit_consumer" && "$consumer/readme_example"; then
    consumer_ok=true
  fi
fi
# README.md must show tests/consumer/readme_example.cc verbatim, so its example always compiles.
if ! python3 -c 'import sys; sys.exit(open(sys.argv[2]).read() not in open(sys.argv[1]).read())' \
  "$root/README.md" "$root/tests/consumer/readme_example.cc" 2>/dev/null; then
  echo "README.md does not quote tests/consumer/readme_example.cc verbatim"
  consumer_ok=false
fi
if $consumer_ok; then
  record "install + consumer (C++17)" PASS "rdpkit::accountant from prefix" $((SECONDS - t))
  cases_passed=$((cases_passed + 1))
else
  record "install + consumer (C++17)" FAIL "see output above" $((SECONDS - t))
  cases_failed=$((cases_failed + 1))
fi

# ---------------------------------------------------------------- 6. fuzz
fuzz_seconds=${RDPKIT_FUZZ_SECONDS:-20}
banner "6/7 fuzz: clang + libFuzzer + ASan + UBSan, ${fuzz_seconds} s per harness"
fuzz=$build_root/fuzz
t=$SECONDS
# The harnesses: every fuzz/<harness>_fuzzer.cc (docs/fuzzing.md).
mapfile -t harnesses < <(cd "$root/fuzz" 2>/dev/null && ls -- *_fuzzer.cc 2>/dev/null |
  sed 's/_fuzzer\.cc$//')
if [[ ${#harnesses[@]} -eq 0 ]]; then
  echo "SKIPPED: no fuzz/*_fuzzer.cc"
  record "fuzz (libFuzzer)" SKIPPED "no harness" $((SECONDS - t))
elif ! CC=clang CXX=clang++ cmake -S "$root" -B "$fuzz" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DRDPKIT_BUILD_FUZZ=ON -DRDPKIT_WERROR=OFF -DRDPKIT_BUILD_TESTS=OFF -DRDPKIT_BUILD_BENCH=OFF \
  -DRDPKIT_BUILD_TOOLS=ON ||
  ! cmake --build "$fuzz" -j "$jobs" --target "${harnesses[@]/%/_fuzzer}"; then
  record "fuzz (libFuzzer)" FAIL "fuzz build failed" $((SECONDS - t))
  cases_failed=$((cases_failed + 1))
else
  export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  fuzz_failed=()
  for harness in "${harnesses[@]}"; do
    # A fresh working corpus each run: CI starts from the committed seeds and regressions only.
    work=$fuzz/corpus-ci/$harness
    artifacts=$fuzz/artifacts/$harness
    rm -rf "$work" "$artifacts"
    mkdir -p "$work" "$artifacts"
    inputs=("$work" "$root/fuzz/corpus/$harness")
    [[ -d $root/fuzz/regressions/$harness ]] && inputs+=("$root/fuzz/regressions/$harness")
    echo "---- $harness"
    "$fuzz/fuzz/${harness}_fuzzer" "${inputs[@]}" -max_total_time="$fuzz_seconds" \
      -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" \
      >"$fuzz/$harness.log" 2>&1
    status=$?
    grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|SUMMARY|==[0-9]+==ERROR)' \
      "$fuzz/$harness.log"
    if [[ $status -eq 0 ]]; then
      cases_passed=$((cases_passed + 1))
    else
      echo "$harness FAILED (exit $status); reproducer(s) in $artifacts:"
      ls "$artifacts"
      tail -n 60 "$fuzz/$harness.log"
      mapfile -t why < <(grep -E -m 4 '(invariant failed|^SUMMARY|== ?ERROR|^Base64:)' \
        "$fuzz/$harness.log" | cut -c 1-400)
      failure_notes+=("fuzz $harness (exit $status):" "${why[@]/#/  }")
      fuzz_failed+=("$harness")
      cases_failed=$((cases_failed + 1))
    fi
  done
  if [[ ${#fuzz_failed[@]} -eq 0 ]]; then
    record "fuzz (libFuzzer)" PASS "${#harnesses[@]} harnesses x ${fuzz_seconds}s" \
      $((SECONDS - t))
  else
    record "fuzz (libFuzzer)" FAIL "${fuzz_failed[*]} found a crash" $((SECONDS - t))
  fi
fi

# ---------------------------------------------------------------- 7. Python package
banner "7/7 Python package: pip install . --no-build-isolation, pytest python/tests"
t=$SECONDS
# Debian's interpreter (its numpy, scikit-learn, pybind11), not another python3 first on PATH.
python=/usr/bin/python3
[[ -x $python ]] || python=$(command -v python3)
site=$build_root/python/site
rm -rf "$site"
if RDPKIT_PYTHON_BUILD_DIR=$build_root/python/cmake RDPKIT_BUILD_JOBS=$jobs \
  RDPKIT_CMAKE_ARGS="-DRDPKIT_WERROR=ON" "$python" -m pip install "$root" --no-build-isolation \
  --no-deps --no-index --target "$site" --quiet; then
  (cd "$build_root" && RDPKIT_CLI=$release/tools/rdpkit PYTHONPATH=$site MPLBACKEND=Agg \
    "$python" -m pytest -q -p no:cacheprovider --disable-warnings "$root/python/tests") 2>&1 |
    tee "$build_root/pytest.log"
  pytest_status=${PIPESTATUS[0]}
  last=$(tail -n 1 "$build_root/pytest.log")
  py_passed=$(sed -n 's/.* \([0-9]*\) passed.*/\1/p; s/^\([0-9]*\) passed.*/\1/p' <<<"$last" | head -n 1)
  py_failed=$(grep -o '[0-9]* \(failed\|error\)' <<<"$last" | awk '{s += $1} END {print s + 0}')
  py_passed=${py_passed:-0}
  if [[ $pytest_status -eq 0 && $py_passed -gt 0 ]]; then
    record "Python package (pytest)" PASS "$py_passed pytest cases" $((SECONDS - t))
  else
    record "Python package (pytest)" FAIL "$py_failed of $((py_passed + py_failed)) failed" \
      $((SECONDS - t))
    [[ $py_failed -eq 0 ]] && py_failed=1
  fi
  cases_passed=$((cases_passed + py_passed))
  cases_failed=$((cases_failed + py_failed))
else
  record "Python package (pytest)" FAIL "pip install failed" $((SECONDS - t))
  cases_failed=$((cases_failed + 1))
fi

print_summary
