"""How closely the C and ONNX exports reproduce ``predict``, on the models the tests export.

For each model of ``tests/export_helpers.py`` (regressors of every setting, classifiers, a
pipeline, a rule base, a fuzzy system, a NARX model), at the rows of ``export_helpers.rows``
(training rows, points between them, points so far away that every strength underflows):
the largest ``|exported - predict|`` over ``max(|predict|, the largest |predict| on the rows
that are not far away)``. The C program is compiled with the system's ``cc`` (``-O2``) and
reads the rows as text with every digit; ONNX runs in onnxruntime.

    python benchmarks/bench_export.py
"""

import os
import sys
import tempfile
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

import export_helpers as helpers  # noqa: E402

from randomts.io import to_c, to_onnx  # noqa: E402


def main():
    import onnxruntime

    warnings.simplefilter("ignore")  # predicting far from the data warns
    folder = tempfile.mkdtemp()
    print("| model | C | ONNX |\n| --- | --- | --- |")
    worst = [0.0, 0.0]
    for index, (name, model, reference, X) in enumerate(helpers.models()):
        expected = reference(X)
        scale = np.maximum(np.abs(expected), np.abs(expected[:30]).max())
        program, _ = helpers.compile_c(to_c(model), folder, f"m{index}", "-DRANDOMTS_MAIN")
        lines = helpers.run_program(program, helpers.csv(X)).stdout.splitlines()
        n_outputs = expected.shape[1]
        from_c = np.array([[float(v) for v in line.split(",")[:n_outputs]] for line in lines])
        session = onnxruntime.InferenceSession(to_onnx(model).SerializeToString())
        from_onnx = session.run(["Y"], {"X": X})[0]
        errors = [np.max(np.abs(found - expected) / scale) for found in (from_c, from_onnx)]
        worst = [max(w, e) for w, e in zip(worst, errors, strict=True)]
        print(f"| {name} | {errors[0]:.1e} | {errors[1]:.1e} |")
    print(f"| largest | {worst[0]:.1e} | {worst[1]:.1e} |")


if __name__ == "__main__":
    main()
