"""
OS-ELM on a stream that drifts
==============================

:class:`~fastelm.OSELMClassifier` learns a stream chunk by chunk. Here the concept changes
half-way; the plain OS-ELM keeps averaging the old concept, while ``forgetting_factor`` and
``window`` follow the new one. :func:`fastelm.stream.prequential` scores each chunk before
learning it (test-then-train).
"""

import matplotlib.pyplot as plt
import numpy as np

from fastelm import OSELMClassifier
from fastelm.stream import prequential

rng = np.random.default_rng(0)
n = 20000
X = rng.standard_normal((n, 4))
y = np.where(np.arange(n) < n // 2, X[:, 0] > 0, X[:, 1] > 0).astype(int)   # drift at n/2

models = {
    "OS-ELM": OSELMClassifier(n_hidden=50, random_state=0),
    "forgetting 0.995": OSELMClassifier(n_hidden=50, random_state=0, forgetting_factor=0.995),
    "window 1000": OSELMClassifier(n_hidden=50, random_state=0, window=1000),
}
fig, ax = plt.subplots(figsize=(6.5, 3.5))
chunk = 100
for name, model in models.items():
    result = prequential(model, X, y, chunk_size=chunk)
    print(f"{name}: accuracy after the drift {result.mean_accuracy(n // 2):.3f}, "
          f"{result.rows_per_second:,.0f} rows/s")
    ax.plot(result.rows, result.accuracy, label=name, lw=1)
ax.axvline(n // 2, color="grey", ls="--", lw=1)
ax.set(xlabel="rows seen", ylabel="prequential accuracy (sliding window)",
       title="A concept drift half-way", ylim=(0.4, 1.02))
ax.legend(loc="lower left")
fig.tight_layout()
