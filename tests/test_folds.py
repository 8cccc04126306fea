"""The two ways of folding row blocks (randomts.core.folds): the compiled kernel and SciPy's wrappers.

Both call LAPACK ``dtpqrt`` and BLAS ``dsyrk`` of the library SciPy links, on
the same arrays with the same arguments, so their factors, and every fit made
of them, are equal bit for bit: the comparisons between them below are exact
by construction. Each path is also checked against an independent
computation (NumPy's QR and matrix product), to a tolerance of rounding.

The SciPy path is tested on every install: the ``scipy_wrappers`` fixture
hides the compiled kernel from :mod:`randomts.core.folds` for one test
(pytest's monkeypatch puts it back). The comparisons with the compiled kernel
skip, saying so, in an install built without a C compiler.
"""

import numpy as np
import pytest
from scipy.linalg import blas, lapack

from randomts import RandomTSClassifier, RandomTSRegressor
from randomts.core import folds
from randomts.core.accumulators import fold_rows

NO_KERNEL = "the compiled kernel was not built in this install (no C compiler at install time)"
needs_kernel = pytest.mark.skipif(not folds.compiled(), reason=NO_KERNEL)

# (rows m, columns q, inner block): tall, one row, one column per block, a block as wide as
# the triangle, fewer rows than columns
QR_SHAPES = [(300, 40, 16), (1, 5, 5), (513, 3, 1), (50, 64, 64), (10, 40, 16)]
GRAM_SHAPES = [(500, 30), (1, 1), (3000, 7), (4, 20)]


@pytest.fixture
def scipy_wrappers(monkeypatch):
    """The folds run through SciPy's Python wrappers during the test, as without a compiler."""
    monkeypatch.setattr(folds, "_kernels", None)
    assert not folds.compiled()


@pytest.fixture(params=["compiled", "scipy"])
def path(request):
    """Each way of folding in turn."""
    if request.param == "compiled":
        if not folds.compiled():
            pytest.skip(NO_KERNEL)
    else:
        request.getfixturevalue("scipy_wrappers")
    return request.param


def _triangle_and_rows(m, q, seed):
    rng = np.random.default_rng(seed)
    R = np.asfortranarray(np.triu(rng.normal(size=(q, q))))
    B = np.asfortranarray(rng.normal(size=(m, q)) * np.logspace(0, 3, q))
    return R, B


def _fold_qr(R, B, block):
    """``folds.fold_qr`` on copies; the new triangle."""
    R, q = R.copy(order="F"), R.shape[0]
    folds.fold_qr(R, B.copy(order="F"), block, np.empty((block, q), order="F"), np.empty(block * q))
    return R


def _fold_gram(G, B):
    G = G.copy(order="F")
    folds.fold_gram(G, B.copy(order="F"))
    return G


# ------------------------------------------------------------------ each path, checked
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(("m", "q", "block"), QR_SHAPES)
def test_fold_qr_is_lapacks_dtpqrt_and_the_qr_of_the_stacked_rows(path, m, q, block, seed):
    R0, B = _triangle_and_rows(m, q, seed)
    R = _fold_qr(R0, B, block)
    # the routine itself, through SciPy: the same call, so the same bits
    expected, _, _, info = lapack.dtpqrt(0, block, R0.copy(order="F"), B.copy(order="F"))
    assert info == 0
    assert np.array_equal(R, expected)
    # independently: R^T R = [R0; B]^T [R0; B], so |R| is NumPy's QR factor up to row signs;
    # Householder QR is backward stable: errors of a few q eps times the largest entry
    stacked = np.vstack([R0, B])
    reference = np.abs(np.linalg.qr(stacked, mode="r"))
    assert np.abs(np.abs(np.triu(R)) - reference).max() <= 100 * q * np.finfo(float).eps * (
        np.abs(stacked).max() * np.sqrt(m + q)
    )


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(("m", "q"), GRAM_SHAPES)
def test_fold_gram_is_blas_dsyrk_and_adds_b_transpose_b(path, m, q, seed):
    rng = np.random.default_rng(seed)
    B = np.asfortranarray(rng.normal(size=(m, q)))
    G0 = np.asfortranarray(rng.normal(size=(q, q)))
    G = _fold_gram(G0, B)
    expected = blas.dsyrk(1.0, B, beta=1.0, c=G0.copy(order="F"), trans=1, lower=0)
    assert np.array_equal(np.triu(G), np.triu(expected))
    assert np.array_equal(np.tril(G, -1), np.tril(G0, -1))  # the lower triangle is left alone
    # independently: each entry is a sum of m products, rounded in some order
    reference = np.triu(G0 + B.T @ B)
    bound = (m + 2) * np.finfo(float).eps * np.triu(np.abs(G0) + np.abs(B).T @ np.abs(B))
    assert np.all(np.abs(np.triu(G) - reference) <= bound)


def test_empty_blocks_change_nothing(path):
    R = np.asfortranarray(np.triu(np.ones((3, 3))))
    before = R.copy(order="F")
    folds.fold_qr(R, np.zeros((0, 3), order="F"), 2, np.empty((2, 3), order="F"), np.empty(6))
    folds.fold_gram(R, np.zeros((0, 3), order="F"))
    assert np.array_equal(R, before)


