"""ONNX export of fitted ELM, OS-ELM, FOS-ELM and BLS estimators (``pip install fastelm[onnx]``).

``to_onnx(model, X_sample)`` writes the prediction path as standard ONNX operators, so a model
trained in Python runs in onnxruntime (C, C++, C#, Java, JavaScript, mobile) without fastelm:

ELM, OS-ELM, FOS-ELM (docs/algorithms.md §1, §2, §4)::

    H = g(X W + b)                        MatMul, Add, Tanh | Sigmoid | Relu | Sin | Identity
    scores = H beta                       MatMul

BLS (docs/algorithms.md §5)::

    X' = (X − offset)·gain                'minmax': Sub, Mul  ('reference': row z-score,
                                          rows of extreme magnitude rescaled first)
    Z = ((X' W_s + 0.1 w_s) − offset_z)·gain_z                  MatMul, Add, Sub, Mul
    E_g = tanh(l_g (Z Wh_g + 0.1 wh_g))   one group per ``add_enhancement_nodes`` call
    scores = [Z | E_1 | …] beta           Concat, MatMul

Regressors output ``variable`` (n,) or (n, m) like ``predict``; classifiers output ``label``
(``classes_[argmax scores]``: ArgMax, Gather; in the dtype of ``classes_``, str as ONNX
strings, and a TypeError for labels ONNX cannot hold, e.g. datetime64) and ``probabilities`` (Softmax of the scores,
as ``predict_proba``), and with ``options={'decision_function': True}`` the raw ``scores``.
Weights are stored in the model's dtype (float32 or float64) and every product runs in it, as
in fastelm; the input takes X_sample's dtype (float32 or float64) and is cast when it differs.
onnxruntime's outputs equal fastelm's to about 1e-7 (float32) and 1e-15 (float64) of the
scores' scale (``tests/test_onnx.py``). The graph is built with ``onnx.helper`` and checked
by ``onnx.checker``; a preprocessing step fitted in scikit-learn can be exported with
skl2onnx and joined in front of it (``onnx.compose.merge_models``).
"""
from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, is_classifier
from sklearn.utils.validation import check_is_fitted

from ._hidden import check_activation

if TYPE_CHECKING:
    import onnx

TARGET_OPSET = 17
MIN_OPSET = 13  # Softmax over one axis
AXES_INPUT_OPSET = 18  # ReduceMax, ReduceMean, ReduceSumSquare: axes an input from here on
OPTIONS = ("zipmap", "decision_function")
_ONNX_ACTIVATION = {"tanh": "Tanh", "tansig": "Tanh", "sigmoid": "Sigmoid", "relu": "Relu",
                    "sine": "Sin", "sin": "Sin", "linear": "Identity", "identity": "Identity"}


def _import_onnx():
    try:
        import onnx
    except ImportError:  # pragma: no cover - the optional extra is missing
        raise ImportError("fastelm.onnx needs the onnx package: pip install 'fastelm[onnx]'") \
            from None
    return onnx


class _Graph:
    """Nodes and initializers of one graph of operator set ``opset``; ``node``, ``const`` and
    ``reduce_rows`` return the new names. ``versions``: the nodes (by name) that need an
    operator version above MIN_OPSET, and that version."""

    def __init__(self, opset, prefix=""):
        self.nodes, self.initializers, self._count, self.prefix = [], [], 0, prefix
        self.opset, self.versions = opset, {}

    def name(self, hint):
        self._count += 1
        return f"{self.prefix}{hint}_{self._count}"

    def node(self, op, inputs, hint=None, outputs=None, **attrs):
        from onnx import helper

        outputs = outputs or [self.name(hint or op.lower())]
        self.nodes.append(helper.make_node(op, list(inputs), outputs, name=self.name(op),
                                           **attrs))
        return outputs[0]

    def const(self, value, hint="const"):
        from onnx import numpy_helper

        name = self.name(hint)
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def reduce_rows(self, op, x):
        """``op`` (ReduceMax, ReduceMean, ReduceSumSquare) of each row of x, kept (n, 1): the
        axes an attribute before opset 18, an input from opset 18 on."""
        if self.opset < AXES_INPUT_OPSET:
            return self.node(op, [x], axes=[1], keepdims=1)
        out = self.node(op, [x, self.const(np.array([1], dtype=np.int64), "axes")], keepdims=1)
        self.versions[self.nodes[-1].name] = AXES_INPUT_OPSET
        return out


