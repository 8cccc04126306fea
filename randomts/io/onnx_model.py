"""Export a model as ONNX: a graph of standard operators that any ONNX runtime evaluates.

:func:`to_onnx` builds, with ``onnx.helper``, a model (opset 18 of the
default domain, no custom operators) with one input ``X``, float64 of shape
``[N, n_features]``, and one output ``Y``, float64 of shape ``[N, n_outputs]``
(a classifier adds ``label``, shape ``[N]``, its predicted classes). The graph
computes what :func:`randomts.core.inference.predict` computes, in the same
way: ``log w_i = -1/2 sum_k ((x_k - c_ik) * (1 / sigma_ik))^2``; the weighted
sum of ``exp(log w)``, or the weighted average with the largest log strength
subtracted first (and the nearest rule's output where every strength
underflows, as randomts gives it); the consequents as ``sum_i w_i b_i +
sum_k x_k sum_i w_i a_ik``. Only the order of sums differs from NumPy's.

It needs the ``onnx`` package (``pip install 'randomts[onnx]'``); running
the model needs an ONNX runtime, e.g. ``onnxruntime``. The graph holds
``N x n_rules x n_features`` float64 intermediates: predict in batches of rows
that fit in memory.

Examples
--------
>>> import pytest
>>> _ = pytest.importorskip("onnx")
>>> from randomts import RuleBase
>>> model = to_onnx(RuleBase(centers=[[0.0]], sigmas=[[1.0]], intercept=[[2.0]]))
>>> [i.name for i in model.graph.input], [o.name for o in model.graph.output]
(['X'], ['Y'])
"""

from __future__ import annotations

import json

import numpy as np

from randomts._version import __version__
from randomts.io._deployment import deployed

__all__ = ["to_onnx", "OPSET"]

#: The version of the default ONNX operator set the graphs use.
OPSET = 18


def to_onnx(model):
    """An ONNX model that predicts as ``model`` does.

    Parameters
    ----------
    model : RuleBase, FuzzySystem, fitted estimator or fitted Pipeline
        What :func:`randomts.io.c_code.to_c` accepts: a rule base, a fitted
        regressor, classifier (``Y`` holds its ``decision_function``,
        ``label`` its ``predict``) or NARX model (its one-step-ahead map
        from the regressors), a pipeline of scalers ending with one, or a
        :class:`~randomts.FuzzySystem` of a rule base's shape.

    Returns
    -------
    onnx.ModelProto
        Input ``X`` (float64, ``[N, n_features]``, the data's own units),
        output ``Y`` (float64, ``[N, n_outputs]``) and, for a classifier,
        ``label`` (``[N]``, the classes' type: int64, float64, bool or
        string). ``model.SerializeToString()`` is the ``.onnx`` file. The
        variable names are in its ``metadata_props``.

    Raises
    ------
    ImportError
        If the ``onnx`` package is not installed.
    TypeError, ValueError
        As :func:`randomts.io.c_code.to_c`.

    Examples
    --------
    >>> import numpy as np
    >>> import pytest
    >>> ort = pytest.importorskip("onnxruntime")
    >>> from randomts import RandomTSRegressor
    >>> X = np.linspace(0, 1, 50).reshape(-1, 1)
    >>> model = RandomTSRegressor(n_rules=5, random_state=0).fit(X, X[:, 0] ** 2)
    >>> session = ort.InferenceSession(to_onnx(model).SerializeToString())
    >>> Y = session.run(["Y"], {"X": X})[0]
    >>> bool(np.allclose(Y[:, 0], model.predict(X), rtol=1e-12, atol=1e-12))
    True
    """
    try:
        import onnx
    except ImportError:
        raise ImportError(
            "to_onnx needs the onnx package: pip install 'randomts[onnx]' (or pip install onnx)."
        ) from None
    model = deployed(model, "ONNX")
    rb = model.rule_base
    graph = _Graph(onnx)
    X = "X"
    if rb.lock_range:  # each input held in its range, the outputs after
        X = _held(graph, X, rb.input_range)
    W = _weights(graph, rb, X)
    Y = _outputs(graph, rb, W, X)
    outputs = {"Y": _held(graph, Y, rb.output_range) if rb.lock_range else Y}
    if model.kind == "classifier":
        outputs["label"] = _label(graph, outputs["Y"], model.classes)
    return graph.model(rb, outputs, model)