@pytest.mark.parametrize(
    "call",
    [
        lambda: folds.fold_qr(  # B in C order
            np.zeros((3, 3), order="F"),
            np.zeros((4, 3)),
            2,
            np.zeros((2, 3), order="F"),
            np.zeros(6),
        ),
        lambda: folds.fold_qr(  # R of the wrong size
            np.zeros((2, 2), order="F"),
            np.zeros((4, 3), order="F"),
            2,
            np.zeros((2, 3), order="F"),
            np.zeros(6),
        ),
        lambda: folds.fold_qr(  # block wider than the triangle
            np.zeros((3, 3), order="F"),
            np.zeros((4, 3), order="F"),
            4,
            np.zeros((4, 3), order="F"),
            np.zeros(12),
        ),
        lambda: folds.fold_qr(  # work too short
            np.zeros((3, 3), order="F"),
            np.zeros((4, 3), order="F"),
            2,
            np.zeros((2, 3), order="F"),
            np.zeros(2),
        ),
        lambda: folds.fold_qr(  # integers
            np.zeros((3, 3), dtype=int, order="F"),
            np.zeros((4, 3), order="F"),
            2,
            np.zeros((2, 3), order="F"),
            np.zeros(6),
        ),
        lambda: folds.fold_gram(np.zeros((2, 2), order="F"), np.zeros((4, 3), order="F")),
        lambda: folds.fold_gram(np.zeros((3, 3), order="F"), np.zeros((4, 3))),
    ],
)
def test_arrays_lapack_would_overrun_or_copy_are_refused(path, call):
    with pytest.raises(ValueError):
        call()


# ------------------------------------------------------------------ the two paths agree
@needs_kernel
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(("m", "q", "block"), QR_SHAPES)
def test_both_paths_fold_qr_alike_bit_for_bit(monkeypatch, m, q, block, seed):
    R0, B = _triangle_and_rows(m, q, seed)
    compiled = _fold_qr(R0, B, block)
    monkeypatch.setattr(folds, "_kernels", None)
    assert np.array_equal(_fold_qr(R0, B, block), compiled)  # one routine, same arguments


@needs_kernel
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(("m", "q"), GRAM_SHAPES)
def test_both_paths_fold_gram_alike_bit_for_bit(monkeypatch, m, q, seed):
    rng = np.random.default_rng(seed)
    B, G0 = rng.normal(size=(m, q)), np.asfortranarray(rng.normal(size=(q, q)))
    compiled = _fold_gram(G0, np.asfortranarray(B))
    monkeypatch.setattr(folds, "_kernels", None)
    assert np.array_equal(_fold_gram(G0, np.asfortranarray(B)), compiled)


def _fits(seed):
    """Fitted models of several kinds and their predictions, with whichever path is active."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(6000, 3))
    Y = np.column_stack([np.sin(X[:, 0]) * X[:, 1], np.cos(X.sum(1))])
    models = [
        RandomTSRegressor(n_rules=40, random_state=seed, structure="random").fit(X, Y[:, 0]),
        RandomTSRegressor(
            n_rules=40, alpha=0.0, n_jobs=2, random_state=seed, structure="random"
        ).fit(X, Y),
        RandomTSRegressor(
            n_rules=30, solver="cholesky", n_jobs=2, random_state=seed, structure="random"
        ).fit(X, Y),
        RandomTSRegressor.interpretable(random_state=seed).fit(X, Y[:, 1]),
        RandomTSClassifier(n_rules=20, random_state=seed, structure="random").fit(X, Y[:, 0] > 0),
    ]
    streamed = RandomTSRegressor.paper(n_rules=25, alpha=1e-8, random_state=seed)
    for rows in np.array_split(np.arange(len(X)), 3):
        streamed.partial_fit(X[rows], Y[rows])
    models.append(streamed)
    return [(m.rule_base_.coef, m.rule_base_.intercept, m.predict(X[:500])) for m in models]


@needs_kernel
@pytest.mark.parametrize("seed", range(2))
def test_both_paths_fit_the_same_models_bit_for_bit(monkeypatch, seed):
    """Regressors (Gram and QR factors), the interpretable setting, a classifier, partial_fit."""
    compiled = _fits(seed)
    monkeypatch.setattr(folds, "_kernels", None)
    for found, expected in zip(_fits(seed), compiled, strict=True):
        for a, b in zip(found, expected, strict=True):
            assert np.array_equal(a, b)


@pytest.mark.parametrize("kind", ["r", "gram"])
def test_threads_on_scipys_wrappers_fold_as_one_thread(scipy_wrappers, kind):
    """The wrappers hold the GIL: threads take turns, and the result is the same."""
    A = np.random.default_rng(0).normal(size=(20_000, 9))

    def fill(start, stop, out):
        out[...] = A[start:stop]

    one, two = (
        fold_rows(np.zeros((9, 9), order="F"), fill, len(A), kind=kind, n_jobs=n_jobs)
        for n_jobs in (1, 2)
    )
    assert np.array_equal(one, two)


def test_without_the_kernel_a_fit_folds_through_scipys_wrappers(scipy_wrappers, monkeypatch):
    import types

    calls = []

    def spy(name, routine):
        def call(*args, **kwargs):
            calls.append(name)
            return routine(*args, **kwargs)

        return call

    monkeypatch.setattr(folds, "lapack", types.SimpleNamespace(dtpqrt=spy("dtpqrt", lapack.dtpqrt)))
    monkeypatch.setattr(folds, "blas", types.SimpleNamespace(dsyrk=spy("dsyrk", blas.dsyrk)))
    X = np.random.default_rng(0).normal(size=(1000, 2))
    RandomTSRegressor(n_rules=10, alpha=0.0, random_state=0, structure="random").fit(
        X, X[:, 0]
    )  # QR
    RandomTSRegressor(n_rules=10, random_state=0, structure="random").fit(
        X, X[:, 0]
    )  # Gram (alpha chosen)
    assert {"dtpqrt", "dsyrk"} <= set(calls)
