"""Local and combined learning of the consequents, and their choice by cross-validation.

Global learning, the paper's, fits every consequent at once to the model's
output: ``min ||K Gamma - Y||^2``. It is the most accurate on the training
rows, but a rule's consequent is then only a term that the other rules
correct, and it can say something quite different from the data where the
rule lives.

Local learning fits each rule's consequent to the data under that rule
alone, weighted by the rule's own weight in the model (Babuška, *Fuzzy
Modeling for Control*, 1998, ch. 5; Nelles, *Nonlinear System
Identification*, 2001, LOLIMOT's local estimation; Angelov & Filev's eTS,
2004)::

    min  sum_i sum_n w_i(x_n) (z_n^T theta_i - y_n)^2,      z_n = [x_n; 1]

``w_i`` is the rule's column of the firing strengths that build ``K``: the
normalised strengths for a weighted average, the raw ones for a weighted
sum. Each rule then describes its neighbourhood of the data, at some cost
in accuracy where rules overlap.

Combined learning (Yen, Wang & Gillespie, *IEEE Trans. Fuzzy Systems* 6(4),
1998) adds the two, global + ``local_weight`` x local, and trades accuracy
for meaning with one knob.

Because the local weights are those of ``K``, the local right-hand side
``sum_n w_i(x_n) z_n y_n`` is rule ``i``'s block of ``K^T Y``, and every one
of the three is the solution of one linear system::

    (g K^T K + l D + alpha I) Gamma = (g + l) K^T Y

with ``D = blockdiag(Z^T W_i Z)`` (a ``(p, p)`` block per rule, ``p`` the
columns of a consequent) and ``(g, l) = (1, 0)`` global, ``(0, 1)`` local,
``(1, local_weight)`` combined. ``D`` is accumulated from the rows like the
Gram matrix of ``[K Y]``, so local and combined learning stream, merge and
distribute like global learning (:class:`LearningStatistics`).

The local weight, and the ridge ``alpha`` with it, are chosen by K-fold
cross-validation: the statistics of each fold are accumulated apart, and a
fold's model is solved from the totals minus the fold, and scored on the
fold from its own statistics, with one eigendecomposition per fold and
local weight for the whole grid of ``alpha``. The cost is that of forming
the Gram matrix once, plus ``n_folds x n_local_weights``
eigendecompositions of a ``(n_columns, n_columns)`` matrix: small for the
few rules that local learning is for, about twenty times a global fit for
100 rules on 10 inputs (``benchmarks/bench_honest_rules.py --cost``). Given folds (e.g. contiguous blocks of a time series) also choose
``alpha`` alone for global learning; on at most half as many rows as columns
(a short record with many lags) it decomposes the rows themselves instead,
at a cost of ``rows^2 x columns`` (``benchmarks/bench_sysid.py --short``),
and no ``(n_columns, n_columns)`` matrix is formed: the statistics keep the
rows while they are few and form the Gram matrices from them only when
they stop being few or another objective asks for them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from randomts._validation import check_int, check_option, check_real
from randomts.core import membership
from randomts.core.accumulators import FEW_ROWS, LeastSquaresAccumulator, thin_svd
from randomts.core.design import design_matrix, design_rows_writer
from randomts.fitting.ridge import best_index, mean_prior, ridge_grid

__all__ = [
    "LEARNING",
    "LOCAL_WEIGHTS",
    "LearningSelection",
    "LearningStatistics",
    "N_FOLDS",
    "check_folds",
    "check_local_weight",
    "interleaved_folds",
    "learning_terms",
    "local_grams",
    "solve_learning",
]

#: The ways of learning the consequents.
LEARNING = ("global", "local", "combined")

#: Grid of ``local_weight="auto"``: from a local term a tenth of the global one to a
#: hundred times it, half a decade apart. Lower weights buy little accuracy with few
#: rules on the data and let a rule drift from what the model does at its centre.
LOCAL_WEIGHTS = np.logspace(-1.0, 2.0, 7)

#: Folds of the default cross-validation.
N_FOLDS = 5

# Entries of the (rows x rules x columns) intermediate of local_grams formed at once.
_BLOCK_ELEMENTS = 1 << 21


def check_local_weight(local_weight, *, owner=None):
    """``"auto"``, or ``local_weight`` as a finite float ``> 0``; else a ValueError."""
    if isinstance(local_weight, str):
        if local_weight == "auto":
            return local_weight
        where = f"The 'local_weight' parameter of {owner}" if owner else "local_weight"
        raise ValueError(f"{where} must be 'auto' or a float > 0; got {local_weight!r}.")
    value = check_real(local_weight, "local_weight", low=0.0, owner=owner)
    if value == 0 or not np.isfinite(value):
        where = f"The 'local_weight' parameter of {owner}" if owner else "local_weight"
        raise ValueError(
            f"{where} must be 'auto' or a finite float > 0 (learning='global' is a weight of "
            f"0, learning='local' the limit of large weights); got {local_weight!r}."
        )
    return value


def learning_terms(learning, local_weight):
    """The weights ``(g, l)`` of the global and local terms, for a float ``local_weight``.

    Examples
    --------
    >>> learning_terms("global", 3.0), learning_terms("local", 3.0), learning_terms("combined", 3.0)
    ((1.0, 0.0), (0.0, 1.0), (1.0, 3.0))
    """
    check_option(learning, "learning", LEARNING)
    if learning == "global":
        return 1.0, 0.0
    if learning == "local":
        return 0.0, 1.0
    return 1.0, float(local_weight)


def interleaved_folds(n_rows, n_folds=N_FOLDS, *, start=0):
    """Fold labels ``(start + j) mod n_folds`` of ``n_rows`` consecutive rows.

    Every fold samples the whole range of the rows, whatever their order;
    for rows in time order, where neighbours share most of their content,
    give contiguous blocks instead.

    Examples
    --------
    >>> interleaved_folds(7, 3).tolist(), interleaved_folds(3, 3, start=5).tolist()
    ([0, 1, 2, 0, 1, 2, 0], [2, 0, 1])
    """
    return (np.arange(n_rows, dtype=np.int64) + start) % n_folds


def check_folds(folds, n_rows):
    """``folds`` as an int array of ``n_rows`` labels ``0..k-1``, ``k >= 2``, else a ValueError."""
    labels = np.asarray(folds)
    if (
        labels.shape != (n_rows,)
        or not (np.issubdtype(labels.dtype, np.integer) or labels.dtype == bool)
        or (labels.size and labels.min() < 0)
    ):
        raise ValueError(
            f"folds must be a 1-D array of {n_rows} non-negative integer fold labels, one per "
            f"row; got {'shape ' + str(labels.shape) if labels.ndim else repr(folds)} of "
            f"dtype {labels.dtype}."
        )
    labels = labels.astype(np.int64)
    if np.unique(labels).size < 2:
        raise ValueError(
            f"folds must put the rows in at least 2 folds; got {np.unique(labels).size}."
        )
    return labels


def local_grams(weights, X, *, order=1, out=None):
    """``D_i = Z^T diag(w_i) Z`` of every rule, shape (n_rules, p, p).

    ``Z`` is ``[X 1]`` (``p = n_features + 1``, the layout of a consequent
    in ``K``) for ``order=1``, the column of ones (``p = 1``) for
    ``order=0``. ``out``, if given, is added to and returned.

    Examples
    --------
    >>> import numpy as np
    >>> W = np.array([[1.0, 0.0], [0.5, 0.5]]); X = np.array([[2.0], [4.0]])
    >>> local_grams(W, X)[1]
    array([[8. , 2. ],
           [2. , 0.5]])
    """
    weights = np.asarray(weights, dtype=float)
    n_rows, n_rules = weights.shape
    Z = np.ones((n_rows, 1)) if order == 0 else np.column_stack([X, np.ones(n_rows)])
    p = Z.shape[1]
    if out is None:
        out = np.zeros((n_rules, p, p))
    step = max(1, _BLOCK_ELEMENTS // max(n_rules * p, 1))
    for lo in range(0, n_rows, step):
        w, z = weights[lo : lo + step], Z[lo : lo + step]
        weighted = w[:, :, None] * z[:, None, :]  # (rows, rules, p)
        out += np.einsum("nrp,nq->rpq", weighted, z, optimize=True)
    return out


def _block_diagonal(D):
    return scipy.linalg.block_diag(*D) if D.shape[0] else np.zeros((0, 0))


@dataclass(frozen=True)
class LearningSelection:
    """The local weight and ridge chosen by cross-validation, with the curve.

    Attributes
    ----------
    learning : str
        ``"global"``, ``"local"`` or ``"combined"``.
    local_weight : float or None
        The chosen weight of the local term (combined learning), else None.
    alpha : float
        The chosen ridge penalty.
    local_weights : ndarray of shape (n_weights,)
        The grid of local weights (one ``nan`` entry unless combined).
    alphas : ndarray of shape (n_weights, n_alphas)
        The ridge grid at each local weight: with ``alpha="auto"``, 25
        values from ``1e-10`` to ``1e2`` times the mean eigenvalue of that
        weight's system on every row (each fold uses the same multiples of
        its own).
    errors : ndarray of shape (n_weights, n_alphas)
        Cross-validated mean squared error (over rows and outputs), or None
        when nothing was chosen.
    coefficients : ndarray of shape (n_columns, n_outputs)
        ``Gamma`` fitted on every row at the chosen values.
    prior : ndarray of shape (n_columns, n_outputs) or None
        The coefficients the ridge shrinks toward (the model that best
        reproduces the mean of each output), or None for zero.
    criterion : str
        ``"cv"``, or ``"fixed"`` when both values were given.
    """

    learning: str
    local_weight: float | None
    alpha: float
    local_weights: np.ndarray
    alphas: np.ndarray
    errors: np.ndarray | None
    coefficients: np.ndarray
    prior: np.ndarray | None
    criterion: str


class LearningStatistics:
    """What global, local and combined learning need of the rows, fold by fold.

    For each fold: the Gram matrix of ``[K Y 1]`` (through
    :class:`~randomts.core.accumulators.LeastSquaresAccumulator`, which folds
    the rows by threads with a result independent of their number) and the
    rules' local Gram matrices ``D_i`` (:func:`local_grams`). Statistics of
    different rows add up (:meth:`merge`), so they stream and distribute.
    :meth:`select` then solves and scores every fold at every value of a grid.

    Parameters
    ----------
    antecedents : RuleBase
        Fixed antecedents (centres, widths, ``normalize``).
    n_outputs : int, default=1
        Columns of the targets.
    order : {0, 1}, default=1
        Consequent order.
    n_folds : int, default=5
        Number of folds; 1 accumulates every row together (no choice).

    Attributes
    ----------
    design_rows : list of ndarray or None
        The rows ``[K Y]`` of each fold while every fold's rows together
        number at most half the columns of ``K``
        (:data:`~randomts.core.accumulators.FEW_ROWS`); None beyond. Global
        learning then decomposes them instead of the Gram matrix
        (``select``'s ``decomposition``), and the Gram matrices are formed
        only if asked for (:meth:`gram`, the other objectives): while the
        rows are few, no ``(columns, columns)`` matrix need exist.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RuleBase
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-2, 2, size=(400, 1)); y = np.sin(2 * X[:, 0]) + 0.1 * rng.normal(size=400)
    >>> rules = RuleBase(centers=np.linspace(-2, 2, 6)[:, None], sigmas=np.full((6, 1), 0.5),
    ...                  normalize=True)
    >>> stats = LearningStatistics(rules).update(X, y, interleaved_folds(400))
    >>> chosen = stats.select("combined", local_weight="auto", alpha="auto")
    >>> bool(chosen.local_weight in LOCAL_WEIGHTS), chosen.errors.shape
    (True, (7, 25))
    >>> round(float(np.sqrt(chosen.errors.min())), 1)  # cross-validated RMSE, about the noise
    0.1
    """

    def __init__(self, antecedents, n_outputs=1, *, order=1, n_folds=N_FOLDS):
        self.antecedents = antecedents
        self.n_outputs = check_int(n_outputs, "n_outputs", low=1)
        self.order = order
        self.n_folds = check_int(n_folds, "n_folds", low=1)
        n_rules, n_features = antecedents.n_rules, antecedents.n_features
        self.p = n_features + 1 if order == 1 else 1
        self.n_columns = n_rules * self.p
        self._what = f"n_rules={n_rules} with {n_features} inputs and order={order}"
        self._grams = None  # formed from the rows when asked for or when the rows stop being few
        self._counts = np.zeros(self.n_folds, dtype=np.int64)
        self.local = np.zeros((self.n_folds, n_rules, self.p, self.p))
        self.design_rows = [
            np.zeros((0, self.n_columns + self.n_outputs)) for _ in range(self.n_folds)
        ]

    @property
    def n_samples(self):
        """Rows folded in."""
        return int(self._counts.sum())

    def _few(self, n_rows):
        return n_rows <= FEW_ROWS * self.n_columns

    def _formed_grams(self):
        """The Gram accumulators of ``[K Y 1]`` of every fold, formed from the rows kept if not yet."""
        if self._grams is None:
            self._grams = [
                LeastSquaresAccumulator(
                    self.n_columns, self.n_outputs + 1, solver="cholesky", what=self._what
                )
                for _ in range(self.n_folds)
            ]
            self._add_rows(self.design_rows)
        return self._grams

    def _add_rows(self, design_rows):
        """Fold the rows ``[K Y]`` of every fold into the Gram accumulators, as rows ``[K Y 1]``."""
        p = self.n_columns
        for gram, rows in zip(self._grams, design_rows, strict=True):
            if rows.shape[0]:
                gram.update(rows[:, :p], np.hstack([rows[:, p:], np.ones((rows.shape[0], 1))]))

    def update(self, X, Y, folds=None, *, n_jobs=None):
        """Fold in rows ``X``, ``Y`` with their fold labels (default all in fold 0); returns self."""
        Y = Y.reshape(-1, 1) if Y.ndim == 1 else Y
        if folds is None:
            folds = np.zeros(X.shape[0], dtype=np.int64)
        rb = self.antecedents
        if self.design_rows is not None and not self._few(self.n_samples + X.shape[0]):
            self._formed_grams()
            self.design_rows = None
        for f in range(self.n_folds):
            rows = np.flatnonzero(folds == f)
            if rows.size == 0:
                continue
            Xf = X[rows]
            weights = membership.firing_strengths(Xf, rb.centers, rb.sigmas, normalize=rb.normalize)
            local_grams(weights, Xf, order=self.order, out=self.local[f])
            if self.design_rows is not None:
                K = design_matrix(weights, Xf, order=self.order)
                self.design_rows[f] = np.vstack([self.design_rows[f], np.hstack([K, Y[rows]])])
            if self._grams is not None:
                augmented = np.column_stack([Y[rows], np.ones(rows.size)])
                write = design_rows_writer(
                    Xf, augmented, rb.centers, rb.sigmas, normalize=rb.normalize, order=self.order
                )
                self._grams[f].update_rows(write, rows.size, n_jobs=n_jobs)
            self._counts[f] += rows.size
        return self

    def merge(self, other):
        """Add the statistics of other rows, over the same antecedents and folds; returns self."""
        if not isinstance(other, LearningStatistics) or (
            other.n_folds,
            other.n_columns,
            other.n_outputs,
        ) != (self.n_folds, self.n_columns, self.n_outputs):
            raise ValueError(
                "Can only merge LearningStatistics with the same folds, columns and outputs."
            )
        keep = (
            self.design_rows is not None
            and other.design_rows is not None
            and self._few(self.n_samples + other.n_samples)
        )
        if self._grams is not None or other._grams is not None or not keep:
            grams = self._formed_grams()
            if other._grams is not None:
                for mine, theirs in zip(grams, other._grams, strict=True):
                    mine.merge(theirs)
            else:  # the other's rows are all it holds
                self._add_rows(other.design_rows)
        if keep:
            pairs = zip(self.design_rows, other.design_rows, strict=True)
            self.design_rows = [np.vstack(pair) for pair in pairs]
        else:
            self.design_rows = None
        self.local += other.local
        self._counts += other._counts
        return self

    def fires(self):
        """Whether any row folded in so far has a nonzero entry of ``K`` (some rule fires on it)."""
        if self.design_rows is not None:
            return any(bool(np.any(rows[:, : self.n_columns])) for rows in self.design_rows)
        return any(gram.fires() for gram in self._grams)

    def gram(self, exclude=None):
        """The Gram matrix of ``[K Y 1]`` over every fold but ``exclude``, whole and symmetric.

        Examples
        --------
        >>> import numpy as np
        >>> from randomts import RuleBase
        >>> rules = RuleBase(centers=[[0.0]], sigmas=[[1.0]], normalize=True)
        >>> X = np.array([[0.0], [1.0], [2.0]]); y = np.array([1.0, 2.0, 3.0])
        >>> stats = LearningStatistics(rules, n_folds=2).update(X, y, np.array([0, 1, 1]))
        >>> stats.gram(exclude=0)  # of fold 1's rows [K Y 1] = [x 1 y 1]: [1 1 2 1], [2 1 3 1]
        array([[ 5.,  3.,  8.,  3.],
               [ 3.,  2.,  5.,  2.],
               [ 8.,  5., 13.,  5.],
               [ 3.,  2.,  5.,  2.]])
        """
        grams = self._formed_grams()
        G = sum(np.triu(grams[f].factor) for f in range(self.n_folds) if f != exclude)
        return G + np.triu(G, 1).T

    def _totals(self, exclude=None):
        """Gram (symmetric) and block-diagonal local matrix of every fold but ``exclude``."""
        folds = [f for f in range(self.n_folds) if f != exclude]
        D = _block_diagonal(self.local[folds].sum(axis=0))
        return self.gram(exclude), D, int(self._counts[folds].sum())

    def _systems(self, learning, weights, rows, exclude=None):
        """The system of every local weight, on every fold but ``exclude``: of the rows if given."""
        if rows is not None:
            kept = np.vstack([block for f, block in enumerate(rows) if f != exclude])
            return [_RowSystem(kept, self.n_columns, self.n_outputs)]
        G, D, n = self._totals(exclude)
        p, m = self.n_columns, self.n_outputs
        return [_System(G, D, n, p, m, learning, weight) for weight in weights]

    def select(
        self, learning, *, local_weight="auto", alpha="auto", toward_mean=True, decomposition="auto"
    ):
        """Choose the local weight and the ridge by cross-validation, and fit on every row.

        Parameters
        ----------
        learning : {"global", "local", "combined"}
            The objective (see the module docstring).
        local_weight : "auto" or float > 0, default="auto"
            Weight of the local term of combined learning; ``"auto"`` chooses
            it on :data:`LOCAL_WEIGHTS`. Unused otherwise.
        alpha : "auto" or float >= 0, default="auto"
            Ridge penalty; ``"auto"`` chooses it on 25 values from ``1e-10``
            to ``1e2`` times the mean eigenvalue of the system's matrix.
        toward_mean : bool, default=True
            Shrink toward the coefficients that best reproduce each output's
            mean (a weighted sum of rules has no constant of its own).
        decomposition : {"auto", "gram"}, default="auto"
            How each system is diagonalised. ``"gram"``: the
            eigendecomposition of its ``(n_columns, n_columns)`` matrix.
            ``"auto"``: with global learning on at most half as many rows as
            columns (kept as ``design_rows``), the rows themselves instead:
            the singular value decomposition of ``K``, at a cost of ``rows^2 x
            columns`` rather than ``columns^3``, and the held-out errors
            summed over the held-out rows. The two agree to rounding:
            the directions that the rows do not span add nothing to any
            solution (the eigendecomposition gives them eigenvalues of the
            order of the rounding instead of 0).

        Returns
        -------
        LearningSelection
        """
        check_option(learning, "learning", LEARNING)
        check_option(decomposition, "decomposition", ("auto", "gram"))
        rows = self.design_rows
        if decomposition == "gram" or learning != "global" or rows is None:
            rows = None
        if learning == "combined":
            weights = LOCAL_WEIGHTS if local_weight == "auto" else np.array([local_weight])
        else:
            weights = np.array([np.nan])
        given_alpha = None if alpha == "auto" else float(alpha)
        n_samples = self.n_samples
        if n_samples == 0:
            raise ValueError("No rows have been folded in: call update(X, Y) first.")
        choose = (learning == "combined" and local_weight == "auto") or given_alpha is None
        filled = [f for f in range(self.n_folds) if self._counts[f]]
        systems = self._systems(learning, weights, rows)
        alphas = np.array([system.grid(given_alpha) for system in systems])
        errors = None
        k = j = 0
        if choose:
            if len(filled) < 2:
                raise ValueError(
                    "Choosing the local weight or alpha needs rows in at least 2 folds; got "
                    f"{n_samples} row(s) in {len(filled)} fold(s)."
                )
            squared = np.zeros(alphas.shape)
            for f in filled:
                held_out = rows[f] if rows is not None else self._formed_grams()[f].gram()
                for i, system in enumerate(self._systems(learning, weights, rows, exclude=f)):
                    # the same relative grid point in every fold
                    grid = system.grid(given_alpha)
                    squared[i] += system.held_out_squares(grid, held_out, toward_mean)
            errors = squared / (n_samples * self.n_outputs)
            k, j = best_index(errors)
        chosen_weight, chosen_alpha, system = weights[k], float(alphas[k, j]), systems[k]
        prior = system.mean_prior() if toward_mean else None
        gamma = system.solve(np.array([chosen_alpha]), prior)
        return LearningSelection(
            learning=learning,
            local_weight=float(chosen_weight) if learning == "combined" else None,
            alpha=chosen_alpha,
            local_weights=weights,
            alphas=alphas,
            errors=errors,
            coefficients=gamma[:, 0, :],
            prior=prior,
            criterion="cv" if choose else "fixed",
        )


class _System:
    """``(g K^T K + l D + alpha I) Gamma = (g + l) K^T Y`` for every ``alpha`` of a grid.

    From the Gram matrix ``G`` of ``[K Y 1]`` (symmetric), or of ``[K Y]``
    when no prior toward the mean is asked for.
    """

    def __init__(self, G, D, n_samples, n_columns, n_outputs, learning, local_weight):
        p, m = n_columns, n_outputs
        on_model, on_rules = learning_terms(learning, local_weight)
        self.G, self.p, self.m, self.n = G, p, m, n_samples
        self.B = on_model * G[:p, :p] + on_rules * D
        self.total = on_model + on_rules
        self.rhs = self.total * G[:p, p : p + m]
        eigenvalues, self.V = scipy.linalg.eigh(self.B, check_finite=False, driver="evd")
        self._diagonalised(eigenvalues, float(np.trace(self.B)))

    def _diagonalised(self, eigenvalues, trace):
        """Set the eigenvalues (ascending, ``V`` their vectors), the grid and the rank cut."""
        self.eigenvalues = np.maximum(eigenvalues, 0.0)
        self.scale, self.relative_grid = ridge_grid(trace / self.p)
        # numpy.linalg.lstsq's rank cut, for alpha = 0
        top = self.eigenvalues[-1] if self.eigenvalues.size else 0.0
        self.above = self.eigenvalues > max(self.n, self.p) * np.finfo(float).eps * top

    def grid(self, alpha):
        return self.relative_grid if alpha is None else np.array([alpha])

    def _inverse(self, alphas):  # (rank, n_alphas); alpha = 0 is the pseudo-inverse
        shifted = self.eigenvalues[:, None] + alphas[None, :]
        with np.errstate(divide="ignore"):
            inverse = np.where(shifted > 0, 1.0 / shifted, 0.0)
        inverse[~self.above[:, None] & (alphas[None, :] == 0)] = 0.0
        return inverse

    def mean_prior(self):
        """The coefficients that best reproduce each output's mean (:func:`~randomts.fitting.ridge.mean_prior`)."""
        p, m, n = self.p, self.m, max(self.n, 1)
        G = self.G
        y_mean = G[p : p + m, p + m] / n
        y_std = np.sqrt(np.maximum(np.diagonal(G[p : p + m, p : p + m]) / n - y_mean**2, 0.0))
        z_one = self.V.T @ (self.total * G[:p, p + m])
        return self.V @ mean_prior(self.eigenvalues, z_one, y_mean, y_std, self.scale)

    def solve(self, alphas, prior=None):
        """``Gamma`` at every ``alpha``, shape (n_columns, n_alphas, n_outputs), shrunk to ``prior``."""
        rhs = self.rhs if prior is None else self.rhs - self.B @ prior
        return self._solved(alphas, rhs, prior)

    def _solved(self, alphas, rhs, prior):
        """``Gamma`` at every ``alpha`` from the right-hand side ``rhs`` (less ``B prior``)."""
        z = self.V.T @ rhs  # (rank, m)
        coordinates = self._inverse(alphas)[:, :, None] * z[:, None, :]
        gamma = np.einsum("pr,ram->pam", self.V, coordinates)
        return gamma if prior is None else gamma + prior[:, None, :]

    def held_out_squares(self, alphas, H, toward_mean):
        """Summed squared error on held-out rows with Gram ``H`` of ``[K Y 1]``, per alpha."""
        p, m = self.p, self.m
        gamma = self.solve(alphas, self.mean_prior() if toward_mean else None)
        flat = gamma.reshape(p, -1)
        quadratic = np.einsum("pk,pk->k", flat, H[:p, :p] @ flat).reshape(alphas.size, m)
        cross = np.einsum("pam,pm->am", gamma, H[:p, p : p + m])
        squares = quadratic - 2.0 * cross + np.diagonal(H[p : p + m, p : p + m])[None, :]
        return np.maximum(squares, 0.0).sum(axis=1)


