"""A general Takagi-Sugeno fuzzy system: named variables and terms, rules that name them.

:class:`FuzzySystem` holds what a MATLAB/Octave ``.fis`` or a fuzzylite ``.fll``
Sugeno system holds: input variables with named membership-function terms
(:mod:`randomts.fuzzy.terms`) and ranges, output variables with constant or linear
terms, and rules such as ::

    if service is poor or food is very rancid then tip is cheap with 0.5

An antecedent joins propositions with ``and`` (the ``conjunction`` norm) and
``or`` (the ``disjunction`` norm); ``and`` binds tighter than ``or`` and
parentheses group. A rule need not use every input (MATLAB's index 0) and a
proposition may carry hedges: ``not`` (1 - m), ``very`` (m^2), ``somewhat``
(sqrt m), ``seldom``, ``extremely`` (fuzzylite's), ``any`` (always 1, no term)
and a numeric power ``Term^p`` (GNU Octave's fractional rule indices: ``1.3``
is ``m^3``). Hedges apply from the term outwards: ``not very A`` is
``1 - A^2``.

Inference, for every row ``x`` of ``X``:

1. A rule's degree ``w`` is its weight times its antecedent's value.
2. A rule with ``w > 0`` concludes each of its output propositions with the
   degree ``w`` modified by that proposition's own hedges (fuzzylite
   ``then y is very T`` gives ``w^2``; Octave's consequent index ``1.2``
   gives ``w^(1/2)``). A rule with ``w = 0`` concludes nothing.
3. For each output, the degrees of rules that conclude the same term are
   combined by the output's ``aggregation`` S-norm (``"sum"`` by default).
   GNU Octave and pyfuzzylite 8 do this; MATLAB ignores ``AggMethod`` in Sugeno
   systems, which equals ``"sum"``.
4. ``wtsum``: ``y = sum_T d_T z_T(x)``; ``wtaver``: the same divided by
   ``sum_T d_T``. Where no rule fires, the answer is the one of
   :mod:`randomts.fuzzy` (the same for :class:`~randomts.RuleBase`): a
   weighted sum is 0, the empty sum, as in GNU Octave (pyfuzzylite 8 returns
   NaN there), or the output's ``default`` if it has one; a weighted average
   is NaN (or the ``default``) with a
   :class:`~randomts.exceptions.NoRuleFiredWarning`.

A system of :class:`~randomts.RuleBase`'s shape (:meth:`FuzzySystem.rule_base_mismatch`
is None) predicts through the rule base's kernel, bit for bit.

Hedges are defined on [0, 1]; a degree outside it (an unbounded ``sum``
norm, weights or heights above 1) can make a hedge undefined: that rule then
concludes nothing for that output, as in fuzzylite, with an
:class:`~randomts.exceptions.UndefinedDegreeWarning`.

Norms (``conjunction``, ``disjunction``, ``aggregation``) fold left to right
over their operands: ``min``, ``prod``, ``bounded_difference``,
``drastic_product``, ``einstein_product``, ``hamacher_product``,
``nilpotent_minimum``, ``max``, ``probor``, ``bounded_sum``, ``drastic_sum``,
``einstein_sum``, ``hamacher_sum``, ``nilpotent_maximum``, ``normalized_sum``
and ``sum``. (GNU Octave's drastic norms treat a rule of one proposition, or
more than two, other than this fold does; MATLAB and fuzzylite fold.)

:class:`~randomts.RuleBase` is the fast special case (a Gaussian on every
input, product, one consequent per rule): :meth:`FuzzySystem.from_rule_base`
and :meth:`FuzzySystem.to_rule_base` convert without loss.

Examples
--------
>>> import numpy as np
>>> from randomts import FuzzySystem
>>> from randomts.fuzzy.terms import Constant, Linear, Trapezoid
>>> system = FuzzySystem(
...     inputs=[InputVariable("food", {"bad": Trapezoid(0, 0, 3, 7),
...                                    "good": Trapezoid(3, 7, 10, 10)}, range=(0, 10))],
...     outputs=[OutputVariable("tip", {"low": Constant(10.0),
...                                     "high": Linear([1.0], 10.0)}, range=(10, 20))],
...     rules=["if food is bad then tip is low", "if food is good then tip is high"],
... )
>>> system.predict([[2.0], [5.0], [9.0]])
array([[10. ],
       [12.5],
       [19. ]])
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from randomts._validation import check_matrix
from randomts.exceptions import NoRuleFiredWarning, UndefinedDegreeWarning
from randomts.fuzzy.norms import NORMS, apply_hedges, fold
from randomts.fuzzy.rules import (
    Connective,
    FuzzyRule,
    Proposition,
    parse_rule,
    power_of,
    propositions,
)
from randomts.fuzzy.terms import Constant, Gaussian, Linear
from randomts.fuzzy.variables import (
    InputVariable,
    OutputVariable,
    declared_ranges,
    variable_ranges,
)

__all__ = ["FuzzySystem"]


class FuzzySystem:
    """A Takagi-Sugeno fuzzy inference system with arbitrary terms, rules and norms.

    Parameters
    ----------
    inputs : sequence of InputVariable
    outputs : sequence of OutputVariable
    rules : sequence of FuzzyRule or str
        Strings are read with ``parse_rule``.
    conjunction : str, default "prod"
        The norm of ``and`` (a name of ``NORMS``).
    disjunction : str, default "probor"
        The norm of ``or``.
    name : str, default "fuzzy_system"
    metadata : dict, optional
        Provenance (kept by JSON files; not compared by ``==``).

    Attributes
    ----------
    n_features, n_outputs, n_rules : int
    input_names, output_names : tuple of str

    Examples
    --------
    >>> from randomts.fuzzy.terms import Constant, Gaussian
    >>> system = FuzzySystem(
    ...     [InputVariable("x", {"low": Gaussian(0.0, 1.0), "high": Gaussian(2.0, 1.0)},
    ...                    range=(-1, 3))],
    ...     [OutputVariable("y", {"a": Constant(0.0), "b": Constant(1.0)}, range=(0, 1))],
    ...     ["if x is low then y is a", "if x is high then y is b"])
    >>> system
    FuzzySystem('fuzzy_system', n_features=1, n_outputs=1, n_rules=2)
    >>> float(system.predict([[1.0]])[0, 0])
    0.5
    """

    def __init__(
        self,
        inputs,
        outputs,
        rules,
        *,
        conjunction="prod",
        disjunction="probor",
        name="fuzzy_system",
        metadata=None,
    ):
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)
        for variable in self.inputs:
            if not isinstance(variable, InputVariable):
                raise TypeError(f"inputs must hold InputVariables; got {variable!r}.")
        for variable in self.outputs:
            if not isinstance(variable, OutputVariable):
                raise TypeError(f"outputs must hold OutputVariables; got {variable!r}.")
        if not self.inputs or not self.outputs:
            raise ValueError("A FuzzySystem needs at least one input and one output.")
        names = [v.name for v in self.inputs + self.outputs]
        if len(set(names)) != len(names):
            raise ValueError(f"Variable names must be distinct; got {names}.")
        for key, value in (("conjunction", conjunction), ("disjunction", disjunction)):
            if value not in NORMS:
                raise ValueError(
                    f"The {key!r} parameter must be one of {sorted(NORMS)}; got {value!r}."
                )
        self.conjunction, self.disjunction = conjunction, disjunction
        if not isinstance(name, str) or not name.strip():
            raise TypeError(f"The 'name' parameter must be a non-empty str; got {name!r}.")
        self.name = name
        self.metadata = dict(metadata or {})
        self._input_index = {v.name: k for k, v in enumerate(self.inputs)}
        self._output_index = {v.name: m for m, v in enumerate(self.outputs)}
        checked = []
        for k, rule in enumerate(rules, start=1):
            try:
                rule = parse_rule(rule) if isinstance(rule, str) else rule
                if not isinstance(rule, FuzzyRule):
                    raise TypeError(f"expected a Rule or a str, got {type(rule).__name__}")
                self._check_rule(rule)
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"Rule {k}: {exc}") from None
            checked.append(rule)
        if not checked:
            raise ValueError("A FuzzySystem needs at least one rule.")
        self.rules = tuple(checked)
        n = self.n_features
        for variable in self.outputs:
            for term_name, term in variable.terms.items():
                if isinstance(term, Linear) and len(term.coefficients) != n:
                    raise ValueError(
                        f"Term {term_name!r} of output {variable.name!r} has "
                        f"{len(term.coefficients)} coefficients; the system has {n} inputs."
                    )

    def _check_rule(self, rule):
        for proposition in propositions(rule.antecedent):
            if proposition.variable not in self._input_index:
                raise ValueError(f"{proposition.variable!r} is not an input variable")
            variable = self.inputs[self._input_index[proposition.variable]]
            if proposition.term is not None and proposition.term not in variable.terms:
                raise ValueError(f"input {variable.name!r} has no term {proposition.term!r}")
        for proposition in rule.consequent:
            if proposition.variable not in self._output_index:
                raise ValueError(f"{proposition.variable!r} is not an output variable")
            variable = self.outputs[self._output_index[proposition.variable]]
            if proposition.term not in variable.terms:
                raise ValueError(f"output {variable.name!r} has no term {proposition.term!r}")

    # --------------------------------------------------------------- sizes
    @property
    def n_features(self) -> int:
        """Number of inputs."""
        return len(self.inputs)

    @property
    def n_outputs(self) -> int:
        """Number of outputs."""
        return len(self.outputs)

    @property
    def n_rules(self) -> int:
        """Number of rules."""
        return len(self.rules)

    @property
    def input_names(self) -> tuple:
        """The inputs' names, in order."""
        return tuple(v.name for v in self.inputs)

    @property
    def output_names(self) -> tuple:
        """The outputs' names, in order."""
        return tuple(v.name for v in self.outputs)

    def __len__(self) -> int:
        return self.n_rules

    def __eq__(self, other):
        if not isinstance(other, FuzzySystem):
            return NotImplemented
        return (
            self.name == other.name
            and self.inputs == other.inputs
            and self.outputs == other.outputs
            and self.rules == other.rules
            and self.conjunction == other.conjunction
            and self.disjunction == other.disjunction
        )

    __hash__ = None

    def __repr__(self) -> str:
        return (
            f"FuzzySystem({self.name!r}, n_features={self.n_features}, "
            f"n_outputs={self.n_outputs}, n_rules={self.n_rules})"
        )

    def __str__(self) -> str:
        return self.to_text()

    def replace(self, **changes) -> FuzzySystem:
        """A copy with some constructor arguments changed.

        Examples
        --------
        >>> from randomts import RuleBase
        >>> system = FuzzySystem.from_rule_base(RuleBase.random(1, 1, 2, random_state=0))
        >>> system.replace(name="copy").name
        'copy'
        """
        arguments = {
            "inputs": self.inputs,
            "outputs": self.outputs,
            "rules": self.rules,
            "conjunction": self.conjunction,
            "disjunction": self.disjunction,
            "name": self.name,
            "metadata": self.metadata,
        }
        unknown = sorted(set(changes) - set(arguments))
        if unknown:
            raise TypeError(
                f"replace() got unknown argument(s) {unknown}; allowed: {sorted(arguments)}."
            )
        arguments.update(changes)
        inputs, outputs, rules = (arguments.pop(k) for k in ("inputs", "outputs", "rules"))
        return FuzzySystem(inputs, outputs, rules, **arguments)

    # ----------------------------------------------------------- inference
    def _check_X(self, X):
        X = check_matrix(X, n_columns=self.n_features, owner="FuzzySystem")
        locked = [k for k, variable in enumerate(self.inputs) if variable.lock_range]
        if locked:
            X = X.copy()
            for k in locked:
                X[:, k] = np.clip(X[:, k], *self.inputs[k].range)
        return X

    def output_bounds(self):
        """Per output, an upper bound of what inference sums, and the numbers that dominate it.

        Over the finite part of the declared input ranges (an infinite end
        bounds nothing), a rule's degree is at most its weight times the
        number of its propositions times the largest term height (at least 1)
        to the sum of their powers, and a conclusion's power hedge raises it
        to that power; a term's value is at most ``|constant| + sum_k |c_k|
        max|x_k|``. The bound is the larger of the sums of ``degree * |value|``
        and of the degrees over the rules that conclude the output: ``inf``
        where that overflows. Returns a list of ``(bound, numbers)``,
        ``numbers`` being the weight and parameters of the largest
        ``degree * |value|``.

        Examples
        --------
        >>> from randomts import RuleBase
        >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]], intercept=[[2.0]],
        ...               input_range=[[-1.0, 1.0]], output_range=[[0.0, 2.0]])
        >>> [round(bound, 6) for bound, _ in FuzzySystem.from_rule_base(rb).output_bounds()]
        [2.0]
        """
        box = np.array(
            [
                max((abs(v) for v in var.range if math.isfinite(v)), default=0.0)
                for var in self.inputs
            ]
        )
        heights = [term.height for var in self.inputs for term in var.terms.values()]
        log_height = math.log(max([1.0, *heights]))
        bounds = []
        with np.errstate(over="ignore"):
            for variable in self.outputs:
                total, degrees, largest, numbers = 0.0, 0.0, -1.0, ()
                for rule in self.rules:
                    clauses = propositions(rule.antecedent)
                    exponent = sum(power_of(p) for p in clauses)
                    degree = rule.weight * len(clauses) * np.exp(exponent * log_height)
                    for proposition in rule.consequent:
                        if proposition.variable != variable.name:
                            continue
                        term = variable.terms[proposition.term]
                        if isinstance(term, Linear):
                            value = abs(term.constant) + float(np.abs(term.coefficients) @ box)
                        else:
                            value = abs(term.value)
                        power = power_of(proposition)  # of the conclusion's hedges
                        concluded = degree**power if degree > 1 else degree
                        part = concluded * value
                        total, degrees = total + part, degrees + concluded
                        if not part <= largest:
                            largest, numbers = part, (rule.weight, *term.parameters)
                bounds.append((max(float(total), float(degrees)), numbers))
        return bounds

    def _firing(self, X):
        cache = {}

        def value(node):
            if isinstance(node, Proposition):
                k = self._input_index[node.variable]
                if node.term is None:
                    base = np.ones(len(X))
                else:
                    key = (k, node.term)
                    if key not in cache:
                        cache[key] = self.inputs[k].terms[node.term](X[:, k])
                    base = cache[key]
                with np.errstate(invalid="ignore"):
                    return apply_hedges(node.hedges, base)
            norm = self.conjunction if node.operator == "and" else self.disjunction
            return fold(norm, [value(operand) for operand in node.operands])

        return np.stack([rule.weight * value(rule.antecedent) for rule in self.rules], axis=1)

    def firing_strengths(self, X, *, normalize=False) -> np.ndarray:
        """Each rule's degree (weight times antecedent) at every row of ``X``, raw or normalised.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs, columns in the order of :attr:`input_names`.
        normalize : bool, default False
            Divide each row by its sum over the rules (a row where no rule
            fires stays 0): the weights of a weighted average whose rules
            all conclude every output with the ``"sum"`` aggregation and no
            hedge. The exact part each rule takes in every output is
            :meth:`contributions`.

        Returns
        -------
        ndarray of shape (n_samples, n_rules)

        Examples
        --------
        >>> from randomts import RuleBase
        >>> rb = RuleBase(centers=[[0.0], [1.0]], sigmas=[[1.0], [1.0]], intercept=[[2.0], [1.0]])
        >>> FuzzySystem.from_rule_base(rb).firing_strengths([[0.0], [1.0]]).round(4)
        array([[1.    , 0.6065],
               [0.6065, 1.    ]])
        >>> FuzzySystem.from_rule_base(rb).firing_strengths([[0.5]], normalize=True)
        array([[0.5, 0.5]])
        """
        if not isinstance(normalize, (bool, np.bool_)):
            raise TypeError(f"The 'normalize' parameter must be a bool; got {normalize!r}.")
        X = self._check_X(X)
        kernel = self._kernel
        if kernel is not None:  # the rule base's strengths: normalised through their logarithms
            return kernel.firing_strengths(X, normalize=bool(normalize))
        W = self._firing(X)
        if not normalize:
            return W
        total = W.sum(axis=1, keepdims=True)
        return np.divide(W, total, out=np.zeros_like(W), where=total > 0)

    def rule_outputs(self, X) -> np.ndarray:
        """What each rule concludes for each output at every row of ``X`` (NaN: no conclusion).

        Returns
        -------
        ndarray of shape (n_samples, n_rules, n_outputs)

        Examples
        --------
        >>> from randomts import RuleBase
        >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]], coef=[[[3.0]]], intercept=[[2.0]])
        >>> FuzzySystem.from_rule_base(rb).rule_outputs([[1.0]])
        array([[[5.]]])
        """
        X = self._check_X(X)
        out = np.full((len(X), self.n_rules, self.n_outputs), np.nan)
        values = {}
        for r, rule in enumerate(self.rules):
            for proposition in rule.consequent:
                m = self._output_index[proposition.variable]
                key = (m, proposition.term)
                if key not in values:
                    values[key] = self.outputs[m].terms[proposition.term].evaluate(X)
                out[:, r, m] = values[key]
        return out

    def predict(self, X) -> np.ndarray:
        """The outputs at every row of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Finite inputs, columns in the order of :attr:`input_names`.

        Returns
        -------
        ndarray of shape (n_samples, n_outputs)
            NaN (or the output's ``default``) where no rule fires under a
            weighted average, with a :class:`~randomts.exceptions.NoRuleFiredWarning`.

        Examples
        --------
        >>> import warnings
        >>> from randomts.fuzzy.terms import Constant, Triangle
        >>> system = FuzzySystem(
        ...     [InputVariable("x", {"mid": Triangle(0, 1, 2)}, range=(0, 2))],
        ...     [OutputVariable("y", {"one": Constant(1.0)}, range=(0, 1))],
        ...     ["if x is mid then y is one"])
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     Y = system.predict([[0.5], [3.0]])
        >>> Y
        array([[ 1.],
               [nan]])
        >>> print(caught[0].message)  # doctest: +NORMALIZE_WHITESPACE
        No rule fired at 1 of 2 input row(s) (first: row 1) for the weighted-average
        output 'y'; it is NaN there.
        """
        X = self._check_X(X)
        kernel = self._kernel
        if kernel is not None:
            return kernel.predict(X)
        W = self._firing(X)
        undefined = set()
        Y = np.empty((len(X), self.n_outputs))
        for m, variable in enumerate(self.outputs):
            groups = self._conclusions(W, variable, undefined)
            numerator = np.zeros(len(X))
            denominator = np.zeros(len(X))
            for term_name, members in groups.items():
                degree = fold(variable.aggregation, [d for _, d in members])
                numerator = numerator + degree * variable.terms[term_name].evaluate(X)
                denominator = denominator + degree
            empty = denominator == 0
            if variable.defuzzifier == "wtsum":
                y = (
                    numerator
                    if math.isnan(variable.default)
                    else np.where(empty, variable.default, numerator)
                )
            else:
                with np.errstate(divide="ignore", invalid="ignore"):
                    y = np.where(empty, np.nan, numerator / np.where(empty, 1.0, denominator))
                if np.any(empty):
                    if math.isnan(variable.default):
                        rows = np.flatnonzero(empty)
                        warnings.warn(
                            f"No rule fired at {len(rows)} of {len(X)} input row(s) (first: row "
                            f"{rows[0]}) for the weighted-average output {variable.name!r}; it "
                            "is NaN there.",
                            NoRuleFiredWarning,
                            stacklevel=2,
                        )
                    else:
                        y = np.where(empty, variable.default, y)
            if variable.lock_range:
                y = np.clip(y, *variable.range)
            Y[:, m] = y
        if undefined:
            warnings.warn(
                f"A hedge met degrees outside [0, 1] in rule(s) {sorted(undefined)}; those "
                "conclusions count as not fired (as in fuzzylite).",
                UndefinedDegreeWarning,
                stacklevel=2,
            )
        return Y

    def _conclusions(self, W, variable, undefined):
        """What the rules conclude for the output ``variable``: term -> [(rule, degree)].

        A rule's degree for a conclusion is its firing degree ``W[:, rule]``
        modified by the conclusion's hedges (0 where the rule does not fire);
        a degree that a hedge leaves undefined counts as not fired, and the
        rule's number joins ``undefined``.
        """
        groups = {}
        for r, rule in enumerate(self.rules):
            for proposition in rule.consequent:
                if proposition.variable == variable.name:
                    w = W[:, r]
                    with np.errstate(invalid="ignore"):
                        degree = np.where(w > 0, apply_hedges(proposition.hedges, w), 0.0)
                    if np.isnan(w).any() or np.isnan(degree).any():
                        undefined.add(r + 1)
                    degree = np.nan_to_num(degree, nan=0.0, neginf=0.0, posinf=1.0)
                    groups.setdefault(proposition.term, []).append((r, degree))
        return groups

    @property
    def _kernel(self):
        """The :class:`~randomts.RuleBase` this system is, whose kernel predicts; None if it is not one.

        Kept with the parts it was made of, and made again if any was replaced.
        """
        parts = (self.inputs, self.outputs, self.rules, self.conjunction, self.disjunction)
        cached = self.__dict__.get("_kernel_cache")
        if cached is None or any(a is not b for a, b in zip(cached[0], parts, strict=True)):
            kernel = None if self.rule_base_mismatch() is not None else self.to_rule_base()
            cached = self.__dict__["_kernel_cache"] = (parts, kernel)
        return cached[1]

    # --------------------------------------------------------- conversions
    @classmethod
    def from_rule_base(cls, rule_base) -> FuzzySystem:
        """The general form of a :class:`~randomts.RuleBase`: equal outputs wherever a rule fires.

        Each rule ``i`` gets a Gaussian term ``r<i>`` on every input and a
        Linear (Constant for order 0) term ``r<i>`` on every output; AND is
        ``prod``; ranges are those written to FIS and FLL files. The system
        predicts through the rule base's kernel (:meth:`predict`), so its
        outputs equal the rule base's bit for bit.

        Examples
        --------
        >>> from randomts import RuleBase
        >>> rb = RuleBase.random(n_features=2, n_rules=3, random_state=0)
        >>> system = FuzzySystem.from_rule_base(rb)
        >>> print(system.rules[0].to_text())
        if x1 is r1 and x2 is r1 then y is r1
        >>> system.to_rule_base() == rb
        True
        """
        from randomts.fuzzy.rulebase import RuleBase

        if not isinstance(rule_base, RuleBase):
            raise TypeError(f"from_rule_base expects a RuleBase; got {type(rule_base).__name__}.")
        input_ranges, output_ranges = variable_ranges(rule_base)
        H = rule_base.n_rules
        inputs = [
            InputVariable(
                name,
                [
                    (f"r{i + 1}", Gaussian(rule_base.centers[i, k], rule_base.sigmas[i, k]))
                    for i in range(H)
                ],
                range=input_ranges[k],
                lock_range=rule_base.lock_range,
            )
            for k, name in enumerate(rule_base.input_names)
        ]
        defuzzifier = "wtaver" if rule_base.normalize else "wtsum"
        outputs = []
        for m, name in enumerate(rule_base.output_names):
            terms = []
            for i in range(H):
                if rule_base.order == 0:
                    term = Constant(rule_base.intercept[i, m])
                else:
                    term = Linear(rule_base.coef[i, m], rule_base.intercept[i, m])
                terms.append((f"r{i + 1}", term))
            outputs.append(
                OutputVariable(
                    name,
                    terms,
                    output_ranges[m],
                    defuzzifier=defuzzifier,
                    lock_range=rule_base.lock_range,
                )
            )
        rules = []
        for i in range(H):
            props = tuple(Proposition(name, f"r{i + 1}") for name in rule_base.input_names)
            antecedent = props[0] if len(props) == 1 else Connective("and", props)
            rules.append(
                FuzzyRule(
                    antecedent, tuple(Proposition(n, f"r{i + 1}") for n in rule_base.output_names)
                )
            )
        return cls(inputs, outputs, rules, name="randomts", metadata=rule_base.metadata)

    def rule_base_mismatch(self) -> str | None:
        """Why this system is not a :class:`~randomts.RuleBase`, or None if it is one.

        Examples
        --------
        >>> from randomts.fuzzy.terms import Constant, Triangle
        >>> system = FuzzySystem(
        ...     [InputVariable("x", {"mid": Triangle(0, 1, 2)}, range=(0, 2))],
        ...     [OutputVariable("y", {"one": Constant(1.0)}, range=(0, 1))],
        ...     ["if x is mid then y is one"])
        >>> system.rule_base_mismatch()
        "input 'x' term 'mid' is a Triangle, not a Gaussian of height 1 and standard deviation > 0"
        """
        locked = [v.name for v in self.inputs + self.outputs if v.lock_range]
        if locked and len(locked) < self.n_features + self.n_outputs:
            return (
                f"only some variables have lock_range=True ({', '.join(map(repr, locked))}); "
                "a rule base locks all or none"
            )
        if locked and (
            declared_ranges([v.range for v in self.inputs]) is None
            or declared_ranges([v.range for v in self.outputs]) is None
        ):
            return "a variable with lock_range=True has no finite range"
        for variable in self.inputs:
            for term_name, term in variable.terms.items():
                if not (
                    isinstance(term, Gaussian) and term.height == 1.0 and term.parameters[1] > 0
                ):
                    return (
                        f"input {variable.name!r} term {term_name!r} is a {type(term).__name__}, "
                        "not a Gaussian of height 1 and standard deviation > 0"
                    )
        defuzzifiers = {v.defuzzifier for v in self.outputs}
        if len(defuzzifiers) > 1:
            return "the outputs mix 'wtaver' and 'wtsum'"
        for variable in self.outputs:
            if not math.isnan(variable.default):
                return f"output {variable.name!r} has a default value"
        if self.n_features > 1 and self.conjunction != "prod":
            return f"the conjunction is {self.conjunction!r}, not 'prod'"
        for k, rule in enumerate(self.rules, start=1):
            antecedent = rule.antecedent
            props = (
                [antecedent] if isinstance(antecedent, Proposition) else list(antecedent.operands)
            )
            if isinstance(antecedent, Connective) and antecedent.operator != "and":
                if self.n_features > 1 or any(not isinstance(p, Proposition) for p in props):
                    return f"rule {k} uses 'or'"
            if not all(isinstance(p, Proposition) for p in props):
                return f"rule {k} nests 'and' and 'or'"
            if sorted(p.variable for p in props) != sorted(self.input_names):
                return f"rule {k} does not use every input once"
            if rule.weight != 1.0:
                return f"rule {k} has weight {rule.weight!r}"
            if any(p.hedges for p in props) or any(p.hedges for p in rule.consequent):
                return f"rule {k} has hedges"
            if sorted(p.variable for p in rule.consequent) != sorted(self.output_names):
                return f"rule {k} does not conclude every output"
        for variable in self.outputs:
            if variable.aggregation != "sum":
                used = [
                    p.term for r in self.rules for p in r.consequent if p.variable == variable.name
                ]
                if len(set(used)) != len(used):
                    return (
                        f"output {variable.name!r} aggregates rules that share a term with "
                        f"{variable.aggregation!r}, not 'sum'"
                    )
        return None

    def to_rule_base(self):
        """This system as a :class:`~randomts.RuleBase`, or ValueError saying what differs.

        Examples
        --------
        >>> from randomts import RuleBase
        >>> rb = RuleBase.random(n_features=1, n_rules=2, random_state=0)
        >>> FuzzySystem.from_rule_base(rb).to_rule_base() == rb
        True
        """
        from randomts.fuzzy.rulebase import RuleBase

        problem = self.rule_base_mismatch()
        if problem is not None:
            raise ValueError(f"This FuzzySystem is not a RuleBase: {problem}.")
        centers, sigmas, coef, intercept = [], [], [], []
        for rule in self.rules:
            props = (
                [rule.antecedent]
                if isinstance(rule.antecedent, Proposition)
                else rule.antecedent.operands
            )
            by_input = {p.variable: p.term for p in props}  # the product commutes
            terms = [v.terms[by_input[v.name]] for v in self.inputs]
            centers.append([t.parameters[0] for t in terms])
            sigmas.append([t.parameters[1] for t in terms])
            by_output = {p.variable: p.term for p in rule.consequent}
            row_coef, row_intercept = [], []
            for variable in self.outputs:
                term = variable.terms[by_output[variable.name]]
                if isinstance(term, Constant):
                    row_coef.append([0.0] * self.n_features)
                    row_intercept.append(term.value)
                else:
                    row_coef.append(list(term.coefficients))
                    row_intercept.append(term.constant)
            coef.append(row_coef)
            intercept.append(row_intercept)
        return RuleBase(
            centers=centers,
            sigmas=sigmas,
            coef=coef,
            intercept=intercept,
            normalize=self.outputs[0].defuzzifier == "wtaver",
            input_names=self.input_names,
            output_names=self.output_names,
            metadata=self.metadata,
            # the variables' ranges (a file's declared ones) become the recorded ranges
            input_range=declared_ranges([variable.range for variable in self.inputs]),
            output_range=declared_ranges([variable.range for variable in self.outputs]),
            lock_range=self.inputs[0].lock_range,
        )

    # ---------------------------------------------------------------- text
    def to_text(self, precision=4, *, X=None, y=None, top=None) -> str:
        """The system as text: variables with their terms and ranges, then the rules.

        Parameters
        ----------
        precision : int or None, default 4
            Significant digits of the numbers; None writes every digit (the
            ``.txt`` format, which reads back bit for bit).
        X : array-like of shape (n_samples, n_features), optional
            Data: list the rules by importance on ``X`` (:meth:`rule_importance`,
            as a percentage after the rule's label), most important first.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs), optional
            With ``X``, the targets: each rule followed by its ``THEN`` part,
            the model's prediction and the data averaged where it fires, and
            what disagrees (:func:`randomts.analysis.agreement.rule_agreement`).
        top : int, optional
            With ``X``: only the ``top`` most important rules.

        See Also
        --------
        randomts.text.system.format_system : the layout.

        Examples
        --------
        >>> from randomts.fuzzy.terms import Constant, Linear, Trapezoid
        >>> system = FuzzySystem(
        ...     [InputVariable("food", {"bad": Trapezoid(0, 0, 3, 7),
        ...                             "good": Trapezoid(3, 7, 10, 10)}, range=(0, 10))],
        ...     [OutputVariable("tip", {"low": Constant(10.0), "high": Linear([1.0], 10.0)},
        ...                     range=(10, 20))],
        ...     ["if food is bad then tip is low", "if food is not bad then tip is high"],
        ...     name="tipper")
        >>> print(system.to_text())
        # Takagi-Sugeno fuzzy system: tipper
        # AND = prod; OR = probor
        input food in [0, 10]
          bad = Trapezoid(0, 0, 3, 7)
          good = Trapezoid(3, 7, 10, 10)
        output tip in [10, 20]: weighted average
          low = 10
          high = 10 + 1*food
        rules
          R1: if food is bad then tip is low
          R2: if food is not bad then tip is high
        """
        from randomts.analysis.on_data import rules_on_data
        from randomts.text.system import format_system

        return format_system(self, precision, on_data=rules_on_data(self, X, y, top=top), top=top)

    # ------------------------------------------- analysis (randomts.analysis.explain)
    @property
    def normalize(self):
        """bool or None: every output a weighted average (True), a weighted sum (False), or a mix (None)."""
        defuzzifiers = {variable.defuzzifier for variable in self.outputs}
        if len(defuzzifiers) > 1:
            return None
        return defuzzifiers.pop() == "wtaver"

    @property
    def input_range(self) -> np.ndarray:
        """ndarray (n_features, 2): ``[low, high]`` of each input variable."""
        return np.array([variable.range for variable in self.inputs], dtype=float)

    @property
    def output_range(self) -> np.ndarray:
        """ndarray (n_outputs, 2): ``[low, high]`` of each output variable."""
        return np.array([variable.range for variable in self.outputs], dtype=float)

    def contributions(self, X) -> np.ndarray:
        """Each rule's part of each output at every row of ``X``: they add up to :meth:`predict`.

        For an output ``y``, the rules that conclude the same term ``T`` share
        that term's degree ``d_T`` (their hedged degrees ``d_r`` combined by
        the output's ``aggregation``) in proportion to their own degrees:
        rule ``r`` gets ``a_r = d_r d_T / sum_s d_s`` over the rules ``s``
        concluding ``T`` (``a_r = d_r`` under the default ``"sum"``, and for
        a rule that alone concludes its term). It contributes
        ``a_r z_T(x)`` to a weighted sum and ``a_r z_T(x) / sum_T d_T`` to a
        weighted average, ``z_T`` being the term's value. The contributions
        therefore add up to the output, to rounding, under every aggregation
        norm, except where the output's ``default`` replaces it (no rule
        fired) or its ``lock_range`` clips it. A rule that does not fire or
        does not conclude ``y`` contributes 0 to it.

        Returns
        -------
        ndarray of shape (n_samples, n_rules, n_outputs)

        Examples
        --------
        >>> import numpy as np
        >>> from randomts.fuzzy.terms import Constant, Triangle
        >>> system = FuzzySystem(
        ...     [InputVariable("x", {"low": Triangle(0, 0, 2), "high": Triangle(0, 2, 2)},
        ...                    range=(0, 2))],
        ...     [OutputVariable("y", {"a": Constant(1.0), "b": Constant(5.0)}, range=(1, 5))],
        ...     ["if x is low then y is a", "if x is high then y is b"])
        >>> system.contributions([[0.5]]).round(4)
        array([[[0.75],
                [1.25]]])
        >>> bool(np.allclose(system.contributions([[0.5]]).sum(axis=1), system.predict([[0.5]])))
        True
        """
        X = self._check_X(X)
        kernel = self._kernel
        if kernel is not None:  # the rule base's contributions, which add up to its kernel's output
            return kernel.contributions(X)
        W = self.firing_strengths(X, normalize=False)
        out = np.zeros((len(X), self.n_rules, self.n_outputs))
        for m, variable in enumerate(self.outputs):
            groups = self._conclusions(W, variable, set())
            denominator = np.zeros(len(X))
            for term_name, members in groups.items():
                degrees = [degree for _, degree in members]
                combined = fold(variable.aggregation, degrees)
                own = degrees[0]
                for degree in degrees[1:]:
                    own = own + degree
                with np.errstate(over="ignore", invalid="ignore"):
                    ratio = np.divide(combined, own, out=np.zeros(len(X)), where=own > 0)
                value = variable.terms[term_name].evaluate(X)
                for r, degree in members:
                    out[:, r, m] = degree * ratio * value
                denominator = denominator + combined
            if variable.defuzzifier == "wtaver":
                fired = denominator > 0
                out[:, :, m] = np.divide(
                    out[:, :, m],
                    denominator[:, None],
                    out=np.zeros_like(out[:, :, m]),
                    where=fired[:, None],
                )
        return out

    def subset(self, rules) -> FuzzySystem:
        """The system made of the given rules, in the given order; variables and terms unchanged.

        Parameters
        ----------
        rules : array-like of int or of bool
            Rule indices (0-based), or a boolean mask of length ``n_rules``.

        Examples
        --------
        >>> from randomts import RuleBase
        >>> system = FuzzySystem.from_rule_base(RuleBase.random(1, 1, 3, random_state=0))
        >>> [rule.to_text() for rule in system.subset([2, 0]).rules]
        ['if x1 is r3 then y is r3', 'if x1 is r1 then y is r1']
        """
        index = np.asarray(rules)
        if index.dtype == bool:
            if index.shape != (self.n_rules,):
                raise ValueError(
                    f"The 'rules' parameter as a boolean mask must have shape ({self.n_rules},); "
                    f"got shape {index.shape}."
                )
            index = np.flatnonzero(index)
        if index.ndim != 1 or index.size == 0 or not np.issubdtype(index.dtype, np.integer):
            raise ValueError(
                "The 'rules' parameter must be a non-empty 1-D sequence of rule indices or a "
                f"boolean mask; got {rules!r}."
            )
        if index.min() < -self.n_rules or index.max() >= self.n_rules:
            raise IndexError(
                f"The 'rules' parameter must hold indices in [0, {self.n_rules}); "
                f"got {index.tolist()}."
            )
        return self.replace(rules=[self.rules[i] for i in index])

    def rule_importance(self, X) -> np.ndarray:
        """Each rule's share of the total absolute contribution on ``X``.

        See :func:`randomts.analysis.importance.rule_importance`; the contributions
        are those of :meth:`contributions`.

        Examples
        --------
        >>> from randomts.fuzzy.terms import Constant, Triangle
        >>> system = FuzzySystem(
        ...     [InputVariable("x", {"low": Triangle(0, 0, 2), "high": Triangle(0, 2, 2)},
        ...                    range=(0, 2))],
        ...     [OutputVariable("y", {"a": Constant(1.0), "b": Constant(5.0)}, range=(1, 5))],
        ...     ["if x is low then y is a", "if x is high then y is b"])
        >>> system.rule_importance([[0.5], [1.5]]).round(4)
        array([0.1667, 0.8333])
        """
        from randomts.analysis.importance import rule_importance

        return rule_importance(self, X)

    def prune(self, k, X, Y=None) -> FuzzySystem:
        """Keep the ``k`` most important rules on ``X`` and remove the others.

        :func:`randomts.analysis.importance.prune`, the one pruning of every
        model: the kept rules most important first (:meth:`subset`). A
        system's terms are not refitted, so it takes no targets ``Y`` (a
        :meth:`RuleBase.prune <randomts.RuleBase.prune>` refits its
        consequents to them).

        Parameters
        ----------
        k : int
            Number of rules to keep, ``1 <= k <= n_rules``.
        X : array-like of shape (n_samples, n_features)
            The data on which the rules are ranked.
        Y : None
            Refused with a TypeError: a system's terms are not refitted.

        Returns
        -------
        FuzzySystem

        Examples
        --------
        >>> from randomts.fuzzy.terms import Constant, Triangle
        >>> system = FuzzySystem(
        ...     [InputVariable("x", {"low": Triangle(0, 0, 2), "high": Triangle(0, 2, 2)},
        ...                    range=(0, 2))],
        ...     [OutputVariable("y", {"a": Constant(1.0), "b": Constant(5.0)}, range=(1, 5))],
        ...     ["if x is low then y is a", "if x is high then y is b"])
        >>> small = system.prune(1, [[0.5], [1.5]])
        >>> small.n_rules, small.rules[0].to_text()
        (1, 'if x is high then y is b')
        """
        from randomts.analysis.importance import prune

        return prune(self, k, X, Y)

    def explain(self, x, top=None):
        """The rules behind the output at one input (see :func:`randomts.analysis.explain.explain`).

        Examples
        --------
        >>> from randomts.fuzzy.terms import Constant, Triangle
        >>> system = FuzzySystem(
        ...     [InputVariable("x", {"low": Triangle(0, 0, 2), "high": Triangle(0, 2, 2)},
        ...                    range=(0, 2))],
        ...     [OutputVariable("y", {"a": Constant(1.0), "b": Constant(5.0)}, range=(1, 5))],
        ...     ["if x is low then y is a", "if x is high then y is b"])
        >>> print(system.explain([0.5]))
        x = 0.5: y = 2 (weighted average of 2 rules)
        rule        w    w/sum(w)    y: rule    y: contribution    y: share
        R2       0.25        0.25          5               1.25      0.625
        R1       0.75        0.75          1               0.75      0.375
        total                                                 2
        """
        from randomts.analysis.explain import explain

        return explain(self, x, top=top)

    def table(self, fmt="plain", precision=4, *, X=None, y=None, top=None) -> str:
        """The rules as a table: one row per rule, the terms it names in columns.

        See :func:`randomts.text.system.format_system_table`; with ``X``, an
        ``importance`` column and the rules most important first; with ``y``
        too, each rule's ``THEN`` part beside the model and the data where it
        fires, and a ``check`` column.

        Examples
        --------
        >>> from randomts.fuzzy.terms import Constant, Triangle
        >>> system = FuzzySystem(
        ...     [InputVariable("x", {"low": Triangle(0, 0, 2), "high": Triangle(0, 2, 2)},
        ...                    range=(0, 2))],
        ...     [OutputVariable("y", {"a": Constant(1.0), "b": Constant(5.0)}, range=(1, 5))],
        ...     ["if x is low then y is a", "if x is high then y is b"])
        >>> print(system.table(X=[[0.5], [1.5]]))
        rule      importance    x is    then y is
        R2            0.8333    high            b
        R1            0.1667     low            a
        """
        from randomts.analysis.on_data import rules_on_data
        from randomts.text.system import format_system_table

        on_data = rules_on_data(self, X, y, top=top)
        return format_system_table(self, fmt=fmt, precision=precision, on_data=on_data, top=top)
