"""Fits on dask arrays, on a dask.distributed LocalCluster, against the in-memory fit."""

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("dask.distributed")

import randomts  # noqa: E402
from randomts import RandomTSRegressor, RuleBase  # noqa: E402
from randomts.core.design import stack_coefficients  # noqa: E402
from randomts.distributed import fit_consequents_dask, fit_estimator_dask  # noqa: E402
from randomts.fitting.consequents import fit_consequents  # noqa: E402

EPS = np.finfo(float).eps


@pytest.fixture(scope="module")
def client():
    """Two workers talking TCP on loopback, in this process (process workers start slowly)."""
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=False,
        protocol="tcp",
        host="127.0.0.1",
        dashboard_address=None,
    )
    with distributed.Client(cluster) as client:
        yield client
    cluster.close()


def relative_gap(a, b):
    return np.max(np.abs(a - b)) / np.max(np.abs(b))


def data(seed, n=3000, n_outputs=2):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n, 3))
    Y = np.column_stack([np.sin(X[:, 0] + k) * X[:, 1] - X[:, 2] ** 2 for k in range(n_outputs)])
    return X, Y


@pytest.mark.parametrize("solver, alpha", [("lstsq", 0.0), ("pinv", 0.0), ("cholesky", 1e-3)])
@pytest.mark.parametrize("seed", range(2))
def test_dask_fit_on_a_local_cluster_equals_the_in_memory_fit(client, solver, alpha, seed):
    X, Y = data(seed)
    antecedents = RuleBase.random(n_features=3, n_outputs=2, n_rules=25, random_state=seed)
    # 11 uneven row chunks: a tree of depth 2 with split_every=4
    Xd = da.from_array(X, chunks=((300,) * 9 + (200, 100), 3))
    Yd = da.from_array(Y, chunks=(500, 2))  # other row chunks: rechunked to those of X
    with distributed.get_task_stream(client) as tasks:
        rb = fit_consequents_dask(
            antecedents, Xd, Yd, solver=solver, alpha=alpha, split_every=4, client=client
        )
    whole = antecedents.fit_consequents(X, Y, solver=solver, alpha=alpha)
    assert relative_gap(rb.predict(X), whole.predict(X)) < 1e-10
    # the factors were computed on the cluster's workers: one task per row chunk, then the tree
    names = [str(task["key"]) for task in tasks.data]
    assert sum("_chunk_stream" in name for name in names) == 11
    assert sum("_merge_streams" in name for name in names) == 4  # 11 -> 3 -> 1
    assert len(client.scheduler_info()["workers"]) == 2


def test_dask_fit_of_the_ill_conditioned_van_der_pol_data(client, van_der_pol_data):
    X, Y = van_der_pol_data
    antecedents = RuleBase.random(n_features=2, n_outputs=2, n_rules=100, random_state=0)
    rb = fit_consequents_dask(
        antecedents, da.from_array(X, chunks=(1000, 2)), da.from_array(Y, chunks=(1000, 2))
    )  # no client argument: the Client is dask's default scheduler
    whole = antecedents.fit_consequents(X, Y)
    assert relative_gap(rb.predict(X), whole.predict(X)) < 1e-10
    assert np.mean((rb.predict(X) - Y) ** 2) <= 1e-20


@pytest.mark.parametrize("order", [0, 1])
def test_dask_fit_with_alpha_auto_makes_the_in_memory_choice(client, order):
    X, Y = data(2, n=2100)
    antecedents = RuleBase.random(n_features=3, n_outputs=2, n_rules=12, random_state=2)
    with distributed.get_task_stream(client) as tasks:
        rb = fit_consequents_dask(
            antecedents,
            da.from_array(X, chunks=(300, 3)),
            da.from_array(Y, chunks=(300, 2)),
            order=order,
            alpha="auto",
            split_every=3,
            client=client,
        )
    whole = fit_consequents(antecedents, X, Y, order=order, alpha="auto")
    alpha = whole.metadata["alpha"]
    K = antecedents.design_matrix(X, order=order)
    n_samples, p = K.shape
    # The same grid point; the grid's unit, the trace of K^T K (a sum of positive terms), is
    # summed in another order: within n_samples eps, relative.
    assert abs(rb.metadata["alpha"] - alpha) <= n_samples * EPS * alpha
    # The Gram matrix summed in another order moves by at most n_samples eps |K|^T |K|; the
    # ridge solution by cond(M) times that relative to ||M||, for it and for the prior.
    M = K.T @ K + alpha * np.eye(p)
    ratio = np.linalg.norm(np.abs(K).T @ np.abs(K), 2) / np.linalg.norm(M, 2)
    bound = 4 * n_samples * EPS * np.linalg.cond(M) * ratio
    gamma = stack_coefficients(rb.coef, rb.intercept, order=order)
    expected = stack_coefficients(whole.coef, whole.intercept, order=order)
    assert np.linalg.norm(gamma - expected) <= bound * np.linalg.norm(expected)
    # minima and maxima are exact whatever the order of the chunks
    np.testing.assert_array_equal(rb.input_range, whole.input_range)
    np.testing.assert_array_equal(rb.output_range, whole.output_range)
    names = [str(task["key"]) for task in tasks.data]
    assert sum("_chunk_gram" in name for name in names) == 7
    assert sum("_chunk_loo" in name for name in names) == 7


