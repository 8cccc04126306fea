"""The paper's experiment: the Van der Pol identification demo and its figures."""
