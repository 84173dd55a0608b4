"""The accountant from Python: dp_accounting-style events, epsilon, delta, rdp, calibrate."""
import json
import math
import subprocess

import pytest

import rdpkit

DPSGD_STEP = rdpkit.PoissonSampledEvent(256 / 60000, rdpkit.GaussianEvent(1.1))
DPSGD_STEPS = math.ceil(15 * 60000 / 256)  # 3516


def test_dpsgd_epsilon_matches_the_cli(cli):
    event = rdpkit.SelfComposedEvent(DPSGD_STEP, DPSGD_STEPS)
    result = rdpkit.epsilon(event, delta=1e-5)
    out = subprocess.run([cli, "epsilon", "--event", event.to_json_text(), "--delta", "1e-5"],
                         capture_output=True, text=True, check=True).stdout
    expected = json.loads(out)
    assert result.epsilon == expected["epsilon"]
    assert result.accountant == expected["accountant"] == "pld"
    assert result.certified and float(result) == result.epsilon
    # dp_accounting's PLD gives ≈ 1.09 at 3750 steps of q = 0.004 (bench/peer_accountants.md).
    assert 1.0 < result.epsilon < 1.2
    # The RDP accountant answers like Opacus / dp_accounting RDP (≈ 1.28), and like the CLI.
    rdp = rdpkit.epsilon(event, delta=1e-5, accountant="rdp")
    out = subprocess.run([cli, "epsilon", "--event", event.to_json_text(), "--delta", "1e-5",
                          "--accountant", "rdp"], capture_output=True, text=True, check=True).stdout
    expected = json.loads(out)
    assert rdp.epsilon == expected["epsilon"] and rdp.order == expected["order"]
    assert rdp.accountant == "rdp" and 1.2 < rdp.epsilon < 1.35


def test_event_json_round_trip_and_kinds():
    event = rdpkit.ComposedEvent([DPSGD_STEP, rdpkit.LaplaceEvent(20.0),
                                  rdpkit.LeafBalancedGaussianEvent(2.0, [0.1, 0.9])])
    again = rdpkit.Event.from_json(event.to_json_text())
    assert again == event
    assert event.to_json()["composed"][1] == {"laplace": {"noise_multiplier": 20.0}}
    assert DPSGD_STEP.sampling_probability == 256 / 60000
    assert DPSGD_STEP.event == rdpkit.GaussianEvent(1.1)
    assert rdpkit.SelfComposedEvent(DPSGD_STEP, 3).count == 3


@pytest.mark.parametrize("make, field", [
    (lambda: rdpkit.GaussianEvent(-1.0), "gaussian.noise_multiplier"),
    (lambda: rdpkit.PoissonSampledEvent(1.5, rdpkit.GaussianEvent(1.0)),
     "poisson_sampled.sampling_probability"),
    (lambda: rdpkit.Event.from_json('{"gaussian": {"sigma": 1}}'), "gaussian"),
    (lambda: rdpkit.Event.from_json("{not json"), "event"),
    # NaN and infinities are not JSON: named as any other bad value, not "malformed JSON".
    (lambda: rdpkit.GaussianEvent(float("nan")), "gaussian.noise_multiplier"),
    (lambda: rdpkit.LaplaceEvent(float("inf")), "laplace.noise_multiplier"),
    (lambda: rdpkit.Event.from_json('{"composed": [{"gaussian": {"noise_multiplier": NaN}}]}'),
     "composed[0].gaussian.noise_multiplier"),
])
def test_bad_events_raise_value_errors_naming_the_field(make, field):
    with pytest.raises(ValueError) as info:
        make()
    assert isinstance(info.value, rdpkit.InvalidArgumentError)
    assert info.value.field.startswith(field)
    assert field.split(".")[-1] in str(info.value)