def _kind(model):
    """('elm' | 'bls', is_classifier) for a supported estimator; TypeError otherwise."""
    from .bls import _BLS
    from .elm import _ELM, _OSELM
    from .model_selection._elm_cv import _ELMCV

    if isinstance(model, (_ELM, _OSELM, _ELMCV)):
        family = "elm"
    elif isinstance(model, _BLS):
        family = "bls"
    else:
        raise TypeError(f"to_onnx exports fastelm's ELM, OS-ELM, FOS-ELM and BLS estimators "
                        f"(and their CV estimators), not {type(model).__name__}")
    return family, is_classifier(model)


def _dtype(model, family):
    return (model.W_ if family == "elm" else model.sparse_weights_).dtype


def _check_options(options, classifier):
    options = dict(options or {})
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise ValueError(f"options {unknown} are not supported; to_onnx knows {list(OPTIONS)}")
    if options.get("zipmap", False):
        raise ValueError("options={'zipmap': True} is not supported: probabilities are "
                         "exported as one (n, n_classes) tensor")
    if options.get("decision_function", False) and not classifier:
        raise ValueError("options={'decision_function': True} applies to classifiers only")
    return options


def _scores_elm(g, model, x):
    """scores = g(x W + b) beta for the ELM family ([x, g(x W + b)] beta with direct links)."""
    dtype = model.W_.dtype
    H = g.node("Add", [g.node("MatMul", [x, g.const(model.W_, "W")]), g.const(model.b_, "b")])
    H = g.node(_ONNX_ACTIVATION[model.activation_], [H], "hidden")
    if model.direct_links_:
        H = g.node("Concat", [x, H], "links", axis=1)
    return g.node("MatMul", [H, g.const(np.asarray(model.beta_, dtype=dtype), "beta")], "scores")


def _zscore_rows(g, x, n_features, dtype):
    """(x/m − mean) / sd per row (ddof=1; sd 0 → 1/m), the statistics in float64, as the
    kernel ``zscore_rows``: m = max |x| of the row when it is outside [ZSCORE_SAFE_MIN,
    ZSCORE_SAFE_MAX] (and not 0), else 1, so that squares neither overflow nor underflow."""
    from onnx import TensorProto

    from ._kernels.bls import ZSCORE_SAFE_MAX, ZSCORE_SAFE_MIN

    xd = x if dtype == np.float64 else g.node("Cast", [x], to=TensorProto.DOUBLE)
    m = g.reduce_rows("ReduceMax", g.node("Abs", [xd]))
    outside = g.node("Or", [g.node("Greater", [m, g.const(np.array(ZSCORE_SAFE_MAX))]),
                            g.node("Less", [m, g.const(np.array(ZSCORE_SAFE_MIN))])])
    rescale = g.node("And", [outside, g.node("Greater", [m, g.const(np.array(0.0))])])
    scale = g.node("Where", [rescale, m, g.const(np.array(1.0))], "row_scale")
    xd = g.node("Div", [xd, scale])
    centred = g.node("Sub", [xd, g.reduce_rows("ReduceMean", xd)])
    if n_features > 1:
        ss = g.reduce_rows("ReduceSumSquare", centred)
        sd = g.node("Sqrt", [g.node("Div", [ss, g.const(np.array(n_features - 1.0))])])
        zero = g.node("Equal", [sd, g.const(np.array(0.0))])
        sd = g.node("Where", [zero, g.node("Reciprocal", [scale]), sd])
        centred = g.node("Div", [centred, sd])
    return centred if dtype == np.float64 else g.node("Cast", [centred], to=TensorProto.FLOAT)


