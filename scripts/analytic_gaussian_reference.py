#!/usr/bin/env python3
"""Reference values of the analytic Gaussian mechanism (Balle & Wang 2018, Thm 8), 60 digits.

    python3 scripts/analytic_gaussian_reference.py > tests/data/analytic_gaussian_cases.json

delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) with mpmath at 60 significant digits;
eps(delta) by bisection on that function to 50 digits. Inputs are exactly representable doubles
(mu = 1/sigma is given as sigma, the event's noise multiplier, composed `count` times: mu =
sqrt(count)/sigma). Needs python3-mpmath.
"""
import json

import mpmath

mpmath.mp.dps = 60


def delta_of(mu, eps):
    phi = lambda x: mpmath.ncdf(x)
    return phi(-eps / mu + mu / 2) - mpmath.e ** eps * phi(-eps / mu - mu / 2)


def eps_of(mu, delta):
    if delta_of(mu, 0) <= delta:
        return mpmath.mpf(0)
    lo, hi = mpmath.mpf(0), mpmath.mpf(1)
    while delta_of(mu, hi) > delta:
        hi *= 2
    for _ in range(400):
        mid = (lo + hi) / 2
        if delta_of(mu, mid) <= delta:
            hi = mid
        else:
            lo = mid
        if hi - lo < mpmath.mpf(10) ** -55 * hi:
            break
    return hi


def main():
    cases = []
    grid = [(0.3, 1), (1.0, 1), (2.0, 10), (40.4513, 100), (10.0, 1000), (100.0, 1), (0.5, 7),
            (1000.0, 1), (3.0, 1), (0.05, 1), (1e8, 1)]
    for sigma, count in grid:
        mu = mpmath.sqrt(count) / mpmath.mpf(sigma)
        for delta in (1e-2, 1e-5, 1e-8, 1e-12, 1e-30):
            cases.append({"id": f"eps-s{sigma}-n{count}-d{delta}", "kind": "epsilon",
                          "noise_multiplier": sigma, "count": count, "delta": delta,
                          "expected": mpmath.nstr(eps_of(mu, mpmath.mpf(delta)), 30)})
        for eps in (0.0, 0.1, 1.0, 5.0):
            cases.append({"id": f"delta-s{sigma}-n{count}-e{eps}", "kind": "delta",
                          "noise_multiplier": sigma, "count": count, "epsilon": eps,
                          "expected": mpmath.nstr(delta_of(mu, mpmath.mpf(eps)), 30)})
    print(json.dumps({"source": "mpmath 60 digits, scripts/analytic_gaussian_reference.py",
                      "cases": cases}, indent=1))


if __name__ == "__main__":
    main()