def test_bad_delta_and_accountant_name_the_field():
    with pytest.raises(rdpkit.InvalidArgumentError) as info:
        rdpkit.epsilon(rdpkit.GaussianEvent(1.0), delta=1.5)
    assert info.value.field == "delta" and "(0, 1)" in info.value.accepted
    with pytest.raises(rdpkit.InvalidArgumentError) as info:
        rdpkit.epsilon(rdpkit.GaussianEvent(1.0), delta=1e-5, accountant="nope")
    assert info.value.field == "accountant"


def test_gaussian_rdp_is_order_over_two_sigma_squared():
    # ρ(α) = α/(2σ²) (Mironov 2017); certified values are upper bounds of it.
    orders = [1.5, 2, 8, 64]
    for certified in (True, False):
        values = rdpkit.rdp(rdpkit.GaussianEvent(2.0), orders, certified=certified)
        for order, value in zip(orders, values):
            assert value == pytest.approx(order / 8, rel=1e-12)
            if certified:
                assert value >= order / 8


def test_gaussian_composition_equals_one_gaussian():
    # k Gaussians of σ compose to one of σ/√k exactly (the "gaussian" accountant).
    composed = rdpkit.SelfComposedEvent(rdpkit.GaussianEvent(4.0), 16)
    single = rdpkit.GaussianEvent(1.0)
    a = rdpkit.epsilon(composed, 1e-5, accountant="gaussian")
    b = rdpkit.epsilon(single, 1e-5, accountant="gaussian")
    assert a.accountant == "gaussian" and a.mu == pytest.approx(1.0)
    assert a.epsilon == pytest.approx(b.epsilon, rel=1e-12)


def test_delta_inverts_epsilon():
    event = rdpkit.SelfComposedEvent(DPSGD_STEP, 100)
    eps = rdpkit.epsilon(event, 1e-6, accountant="rdp")
    back = rdpkit.delta(event, eps.epsilon, accountant="rdp")
    assert float(back) == back.delta <= 1e-6 * (1 + 1e-9)
    assert rdpkit.epsilon(event, 1e-3).epsilon <= eps.epsilon  # ε non-increasing in δ


def test_calibrate_placeholder_is_safe_and_tight():
    result = rdpkit.calibrate(rdpkit.GaussianEvent("?"), epsilon=1.0, delta=1e-5)
    assert result.parameter == "noise_multiplier"
    assert result.epsilon <= 1.0
    assert result.event == rdpkit.GaussianEvent(result.value)
    assert rdpkit.epsilon(result.event, 1e-5).epsilon <= 1.0
    # Slightly less noise breaks the target: the answer is at the boundary.
    assert rdpkit.epsilon(rdpkit.GaussianEvent(result.value * (1 - 1e-5)), 1e-5).epsilon > 1.0


def test_calibrate_callable_matches_placeholder_and_dp_accounting_name():
    by_placeholder = rdpkit.calibrate(
        rdpkit.SelfComposedEvent(rdpkit.PoissonSampledEvent(0.01, rdpkit.GaussianEvent("?")),
                                 1000), 2.0, 1e-5)
    make = lambda s: rdpkit.SelfComposedEvent(  # noqa: E731
        rdpkit.PoissonSampledEvent(0.01, rdpkit.GaussianEvent(s)), 1000)
    by_callable = rdpkit.calibrate(make, 2.0, 1e-5, bracket=(0.1, 50.0))
    assert by_callable.value == pytest.approx(by_placeholder.value, rel=1e-6)
    assert by_callable.epsilon <= 2.0
    value = rdpkit.calibrate_dp_mechanism(make, 2.0, 1e-5, bracket_interval=(0.1, 50.0))
    assert value == by_callable.value
    # An integer parameter that ε grows with: the largest count within the target.
    steps = rdpkit.calibrate(lambda k: rdpkit.SelfComposedEvent(DPSGD_STEP, k), 1.0, 1e-5,
                             bracket=(1, 100000), integer=True)
    assert isinstance(steps.value, int)
    assert rdpkit.epsilon(rdpkit.SelfComposedEvent(DPSGD_STEP, steps.value), 1e-5).epsilon <= 1.0
    # The calibration probes use the PLD accountant's coarser grid (docs/math/pld.md §5), so the
    # count is on the safe side and within a few percent of the largest one.
    assert rdpkit.epsilon(rdpkit.SelfComposedEvent(DPSGD_STEP, math.ceil(steps.value * 1.05)),
                          1e-5).epsilon > 1.0


