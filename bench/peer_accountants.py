#!/usr/bin/env python3
"""ε of Poisson-subsampled Gaussian self-compositions by the peers' accountants, next to rdpkit's
(issue 13, point 4): ε at δ, in-process time per query, peak memory, σ calibration, and the
issue's targets checked against them.

    bench/peer_accountants.py --rdpkit build/release/tools/rdpkit \\
        --dp-accounting DIR --prv-accountant DIR --opacus DIR \\
        [--accountant rdp --accountant best --accountant pld] [--repeats 5] \\
        [--reference tests/data/subsampled_gaussian_pld_cases.json] \\
        [--benchmark-json FILE] \\
        [--out-md bench/peer_accountants.md] [--out-json bench/peer_accountants.json]
    bench/peer_accountants.py --from-json bench/peer_accountants.json   # render only

The peers are not part of rdpkit: each DIR is a checkout the user made, the folder that holds
the importable package (`dp_accounting/`, `prv_accountant/`, `opacus/`). Any of them may be left
out; its columns then say "not given". They need Debian's python3-numpy, python3-scipy,
python3-attr, python3-absl and python3-mpmath. Opacus's accountants are loaded without torch:
`opacus` is registered as a bare package at DIR/opacus (its `__init__` is not run) and
`opacus.optimizers`, which the accountant base class imports only for a type, as an empty module.

Each (case, method) runs in a fresh subprocess of this script (`--worker`) so that imports are
not timed and peak memory (ru_maxrss, read by os.wait4 for that child alone) belongs to one
case. The worker times the whole query — fresh accountant, composition, ε at δ — with
time.perf_counter (wall) and time.process_time (CPU), `--repeats` times (3 when one query takes
over 4 s, 1 over 30 s), and reports the medians — on a shared machine the CPU time is the steadier
of the two; every worker runs with one BLAS thread and an address-space cap (`--mem-cap-gb`,
6 by default; a query that hits it is reported as such). rdpkit runs as a whole process
(`rdpkit epsilon --event … --delta … --accountant A`), timed the same way from spawn to exit, its
peak RSS the largest of its runs; an accountant the binary rejects (exit 2 naming `accountant`) is
reported as "not available". The 1-minute load average is recorded after every case.

Methods: dp_accounting's PLDAccountant (value_discretization_interval 1e-4, its defaults:
pessimistic estimate, connect-the-dots, add-or-remove neighbours) and RdpAccountant (default
orders); prv_accountant's PRVAccountant at eps_error 0.01 and 0.001 (delta_error = δ/1000, the
choice Opacus makes; its upper ε is reported); Opacus's RDPAccountant and PRVAccountant
(eps_error 0.01, its upper ε). Calibration: σ for (q = 0.01, T = 10⁴, ε = 1, δ = 1e-5) by
dp_accounting's calibrate_dp_mechanism on PLD and RDP (its default bracket and tolerance),
Opacus's get_noise_multiplier on RDP and on PRV (its default tolerance 0.01 in ε; prv_accountant
itself has no calibration) and `rdpkit calibrate --accountant A` for each A.
`--reference` adds, once per case, dp_accounting's PLD and rdpkit's ε on the cases of the exact
table written by scripts/subsampled_gaussian_reference.py, with their excess over the exact ε.

Other mechanisms (MECHANISM_CASES: Laplace, pure DP = randomized response, exponential = bounded
range, Poisson-sampled and mixed compositions) run by dp_accounting's PLD and RDP accountants and
prv_accountant where they have the mechanism (Opacus has only the Gaussian). rdpkit's `pure_dp`
is dp_accounting's EpsilonDeltaDpEvent(ε, 0) (both the randomized-response pair); its PLD
accountant has no Poisson-sampled ε-DP event, so that case is built from the same pair with
privacy_loss_distribution.from_two_probability_mass_functions (remove: (qP + (1 − q)Q, Q), add:
swapped). For compositions of one two-point pair the exact ε is a binomial sum (double
precision, bisection on ε), shown as a check.

`--benchmark-json` renders the BM_Pld_* medians of a Google Benchmark JSON report
(`accountant_bench --benchmark_filter=BM_Pld --benchmark_repetitions=7
--benchmark_report_aggregates_only=true --benchmark_format=json`), with its load average.
"""
import argparse
import datetime
import json
import math
import os
import platform
import re
import selectors
import statistics
import subprocess
import sys
import time

CASES = [  # (sampling_probability q, noise_multiplier σ, count T, δ)
    (0.01, 1.0, 10000, 1e-5), (1e-4, 0.6, 1000000, 1e-5), (0.01, 0.5, 1000, 1e-5),
    (0.001, 0.8, 100000, 1e-5), (0.1, 2.0, 1000, 1e-5), (0.004, 1.1, 3750, 1e-5),
    (1.0, 40.4513, 100, 1e-5),
    (0.01, 1.0, 10000, 1e-12), (0.01, 1.0, 10000, 1e-8), (0.01, 1.0, 10000, 1e-2),
    (0.1, 2.0, 1000, 1e-12), (0.1, 2.0, 1000, 1e-2),
]
CALIBRATION = {"sampling_probability": 0.01, "count": 10000, "epsilon": 1.0, "delta": 1e-5}
PEER_METHODS = ["dp_pld", "dp_rdp", "prv_0.01", "prv_0.001", "opacus_rdp", "opacus_prv"]
CALIBRATION_METHODS = ["dp_pld", "dp_rdp", "opacus_rdp", "opacus_prv"]
MECHANISM_METHODS = ["dp_pld", "dp_rdp", "prv_0.01"]


def self_composed(count, event):
    return {"self_composed": {"count": count, "event": event}}


