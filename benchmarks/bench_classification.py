"""RandomTSClassifier against kernel classifiers on scikit-learn's bundled classification sets.

Stratified 5-fold cross-validation (shuffled, ``random_state=0``) of the
accuracy and of the fit time (wall clock, mean per fold) on iris, wine,
breast cancer and digits, and, with ``--datasets``, on two sets shipped with
statsmodels that the classifier's defaults were not chosen on: ``anes96``
(the 1996 American National Election Study: the vote, Clinton or Dole, from
the 9 other survey answers; ``logpopul``, a transform of ``popul``, left out)
and ``fair`` (Fair's 1978 survey of affairs: whether a woman had any, from the
8 other answers), for

* ``RandomTSClassifier()`` at its defaults (or with the keywords of ``--params``;
  ``--params n_rules=100 --regressor-widths``: at the defaults of
  ``RandomTSRegressor``);
* ``StandardScaler`` + ``SVC`` (RBF kernel, scikit-learn's defaults);
* ``StandardScaler`` + ``RBFSampler(gamma=1/n_features, n_components=500)`` +
  ``RidgeClassifierCV`` (random Fourier features of the kernel ``SVC`` uses on
  standardised inputs, ``gamma="scale"``; the ridge chosen by efficient
  leave-one-out);
* ``k-means 100 rules+RidgeCV``: 100 rules placed by
  :func:`randomts.fitting.kmeans.kmeans_antecedents` on the standardised inputs,
  one-hot scores by leave-one-out ridge: what the classifier computes with
  rules placed by k-means.

Prints a markdown table with the command that made it. Usage::

    python benchmarks/bench_classification.py
    python benchmarks/bench_classification.py --repeats 3 --blas-threads 1
    python benchmarks/bench_classification.py --datasets iris wine
    python benchmarks/bench_classification.py --datasets anes96 fair
    python benchmarks/bench_classification.py --params standardize=True alpha=1.0 solver=cholesky
    python benchmarks/bench_classification.py --params n_rules=100 --regressor-widths
"""

from __future__ import annotations

import argparse
import ast
import sys
import time
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine
from sklearn.kernel_approximation import RBFSampler
from sklearn.linear_model import RidgeClassifierCV, RidgeCV
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from randomts import RandomTSClassifier, RuleBase
from randomts.core.sampling import default_width_range
from randomts.fitting.kmeans import kmeans_antecedents


def load_anes96(return_X_y=True):
    from statsmodels.datasets import anes96

    data = anes96.load_pandas().data
    X = data.drop(columns=["vote", "logpopul"]).to_numpy(dtype=float)
    return X, data["vote"].to_numpy(dtype=int)


def load_fair(return_X_y=True):
    from statsmodels.datasets import fair

    data = fair.load_pandas().data
    return data.drop(columns="affairs").to_numpy(dtype=float), (data["affairs"] > 0).to_numpy()


DATASETS = {
    "iris": load_iris,
    "wine": load_wine,
    "breast cancer": load_breast_cancer,
    "digits": load_digits,
    "anes96": load_anes96,
    "fair": load_fair,
}
#: The sets of the default run (the others need statsmodels).
DEFAULT_DATASETS = ["iris", "wine", "breast cancer", "digits"]


class KMeansRulesRidge(ClassifierMixin, BaseEstimator):
    """100 k-means rules (``randomts.fitting.refinement``) with one-hot scores by leave-one-out ridge.

    Close to ``RandomTSClassifier(n_rules=100, centers="kmeans")``: standardised
    inputs, rules on the k-means clusters, linear consequents fitted to one-hot
    targets by ``RidgeCV`` (closed-form leave-one-out over ``alpha``, in the row
    space when the design matrix is wider than tall).
    """

    def __init__(self, n_rules=100, random_state=None):
        self.n_rules = n_rules
        self.random_state = random_state

    def fit(self, X, y):
        self.mean_, self.scale_ = X.mean(axis=0), X.std(axis=0)
        self.scale_[self.scale_ == 0] = 1.0
        U = (X - self.mean_) / self.scale_
        self.classes_ = np.unique(y)
        targets = (y[:, None] == self.classes_[None, :]).astype(float)
        centers, sigmas = kmeans_antecedents(U, self.n_rules, random_state=self.random_state)
        self.rule_base_ = RuleBase(centers, sigmas)
        self.ridge_ = RidgeCV(alphas=np.logspace(-4, 3, 15), fit_intercept=False)
        self.ridge_.fit(self.rule_base_.design_matrix(U), targets)
        return self

    def predict(self, X):
        K = self.rule_base_.design_matrix((X - self.mean_) / self.scale_)
        return self.classes_[np.argmax(self.ridge_.predict(K), axis=1)]


