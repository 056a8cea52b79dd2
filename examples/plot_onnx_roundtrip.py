"""
ONNX round trip
===============

:func:`fastelm.onnx.to_onnx` writes a fitted estimator as a standard ONNX graph; onnxruntime then
predicts without fastelm (or Python). This example needs the ``onnx`` extra; without
onnxruntime it says so and stops.
"""

import numpy as np
from sklearn.datasets import load_digits

from fastelm import ELMClassifier

try:
    import onnxruntime as ort

    from fastelm.onnx import to_onnx
except ImportError as error:  # the onnx extra is optional
    print(f"skipped: {error.name} is not installed (pip install -e '.[onnx]')")
    ort = None

if ort is not None:
    X, y = load_digits(return_X_y=True)
    X = (X / 16.0).astype(np.float32)
    model = ELMClassifier(n_hidden=300, alpha=1e-3, dtype="float32", random_state=0).fit(X, y)
    graph = to_onnx(model, X[:1])
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    label, proba = session.run(None, {session.get_inputs()[0].name: X})
    print("outputs:", [o.name for o in session.get_outputs()])
    print("labels agree:", (label == model.predict(X)).mean())
    print("largest probability difference:", np.abs(proba - model.predict_proba(X)).max())