def sampled(q, event):
    return {"poisson_sampled": {"sampling_probability": q, "event": event}}


MECHANISM_CASES = [  # (id, rdpkit event, δ)
    ("laplace-b20-T100", self_composed(100, {"laplace": {"noise_multiplier": 20.0}}), 1e-5),
    ("laplace-b5-T1000", self_composed(1000, {"laplace": {"noise_multiplier": 5.0}}), 1e-8),
    ("sampled-laplace-q0.01-b1-T10000",
     self_composed(10000, sampled(0.01, {"laplace": {"noise_multiplier": 1.0}})), 1e-5),
    ("pure_dp-e0.1-T100", self_composed(100, {"pure_dp": {"epsilon": 0.1}}), 1e-5),
    ("pure_dp-e0.5-T50", self_composed(50, {"pure_dp": {"epsilon": 0.5}}), 1e-8),
    ("sampled-pure_dp-q0.01-e1-T1000",
     self_composed(1000, sampled(0.01, {"pure_dp": {"epsilon": 1.0}})), 1e-5),
    ("exponential-e0.1-T100", self_composed(100, {"exponential": {"epsilon": 0.1}}), 1e-5),
    ("gaussian-sampled+laplace", {"composed": [
        self_composed(1000, sampled(0.01, {"gaussian": {"noise_multiplier": 1.0}})),
        self_composed(100, {"laplace": {"noise_multiplier": 20.0}})]}, 1e-5),
    ("gaussian-sampled+laplace-sampled", {"composed": [
        self_composed(1000, sampled(0.01, {"gaussian": {"noise_multiplier": 1.0}})),
        self_composed(1000, sampled(0.01, {"laplace": {"noise_multiplier": 2.0}}))]}, 1e-5),
]
NEEDS = {"dp": "dp_accounting", "prv": "prv_accountant", "opacus": "opacus"}
LABEL = {"dp_pld": "dp_accounting PLD 1e-4", "dp_rdp": "dp_accounting RDP",
         "prv_0.01": "prv_accountant 0.01", "prv_0.001": "prv_accountant 0.001",
         "opacus_rdp": "Opacus RDP", "opacus_prv": "Opacus PRV 0.01"}
TARGET_T4, TARGET_T6 = "q0.01-s1-T10000-d1e-05", "q0.0001-s0.6-T1000000-d1e-05"


def case_id(q, sigma, count, delta):
    return f"q{q:g}-s{sigma:g}-T{count}-d{delta:g}"


def event_json(q, sigma, count):
    inner = {"poisson_sampled": {"sampling_probability": q,
                                 "event": {"gaussian": {"noise_multiplier": sigma}}}}
    return {"self_composed": {"count": count, "event": inner}}


# ---------------------------------------------------------------- worker side (peers' code)

def load_opacus(root):
    import importlib
    import types
    package = types.ModuleType("opacus")
    package.__path__ = [os.path.join(root, "opacus")]
    sys.modules["opacus"] = package
    optimizers = types.ModuleType("opacus.optimizers")
    optimizers.DPOptimizer = object  # only used in a type annotation of IAccountant
    sys.modules["opacus.optimizers"] = optimizers
    return importlib.import_module("opacus.accountants")


def epsilon_query(method, q, sigma, count, delta):
    """Returns a function running one whole query (fresh accountant, compose, ε at δ)."""
    if method in ("dp_pld", "dp_rdp"):
        from dp_accounting import dp_event
        from dp_accounting.pld import pld_privacy_accountant
        from dp_accounting.rdp import rdp_privacy_accountant
        event = dp_event.SelfComposedDpEvent(
            dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)), count)

        def run():
            if method == "dp_pld":
                acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
            else:
                acc = rdp_privacy_accountant.RdpAccountant()
            acc.compose(event)
            return acc.get_epsilon(delta)
        return run
    if method.startswith("prv_"):
        import prv_accountant
        eps_error = float(method.split("_")[1])

        def run():
            mech = prv_accountant.PoissonSubsampledGaussianMechanism(
                noise_multiplier=sigma, sampling_probability=q)
            acc = prv_accountant.PRVAccountant(prvs=[mech], max_self_compositions=[count],
                                               eps_error=eps_error, delta_error=delta / 1000)
            return acc.compute_epsilon(delta=delta, num_self_compositions=[count])[2]
        return run
    accountants = sys.modules["opacus.accountants"]

    def run():
        acc = (accountants.RDPAccountant() if method == "opacus_rdp"
               else accountants.PRVAccountant())
        acc.history = [(sigma, q, count)]  # what `count` calls of acc.step(...) leave
        return acc.get_epsilon(delta=delta)
    return run


class NotSupported(Exception):
    """The peer has no such mechanism (or accountant for it)."""


def dp_event_of(event):
    """An rdpkit event (JSON) as a dp_accounting DpEvent; pure_dp is EpsilonDeltaDpEvent(ε, 0),
    the same randomized-response pair."""
    from dp_accounting import dp_event
    (kind, body), = event.items()
    if kind == "composed":
        return dp_event.ComposedDpEvent([dp_event_of(e) for e in body])
    if kind == "self_composed":
        return dp_event.SelfComposedDpEvent(dp_event_of(body["event"]), body["count"])
    if kind == "poisson_sampled":
        return dp_event.PoissonSampledDpEvent(body["sampling_probability"],
                                              dp_event_of(body["event"]))
    return {"gaussian": lambda: dp_event.GaussianDpEvent(body["noise_multiplier"]),
            "laplace": lambda: dp_event.LaplaceDpEvent(body["noise_multiplier"]),
            "pure_dp": lambda: dp_event.EpsilonDeltaDpEvent(body["epsilon"], 0.0),
            "exponential": lambda: dp_event.ExponentialMechanismDpEvent(body["epsilon"])}[kind]()