def _scores_bls(g, model, x):
    """scores = [Z | E_1 | …] beta for a BLS ([X' | Z | E_1 | …] with direct links, X' the
    scaled inputs), following ``_BLS._scores`` step by step."""
    from .bls import BIAS

    dtype = model.sparse_weights_.dtype
    if model.preprocessing_ == "reference":
        x = _zscore_rows(g, x, model.n_features_in_, dtype)
    else:
        x = g.node("Mul", [g.node("Sub", [x, g.const(model.x_offset_, "x_offset")]),
                           g.const(model.x_gain_, "x_gain")])
    Ws = model.sparse_weights_
    Z = g.node("Add", [g.node("MatMul", [x, g.const(Ws[:-1], "sparse_weights")]),
                       g.const(BIAS * Ws[-1], "sparse_bias")])
    Z = g.node("Mul", [g.node("Sub", [Z, g.const(model.feature_offset_, "feature_offset")]),
                       g.const(model.feature_gain_, "feature_gain")], "Z")
    parts = [x, Z] if model.direct_links_ else [Z]  # direct links: I = [X' | Z | E]
    for Wh, shrink in zip(model.enhancement_weights_, model.enhancement_shrink_):
        T2 = g.node("Add", [g.node("MatMul", [Z, g.const(Wh[:-1], "enhancement_weights")]),
                            g.const(BIAS * Wh[-1], "enhancement_bias")])
        scaled = g.node("Mul", [T2, g.const(np.array(shrink, dtype=dtype), "shrink")])
        parts.append(g.node("Tanh", [scaled], "E"))
    broad = g.node("Concat", parts, "I", axis=1)
    return g.node("MatMul", [broad, g.const(np.asarray(model.beta_, dtype=dtype), "beta")],
                  "scores")


def _class_labels(classes, exact=True):
    """classes_ as the ONNX tensor the ``label`` output gathers from, so that it equals
    ``predict``: in their own dtype (bool, (u)int8-64, float16-64; str, or an object array of
    str, as ONNX strings), or with ``exact=False`` (skl2onnx's converter, whose ZipMap takes
    int64 or str labels) as int64, float64 or str when those hold the same values. A TypeError
    for labels that ONNX cannot hold (datetime64, complex, bytes, long double, mixed objects).
    """
    kind = classes.dtype.kind
    if kind == "U" or (kind == "O" and all(isinstance(c, str) for c in classes)):
        return np.array([str(c) for c in classes], dtype=object)
    if kind in "biuf" and classes.dtype.itemsize <= 8:
        if exact:
            return classes
        if kind != "u" or classes.max() <= np.iinfo(np.int64).max:
            return classes.astype(np.float64 if kind == "f" else np.int64)
    raise TypeError(f"classes_ of dtype {classes.dtype} (e.g. {classes[0]!r}) cannot be "
                    f"exported as ONNX labels equal to predict's"
                    + ("" if exact else " through skl2onnx (int64, float64 or str labels)")
                    + ": refit on integer, float, bool or str labels")


def _emit(g, model, family, classifier, x, out_names, options, exact=True):
    """Add the prediction graph of ``model`` reading input ``x``; outputs named ``out_names``
    (``exact``: the labels' dtype, ``_class_labels``)."""
    scores = (_scores_elm if family == "elm" else _scores_bls)(g, model, x)
    if not classifier:
        if getattr(model, "_y_1d", False):
            g.node("Reshape", [scores, g.const(np.array([-1], dtype=np.int64), "shape")],
                   outputs=[out_names[0]])
        else:
            g.node("Identity", [scores], outputs=[out_names[0]])
        return
    index = g.node("ArgMax", [scores], "index", axis=1, keepdims=0)
    g.node("Gather", [g.const(_class_labels(model.classes_, exact), "classes"), index],
           outputs=[out_names[0]], axis=0)
    g.node("Softmax", [scores], outputs=[out_names[1]], axis=1)
    if options.get("decision_function", False):
        g.node("Identity", [scores], outputs=[out_names[2]])


def _output_specs(model, family, classifier, options, exact=True):
    """(name, numpy dtype, shape) of each output."""
    dtype = _dtype(model, family)
    if not classifier:
        shape = [None] if getattr(model, "_y_1d", False) else [None, model.beta_.shape[1]]
        return [("variable", dtype, shape)]
    labels = _class_labels(model.classes_, exact)
    specs = [("label", labels.dtype, [None]),
             ("probabilities", dtype, [None, len(model.classes_)])]
    if options.get("decision_function", False):
        specs.append(("scores", dtype, [None, model.beta_.shape[1]]))
    return specs


def _tensor_type(dtype):
    from onnx import TensorProto, helper

    dtype = np.dtype(dtype)
    return TensorProto.STRING if dtype == object else helper.np_dtype_to_tensor_dtype(dtype)


