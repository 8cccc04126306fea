"""The estimator core shared by RandomTSRegressor and RandomTSClassifier.

:class:`_RandomTSEstimator` declares the hyperparameters once (``__init__``
stores them as given, as scikit-learn's ``_BaseRidge`` does), writes the fit
once (:meth:`~_RandomTSEstimator._fit_rows`: standardise, place the
antecedents, fit the consequents, record the ranges and the weakest firing,
set the fitted state) for ``fit``, ``partial_fit`` and
:func:`randomts.distributed.fit_estimator_dask`, and keeps the fitted state
in one place: its methods are the only code that reads or writes it.
"""

from __future__ import annotations

import copy
import types

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from randomts._validation import check_int, check_matrix, validate_numeric_data
from randomts._version import __version__
from randomts.analysis.importance import prune, rule_importance
from randomts.core.ranges import EXTRAPOLATION_MARGIN
from randomts.core.regions import REGIONS_KEY
from randomts.core.sampling import default_width_range
from randomts.core.scaling import Standardisation
from randomts.estimators.antecedents import (
    Structure,
    draw_rules,
    grow_structure,
    refine_rules,
    without_untested_slopes,
)
from randomts.estimators.extrapolation import TrainingDomain, is_plain_valid_input
from randomts.estimators.intervals import SplitScores
from randomts.estimators.parameters import (
    INTERPRETABLE,
    auto_alpha,
    check_hyperparameters,
    resolved,
    warn_constant_inputs,
    warn_if_underdetermined,
)
from randomts.estimators.saving import (
    MAX_RECORDED,
    STATE_KEY,
    fit_scaling,
    jsonable,
    recordable_attributes,
    recorded_number,
    recorded_params,
    recorded_ranges,
    recorded_scores,
    restore_attribute,
)

__all__ = ["with_defaults"]

#: What grown rules keep in their metadata, which the fitted rule base keeps too.
_GROWTH_KEYS = ("growth", REGIONS_KEY)


def with_defaults(init, **defaults):
    """``init`` with other default values for some of its parameters.

    The ``__init__`` of a subclass that takes the parameters of its base
    with a different default for some: the parameters stay declared once,
    in the base, and scikit-learn's ``get_params`` reads the subclass's
    defaults from the signature.

    Examples
    --------
    >>> import inspect
    >>> def f(self, a=1, *, b=2):
    ...     return a, b
    >>> g = with_defaults(f, b=3)
    >>> str(inspect.signature(g)), g(None)
    ('(self, a=1, *, b=3)', (1, 3))
    """
    code = init.__code__
    names, given = code.co_varnames[: code.co_argcount], init.__defaults__ or ()
    values = dict(zip(names[len(names) - len(given) :], given, strict=True))
    keywords = dict(init.__kwdefaults__ or {})
    unknown = set(defaults) - set(values) - set(keywords)
    if unknown:
        raise TypeError(f"{init.__qualname__} has no parameters {sorted(unknown)} with defaults.")
    values.update((k, v) for k, v in defaults.items() if k in values)
    keywords.update((k, v) for k, v in defaults.items() if k in keywords)
    new = types.FunctionType(
        code, init.__globals__, init.__name__, tuple(values.values()), init.__closure__
    )
    new.__kwdefaults__ = keywords
    new.__doc__ = init.__doc__
    return new