def two_point_pair(event):
    """(count, upper, lower) when the event is `count` rounds of one (possibly Poisson-sampled)
    pure_dp: the remove direction's pair of outcome probabilities (the add direction swaps
    them); None otherwise."""
    (kind, body), = event.items()
    if kind != "self_composed":
        return None
    inner, q = body["event"], 1.0
    if "poisson_sampled" in inner:
        sampled_event = inner["poisson_sampled"]
        q, inner = sampled_event["sampling_probability"], sampled_event["event"]
    if "pure_dp" not in inner:
        return None
    high = 1 / (1 + math.exp(-inner["pure_dp"]["epsilon"]))
    low = 1 - high
    return body["count"], (q * high + (1 - q) * low, q * low + (1 - q) * high), (low, high)


def two_point_exact_epsilon(count, upper, lower, delta):
    """ε at δ of `count` rounds of the pair (upper, lower), the larger of both directions: δ(ε)
    is a binomial sum; bisection on ε (double precision, a check, not a certificate)."""
    def log_binomial(k, p):
        return (math.lgamma(count + 1) - math.lgamma(k + 1) - math.lgamma(count - k + 1)
                + k * math.log(p) + (count - k) * math.log1p(-p))

    def delta_at(eps):
        worst = 0.0
        for up, lo in ((upper, lower), (lower, upper)):
            worst = max(worst, sum(max(0.0, math.exp(log_binomial(k, up[0])) - math.exp(
                eps + log_binomial(k, lo[0]))) for k in range(count + 1)))
        return worst
    low, high = 0.0, 1.0
    while delta_at(high) > delta:
        low, high = high, 2 * high
    if delta_at(0.0) <= delta:
        return 0.0
    for _ in range(100):
        mid = (low + high) / 2
        low, high = (low, mid) if delta_at(mid) <= delta else (mid, high)
    return high


def prv_of(event, count=1):
    """[(PRV, self-compositions)] of an rdpkit event (JSON); NotSupported for a mechanism
    prv_accountant does not have (Poisson-sampled Laplace or pure DP, exponential)."""
    import prv_accountant
    (kind, body), = event.items()
    if kind == "composed":
        return [part for e in body for part in prv_of(e, count)]
    if kind == "self_composed":
        return prv_of(body["event"], count * body["count"])
    if kind == "poisson_sampled" and "gaussian" in body["event"]:
        return [(prv_accountant.PoissonSubsampledGaussianMechanism(
            sampling_probability=body["sampling_probability"],
            noise_multiplier=body["event"]["gaussian"]["noise_multiplier"]), count)]
    if kind == "gaussian":
        return [(prv_accountant.GaussianMechanism(body["noise_multiplier"]), count)]
    if kind == "laplace":
        return [(prv_accountant.LaplaceMechanism(1 / body["noise_multiplier"]), count)]
    if kind == "pure_dp":
        return [(prv_accountant.PureDPMechanism(body["epsilon"]), count)]
    inner = next(iter(body["event"])) if kind == "poisson_sampled" else ""
    raise NotSupported(f"prv_accountant has no {kind} {inner}".strip())


def mechanism_query(method, event, delta):
    """Like epsilon_query, for an rdpkit event of MECHANISM_CASES."""
    if method == "prv_0.01":
        import prv_accountant
        parts = prv_of(event)

        def run():
            acc = prv_accountant.PRVAccountant(
                prvs=[p for p, _ in parts], max_self_compositions=[c for _, c in parts],
                eps_error=0.01, delta_error=delta / 1000)
            return acc.compute_epsilon(delta=delta, num_self_compositions=[c for _, c in parts])[2]
        return run, ""
    from dp_accounting.pld import pld_privacy_accountant, privacy_loss_distribution
    from dp_accounting.rdp import rdp_privacy_accountant
    fresh = ((lambda: pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4))
             if method == "dp_pld" else rdp_privacy_accountant.RdpAccountant)
    dp_event = dp_event_of(event)
    if fresh().supports(dp_event):
        return lambda: fresh().compose(dp_event).get_epsilon(delta), ""
    pair = two_point_pair(event)
    if method != "dp_pld" or pair is None:
        raise NotSupported(f"{LABEL[method]} does not support this event")
    count, upper, lower = pair

    def run():
        pld = privacy_loss_distribution.from_two_probability_mass_functions(
            {0: math.log(lower[0]), 1: math.log(lower[1])},
            {0: math.log(upper[0]), 1: math.log(upper[1])},
            value_discretization_interval=1e-4, symmetric=False)
        return pld.self_compose(count).get_epsilon_for_delta(delta)
    return run, "from_two_probability_mass_functions (no accountant event)"


def calibration_query(method, q, count, epsilon, delta):
    if method.startswith("opacus_"):
        utils = __import__("opacus.accountants.utils", fromlist=["get_noise_multiplier"])
        return lambda: utils.get_noise_multiplier(target_epsilon=epsilon, target_delta=delta,
                                                  sample_rate=q, steps=count,
                                                  accountant=method[len("opacus_"):])
    from dp_accounting import dp_event, mechanism_calibration
    from dp_accounting.pld import pld_privacy_accountant
    from dp_accounting.rdp import rdp_privacy_accountant
    fresh = ((lambda: pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4))
             if method == "dp_pld" else rdp_privacy_accountant.RdpAccountant)

    def make_event(sigma):
        return dp_event.SelfComposedDpEvent(
            dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)), count)
    return lambda: mechanism_calibration.calibrate_dp_mechanism(fresh, make_event, epsilon, delta)


