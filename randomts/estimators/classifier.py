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

import dataclasses

import numpy as np
import scipy.optimize
import scipy.special
from sklearn.base import ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from randomts._validation import validate_numeric_data
from randomts.estimators._base import _RandomTSEstimator
from randomts.estimators.intervals import (
    SplitScores,
    check_jackknife,
    current_scores,
    jackknife_class_scores,
    jackknife_scores,
    prediction_sets,
)
from randomts.estimators.parameters import check_fit_memory, resolved
from randomts.estimators.rows import InMemoryRows
from randomts.estimators.saving import STATE_KEY, jsonable, recorded_params
from randomts.fitting.conformal import check_coverage

__all__ = ["RandomTSClassifier"]

# The classifier's default widths for the weighted sum: b_i ~ U(0, this / (2 n_features)], this
# many times the regressor's largest width parameter (rules up to twice as narrow).
_WIDTH_FACTOR = 4.0
# Search interval of the softmax temperature, relative to the spread of the training scores.
_TEMPERATURE_BOUNDS = (1e-4, 1e4)
# The fitted attributes the classifier's own record holds (see __randomts_saved__).
_CLASSIFIER_ATTRIBUTES = ("classes_", "temperature_")


class RandomTSClassifier(ClassifierMixin, _RandomTSEstimator):
    """Takagi-Sugeno classifier with random rules: class scores fitted in one shot.

    ``fit`` draws the rules and fits their consequents exactly as
    :class:`~randomts.RandomTSRegressor` does, to class indicators: one score
    ``+-1`` for two classes, a one-hot score per class for more (see
    :mod:`randomts.estimators.classifier`). ``predict`` returns the class of the highest
    score.

    The parameters are those of :class:`~randomts.RandomTSRegressor`, with
    its defaults (standardisation, rules centred on training rows, the ridge
    penalty chosen by leave-one-out) but two, the classifier's own, because
    class boundaries are more local than the regression surfaces the
    regressor's defaults were chosen for: 150 rules instead of 100 and, with
    ``width_range=None`` and the weighted sum, rules up to half as wide
    (``b_i`` up to four times the regressor's). In stratified 5-fold
    cross-validation on iris, wine, breast cancer and digits, the regressor's
    defaults fall more than 1 point of accuracy behind RBF features with a
    ridge on wine; these do not on any of the four, nor on two survey data
    sets they were not chosen on (``benchmarks/bench_classification.py``,
    results in ``benchmarks/RESULTS.md``). With more rows than unknowns, the
    fit costs ``O(n_samples (n_rules (n_features + 1))^2)``; with fewer, it is
    solved in the row space, ``O(n_samples^2 n_rules (n_features + 1))``.

    Parameters
    ----------
    n_rules : int, default=150
        Number of rules.
    order, normalize, solver, alpha, learning, local_weight, standardize, centers, \
center_scale, center_bounds, width_factor, refine, random_state, n_jobs
        As in :class:`RandomTSRegressor`, with its defaults; the consequents
        are fitted to the class scores.
    width_range : (float, float), optional
        Interval of the RBF widths ``b_i`` (of the standardised inputs when
        ``standardize``). None: ``(0, 2 / n_features)`` for the weighted sum
        (four times the regressor's upper end), the regressor's default for
        the weighted average.
    lock_range : bool, optional
        None (the default) is False: the class scores are not held in a
        range. True holds the inputs in their training ranges and the scores
        in theirs, as the regressor's default does.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    rule_base_ : RuleBase
        The fitted rules, outputs named ``score(<class>)``, inputs named after
        the DataFrame columns if ``X`` had them; the metadata record the
        classes (as strings) under ``"classes"``.
    temperature_ : float
        Temperature ``T`` of the softmax that turns scores into
        probabilities (see :meth:`predict_proba`).
    alpha_ : float
        The ridge penalty used (chosen, with ``alpha="auto"``).
    local_weight_ : float or None
        The weight of the local term used with ``learning="combined"``.
    n_features_in_ : int
        Number of inputs seen in ``fit``.
    feature_names_in_ : ndarray of str
        Input names, when ``X`` was a DataFrame with string column names.
    n_outputs_ : int
        Number of scores: 1 for two classes, else the number of classes.

    See Also
    --------
    RandomTSRegressor : the same fit, of real targets.
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

    The class scores of rules grown where the data need them:

    >>> grown = RandomTSClassifier(structure="grown").fit(X, names[y])
    >>> grown.rule_base_.normalize, round(grown.score(X, names[y]), 2) >= 0.95
    (True, True)
    """

    #: The rules ``structure="random"`` draws when ``n_rules`` is None: class boundaries are
    #: more local than the regressor's surfaces.
    random_rules = 150
    default_structure = "random"
    #: Class scores are not held in a range: ``lock_range=None`` is False.
    default_lock_range = False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        return tags

    def _default_width_range(self, n_features):
        """Rules up to half as wide as the regressor's for the weighted sum (see the class)."""
        low, high = super()._default_width_range(n_features)
        return (low, high) if resolved(self).normalize else (low, _WIDTH_FACTOR * high)

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
        self._validate_hyperparameters()
        self._fit_labels(X, y)
        return self

    def _fit_labels(self, X, y):
        """:meth:`fit`; returns the checked inputs, the indicator targets and the class indices."""
        X, y = validate_numeric_data(self, X, y, numeric_y=False, dtype=np.float64)
        check_classification_targets(y)
        classes, indices = np.unique(y, return_inverse=True)
        if classes.size < 2:
            raise ValueError(
                f"{type(self).__name__} needs samples of at least 2 classes in y; "
                f"got 1 class: {classes.tolist()!r}."
            )
        targets = _indicator_targets(indices, classes.size)
        check_fit_memory(self, *X.shape, 1 if targets.ndim == 1 else targets.shape[1])
        self.classes_ = classes
        self._stream = None
        self._fit_rows(InMemoryRows(X, targets), stacklevel=4)
        self.temperature_ = _fit_temperature(
            _class_scores(self._shaped(self._raw_predict(X))), indices, classes.size
        )
        return X, targets, indices

    def _named(self, rule_base):
        """The fitted rule base with inputs and outputs named, and the classes recorded."""
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
            input_names=input_names, output_names=output_names, metadata=metadata, check_input=False
        )

    def _recorded_attributes(self):
        """The base's record, but the classes and temperature, which the classifier's record holds."""
        records = super()._recorded_attributes()
        return {k: v for k, v in records.items() if k not in _CLASSIFIER_ATTRIBUTES}

    def __randomts_saved__(self):
        """The rule base :func:`randomts.save` writes: ``rule_base_`` and how to rebuild ``self``.

        The estimators' record (see ``RandomTSRegressor``), with a
        ``"classifier"`` entry: the parameters, the classes (values and
        dtype) and the temperature.
        """
        check_is_fitted(self, "classes_")
        classes = np.asarray(self.classes_)
        if classes.dtype.kind == "O" and all(isinstance(c, str) for c in classes.tolist()):
            classes = classes.astype(str)
        if classes.dtype.kind not in "biufU":
            kinds = sorted({type(c).__name__ for c in classes.tolist()})
            raise TypeError(
                f"save holds class labels that are str, int, float or bool; the classes of "
                f"this {type(self).__name__} are {kinds}."
            )
        rule_base = super().__randomts_saved__()
        metadata = rule_base.metadata
        metadata[STATE_KEY]["classifier"] = {
            "params": jsonable(self.get_params()),
            "classes": {"array": classes.tolist(), "dtype": classes.dtype.str},
            "temperature": float(self.temperature_),
        }
        return rule_base.replace(metadata=metadata)

    @classmethod
    def _restored_params(cls, metadata, state):
        """The parameters of the classifier's own record.

        Files of earlier versions record ``None`` for a parameter left at the
        regressor's default: such a parameter takes the classifier's default.
        """
        record = state.get("classifier")
        if not isinstance(record, dict):
            raise ValueError(f"the 'classifier' record is missing or not an object: {record!r}")
        known = cls().get_params()
        params = recorded_params(record.get("params"), known)
        return {k: v for k, v in params.items() if v is not None or known[k] is None}

    @classmethod
    def __randomts_restored__(cls, rule_base):
        """The fitted classifier that :meth:`__randomts_saved__` described.

        The estimators' record gives the fitted rules and state, the
        classifier's own record the parameters, the classes and the
        temperature.
        """
        record = rule_base.metadata.get(STATE_KEY, {}).get("classifier")
        model = super().__randomts_restored__(rule_base)
        try:
            dtype = np.dtype(record["classes"]["dtype"])
            classes = np.asarray(record["classes"]["array"], dtype=dtype)
            temperature = float(record["temperature"])
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            raise ValueError(f"the 'classifier' record is damaged: {exc!r}") from None
        n_scores = 1 if classes.size == 2 else classes.size
        if dtype.kind not in "biufU" or classes.ndim != 1 or classes.size < 2:
            raise ValueError(f"'classes' must be a list of at least 2 labels; got {classes!r}")
        if n_scores != model.rule_base_.n_outputs or not temperature > 0:
            raise ValueError(
                f"{classes.size} classes and temperature {temperature!r} do not fit a rule base "
                f"of {model.rule_base_.n_outputs} scores"
            )
        model.classes_ = classes
        model.temperature_ = temperature
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
        X = self._checked_inputs(X)
        return self._shaped(self._raw_predict(X))

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
        >>> clf = RandomTSClassifier(n_rules=10, structure="random", random_state=0).fit_conformalize(
        ...     X[::2], y[::2]
        ... )
        >>> sets = clf.predict_set(X[1::2], coverage=0.9)
        >>> covered = sets[range(len(sets)), y[1::2]].mean()
        >>> bool(covered >= 0.85), round(float(sets.sum(axis=1).mean()), 1)  # classes per set
        (True, 0.9)
        """
        self._validate_hyperparameters()
        check_jackknife(self, np.shape(X))
        self._conformity = None
        X, targets, indices = self._fit_labels(X, y)
        targets = targets.reshape(-1, 1) if targets.ndim == 1 else targets
        scores = jackknife_scores(
            self.rule_base_,
            self._scaling,
            X,
            targets,
            alpha=self.alpha_,
            order=self.order,
            n_jobs=self.n_jobs,
        )
        train_scores = jackknife_class_scores(scores, targets, indices, self.temperature_)
        self._conformity = dataclasses.replace(scores, train_scores=train_scores)
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
        check_is_fitted(self, "classes_")
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
        >>> clf = RandomTSClassifier(n_rules=10, structure="random", random_state=0).fit_conformalize(X, y)
        >>> clf.classes_.tolist(), clf.predict_set([[3.0, 0.0], [0.0, 0.0]], coverage=0.9).tolist()
        (['left', 'right'], [[False, True], [True, True]])
        """
        check_is_fitted(self, "classes_")
        coverage = check_coverage(coverage, owner="predict_set")
        X = self._checked_inputs(X, method="predict_set", margin=0.0)
        scores = current_scores(
            getattr(self, "_conformity", None), self.rule_base_, type(self).__name__, "predict_set"
        )
        return prediction_sets(scores, X, self._raw_predict(X), self.temperature_, coverage)


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
