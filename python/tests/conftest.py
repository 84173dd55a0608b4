"""Shared fixtures: the rdpkit program (for the comparisons with the CLI) and small data sets."""
import os
import pathlib
import shutil

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _find_cli():
    """RDPKIT_CLI, else the rdpkit program of a build folder of this checkout, else PATH."""
    if os.environ.get("RDPKIT_CLI"):
        return os.environ["RDPKIT_CLI"]
    for candidate in sorted(ROOT.glob("build*/tools/rdpkit")) + sorted(
            ROOT.glob("build*/*/tools/rdpkit")):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("rdpkit")


@pytest.fixture(scope="session")
def cli():
    path = _find_cli()
    if path is None:
        pytest.skip("the rdpkit program is not built (set RDPKIT_CLI)")
    return path


@pytest.fixture(scope="session")
def binary_data():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(3000, 4))
    X[rng.random(X.shape) < 0.02] = np.nan  # missing values go through as NaN
    y = (np.nan_to_num(X[:, 0]) + 0.5 * np.nan_to_num(X[:, 1]) > 0).astype(int)
    return X, y


@pytest.fixture(scope="session")
def regression_data():
    rng = np.random.default_rng(8)
    X = rng.uniform(-2, 2, size=(2000, 3))
    y = np.clip(X[:, 0] - X[:, 1] + 0.1 * rng.normal(size=2000), -5, 5)
    return X, y


@pytest.fixture(scope="session")
def data():
    """2000 rows of 3 standard normal features; the label: x0 > 0."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 3))
    return X, (X[:, 0] > 0).astype(int)
