#!/usr/bin/env python3
"""Exact ε(δ) of the Poisson-subsampled Gaussian composed T ≤ 2 times, for tests of PLD accountants.

    python3 scripts/subsampled_gaussian_reference.py > tests/data/subsampled_gaussian_pld_cases.json
    python3 scripts/subsampled_gaussian_reference.py --check   # the self-checks only

The event: T rounds, each adding N(0, σ²) noise to a sum of sensitivity 1 whose one record is in
the sample with probability q (add-or-remove neighbours). With P = N(0, σ²) and
Q = (1 − q) N(0, σ²) + q N(1, σ²) (Mironov, Talwar & Zhang 2019, §3: the worst pair for this
mechanism), the mechanism is (ε, δ)-DP iff δ ≥ max(H_T(Q‖P)(ε), H_T(P‖Q)(ε)), the "remove" and
"add" directions, where H_T(A‖B)(ε) = ∫ (A^T − e^ε B^T)_+ is the hockey-stick divergence of the
T-fold products (Balle, Barthe & Gaboardi 2018, Thm 1; Zhu, Dong & Wang 2022, §2). So ε(δ) is the
larger of the two directions' ε, each the root of H_T(ε) = δ (0 when H_T(0) ≤ δ).

With ℓ = log(A/B) the privacy loss of one round, conditioning on the first round gives
    H_T(ε) = E_{x∼A}[ H_{T−1}(ε − ℓ(x)) ],  H_0(s) = (1 − e^s)_+,
and H_T'(ε) = E_{x∼A}[ H'_{T−1}(ε − ℓ(x)) ] with H'_0(s) = −e^s·1[s < 0].
For T = 1 the integral is closed: L(x) = log(1 − q + q·exp((2x − 1)/(2σ²))) is increasing, so
(remove) H_1(s) = Q(x > t) − e^s P(x > t) with t = σ² log((e^s − 1 + q)/q) + 1/2, or 1 − e^s when
e^s ≤ 1 − q; (add, loss −L) H_1(s) = P(x < u) − e^s Q(x < u) with u = σ² log((e^−s − 1 + q)/q) + 1/2,
or 0 when e^−s ≤ 1 − q; the normal tails are mpmath's erfc. T = 2 is one tanh-sinh integral of
these (mpmath.quad, in z = x/σ, split where H_1's argument crosses its one non-analytic point
and at the mixture's two centres). T = 3 nests two such integrals; the recursion below does it,
but at these precisions it costs hours per case, so no T = 3 case is written.

The root of log H − log δ: a bracket by doubling or halving, then safeguarded Newton steps at 20
digits, then again at the working precision (100 digits for T = 1, 60 for T = 2) in a checked
bracket 1e-12 wide, until the step is below 1e-40 relative (T = 1) or 1e-32 (T = 2); written
rounded to 30 significant digits. `--check` compares
H_1 with direct numerical integration of ∫ (A − e^ε B)_+ (split at its one crossing), the q = 1
cases with the analytic Gaussian (Balle & Wang 2018, Thm 8), and T = 2 against the analytic
Gaussian at q = 1 through the integral path. Needs python3-mpmath.

Output: {"source", "event", "cases": [{"id", "sampling_probability", "noise_multiplier", "count",
"delta", "expected_epsilon", "remove_epsilon", "add_epsilon", "method"}]}; the three ε are decimal
strings rounded to 30 significant digits (parse them with strtod and compare with a relative
slack of 1e-12 or more: a double holds ~16 digits), expected_epsilon is the larger of the two
directions, and "0.0" means the event is (0, δ)-DP.
"""
import json
import sys

import mpmath
from mpmath import mpf

# (q, σ, T, δ); T = 1 covers the grid q × σ, T = 2 a few of them.
CASES = (
    [(1e-6, 0.3, 1, 1e-12), (1e-6, 0.6, 1, 1e-12), (1e-6, 1.0, 1, 1e-8), (1e-4, 0.3, 1, 1e-8),
     (1e-4, 0.6, 1, 1e-5), (1e-4, 1.0, 1, 1e-12), (0.01, 0.3, 1, 1e-5), (0.01, 0.6, 1, 1e-2),
     (0.01, 1.0, 1, 1e-5), (0.01, 2.0, 1, 1e-8), (0.01, 10.0, 1, 1e-12), (0.1, 0.6, 1, 1e-8),
     (0.1, 1.0, 1, 1e-5), (0.1, 2.0, 1, 1e-12), (0.1, 10.0, 1, 1e-5), (0.5, 0.3, 1, 1e-2),
     (0.5, 1.0, 1, 1e-8), (0.5, 2.0, 1, 1e-5), (0.5, 100.0, 1, 1e-12), (1.0, 0.6, 1, 1e-5),
     (1.0, 2.0, 1, 1e-2), (1.0, 10.0, 1, 1e-8), (1.0, 100.0, 1, 1e-5)]
    + [(0.01, 1.0, 2, 1e-5), (0.1, 0.6, 2, 1e-8), (0.5, 2.0, 2, 1e-2), (1e-4, 0.3, 2, 1e-12),
       (0.1, 2.0, 2, 1e-5), (1.0, 1.0, 2, 1e-5), (0.01, 0.6, 2, 1e-8)])