def models(params, n_features, regressor_widths=False):
    if regressor_widths:  # the regressor's default widths instead of the classifier's
        params = {**params, "width_range": default_width_range(n_features)}
    return {
        "RandomTSClassifier": lambda seed: RandomTSClassifier(**params, random_state=seed),
        "StandardScaler+SVC": lambda seed: make_pipeline(StandardScaler(), SVC()),
        "RBFSampler+RidgeClassifierCV": lambda seed: make_pipeline(
            StandardScaler(),
            RBFSampler(gamma=1.0 / n_features, n_components=500, random_state=seed),
            RidgeClassifierCV(alphas=np.logspace(-6, 6, 25)),
        ),
        "k-means 100 rules+RidgeCV": lambda seed: KMeansRulesRidge(random_state=seed),
    }


def evaluate(make, X, y, n_splits=5, repeats=1):
    """Accuracy and fit time over the folds, each fold fitted with seeds ``fold + 100 r``.

    Returns the mean and the standard deviation of the accuracy over the
    ``n_splits * repeats`` fits, the lowest and highest accuracy of one
    repeat (over its folds), and the mean fit time.
    """
    accuracies, times = [], []
    for repeat in range(repeats):
        folds = StratifiedKFold(n_splits, shuffle=True, random_state=0).split(X, y)
        for fold, (train, test) in enumerate(folds):
            model = make(fold + 100 * repeat)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                start = time.perf_counter()
                model.fit(X[train], y[train])
                times.append(time.perf_counter() - start)
                accuracies.append(np.mean(model.predict(X[test]) == y[test]))
    per_repeat = np.mean(np.reshape(accuracies, (repeats, n_splits)), axis=1)
    return (
        np.mean(accuracies),
        np.std(accuracies),
        per_repeat.min(),
        per_repeat.max(),
        np.mean(times),
    )


def _parse_params(items):
    params = {}
    for item in items:
        name, _, value = item.partition("=")
        try:
            params[name] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            params[name] = value
    return params


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", choices=list(DATASETS), default=DEFAULT_DATASETS)
    parser.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="repeat the folds with other seeds (fold + 100 r) of the random models",
    )
    parser.add_argument(
        "--blas-threads",
        type=int,
        help="limit BLAS to this many threads (threadpoolctl); on a machine shared with other "
        "jobs, 1 keeps the times from depending on how busy the other cores are",
    )
    parser.add_argument(
        "--regressor-widths",
        action="store_true",
        help="RandomTSClassifier with RandomTSRegressor's default widths (0, 1/(2 n_features))",
    )
    parser.add_argument(
        "--params", nargs="*", default=[], help="RandomTSClassifier keywords, name=value"
    )
    args = parser.parse_args()
    params = _parse_params(args.params)
    if args.blas_threads is None:
        run(args, params)
    else:
        from threadpoolctl import threadpool_limits

        with threadpool_limits(args.blas_threads, user_api="blas"):
            run(args, params)


def run(args, params):
    names = list(models(params, 1))
    print("command: python " + " ".join(["benchmarks/bench_classification.py", *sys.argv[1:]]))
    print()
    over = (
        f"5 stratified folds x {args.repeats} seeds" if args.repeats > 1 else "5 stratified folds"
    )
    print(f"Accuracy (mean +- std over {over}", end="")
    print(", [lowest, highest] of the seeds' means)" if args.repeats > 1 else ")", end="")
    print(", mean fit time per fold:")
    print()
    print("| data set (rows x inputs, classes) | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 1) + "|")
    for name in args.datasets:
        X, y = DATASETS[name](return_X_y=True)
        cells = []
        for make in models(params, X.shape[1], args.regressor_widths).values():
            accuracy, spread, low, high, seconds = evaluate(make, X, y, repeats=args.repeats)
            span = f" [{low:.4f}, {high:.4f}]" if args.repeats > 1 and high > low else ""
            cells.append(f"{accuracy:.4f} +- {spread:.3f}{span} ({seconds:.2g} s)")
        shape = f"{X.shape[0]} x {X.shape[1]}, {np.unique(y).size}"
        print(f"| {name} ({shape}) | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