def to_onnx(model: BaseEstimator, X_sample: ArrayLike, *, target_opset: int | None = None,
            options: dict[str, bool] | None = None) -> onnx.ModelProto:
    """The ONNX model (``onnx.ModelProto``) of a fitted fastelm estimator's predictions.

    Parameters
    ----------
    model : fitted ELM*, OSELM*, FOSELM* or BLS* estimator (a CV one too: its chosen point)
    X_sample : array-like (n, n_features_in_)
        A few input rows: their dtype (float32 or float64) is the ONNX input's.
    target_opset : int, default=17
        ONNX operator set of the graph, from 13 to ``onnx.defs.onnx_opset_version()``.
    options : dict, optional
        ``{'decision_function': True}`` adds the readout ``scores`` output to a classifier;
        ``{'zipmap': False}`` is accepted for skl2onnx compatibility (no ZipMap is ever made).

    Returns
    -------
    onnx.ModelProto with input ``X`` and outputs ``variable`` (regressors) or ``label`` and
    ``probabilities`` (classifiers).

    Examples
    --------
    >>> import numpy as np, onnxruntime as ort
    >>> from fastelm import ELMClassifier
    >>> from fastelm.onnx import to_onnx
    >>> X = np.random.default_rng(0).standard_normal((200, 4)); y = (X[:, 0] > 0).astype(int)
    >>> clf = ELMClassifier(n_hidden=30, random_state=0).fit(X, y)
    >>> session = ort.InferenceSession(to_onnx(clf, X[:1]).SerializeToString())
    >>> label, proba = session.run(None, {"X": X})
    >>> bool((label == clf.predict(X)).all())
    True
    """
    onnx = _import_onnx()
    from onnx import helper

    family, classifier = _kind(model)
    check_is_fitted(model, "beta_", msg=f"This {type(model).__name__} is not fitted yet: fit "
                    "it before to_onnx")
    options = _check_options(options, classifier)
    opset = TARGET_OPSET if target_opset is None else target_opset
    if not isinstance(opset, (numbers.Integral, np.integer)) or opset < MIN_OPSET or \
            opset > onnx.defs.onnx_opset_version():
        raise ValueError(f"target_opset={target_opset!r} must be an integer in "
                         f"[{MIN_OPSET}, {onnx.defs.onnx_opset_version()}]")
    check_activation(getattr(model, "activation", "tanh"))
    X_sample = np.asarray(X_sample)
    if X_sample.dtype not in (np.float32, np.float64):
        raise TypeError(f"X_sample has dtype {X_sample.dtype}; the ONNX input is float32 or "
                        "float64: pass X_sample.astype(np.float32) or np.float64")
    if X_sample.ndim != 2 or X_sample.shape[1] != model.n_features_in_:
        raise ValueError(f"X_sample must have shape (n, {model.n_features_in_}); got "
                         f"{X_sample.shape}")
    g = _Graph(int(opset))
    x = "X"
    dtype = _dtype(model, family)
    if X_sample.dtype != dtype:
        x = g.node("Cast", [x], to=_tensor_type(dtype))
    specs = _output_specs(model, family, classifier, options)
    _emit(g, model, family, classifier, x, [name for name, _, _ in specs], options)
    graph = helper.make_graph(
        g.nodes, f"fastelm_{type(model).__name__}",
        [helper.make_tensor_value_info("X", _tensor_type(X_sample.dtype),
                                       [None, model.n_features_in_])],
        [helper.make_tensor_value_info(name, _tensor_type(dt), shape)
         for name, dt, shape in specs],
        initializer=g.initializers)
    onnx_model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", int(opset))],
                                   producer_name="fastelm")
    # the oldest IR version that carries the opset: readable by older runtimes too
    onnx_model.ir_version = helper.find_min_ir_version_for(list(onnx_model.opset_import))
    onnx.checker.check_model(onnx_model)
    return onnx_model


def _estimator_classes():
    from .bls import BLSClassifier, BLSRegressor
    from .elm import ELMClassifier, ELMRegressor, OSELMClassifier, OSELMRegressor
    from .fos_elm import FOSELMClassifier, FOSELMRegressor

    return (ELMRegressor, ELMClassifier, OSELMRegressor, OSELMClassifier, FOSELMRegressor,
            FOSELMClassifier, BLSRegressor, BLSClassifier)


