"""The numerical core: pure functions over arrays, with no model objects and no I/O.

Membership functions and firing strengths, the sampling of random
antecedents (the only place randomness enters), the block design matrix, the
least-squares accumulators and solvers, and the compiled inference kernel.
"""
