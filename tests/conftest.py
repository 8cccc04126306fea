"""Shared fixtures: the paper's Van der Pol data."""

import numpy as np
import pytest

from randomts.dynamics.systems import van_der_pol


@pytest.fixture(scope="session")
def van_der_pol_data():
    """Ten standard-form trajectories of 1000 Euler steps (dt = 0.01): X -> next state."""
    rng = np.random.default_rng(12345)
    states = van_der_pol(rng.uniform(-2.0, 2.0, size=(10, 2)), n_steps=1000, step=0.01)
    X = states[:, :-1].reshape(-1, 2)
    Y = states[:, 1:].reshape(-1, 2)
    return X, Y
