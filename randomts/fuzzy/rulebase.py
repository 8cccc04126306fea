"""The Takagi-Sugeno rule base: arrays are the source of truth.

Rule ``i`` reads

    IF x_1 is G(c_i1, sigma_i1) AND ... AND x_n is G(c_in, sigma_in)
    THEN y = A_i x + b_i

with Gaussian sets ``G(c, sigma)(x) = exp(-(x - c)^2 / (2 sigma^2))`` joined by
the product t-norm. The output is the weighted **sum** of the consequents (the
paper's Shuffled Linear Model, ``normalize=False``) or their weighted
**average** (classic Takagi-Sugeno, ``normalize=True``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from randomts._validation import (
    check_int,
    check_matrix,
    check_option,
    check_pair,
)
from randomts.core import inference, membership as _membership
from randomts.core.design import design_matrix
from randomts.core.inference import inference_constants
from randomts.core.regions import REGIONS_KEY, regions_in_units, regions_of_rules
from randomts.core.sampling import (
    PAPER_CENTER_SCALE,
    check_random_state,
    sample_centers,
    sample_rows,
    sample_widths,
    sigmas_to_widths,
    widths_to_sigmas,
)
from randomts.fuzzy._arrays import (
    check_names,
    check_range,
    checked_arrays,
    frozen,
    trusted_arrays,
)

__all__ = ["LOCK_KEY", "RANDOM_CENTERS", "Rule", "RuleBase", "as_rule_base"]

#: Where :meth:`RuleBase.random` takes centres from: two distributions, or rows of data.
RANDOM_CENTERS = ("normal", "uniform", "samples", "data")


#: Metadata key under which the formats without a lock of their own (JSON, FIS, text) keep
#: ``lock_range``.
LOCK_KEY = "lock_range"


def _same_ranges(first, second):
    """Whether two locked rule bases hold their inputs and outputs in the same ranges."""
    return np.array_equal(first.input_range, second.input_range) and np.array_equal(
        first.output_range, second.output_range
    )


@dataclass(frozen=True)
class Rule:
    """One rule of a :class:`RuleBase`, as read-only array views.

    Attributes
    ----------
    index : int
        Position of the rule in its rule base (0-based).
    center : ndarray of shape (n_features,)
        Centres of the rule's Gaussian sets.
    sigma : ndarray of shape (n_features,)
        Standard deviations of the rule's Gaussian sets.
    coef : ndarray of shape (n_outputs, n_features)
        Linear consequent coefficients ``A_i``.
    intercept : ndarray of shape (n_outputs,)
        Consequent constants ``b_i``.

    Examples
    --------
    >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]], intercept=[[2.0]])
    >>> rule = rb[0]
    >>> rule.index, rule.center, rule.intercept
    (0, array([0.]), array([2.]))
    """

    index: int
    center: np.ndarray
    sigma: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray


class RuleBase:
    """A Takagi-Sugeno rule base with Gaussian antecedents and linear consequents.

    Parameters
    ----------
    centers : array-like of shape (n_rules, n_features)
        Centre ``c_ik`` of the Gaussian set of input ``k`` in rule ``i``.
    sigmas : array-like of shape (n_rules, n_features)
        Standard deviation ``sigma_ik > 0`` of that set; the membership is
        ``exp(-(x_k - c_ik)^2 / (2 sigma_ik^2))`` (scikit-fuzzy's ``gaussmf``).
    coef : array-like of shape (n_rules, n_outputs, n_features), optional
        Linear consequent coefficients ``A_i``; zeros (a zero-order,
        constant-consequent model) when omitted.
    intercept : array-like of shape (n_rules, n_outputs), optional
        Consequent constants ``b_i``; zeros when omitted.
    normalize : bool, default=False
        False: the output is the weighted sum ``sum_i w_i(x) (A_i x + b_i)``
        (the paper's SLM). True: the weighted average
        ``sum_i w_i (A_i x + b_i) / sum_i w_i`` (classic Takagi-Sugeno).
    input_names, output_names : sequence of str, optional
        Variable names; default ``x1..xn`` and ``y`` (or ``y1..ym``).
    n_outputs : int, optional
        Number of outputs when neither ``coef`` nor ``intercept`` is given
        (default 1).
    metadata : dict, optional
        How the rule base was made (seed, distributions, ...), kept for
        export; never used in computation. The keys ``"input_range"`` and
        ``"output_range"``, if present and the arguments of those names are
        not given, are taken as those arguments (that is how JSON files keep
        them) and leave the dict.
    input_range : array-like of shape (n_features, 2), optional
        ``[low, high]`` of each input in the data the rules were fitted on
        (:meth:`fit_consequents` and the estimator record it). Read by
        text (linguistic labels), plots (default ranges) and file formats
        (FIS and FLL variable ranges); by inference only with ``lock_range``.
    output_range : array-like of shape (n_outputs, 2), optional
        ``[low, high]`` of each output in that data.
    lock_range : bool, default=False
        True: inference holds every input in ``input_range`` before it
        evaluates the rules, and every output in ``output_range`` after
        (fuzzylite's ``lock-range`` on every variable). Beyond the data the
        model then stays at its value on the data's edge instead of
        following the outermost rules' lines. Needs both ranges. Fitting
        (:meth:`design_matrix`, :meth:`fit_consequents`) takes rows as
        they are.
    check_input : bool, default=True
        False for arrays that randomts made (the fits of the consequents and
        the estimators): finite float64 arrays of matching shapes and
        widths above ``randomts.core.membership.SMALLEST_WIDTH`` are
        taken as they are, unchecked, as scikit-learn's ``check_input=False``.

    Attributes
    ----------
    n_rules, n_features, n_outputs : int
        Sizes.
    order : int
        0 if every consequent is constant (``coef == 0``), else 1.

    Notes
    -----
    Two rule bases are equal (``==``) when their arrays, names and mode are;
    ``metadata`` and the recorded ranges are descriptions, not part of the model,
    unless ``lock_range`` is True (then the ranges are part of it).

    Examples
    --------
    >>> import numpy as np
    >>> rb = RuleBase(centers=[[0.0], [2.0]], sigmas=[[1.0], [1.0]],
    ...               coef=[[[1.0]], [[0.0]]], intercept=[[0.0], [5.0]])
    >>> len(rb), rb.n_features, rb.n_outputs, rb.order
    (2, 1, 1, 1)
    >>> x = np.array([[1.0]])
    >>> w = np.exp(-0.5 * (x - np.array([0.0, 2.0])) ** 2)
    >>> bool(np.isclose(rb.predict(x)[0, 0], w[0, 0] * 1.0 + w[0, 1] * 5.0))
    True
    """

    def __init__(
        self,
        centers,
        sigmas,
        coef=None,
        intercept=None,
        *,
        normalize=False,
        input_names=None,
        output_names=None,
        n_outputs=None,
        metadata=None,
        input_range=None,
        output_range=None,
        lock_range=False,
        check_input=True,
    ):
        if check_input:
            centers, sigmas, coef, intercept, n_outputs = checked_arrays(
                centers, sigmas, coef, intercept, n_outputs, normalize
            )
        else:  # arrays of the right shapes, made by randomts
            centers, sigmas, coef, intercept, n_outputs = trusted_arrays(
                centers, sigmas, coef, intercept, n_outputs
            )
        n_features = centers.shape[1]
        self._centers = frozen(centers)
        self._sigmas = frozen(sigmas)
        self._coef = frozen(coef)
        self._intercept = frozen(intercept)
        self._normalize = bool(normalize)
        self._input_names = check_names(input_names, n_features, "x", "input_names")
        self._output_names = check_names(output_names, n_outputs, "y", "output_names")
        self._metadata = dict(metadata) if metadata else {}
        # ranges recorded in metadata (JSON files) become the attributes; given ones win
        recorded_input = self._metadata.pop("input_range", None)
        recorded_output = self._metadata.pop("output_range", None)
        self._input_range = check_range(
            recorded_input if input_range is None else input_range, n_features, "input_range"
        )
        self._output_range = check_range(
            recorded_output if output_range is None else output_range, n_outputs, "output_range"
        )
        self._lock_range = False
        self._lock(lock_range)

    def _lock(self, lock_range):
        """Set :attr:`lock_range`, checking that both ranges are there to hold to."""
        if not isinstance(lock_range, (bool, np.bool_)):
            raise TypeError(
                f"The 'lock_range' parameter of RuleBase must be a bool; got {lock_range!r}."
            )
        if lock_range and (self._input_range is None or self._output_range is None):
            missing = "input_range" if self._input_range is None else "output_range"
            raise ValueError(
                "The 'lock_range' parameter of RuleBase can be True only with input_range and "
                f"output_range, the ranges inputs and outputs are held in; got {missing}=None."
            )
        self._lock_range = bool(lock_range)

    # ------------------------------------------------------------------ sizes
    centers = property(lambda self: self._centers, doc="ndarray (n_rules, n_features): centres.")
    sigmas = property(lambda self: self._sigmas, doc="ndarray (n_rules, n_features): widths.")
    coef = property(
        lambda self: self._coef, doc="ndarray (n_rules, n_outputs, n_features): consequent slopes."
    )
    intercept = property(
        lambda self: self._intercept, doc="ndarray (n_rules, n_outputs): consequent constants."
    )
    normalize = property(lambda self: self._normalize, doc="bool: weighted average if True.")
    input_names = property(lambda self: self._input_names, doc="tuple of str: input names.")
    output_names = property(lambda self: self._output_names, doc="tuple of str: output names.")
    metadata = property(lambda self: dict(self._metadata), doc="dict: provenance (a copy).")
    input_range = property(
        lambda self: self._input_range,
        doc="ndarray (n_features, 2) or None: ``[low, high]`` of each input in the training data.",
    )
    output_range = property(
        lambda self: self._output_range,
        doc="ndarray (n_outputs, 2) or None: ``[low, high]`` of each output in the training data.",
    )
    lock_range = property(
        lambda self: self._lock_range,
        doc="bool: inference holds inputs in ``input_range`` and outputs in ``output_range``.",
    )

    @property
    def n_rules(self) -> int:
        """Number of rules."""
        return self._centers.shape[0]

    @property
    def n_features(self) -> int:
        """Number of inputs."""
        return self._centers.shape[1]

    @property
    def n_outputs(self) -> int:
        """Number of outputs."""
        return self._intercept.shape[1]

    @property
    def order(self) -> int:
        """0 for constant consequents (``coef == 0``), 1 for linear ones."""
        return int(bool(np.any(self._coef)))

    @cached_property
    def _inference_constants(self):
        """The kernel's constants (:func:`randomts.core.inference.inference_constants`), once."""
        return inference_constants(self._coef, self._intercept, self._sigmas)

    def __len__(self) -> int:
        return self.n_rules

    def __getitem__(self, index) -> Rule:
        index = check_int(index, "index")
        if not -self.n_rules <= index < self.n_rules:
            raise IndexError(
                f"Rule index {index} is out of range for a rule base of {self.n_rules} rules."
            )
        index %= self.n_rules
        return Rule(
            index=index,
            center=self._centers[index],
            sigma=self._sigmas[index],
            coef=self._coef[index],
            intercept=self._intercept[index],
        )

    def __iter__(self) -> Iterator[Rule]:
        return (self[i] for i in range(self.n_rules))

    def __eq__(self, other):
        if not isinstance(other, RuleBase):
            return NotImplemented
        return (
            self._normalize == other._normalize
            and self._lock_range == other._lock_range
            and (not self._lock_range or _same_ranges(self, other))
            and self._input_names == other._input_names
            and self._output_names == other._output_names
            and all(
                np.array_equal(getattr(self, name), getattr(other, name))
                for name in ("_centers", "_sigmas", "_coef", "_intercept")
            )
        )

    __hash__ = None  # mutable-looking container semantics: equal by value, not hashable

    def __getstate__(self):
        """The defining arrays, names and metadata (not the caches), for pickle and copy."""
        cls = type(self)
        return {
            key: value
            for key, value in self.__dict__.items()
            if not isinstance(getattr(cls, key, None), cached_property)
        }

    def __setstate__(self, state):
        """Restore :meth:`__getstate__`'s state, with the arrays read-only again."""
        self.__dict__.update(state)
        self.__dict__.setdefault("_lock_range", False)  # pickled before the attribute existed
        for key in ("_centers", "_sigmas", "_coef", "_intercept"):
            if key in state:
                setattr(self, key, frozen(state[key]))

    def __repr__(self) -> str:
        mode = "weighted average" if self._normalize else "weighted sum"
        if self._lock_range:
            mode += ", range locked"
        return (
            f"RuleBase(n_rules={self.n_rules}, n_features={self.n_features}, "
            f"n_outputs={self.n_outputs}, order={self.order}, {mode})"
        )

    def __str__(self) -> str:
        return self.to_text()

    # ----------------------------------------------------------- construction
    def replace(self, *, check_input=True, **changes) -> RuleBase:
        """A copy with some constructor arguments replaced.

        The recorded ranges and ``lock_range`` are kept unless replaced,
        except a range whose number of variables no longer matches (it is
        dropped, and the lock with it). New centres
        or widths without new ``metadata`` drop the regions the rules were
        grown in (:mod:`randomts.core.regions`), which described the old
        sets. With ``check_input=False`` the arrays given are taken as they
        are (see the class).

        Examples
        --------
        >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]], input_range=[[-2.0, 3.0]])
        >>> new = rb.replace(normalize=True)
        >>> new.normalize, new.input_range
        (True, array([[-2.,  3.]]))
        """
        arguments = dict(
            centers=self._centers,
            sigmas=self._sigmas,
            coef=self._coef,
            intercept=self._intercept,
            normalize=self._normalize,
            input_names=self._input_names,
            output_names=self._output_names,
            metadata=self._metadata,
            input_range=None,
            output_range=None,
            lock_range=self._lock_range,
        )
        unknown = set(changes) - set(arguments)
        if unknown:
            raise TypeError(
                f"RuleBase.replace got unknown argument(s) {sorted(unknown)}; "
                f"allowed: {sorted(arguments)}."
            )
        arguments.update(changes)
        if ("centers" in changes or "sigmas" in changes) and "metadata" not in changes:
            # the regions the rules were grown in describe the old sets, not these
            arguments["metadata"] = {k: v for k, v in self._metadata.items() if k != REGIONS_KEY}
        if "coef" in changes or "intercept" in changes:
            arguments["n_outputs"] = None
        lock_range = arguments.pop("lock_range")
        new = RuleBase(**arguments, check_input=check_input)
        for name, count in (("input_range", new.n_features), ("output_range", new.n_outputs)):
            kept = getattr(self, name)
            if (
                name not in changes
                and getattr(new, name) is None
                and kept is not None
                and (kept.shape[0] == count)
            ):
                setattr(new, f"_{name}", kept)
        if "lock_range" not in changes and (new.input_range is None or new.output_range is None):
            lock_range = False  # the ranges were dropped, and the lock with them
        new._lock(lock_range)
        return new

    def subset(self, rules) -> RuleBase:
        """The rule base made of the given rules, in the given order.

        Parameters
        ----------
        rules : array-like of int or of bool
            Rule indices, or a boolean mask of length ``n_rules``.

        Examples
        --------
        >>> rb = RuleBase.random(n_features=2, n_rules=5, random_state=0)
        >>> len(rb.subset([0, 3]))
        2
        """
        index = np.asarray(rules)
        if index.dtype == bool:
            if index.shape != (self.n_rules,):
                raise ValueError(
                    f"A boolean rule mask must have shape ({self.n_rules},); got {index.shape}."
                )
            index = np.flatnonzero(index)
        if index.ndim != 1 or index.size == 0 or not np.issubdtype(index.dtype, np.integer):
            raise ValueError(f"rules must be a non-empty 1-D array of rule indices; got {rules!r}.")
        if index.min() < -self.n_rules or index.max() >= self.n_rules:
            raise IndexError(f"Rule indices must lie in [0, {self.n_rules}); got {index.tolist()}.")
        return self.replace(
            centers=self._centers[index],
            sigmas=self._sigmas[index],
            coef=self._coef[index],
            intercept=self._intercept[index],
            metadata=regions_of_rules(self._metadata, index),
        )

    @classmethod
    def random(
        cls,
        n_features,
        n_outputs=1,
        n_rules=100,
        *,
        centers="normal",
        center_scale=PAPER_CENTER_SCALE,
        center_bounds=None,
        width_range=(0.0, 1.0),
        normalize=False,
        input_names=None,
        output_names=None,
        data=None,
        random_state=None,
        check_input=True,
    ) -> RuleBase:
        """Random antecedents with zero consequents, drawn as in the paper.

        Centres ``a_i ~ N(0, center_scale**2)`` per coordinate (default variance
        2), uniform over ``center_bounds``, or taken from ``data``; RBF widths
        ``b_i ~ U(width_range]`` (default ``U(0, 1)``), turned into
        ``sigma_i = 1/sqrt(2 b_i)`` on every input. Centres are drawn first,
        then widths, from one generator.

        Parameters
        ----------
        n_features : int
            Number of inputs.
        n_outputs : int, default=1
            Number of outputs.
        n_rules : int, default=100
            Number of rules.
        centers : {"normal", "uniform", "samples", "data"}, default="normal"
            Centre distribution: normal, uniform over ``center_bounds``, rows
            of ``data`` drawn at random (:func:`~randomts.core.sampling.sample_rows`),
            or uniform over the bounding box of ``data`` (an input that is
            constant in ``data`` gets a box of width 1 around its value).
        center_scale : float or array-like, default=sqrt(2)
            Standard deviation of the normal centre distribution.
        center_bounds : (low, high), optional
            Box of the uniform centre distribution.
        width_range : (float, float), default=(0.0, 1.0)
            Interval of the uniform distribution of ``b_i``.
        normalize : bool, default=False
            Weighted average (True) or weighted sum (False).
        input_names, output_names : sequence of str, optional
            Variable names.
        data : array-like of shape (n_samples, n_features), optional
            Rows for ``centers="samples"`` or ``"data"``; anything with a
            ``shape`` and NumPy-style indexing and reductions (a dask array,
            say) is read only where needed.
        random_state : int, RandomState, Generator or None
            Seed; the same seed gives the same rule base, bit for bit.
        check_input : bool, default=True
            False when ``data`` is a checked (finite float64) array: the
            drawn arrays are then taken as they are.

        Returns
        -------
        RuleBase

        Examples
        --------
        >>> rb = RuleBase.random(n_features=2, n_outputs=1, n_rules=3, random_state=0)
        >>> rb.centers.shape, rb.order
        ((3, 2), 0)
        >>> rb == RuleBase.random(n_features=2, n_outputs=1, n_rules=3, random_state=0)
        True
        >>> X = np.random.default_rng(0).normal(size=(50, 2))
        >>> rb = RuleBase.random(2, n_rules=4, centers="samples", data=X, random_state=0)
        >>> all(any((center == X).all(axis=1)) for center in rb.centers)
        True
        """
        rng = check_random_state(random_state)
        low_high = check_pair(width_range, "width_range")
        check_option(centers, "centers", RANDOM_CENTERS)
        if centers in ("samples", "data"):
            if data is None:
                raise ValueError(f"centers={centers!r} needs the rows to draw from: give data=.")
            if not hasattr(data, "shape"):
                data = np.asarray(data, dtype=float)
            if len(data.shape) != 2 or data.shape[1] != n_features:
                raise ValueError(
                    f"data must be a 2-D array of rows with n_features={n_features} columns; "
                    f"got shape {tuple(data.shape)}."
                )
        if centers == "samples":
            a = sample_rows(n_rules, data, random_state=rng)
        else:
            if centers == "data":
                low = np.asarray(data.min(axis=0), dtype=float)
                high = np.asarray(data.max(axis=0), dtype=float)
                flat = high - low <= 0
                center_bounds = (np.where(flat, low - 0.5, low), np.where(flat, high + 0.5, high))
            a = sample_centers(
                n_rules,
                n_features,
                distribution="uniform" if centers == "data" else centers,
                scale=center_scale,
                bounds=center_bounds,
                random_state=rng,
            )
        b = sample_widths(n_rules, low=low_high[0], high=low_high[1], random_state=rng)
        return cls(
            a,
            widths_to_sigmas(b, a.shape[1]),
            n_outputs=n_outputs,
            normalize=normalize,
            input_names=input_names,
            output_names=output_names,
            check_input=check_input,
        )

    @classmethod
    def from_slm(cls, a, b, alpha=None, beta=None, *, normalize=False, **names) -> RuleBase:
        """The rule base of the paper's SLM parameters.

        ``SLM(x) = sum_i exp(-b_i ||x - a_i||^2) (alpha_i x + beta_i)``.

        Parameters
        ----------
        a : array-like of shape (n_rules, n_features)
            Centres.
        b : array-like of shape (n_rules,)
            RBF widths, all > 0.
        alpha : array-like of shape (n_rules, n_outputs, n_features), optional
            Linear-model matrices; zeros (an ELM) when omitted.
        beta : array-like of shape (n_rules, n_outputs), optional
            Linear-model offsets; zeros when omitted.
        normalize : bool, default=False
            Weighted average instead of the paper's weighted sum.
        **names
            ``input_names``, ``output_names``.

        Examples
        --------
        >>> rb = RuleBase.from_slm(a=[[0.0, 0.0]], b=[0.5], beta=[[1.0]])
        >>> rb.sigmas
        array([[1., 1.]])
        """
        a = check_matrix(a, "a", owner="RuleBase.from_slm")
        b = check_matrix(b, "b", ndim=1, owner="RuleBase.from_slm")
        if b.shape != (a.shape[0],):
            raise ValueError(f"b must have shape (n_rules,) = ({a.shape[0]},); got {b.shape}.")
        if np.any(b <= 0):
            i = int(np.argmax(b <= 0))
            raise ValueError(f"b must all be > 0; got b[{i}] = {float(b[i])!r}.")
        return cls(a, widths_to_sigmas(b, a.shape[1]), alpha, beta, normalize=normalize, **names)

    def to_slm(self):
        """The paper's parameters ``(a, b, alpha, beta)`` of this rule base.

        Raises
        ------
        ValueError
            If a rule has different widths on different inputs.

        Examples
        --------
        >>> rb = RuleBase.from_slm(a=[[1.0, 2.0]], b=[0.5], beta=[[3.0]])
        >>> a, b, alpha, beta = rb.to_slm()
        >>> a, b, beta
        (array([[1., 2.]]), array([0.5]), array([[3.]]))
        """
        return (
            self._centers.copy(),
            sigmas_to_widths(self._sigmas),
            self._coef.copy(),
            self._intercept.copy(),
        )

    def output_bounds(self):
        """Per output, an upper bound of what :meth:`predict` sums, and the numbers behind it.

        Over the declared input ranges (without them, the box of the rules'
        centres), every rule's firing strength is at most 1 and its output at
        most ``|intercept| + sum_k |coef_k| max|x_k|``: the bound is the sum
        over the rules, ``inf`` where that overflows. Returns a list of
        ``(bound, numbers)``, ``numbers`` being the consequent of the rule
        whose term is largest. (See :meth:`FuzzySystem.output_bounds
        <randomts.FuzzySystem.output_bounds>`.)

        Examples
        --------
        >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]], coef=[[[2.0]]], intercept=[[1.0]],
        ...               input_range=[[-3.0, 3.0]])
        >>> rb.output_bounds()
        [(7.0, (1.0, 2.0))]
        """
        region = self.input_range if self.input_range is not None else self._centers
        box = np.max(np.abs(region), axis=0 if self.input_range is None else 1)
        with np.errstate(over="ignore"):
            parts = np.abs(self._intercept) + np.abs(self._coef) @ box  # (n_rules, n_outputs)
            totals = parts.sum(axis=0)
        bounds = []
        for m in range(self.n_outputs):
            i = int(np.argmax(parts[:, m]))
            numbers = (float(self._intercept[i, m]), *self._coef[i, m].tolist())
            bounds.append((float(totals[m]), numbers))
        return bounds

    def in_original_units(self, mean, scale, *, check_input=True) -> RuleBase:
        """Re-express a rule base fitted on standardised inputs in the data's units.

        If this rule base maps ``u = (x - mean) / scale`` to ``y``, the returned
        one maps ``x`` to the same ``y``: centres ``c * scale + mean``, widths
        ``sigma * scale``, slopes ``A / scale`` and constants
        ``b - A (mean / scale)``. Memberships, firing strengths and outputs
        are unchanged (up to rounding); a recorded :attr:`input_range`, and
        the regions of grown rules (:mod:`randomts.core.regions`), are mapped
        to ``value * scale + mean``.

        Parameters
        ----------
        mean, scale : array-like of shape (n_features,)
            The standardisation; ``scale > 0``.
        check_input : bool, default=True
            False for a standardisation randomts computed (float64 arrays,
            ``scale > 0``), taken as it is.

        Examples
        --------
        >>> import numpy as np
        >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]], coef=[[[2.0]]], intercept=[[1.0]])
        >>> orig = rb.in_original_units(mean=[10.0], scale=[4.0])
        >>> x = np.array([[14.0]])
        >>> bool(np.allclose(orig.predict(x), rb.predict((x - 10.0) / 4.0)))
        True
        """
        if check_input:
            owner = "this rule base"
            mean = check_matrix(mean, "mean", ndim=1, n_columns=self.n_features, owner=owner)
            scale = check_matrix(scale, "scale", ndim=1, n_columns=self.n_features, owner=owner)
            if np.any(scale <= 0):
                raise ValueError(f"scale must be > 0 on every feature; got {scale.tolist()}.")
        coef = self._coef / scale
        input_range = None
        if self._input_range is not None:
            input_range = self._input_range * scale[:, None] + mean[:, None]
        return self.replace(
            centers=self._centers * scale + mean,
            sigmas=self._sigmas * scale,
            coef=coef,
            intercept=self._intercept - coef @ mean,
            input_range=input_range,
            metadata=regions_in_units(self._metadata, mean, scale),
            check_input=check_input,
        )

    # -------------------------------------------------------------- inference
    def _check_X(self, X):
        """Checked rows, held in ``input_range`` when :attr:`lock_range` is True."""
        return self._held(check_matrix(X, "X", n_columns=self.n_features, owner="this rule base"))

    def _held(self, X):
        """Checked rows as inference sees them: each input clipped to its range when locked."""
        if not self._lock_range:
            return X
        return np.clip(X, self._input_range[:, 0], self._input_range[:, 1])

    def memberships(self, X) -> np.ndarray:
        """Membership grade of each input in each rule's Gaussian set (``gaussmf``, to rounding).

        Returns
        -------
        ndarray of shape (n_samples, n_rules, n_features)

        Examples
        --------
        >>> rb = RuleBase(centers=[[0.0, 0.0]], sigmas=[[1.0, 1.0]])
        >>> rb.memberships([[0.0, 0.0]])
        array([[[1., 1.]]])
        """
        X = self._check_X(X)
        return _membership.gaussian_memberships(X, self._centers, self._sigmas)

    def log_firing_strengths(self, X) -> np.ndarray:
        """Log of each rule's product-t-norm firing strength, shape (n_samples, n_rules).

        Examples
        --------
        >>> rb = RuleBase(centers=[[0.0, 0.0]], sigmas=[[1.0, 1.0]])
        >>> rb.log_firing_strengths([[1.0, 1.0]])
        array([[-1.]])
        """
        X = self._check_X(X)
        return _membership.log_firing_strengths(X, self._centers, self._sigmas)

    def firing_strengths(self, X, *, normalize=None) -> np.ndarray:
        """Firing strength of every rule, raw or normalised.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.
        normalize : bool, optional
            Normalise to sum one per sample; defaults to :attr:`normalize`.

        Returns
        -------
        ndarray of shape (n_samples, n_rules)

        Examples
        --------
        >>> rb = RuleBase(centers=[[0.0], [1.0]], sigmas=[[1.0], [1.0]])
        >>> rb.firing_strengths([[0.5]], normalize=True)
        array([[0.5, 0.5]])
        """
        X = self._check_X(X)
        if normalize is None:
            normalize = self._normalize
        return _membership.firing_strengths(X, self._centers, self._sigmas, normalize=normalize)

    def rule_outputs(self, X) -> np.ndarray:
        """Each rule's consequent ``A_i x + b_i``, shape (n_samples, n_rules, n_outputs).

        Examples
        --------
        >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]], coef=[[[2.0]]], intercept=[[1.0]])
        >>> rb.rule_outputs([[3.0]])
        array([[[7.]]])
        """
        X = self._check_X(X)
        return np.einsum("imk,jk->jim", self._coef, X) + self._intercept[None, :, :]

    def contributions(self, X) -> np.ndarray:
        """Each rule's share of the output, ``w_i(x) (A_i x + b_i)``.

        The shares sum over rules to :meth:`predict` (with normalised ``w``
        when :attr:`normalize` is True).

        Returns
        -------
        ndarray of shape (n_samples, n_rules, n_outputs)

        Examples
        --------
        >>> import numpy as np
        >>> rb = RuleBase.random(n_features=2, n_rules=4, random_state=0).replace(
        ...     intercept=np.arange(4.0).reshape(4, 1))
        >>> X = np.array([[0.1, 0.2]])
        >>> bool(np.allclose(rb.contributions(X).sum(axis=1), rb.predict(X)))
        True
        """
        X = self._check_X(X)
        return self.firing_strengths(X)[:, :, None] * self.rule_outputs(X)

    def predict(self, X, *, n_jobs=None, check_input=True) -> np.ndarray:
        """Takagi-Sugeno inference: the output for every row of ``X``.

        Computed in row chunks without forming the design matrix: memory is
        ``O(chunk * n_rules)`` whatever ``n_samples``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs, finite.
        n_jobs : int, optional
            Threads computing blocks of rows at once (default one; see
            ``randomts._threads.effective_n_jobs``). The output does not
            depend on it.
        check_input : bool, default=True
            False for rows already checked: a finite float64 matrix of
            ``n_features`` columns.

        Returns
        -------
        ndarray of shape (n_samples, n_outputs)

        Examples
        --------
        >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]], intercept=[[3.0]])
        >>> rb.predict([[0.0], [100.0]])
        array([[3.],
               [0.]])
        """
        X = self._check_X(X) if check_input else self._held(X)
        Y = inference.predict(
            X,
            self._centers,
            self._sigmas,
            self._inference_constants,
            normalize=self._normalize,
            n_jobs=n_jobs,
        )
        if self._lock_range:
            np.clip(Y, self._output_range[:, 0], self._output_range[:, 1], out=Y)
        return Y

    def design_matrix(self, X, *, order=1) -> np.ndarray:
        """The paper's block matrix ``K`` of this rule base's antecedents on ``X``.

        Examples
        --------
        >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]])
        >>> rb.design_matrix([[0.0]])
        array([[0., 1.]])
        """
        X = check_matrix(X, "X", n_columns=self.n_features, owner="this rule base")
        firing = _membership.firing_strengths(
            X, self._centers, self._sigmas, normalize=self._normalize
        )
        return design_matrix(firing, X, order=order)

    def fit_consequents(
        self,
        X,
        Y,
        *,
        order=1,
        solver="lstsq",
        alpha=0.0,
        learning="global",
        local_weight="auto",
        folds=None,
        n_jobs=None,
    ) -> RuleBase:
        """Fit the consequents of these antecedents to data, in one shot.

        Solves ``Gamma = K^+ Y`` (or its ridge version) and returns a new rule
        base with the same antecedents and the fitted consequents: this is
        :func:`randomts.fitting.consequents.fit_consequents` on this rule base.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.
        Y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Targets; 1-D means one output.
        order : {0, 1}, default=1
            0: constant consequents (an ELM with RBF nodes); 1: linear.
        solver : {"lstsq", "pinv", "cholesky"}, default="lstsq"
            See :mod:`randomts.core.solvers`.
        alpha : "auto" or float, default=0.0
            Ridge penalty; ``"auto"`` chooses it by exact leave-one-out error,
            as :class:`~randomts.RandomTSRegressor` does, and records it in the
            result's ``metadata["alpha"]``.
        learning : {"global", "local", "combined"}, default="global"
            Fit the model's output (global), each rule to the data under it
            (local), or both (combined); see
            :func:`randomts.fitting.consequents.fit_consequents`.
        local_weight : "auto" or float > 0, default="auto"
            Weight of the local term of combined learning.
        folds : array-like of int, optional
            Fold of each row for the cross-validated choices.
        n_jobs : int, optional
            Threads folding stripes of rows at once (default one; see
            ``randomts._threads.effective_n_jobs``). The result does not
            depend on it.

        Returns
        -------
        RuleBase
            With :attr:`input_range` and :attr:`output_range` those of ``X`` and ``Y``.

        Raises
        ------
        ValueError
            If no rule fires on any row (every firing strength is 0).
        MemoryError
            Before allocating, if the least-squares factor cannot fit in memory.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> X = rng.uniform(-1, 1, size=(50, 2)); y = 3 * X[:, 0] - X[:, 1] + 0.5
        >>> antecedents = RuleBase.random(n_features=2, n_rules=5, normalize=True, random_state=0)
        >>> rb = antecedents.fit_consequents(X, y)
        >>> bool(np.max(np.abs(rb.predict([[0.3, -0.7]])[0, 0] - 2.1)) < 1e-12)
        True
        """
        from randomts.fitting.consequents import fit_consequents

        return fit_consequents(
            self,
            X,
            Y,
            order=order,
            alpha=alpha,
            solver=solver,
            learning=learning,
            local_weight=local_weight,
            folds=folds,
            n_jobs=n_jobs,
        )

    # ------------------------------------------------------------------- text
    def to_text(self, precision=4, *, labels=None, centered=True, X=None, y=None, top=None) -> str:
        """The rules as text for people (:func:`randomts.text.rule_base.describe_rules`).

        Parameters
        ----------
        precision : int or None, default=4
            Significant digits of the readable text; None writes every digit.
        labels : bool or int, optional
            Linguistic labels (``low``, ``medium``, ``high``, ...) from each
            centre's place in the input's range (see :func:`randomts.text.rule_base.linguistic_labels`).
        centered : bool, default=True
            Consequents as the rule's output at its own centre plus
            ``slope·(x - c)`` terms; False for the constant at x = 0.
        X : array-like of shape (n_samples, n_features), optional
            Data: list the rules by importance on ``X``, most important first.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs), optional
            With ``X``, the targets: beside each equation, the model's
            prediction and the data's value at the rule's centre, and ``!``
            where the rule disagrees with them or is wider than the data
            (:func:`randomts.analysis.on_data.rules_on_data`).
        top : int, optional
            With ``X``: only the ``top`` most important rules.

        See Also
        --------
        randomts.text.rule_base.describe_rules : the readable text, with all its options.
        randomts.io.text_format.format_rules : the lossless TXT format, which ``load`` reads.

        Examples
        --------
        >>> rb = RuleBase(centers=[[1.0]], sigmas=[[1.0 / 3.0]], coef=[[[2.0]]], intercept=[[1.0]])
        >>> print(rb.to_text())
        # Takagi-Sugeno rule base: 1 rules, inputs (x1), outputs (y)
        # x is about c (±s): exp(-(x - c)^2 / (2 s^2)); AND = product; output = weighted sum
        # equations: the rule's output at its centre + slope·(x - c) + ...
        # weighted sum: a THEN part is its rule's term of the sum over the rules, not the model's output where the rule fires
        R1: IF x1 is about 1 (±0.3333) THEN y = 3 + 2·(x1 - 1)
        """
        from randomts.analysis.on_data import rules_on_data
        from randomts.text.rule_base import describe_rules

        on_data = rules_on_data(self, X, y, top=top)
        return describe_rules(
            self, precision, labels=labels, centered=centered, on_data=on_data, top=top
        )

    def _repr_html_(self) -> str:
        """The rules as a compact HTML table, for notebooks (:func:`randomts.text.rule_base.format_html`)."""
        from randomts.text.rule_base import format_html

        return format_html(self)

    # ---------------------------------------------- tables and explanations
    def table(
        self, fmt="plain", precision=4, *, centered=True, labels=None, X=None, y=None, top=None
    ) -> str:
        """The rules as a table in any tabulate format (see :func:`randomts.text.rule_base.format_table`).

        ``X``, ``y`` and ``top`` as in :meth:`to_text`.

        Examples
        --------
        >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]], intercept=[[2.0]])
        >>> print(rb.table())
        rule      x1: c    x1: s    y: at c    y: x1
        R1            0        1          2        0
        """
        from randomts.analysis.on_data import rules_on_data
        from randomts.text.rule_base import format_table

        return format_table(
            self,
            fmt=fmt,
            precision=precision,
            centered=centered,
            labels=labels,
            on_data=rules_on_data(self, X, y, top=top),
            top=top,
        )

    def explain(self, x, top=None):
        """The rules behind the prediction at one input (see :func:`randomts.analysis.explain.explain`).

        Examples
        --------
        >>> rb = RuleBase(centers=[[0.0], [2.0]], sigmas=[[1.0], [1.0]], intercept=[[1.0], [5.0]])
        >>> rb.explain([2.0], top=1).rules
        array([1])
        """
        from randomts.analysis.explain import explain

        return explain(self, x, top=top)

    def rule_importance(self, X):
        """Each rule's share of the total absolute contribution on ``X``.

        See :func:`randomts.analysis.importance.rule_importance`.

        Examples
        --------
        >>> rb = RuleBase(centers=[[0.0], [0.0]], sigmas=[[1.0], [1.0]], intercept=[[3.0], [1.0]])
        >>> rb.rule_importance([[0.0]])
        array([0.75, 0.25])
        """
        from randomts.analysis.importance import rule_importance

        return rule_importance(self, X)

    def prune(self, k, X, Y=None, *, order=None, solver="lstsq", alpha=0.0) -> RuleBase:
        """Keep the ``k`` most important rules on ``X``; with targets ``Y``, refit their consequents.

        See :func:`randomts.analysis.importance.prune`: the rules are ranked on
        ``X`` and, given ``Y``, the consequents of the kept ones refitted by
        :meth:`fit_consequents` (``alpha`` a float or ``"auto"``). A fitted
        estimator has :meth:`randomts.RandomTSRegressor.prune`, which returns
        an estimator.

        Examples
        --------
        >>> import numpy as np
        >>> X = np.linspace(-1, 1, 20).reshape(-1, 1)
        >>> antecedents = RuleBase.random(n_features=1, n_rules=8, random_state=0)
        >>> rb = antecedents.fit_consequents(X, 2 * X[:, 0])
        >>> len(rb.prune(3, X, 2 * X[:, 0])), len(rb.prune(3, X))
        (3, 3)
        """
        from randomts.analysis.importance import prune

        return prune(self, k, X, Y, order=order, solver=solver, alpha=alpha)

    # ------------------------------------------------------ linearisation
    def jacobian(self, X) -> np.ndarray:
        """Derivatives of the outputs with respect to the inputs.

        See :func:`randomts.dynamics.linearization.jacobian`.

        Returns
        -------
        ndarray of shape (n_samples, n_outputs, n_features)
            Or (n_outputs, n_features) for a 1-D ``X``.

        Examples
        --------
        >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]], coef=[[[2.0]]], intercept=[[1.0]])
        >>> rb.jacobian([[0.0]])  # d/dx exp(-x^2/2) (2x + 1) at 0
        array([[[2.]]])
        """
        one_point = np.ndim(X) == 1
        rows = check_matrix(
            np.atleast_2d(X) if one_point else X,
            "X",
            n_columns=self.n_features,
            owner="this rule base",
        )
        held = self._held(rows)
        J = inference.rule_base_jacobian(
            held,
            self._centers,
            self._sigmas,
            self._coef,
            self._intercept,
            normalize=self._normalize,
        )
        if self._lock_range:
            # an input held at its range does not move the output, and nothing moves an
            # output held at its range
            J *= (held == rows)[:, None, :]
            Y = inference.predict(
                held,
                self._centers,
                self._sigmas,
                self._inference_constants,
                normalize=self._normalize,
            )
            J[(Y < self._output_range[:, 0]) | (Y > self._output_range[:, 1])] = 0.0
        return J[0] if one_point else J


def as_rule_base(model, caller="this function"):
    """The :class:`RuleBase` of ``model``: itself, or a fitted estimator's ``rule_base_``.

    Parameters
    ----------
    model : RuleBase or fitted estimator
        Anything with a ``rule_base_`` attribute holding a rule base.
    caller : str
        What asks, for the error message.

    Raises
    ------
    TypeError
        If ``model`` is neither (an unfitted estimator says so).

    Examples
    --------
    >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]])
    >>> as_rule_base(rb) is rb
    True
    >>> as_rule_base("model.json", "plot_surface")
    Traceback (most recent call last):
    ...
    TypeError: plot_surface needs a RuleBase or a fitted randomts estimator; got str.
    """
    from randomts.analysis.protocol import as_model

    try:
        rule_base = as_model(model, caller)
    except TypeError as error:  # said of a RuleBase, which is all this takes
        raise TypeError(
            str(error).replace("a RuleBase, a FuzzySystem or", "a RuleBase or")
        ) from None
    if isinstance(rule_base, RuleBase):
        return rule_base
    raise TypeError(
        f"{caller} needs a RuleBase or a fitted randomts estimator; got "
        f"{type(model).__name__} (a FuzzySystem of RuleBase shape gives one: to_rule_base())."
    )
