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

import numpy as np
import scipy.optimize
import scipy.special
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from randomts._validation import validate_numeric_data
from randomts.core.sampling import default_width_range
from randomts.estimators.records import STATE_KEY, jsonable, recorded_params
from randomts.estimators.regressor import RandomTSRegressor

__all__ = ["RandomTSClassifier"]

# The parameters passed through to RandomTSRegressor; None leaves the regressor's default.
_REGRESSOR_PARAMETERS = (
    "n_rules",
    "order",
    "normalize",
    "solver",
    "alpha",
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
        self.standardize = standardize
        self.centers = centers
        self.center_scale = center_scale
        self.center_bounds = center_bounds
        self.width_range = width_range
        self.refine = refine
        self.random_state = random_state
        self.n_jobs = n_jobs

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