def test_dask_fit_with_alpha_auto_on_fewer_rows_than_unknowns_fits_them_in_memory(client):
    X, Y = data(3, n=40)  # 12 rules x 4 unknowns > 40 rows: the row space
    antecedents = RuleBase.random(n_features=3, n_outputs=2, n_rules=12, random_state=3)
    rb = fit_consequents_dask(
        antecedents,
        da.from_array(X, chunks=(10, 3)),
        da.from_array(Y, chunks=(10, 2)),
        alpha="auto",
    )
    whole = fit_consequents(antecedents, X, Y, alpha="auto")
    assert abs(rb.metadata["alpha"] - whole.metadata["alpha"]) <= np.spacing(
        whole.metadata["alpha"]
    )
    # the same rows, fitted by the same function: predictions within the rounding of a sum
    bound = whole.n_rules * EPS * np.abs(whole.contributions(X)).sum(axis=1).max()
    assert np.abs(rb.predict(X) - whole.predict(X)).max() <= bound


def test_estimator_fit_on_dask_arrays(client):
    X, Y = data(3, n=1200, n_outputs=1)
    model = fit_estimator_dask(
        RandomTSRegressor.paper(n_rules=15, random_state=3),
        da.from_array(X, chunks=(250, 3)),
        da.from_array(Y[:, 0], chunks=250),
        client=client,
    )
    whole = RandomTSRegressor.paper(n_rules=15, random_state=3).fit(X, Y[:, 0])
    assert model.predict(X).shape == (1200,)
    assert relative_gap(model.predict(X), whole.predict(X)) < 1e-10
    assert model.rule_base_.metadata["n_samples_fit"] == 1200
    for key in ("input_range", "output_range"):
        np.testing.assert_array_equal(
            getattr(model.rule_base_, key), getattr(whole.rule_base_, key)
        )


def test_dask_errors():
    antecedents = RuleBase.random(n_features=3, n_rules=4, random_state=0)
    X = da.zeros((10, 3), chunks=5)
    with pytest.raises(ValueError, match="X has 2 features, but this rule base is expecting 3"):
        fit_consequents_dask(antecedents, da.zeros((10, 2)), da.zeros(10))
    with pytest.raises(ValueError, match="same number of rows; got 10 and 9"):
        fit_consequents_dask(antecedents, X, da.zeros(9))
    with pytest.raises(ValueError, match="The 'split_every' parameter must be an int in the range"):
        fit_consequents_dask(antecedents, X, da.zeros(10), split_every=1)
    with pytest.raises(TypeError, match="antecedents must be a RuleBase"):
        fit_consequents_dask(None, X, da.zeros(10))
    with pytest.raises(ValueError, match="The 'alpha' parameter must be 'auto' or a float >= 0"):
        fit_consequents_dask(antecedents, X, da.zeros(10), alpha="loo")
    with pytest.raises(TypeError, match="estimator must be a RandomTSRegressor"):
        fit_estimator_dask(RuleBase.random(3, n_rules=2), X, da.zeros(10))
    with pytest.raises(ValueError, match="same number of rows; got 10 and 9"):
        fit_estimator_dask(RandomTSRegressor(structure="random"), X, da.zeros(9))
    with pytest.raises(ValueError, match="The 'n_rules' parameter of RandomTSRegressor"):
        fit_estimator_dask(RandomTSRegressor(n_rules=0, structure="random"), X, da.zeros(10))
    with pytest.raises(TypeError, match="The 'n_rules' parameter of RandomTSRegressor"):
        fit_estimator_dask(RandomTSRegressor(n_rules="many", structure="random"), X, da.zeros(10))
    for params in ({"centers": "kmeans"}, {"refine": 3}):
        with pytest.raises(ValueError, match="need them all in memory"):
            fit_estimator_dask(RandomTSRegressor(**params, structure="random"), X, da.zeros(10))