def _skl2onnx_shape(operator):
    """skl2onnx shape calculator: the output types of ``_output_specs``."""
    from skl2onnx.common.data_types import (DoubleTensorType, FloatTensorType, Int64TensorType,
                                            StringTensorType)

    model = operator.raw_operator
    family, classifier = _kind(model)
    types = {np.dtype(np.float32): FloatTensorType, np.dtype(np.float64): DoubleTensorType,
             np.dtype(np.int64): Int64TensorType, np.dtype(object): StringTensorType}
    for variable, (_, dtype, shape) in zip(
            operator.outputs, _output_specs(model, family, classifier, {}, exact=False)):
        variable.type = types[np.dtype(dtype)](shape)


def _skl2onnx_convert(scope, operator, container):
    """skl2onnx converter: the graph of ``_emit`` (the one ``to_onnx`` writes), added to
    skl2onnx's container under names unique in its scope."""
    from onnx import helper

    model = operator.raw_operator
    family, classifier = _kind(model)
    g = _Graph(container.target_opset, prefix=scope.get_unique_variable_name("fastelm") + "_")
    x = operator.inputs[0].full_name
    dtype = _dtype(model, family)
    if operator.inputs[0].type.to_onnx_type().tensor_type.elem_type != _tensor_type(dtype):
        x = g.node("Cast", [x], to=_tensor_type(dtype))
    _emit(g, model, family, classifier, x, [v.full_name for v in operator.outputs], {},
          exact=False)
    container.initializers.extend(g.initializers)
    for node in g.nodes:
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        container.add_node(node.op_type, list(node.input), list(node.output), name=node.name,
                           op_version=g.versions.get(node.name, MIN_OPSET), **attrs)


def _skl2onnx_parse(scope, model, inputs, custom_parsers=None):
    """skl2onnx parser of a classifier: skl2onnx's own (label, probabilities, then ZipMap
    unless ``zipmap`` is False), with ZipMap off for a float64 classifier, whose float64
    probabilities onnxruntime's ZipMap (float32 only) refuses (``'columns'`` is kept)."""
    from skl2onnx._parse import _apply_zipmap, _parse_sklearn_simple_model

    float64 = _dtype(model, _kind(model)[0]) == np.float64
    # skl2onnx's Pipeline parser passes zipmap=True down when the step has no options of its
    # own, so True is taken as "not asked otherwise": off in float64
    zipmap = scope.get_options(model, dict(zipmap=True))["zipmap"]
    if float64 and zipmap is True:
        zipmap = False
    probabilities = _parse_sklearn_simple_model(scope, model, inputs,
                                                custom_parsers=custom_parsers)
    if zipmap is False:
        return probabilities
    return _apply_zipmap(zipmap, scope, model, inputs[0].type, probabilities)


def register_skl2onnx() -> None:
    """Register fastelm's estimators with skl2onnx (``pip install fastelm[onnx]``).

    Afterwards ``skl2onnx.to_onnx(model, X)`` converts a fitted ELM, OS-ELM, FOS-ELM or BLS
    estimator, alone or as the last step of a scikit-learn ``Pipeline`` (its preprocessing
    converted by skl2onnx), with the graph ``to_onnx`` writes. Classifiers follow skl2onnx's
    conventions: ``label`` and ``probabilities``, the latter as a ZipMap of dicts unless
    ``options={'zipmap': False}``. ZipMap takes float32 probabilities only, so for a float64
    classifier it is always off (probabilities as a float64 tensor; ``'columns'``, one output
    per class, is kept): ``skl2onnx.to_onnx`` works on it with its defaults. Calling it again
    is harmless.
    """
    from sklearn.base import ClassifierMixin

    from skl2onnx import update_registered_converter

    for cls in _estimator_classes():
        classifier = issubclass(cls, ClassifierMixin)
        update_registered_converter(
            cls, f"Fastelm{cls.__name__}", _skl2onnx_shape, _skl2onnx_convert,
            options={"zipmap": [True, False, "columns"], "nocl": [False]} if classifier
            else None, parser=_skl2onnx_parse if classifier else None)
