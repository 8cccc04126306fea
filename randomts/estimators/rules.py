"""The rules an estimator draws, and refines, before it fits their consequents.

:func:`standardise` gives the inputs as ``fit`` sees them, :func:`draw_rules`
the antecedents of :meth:`RandomTSRegressor.draw_antecedents
<randomts.RandomTSRegressor.draw_antecedents>` (random, or on k-means
clusters), :func:`refine_rules` the antecedents after ``refine``
iterations of variable projection and :func:`prune_rules` the most
important rules of a fitted estimator, refitted.
"""

from __future__ import annotations

import numpy as np

from randomts.core.membership import UNTESTED_WIDTH
from randomts.core.sampling import check_random_state, default_width_range
from randomts.estimators.records import fit_scaling
from randomts.fitting.leave_one_out import leave_one_out_alpha
from randomts.fitting.refinement import kmeans_antecedents, refine_antecedents
from randomts.fuzzy.rulebase import RuleBase
from randomts.importance import prune

__all__ = [
    "MIN_REFINE_SAMPLES",
    "draw_rules",
    "prune_rules",
    "refine_rules",
    "standardise",
    "untested_constant_inputs",
]

#: Fewest training rows that ``refine > 0`` accepts (a fifth of them held out).
MIN_REFINE_SAMPLES = 5


def standardise(X):
    """``(U, (mean, scale))``: ``U = (X - mean) / scale`` per feature.

    A column that holds one value in every row gets that value as its mean
    and a scale of 1 (its ``U`` is 0), not the rounding error of its
    standard deviation.

    Examples
    --------
    >>> import numpy as np
    >>> U, (mean, scale) = standardise(np.array([[1.0, 0.1], [3.0, 0.1]]))
    >>> U.tolist(), mean.tolist(), scale.tolist()
    ([[-1.0, 0.0], [1.0, 0.0]], [2.0, 0.1], [1.0, 1.0])
    """
    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    constant = np.all(X == X[:1], axis=0)
    mean[constant] = X[0, constant]
    scale[constant | (scale == 0)] = 1.0
    return (X - mean) / scale, (mean, scale)


def untested_constant_inputs(antecedents, U):
    """``antecedents`` with every input that is constant over the rows of ``U`` left untested.

    The model cannot learn the effect of an input that held one value in
    every training row: each rule's set on it is centred on that value and
    holds every value (:data:`~randomts.core.membership.UNTESTED_WIDTH`), so
    no rule tests it, and its slopes, whose design columns are then 0, fit
    to 0. With fewer than two rows nothing is constant.

    Examples
    --------
    >>> import numpy as np
    >>> U = np.array([[0.0, 1.0], [1.0, 1.0], [2.0, 1.0]])
    >>> rules = untested_constant_inputs(RuleBase.random(2, n_rules=2, random_state=0), U)
    >>> rules.centers[:, 1].tolist(), rules.sigmas[:, 1].tolist()
    ([1.0, 1.0], [1e+300, 1e+300])
    """
    if U.shape[0] < 2:
        return antecedents
    low, high = np.asarray(U.min(axis=0)), np.asarray(U.max(axis=0))  # also for a dask array
    constant = np.flatnonzero(low == high)
    if constant.size == 0:
        return antecedents
    centers, sigmas = antecedents.centers.copy(), antecedents.sigmas.copy()
    centers[:, constant] = low[constant]
    sigmas[:, constant] = UNTESTED_WIDTH
    return antecedents.replace(centers=centers, sigmas=sigmas)


