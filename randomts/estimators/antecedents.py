"""The antecedents an estimator places before its consequents are fitted.

The antecedent step of the fit (:class:`Structure`): with
``structure="grown"``, the rules grown where the data need them, each line
fitted to the data under its rule (:func:`grow_structure`); with
``structure="random"``, the rules drawn at random or placed on the k-means
clusters of the inputs (:func:`draw_rules`), then, with ``refine > 0``,
moved by variable projection (:func:`refine_rules`). A structure learner
that also fits consequents gives them with its antecedents, and says
whether the fit keeps them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from randomts.core.membership import UNTESTED_WIDTH
from randomts.core.sampling import check_random_state, default_width_range
from randomts.estimators.parameters import auto_alpha, resolved
from randomts.fitting.consequents import ConsequentFit, consequent_fit
from randomts.fitting.growth import grow_rules
from randomts.fitting.kmeans import kmeans_antecedents
from randomts.fitting.refinement import refine_antecedents
from randomts.fuzzy.rulebase import RuleBase

__all__ = [
    "MIN_REFINE_SAMPLES",
    "Structure",
    "draw_rules",
    "grow_structure",
    "refine_rules",
    "untested_constant_inputs",
    "without_untested_slopes",
]

#: Fewest training rows that ``refine > 0`` accepts (a fifth of them held out).
MIN_REFINE_SAMPLES = 5


@dataclass(frozen=True, eq=False)
class Structure:
    """What the antecedent step of a fit gives.

    Attributes
    ----------
    rules : RuleBase
        The antecedents, in the units of the inputs as the fit sees them.
    consequents : ConsequentFit or None
        Consequents that the step fitted with them (a structure learner
        that fits each rule where it grows it), or None.
    keep : bool
        With ``consequents``: the fit keeps them instead of fitting the
        consequents of ``rules`` again on every row.

    Examples
    --------
    >>> from randomts import RuleBase
    >>> Structure(RuleBase.random(n_features=1, n_rules=2, random_state=0)).keep
    False
    """

    rules: RuleBase
    consequents: object = None
    keep: bool = False


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
    return antecedents.replace(centers=centers, sigmas=sigmas, check_input=False)


def without_untested_slopes(rule_base, low, high):
    """``rule_base`` with no slope on an input whose training range ``[low, high]`` is one value.

    Such an input is constant in the training rows, so its slopes are not
    learned (with ``alpha="auto"`` they come from the prior, a linear fit that
    splits the constant between them and the intercepts): each moves into its
    rule's constant (``intercept += slope * value``), which leaves every
    training prediction as it was and the predictions elsewhere independent
    of the input.

    Examples
    --------
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.0, 2.0]], sigmas=[[1.0, 1.0]], coef=[[[1.0, 3.0]]])
    >>> flat = without_untested_slopes(rb, np.array([-1.0, 2.0]), np.array([1.0, 2.0]))
    >>> flat.coef.tolist(), flat.intercept.tolist()
    ([[[1.0, 0.0]]], [[6.0]])
    """
    constant = np.flatnonzero(low[: rule_base.n_features] == high[: rule_base.n_features])
    if constant.size == 0 or not np.any(rule_base.coef[:, :, constant]):
        return rule_base
    coef = rule_base.coef.copy()
    intercept = rule_base.intercept + coef[:, :, constant] @ low[constant]
    coef[:, :, constant] = 0.0
    return rule_base.replace(coef=coef, intercept=intercept, check_input=False)


def draw_rules(model, U, n_outputs=1, output_names=None, *, width_range=None, check_input=True):
    """The antecedents an estimator with valid parameters draws on the inputs ``U``.

    Random (:meth:`RuleBase.random <randomts.RuleBase.random>` with the
    estimator's ``centers``, ``center_scale``, ``center_bounds`` and
    ``width_range``; when that is None, the ``width_range`` given, by
    default :func:`~randomts.core.sampling.default_width_range`), or on the k-means clusters of
    ``U`` (:func:`~randomts.fitting.kmeans.kmeans_antecedents`) with
    ``centers="kmeans"``; zero consequents, input names
    ``feature_names_in_`` when the estimator has them. With
    ``check_input=False`` (``U`` a checked finite float64 matrix) the drawn
    arrays are taken as they are.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor
    >>> U = np.random.default_rng(0).normal(size=(100, 3))
    >>> rules = draw_rules(RandomTSRegressor(n_rules=4, structure="random", random_state=0), U, 2)
    >>> rules.n_rules, rules.n_outputs, bool(np.any(rules.coef))
    (4, 2, False)
    """
    n_features = U.shape[1]
    settings = resolved(model)
    input_names, output_names = _names(model, n_features, n_outputs, output_names)
    if model.width_range is not None:
        width_range = model.width_range
    elif width_range is None:
        width_range = default_width_range(n_features, normalize=settings.normalize)
    if settings.centers == "kmeans":  # not random: on the k-means clusters of U
        U = np.asarray(U, dtype=float)
        n_distinct = np.unique(U, axis=0).shape[0]
        if n_distinct < settings.n_rules:
            raise ValueError(
                f"{type(model).__name__} with centers='kmeans' needs a training sample of "
                f"distinct inputs per rule (n_rules={settings.n_rules}); got {n_distinct} "
                "sample(s) with distinct inputs. Use fewer rules or another 'centers'."
            )
        centers, sigmas = kmeans_antecedents(
            U,
            settings.n_rules,
            random_state=check_random_state(model.random_state),
            check_input=check_input,
        )
        rules = RuleBase(
            centers,
            sigmas,
            n_outputs=n_outputs,
            normalize=settings.normalize,
            input_names=input_names,
            output_names=output_names,
            check_input=check_input,
        )
        return untested_constant_inputs(rules, U)
    rules = RuleBase.random(
        n_features,
        n_outputs,
        settings.n_rules,
        centers=settings.centers,
        center_scale=settings.center_scale,
        center_bounds=model.center_bounds,
        width_range=width_range,
        normalize=settings.normalize,
        input_names=input_names,
        output_names=output_names,
        data=U,
        random_state=check_random_state(model.random_state),
        check_input=check_input,
    )
    return untested_constant_inputs(rules, U)


def _names(model, n_features, n_outputs, output_names):
    """``(input_names, output_names)`` of the rules: the estimator's feature names, those given."""
    input_names = (
        [str(name) for name in model.feature_names_in_]
        if hasattr(model, "feature_names_in_") and len(model.feature_names_in_) == n_features
        else None
    )
    if output_names is not None and len(output_names) != n_outputs:
        output_names = None
    return input_names, output_names


