"""
ELM on digits: accuracy against the hidden size
===============================================

An extreme learning machine draws a random hidden layer and fits only a ridge readout.
"""
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits

from fastelm import ELMClassifier

X, y = load_digits(return_X_y=True)
X = X / 16.0
sizes = [25, 50, 100, 200, 400, 800]
scores = [ELMClassifier(n_hidden=L, alpha=1e-3, random_state=0).fit(X[:1200], y[:1200])
          .score(X[1200:], y[1200:]) for L in sizes]
print(dict(zip(sizes, np.round(scores, 3))))
fig, ax = plt.subplots(figsize=(5, 3.2))
ax.plot(sizes, scores, "o-")
ax.set(xscale="log", xlabel="hidden nodes L", ylabel="test accuracy")
