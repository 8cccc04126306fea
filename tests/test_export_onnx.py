"""The ONNX export (randomts.io.to_onnx): onnxruntime runs it as randomts predicts.

Skipped, saying so, where ``onnx`` or ``onnxruntime`` is not installed (both
are in the ``test`` extra; ``pip install 'randomts[onnx]'`` installs ``onnx``).
"""

import sys
import warnings

import numpy as np
import pytest
from export_helpers import assert_close, decided, labels_of, models

onnx = pytest.importorskip("onnx", reason="onnx is not installed (pip install 'randomts[onnx]')")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")

from randomts import RandomTSClassifier, RuleBase  # noqa: E402
from randomts.io import to_onnx  # noqa: E402
from randomts.io.onnx_model import OPSET  # noqa: E402

MODELS = models()
NAMES = [name for name, *_ in MODELS]


def session(model):
    proto = to_onnx(model)
    onnx.checker.check_model(proto, full_check=True)  # standard operators, consistent shapes
    return ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])


@pytest.mark.parametrize("index", range(len(MODELS)), ids=NAMES)
def test_onnxruntime_predicts_as_randomts(index):
    name, model, reference, X = MODELS[index]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # predicting far from the data warns
        expected = reference(X)
    runner = session(model)
    outputs = runner.run(None, {"X": X})
    assert not np.isnan(outputs[0]).any()
    assert_close(outputs[0], expected)
    classes = labels_of(model)
    assert [o.name for o in runner.get_outputs()] == ["Y"] + ([] if classes is None else ["label"])
    if classes is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            predicted = model.predict(X)
        # a tie to rounding may go either way: far from the data a decision decays to 0
        sure = decided(expected)
        assert sure[:30].all()  # the rows near the data
        assert np.asarray(outputs[1])[sure].tolist() == np.asarray(predicted)[sure].tolist()


def test_the_graph_uses_standard_operators_of_one_opset():
    proto = to_onnx(MODELS[0][1])
    assert [(o.domain, o.version) for o in proto.opset_import] == [("", OPSET)]
    schemas = {node.op_type for node in proto.graph.node}
    for op_type in schemas:
        assert onnx.defs.has(op_type, "")  # an operator of the default domain
    (x,) = proto.graph.input
    assert x.type.tensor_type.elem_type == onnx.TensorProto.DOUBLE
    assert [d.dim_param or d.dim_value for d in x.type.tensor_type.shape.dim] == ["N", 2]
    props = {p.key: p.value for p in proto.metadata_props}
    assert props["input_names"] == '["x1", "x2"]'


def test_labels_keep_their_type_and_an_empty_batch_runs():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    for y in (X[:, 0] > 0, (X[:, 0] > 0).astype(int) + 3, np.where(X[:, 1] > 0, 2.0, -1.0)):
        model = RandomTSClassifier(n_rules=10, random_state=0, structure="random").fit(X, y)
        labels = session(model).run(["label"], {"X": X})[0]
        assert labels.dtype.kind == np.asarray(model.classes_).dtype.kind
        assert labels.tolist() == model.predict(X).tolist()
    rb = RuleBase.random(n_features=2, n_rules=4, normalize=True, random_state=0)
    Y = session(rb).run(["Y"], {"X": np.zeros((0, 2))})[0]
    assert Y.shape == (0, 1)


def test_without_onnx_the_error_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx raises ImportError
    with pytest.raises(ImportError, match=r"pip install 'randomts\[onnx\]'"):
        to_onnx(RuleBase(centers=[[0.0]], sigmas=[[1.0]]))
