"""The scikit-learn classifier: random Takagi-Sugeno rules scoring every class.

:class:`RandomTSClassifier` is :class:`~randomts.RandomTSRegressor` fitted to
class indicators, the way :class:`sklearn.linear_model.RidgeClassifier` is
ridge regression on them: one least-squares solve gives every rule one
consequent per class score, and the predicted class is the one with the
highest score.

* Two classes: one score, fitted to ``+1`` for ``classes_[1]`` and ``-1`` for
  ``classes_[0]``; its sign decides. A one-hot fit would give the same
  decision (least squares is linear in the targets, and the difference of the
  two one-hot scores is the fit of ``+-1``) at twice the cost.
* More classes: one score per class, fitted to the one-hot indicator of that
  class. Least squares on indicators estimates ``P(class | x)``, so each score
  reads as a (unconstrained) probability.

The rule base names its outputs by class, so its rules read
``THEN score(setosa) = ...``; it is an ordinary :class:`~randomts.RuleBase`
that prints and explains like any other. :func:`randomts.save` writes it with
a record of the classifier (its parameters, ``classes_``, ``temperature_``
and the regressor's state), so :func:`randomts.load` gives back the fitted
classifier, from every format.
"""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import scipy.optimize
import scipy.special
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from randomts._validation import validate_numeric_data
from randomts.core.sampling import default_width_range
from randomts.estimators import checks
from randomts.estimators.intervals import (
    SplitScores,
    check_jackknife,
    current_scores,
    jackknife_class_scores,
    jackknife_scores,
    prediction_sets,
)
from randomts.estimators.records import STATE_KEY, jsonable, recorded_params
from randomts.estimators.regressor import RandomTSRegressor
from randomts.fitting.conformal import check_coverage

__all__ = ["RandomTSClassifier"]

# The parameters passed through to RandomTSRegressor; None leaves the regressor's default.
_REGRESSOR_PARAMETERS = (
    "n_rules",
    "order",
    "normalize",
    "solver",
    "alpha",
    "learning",
    "local_weight",
    "standardize",
    "centers",
    "center_scale",
    "center_bounds",
    "width_range",
    "refine",
    "n_jobs",
)
# The classifier's default widths for the weighted sum: b_i ~ U(0, this / (2 n_features)], this
# many times the regressor's largest width parameter (rules up to twice as narrow).
_WIDTH_FACTOR = 4.0
# Search interval of the softmax temperature, relative to the spread of the training scores.
_TEMPERATURE_BOUNDS = (1e-4, 1e4)