def tail(x):
    """P(Z > x) for a standard normal Z."""
    return mpmath.erfc(x / mpmath.sqrt(2)) / 2


class Direction:
    """One ordered pair (A, B): remove = (Q, P), add = (P, Q); σ-scaled coordinate z = x/σ."""

    def __init__(self, q, sigma, remove):
        self.q, self.sigma, self.remove = mpf(q), mpf(sigma), remove
        self.log1mq = mpmath.log1p(-self.q) if self.q < 1 else mpmath.ninf

    def loss(self, z):
        """ℓ(x) at x = σz: L(x) for remove, −L(x) for add."""
        q, s = self.q, self.sigma
        value = mpmath.log(1 - q + q * mpmath.exp((2 * s * z - 1) / (2 * s * s)))
        return value if self.remove else -value

    def density(self, z):
        """A's density in z."""
        q, s = self.q, self.sigma
        phi = mpmath.npdf(z)
        if not self.remove:
            return phi
        return (1 - q) * phi + q * mpmath.npdf(z - 1 / s)

    def singular(self):
        """The one s at which H_1(s) is not analytic (H_1 jumps regime there)."""
        return self.log1mq if self.remove else -self.log1mq

    def h1(self, s, derivative=False):
        """H_1(s) (or H_1'(s)) in closed form."""
        q, sig = self.q, self.sigma
        es = mpmath.exp(s)
        if self.remove:
            if q < 1 and es <= 1 - q:
                return -es if derivative else 1 - es
            z = (sig * sig * mpmath.log((es - 1 + q) / q) + mpf(1) / 2) / sig
            if derivative:
                return -es * tail(z)
            return (1 - q) * tail(z) + q * tail(z - 1 / sig) - es * tail(z)
        ems = 1 / es
        if q < 1 and ems <= 1 - q:
            return mpf(0)
        z = (sig * sig * mpmath.log((ems - 1 + q) / q) + mpf(1) / 2) / sig
        q_below = (1 - q) * tail(-z) + q * tail(1 / sig - z)
        if derivative:
            return -es * q_below
        return tail(-z) - es * q_below

    def crossing(self, s):
        """The z where ℓ(σz) = s (None if ℓ never takes the value s)."""
        q, sig = self.q, self.sigma
        target = s if self.remove else -s
        inside = mpmath.exp(target) - 1 + q
        if inside <= 0:
            return None
        return (sig * sig * mpmath.log(inside / q) + mpf(1) / 2) / sig

    def h(self, count, eps, derivative=False):
        """H_count(ε) (or its derivative) by the first-round recursion."""
        if count == 1:
            return self.h1(eps, derivative)
        points = {mpf(0), 1 / self.sigma}
        # H_{count-1} is non-analytic where its argument reaches (count-1)·singular(): split there.
        for k in range(1, count):
            cut = self.crossing(eps - k * self.singular()) if mpmath.isfinite(
                self.singular()) else None
            if cut is not None:
                points.add(cut)
        nodes = [mpmath.ninf] + sorted(points) + [mpmath.inf]
        integrand = lambda z: self.density(z) * self.h(count - 1, eps - self.loss(z), derivative)
        return mpmath.quad(integrand, nodes)


def newton(direction, count, log_delta, lo, hi, tolerance):
    """Root of log H_count(ε) − log δ in the bracket [lo, hi] at the current precision: Newton
    steps, a bisection step whenever Newton leaves the bracket (near ε = −log(1 − q) the add
    direction's H falls to 0 faster than any exponential), to a relative step of tolerance."""
    eps = (lo + hi) / 2
    for _ in range(200):
        value = direction.h(count, eps)
        if value > 0 and mpmath.log(value) > log_delta:
            lo = eps
        else:
            hi = eps
        slope = direction.h(count, eps, True) if value > 0 else 0
        new = eps - (mpmath.log(value) - log_delta) * value / slope if slope != 0 else lo - 1
        if not lo < new < hi:
            new = (lo + hi) / 2
        step, eps = new - eps, new
        if abs(step) <= tolerance * eps:
            return eps
    raise RuntimeError(f"no root found for count={count}, log delta={log_delta}")


