"""The privacy curve: ε against the number of steps of a repeated event (``rdpkit plot``)."""
from typing import Optional

from . import _params, _rdpkit
from .accounting import EpsilonResult, _as_event, _orders


def privacy_curve(event, delta: float, steps: Optional[int] = None, *, points: int = 30,
                  orders=None, certified: bool = True, accountant: str = "best"):
    """[(steps, EpsilonResult), ...]: ε at δ after k steps of the event, for up to `points`
    step counts k in [1, steps] on a log scale. Without steps, event must be a self_composed
    event: its inner event is one step and its count the number of steps."""
    # Whole numbers the binding's C types hold; the library checks their ranges (privacy_curve.h).
    steps = 0 if steps is None else _params.check_whole("steps", steps, 0, 2 ** 64 - 1)
    curve = _rdpkit.privacy_curve(_as_event(event).to_json_text(), steps,
                                  _params.check_number("delta", delta, "[0, 1)"),
                                  _params.check_whole("points", points, -2 ** 31, 2 ** 31 - 1),
                                  _orders(orders), bool(certified), str(accountant))
    return [(k, EpsilonResult(epsilon=f["epsilon"], delta=f["delta"],
                              accountant=f["accountant"], certified=f["certified"],
                              order=f["order"], conversion=f["conversion"], mu=f["mu"]))
            for k, f in curve]


def plot_privacy_curve(event, delta: float, steps: Optional[int] = None, *, ax=None,
                       points: int = 30, label: Optional[str] = None, **options):
    """Plots ε against steps (matplotlib, imported here only) and returns the Axes."""
    import matplotlib.pyplot as plt  # lazily: the accountant does not need matplotlib

    curve = privacy_curve(event, delta, steps, points=points, **options)
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    ax.plot([k for k, _ in curve], [r.epsilon for _, r in curve], marker="o", markersize=3,
            label=label)
    ax.set_xscale("log")
    ax.set_xlabel("steps")
    ax.set_ylabel(f"epsilon at delta = {delta:g}")
    ax.grid(True, which="both", alpha=0.3)
    if label is not None:
        ax.legend()
    return ax