def worker(args):
    import resource
    cap = int(args.mem_cap_gb * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    paths = json.loads(args.paths)
    for key in ("dp_accounting", "prv_accountant"):
        if paths.get(key):
            sys.path.insert(0, paths[key])
    if args.worker.startswith("opacus"):
        load_opacus(paths["opacus"])
    spec = json.loads(args.spec)
    detail = ""
    try:
        if "event" in spec:
            run, detail = mechanism_query(args.worker, spec["event"], spec["delta"])
        elif "epsilon" in spec:
            run = calibration_query(args.worker, spec["sampling_probability"], spec["count"],
                                    spec["epsilon"], spec["delta"])
        else:
            run = epsilon_query(args.worker, spec["q"], spec["sigma"], spec["count"],
                                spec["delta"])
    except NotSupported as unsupported:
        print(json.dumps({"value": None, "times": [], "cpu_times": [], "rss_import_mb": 0,
                          "note": f"not supported: {unsupported}", "detail": ""}))
        return
    rss_import = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    times, cpu_times, value, note = [], [], None, ""
    try:
        while len(times) < args.repeats:
            start, cpu_start = time.perf_counter(), time.process_time()
            value = float(run())
            times.append(time.perf_counter() - start)
            cpu_times.append(time.process_time() - cpu_start)
            if times[0] > 30 or (times[0] > 4 and len(times) >= 3):
                break
    except MemoryError:
        note = f"MemoryError at the {args.mem_cap_gb:g} GiB address-space cap"
    print(json.dumps({"value": value, "times": times, "cpu_times": cpu_times, "note": note,
                      "rss_import_mb": rss_import / 1024, "detail": detail}))


# ---------------------------------------------------------------- driver side

def spawn_wait4(cmd, timeout, env=None):
    """Runs cmd; returns (wall s, exit status, stdout, stderr, (peak RSS MB, user + system CPU s)
    of that child alone, read by os.wait4), or (None, None, "", "timeout", None) when it outlives
    timeout."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    deadline = start + timeout
    out_chunks, err_chunks = [], []
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, out_chunks)
    sel.register(proc.stderr, selectors.EVENT_READ, err_chunks)
    while sel.get_map():
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            proc.kill()
            os.wait4(proc.pid, 0)
            proc.returncode = -9
            return None, None, "", "timeout", None
        for key, _ in sel.select(timeout=min(remaining, 1.0)):
            chunk = os.read(key.fileobj.fileno(), 65536)
            if chunk:
                key.data.append(chunk)
            else:
                sel.unregister(key.fileobj)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return (wall, proc.returncode, b"".join(out_chunks).decode(), b"".join(err_chunks).decode(),
            (usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime))


def run_worker(method, spec, args, paths):
    need = NEEDS[method.split("_")[0]]
    if not paths.get(need):
        return {"status": "not given"}
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", method, "--spec",
           json.dumps(spec), "--paths", json.dumps(paths), "--repeats", str(args.repeats),
           "--mem-cap-gb", str(args.mem_cap_gb)]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONWARNINGS="ignore")
    wall, code, out, err, usage = spawn_wait4(cmd, args.timeout, env)
    if code is None:
        return {"status": f"timeout after {args.timeout:g} s"}
    if code != 0:
        last = err.strip().splitlines()[-1] if err.strip() else f"exit {code}"
        return {"status": f"failed: {last[:160]}"}
    rep = json.loads(out.strip().splitlines()[-1])
    result = {"status": rep["note"] or "ok", "value": rep["value"], "runs": len(rep["times"]),
              "times_s": rep["times"], "cpu_s": rep["cpu_times"], "peak_rss_mb": usage[0],
              "rss_after_import_mb": rep["rss_import_mb"]}
    if rep["detail"]:
        result["detail"] = rep["detail"]
    if rep["times"]:
        result["median_s"] = statistics.median(rep["times"])
        result["median_cpu_s"] = statistics.median(rep["cpu_times"])
    return result


def run_rdpkit(args, subcommand, event, options):
    cmd = [args.rdpkit, subcommand, "--event", json.dumps(event)] + options
    times, cpu, rss, value, accountant = [], [], 0.0, None, None
    for _ in range(args.repeats):
        wall, code, out, err, usage = spawn_wait4(cmd, args.timeout)
        if code is None:
            return {"status": f"timeout after {args.timeout:g} s"}
        if code == 2 and "accountant" in err:
            return {"status": "not available", "message": err.strip()}
        if code != 0:
            return {"status": f"failed (exit {code}): {err.strip()[:160]}"}
        reply = json.loads(out)
        value = reply["epsilon"] if subcommand == "epsilon" else reply["value"]
        accountant = reply.get("accountant")
        times.append(wall)
        cpu.append(usage[1])
        rss = max(rss, usage[0])
    return {"status": "ok", "value": value, "accountant": accountant, "runs": len(times),
            "times_s": times, "cpu_s": cpu, "median_s": statistics.median(times),
            "median_cpu_s": statistics.median(cpu), "peak_rss_mb": rss}


def peer_versions(paths):
    found = {}
    for key, rel, pattern in (
            ("dp_accounting", "VERSION", r"(\d+\.\d+\.\d+)"),
            ("prv_accountant", "setup.py", r"version\s*=\s*'([^']+)'"),
            ("opacus", "opacus/version.py", r"__version__\s*=\s*\"([^\"]+)\"")):
        root = paths.get(key)
        if not root:
            continue
        for candidate in (os.path.join(root, rel), os.path.join(root, "..", rel)):
            if os.path.exists(candidate):
                match = re.search(pattern, open(candidate).read())
                found[key] = match.group(1) if match else "?"
                break
    return found


def short_status(result):
    """A cell for a result without a number: the status, cut at 60 characters ("not supported"
    alone: what is missing is listed under the table)."""
    status = result.get("status", "?")
    if status.startswith("not supported"):
        return "not supported"
    return status if len(status) <= 60 else status[:57] + "…"


def fmt_eps(result):
    if result.get("status") not in ("ok",) or result.get("value") is None:
        return short_status(result)
    return f"{result['value']:.5f}"


def seconds(t):
    return f"{t * 1000:.1f} ms" if t < 1 else f"{t:.2f} s"


def fmt_time(result, key="median_s"):
    if key not in result:
        return short_status(result)
    return seconds(result[key]) + (f" ({result['runs']} runs)" if result["runs"] != 5 else "")


def fmt_rss(result):
    return f"{result['peak_rss_mb']:.0f}" if result.get("peak_rss_mb") else "–"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def load_range(loads):
    """'a–b' of the 1-minute load averages recorded during a section's runs."""
    loads = [entry[0] for entry in loads if entry]
    if not loads:
        return "not recorded"
    return f"{min(loads):.1f}–{max(loads):.1f}" if max(loads) - min(loads) >= 0.05 \
        else f"{loads[0]:.1f}"


def relative(value, base):
    return f"{100 * (value / base - 1):+.3f} %"


def pld_accuracy(report, accountant, small_delta):
    """[(relative difference of rdpkit's ε over dp_accounting's PLD, case id)] on the
    subsampled-Gaussian cases with δ < 1e-9 (small_delta) or δ ≥ 1e-9 whose PLD ε is at least
    1e-3 (relative differences of smaller ε mean nothing: dp_accounting's grid step is 1e-4)."""
    out = []
    for case in report["cases"] + report.get("reference", []):
        delta = case.get("delta")
        if delta is None:  # a reference case: its id ends in d<δ>
            delta = float(case["id"].rsplit("-d", 1)[1])
        dp = case["results"].get("dp_pld", {}).get("value")
        ours = case["results"].get(f"rdpkit_{accountant}", {}).get("value")
        if (delta < 1e-9) == small_delta and dp is not None and ours is not None and dp >= 1e-3:
            out.append((ours / dp - 1, case["id"]))
    return out


def peer_times(results, methods, labels):
    cells = []
    for method in methods:
        res = results.get(method, {})
        if "median_s" in res:
            cells.append(f"{labels[method]} {seconds(res['median_s'])} "
                         f"(CPU {seconds(res['median_cpu_s'])}, {fmt_rss(res)} MB)")
    return "; ".join(cells) or "none measured"


def targets_markdown(report):
    """Issue 13 point 4's targets, each against this run's figures."""
    labels, rows = report["labels"], []
    for accountant in ("best", "pld"):
        for small_delta in (False, True):
            diffs = pld_accuracy(report, accountant, small_delta)
            if not diffs:
                continue
            worst, over = max(diffs), sum(d > 0.005 for d, _ in diffs)
            rows.append([f"ε ({accountant}) at most 0.5 % above dp_accounting PLD 1e-4 "
                         f"(Poisson-subsampled Gaussian, δ {'<' if small_delta else '≥'} 1e-9)",
                         f"max {100 * worst[0]:+.3f} % ({worst[1]}), median "
                         f"{100 * statistics.median(d for d, _ in diffs):+.3f} %, min "
                         f"{100 * min(diffs)[0]:+.3f} % over {len(diffs)} cases (PLD ε ≥ 1e-3)",
                         "yes" if not over else f"no ({over} of {len(diffs)} above)", "–"])
    cases = {case["id"]: case for case in report["cases"]}
    peers = ["dp_pld", "prv_0.01", "opacus_prv", "dp_rdp", "opacus_rdp"]
    for cid, what, limit_s, limit_mb in (
            (TARGET_T4, "ε of T = 10⁴ rounds (q 0.01, σ 1, δ 1e-5) < 50 ms whole process", 0.05,
             None),
            (TARGET_T6, "ε of T = 10⁶ rounds (q 1e-4, σ 0.6, δ 1e-5) < 200 ms and 200 MB", 0.2,
             200)):
        res = cases.get(cid, {}).get("results", {}).get("rdpkit_best", {})
        if "median_s" not in res:
            continue
        met = res["median_s"] < limit_s and (limit_mb is None or res["peak_rss_mb"] < limit_mb)
        cpu_met = res["median_cpu_s"] < limit_s
        rows.append([what, f"wall {seconds(res['median_s'])}, CPU "
                     f"{seconds(res['median_cpu_s'])}, peak RSS {fmt_rss(res)} MB "
                     f"({res['accountant']}, {res['runs']} runs)",
                     "yes" if met else ("CPU yes, wall no" if cpu_met else "no"),
                     peer_times(cases[cid]["results"], peers, labels)])
    cal = report["calibration"]["results"]
    res = cal.get("rdpkit_calibrate_best", cal.get("rdpkit_calibrate", {}))
    if "median_s" in res:
        rows.append(["calibration of σ for 10⁴ rounds (q 0.01, ε 1, δ 1e-5) < 300 ms",
                     f"σ {res['value']:.6g}, wall {seconds(res['median_s'])}, CPU "
                     f"{seconds(res['median_cpu_s'])} ({res['runs']} runs)",
                     "yes" if res["median_s"] < 0.3 else
                     ("CPU yes, wall no" if res["median_cpu_s"] < 0.3 else "no"),
                     peer_times(cal, ["dp_pld", "opacus_prv", "dp_rdp", "opacus_rdp"], labels)])
    if not rows:
        return []
    loads = [c.get("load") for c in report["cases"]] + [report["calibration"].get("load")]
    return ["## Issue 13 targets (point 4)",
            "rdpkit whole process (spawn to exit, `--accountant best`, the default) against the "
            "peers' in-process query (imports excluded) in the same session; \"met\" judges the "
            f"wall median. Load average (1 min) during these runs: {load_range(loads)}.",
            table(["target", "rdpkit", "met", "peers (in-process wall; CPU, peak RSS)"], rows)]


def benchmark_markdown(bench):
    """The BM_Pld_* medians of a Google Benchmark JSON report."""
    rows = [[b["run_name"], f"{b['real_time']:.2f} {b['time_unit']}",
             f"{b['cpu_time']:.2f} {b['time_unit']}"]
            for b in bench["benchmarks"] if b.get("aggregate_name") == "median"
            and b["run_name"].startswith("BM_Pld")]
    ctx = bench["context"]
    load = ", ".join(f"{x:.2f}" for x in ctx.get("load_avg", [])) or "not recorded"
    reps = next((b["repetitions"] for b in bench["benchmarks"] if "repetitions" in b), "?")
    return ["## Google Benchmark (bench/accountant_bench.cc, in-process)",
            f"Medians of {reps} repetitions, {ctx.get('date', '?')}; load average (1, 5, 15 min) "
            f"at the start: {load}. `build/bench/accountant_bench --benchmark_filter=BM_Pld "
            "--benchmark_repetitions=7 --benchmark_report_aggregates_only=true "
            "--benchmark_format=json`.",
            table(["benchmark", "wall (median)", "CPU (median)"], rows)]


def mechanisms_markdown(report):
    mech = report.get("mechanisms")
    if not mech:
        return []
    methods, labels = mech["methods"], report["labels"]
    head = ["case", "δ"] + [labels[m] for m in methods] + ["exact (binomial; best above it)",
                                                           "rdpkit best vs dp_accounting PLD"]
    eps_rows, cpu_rows, marked = [], [], False
    for case in mech["cases"]:
        res = case["results"]
        cells = []
        for m in methods:
            cell = fmt_eps(res[m])
            if res[m].get("detail"):
                cell, marked = cell + " †", True
            cells.append(cell)
        exact = case.get("exact_epsilon")
        dp, best = res.get("dp_pld", {}).get("value"), res.get("rdpkit_best", {}).get("value")
        eps_rows.append([case["id"], f"{case['delta']:g}"] + cells +
                        [f"{exact:.7f} (best {'+' if best >= exact else '−'}"
                         f"{abs(best / exact - 1):.1e})" if exact and best is not None else "–",
                         relative(best, dp) if dp and best is not None else "–"])
        cpu_rows.append([case["id"]] + [fmt_time(res[m], "median_cpu_s") for m in methods])
    notes = ["Events: `laplace-bB-TT` is T rounds of Laplace noise of scale B (sensitivity 1); "
             "`pure_dp-eE-TT` T rounds of an E-DP mechanism (randomized response, its "
             "dominating pair); `exponential-eE-TT` T rounds of the E-DP exponential mechanism "
             "(rdpkit: the exact bounded-range pair; dp_accounting PLD: a generic E-DP "
             "mechanism, loose by its own docstring); `sampled-…-qQ` Poisson sampling at rate Q; "
             "`gaussian-sampled+laplace` is 1000 rounds of q 0.01, σ 1 and 100 of Laplace "
             "scale 20, `gaussian-sampled+laplace-sampled` 1000 rounds of q 0.01, σ 1 and 1000 "
             "of Laplace scale 2 at q 0.01 (the bench's MECHANISM_CASES). Opacus has only the "
             "Gaussian and is not run here."]
    if marked:
        notes.append("† dp_accounting's PLD accountant has no Poisson-sampled ε-DP event: built "
                     "with privacy_loss_distribution.from_two_probability_mass_functions from the "
                     "same pair (remove (qP + (1 − q)Q, Q), add swapped), self-composed. Its "
                     "pessimistic rounding moves each atom up by up to one grid step (1e-4), "
                     "so T rounds of a two-point pair can sit up to T·1e-4 above the truth.")
    missing = sorted({f"{labels[m]}: {case['id']}" for case in mech["cases"]
                      for m, r in case["results"].items()
                      if r.get("status", "").startswith("not supported")})
    if missing:
        notes.append("Not supported by the peer (no such mechanism or event): "
                     + "; ".join(missing) + ".")
    return ["## Other mechanisms: Laplace, pure DP, bounded range, mixed",
            f"ε at δ; load average (1 min) during these runs: "
            f"{load_range([c.get('load') for c in mech['cases']])}."] + notes + [
        table(head, eps_rows), "CPU time per query (user + system, median; rdpkit whole "
        "process, peers in-process):", table(["case"] + [labels[m] for m in methods], cpu_rows)]


def markdown(report):
    methods = report["methods"]
    head = ["case (q, σ, T, δ)"] + [report["labels"][m] for m in methods]
    eps_rows, time_rows, cpu_rows, rss_rows, gap_rows = [], [], [], [], []
    for case in report["cases"]:
        name = f"{case['q']:g}, {case['sigma']:g}, {case['count']:g}, {case['delta']:g}"
        res = case["results"]
        eps_rows.append([name] + [fmt_eps(res[m]) for m in methods])
        time_rows.append([name] + [fmt_time(res[m]) for m in methods])
        cpu_rows.append([name] + [fmt_time(res[m], "median_cpu_s") for m in methods])
        rss_rows.append([name] + [fmt_rss(res[m]) for m in methods])
        pld = res.get("dp_pld", {}).get("value")
        ours = {a: res.get(f"rdpkit_{a}", {}).get("value") for a in ("best", "pld", "rdp")}
        if pld is not None and ours["rdp"]:
            gap_rows.append([name, f"{pld:.5f}"] + [
                f"{ours[a]:.5f} ({relative(ours[a], pld)})" if ours[a] is not None else
                short_status(res.get(f"rdpkit_{a}", {})) for a in ("best", "pld")] +
                [f"{ours['rdp']:.5f}", f"{100 * (1 - pld / ours['rdp']):.1f} %"])
    loads = load_range([c.get("load") for c in report["cases"]])
    sections = []
    if report.get("reference"):
        ref_rows = []
        keys = list(report["reference"][0]["results"])
        for case in report["reference"]:
            exact = float(case["expected_epsilon"])
            row = [case["id"], case["expected_epsilon"][:12]]
            for key in keys:
                value = case["results"].get(key, {}).get("value")
                row.append(short_status(case["results"].get(key, {})) if value is None else
                           f"{value:.10g} ({'+' if value >= exact else '−'}"
                           f"{abs(value / exact - 1) if exact else abs(value):.2e})")
            ref_rows.append(row)
        sections += ["## Against the exact ε (tests/data/subsampled_gaussian_pld_cases.json)",
                     "Relative excess over the exact value in parentheses (absolute where the "
                     "exact ε is 0); a − would be an ε below the truth. One run per cell.",
                     table(["case", "exact ε"] + [report["labels"].get(k, k) for k in keys],
                           ref_rows)]
    cal = report["calibration"]
    cal_rows = [[report["labels"].get(m, m), f"{r['value']:.6g}" if r.get("value") else
                 short_status(r), fmt_time(r), fmt_time(r, "median_cpu_s"), fmt_rss(r)]
                for m, r in cal["results"].items()]
    c = cal["target"]
    peers = ", ".join(f"{k} {v}" for k, v in report["peers"].items()) or "none given"
    header = [f"# Peer accountants on Poisson-subsampled Gaussians ({report['date']})",
              f"Machine: {report['machine']}. Peers (versions from their own files): {peers}."]
    header += report["notes"]
    header.append("Reproduce: `" + report["command"] + "` (paths are the user's checkouts).")
    return "\n\n".join(header + targets_markdown(report) + (
        benchmark_markdown(report["benchmark"]) if report.get("benchmark") else []) + [
        f"## ε at δ (load average 1 min during these runs: {loads})", table(head, eps_rows),
        "## Time per query (median; whole process for rdpkit, in-process for the peers)",
        table(head, time_rows),
        "## CPU time per query (user + system, median; same runs)", table(head, cpu_rows),
        "## Peak resident memory, MB (whole worker process, imports included)",
        table(head, rss_rows),
        "## rdpkit against dp_accounting PLD (1e-4)",
        table(["case (q, σ, T, δ)", "dp_accounting PLD ε", "rdpkit best ε (vs PLD)",
               "rdpkit pld ε (vs PLD)", "rdpkit rdp ε", "PLD below RDP by"], gap_rows),
        f"## Calibration of σ for q = {c['sampling_probability']:g}, T = {c['count']}, "
        f"ε = {c['epsilon']:g}, δ = {c['delta']:g} (load average 1 min: "
        f"{load_range([cal.get('load')])})",
        table(["method", "σ", "wall (median)", "CPU (median)", "peak RSS MB"], cal_rows)]
        + mechanisms_markdown(report) + sections) + "\n"


def run_reference(args, paths):
    """dp_accounting's PLD and rdpkit's ε (each --accountant), one run each, on the reference
    file's cases."""
    with open(args.reference) as f:
        cases = json.load(f)["cases"]
    once = argparse.Namespace(**dict(vars(args), repeats=1))
    out = []
    for case in cases:
        q, sigma = case["sampling_probability"], case["noise_multiplier"]
        count, delta = case["count"], case["delta"]
        results = {"dp_pld": run_worker("dp_pld", {"q": q, "sigma": sigma, "count": count,
                                                   "delta": delta}, once, paths)}
        for accountant in (args.accountant or ["rdp", "best", "pld"]) if args.rdpkit else []:
            results[f"rdpkit_{accountant}"] = run_rdpkit(
                once, "epsilon", event_json(q, sigma, count),
                ["--delta", repr(delta), "--accountant", accountant])
        out.append({"id": case["id"], "expected_epsilon": case["expected_epsilon"],
                    "results": results})
        print(f"reference {case['id']:26s} {case['expected_epsilon'][:12]} "
              f"{fmt_eps(results['dp_pld'])}", file=sys.stderr, flush=True)
    return out


def run_mechanisms(args, paths, accountants):
    """MECHANISM_CASES by the peers that have them and by rdpkit (each accountant)."""
    methods = [m for m in MECHANISM_METHODS if not args.method or m in args.method]
    methods += [f"rdpkit_{a}" for a in accountants]
    cases = []
    for cid, event, delta in MECHANISM_CASES:
        if args.case and cid not in args.case:
            continue
        results = {}
        for method in methods:
            if method.startswith("rdpkit_"):
                results[method] = run_rdpkit(args, "epsilon", event, [
                    "--delta", repr(delta), "--accountant", method[7:]]) \
                    if args.rdpkit else {"status": "not given"}
            else:
                results[method] = run_worker(method, {"event": event, "delta": delta}, args,
                                             paths)
            print(f"{cid:34s} {method:14s} {fmt_eps(results[method]):>22s} "
                  f"{fmt_time(results[method])}", file=sys.stderr, flush=True)
        pair = two_point_pair(event)
        cases.append({"id": cid, "event": event, "delta": delta, "results": results,
                      "exact_epsilon": two_point_exact_epsilon(*pair, delta) if pair else None,
                      "load": os.getloadavg()})
    return {"methods": methods, "cases": cases}


def reproduce_command(argv):
    """argv without the notes, with every absolute path (the user's checkouts) as PATH."""
    kept, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--note":
            skip = True
        elif not arg.startswith("--note="):
            kept.append("PATH" if arg.startswith("/") else arg)
    return "python3 bench/peer_accountants.py " + " ".join(kept)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rdpkit", help="the rdpkit binary")
    parser.add_argument("--dp-accounting", help="folder holding the dp_accounting package")
    parser.add_argument("--prv-accountant", help="folder holding the prv_accountant package")
    parser.add_argument("--opacus", help="folder holding the opacus package")
    parser.add_argument("--accountant", action="append", help="rdpkit accountants to run "
                        "(repeatable; default rdp, best, pld)")
    parser.add_argument("--method", action="append", choices=PEER_METHODS,
                        help="peer methods to run (repeatable; default all)")
    parser.add_argument("--case", action="append", help="only these case ids (repeatable)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=600, help="seconds per worker")
    parser.add_argument("--mem-cap-gb", type=float, default=6.0)
    parser.add_argument("--no-calibration", action="store_true")
    parser.add_argument("--no-mechanisms", action="store_true",
                        help="skip MECHANISM_CASES (Laplace, pure DP, exponential, mixed)")
    parser.add_argument("--benchmark-json", help="a Google Benchmark JSON report of "
                        "accountant_bench whose BM_Pld_* medians the markdown shows")
    parser.add_argument("--note", action="append", default=[], help="a line for the report's "
                        "header, e.g. the peers' commits (repeatable)")
    parser.add_argument("--out-md")
    parser.add_argument("--out-json")
    parser.add_argument("--reference", help="a reference file of exact ε (tests/data/"
                        "subsampled_gaussian_pld_cases.json): dp_accounting PLD and rdpkit rdp "
                        "on each of its cases, once")
    parser.add_argument("--from-json", help="only render the markdown of an earlier --out-json")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--spec", help=argparse.SUPPRESS)
    parser.add_argument("--paths", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.repeats < 1 or args.timeout <= 0 or args.mem_cap_gb <= 0:
        parser.error("--repeats, --timeout and --mem-cap-gb must be positive")
    if args.worker:
        return worker(args)
    if args.from_json:
        with open(args.from_json) as f:
            text = markdown(json.load(f))
        if args.out_md:
            with open(args.out_md, "w") as f:
                f.write(text)
        else:
            print(text)
        return 0
    paths = {k: os.path.abspath(v) for k, v in (("dp_accounting", args.dp_accounting),
                                                 ("prv_accountant", args.prv_accountant),
                                                 ("opacus", args.opacus)) if v}
    accountants = args.accountant or ["rdp", "best", "pld"]
    methods = (args.method or PEER_METHODS) + [f"rdpkit_{a}" for a in accountants]
    labels = dict(LABEL, **{f"rdpkit_{a}": f"rdpkit {a}" for a in accountants},
                  **{f"rdpkit_calibrate_{a}": f"rdpkit calibrate --accountant {a}"
                     for a in accountants})
    report = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "machine": f"{platform.machine()}, {os.cpu_count()} cores (shared), "
                         f"Python {platform.python_version()}",
              "peers": peer_versions(paths), "notes": args.note,
              "command": reproduce_command(sys.argv[1:]), "methods": methods,
              "labels": labels, "cases": []}
    for q, sigma, count, delta in CASES:
        cid = case_id(q, sigma, count, delta)
        if args.case and cid not in args.case:
            continue
        case = {"id": cid, "q": q, "sigma": sigma, "count": count, "delta": delta,
                "results": {}}
        for method in methods:
            if method.startswith("rdpkit_"):
                res = run_rdpkit(args, "epsilon", event_json(q, sigma, count),
                                 ["--delta", repr(delta), "--accountant", method[7:]]) \
                    if args.rdpkit else {"status": "not given"}
            else:
                res = run_worker(method, {"q": q, "sigma": sigma, "count": count,
                                          "delta": delta}, args, paths)
            case["results"][method] = res
            print(f"{cid:28s} {method:14s} {fmt_eps(res):>22s} {fmt_time(res)}",
                  file=sys.stderr, flush=True)
        case["dp_accounting_pld_epsilon"] = case["results"].get("dp_pld", {}).get("value")
        case["load"] = os.getloadavg()
        report["cases"].append(case)
    if args.benchmark_json:
        with open(args.benchmark_json) as f:
            report["benchmark"] = json.load(f)
    if not args.no_mechanisms:
        report["mechanisms"] = run_mechanisms(args, paths, accountants)
    if args.reference:
        report["reference"] = run_reference(args, paths)
    report["calibration"] = {"target": CALIBRATION, "results": {}}
    if not args.no_calibration:
        c = CALIBRATION
        results = report["calibration"]["results"]
        for method in CALIBRATION_METHODS:
            results[method] = run_worker(method, c, args, paths)
            print(f"calibration {method:14s} {results[method].get('value')} "
                  f"{fmt_time(results[method])}", file=sys.stderr, flush=True)
        for accountant in accountants if args.rdpkit else []:
            event = event_json(c["sampling_probability"], "?", c["count"])
            results[f"rdpkit_calibrate_{accountant}"] = run_rdpkit(
                args, "calibrate", event, ["--epsilon", repr(c["epsilon"]), "--delta",
                                           repr(c["delta"]), "--accountant", accountant])
        report["calibration"]["load"] = os.getloadavg()
    text = markdown(report)
    if args.out_json:
        with open(args.out_json, "w") as f:
            json.dump(report, f, indent=1)
            f.write("\n")
    if args.out_md:
        with open(args.out_md, "w") as f:
            f.write(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