def solve(direction, count, delta, dps):
    """ε ≥ 0 with H_count(ε) = δ, 0 when H_count(0) ≤ δ: a bracket [h/2, h] by doubling or
    halving and the root to 1e-15 at 20 digits, then a bracket 1e-12 wide around it (checked)
    and the root at dps digits."""
    above = lambda eps: direction.h(count, eps) > delta  # H is decreasing in ε
    with mpmath.workdps(20):
        if not above(mpf(0)):
            return mpf(0)
        hi = mpf(1)
        while above(hi):
            hi *= 2
        while above(hi / 2) is False and hi > mpf(10) ** -12:
            hi /= 2
        eps = newton(direction, count, mpmath.log(delta), hi / 2, hi, mpf(10) ** -15)
    with mpmath.workdps(dps):
        lo, hi = mpf(eps) * (1 - mpf(10) ** -12), mpf(eps) * (1 + mpf(10) ** -12)
        if not (above(lo) and not above(hi)):
            raise RuntimeError(f"the 20-digit root {eps} is no bracket at {dps} digits")
        return newton(direction, count, mpmath.log(delta), lo, hi,
                      mpf(10) ** (-40 if count == 1 else -32))


def epsilon(q, sigma, count, delta):
    dps = 100 if count == 1 else 60
    with mpmath.workdps(dps):
        both = [solve(Direction(q, sigma, remove), count, mpf(delta), dps)
                for remove in (True, False)]
        return max(both), both


def analytic_gaussian_delta(mu, eps):
    """Balle & Wang 2018, Thm 8: δ(ε) of N(0,1) vs N(μ,1)."""
    return tail(eps / mu - mu / 2) - mpmath.exp(eps) * tail(eps / mu + mu / 2)


def direct_h1(direction, eps):
    """∫ (A − e^ε B)_+ dx by quadrature, split where A = e^ε B, a second way to get H_1."""
    q, sig = direction.q, direction.sigma
    p_density = mpmath.npdf
    q_density = lambda z: (1 - q) * mpmath.npdf(z) + q * mpmath.npdf(z - 1 / sig)
    a, b = (q_density, p_density) if direction.remove else (p_density, q_density)
    integrand = lambda z: max(a(z) - mpmath.exp(eps) * b(z), 0)
    cut = direction.crossing(eps)
    nodes = [mpmath.ninf] + ([cut] if cut is not None else []) + [mpmath.inf]
    return mpmath.quad(integrand, nodes)


def check():
    """The self-checks; raises AssertionError on a mismatch."""
    with mpmath.workdps(50):
        for q, sigma in ((0.01, 1.0), (0.5, 0.3), (1e-4, 2.0), (0.1, 10.0)):
            for remove in (True, False):
                d = Direction(q, sigma, remove)
                for eps in (mpf("0.05"), mpf("0.7"), mpf(3)):
                    closed, direct = d.h1(eps), direct_h1(d, eps)
                    assert abs(closed - direct) <= mpf(10) ** -40 + mpf(10) ** -30 * closed, (
                        q, sigma, remove, eps, closed, direct)
        for sigma, count in ((0.6, 1), (2.0, 1), (1.0, 2), (3.0, 2)):
            mu = mpmath.sqrt(count) / mpf(sigma)
            for remove in (True, False):
                d = Direction(1.0, sigma, remove)
                for eps in (mpf("0.3"), mpf(2)):
                    ours, exact = d.h(count, eps), analytic_gaussian_delta(mu, eps)
                    assert abs(ours - exact) <= mpf(10) ** -30 * exact, (sigma, count, eps)
    print("checks passed", file=sys.stderr)


def main():
    if "--check" in sys.argv[1:]:
        check()
        return
    check()
    cases = []
    for q, sigma, count, delta in CASES:
        eps, (remove, add) = epsilon(q, sigma, count, delta)
        cases.append({"id": f"q{q:g}-s{sigma:g}-T{count}-d{delta:g}",
                      "sampling_probability": q, "noise_multiplier": sigma, "count": count,
                      "delta": delta, "expected_epsilon": mpmath.nstr(eps, 30),
                      "remove_epsilon": mpmath.nstr(remove, 30),
                      "add_epsilon": mpmath.nstr(add, 30),
                      "method": "closed form (normal tails), 100 digits" if count == 1 else
                      "tanh-sinh quadrature of the T = 1 closed form, 60 digits"})
        print(cases[-1]["id"], cases[-1]["expected_epsilon"], file=sys.stderr, flush=True)
    print(json.dumps({
        "source": "scripts/subsampled_gaussian_reference.py (mpmath; exact hockey-stick "
                  "divergence, max of the remove and add directions, 30 significant digits)",
        "event": "self_composed(count, poisson_sampled(sampling_probability, "
                 "gaussian(noise_multiplier))), add-or-remove neighbours, sensitivity 1",
        "cases": cases}, indent=1))


if __name__ == "__main__":
    main()
