#!/usr/bin/env python3
"""ε of Poisson-subsampled Gaussian self-compositions by the peers' accountants, next to rdpkit's
(issue 13, point 4): ε at δ, in-process time per query, peak memory, and σ calibration.

    bench/peer_accountants.py --rdpkit build/release/tools/rdpkit \\
        --dp-accounting DIR --prv-accountant DIR --opacus DIR \\
        [--accountant rdp --accountant best --accountant pld] [--repeats 5] \\
        [--reference tests/data/subsampled_gaussian_pld_cases.json] \\
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
(`rdpkit epsilon --event … --delta … --accountant A`), timed the same way from spawn to exit; an
accountant the binary rejects (exit 2 naming `accountant`) is reported as "not available".

Methods: dp_accounting's PLDAccountant (value_discretization_interval 1e-4, its defaults:
pessimistic estimate, connect-the-dots, add-or-remove neighbours) and RdpAccountant (default
orders); prv_accountant's PRVAccountant at eps_error 0.01 and 0.001 (delta_error = δ/1000, the
choice Opacus makes; its upper ε is reported); Opacus's RDPAccountant and PRVAccountant
(eps_error 0.01, its upper ε). Calibration: σ for (q = 0.01, T = 10⁴, ε = 1, δ = 1e-5) by
dp_accounting's calibrate_dp_mechanism on PLD and RDP (its default bracket and tolerance),
Opacus's get_noise_multiplier (rdp, its default tolerance 0.01 in ε) and `rdpkit calibrate`.
`--reference` adds, once per case, dp_accounting's PLD and rdpkit's ε on the cases of the exact
table written by scripts/subsampled_gaussian_reference.py, with their excess over the exact ε.
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
CALIBRATION_METHODS = ["dp_pld", "dp_rdp", "opacus_rdp"]
NEEDS = {"dp": "dp_accounting", "prv": "prv_accountant", "opacus": "opacus"}
LABEL = {"dp_pld": "dp_accounting PLD 1e-4", "dp_rdp": "dp_accounting RDP",
         "prv_0.01": "prv_accountant 0.01", "prv_0.001": "prv_accountant 0.001",
         "opacus_rdp": "Opacus RDP", "opacus_prv": "Opacus PRV 0.01"}


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


def calibration_query(method, q, count, epsilon, delta):
    if method == "opacus_rdp":
        utils = __import__("opacus.accountants.utils", fromlist=["get_noise_multiplier"])
        return lambda: utils.get_noise_multiplier(target_epsilon=epsilon, target_delta=delta,
                                                  sample_rate=q, steps=count, accountant="rdp")
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
    if "epsilon" in spec:
        run = calibration_query(args.worker, spec["sampling_probability"], spec["count"],
                                spec["epsilon"], spec["delta"])
    else:
        run = epsilon_query(args.worker, spec["q"], spec["sigma"], spec["count"], spec["delta"])
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
                      "rss_import_mb": rss_import / 1024}))


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
              "rss_after_import_mb":
              rep["rss_import_mb"]}
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
    """A cell for a result without a number: the status, cut at 60 characters."""
    status = result.get("status", "?")
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
        pld, rdp = res.get("dp_pld", {}).get("value"), res.get("rdpkit_rdp", {}).get("value")
        if pld is not None and rdp:
            gap_rows.append([name, f"{pld:.5f}", f"{rdp:.5f}", f"{100 * (1 - pld / rdp):.1f} %"])
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
                     "exact ε is 0); a − would be an ε below the truth.",
                     table(["case", "exact ε"] + [report["labels"].get(k, k) for k in keys],
                           ref_rows)]
    cal = report["calibration"]
    cal_rows = [[report["labels"].get(m, m), f"{r['value']:.6g}" if r.get("value") else
                 r.get("status"), fmt_time(r), fmt_time(r, "median_cpu_s"), fmt_rss(r)]
                for m, r in cal["results"].items()]
    c = cal["target"]
    peers = ", ".join(f"{k} {v}" for k, v in report["peers"].items()) or "none given"
    header = [f"# Peer accountants on Poisson-subsampled Gaussians ({report['date']})",
              f"Machine: {report['machine']}. Peers (versions from their own files): {peers}."]
    header += report["notes"]
    header.append("Reproduce: `" + report["command"] + "` (paths are the user's checkouts).")
    return "\n\n".join(header + [
        "## ε at δ", table(head, eps_rows),
        "## Time per query (median; whole process for rdpkit, in-process for the peers)",
        table(head, time_rows),
        "## CPU time per query (user + system, median; same runs)", table(head, cpu_rows),
        "## Peak resident memory, MB (whole worker process, imports included)",
        table(head, rss_rows),
        "## dp_accounting PLD (1e-4) against rdpkit's RDP ε",
        table(["case (q, σ, T, δ)", "PLD ε", "rdpkit rdp ε", "PLD below RDP by"], gap_rows),
        f"## Calibration of σ for q = {c['sampling_probability']:g}, T = {c['count']}, "
        f"ε = {c['epsilon']:g}, δ = {c['delta']:g}",
        table(["method", "σ", "wall (median)", "CPU (median)", "peak RSS MB"], cal_rows)]
        + sections) + "\n"


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
    labels = dict(LABEL, rdpkit_calibrate="rdpkit calibrate (best)",
                  **{f"rdpkit_{a}": f"rdpkit {a}" for a in accountants})
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
        report["cases"].append(case)
    if args.reference:
        report["reference"] = run_reference(args, paths)
    report["calibration"] = {"target": CALIBRATION, "results": {}}
    if not args.no_calibration:
        c = CALIBRATION
        for method in CALIBRATION_METHODS:
            res = run_worker(method, c, args, paths)
            report["calibration"]["results"][method] = res
            print(f"calibration {method:14s} {res.get('value')} {fmt_time(res)}",
                  file=sys.stderr, flush=True)
        if args.rdpkit:
            event = event_json(c["sampling_probability"], "?", c["count"])
            res = run_rdpkit(args, "calibrate", event, ["--epsilon", repr(c["epsilon"]),
                                                        "--delta", repr(c["delta"])])
            report["calibration"]["results"]["rdpkit_calibrate"] = res
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