def test_calibrate_callable_needs_a_bracket():
    with pytest.raises(rdpkit.InvalidArgumentError) as info:
        rdpkit.calibrate(lambda s: rdpkit.GaussianEvent(s), 1.0, 1e-5)
    assert info.value.field == "bracket"


def test_privacy_curve_grows_and_ends_at_the_composition():
    curve = rdpkit.privacy_curve(rdpkit.SelfComposedEvent(DPSGD_STEP, DPSGD_STEPS), 1e-5,
                                 points=12)
    steps = [k for k, _ in curve]
    assert steps[0] == 1 and steps[-1] == DPSGD_STEPS and steps == sorted(set(steps))
    epsilons = [r.epsilon for _, r in curve]
    assert all(a <= b for a, b in zip(epsilons, epsilons[1:]))
    full = rdpkit.epsilon(rdpkit.SelfComposedEvent(DPSGD_STEP, DPSGD_STEPS), 1e-5)
    assert epsilons[-1] == full.epsilon


def test_plot_privacy_curve_draws_the_curve():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    ax = rdpkit.plot_privacy_curve(DPSGD_STEP, 1e-5, steps=100, points=6)
    xs, ys = ax.lines[0].get_data()
    assert list(xs)[0] == 1 and list(xs)[-1] == 100
    assert ys[-1] == rdpkit.epsilon(rdpkit.SelfComposedEvent(DPSGD_STEP, 100), 1e-5).epsilon


def test_nothing_released_spends_nothing():
    """A count of 0 or an empty composition: ε = 0 from the exact Gaussian accountant."""
    for event in (rdpkit.SelfComposedEvent(rdpkit.GaussianEvent(1.0), 0),
                  rdpkit.Event.from_json('{"composed": []}')):
        result = rdpkit.epsilon(event, delta=1e-5)
        assert result.epsilon == 0 and result.accountant == "gaussian"


@pytest.mark.parametrize("text, field", [
    # Python's json would keep the last noise_multiplier (100) and report a tiny epsilon.
    ('{"gaussian": {"noise_multiplier": 0.01, "noise_multiplier": 100}}',
     "gaussian.noise_multiplier"),
    ('{"self_composed": {"count": 10, "event": {"laplace": {"noise_multiplier": 1}}, '
     '"count": 1}}', "self_composed.count"),
    (b'{"gaussian": {"noise_multiplier": 1, "noise_multiplier": 2}}', "gaussian.noise_multiplier"),
])
def test_duplicate_keys_are_refused_naming_the_key(text, field):
    """As `rdpkit epsilon --event` (json_input.h), a key given twice is refused, not resolved."""
    with pytest.raises(rdpkit.InvalidArgumentError) as info:
        rdpkit.Event.from_json(text)
    assert info.value.field == field
    assert "twice" in str(info.value)


def test_deeply_nested_events_are_invalid_arguments_not_recursion_errors():
    deep_text = '{"composed": [' * 5000 + "]}" * 5000
    with pytest.raises(rdpkit.InvalidArgumentError, match="nested deeper"):
        rdpkit.Event.from_json(deep_text)
    with pytest.raises(rdpkit.InvalidArgumentError, match="nested deeper"):
        rdpkit.Event.from_json("[" * 100000 + "]" * 100000)
    deep = {"gaussian": {"noise_multiplier": 1.0}}
    for _ in range(5000):
        deep = {"self_composed": {"count": 2, "event": deep}}
    with pytest.raises(rdpkit.InvalidArgumentError, match="nested deeper"):
        rdpkit.Event.from_json(deep)
    # Within the limit, nesting is accepted as before.
    event = rdpkit.GaussianEvent(50.0)
    for _ in range(20):
        event = rdpkit.SelfComposedEvent(event, 2)
    assert rdpkit.Event.from_json(event.to_json_text()) == event
