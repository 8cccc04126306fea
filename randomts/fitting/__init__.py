"""Fitting: the consequents' least-squares solve, the choice of the ridge, antecedent refinement.

Every function here works on the arrays and methods a rule base offers; none
names a model class, so the models' own methods can call them.
"""
