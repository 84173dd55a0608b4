"""rdpkit: certified Rényi-DP accounting and private gradient-boosted trees (DESIGN.md §8).

The accountant in dp_accounting's vocabulary::

    import rdpkit
    step = rdpkit.PoissonSampledEvent(256 / 60000, rdpkit.GaussianEvent(1.1))
    rdpkit.epsilon(rdpkit.SelfComposedEvent(step, 3516), delta=1e-5).epsilon

and scikit-learn estimators over the private trainer: DPGBTClassifier, DPGBTRegressor.
"""
from ._errors import InternalError, InvalidArgumentError, NumericalError, PrivacyLeakWarning
from .accounting import (CalibrationResult, ComposedEvent, EpsilonResult, Event, ExponentialEvent,
                         GaussianEvent, LaplaceEvent, LeafBalancedGaussianEvent,
                         PoissonSampledEvent, PureDpEvent, RenyiFilterEvent, SelfComposedEvent,
                         ZcdpEvent, calibrate, calibrate_dp_mechanism, delta, epsilon, rdp)
from .plot import privacy_curve, plot_privacy_curve

__version__ = "0.1.0"


def __getattr__(name):
    # The estimators need scikit-learn; the accountant alone does not.
    if name in ("DPGBTClassifier", "DPGBTRegressor"):
        from . import estimators

        return getattr(estimators, name)
    raise AttributeError(f"module 'rdpkit' has no attribute {name!r}")


__all__ = [
    "CalibrationResult", "ComposedEvent", "DPGBTClassifier", "DPGBTRegressor", "EpsilonResult",
    "Event", "ExponentialEvent", "GaussianEvent", "InternalError", "InvalidArgumentError",
    "LaplaceEvent", "LeafBalancedGaussianEvent", "NumericalError", "PoissonSampledEvent",
    "PrivacyLeakWarning", "PureDpEvent", "RenyiFilterEvent", "SelfComposedEvent", "ZcdpEvent",
    "calibrate", "calibrate_dp_mechanism", "delta", "epsilon", "plot_privacy_curve",
    "privacy_curve", "rdp",
]