def noisy_data(seed, n=2400):
    """Inputs far from the origin on different scales, a noisy target."""
    rng = np.random.default_rng(seed)
    X = np.column_stack(
        [50 + 10 * rng.normal(size=n), 1e-3 * rng.normal(size=n), rng.uniform(size=n)]
    )
    y = np.tanh((X[:, 0] - 50) / 10) + np.sin(1e3 * X[:, 1]) * X[:, 2] + 0.1 * rng.normal(size=n)
    return X, y


@pytest.mark.parametrize(
    "params",
    [
        {},  # the defaults: standardised inputs, centres drawn from the rows, LOO ridge
        {"centers": "data"},
        {"normalize": True},
        {"order": 0},
        {"alpha": 1e-2},
        {"alpha": 1e-2, "solver": "cholesky", "centers": "data"},
    ],
)
def test_estimator_at_any_setting_on_dask_equals_fit(client, params):
    X, y = noisy_data(5)
    chunks = ((500,) * 4 + (400,),)
    with distributed.get_task_stream(client) as tasks:
        model = fit_estimator_dask(
            RandomTSRegressor(n_rules=20, random_state=2, **params, structure="random"),
            da.from_array(X, chunks=chunks + ((3,),)),
            da.from_array(y, chunks=chunks),
            split_every=2,
            client=client,
        )
    whole = RandomTSRegressor(n_rules=20, random_state=2, **params, structure="random").fit(X, y)
    assert model.get_params() == whole.get_params()
    assert model.alpha_ == pytest.approx(whole.alpha_, rel=1e-10)
    # The mean and deviation of the columns are summed in another order than NumPy's; a
    # leave-one-out penalty of 1e-6 of the Gram matrix's scale makes the fit that sensitive
    # to the last bits of the standardisation (one ulp moves the in-memory fit by ~1e-8).
    tolerance = 1e-6 if isinstance(params.get("alpha", "auto"), str) else 1e-10
    assert relative_gap(model.predict(X), whole.predict(X)) < tolerance
    np.testing.assert_allclose(
        model.rule_base_.input_range, whole.rule_base_.input_range, rtol=1e-13
    )
    np.testing.assert_array_equal(model.rule_base_.output_range, whole.rule_base_.output_range)
    assert model.rule_base_.metadata.keys() == whole.rule_base_.metadata.keys()
    assert model.rule_base_.metadata["n_samples_fit"] == 2400
    assert model.rule_base_.metadata["weakest_log_firing"] == pytest.approx(
        whole.rule_base_.metadata["weakest_log_firing"], rel=1e-10
    )
    names = [str(task["key"]) for task in tasks.data]
    if isinstance(params.get("alpha", "auto"), str):  # both passes ran chunk by chunk
        assert sum("_chunk_gram" in name for name in names) == 5
        assert sum("_chunk_loo" in name for name in names) == 5
    else:
        assert sum("_chunk_stream" in name for name in names) == 5
    # the model is an ordinary fitted estimator: it warns far from the data, saves and prunes
    with pytest.warns(randomts.ExtrapolationWarning):
        model.predict(X[:3] + [1e4, 0, 0])
    assert model.prune(5, X, y).predict(X).shape == (2400,)


def test_estimator_on_dask_with_fewer_rows_than_unknowns_fits_them_in_memory(client):
    X, y = noisy_data(6, n=150)  # 100 rules x 4 unknowns > 150 rows: the row space
    model = fit_estimator_dask(
        RandomTSRegressor(random_state=0, structure="random"),
        da.from_array(X, chunks=(50, 3)),
        da.from_array(y, chunks=50),
    )
    whole = RandomTSRegressor(random_state=0, structure="random").fit(X, y)
    np.testing.assert_array_equal(model.predict(X), whole.predict(X))


def test_the_estimator_given_to_dask_is_left_unchanged(client):
    X, y = noisy_data(7, n=600)
    template = RandomTSRegressor(n_rules=5, random_state=0, structure="random")
    model = fit_estimator_dask(
        template, da.from_array(X, chunks=(200, 3)), da.from_array(y, chunks=200)
    )
    assert model is not template and hasattr(model, "rule_base_")
    assert not hasattr(template, "rule_base_")