def grow_structure(model, U, Y, output_names=None, *, keep=True):
    """The :class:`Structure` of ``structure="grown"``: rules grown on ``(U, Y)``, lines fitted locally.

    :func:`~randomts.fitting.growth.grow_rules` with up to the estimator's
    ``n_rules`` (resolved: 40 by default), its ``width_factor`` and its ``order``,
    from the ridge first line (``root_alpha="auto"``) for local lines and from the
    least-squares one for lines fitted again (whose fit chooses their ridge); the rules are
    named as :func:`draw_rules` names them and keep the growth and the
    regions in their metadata. The fit keeps the grown lines
    (``Structure.keep``) with ``learning="local"`` (the default of grown
    rules) and ``keep=True``; otherwise the consequents are fitted again on
    the grown rules by the one fit of the consequents (``"global"`` or
    ``"combined"`` learning, or a stream of rows, ``keep=False``).

    Parameters
    ----------
    model : RandomTSRegressor or RandomTSClassifier
        With valid parameters and ``structure="grown"``.
    U : ndarray of shape (n_samples, n_features)
        The inputs as the fit sees them (checked, standardised if so).
    Y : ndarray of shape (n_samples, n_outputs)
        The targets (a regression's, or the class scores).
    output_names : sequence of str, optional
        Names of the outputs.
    keep : bool, default=True
        False when the consequents are fitted again whatever the learning
        (the first chunk of ``partial_fit``, which starts a stream).

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor
    >>> rng = np.random.default_rng(0)
    >>> U = rng.uniform(-1, 1, size=(300, 1)); Y = np.maximum(U, 0.0)
    >>> grown = grow_structure(RandomTSRegressor(structure="grown"), U, Y)
    >>> bool(grown.rules.n_rules > 1), grown.rules.normalize, grown.keep
    (True, True, True)
    """
    settings = resolved(model)
    Y = Y.reshape(-1, 1) if Y.ndim == 1 else Y
    # a float alpha is the ridge of the local lines toward their parents' slopes
    shrink = {} if auto_alpha(model) else {"shrinkage": float(model.alpha)}
    # lines fitted again by the one fit of the consequents get the ridge that fit chooses:
    # the growth then starts from the least-squares line, and only the local lines it keeps
    # start from the ridge line of least leave-one-out error
    root = 0.0 if settings.learning != "local" else "auto"
    grown = grow_rules(
        U,
        Y,
        max_rules=settings.n_rules,
        width_factor=model.width_factor,
        order=model.order,
        root_alpha=root,
        check_input=False,
        **shrink,
    )
    input_names, output_names = _names(model, U.shape[1], Y.shape[1], output_names)
    rules = RuleBase(
        **grown.arguments,
        input_names=input_names,
        output_names=output_names,
        check_input=False,
    )
    fit = ConsequentFit(rules, None, None, None)
    return Structure(rules, fit, keep=keep and settings.learning == "local")


def refine_rules(model, antecedents, U, Y):
    """The antecedents refined by :func:`~randomts.fitting.refinement.refine_antecedents` on ``U``.

    ``model.refine`` iterations with the ridge ``model.alpha``, or with
    ``alpha="auto"`` the penalty the fit of the consequents chooses for the
    starting antecedents
    (:func:`~randomts.fitting.consequents.consequent_fit`); the metadata of
    ``antecedents`` are kept. ``U`` and ``Y`` are checked float64 arrays.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor
    >>> rng = np.random.default_rng(0)
    >>> U = rng.uniform(-2, 2, size=(200, 1)); Y = np.sin(2 * U)
    >>> model = RandomTSRegressor(n_rules=3, structure="random", refine=10, random_state=0)
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
        alpha = consequent_fit(
            antecedents,
            U,
            Y,
            order=model.order,
            alpha="auto",
            n_jobs=model.n_jobs,
            check_input=False,
        ).alpha
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
        check_input=False,
    )
    return untested_constant_inputs(
        refined.replace(metadata=antecedents.metadata, check_input=False), U
    )
