"""Rules grown where the error is: a local linear model tree as a weighted-average rule base.

:func:`grow_rules` is Nelles' LOLIMOT (local linear model tree; Nelles,
*Nonlinear System Identification*, 2001, ch. 13) with the rules on the data:

1. Start from one rule over the box of the data, its consequent the ridge
   line through every row, its penalty the one of least exact leave-one-out
   error (:func:`randomts.fitting.ridge.choose_alpha`, as scikit-learn's
   ``RidgeCV`` chooses it): where inputs move together (an input and its
   products with others, say), the least-squares line weighs them with
   large slopes of opposite signs that cancel on the data and nowhere else,
   and every rule grown from it inherits them.
2. Take the rule whose region has the largest local error,
   ``sum_n phi_i(u_n) ||e_n||^2`` (``phi_i`` its normalised validity, ``e``
   the model's residual, each output in units of its standard deviation).
   Try to cut its box in two across every input, at the median of the rows
   in the box (``split="median"``) or also at their quartiles
   (``split="quantiles"``); each half becomes a rule, and the cut kept is the
   one that lowers the model's squared error most, the other rules' lines
   held fixed while the cuts are compared. If the worst rule's box has too
   few rows to cut, the next worst is cut.
3. Refit every consequent and record the model's criterion; repeat from 2
   until ``max_rules`` rules, no box left to cut, or ``patience`` cuts
   without a better criterion.

A rule sits on its data, not in its box: its centre is the mean of the rows
in its box (the box's centre can fall where there are no rows, and a line
fitted there says nothing about the data nearby). Its Gaussian width on an
input is ``width_factor`` times the side of the box its rows would fill
evenly (``sqrt(12)`` standard deviations of the rows there), never more
than its box's side: a box stretched by one far row does not make a rule
that swamps its neighbours, the rule dominates at its own centre, and no
width exceeds the input's range.

Each consequent is a weighted least-squares fit of the data under the
rule's normalised validity (local learning, Nelles' local estimation), from
the engine's local Gram blocks
(:func:`randomts.fitting.local_learning.local_grams`), the regressors
centred on the rule so that the line's value at the centre is the local
data's. Its slopes are shrunk toward its parent's by a ridge of weight
``shrinkage``: a rule over few rows, or over inputs that move together,
keeps the slopes of the larger region it came from instead of slopes made
of noise (the first rule's slopes are shrunk toward zero by the penalty of
step 1), and the intercept, what the rule says at its centre, is left
free.

For fixed rules the model is a linear smoother of ``Y``, and leaving a row
out of every local fit (and of its ancestors', whose slopes are the priors)
is a rank-one change of each rule's system: the exact leave-one-out
residuals and the effective number of parameters ``tr S`` are closed forms
(``_Growth._left_out``). Each cut is charged :data:`SEARCH_COST` more
parameters for the search that chose it (the leave-one-out error of a fixed
partition does not see that the partition was fitted to the same rows). The
criterion (``"loo"``, ``"gcv"`` or ``"aicc"``) then picks the number of
rules on the training rows alone; with ``"loo"``, the fewest rules whose
error is within one standard error (paired over the rows) of the least.
With ``width_factor="auto"`` the rules are grown at every factor of
:data:`WIDTH_FACTORS`, and the rule base of least criterion is kept among
those whose every rule, at its own centre, lies within
:data:`HONESTY_TOLERANCE` standard deviations of the model's prediction.

Every step is a function of the data alone (no randomness; ties go to the
lower input, then the lower quantile, then the more erroneous rule of lower
index), so the same rows give the same rule base, bit for bit.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from randomts._validation import check_int, check_int_option, check_matrix, check_option, check_real
from randomts.core.membership import (
    UNTESTED_WIDTH,
    log_firing_strengths,
    normalize_log_strengths,
)
from randomts.core.regions import REGIONS_KEY, regions_to_metadata
from randomts.fitting.local_learning import local_grams
from randomts.fitting.ridge import choose_alpha

__all__ = [
    "CRITERIA",
    "GrownRules",
    "HONESTY_TOLERANCE",
    "SEARCH_COST",
    "SPLITS",
    "WIDTH_FACTORS",
    "check_width_factor",
    "grow_rules",
]

#: The criteria that choose the number of rules: the exact leave-one-out error of the local
#: fits, generalised cross-validation, and Akaike's criterion corrected for small samples.
CRITERIA = ("loo", "gcv", "aicc")
#: Where a box may be cut: at the median of its rows, or at their quartiles too.
SPLITS = ("median", "quantiles")
#: The fractions of a box's rows left of each cut that ``split="quantiles"`` tries.
_QUANTILES = {"median": (0.5,), "quantiles": (0.5, 0.25, 0.75)}
#: The width factors ``width_factor="auto"`` chooses among.
WIDTH_FACTORS = (0.25, 1.0 / 3.0, 0.4, 0.5)
#: Largest distance, in standard deviations of an output, between a rule's line at its own
#: centre and the model's prediction there, for ``width_factor="auto"`` to accept a factor.
HONESTY_TOLERANCE = 0.1
#: The least ridge on a local problem, relative to the rows under the rule: keeps a local
#: Gram matrix positive definite where an input is constant in a box.
_RIDGE_FLOOR = 1e-10

#: Parameters charged to each cut for the search that chose it, by every criterion.
SEARCH_COST = 1.0
#: Mean squared error, in units of the outputs' variances, below which a fit is exact (to
#: the least ridge and rounding): fits closer than that are not told apart.
_EXACT = 1e-16
#: Normalised validity below which a row is left out of a rule's local sums (and a rule's
#: line is kept when a cut moves its validity by less on every row): such a row pulls the
#: line by less than a millionth of a millionth of what a row under the rule does.
_NEGLIGIBLE = 1e-12

_OWNER = "grow_rules"


def grow_rules(
    U,
    Y,
    *,
    max_rules=40,
    width_factor="auto",
    split="median",
    criterion="loo",
    order=1,
    shrinkage=1.0,
    root_alpha="auto",
    min_samples_leaf="auto",
    patience=8,
    check_input=True,
):
    """Grow weighted-average rules where the model's error is, and fit them locally.

    Parameters
    ----------
    U : array-like of shape (n_samples, n_features)
        Inputs, best standardised: ``shrinkage`` is in their units.
    Y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Targets: outputs of a regression, or per-class scores. The growth
        reads the squared error summed over the outputs, each in units of
        its standard deviation.
    max_rules : int, default=40
        Most rules grown.
    width_factor : float in (0, 1] or "auto", default="auto"
        A rule's Gaussian standard deviation on each input, as a fraction of
        the side of the box its rows would fill evenly (see the module
        docstring). ``"auto"``: the factor of :data:`WIDTH_FACTORS` of least
        criterion among those whose rules are honest.
    split : {"median", "quantiles"}, default="median"
        Where a box may be cut on each input: at the median of its rows, or
        at their first, second and third quartiles.
    criterion : {"loo", "gcv", "aicc"}, default="loo"
        What chooses the number of rules: the exact leave-one-out error of
        the local fits, generalised cross-validation, or the corrected
        Akaike criterion, each with ``tr S`` plus :data:`SEARCH_COST` per
        cut parameters.
    order : {0, 1}, default=1
        1: linear consequents; 0: constants.
    shrinkage : float >= 0, default=1.0
        Ridge on each rule's slopes toward its parent's, in standardised
        units: the weight of one row at one standard deviation of the input
        from the rule's centre whose output is one standard deviation of
        ``Y`` off. Where a rule has few rows, its slopes follow its parent's.
    root_alpha : float >= 0 or "auto", default="auto"
        Ridge on the first rule's slopes toward zero, in the units of
        ``shrinkage`` (the first rule's system is ``Z^T Z`` of every row).
        ``"auto"``: the penalty of least exact leave-one-out error of that
        one line, over the grid of
        :func:`~randomts.fitting.ridge.choose_alpha`; 0: the least-squares
        line.
    min_samples_leaf : int >= 1 or "auto", default="auto"
        Fewest rows a box may hold after a cut; ``"auto"``: the unknowns of
        one consequent plus one (``n_features + 2``, or 2 for ``order=0``).
    patience : int >= 1, default=8
        Stop after this many cuts in a row without a better criterion.
    check_input : bool, default=True
        Validate ``U`` and ``Y``; False when the caller has (finite float
        arrays, ``Y`` of one or two dimensions).

    Returns
    -------
    GrownRules
        The rules, Gaussian on every input with the product t-norm and the
        weighted average, their consequents fitted locally:
        ``RuleBase(**grown.arguments)`` is the rule base (the fitting layer
        builds no model class). ``grown.growth``, which the rule base keeps
        as ``metadata["growth"]``, records the growth: the settings, ``"n_rules"`` the rule counts along the way,
        ``"criterion_path"`` their criterion, ``"error_path"`` the training
        mean squared error (summed over outputs, in their standard
        deviations), ``"dof_path"`` the effective number of parameters,
        ``"width_factor"`` the factor used, ``"honesty"`` the largest
        distance of a rule's line at its centre from the model there (in
        standard deviations of ``Y``), and with ``width_factor="auto"``
        ``"width_criteria"`` and ``"width_honesty"`` of every factor tried.

    Raises
    ------
    ValueError, TypeError
        For a parameter out of range or inputs that are not finite numbers
        of matching rows.

    Examples
    --------
    A kink at ``u = 0``: a rule on each side, and one where they meet.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> u = rng.uniform(-1.0, 1.0, size=(300, 1))
    >>> y = np.maximum(u[:, 0], 0.0) + 0.05 * rng.normal(size=300)
    >>> from randomts import RuleBase
    >>> rules = RuleBase(**grow_rules(u, y).arguments)
    >>> rules.n_rules, rules.normalize
    (3, True)
    >>> order = np.argsort(rules.centers[:, 0])
    >>> rules.centers[order, 0].round(1), rules.coef[order, 0, 0].round(1)
    (array([-0.7, -0.1,  0.6]), array([0. , 0.2, 1. ]))
    >>> growth = rules.metadata["growth"]
    >>> growth["width_factor"], growth["n_rules"][:4]
    (0.25, [1, 2, 3, 4])
    """
    if check_input:
        U = check_matrix(U, "U", row_label="row(s)", owner=_OWNER)
        Y = check_matrix(Y, "Y", allow_1d=True, column_label="outputs", owner=_OWNER)
    if Y.shape[0] != U.shape[0]:
        raise ValueError(
            f"U and Y must have the same number of rows; got {U.shape[0]} and {Y.shape[0]}."
        )
    settings = _check_settings(
        U.shape[1],
        max_rules=max_rules,
        width_factor=width_factor,
        split=split,
        criterion=criterion,
        order=order,
        shrinkage=shrinkage,
        root_alpha=root_alpha,
        min_samples_leaf=min_samples_leaf,
        patience=patience,
    )
    spread = Y.std(axis=0)
    scale = np.where(spread > 0, spread, 1.0)
    Ys = Y / scale
    if settings["root_alpha"] == "auto":
        settings["root_alpha"] = _root_alpha(U, Ys, settings["order"])
    factors = WIDTH_FACTORS if settings["width_factor"] == "auto" else (settings["width_factor"],)
    grown = [_Growth(U, Ys, factor, settings).run() for factor in factors]
    chosen = grown[0]
    if len(grown) > 1:
        honest = [g for g in grown if g.honesty <= HONESTY_TOLERANCE]
        candidates = honest or [min(grown, key=lambda g: g.honesty)]
        least = min(g.best_criterion for g in candidates)
        chosen = next(g for g in candidates if g.best_criterion <= least + _EXACT)
    centers, sigmas, theta = chosen.best_rules()
    regions = chosen.best_regions()
    p = theta.shape[1]
    coef = np.ascontiguousarray(theta[:, : p - 1, :].transpose(0, 2, 1)) * scale[None, :, None]
    intercept = theta[:, p - 1, :] * scale[None, :]
    growth = {
        key: settings[key]
        for key in (
            "max_rules",
            "split",
            "criterion",
            "order",
            "shrinkage",
            "root_alpha",
            "min_samples_leaf",
        )
    }
    growth.update(chosen.record())
    growth["width_factor"] = chosen.width_factor
    if len(grown) > 1:
        growth["width_criteria"] = [g.best_criterion for g in grown]
        growth["width_honesty"] = [g.honesty for g in grown]
    return GrownRules(
        centers=centers,
        sigmas=sigmas,
        coef=coef if order == 1 else np.zeros((centers.shape[0], Y.shape[1], U.shape[1])),
        intercept=intercept,
        growth=growth,
        regions=regions,
        input_range=np.column_stack([U.min(axis=0), U.max(axis=0)]),
        output_range=np.column_stack([Y.min(axis=0), Y.max(axis=0)]),
    )


@dataclass(frozen=True)
class GrownRules:
    """What :func:`grow_rules` grew: a weighted-average rule base, and how it was grown.

    Attributes
    ----------
    centers, sigmas : ndarray of shape (n_rules, n_features)
        The rules' Gaussian centres and standard deviations, in the units of ``U``.
    coef : ndarray of shape (n_rules, n_outputs, n_features)
        The consequents' slopes.
    intercept : ndarray of shape (n_rules, n_outputs)
        The consequents' constants (their value at ``U = 0``).
    growth : dict
        The growth's settings and path, as plain data (see :func:`grow_rules`).
    regions : ndarray of shape (n_rules, n_features, 2)
        ``[low, high)`` of the box each rule was grown in, in the units of
        ``U``: the cuts that made it, ``-inf`` or ``inf`` where no cut bounds it.
    input_range, output_range : ndarray of shape (n_features, 2) and (n_outputs, 2)
        ``[low, high]`` of each column of ``U`` and ``Y``.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RuleBase
    >>> u = np.linspace(-1.0, 1.0, 50)[:, None]
    >>> grown = grow_rules(u, 2.0 * u[:, 0])
    >>> rules = RuleBase(**grown.arguments, input_names=["u"])
    >>> rules.n_rules, rules.normalize, rules.coef.round(6).ravel().tolist()
    (1, True, [2.0])
    """

    centers: np.ndarray
    sigmas: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    growth: dict
    regions: np.ndarray
    input_range: np.ndarray
    output_range: np.ndarray

    @property
    def arguments(self):
        """The keyword arguments of :class:`~randomts.RuleBase` that make these rules.

        Weighted average (``normalize=True``), ``metadata`` holding the
        growth (``"growth"``) and the regions (``"regions"``, see
        :mod:`randomts.core.regions`), the ranges recorded; add
        ``input_names`` and ``output_names`` as needed.
        """
        return {
            "centers": self.centers,
            "sigmas": self.sigmas,
            "coef": self.coef,
            "intercept": self.intercept,
            "normalize": True,
            "metadata": {"growth": self.growth, REGIONS_KEY: regions_to_metadata(self.regions)},
            "input_range": self.input_range,
            "output_range": self.output_range,
        }


def check_width_factor(width_factor, owner=_OWNER):
    """``width_factor`` checked: ``"auto"``, or a float in ``(0, 1]``, else raise naming ``owner``.

    Examples
    --------
    >>> check_width_factor("auto"), check_width_factor(1)
    ('auto', 1.0)
    >>> check_width_factor(1.5)
    Traceback (most recent call last):
    ...
    ValueError: The 'width_factor' parameter of grow_rules must be 'auto' or a float in the range (0.0, 1.0] (no wider than its box). Got 1.5 instead.
    """
    if isinstance(width_factor, str):
        if width_factor != "auto":
            raise ValueError(
                f"The 'width_factor' parameter of {owner} must be 'auto' or a float in the "
                f"range (0.0, 1.0]. Got {width_factor!r} instead."
            )
        return width_factor
    value = check_real(width_factor, "width_factor", low=0.0, low_inclusive=False, owner=owner)
    if value > 1.0:
        raise ValueError(
            f"The 'width_factor' parameter of {owner} must be 'auto' or a float in the "
            f"range (0.0, 1.0] (no wider than its box). Got {value!r} instead."
        )
    return value


def _check_settings(n_features, **given):
    """The parameters of :func:`grow_rules`, checked, with ``min_samples_leaf`` resolved."""
    settings = dict(given)
    settings["max_rules"] = check_int(given["max_rules"], "max_rules", low=1, owner=_OWNER)
    settings["width_factor"] = check_width_factor(given["width_factor"], owner=_OWNER)
    check_option(given["split"], "split", SPLITS, owner=_OWNER)
    check_option(given["criterion"], "criterion", CRITERIA, owner=_OWNER)
    order = check_int_option(given["order"], "order", (0, 1), owner=_OWNER)
    settings["order"] = order
    settings["shrinkage"] = check_real(given["shrinkage"], "shrinkage", low=0.0, owner=_OWNER)
    root = given["root_alpha"]
    if isinstance(root, str):
        if root != "auto":
            raise ValueError(
                f"The 'root_alpha' parameter of {_OWNER} must be 'auto' or a float in the "
                f"range [0.0, inf). Got {root!r} instead."
            )
    else:
        settings["root_alpha"] = check_real(root, "root_alpha", low=0.0, owner=_OWNER)
    leaf = given["min_samples_leaf"]
    if isinstance(leaf, str) and leaf == "auto":
        leaf = n_features + 2 if order == 1 else 2
    elif isinstance(leaf, numbers.Integral) and not isinstance(leaf, bool):
        leaf = check_int(leaf, "min_samples_leaf", low=1, owner=_OWNER)
    else:
        raise TypeError(
            f"The 'min_samples_leaf' parameter of {_OWNER} must be 'auto' or an int in the "
            f"range [1, inf). Got {leaf!r} instead."
        )
    settings["min_samples_leaf"] = leaf
    settings["patience"] = check_int(given["patience"], "patience", low=1, owner=_OWNER)
    return settings


def _root_alpha(U, Ys, order):
    """The first rule's ridge: least exact leave-one-out error of one line through every row.

    The line in the regressors centred on the rows' mean (where the first
    rule sits), ``[U - mean, 1]``; its intercept is then the mean of ``Ys``
    whatever the penalty. Constant consequents (``order=0``) have no slopes
    to shrink: 0.
    """
    if order == 0:
        return 0.0
    K = np.column_stack([U - U.mean(axis=0), np.ones(U.shape[0])])
    return float(choose_alpha(K, Ys, check_input=False).alpha)


def _regressors(U, order):
    """``Z = [U 1]`` (or the column of ones), the layout of a consequent."""
    n = U.shape[0]
    return np.ones((n, 1)) if order == 0 else np.column_stack([U, np.ones(n)])


def _local_grams(phi, U, Ys, order, rows=None):
    """Blocks ``[U Ys 1]^T Phi_i [U Ys 1]`` of every rule, each on its rows if given.

    ``rows[i]`` lists the rows where rule ``i``'s validity is worth counting;
    without it, every row counts for every rule.
    """
    data = np.column_stack([U, Ys]) if order == 1 else Ys
    if rows is None:
        return local_grams(phi, data)
    size = data.shape[1] + 1
    grams = np.zeros((phi.shape[1], size, size))
    for i, active in enumerate(rows):
        local_grams(phi[active, i : i + 1], data[active], out=grams[i : i + 1])
    return grams


def _local_fits(grams, centers, prior, penalty, n_outputs):
    """Every rule's weighted least-squares consequent, its slopes shrunk toward a prior.

    Rule ``i`` minimises ``sum_n phi_in (y_n - b - (u_n - c_i) a)^2 +
    penalty_i sum_k (a_k - prior_ik)^2`` (``c_i`` its centre), from its block
    of :func:`_local_grams`. Returns ``theta`` (n_rules, p, n_outputs) in the
    layout of ``Z = [U 1]``, and ``inverse`` (n_rules, p, p), the inverse
    of each rule's system in the regressors centred on it, ``[u - c_i, 1]``.
    """
    n_rules, size, _ = grams.shape
    m = n_outputs
    q = size - m - 1
    p = q + 1
    z = [*range(q), q + m]
    gzz = grams[:, z][:, :, z]
    gzy = grams[:, z, q : q + m]
    # T maps [u 1] to [u - c 1]: the centred blocks are T^T G T and T^T g
    T = np.broadcast_to(np.eye(p), (n_rules, p, p)).copy()
    if q:  # constant consequents (order 0) have no regressors to centre
        T[:, q, :q] = -centers
    system = np.einsum("iab,iac,icd->ibd", T, gzz, T)
    rhs = np.einsum("iab,iam->ibm", T, gzy)
    floor = _RIDGE_FLOOR * np.maximum(gzz[:, q, q], 1.0)
    diagonal = np.repeat(floor[:, None], p, axis=1)
    diagonal[:, :q] += penalty[:, None]
    system += diagonal[:, :, None] * np.eye(p)[None]
    if q:
        rhs[:, :q] += penalty[:, None, None] * prior
    inverse = np.linalg.inv(system)
    return T @ (inverse @ rhs), inverse


def _criterion(name, residuals, loo_residuals, dof, n_rules):
    """The criterion ``name`` of a model with ``n_rules`` grown rules, per row if it has them.

    Returns the value and, for ``"loo"``, each row's share of it (else None).
    ``dof`` is ``tr S``; each cut adds :data:`SEARCH_COST`.
    """
    n = residuals.shape[0]
    spent = SEARCH_COST * (n_rules - 1)
    if name == "loo":
        if spent >= n:
            return np.inf, None
        rows = np.sum(loo_residuals**2, axis=1) * (n / (n - spent)) ** 2
        return float(np.mean(rows)), rows
    dof = dof + spent
    squares = np.sum(residuals**2, axis=0)  # per output
    if name == "gcv":
        return (float(np.sum(squares) / n / (1.0 - dof / n) ** 2) if dof < n else np.inf), None
    if n - dof - 1.0 <= 0.0:
        return np.inf, None
    mean_squares = np.maximum(squares / n, _EXACT)
    per_output = n * np.log(mean_squares) + 2.0 * dof + 2.0 * dof * (dof + 1.0) / (n - dof - 1.0)
    return float(np.sum(per_output)), None


def _fewest_within_one_error(values, rows):
    """The first index within one paired standard error of the least criterion.

    ``values[k]`` is the criterion of the ``k``-th rule base and ``rows[k]``
    its rows' shares (None where the criterion has none: then the first
    within :data:`_EXACT` of the least). Breiman's one standard error rule,
    with the error of the difference over the rows.
    """
    best = int(np.argmin(values))
    if not np.isfinite(values[best]):
        return 0
    for k in range(best):
        if rows[best] is None:
            if values[k] <= values[best] + _EXACT:
                return k
            continue
        difference = rows[k] - rows[best]
        if np.all(np.isfinite(difference)):
            error = difference.std() / np.sqrt(difference.size)
            if difference.mean() <= error + _EXACT:
                return k
    return best


class _Growth:
    """One growth: the boxes, the rules, their cached log strengths, and the path so far."""

    def __init__(self, U, Ys, width_factor, settings):
        self.U, self.Ys = U, Ys
        self.width_factor = width_factor
        self.settings = settings
        self.Z = _regressors(U, settings["order"])
        spread = U.std(axis=0)
        self.spread = np.where(spread > 0, spread, 1.0)
        n, d = U.shape
        capacity = settings["max_rules"]
        self.low = np.empty((capacity, d))
        self.high = np.empty((capacity, d))
        self.centers = np.empty((capacity, d))
        self.sigmas = np.empty((capacity, d))
        self.log_w = np.empty((n, capacity), order="F")
        q = self.Z.shape[1] - 1
        # each rule's slopes are shrunk toward its parent's (the root's toward zero):
        # the prior, its penalty, and how the prior moves with each y_n (rows, values)
        self.prior = np.zeros((capacity, q, Ys.shape[1]))
        self.penalty = np.zeros(capacity)
        self.prior_moves = [None] * capacity
        self.slope_moves = [None] * capacity
        # each rule's line and its share of the leave-one-out sums, kept between steps
        self.theta = np.zeros((capacity, q + 1, Ys.shape[1]))
        self.effects = [None] * capacity
        self.phi = None
        self.cut = None
        self.leaf = np.zeros(n, dtype=np.int64)
        self.n_rules = 1
        self.root = U.min(axis=0), U.max(axis=0)
        self.low[0], self.high[0] = self.root
        # an input that holds one value: no rule tests it (a set that holds every value)
        self.constant = self.root[0] == self.root[1]
        self.penalty[0] = settings["root_alpha"]
        self._place(0, np.arange(n))
        self.path = []
        self.criterion_rows = []

    # ------------------------------------------------------------ rules
    def _widths(self, low, high, rows):
        """``width_factor`` times the side of the box the rows would fill evenly.

        That side is ``sqrt(12)`` standard deviations of the rows, never more than
        the box's own side. Where the rows do not vary (a discrete input), the
        input's standard deviation over every row (1 if it is constant).
        """
        side = np.minimum(np.sqrt(12.0) * self.U[rows].std(axis=0), high - low)
        widths = np.where(side > 0, self.width_factor * side, self.spread)
        return np.where(self.constant, UNTESTED_WIDTH, widths)

    def _place(self, i, rows):
        """Centre rule ``i`` on its rows, size it, cache its log strengths."""
        self.centers[i] = self.U[rows].mean(axis=0)
        self.sigmas[i] = self._widths(self.low[i], self.high[i], rows)
        log_firing_strengths(
            self.U, self.centers[i : i + 1], self.sigmas[i : i + 1], out=self.log_w[:, i : i + 1]
        )

    def _fit(self):
        """Fit the consequents the last cut changed; record the model's error and criterion.

        A cut changes every rule's normalised validity, but a rule's by less
        than :data:`_NEGLIGIBLE` on every row where the cut is far: its line
        and its share of the leave-one-out sums are kept, so that a step
        costs what the rules near the cut cost.
        """
        M = self.n_rules
        s = self.settings
        phi = normalize_log_strengths(self.log_w[:, :M])
        if self.phi is None:
            dirty = np.arange(M)
        else:
            moved = np.max(np.abs(phi[:, : M - 1] - self.phi), axis=0) > _NEGLIGIBLE
            moved[self.cut] = True
            dirty = np.append(np.flatnonzero(moved), M - 1)
        self.phi = phi
        active = [np.flatnonzero(phi[:, i] > _NEGLIGIBLE) for i in dirty]
        grams = _local_grams(phi[:, dirty], self.U, self.Ys, s["order"], active)
        theta, inverse = _local_fits(
            grams, self.centers[dirty], self.prior[dirty], self.penalty[dirty], self.Ys.shape[1]
        )
        self.theta[dirty] = theta
        self.outputs = np.einsum("np,ipm->nim", self.Z, self.theta[:M])
        predicted = np.einsum("ni,nim->nm", phi, self.outputs)
        self.residuals = self.Ys - predicted
        for k, i in enumerate(dirty):
            self._left_out(i, active[k], inverse[k])
        shift = np.zeros_like(self.residuals)  # the prediction's change, each row left out
        leverage = np.zeros(self.U.shape[0])
        for rows, change, slope in self.effects[:M]:
            shift[rows] += change
            leverage[rows] += slope
        loo_residuals = self.residuals - shift
        loo_residuals[~np.isfinite(loo_residuals)] = np.inf
        dof = float(np.sum(leverage))
        value, rows = _criterion(s["criterion"], self.residuals, loo_residuals, dof, M)
        error = float(np.mean(np.sum(self.residuals**2, axis=1)))
        self.path.append(
            (
                M,
                value,
                error,
                dof,
                self.centers[:M].copy(),
                self.sigmas[:M].copy(),
                self.theta[:M].copy(),
                self._regions(M),
            )
        )
        self.criterion_rows.append(rows)

    def _left_out(self, i, rows, inverse):
        """Rule ``i``'s share of the exact leave-one-out change and of ``S_nn``, on its rows.

        Leaving row ``n`` out of every local fit (the rules and their
        validities fixed) changes rule ``i``'s system ``A`` by ``w z z^T``
        (``w = phi_in``, ``z = [u_n - c_i, 1]``) and its right-hand side by
        ``-w z y_n + P delta``, ``delta`` the change it makes to the parent's
        slopes (the prior) and ``P`` the penalty. With ``v = A^{-1} z``,
        ``h = w z^T v`` and ``g = v^T P delta``, the rule then predicts
        ``(f + g - h y_n) / (1 - h)`` at ``u_n`` instead of ``f``, and its
        slopes move by ``A^{-1} P delta + w v (f - y_n + g) / (1 - h)``
        (Sherman-Morrison), which its children read as their ``delta``. The
        same recursion with ``d / d y_n`` in place of the change gives ``S_nn``.
        Rows where the rule's validity is negligible are left out.
        """
        n = self.U.shape[0]
        q = self.Z.shape[1] - 1
        w = self.phi[rows, i]
        z = np.empty((rows.size, q + 1))
        np.subtract(self.U[rows, :q], self.centers[i, :q], out=z[:, :q])
        z[:, q] = 1.0
        v = z @ inverse
        h = w * np.sum(z * v, axis=1)
        y, f = self.Ys[rows], self.outputs[rows, i]
        prior_change = prior_slope = 0.0
        parent = self.prior_moves[i]
        if parent is not None:
            parent_rows, changes, slopes = parent
            where = np.full(n, -1)
            where[parent_rows] = np.arange(parent_rows.size)
            found = where[rows]
            outside = found < 0
            delta, d_delta = changes[found], slopes[found]
            delta[outside], d_delta[outside] = 0.0, 0.0
            prior_change = self.penalty[i] * np.einsum("nk,nkm->nm", v[:, :q], delta)
            prior_slope = self.penalty[i] * np.sum(v[:, :q] * d_delta, axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            scaled = (f - y + prior_change) / (1.0 - h)[:, None]
        change = w[:, None] * (prior_change + h[:, None] * scaled)
        self.effects[i] = (rows, change, w * (h + prior_slope))
        changes = w[:, None, None] * v[:, :q, None] * scaled[:, None, :]
        slopes = w[:, None] * v[:, :q]
        if parent is not None:
            block = self.penalty[i] * inverse[:q, :q]
            changes += np.einsum("nkm,kj->njm", delta, block)
            slopes += d_delta @ block
        self.slope_moves[i] = (rows, changes, slopes)

    # ------------------------------------------------------------ cuts
    def _cuts(self, i):
        """Admissible cuts of rule ``i``'s box: ``(input, threshold, left rows, right rows)``."""
        rows = np.flatnonzero(self.leaf == i)
        leaf = self.settings["min_samples_leaf"]
        if rows.size < 2 * leaf:
            return []
        cuts = []
        for k in range(self.U.shape[1]):
            order = np.argsort(self.U[rows, k], kind="stable")
            values = self.U[rows[order], k]
            # positions j where values[j - 1] < values[j]: the rows can be cut there
            boundaries = np.flatnonzero(values[1:] > values[:-1]) + 1
            boundaries = boundaries[(boundaries >= leaf) & (boundaries <= rows.size - leaf)]
            if boundaries.size == 0:
                continue
            tried = set()
            for fraction in _QUANTILES[self.settings["split"]]:
                target = fraction * rows.size
                j = int(boundaries[np.argmin(np.abs(boundaries - target))])
                if j in tried:
                    continue
                tried.add(j)
                threshold = 0.5 * (values[j - 1] + values[j])
                cuts.append((k, threshold, rows[order[:j]], rows[order[j:]]))
        return cuts

    def _score(self, i, cut, others):
        """Squared error after the cut where rule ``i`` counts, the other rules' lines fixed.

        Elsewhere the halves of rule ``i`` weigh as little as it did, and the
        model's error does not depend on the cut.
        """
        k, threshold, left, right = cut
        rows, other_max, other_sum, other_mean = others
        low = np.repeat(self.low[i][None], 2, axis=0)
        high = np.repeat(self.high[i][None], 2, axis=0)
        high[0, k] = low[1, k] = threshold
        centers = np.stack([self.U[left].mean(axis=0), self.U[right].mean(axis=0)])
        sigmas = np.stack(
            [self._widths(low[0], high[0], left), self._widths(low[1], high[1], right)]
        )
        U, Z, Ys = self.U[rows], self.Z[rows], self.Ys[rows]
        log_new = log_firing_strengths(U, centers, sigmas)
        shift = np.maximum(log_new.max(axis=1), other_max)
        new = np.exp(log_new - shift[:, None])
        old = other_sum * np.exp(other_max - shift)
        total = new.sum(axis=1) + old
        phi = new / total[:, None]
        s = self.settings
        q = self.Z.shape[1] - 1
        grams = _local_grams(phi, U, Ys, s["order"])
        prior = np.repeat(self.theta[i : i + 1, :q], 2, axis=0)
        penalty = np.full(2, s["shrinkage"])
        theta, _ = _local_fits(grams, centers, prior, penalty, Ys.shape[1])
        outputs = np.einsum("np,ipm->nim", Z, theta)
        predicted = np.einsum("ni,nim->nm", phi, outputs) + (old / total)[:, None] * other_mean
        return float(np.sum((Ys - predicted) ** 2)), low, high

    def _others(self, i):
        """Where rule ``i`` counts: those rows, and the other rules' log-sum-exp and output."""
        rows = np.flatnonzero(self.phi[:, i] > _NEGLIGIBLE)
        keep = [j for j in range(self.n_rules) if j != i]
        if not keep:
            m = self.Ys.shape[1]
            return rows, np.full(rows.size, -np.inf), np.zeros(rows.size), np.zeros((rows.size, m))
        log_w = self.log_w[np.ix_(rows, keep)]
        top = log_w.max(axis=1)
        w = np.exp(log_w - top[:, None])
        total = w.sum(axis=1)
        mean = np.einsum("ni,nim->nm", w, self.outputs[rows][:, keep]) / total[:, None]
        return rows, top, total, mean

    def _split(self):
        """Cut the worst rule that can be cut, the best way; False if none can."""
        local = self.phi.T @ np.sum(self.residuals**2, axis=1)
        for i in np.argsort(-local, kind="stable"):
            cuts = self._cuts(int(i))
            if cuts:
                break
        else:
            return False
        i = int(i)
        others = self._others(i)
        best = None
        for cut in cuts:
            error, low, high = self._score(i, cut, others)
            if best is None or error < best[0]:
                best = (error, cut, low, high)
        _, (_, _, left, right), low, high = best
        j = self.n_rules
        self.low[i], self.high[i] = low[0], high[0]
        self.low[j], self.high[j] = low[1], high[1]
        self.leaf[right] = j
        q = self.Z.shape[1] - 1
        for child in (i, j):
            self.prior[child] = self.theta[i, :q]
            self.penalty[child] = self.settings["shrinkage"]
            self.prior_moves[child] = self.slope_moves[i]
        self._place(i, left)
        self._place(j, right)
        self.n_rules += 1
        self.cut = i
        return True

    def run(self):
        """Grow until ``max_rules``, no cut, or ``patience`` cuts without improvement."""
        self._fit()
        s = self.settings
        best, since = self.path[0][1], 0
        while self.n_rules < s["max_rules"] and since < s["patience"] and self._split():
            self._fit()
            value = self.path[-1][1]
            if value < best - _EXACT:
                best, since = value, 0
            else:
                since += 1
        values = np.array([entry[1] for entry in self.path])
        self.best = _fewest_within_one_error(values, self.criterion_rows)
        self.best_criterion = float(values[self.best])
        self.honesty = self._honesty()
        return self

    def best_rules(self):
        """Centres, widths and consequents of the rule base of least criterion."""
        return self.path[self.best][4:7]

    def best_regions(self):
        """The regions of the rule base of least criterion (see :meth:`_regions`)."""
        return self.path[self.best][7]

    def _regions(self, M):
        """Each rule's box, shape (M, n_features, 2): a bound no cut set is infinite."""
        low = np.where(self.low[:M] > self.root[0], self.low[:M], -np.inf)
        high = np.where(self.high[:M] < self.root[1], self.high[:M], np.inf)
        return np.stack([low, high], axis=2)

    def _honesty(self):
        """Largest distance of a rule's line at its own centre from the model there."""
        centers, sigmas, theta = self.best_rules()
        Z = _regressors(centers, self.settings["order"])
        phi = normalize_log_strengths(log_firing_strengths(centers, centers, sigmas))
        outputs = np.einsum("np,ipm->nim", Z, theta)
        model = np.einsum("ni,nim->nm", phi, outputs)
        own = outputs[np.arange(centers.shape[0]), np.arange(centers.shape[0])]
        return float(np.max(np.abs(own - model)))

    def record(self):
        """The path of the growth, as plain data."""
        return {
            "n_rules": [int(entry[0]) for entry in self.path],
            "criterion_path": [float(entry[1]) for entry in self.path],
            "error_path": [float(entry[2]) for entry in self.path],
            "dof_path": [float(entry[3]) for entry in self.path],
            "honesty": self.honesty,
        }