class _RowSystem(_System):
    """``(K^T K + alpha I) Gamma = K^T Y`` of global learning, from the rows ``[K Y]`` themselves.

    For fewer rows than columns: ``K^T K`` is diagonalised by the singular
    value decomposition of ``K`` (its eigenpairs that the rows span, the
    others 0, which add nothing to a solution), and no ``(columns, columns)``
    matrix is formed.
    """

    def __init__(self, rows, n_columns, n_outputs):
        p, m = n_columns, n_outputs
        self.p, self.m, self.n, self.total = p, m, rows.shape[0], 1.0
        self.K, self.Y = rows[:, :p], rows[:, p : p + m]
        _, singular, right = thin_svd(self.K)
        self.V = right[::-1].T  # ascending, as eigh's
        self._diagonalised(singular[::-1] ** 2, float(np.sum(self.K**2)))

    def mean_prior(self):
        n = max(self.n, 1)
        y_mean = self.Y.sum(axis=0) / n
        y_std = np.sqrt(np.maximum(np.sum(self.Y**2, axis=0) / n - y_mean**2, 0.0))
        z_one = self.V.T @ self.K.sum(axis=0)
        return self.V @ mean_prior(self.eigenvalues, z_one, y_mean, y_std, self.scale)

    def solve(self, alphas, prior=None):
        residual = self.Y if prior is None else self.Y - self.K @ prior
        return self._solved(alphas, self.K.T @ residual, prior)

    def held_out_squares(self, alphas, held_out, toward_mean):
        """Summed squared error on the held-out rows ``[K Y]``, per alpha."""
        p, m = self.p, self.m
        gamma = self.solve(alphas, self.mean_prior() if toward_mean else None)
        predicted = np.einsum("np,pam->nam", held_out[:, :p], gamma)
        return np.sum((predicted - held_out[:, None, p : p + m]) ** 2, axis=(0, 2))


def solve_learning(G, D, n_samples, n_columns, n_outputs, learning, local_weight, alpha, prior):
    """``Gamma`` of one objective at one ``alpha`` from the Gram matrix ``G`` of ``[K Y]``.

    Parameters
    ----------
    G : ndarray of shape (q, q)
        Symmetric Gram matrix of ``[K Y]`` (more columns after ``Y`` are ignored).
    D : ndarray of shape (n_rules, p, p)
        The rules' local Gram matrices (:func:`local_grams`).
    n_samples, n_columns, n_outputs : int
        Rows folded in; columns of ``K`` and ``Y``.
    learning, local_weight
        The objective (:func:`learning_terms`).
    alpha : float
        Ridge penalty (0: the minimum-norm solution).
    prior : ndarray of shape (n_columns, n_outputs) or None
        Coefficients to shrink toward.

    Returns
    -------
    ndarray of shape (n_columns, n_outputs)
    """
    system = _System(G, _block_diagonal(D), n_samples, n_columns, n_outputs, learning, local_weight)
    return system.solve(np.array([float(alpha)]), prior)[:, 0, :]
