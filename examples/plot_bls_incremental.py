"""
BLS: adding enhancement nodes without retraining
================================================

A Broad Learning System can grow after it is fitted: :meth:`~fastelm.BLSClassifier.add_enhancement_nodes`
appends enhancement nodes and updates the readout, and the result equals a BLS trained with
those nodes from the start. Below, test accuracy on digits as nodes are added in steps.
"""

import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits

from fastelm import BLSClassifier

X, y = load_digits(return_X_y=True)
X = X / 16.0
bls = BLSClassifier(n_windows=10, nodes_per_window=10, n_enhancement=100, reg=1e-3,
                    random_state=0).fit(X[:1300], y[:1300])
nodes, scores, seconds = [100], [bls.score(X[1300:], y[1300:])], [0.0]
for _ in range(8):
    start = time.perf_counter()
    bls.add_enhancement_nodes(100)
    seconds.append(time.perf_counter() - start)
    nodes.append(nodes[-1] + 100)
    scores.append(bls.score(X[1300:], y[1300:]))
print("accuracy by enhancement nodes:", dict(zip(nodes, np.round(scores, 3))))

fresh = BLSClassifier(n_windows=10, nodes_per_window=10, n_enhancement=nodes[-1], reg=1e-3,
                      random_state=0).fit(X[:1300], y[:1300])
print("grown vs trained at once, same accuracy:",
      np.isclose(fresh.score(X[1300:], y[1300:]), scores[-1]))

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(nodes, scores, "o-")
ax.set(xlabel="enhancement nodes", ylabel="held-out accuracy",
       title="BLSClassifier grown by add_enhancement_nodes(100)")
fig.tight_layout()
