"""
ELM on digits: accuracy against the hidden size
===============================================

An extreme learning machine draws a random hidden layer and fits only a ridge readout, so its
capacity is set by the number of hidden nodes L (and the penalty ``alpha``). Hidden layers nest:
the first k nodes of a seed's L-node layer are its k-node layer, so the curve below is one
random layer read at growing widths.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits

from fastelm import ELMClassifier

X, y = load_digits(return_X_y=True)
X = X / 16.0
sizes = [25, 50, 100, 200, 400, 800, 1200]
train, test = [], []
for L in sizes:
    model = ELMClassifier(n_hidden=L, alpha=1e-3, random_state=0).fit(X[:1200], y[:1200])
    train.append(model.score(X[:1200], y[:1200]))
    test.append(model.score(X[1200:], y[1200:]))
print("test accuracy:", dict(zip(sizes, np.round(test, 3))))

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(sizes, train, "o-", label="training rows")
ax.plot(sizes, test, "s-", label="held-out rows")
ax.set(xscale="log", xlabel="hidden nodes L", ylabel="accuracy",
       title="ELMClassifier on digits (alpha = 1e-3)")
ax.legend()
fig.tight_layout()