class RandomTSClassifier(ClassifierMixin, BaseEstimator):
    """Takagi-Sugeno classifier with random rules: class scores fitted in one shot.

    ``fit`` draws the rules and fits their consequents exactly as
    :class:`~randomts.RandomTSRegressor` does, to class indicators: one score
    ``+-1`` for two classes, a one-hot score per class for more (see
    :mod:`randomts.estimators.classifier`). ``predict`` returns the class of the highest
    score.

    Every parameter but ``n_rules`` and ``random_state`` defaults to
    ``None``, which means the default of :class:`~randomts.RandomTSRegressor`
    (standardisation, rules centred on training rows, the ridge penalty
    chosen by leave-one-out); a value given is passed to it unchanged. Two
    defaults are the classifier's own, because class boundaries are more
    local than the regression surfaces the regressor's defaults were chosen
    for: 150 rules instead of 100 and, with ``width_range=None`` and the
    weighted sum, rules up to half as wide (``b_i`` up to four times the
    regressor's). In stratified 5-fold cross-validation on iris, wine,
    breast cancer and digits, the regressor's defaults fall more than 1
    point of accuracy behind RBF features with a ridge on wine; these do not
    on any of the four, nor on two survey data sets they were not chosen on
    (``benchmarks/bench_classification.py``, results in
    ``benchmarks/RESULTS.md``). With more rows than unknowns, the fit costs
    ``O(n_samples (n_rules (n_features + 1))^2)``; with fewer, it is solved
    in the row space, ``O(n_samples^2 n_rules (n_features + 1))``.

    Parameters
    ----------
    n_rules : int, default=150
        Number of rules.
    order : {0, 1}, optional
        Consequent order: 1 linear, 0 constant.
    normalize : bool, optional
        Weighted average (True) or weighted sum (False) of the consequents.
    solver : {"lstsq", "pinv", "cholesky"}, optional
        Least-squares solver.
    alpha : float, optional
        Ridge penalty on the consequents.
    learning : {"global", "local", "combined"}, optional
        How the consequents are fitted to the class scores (see
        :class:`RandomTSRegressor`); the regressor's default when None
        (``"global"``).
    local_weight : "auto" or float > 0, optional
        Weight of the local term of combined learning.
    standardize : bool, optional
        Draw and fit on standardised inputs.
    centers : str, optional
        Centre distribution of the rules.
    center_scale : float, optional
        Standard deviation of the normal centre distribution.
    center_bounds : (float, float), optional
        Box of the uniform centre distribution.
    width_range : (float, float), optional
        Interval of the RBF widths ``b_i`` (of the standardised inputs when
        ``standardize``). None: ``(0, 2 / n_features)`` for the weighted sum
        (four times the regressor's upper end), the regressor's default for
        the weighted average.
    refine : int, optional
        Iterations refining the centres and widths (see
        :class:`RandomTSRegressor`); the regressor's default when None (0).
    random_state : int, RandomState instance or None, default=None
        Seed of the rules. The same seed gives the same model, bit for bit.
    n_jobs : int, optional
        Threads of randomts's own (see :class:`RandomTSRegressor`); results do not
        depend on it.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    regressor_ : RandomTSRegressor
        The fitted regressor of the class scores.
    rule_base_ : RuleBase
        Its rule base, outputs named ``score(<class>)``, inputs named after
        the DataFrame columns if ``X`` had them; the metadata record the
        classes (as strings) under ``"classes"``.
    temperature_ : float
        Temperature ``T`` of the softmax that turns scores into
        probabilities (see :meth:`predict_proba`).
    n_features_in_ : int
        Number of inputs seen in ``fit``.
    feature_names_in_ : ndarray of str
        Input names, when ``X`` was a DataFrame with string column names.

    See Also
    --------
    RandomTSRegressor : the estimator of the scores.
    sklearn.linear_model.RidgeClassifier : the same idea on the raw inputs.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from randomts import RandomTSClassifier
    >>> X, y = load_iris(return_X_y=True, as_frame=True)
    >>> names = load_iris().target_names
    >>> clf = RandomTSClassifier(n_rules=10, standardize=True, alpha=1.0, random_state=0)
    >>> clf = clf.fit(X, names[y])
    >>> clf.classes_
    array(['setosa', 'versicolor', 'virginica'], dtype='<U10')
    >>> clf.rule_base_.output_names
    ('score(setosa)', 'score(versicolor)', 'score(virginica)')
    >>> round(clf.score(X, names[y]), 2) >= 0.95
    True
    >>> clf.predict_proba(X.iloc[:2]).sum(axis=1).round(6)
    array([1., 1.])
    """

    def __init__(
        self,
        n_rules=150,
        *,
        order=None,
        normalize=None,
        solver=None,
        alpha=None,
        learning=None,
        local_weight=None,
        standardize=None,
        centers=None,
        center_scale=None,
        center_bounds=None,
        width_range=None,
        refine=None,
        random_state=None,
        n_jobs=None,
    ):
        self.n_rules = n_rules
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
        self.refine = refine
        self.random_state = random_state
        self.n_jobs = n_jobs

    @classmethod
    def interpretable(cls, n_rules=10, **params):
        """Few rules whose class scores say what the model does where they live.

        The setting of :meth:`RandomTSRegressor.interpretable` for the class
        scores: rules on the k-means clusters (widths within the inputs'
        ranges), weighted average, combined learning with the local weight
        and ridge chosen by cross-validation, few rules.

        Parameters
        ----------
        n_rules : int, default=10
            Number of rules.
        **params
            Any other parameter of the classifier, also overriding these.

        Returns
        -------
        RandomTSClassifier
            Unfitted, with ``centers="kmeans"``, ``normalize=True``,
            ``learning="combined"``, ``local_weight="auto"`` and ``alpha="auto"``.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = RandomTSClassifier.interpretable(n_rules=6, random_state=0).fit(X, y)
        >>> len(clf.rule_base_), bool(clf.score(X, y) > 0.9)
        (6, True)
        """
        return cls(n_rules, **{**checks.INTERPRETABLE, **params})

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        return tags

    def _regressor(self, n_features):
        """A fresh RandomTSRegressor with the parameters given (None: its default but widths)."""
        given = {
            name: getattr(self, name)
            for name in _REGRESSOR_PARAMETERS
            if getattr(self, name) is not None
        }
        regressor = RandomTSRegressor(**given, random_state=self.random_state)
        weighted_sum = isinstance(regressor.normalize, (bool, np.bool_)) and not regressor.normalize
        if self.width_range is None and weighted_sum:
            low, high = default_width_range(n_features, normalize=False)
            regressor.set_params(width_range=(low, _WIDTH_FACTOR * high))
        return regressor

    def fit(self, X, y):
        """Draw the rules and fit their class scores.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs; a DataFrame's column names become rule input names.
        y : array-like of shape (n_samples,)
            Class labels of any type numpy can sort (str, int, bool, ...);
            at least two classes.

        Returns
        -------
        self : RandomTSClassifier
            The fitted estimator.
        """
        X, y = validate_numeric_data(self, X, y, numeric_y=False, dtype=np.float64)
        check_classification_targets(y)
        classes, indices = np.unique(y, return_inverse=True)
        if classes.size < 2:
            raise ValueError(
                f"{type(self).__name__} needs samples of at least 2 classes in y; "
                f"got 1 class: {classes.tolist()!r}."
            )
        targets = _indicator_targets(indices, classes.size)
        regressor = self._regressor(X.shape[1])
        regressor._fitted_for = (type(self).__name__, getattr(self, "feature_names_in_", None))
        try:
            regressor.fit(X, targets)
        except (TypeError, ValueError) as exc:
            # X and y are valid here: what fails is a hyperparameter, named for this class.
            message = str(exc).replace("of RandomTSRegressor", f"of {type(self).__name__}")
            raise type(exc)(message) from exc
        self.classes_ = classes
        self.regressor_ = regressor
        self.rule_base_ = regressor.rule_base_ = self._named_rule_base(regressor.rule_base_)
        self.temperature_ = _fit_temperature(
            _class_scores(regressor.predict(X)), indices, classes.size
        )
        return self

    def _named_rule_base(self, rule_base):
        """The regressor's rule base with inputs and outputs named, and the classes recorded."""
        labels = [str(c) for c in self.classes_]
        shown = labels[1:] if len(labels) == 2 else labels
        output_names = [f"score({label})" for label in shown]
        if len(set(output_names)) != len(output_names) or not all(s.strip() for s in shown):
            output_names = [f"score{k + 1}" for k in range(len(output_names))]
        input_names = rule_base.input_names
        if hasattr(self, "feature_names_in_"):
            names = [str(name) for name in self.feature_names_in_]
            if len(set(names)) == len(names) and all(n.strip() for n in names):
                input_names = names
        metadata = rule_base.metadata
        metadata["estimator"] = type(self).__name__
        metadata["classes"] = labels
        metadata["score_coding"] = "sign" if len(labels) == 2 else "one-hot"
        return rule_base.replace(
            input_names=input_names, output_names=output_names, metadata=metadata
        )

    def _saved_rule_base(self):
        """The rule base :func:`randomts.save` writes: ``rule_base_`` and how to rebuild ``self``.

        The regressor's record (see ``RandomTSRegressor._saved_rule_base``),
        naming this class, with a ``"classifier"`` entry: the parameters,
        the classes (values and dtype) and the temperature.
        """
        check_is_fitted(self, "regressor_")
        classes = np.asarray(self.classes_)
        if classes.dtype.kind == "O" and all(isinstance(c, str) for c in classes.tolist()):
            classes = classes.astype(str)
        if classes.dtype.kind not in "biufU":
            kinds = sorted({type(c).__name__ for c in classes.tolist()})
            raise TypeError(
                f"save holds class labels that are str, int, float or bool; the classes of "
                f"this {type(self).__name__} are {kinds}."
            )
        regressor = copy.copy(self.regressor_)
        regressor.rule_base_ = self.rule_base_  # the rules as the classifier names them
        rule_base = regressor._saved_rule_base()
        metadata = rule_base.metadata
        names = getattr(self, "feature_names_in_", None)
        metadata[STATE_KEY].update(
            {
                "class": type(self).__name__,
                "feature_names_in": None if names is None else [str(n) for n in names],
                "classifier": {
                    "params": jsonable(self.get_params()),
                    "classes": {"array": classes.tolist(), "dtype": classes.dtype.str},
                    "temperature": float(self.temperature_),
                },
            }
        )
        return rule_base.replace(metadata=metadata)

    @classmethod
    def _from_saved(cls, rule_base):
        """The fitted classifier that :meth:`_saved_rule_base` described.

        The regressor is rebuilt by ``RandomTSRegressor._from_saved``; the
        classifier's own record gives the parameters (those this class has),
        the classes and the temperature.
        """
        metadata = rule_base.metadata
        state = dict(metadata[STATE_KEY])
        record = state.pop("classifier", None)
        if not isinstance(record, dict):
            raise ValueError(f"the 'classifier' record is missing or not an object: {record!r}")
        names = state["feature_names_in"]
        state.update(**{"class": RandomTSRegressor.__name__, "feature_names_in": None})
        metadata[STATE_KEY] = state
        regressor = RandomTSRegressor._from_saved(rule_base.replace(metadata=metadata))
        try:
            dtype = np.dtype(record["classes"]["dtype"])
            classes = np.asarray(record["classes"]["array"], dtype=dtype)
            temperature = float(record["temperature"])
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            raise ValueError(f"the 'classifier' record is damaged: {exc!r}") from None
        n_scores = 1 if classes.size == 2 else classes.size
        if dtype.kind not in "biufU" or classes.ndim != 1 or classes.size < 2:
            raise ValueError(f"'classes' must be a list of at least 2 labels; got {classes!r}")
        if n_scores != regressor.rule_base_.n_outputs or not temperature > 0:
            raise ValueError(
                f"{classes.size} classes and temperature {temperature!r} do not fit a rule base "
                f"of {regressor.rule_base_.n_outputs} scores"
            )
        known = cls().get_params()
        model = cls(**recorded_params(record.get("params"), known))
        # a damaged record fails here, not in predict
        model._regressor(regressor.n_features_in_)._validate_hyperparameters()
        if names is not None:
            model.feature_names_in_ = np.asarray(names, dtype=object)
        model.n_features_in_ = regressor.n_features_in_
        model.classes_ = classes
        model.temperature_ = temperature
        model.regressor_ = regressor
        model.rule_base_ = regressor.rule_base_
        return model

    def decision_function(self, X):
        """Class scores: the rule base's outputs.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            Two classes: one score, positive for ``classes_[1]``. More: one
            score per class, in the order of ``classes_``.
        """
        check_is_fitted(self, "regressor_")
        X = validate_numeric_data(self, X, reset=False, dtype=np.float64)
        return self.regressor_.predict(X)

    def predict(self, X):
        """The class of the highest score.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def predict_proba(self, X):
        """Class probabilities: a softmax of the scores at the fitted temperature.

        ``P(k | x) = exp(s_k / T) / sum_l exp(s_l / T)``, with the scores
        ``s`` of :meth:`decision_function` (for two classes, ``(-s/2, s/2)``,
        so ``P(classes_[1] | x)`` is the logistic function of ``s / T``).
        The rows lie in ``[0, 1]`` and sum to 1; the order of the classes is
        that of the scores, so :meth:`predict` is the most probable class.

        The one parameter ``T`` (``temperature_``) is fitted in ``fit`` by
        minimising the cross-entropy on the training rows against Platt's
        smoothed targets: the true class of a row of class ``c`` counts
        ``(N_c + 1) / (N_c + 2)``, the others share the rest. The smoothing
        is Platt's (1999) guard against the over-confidence of calibrating on
        the rows the scores were fitted to: ``T`` stays finite even when the
        scores separate the training classes perfectly. The probabilities
        are still those of one scalar recalibration of in-sample scores; for
        probabilities calibrated on held-out rows, wrap the classifier in
        :class:`sklearn.calibration.CalibratedClassifierCV`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        scores = _class_scores(self.decision_function(X))
        return scipy.special.softmax(scores / self.temperature_, axis=1)

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`, computed stably.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        scores = _class_scores(self.decision_function(X))
        return scipy.special.log_softmax(scores / self.temperature_, axis=1)

    # ------------------------------------------------------------ conformal prediction sets
    def fit_conformalize(self, X, y):
        """Fit, and keep the exact leave-one-out models for jackknife+ prediction sets.

        :meth:`fit`, then the leave-one-out terms of the ridge fit of the
        class scores (see :meth:`RandomTSRegressor.fit_conformalize`, with
        its cost: about one more fit, and ``8 rank n_samples`` bytes), and
        each training row's nonconformity (one minus the
        :meth:`predict_proba` of its class) under the model without it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs.
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : RandomTSClassifier

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = RandomTSClassifier(n_rules=10, random_state=0).fit_conformalize(X[::2], y[::2])
        >>> sets = clf.predict_set(X[1::2], coverage=0.9)
        >>> covered = sets[range(len(sets)), y[1::2]].mean()
        >>> bool(covered >= 0.85), round(float(sets.sum(axis=1).mean()), 1)  # classes per set
        (True, 0.9)
        """
        check_jackknife(
            self._regressor(np.shape(X)[1] if np.ndim(X) == 2 else 1),
            np.shape(X),
            owner=type(self).__name__,
        )
        self._conformity = None
        self.fit(X, y)
        X, y = validate_numeric_data(self, X, y, reset=False, numeric_y=False, dtype=np.float64)
        indices = np.searchsorted(self.classes_, y)
        targets = _indicator_targets(indices, self.classes_.size)
        targets = targets.reshape(-1, 1) if targets.ndim == 1 else targets
        scores = jackknife_scores(self.regressor_, X, targets)
        train_scores = jackknife_class_scores(scores, targets, indices, self.temperature_)
        self._conformity = dataclasses.replace(
            scores, rule_base=self.rule_base_, train_scores=train_scores
        )
        return self

    def conformalize(self, X, y):
        """Keep the nonconformity of calibration rows for split-conformal prediction sets.

        For a classifier fitted without these rows. The score of a row is one
        minus the :meth:`predict_proba` of its class; :meth:`predict_set`
        then keeps the classes whose score is at most the ``ceil(coverage (n +
        1))``-th smallest of the ``n`` calibration scores (the "LAC" sets of
        Sadinle, Lei & Wasserman 2019), which contain a new row's class with
        probability at least ``coverage`` when the rows are exchangeable.

        Parameters
        ----------
        X : array-like of shape (n_calibration, n_features)
            Calibration inputs, not used in the fit.
        y : array-like of shape (n_calibration,)
            Their labels, among ``classes_``.

        Returns
        -------
        self : RandomTSClassifier

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = RandomTSClassifier(n_rules=10, random_state=0).fit(X[::3], y[::3])
        >>> clf = clf.conformalize(X[1::3], y[1::3])
        >>> clf.predict_set(X[2::3], coverage=0.9).shape
        (50, 3)
        """
        check_is_fitted(self, "regressor_")
        X, y = validate_numeric_data(self, X, y, reset=False, numeric_y=False, dtype=np.float64)
        indices = np.searchsorted(self.classes_, y).clip(0, self.classes_.size - 1)
        unknown = self.classes_[indices] != y
        if np.any(unknown):
            raise ValueError(
                f"y has labels that {type(self).__name__} was not fitted to: "
                f"{np.unique(y[unknown]).tolist()!r}; its classes are {self.classes_.tolist()!r}."
            )
        probabilities = self.predict_proba(X)
        self._conformity = SplitScores(
            self.rule_base_, 1.0 - probabilities[np.arange(indices.size), indices]
        )
        return self

    def predict_set(self, X, coverage=0.9):
        """Conformal prediction sets: the classes that cover the true one at the given rate.

        After :meth:`fit_conformalize`, the jackknife+ sets (Romano, Sesia &
        Candès 2020): class ``c`` is in the set of ``x`` when, for fewer than
        ``coverage (n + 1)`` training rows ``j``, the model without row ``j``
        finds ``c`` at ``x`` less conforming than row ``j``'s own class at
        ``x_j``; they contain the true class of at least ``1 - 2 (1 -
        coverage)`` of exchangeable rows, and close to ``coverage`` in
        practice. After :meth:`conformalize`, split-conformal sets, with at
        least ``coverage``. The guarantee is marginal (on average over rows),
        and fails for rows that are not exchangeable with the training (or
        calibration) rows. A set may hold several classes (an ambiguous
        input) or none (an input unlike every class).

        Parameters
        ----------
        X : array-like of shape (n_rows, n_features)
            Inputs.
        coverage : float in (0, 1), default=0.9
            The nominal coverage; it needs at least ``coverage / (1 -
            coverage)`` training (or calibration) rows.

        Returns
        -------
        ndarray of bool, shape (n_rows, n_classes)
            ``sets[i, k]``: class ``classes_[k]`` is in the set of row ``i``.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the classifier keeps no scores of its current fit.
        ValueError
            For a ``coverage`` outside (0, 1), or too few rows for it.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(400, 2))
        >>> y = np.where(X[:, 0] + 0.5 * rng.normal(size=400) > 0, "right", "left")
        >>> clf = RandomTSClassifier(n_rules=10, random_state=0).fit_conformalize(X, y)
        >>> clf.classes_.tolist(), clf.predict_set([[3.0, 0.0], [0.0, 0.0]], coverage=0.9).tolist()
        (['left', 'right'], [[False, True], [True, True]])
        """
        check_is_fitted(self, "regressor_")
        coverage = check_coverage(coverage, owner="predict_set")
        X = validate_numeric_data(self, X, reset=False, dtype=np.float64)
        checks.warn_if_extrapolating(self.regressor_, X, method="predict_set", margin=0.0)
        scores = current_scores(self, "predict_set")
        raw = self.regressor_.rule_base_.predict(X, n_jobs=self.regressor_.n_jobs)
        return prediction_sets(scores, X, raw, self.temperature_, coverage)


def _indicator_targets(indices, n_classes):
    """``+-1`` for two classes (1-D), one-hot columns for more."""
    if n_classes == 2:
        return np.where(indices == 1, 1.0, -1.0)
    targets = np.zeros((indices.size, n_classes))
    targets[np.arange(indices.size), indices] = 1.0
    return targets


def _class_scores(scores):
    """One score column per class: ``(-s/2, s/2)`` for the two-class score ``s``."""
    if scores.ndim == 1:
        return np.column_stack([-0.5 * scores, 0.5 * scores])
    return scores


def _fit_temperature(scores, indices, n_classes):
    """Softmax temperature minimising the cross-entropy against Platt's smoothed targets."""
    counts = np.bincount(indices, minlength=n_classes).astype(float)
    on = (counts + 1.0) / (counts + 2.0)  # Platt's target for the true class, per class
    targets = np.empty((indices.size, n_classes))
    targets[...] = ((1.0 - on) / (n_classes - 1))[indices, None]
    targets[np.arange(indices.size), indices] = on[indices]
    spread = float(np.std(scores))
    if not np.isfinite(spread) or spread == 0.0:
        return 1.0  # constant scores: every temperature gives the uniform distribution

    def cross_entropy(log_t):
        log_p = scipy.special.log_softmax(scores / np.exp(log_t), axis=1)
        return -np.sum(targets * log_p) / indices.size

    low, high = np.log(spread * np.array(_TEMPERATURE_BOUNDS))
    result = scipy.optimize.minimize_scalar(
        cross_entropy, bounds=(low, high), method="bounded", options={"xatol": 1e-6}
    )
    return float(np.exp(result.x))