class _Graph:
    """Nodes and constants of a graph being built, with generated names."""

    def __init__(self, onnx):
        self.onnx, self.helper = onnx, onnx.helper
        self.nodes, self.constants, self.count = [], [], 0

    def constant(self, value, name=None):
        """A constant tensor (float64 unless ``value`` is an ndarray of another type)."""
        array = value if isinstance(value, np.ndarray) else np.asarray(value, dtype=np.float64)
        if array.dtype.kind == "U":  # text labels: ONNX strings
            array = array.astype(object)
        self.count += 1
        name = name or f"c{self.count}"
        self.constants.append(self.onnx.numpy_helper.from_array(array, name))
        return name

    def axes(self, *axes):
        return self.constant(np.asarray(axes, dtype=np.int64))

    def __call__(self, op_type, *inputs, **attributes):
        self.count += 1
        output = f"{op_type.lower()}{self.count}"
        self.nodes.append(self.helper.make_node(op_type, list(inputs), [output], **attributes))
        return output

    def model(self, rb, outputs, deployed_model):
        helper, onnx = self.helper, self.onnx
        TensorProto = onnx.TensorProto
        for name, produced in outputs.items():  # each output under its own name
            self.nodes.append(helper.make_node("Identity", [produced], [name]))
        X = helper.make_tensor_value_info("X", TensorProto.DOUBLE, ["N", rb.n_features])
        results = [helper.make_tensor_value_info("Y", TensorProto.DOUBLE, ["N", rb.n_outputs])]
        if "label" in outputs:
            label_type = next(c for c in self.constants if c.name == "classes").data_type
            results.append(helper.make_tensor_value_info("label", label_type, ["N"]))
        graph = helper.make_graph(
            self.nodes,
            "randomts",
            [X],
            results,
            initializer=self.constants,
            doc_string=deployed_model.describe(),
        )
        opsets = [helper.make_opsetid("", OPSET)]
        model = helper.make_model(
            graph,
            opset_imports=opsets,
            producer_name="randomts",
            producer_version=__version__,
            ir_version=helper.find_min_ir_version_for(opsets),
            doc_string=deployed_model.describe(),
        )
        properties = {
            "input_names": json.dumps(list(rb.input_names), ensure_ascii=False),
            "output_names": json.dumps(list(rb.output_names), ensure_ascii=False),
            "normalize": json.dumps(rb.normalize),
            "lock_range": json.dumps(rb.lock_range),
        }
        if deployed_model.labels is not None:
            properties["classes"] = json.dumps(list(deployed_model.labels), ensure_ascii=False)
        helper.set_model_props(model, properties)
        return model


def _held(g, tensor, ranges):
    """``tensor`` ``[N, n]`` with column ``k`` clipped to ``ranges[k]``."""
    return g("Min", g("Max", tensor, g.constant(ranges[:, 0])), g.constant(ranges[:, 1]))


def _weights(g, rb, X):
    """The rules' weights at every row of ``X``: ``[N, n_rules]``."""
    centers, sigmas = rb.centers, rb.sigmas
    D = g("Sub", g("Unsqueeze", X, g.axes(1)), g.constant(centers))  # [N, H, n]
    scaled = g("Mul", D, g.constant(1.0 / sigmas))  # 1 / sigma first, as randomts does
    log_w = g(
        "Mul",
        g("ReduceSum", g("Mul", scaled, scaled), g.axes(2), keepdims=0),
        g.constant(-0.5),
    )  # [N, H]
    if not rb.normalize:
        return g("Exp", log_w)
    top = g("ReduceMax", log_w, g.axes(1), keepdims=1)  # [N, 1]
    lost = g("IsInf", top, detect_positive=0, detect_negative=1)  # every strength underflows
    shifted = g("Exp", g("Sub", log_w, g("Where", lost, g.constant(0.0), top)))
    average = g("Div", shifted, g("ReduceSum", shifted, g.axes(1), keepdims=1))
    # where every strength underflows, the weighted average tends to the nearest rule's
    # output (ties share the weight): its scaled distance compared through its log
    distance = g("Abs", g("Div", D, g.constant(sigmas)))  # [N, H, n]
    largest = g("ReduceMax", distance, g.axes(2), keepdims=1)  # [N, H, 1]
    ratio = g("Div", distance, largest)
    log_distance = g(
        "Add",
        g("Log", g("Squeeze", largest, g.axes(2))),
        g(
            "Mul",
            g.constant(0.5),
            g("Log", g("ReduceSum", g("Mul", ratio, ratio), g.axes(2), keepdims=0)),
        ),
    )  # [N, H]
    nearest = g(
        "Cast",
        g("Equal", log_distance, g("ReduceMin", log_distance, g.axes(1), keepdims=1)),
        to=g.onnx.TensorProto.DOUBLE,
    )
    shared = g("Div", nearest, g("ReduceSum", nearest, g.axes(1), keepdims=1))
    return g("Where", lost, shared, average)


def _outputs(g, rb, W, X):
    """``Y = W b + sum_k x_k (W a_k)``: ``[N, n_outputs]``."""
    constant = g("MatMul", W, g.constant(rb.intercept))  # [N, m]
    if not np.any(rb.coef):  # constant consequents, as randomts.core.inference decides
        return constant
    n_outputs, n_features = rb.n_outputs, rb.n_features
    slopes = rb.coef.transpose(0, 2, 1).reshape(rb.n_rules, n_features * n_outputs)
    mixed = g(
        "Reshape",
        g("MatMul", W, g.constant(slopes)),
        g.constant(np.asarray([0, n_features, n_outputs], dtype=np.int64)),
    )  # [N, n, m]: W a_k for each input k
    linear = g("ReduceSum", g("Mul", g("Unsqueeze", X, g.axes(2)), mixed), g.axes(1), keepdims=0)
    return g("Add", constant, linear)


def _label(g, Y, classes):
    """A classifier's predicted class: the sign of one score, or the highest of several."""
    if classes.size == 2:
        index = g(
            "Cast",
            g("Greater", g("Squeeze", Y, g.axes(1)), g.constant(0.0)),
            to=g.onnx.TensorProto.INT64,
        )
    else:
        index = g("ArgMax", Y, axis=1, keepdims=0, select_last_index=0)
    return g("Gather", g.constant(classes, "classes"), index, axis=0)
