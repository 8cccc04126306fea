"""Dynamical systems: benchmark systems, NARX structure and simulation, linearisation."""