class _RandomTSEstimator(BaseEstimator):
    """Random Takagi-Sugeno rules whose consequents are fitted in one shot (the shared core).

    The parameters are documented by :class:`~randomts.RandomTSRegressor`;
    :class:`~randomts.RandomTSClassifier` takes the same ones (more rules by
    default, and narrower default widths for the weighted sum).

    Fitted state, set only by the methods of this class: ``rule_base_``,
    ``alpha_``, ``local_weight_``, ``n_features_in_``, ``n_outputs_``, and,
    private, the standardisation (``_scaling``), the training domain
    (``_domain``: ranges and weakest firing), the dimension of ``y``
    (``_y_ndim``), the stream of ``partial_fit`` (``_stream``) and the
    conformity scores (``_conformity``).
    """

    #: The rules ``structure="random"`` draws when ``n_rules`` is None.
    random_rules = 100
    #: The structure when ``structure`` is None.
    default_structure = "grown"
    #: What ``lock_range=None`` means: the regressor holds its inputs and outputs in the training
    #: ranges.
    default_lock_range = True

    def __init__(
        self,
        n_rules=None,
        *,
        structure=None,
        order=1,
        normalize=None,
        solver="lstsq",
        alpha="auto",
        learning=None,
        local_weight="auto",
        standardize=True,
        centers=None,
        center_scale=None,
        center_bounds=None,
        width_range=None,
        width_factor="auto",
        refine=0,
        lock_range=None,
        random_state=None,
        n_jobs=None,
    ):
        self.n_rules = n_rules
        self.structure = structure
        self.order = order
        self.normalize = normalize
        self.solver = solver
        self.alpha = alpha
        self.learning = learning
        self.local_weight = local_weight
        self.standardize = standardize
        self.centers = centers
        self.center_scale = center_scale
        self.center_bounds = center_bounds
        self.width_range = width_range
        self.width_factor = width_factor
        self.refine = refine
        self.lock_range = lock_range
        self.random_state = random_state
        self.n_jobs = n_jobs

    @classmethod
    def interpretable(cls, n_rules=None, **params):
        """Few rules that say what the model does where they live: the setting to read.

        Rules grown where the data need them (``structure="grown"``, the
        defaults' structure; see :class:`~randomts.RandomTSRegressor`):

        - each rule sits on the mean of the rows of its region and is no
          wider than that region, nor than the input's range;
        - the weighted average: at a rule's centre the model is mostly that
          rule, and beyond the outermost rules the output follows their lines;
        - each rule's line is a fit of the data under it (local learning);
        - as few rules as the exact leave-one-out error of the local fits
          asks for (up to ``n_rules``), and widths chosen so that every rule's
          line at its own centre is within 0.1 standard deviations of ``y``
          of the model's prediction there.

        It is the defaults' setting, named for what it promises: whatever the
        defaults become, this stays the setting whose rules can be read.
        Measured on fourteen real data sets (``benchmarks/bench_grown_rules.py``,
        results in ``benchmarks/RESULTS.md``), over the ten rules with the
        largest share of the output, a rule's line at its own centre is in
        median 0.001 and at most 0.056 standard deviations of ``y`` from the
        model's prediction there (see :doc:`/user_guide/grown_rules`). For a
        classifier, the same setting for the class scores.

        The earlier setting of this name (10 rules on the k-means clusters,
        weighted average, combined learning) is ``structure="random",
        centers="kmeans", normalize=True, learning="combined"``.

        Parameters
        ----------
        n_rules : int, optional
            The most rules grown (None: 40).
        **params
            Any other parameter of the estimator, also overriding these.

        Returns
        -------
        estimator
            Unfitted, with ``structure="grown"``.

        Examples
        --------
        >>> import numpy as np
        >>> from randomts import RandomTSClassifier, RandomTSRegressor
        >>> from randomts.analysis.agreement import rule_agreement
        >>> rng = np.random.default_rng(0)
        >>> X = rng.uniform(-2, 2, size=(500, 2)); y = np.sin(X[:, 0]) + X[:, 1] ** 2 / 4
        >>> model = RandomTSRegressor.interpretable().fit(X, y)
        >>> found = rule_agreement(model.rule_base_, X, y)  # in standard deviations of y
        >>> bool(np.abs(found.from_model).max() < 0.1), bool(model.score(X, y) > 0.95)
        (True, True)
        >>> from sklearn.datasets import load_iris
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = RandomTSClassifier.interpretable(n_rules=6).fit(X, y)
        >>> len(clf.rule_base_) <= 6, bool(clf.score(X, y) > 0.9)
        (True, True)
        """
        return cls(n_rules, **{**INTERPRETABLE, **params})

    # ------------------------------------------------------------------ hyperparameters
    def _validate_hyperparameters(self):
        check_hyperparameters(self)

    def _auto_alpha(self):
        return auto_alpha(self)

    def _default_width_range(self, n_features):
        """The widths ``width_range=None`` draws: :func:`~randomts.core.sampling.default_width_range`."""
        return default_width_range(n_features, normalize=resolved(self).normalize)

    def _consequent_settings(self):
        """The keyword arguments of the fit of the consequents."""
        return {
            "order": self.order,
            "alpha": self.alpha,
            "solver": self.solver,
            "learning": resolved(self).learning,
            "local_weight": self.local_weight,
            "n_jobs": self.n_jobs,
        }

    # ------------------------------------------------------------------ the fit
    def _fit_rows(
        self,
        rows,
        *,
        output_names=None,
        warn_constant=True,
        warn_underdetermined=True,
        stacklevel=3,
    ):
        """The fit of every estimator, on rows in memory or held elsewhere.

        1. the rows' ranges, and their standardisation when
           ``standardize=True`` (a warning names the inputs that hold one
           value, which the model leaves out);
        2. the antecedents (:meth:`_antecedent_step`) on the inputs as the
           fit sees them;
        3. the consequents fitted on every row, unless the antecedent step
           fitted them and keeps them, and the weakest firing of a row's
           strongest rule (a warning says when the rows leave the
           consequents undetermined);
        4. the fitted state (:meth:`_set_fit`).

        ``stacklevel`` points the warnings at the user's call, as for
        ``warnings.warn`` from this method; ``warn_constant=False`` and
        ``warn_underdetermined=False`` leave step 1's and step 3's warnings
        to a caller that gives or needs none.
        """
        self.n_features_in_ = rows.n_features
        self.n_outputs_ = rows.n_outputs
        if warn_constant and rows.X is not None:  # inputs of one value: the model leaves them out
            names = getattr(self, "feature_names_in_", None)
            warn_constant_inputs(type(self).__name__, rows.X, names, stacklevel=stacklevel + 1)
        domain, scaling = rows.statistics(self.standardize)
        U = rows.inputs(scaling)
        structure = self._antecedent_step(
            U, rows.targets, output_names, checked=rows.checked, complete=rows.complete
        )
        if structure.consequents is not None and structure.keep:
            fit = structure.consequents
            weakest = rows.weakest_log_firing(structure.rules, U)
        else:
            fit, weakest = rows.fit_consequents(structure.rules, U, self._consequent_settings())
        if warn_underdetermined and rows.complete and rows.targets is not None:
            warn_if_underdetermined(self, fit.rule_base, U, rows.targets, stacklevel=stacklevel + 1)
        domain = TrainingDomain(domain.low, domain.high, weakest)
        self._set_fit(
            fit, scaling=scaling, domain=domain, n_samples=rows.n_samples, y_ndim=rows.y_ndim
        )
        return self

    def _antecedent_step(self, U, Y, output_names, *, checked=True, complete=True):
        """The :class:`~randomts.estimators.antecedents.Structure` placed on the inputs ``U``.

        With ``structure="grown"``, grown on ``(U, Y)``
        (:func:`~randomts.estimators.antecedents.grow_structure`), their
        local lines kept unless the rows are not ``complete`` (the first
        chunk of a stream, which fits them again). With ``"random"``, drawn
        at random or on the k-means clusters, then refined on ``(U, Y)``
        with ``refine > 0``. ``Y`` is None for rows that are not in memory
        (only random antecedents are drawn on those); ``checked`` says
        whether ``U`` is a checked array (else the drawn rules are).
        """
        if resolved(self).grown:
            if Y is None:
                raise ValueError(
                    f"The 'structure' parameter of {type(self).__name__} is 'grown', which "
                    "grows the rules from the targets, but these rows are not in memory "
                    "(fit_rows, e.g. fit_estimator_dask, reads them chunk by chunk). Use "
                    "structure='random' (rules drawn without the targets), or fit rows held "
                    "in memory."
                )
            return grow_structure(self, U, Y, output_names, keep=complete)
        rules = draw_rules(
            self,
            U,
            self.n_outputs_,
            output_names,
            width_range=self._default_width_range(U.shape[1]),
            check_input=not checked,
        )
        if self.refine > 0:
            rules = refine_rules(self, rules, U, Y)
        return Structure(rules)

    # ------------------------------------------------------------------ the fitted state
    def _set_fit(self, fit, *, scaling, domain, n_samples, y_ndim):
        """Set the fitted state from a :class:`~randomts.fitting.consequents.ConsequentFit`.

        ``fit.rule_base`` is the model of the inputs as the fit saw them
        (standardised by ``scaling``, if not None); ``domain`` the ranges of
        the training rows and their weakest firing, in the data's units.
        """
        self._scaling = scaling
        self._domain = domain
        self._y_ndim = y_ndim
        self.alpha_ = fit.alpha
        self.local_weight_ = fit.local_weight
        self._set_rule_base(fit.rule_base, n_samples)

    def _set_rule_base(self, rule_base, n_samples, *, lock=None):
        """``rule_base_``: ``rule_base`` in the data's units, with the ranges and provenance.

        The metadata record the library, the estimator's class and
        parameters, the training rows, the penalty, the weakest firing and
        the standardisation (``input_mean``, ``input_scale``); the recorded
        ranges (``input_range``, ``output_range``) are the training domain's,
        read by text labels, plots and the FIS and FLL writers, and held to
        by inference with ``lock_range`` (None: ``lock``, else the
        estimator's ``default_lock_range``).
        """
        n_features = rule_base.n_features
        metadata = {
            "library": "randomts",
            "library_version": __version__,
            "estimator": type(self).__name__,
            "params": jsonable(self.get_params()),
            "n_samples_fit": int(n_samples),
        }
        if self.alpha_ is not None:
            metadata["alpha"] = float(self.alpha_)
        if self.local_weight_ is not None:
            metadata["local_weight"] = float(self.local_weight_)
        kept = rule_base.metadata  # how grown rules were grown, and where they live
        metadata.update((key, kept[key]) for key in _GROWTH_KEYS if key in kept)
        domain = self._domain
        weakest = None if domain is None else domain.weakest_log_firing
        if weakest is not None and np.isfinite(weakest):
            metadata["weakest_log_firing"] = float(weakest)
        if self._scaling is not None:
            mean, scale = self._scaling.mean, self._scaling.scale
            rule_base = rule_base.in_original_units(mean, scale, check_input=False)
            metadata["input_mean"] = mean.tolist()
            metadata["input_scale"] = scale.tolist()
        ranges = {}
        if domain is not None:
            low, high = domain.low, domain.high
            ranges = {
                "input_range": np.column_stack([low[:n_features], high[:n_features]]),
                "output_range": np.column_stack([low[n_features:], high[n_features:]]),
            }
            rule_base = without_untested_slopes(rule_base, low, high)
        if self.lock_range is not None:
            lock = self.lock_range
        elif lock is None:
            lock = self.default_lock_range
        self.rule_base_ = self._named(
            rule_base.replace(
                metadata=metadata, check_input=False, lock_range=bool(lock and ranges), **ranges
            )
        )

    def _named(self, rule_base):
        """The fitted rule base as this estimator names it (the classifier names its scores)."""
        return rule_base

    @classmethod
    def _fitted_from(cls, rule_base, params, *, input_mean=None, input_scale=None, n_samples=None):
        """A fitted estimator of parameters ``params`` that predicts with ``rule_base``."""
        model = cls(**params)
        model._validate_hyperparameters()
        model._set_given(
            rule_base, input_mean=input_mean, input_scale=input_scale, n_samples=n_samples
        )
        return model

    def _set_given(self, rule_base, *, input_mean=None, input_scale=None, n_samples=None):
        """Make this estimator (valid parameters) a fitted one that predicts with ``rule_base``.

        The standardisation checked and kept, ``alpha_`` (from the metadata
        with ``alpha="auto"``), the sizes, the recorded ranges and weakest
        firing, then :meth:`_set_rule_base`.
        """
        n_features = rule_base.n_features
        if (input_mean is None) != (input_scale is None):
            raise ValueError("Give both input_mean and input_scale, or neither.")
        self._scaling = None
        if input_mean is not None:
            mean = check_matrix(input_mean, "input_mean", ndim=1, n_columns=n_features)
            scale = check_matrix(input_scale, "input_scale", ndim=1, n_columns=n_features)
            if np.any(scale <= 0):
                raise ValueError(f"input_scale must be > 0 on every input; got {scale.tolist()}.")
            self._scaling = Standardisation(mean, scale)
        metadata = rule_base.metadata
        alpha = recorded_number(metadata, "alpha") if self._auto_alpha() else self.alpha
        self.alpha_ = None if alpha is None else float(alpha)
        local_weight = None
        if resolved(self).learning == "combined":
            local_weight = self.local_weight
            if isinstance(local_weight, str):
                local_weight = recorded_number(metadata, "local_weight")
        self.local_weight_ = None if local_weight is None else float(local_weight)
        self.n_features_in_ = n_features
        self.n_outputs_ = rule_base.n_outputs
        self._y_ndim = 1 if rule_base.n_outputs == 1 else 2
        self._stream = None
        in_data_units = (
            rule_base if self._scaling is None else rule_base.in_original_units(*self._data_units())
        )
        self._domain = self._recorded_domain(in_data_units, metadata)
        if n_samples is None:
            n_samples = metadata.get("n_samples_fit", 0)
        # lock_range=None keeps the given rules' own lock: the estimator predicts as they do
        self._set_rule_base(
            rule_base, check_int(n_samples, "n_samples", low=0), lock=rule_base.lock_range
        )

    def _data_units(self):
        """``(mean, scale)`` of the standardisation, for ``in_original_units``."""
        return self._scaling.mean, self._scaling.scale

    @staticmethod
    def _recorded_domain(rule_base, metadata):
        """The training domain a rule base in the data's units records, or None."""
        ranges = recorded_ranges(rule_base)
        if ranges is None:
            return None
        # the extrapolation warning compares with the training rows' weakest firing, inside
        # their ranges
        return TrainingDomain(*ranges, recorded_number(metadata, "weakest_log_firing"))

    # ------------------------------------------------------------------ saving
    def __randomts_saved__(self):
        """The rule base :func:`randomts.save` writes: ``rule_base_`` and how to rebuild ``self``.

        The metadata gain ``estimator_state``: the class, the dimension of
        ``y`` in ``fit``, ``feature_names_in_``, the variable names (which
        some formats must change), the other fitted attributes that JSON
        holds exactly (scalars, short 1-D arrays: a penalty chosen in
        ``fit``, say) and the split-conformal scores when they are few;
        :meth:`__randomts_restored__` reads them back.
        """
        check_is_fitted(self, "rule_base_")
        rule_base = self.rule_base_
        names = getattr(self, "feature_names_in_", None)
        state = {
            "class": type(self).__name__,
            "target_ndim": int(self._y_ndim),
            "feature_names_in": None if names is None else [str(n) for n in names],
            "input_names": list(rule_base.input_names),
            "output_names": list(rule_base.output_names),
            "attributes": self._recorded_attributes(),
        }
        scores = getattr(self, "_conformity", None)
        if (
            isinstance(scores, SplitScores)
            and scores.rule_base is rule_base
            and scores.scores.size <= MAX_RECORDED
        ):  # the calibration residuals of split-conformal intervals
            state["conformity"] = {"method": "split", "scores": scores.scores.tolist()}
        metadata = rule_base.metadata
        metadata[STATE_KEY] = state
        return rule_base.replace(metadata=metadata)

    def _recorded_attributes(self):
        """The fitted attributes the record holds (:func:`~randomts.estimators.saving.recordable_attributes`)."""
        return recordable_attributes(self)

    @classmethod
    def __randomts_restored__(cls, rule_base):
        """The fitted estimator that :meth:`__randomts_saved__` described (see :func:`randomts.load`).

        The parameters are the recorded ones that this class has (a random
        generator, which JSON cannot hold, becomes ``None``); the rule base,
        as read, is the fitted model, and its metadata lose the record (so
        that saving ``rule_base_`` alone writes a rule base).
        """
        metadata = rule_base.metadata
        state = metadata.pop(STATE_KEY)  # saving the rules alone writes a rule base
        model = cls(**cls._restored_params(metadata, state))
        model._validate_hyperparameters()  # a damaged record fails here, not in predict
        model._restore_state(rule_base.replace(metadata=metadata), state)
        return model

    @classmethod
    def _restored_params(cls, metadata, state):
        """The parameters of the estimator a record describes."""
        return recorded_params(metadata.get("params"), cls().get_params())

    def _restore_state(self, rule_base, state):
        """The fitted state a saved ``estimator_state`` describes, ``rule_base`` as read."""
        metadata = rule_base.metadata
        names = state["feature_names_in"]
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        self.n_features_in_ = rule_base.n_features
        self.n_outputs_ = rule_base.n_outputs
        self._y_ndim = state["target_ndim"]
        for name, value in (state.get("attributes") or {}).items():
            restore_attribute(self, name, value)
        self._stream = None
        scaling = fit_scaling(metadata, rule_base.n_features)
        self._scaling = None if scaling is None else Standardisation(*scaling)
        self._domain = self._recorded_domain(rule_base, metadata)  # None: a partial_fit records it
        self.rule_base_ = rule_base
        conformity = state.get("conformity")
        if conformity is not None:
            self._conformity = SplitScores(rule_base, recorded_scores(conformity, rule_base))

    # ------------------------------------------------------------------ rows given to a fitted model
    def _checked_inputs(self, X, *, method="predict", margin=EXTRAPOLATION_MARGIN, stacklevel=3):
        """``X`` checked against the fitted inputs, and warned about where it lies beyond them.

        ``method`` and ``margin`` as in
        :meth:`~randomts.estimators.extrapolation.TrainingDomain.warn_if_extrapolating`.
        """
        check_is_fitted(self, "rule_base_")
        if not is_plain_valid_input(self, X):
            X = validate_numeric_data(self, X, reset=False, dtype=np.float64)
        if self._domain is not None:
            self._domain.warn_if_extrapolating(
                X, self.rule_base_, method=method, margin=margin, stacklevel=stacklevel
            )
        return X

    @property
    def conformity_method(self):
        """How the scores of the intervals or sets were made: ``"jackknife+"``, ``"split"`` or None.

        ``"jackknife+"`` after ``fit_conformalize``, ``"split"`` after
        ``conformalize``, None without scores.

        Examples
        --------
        >>> import numpy as np
        >>> from randomts import RandomTSRegressor
        >>> X = np.random.default_rng(0).uniform(-1, 1, size=(60, 1)); y = X[:, 0]
        >>> model = RandomTSRegressor(n_rules=3, structure="random", random_state=0)
        >>> model.fit(X, y).conformity_method, model.fit_conformalize(X, y).conformity_method
        (None, 'jackknife+')
        """
        scores = getattr(self, "_conformity", None)
        return None if scores is None else scores.method

    def _raw_predict(self, X):
        """The fitted rule base's outputs at checked rows, shape (n_rows, n_outputs)."""
        return self.rule_base_.predict(X, n_jobs=self.n_jobs, check_input=False)

    def _shaped(self, Y):
        """Outputs shaped as ``y`` was in ``fit``: 1-D for a 1-D ``y``."""
        return Y[:, 0] if self._y_ndim == 1 else Y

    def rule_importance(self, X):
        """Each rule's share of the total absolute contribution on ``X``.

        See :func:`randomts.analysis.importance.rule_importance`, which this
        calls on ``rule_base_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data on which importance is measured (e.g. the training inputs).

        Returns
        -------
        ndarray of shape (n_rules,)
            Non-negative; sums to 1 unless every contribution is zero.

        Examples
        --------
        >>> import numpy as np
        >>> from randomts import RandomTSRegressor
        >>> rng = np.random.default_rng(0)
        >>> X = rng.uniform(-2, 2, size=(200, 2)); y = np.sin(X[:, 0]) * X[:, 1]
        >>> model = RandomTSRegressor(n_rules=10, random_state=0).fit(X, y)
        >>> importance = model.rule_importance(X)
        >>> importance.shape, round(float(importance.sum()), 6)
        ((10,), 1.0)
        """
        check_is_fitted(self, "rule_base_")
        X = validate_numeric_data(self, X, reset=False, dtype=np.float64)
        return rule_importance(self.rule_base_, X)

    def _pruned_rules(self, k, X, Y):
        """The ``k`` most important rules on ``X``, consequents refitted to ``Y`` where fit fitted.

        On the standardised inputs when the estimator standardises (then
        expressed back in the data's units), with its ``order``, ``solver``
        and the penalty ``alpha_`` it used; with local or combined learning
        (grown rules, by default), fitted again that way, the penalty chosen
        by cross-validation.
        """
        rule_base = self.rule_base_
        scaling = self._scaling
        if scaling is not None:  # rank and refit where fit did: on standardised inputs
            mean, scale = scaling.mean, scaling.scale
            rule_base = rule_base.in_original_units(-mean / scale, 1.0 / scale)
            X = scaling.apply(X)
        learning = resolved(self).learning
        if learning == "global":
            alpha = getattr(self, "alpha_", self.alpha)  # the penalty fit chose, if it chose one
            pruned = prune(rule_base, k, X, Y, order=self.order, solver=self.solver, alpha=alpha)
        else:  # each kept rule's line fitted again to the data under it (and the model's)
            pruned = prune(rule_base, k, X)
            if Y is not None:
                pruned = pruned.fit_consequents(
                    X,
                    Y,
                    order=self.order,
                    alpha="auto",
                    learning=learning,
                    local_weight=self.local_weight,
                )
        if scaling is not None:
            pruned = pruned.in_original_units(*self._data_units())
        return pruned

    def _pruned_estimator(self, pruned):
        """A copy of this estimator whose model is the rule base ``pruned`` (with ``k`` rules)."""
        metadata = self.rule_base_.metadata
        new = copy.copy(self)
        new._stream = None  # a partial_fit after pruning starts a new model
        new.n_rules = len(pruned)
        metadata["params"] = jsonable(new.get_params())
        metadata["pruned_from"] = self.rule_base_.n_rules
        new.rule_base_ = pruned.replace(metadata=metadata)
        return new