def draw_rules(model, U, n_outputs=1, output_names=None):
    """The antecedents a RandomTSRegressor with valid parameters draws on the inputs ``U``.

    Random (:meth:`RuleBase.random <randomts.RuleBase.random>` with the
    estimator's ``centers``, ``center_scale``, ``center_bounds`` and
    ``width_range``), or on the k-means clusters of ``U``
    (:func:`~randomts.fitting.refinement.kmeans_antecedents`) with
    ``centers="kmeans"``; zero consequents, input names
    ``feature_names_in_`` when the estimator has them.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor
    >>> U = np.random.default_rng(0).normal(size=(100, 3))
    >>> rules = draw_rules(RandomTSRegressor(n_rules=4, random_state=0), U, 2)
    >>> rules.n_rules, rules.n_outputs, bool(np.any(rules.coef))
    (4, 2, False)
    """
    n_features = U.shape[1]
    input_names = (
        [str(name) for name in model.feature_names_in_]
        if hasattr(model, "feature_names_in_") and len(model.feature_names_in_) == n_features
        else None
    )
    if output_names is not None and len(output_names) != n_outputs:
        output_names = None
    width_range = model.width_range
    if width_range is None:
        width_range = default_width_range(n_features, normalize=model.normalize)
    if model.centers == "kmeans":  # not random: on the k-means clusters of U
        U = np.asarray(U, dtype=float)
        n_distinct = np.unique(U, axis=0).shape[0]
        if n_distinct < model.n_rules:
            raise ValueError(
                f"{type(model).__name__} with centers='kmeans' needs a training sample of "
                f"distinct inputs per rule (n_rules={model.n_rules}); got {n_distinct} "
                "sample(s) with distinct inputs. Use fewer rules or another 'centers'."
            )
        centers, sigmas = kmeans_antecedents(
            U, model.n_rules, random_state=check_random_state(model.random_state)
        )
        rules = RuleBase(
            centers,
            sigmas,
            n_outputs=n_outputs,
            normalize=model.normalize,
            input_names=input_names,
            output_names=output_names,
        )
        return untested_constant_inputs(rules, U)
    rules = RuleBase.random(
        n_features,
        n_outputs,
        model.n_rules,
        centers=model.centers,
        center_scale=model.center_scale,
        center_bounds=model.center_bounds,
        width_range=width_range,
        normalize=model.normalize,
        input_names=input_names,
        output_names=output_names,
        data=U,
        random_state=check_random_state(model.random_state),
    )
    return untested_constant_inputs(rules, U)


def refine_rules(model, antecedents, U, Y):
    """The antecedents refined by :func:`~randomts.fitting.refinement.refine_antecedents` on ``U``.

    ``model.refine`` iterations with the ridge ``model.alpha``, or with
    ``alpha="auto"`` the penalty ``fit`` chooses for the starting antecedents
    (:func:`~randomts.fitting.leave_one_out.leave_one_out_alpha`); the
    metadata of ``antecedents`` are kept.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor
    >>> rng = np.random.default_rng(0)
    >>> U = rng.uniform(-2, 2, size=(200, 1)); Y = np.sin(2 * U)
    >>> model = RandomTSRegressor(n_rules=3, refine=10, random_state=0)
    >>> start = draw_rules(model, U)
    >>> refined = refine_rules(model, start, U, Y)
    >>> refined.n_rules, bool(np.any(refined.centers != start.centers))
    (3, True)
    """
    if U.shape[0] < MIN_REFINE_SAMPLES:
        raise ValueError(
            f"The 'refine' parameter of {type(model).__name__} needs at least "
            f"{MIN_REFINE_SAMPLES} training samples (a fifth is held out to stop the "
            f"refinement); got {U.shape[0]} sample(s). Use refine=0 or more rows."
        )
    if isinstance(model.alpha, str):  # the penalty fit would choose for the starting antecedents
        selection = leave_one_out_alpha(antecedents, U, Y, order=model.order, n_jobs=model.n_jobs)
        alpha = selection.alpha
    else:
        alpha = float(model.alpha)
    refined = refine_antecedents(
        antecedents,
        U,
        Y,
        n_iter=model.refine,
        order=model.order,
        alpha=alpha,
        random_state=check_random_state(model.random_state),
    )
    return untested_constant_inputs(refined.replace(metadata=antecedents.metadata), U)


def prune_rules(model, k, X, Y):
    """The ``k`` most important rules of a fitted estimator on ``X``, consequents refitted to ``Y``.

    :func:`randomts.importance.prune` where ``fit`` fitted: on the
    standardised inputs when the estimator standardises (then expressed back
    in the data's units), with its ``order``, ``solver`` and the penalty
    ``alpha_`` it used.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-2, 2, size=(300, 2)); Y = np.sin(X[:, :1]) * X[:, 1:]
    >>> model = RandomTSRegressor(n_rules=30, random_state=0).fit(X, Y)
    >>> pruned = prune_rules(model, 5, X, Y)
    >>> pruned.n_rules, bool(np.mean((pruned.predict(X) - Y) ** 2) < 0.05)
    (5, True)
    """
    rule_base = model.rule_base_
    scaling = fit_scaling(rule_base.metadata, rule_base.n_features)
    if scaling is not None:  # rank and refit where fit did: on standardised inputs
        mean, scale = scaling
        rule_base = rule_base.in_original_units(-mean / scale, 1.0 / scale)
        X = (X - mean) / scale
    alpha = getattr(model, "alpha_", model.alpha)  # the penalty chosen by fit, if it chose one
    pruned = prune(rule_base, k, X, Y, order=model.order, solver=model.solver, alpha=alpha)
    if scaling is not None:
        pruned = pruned.in_original_units(*scaling)
    return pruned
