"""Fitting: the consequents' least-squares solve, the choice of the ridge, antecedent refinement.

:func:`randomts.fitting.consequents.fit_consequents` is the fit of the
consequents of given antecedents, at a given ridge or at the one of least
leave-one-out error; the rest of randomts fits through it or through the
pieces it is made of (:class:`~randomts.fitting.consequents.ConsequentStream`,
:func:`~randomts.fitting.ridge.choose_consequent_alpha`).

Every function here works on the arrays and methods a rule base offers
(:mod:`randomts.fitting.protocol`); none names a model class, so the models'
own methods can call them.
"""
